#include "app/commands.h"

#include "core/traceinfo.h"
#include "core/traceloader.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>
#include <iostream>

namespace rs::cli {

int info(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Summarise traces: producer, rank, events per phase, processes and threads, span, "
        "warnings.");
    parser.addHelpOption();
    parser.addPositionalArgument("PATH", "Trace file (.json, .json.gz) or torch_npu folder.",
                                 "PATH...");
    parser.addOption({"json", "Write JSON (one object per path, a list when several)."});
    parser.addOption({"max-memory", "Memory budget for loading, in MiB (default: 75% of RAM).",
                      "MiB"});
    if (!parser.parse(QStringList{"ringscope info"} + args)) {
        std::cerr << "ringscope info: " << parser.errorText().toStdString() << "\n";
        return kExitInput;
    }
    if (parser.isSet("help")) {
        std::cout << parser.helpText().toStdString();
        return kExitOk;
    }
    const QStringList paths = parser.positionalArguments();
    if (paths.isEmpty()) {
        std::cerr << "ringscope info: give at least one trace path\n";
        return kExitInput;
    }
    LoadOptions options;
    if (parser.isSet("max-memory"))
        options.maxMemoryBytes = parser.value("max-memory").toULongLong() << 20;
    const bool asJson = parser.isSet("json");
    nlohmann::json all = nlohmann::json::array();
    int code = kExitOk;
    for (const QString& p : paths) {
        const std::string path = p.toStdString();
        LoadResult r = loadTrace(path, options);
        if (r.failed()) {
            std::cerr << "ringscope info: " << r.message << "\n";
            code = kExitInput;
            continue;
        }
        if (!r.complete())
            std::cerr << "ringscope info: warning: " << r.message << " (using what was read)\n";
        if (asJson)
            all.push_back(traceInfoJson(*r.trace, path));
        else
            std::cout << traceInfoText(*r.trace, path);
    }
    if (asJson) {
        if (all.size() == 1)
            std::cout << all[0].dump(2) << "\n";
        else if (!all.empty() || paths.size() > 1)
            std::cout << all.dump(2) << "\n";
    }
    return code;
}

} // namespace rs::cli
