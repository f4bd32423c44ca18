#include "core/producers/nsys/convert.h"

#include "core/cache/modelcache.h"
#include "core/producers/nsys/schema.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

extern char** environ;

namespace rs::nsys {

namespace {

std::string quotedArg(const std::string& s)
{
    if (s.find_first_of(" \t'\"\\$`") == std::string::npos) return s;
    std::string q = "'";
    for (char c : s) {
        if (c == '\'')
            q += "'\\''";
        else
            q += c;
    }
    return q + "'";
}

// Where conversions are kept: the model cache's folder, else a folder of this user's in the
// temporary directory.
QString conversionDir(const LoadOptions& options)
{
    const std::shared_ptr<ModelCache> cache =
        options.cache ? options.cache : ModelCache::processCache();
    if (cache && cache->capBytes() > 0) return cache->directory() + QStringLiteral("/nsys");
    return QDir::tempPath() + QStringLiteral("/ringscope-nsys-") + QString::number(::getuid());
}

// The last non-empty line of a log (what nsys said before it failed).
std::string lastLine(const std::string& path)
{
    std::ifstream in(path);
    std::string line, last;
    while (std::getline(in, line))
        if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
    if (last.size() > 300) last = last.substr(0, 300) + "...";
    return last;
}

} // namespace

bool isReportName(const std::string& path)
{
    const QString s = QString::fromStdString(path);
    return s.endsWith(QLatin1String(".nsys-rep"), Qt::CaseInsensitive) ||
           s.endsWith(QLatin1String(".qdrep"), Qt::CaseInsensitive);
}

std::string exportCommand(const std::string& report)
{
    const QFileInfo f(QString::fromStdString(report));
    const std::string out =
        (f.dir().filePath(f.completeBaseName()) + QStringLiteral(".sqlite")).toStdString();
    return "nsys export --type sqlite --output " + quotedArg(out) + " " + quotedArg(report);
}

Converted exportOf(const std::string& report, const LoadOptions& options, LoadProgress* progress)
{
    Converted c;
    const QFileInfo info(QString::fromStdString(report));
    if (!info.isFile()) {
        c.error = report + ": no such file";
        return c;
    }
    const QString nsys = QStandardPaths::findExecutable(QStringLiteral("nsys"));
    if (nsys.isEmpty()) {
        c.error = report +
                  ": an Nsight Systems report (NVIDIA's own format); Ringscope reads its SQLite "
                  "export, and nsys is not on the PATH to make it. Run `" +
                  exportCommand(report) + "` and open the .sqlite file";
        return c;
    }
    // The conversion of this very file: its canonical path, size and mtime.
    const QString canonical = info.canonicalFilePath();
    const QByteArray identity =
        (canonical + QLatin1Char('\n') + QString::number(info.size()) + QLatin1Char('\n') +
         QString::number(info.lastModified().toMSecsSinceEpoch()))
            .toUtf8();
    const QString hash = QString::fromLatin1(
        QCryptographicHash::hash(identity, QCryptographicHash::Sha1).toHex().left(24));
    const QString dir = conversionDir(options);
    if (!QDir().mkpath(dir)) {
        c.error = report + ": cannot make " + dir.toStdString() + " to convert the report into";
        return c;
    }
    const std::string target =
        (dir + QLatin1Char('/') + hash + QStringLiteral(".sqlite")).toStdString();
    if (isExportFile(target)) {
        c.file = target;
        return c;
    }
    const std::string temp = (dir + QLatin1Char('/') + hash + QStringLiteral(".") +
                              QString::number(::getpid()) + QStringLiteral(".part.sqlite"))
                                 .toStdString();
    const std::string log = temp + ".log";
    ::unlink(temp.c_str());

    const std::string program = nsys.toStdString();
    std::vector<std::string> args = {program, "export",   "--type", "sqlite", "--force-overwrite",
                                     "true",  "--output", temp,     report};
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid = 0;
    const int rc = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        c.error = report + ": cannot run " + program + " (" + std::strerror(rc) + "); run `" +
                  exportCommand(report) + "` and open the .sqlite file";
        return c;
    }
    const std::uint64_t size = std::uint64_t(std::max<qint64>(info.size(), 1));
    if (progress) {
        progress->total.store(size);
        progress->done.store(0);
    }
    int status = 0;
    for (;;) {
        const pid_t w = ::waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) {
            status = -1;
            break;
        }
        if (progress && progress->cancel.load()) {
            ::kill(pid, SIGTERM);
            ::waitpid(pid, &status, 0);
            ::unlink(temp.c_str());
            ::unlink(log.c_str());
            c.cancelled = true;
            c.error = "loading was cancelled";
            return c;
        }
        if (progress) {
            // The export grows to a few times the report: its size moves the bar up to 90%.
            struct stat st {};
            const std::uint64_t grown =
                ::stat(temp.c_str(), &st) == 0 ? std::uint64_t(st.st_size) : 0;
            progress->done.store(std::min<std::uint64_t>(grown / 4, size * 9 / 10));
            if (progress->onAdvance) progress->onAdvance();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    const bool ok = status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok || !isExportFile(temp)) {
        std::string said = lastLine(log);
        c.error = report + ": `nsys export` " +
                  (ok ? std::string("wrote no SQLite export")
                   : status >= 0 && WIFEXITED(status)
                       ? "failed (exit " + std::to_string(WEXITSTATUS(status)) + ")"
                       : std::string("was stopped")) +
                  (said.empty() ? std::string() : ": " + said) + "; run `" + exportCommand(report) +
                  "` and open the .sqlite file";
        ::unlink(temp.c_str());
        ::unlink(log.c_str());
        return c;
    }
    ::unlink(log.c_str());
    if (::rename(temp.c_str(), target.c_str()) != 0) {
        c.error =
            report + ": cannot keep the export at " + target + " (" + std::strerror(errno) + ")";
        ::unlink(temp.c_str());
        return c;
    }
    c.file = target;
    return c;
}

} // namespace rs::nsys
