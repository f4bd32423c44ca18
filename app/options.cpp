#include "app/options.h"

#include "app/commands.h"
#include "core/cache/modelcache.h"
#include "core/producers/registry.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace rs::cli {

int usageError(const char* command, const std::string& why)
{
    std::cerr << "ringscope " << command << ": " << why << "\n";
    return kExitInput;
}

void addTracePaths(QCommandLineParser& parser, const QString& extra)
{
    QString text = QStringLiteral("A trace or a job folder of them. Ringscope reads ") +
                   QString::fromStdString(producers::inputsSentence()) + QLatin1Char('.');
    if (!extra.isEmpty()) text += QLatin1Char(' ') + extra;
    parser.addPositionalArgument(QStringLiteral("PATH"), text, QStringLiteral("PATH..."));
}

std::optional<int> parseCommand(QCommandLineParser& parser, const char* command,
                                const QStringList& args, bool loadsTraces,
                                const std::string& helpTail)
{
    if (!parser.parse(QStringList{QStringLiteral("ringscope ") + QLatin1String(command)} + args))
        return usageError(command, parser.errorText().toStdString());
    if (parser.isSet("help")) {
        std::cout << parser.helpText().toStdString() << helpTail;
        return kExitOk;
    }
    if (std::string error; loadsTraces && !installCache(parser, &error))
        return usageError(command, error);
    return std::nullopt;
}

void addMaxMemoryOption(QCommandLineParser& parser)
{
    parser.addOption(
        {"max-memory", "Memory budget for loading, in MiB (default: 75% of RAM).", "MiB"});
}

std::optional<std::uint64_t> maxMemoryBytes(const QCommandLineParser& parser)
{
    if (!parser.isSet("max-memory")) return 0;
    bool ok = false;
    const qulonglong mib = parser.value("max-memory").toULongLong(&ok);
    if (!ok || mib > (UINT64_MAX >> 20)) return std::nullopt;
    return std::uint64_t(mib) << 20;
}

void addFailOnOption(QCommandLineParser& parser)
{
    parser.addOption(
        {"fail-on", "Exit 1 when a finding of this severity or worse exists.", "warning|error"});
}

bool failOnSeverity(const QCommandLineParser& parser, std::optional<Severity>* severity)
{
    severity->reset();
    if (!parser.isSet("fail-on")) return true;
    const QString v = parser.value("fail-on");
    if (v == QLatin1String("warning"))
        *severity = Severity::Warning;
    else if (v == QLatin1String("error"))
        *severity = Severity::Error;
    else
        return false;
    return true;
}

void addCacheOptions(QCommandLineParser& parser)
{
    parser.addOption({"no-cache", "Neither read nor write the model cache (docs/cache.md)."});
    parser.addOption({"cache-size",
                      "Size cap of the model cache (default 4G; a number alone is MiB; 0 keeps "
                      "nothing). Least recently used files go first.",
                      "SIZE"});
}

bool installCache(const QCommandLineParser& parser, std::string* error)
{
    if (parser.isSet("no-cache")) {
        ModelCache::setProcessCache(nullptr);
        return true;
    }
    std::uint64_t cap = ModelCache::kDefaultCapBytes;
    if (parser.isSet("cache-size")) {
        const std::optional<std::uint64_t> size = ModelCache::parseSize(parser.value("cache-size"));
        if (!size) {
            *error = "--cache-size takes a size such as 4G, 512M or 0";
            return false;
        }
        cap = *size;
    }
    ModelCache::setProcessCache(std::make_shared<ModelCache>(ModelCache::defaultDirectory(), cap));
    return true;
}

void finishCache(int code)
{
    // The output is out (flushed before the fork so that it is not held for the child); a
    // write still running goes on in a detached child, and the process ends now rather than
    // after hundreds of MB are written (docs/cache.md). RINGSCOPE_CACHE_WAIT=1: wait here.
    if (const std::shared_ptr<ModelCache> cache = ModelCache::processCache();
        cache && !qEnvironmentVariableIsSet("RINGSCOPE_CACHE_WAIT")) {
        std::cout.flush();
        std::cerr.flush();
        std::fflush(nullptr);
        // Ended at once: the writes here stop only after their checksums (a few hundred ms
        // under load), and nothing is left to do (the command wrote its files, printed its
        // output); the child removes a temporary file cut here.
        if (cache->detachWrites()) std::_Exit(code);
    }
    ModelCache::setProcessCache(nullptr);
}

} // namespace rs::cli
