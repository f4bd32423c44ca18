#include "app/commands.h"

#include "app/options.h"

#include "core/job/jobpipeline.h"
#include "core/traceinfo.h"

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
    addTracePaths(parser);
    parser.addOption({"json", "Write JSON (one object per path, a list when several)."});
    addMaxMemoryOption(parser);
    addCacheOptions(parser);
    if (const auto code = parseCommand(parser, "info", args, true)) return *code;
    const QStringList paths = parser.positionalArguments();
    if (paths.isEmpty()) return usageError("info", "give at least one trace path");
    LoadOptions options;
    const auto budget = maxMemoryBytes(parser);
    if (!budget) return usageError("info", "--max-memory takes a number of MiB");
    options.maxMemoryBytes = *budget;
    const bool asJson = parser.isSet("json");
    nlohmann::json all = nlohmann::json::array();
    int code = kExitOk;
    // A job folder or rank folders stand for several ranks: the pipeline resolves and loads
    // them in parallel (no analysis), one summary per rank.
    std::vector<std::string> given;
    for (const QString& p : paths)
        given.push_back(p.toStdString());
    PipelineOptions pipeline;
    pipeline.load = options;
    pipeline.analyse = false;
    pipeline.crossRank = false;
    const PipelineResult result = runPipeline(given, pipeline);
    for (const std::string& e : result.errors) {
        std::cerr << "ringscope info: " << e << "\n";
        code = kExitInput;
    }
    for (const std::string& w : result.warnings)
        std::cerr << "ringscope info: warning: " << w << " (using what was read)\n";
    for (std::size_t i = 0; i < result.traces.size(); ++i) {
        // One path, one rank: named as given.
        const std::string path =
            given.size() == 1 && result.traces.size() == 1 ? given.front() : result.paths[i];
        if (asJson)
            all.push_back(traceInfoJson(*result.traces[i], path));
        else
            std::cout << traceInfoText(*result.traces[i], path);
    }
    if (asJson) {
        if (all.size() == 1)
            std::cout << all[0].dump(2) << "\n";
        else if (!all.empty() || paths.size() > 1 || result.traces.size() > 1)
            std::cout << all.dump(2) << "\n";
    }
    return code;
}

} // namespace rs::cli
