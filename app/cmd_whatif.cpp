// `ringscope whatif`: what a fix would gain, by a replay of each step (docs/analysis.md,
// "What if").

#include "app/commands.h"

#include "app/options.h"

#include "core/job/jobpipeline.h"
#include "core/job/whatif.h"

#include <QCommandLineParser>

#include <cmath>
#include <iostream>

namespace rs::cli {

int whatif(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "What a fix would gain: each step of a trace or a job replayed on its dependency graph "
        "(stream order, launches, collectives that exchange once their last rank is ready) "
        "after a change, measured against predicted (docs/analysis.md, \"What if\").");
    parser.addHelpOption();
    addTracePaths(parser);
    parser.addOption({"remove",
                      "What to take away: internal-memcpy (every collective's extra internal "
                      "memcpy).",
                      "internal-memcpy"});
    parser.addOption({"scale",
                      "Kernels, copies or collectives whose name matches GLOB (* and ?) take "
                      "FACTOR times as long ('MatMul*=0.8': 20% faster). Repeatable.",
                      "GLOB=FACTOR"});
    parser.addOption({"rank", "Only rank N changes.", "N"});
    parser.addOption({"json", "Write {steps: [...], total_measured_ns, total_predicted_ns}."});
    addMaxMemoryOption(parser);
    addCacheOptions(parser);
    if (const auto code = parseCommand(parser, "whatif", args, true)) return *code;
    const QStringList paths = parser.positionalArguments();
    if (paths.isEmpty()) return usageError("whatif", "give at least one trace path");
    WhatIfChange change;
    if (parser.isSet("remove")) {
        if (parser.value("remove") != "internal-memcpy")
            return usageError("whatif", "--remove takes internal-memcpy");
        change.removeInternalMemcpy = true;
    }
    for (const QString& s : parser.values("scale")) {
        const qsizetype eq = s.lastIndexOf('=');
        bool ok = false;
        const double f = eq > 0 ? s.mid(eq + 1).toDouble(&ok) : 0.;
        if (!ok || !std::isfinite(f) || f < 0)
            return usageError("whatif", "--scale takes GLOB=FACTOR with FACTOR >= 0, not '" +
                                            s.toStdString() + "'");
        change.scale.push_back({s.left(eq).toStdString(), f});
    }
    if (parser.isSet("rank")) {
        bool ok = false;
        const int r = parser.value("rank").toInt(&ok);
        if (!ok || r < 0) return usageError("whatif", "--rank takes a rank number");
        change.rank = r;
    }
    PipelineOptions pipeline;
    const auto budget = maxMemoryBytes(parser);
    if (!budget) return usageError("whatif", "--max-memory takes a number of MiB");
    pipeline.load.maxMemoryBytes = *budget;
    std::vector<std::string> given;
    for (const QString& p : paths)
        given.push_back(p.toStdString());
    const PipelineResult result = runPipeline(given, pipeline);
    for (const std::string& e : result.errors)
        std::cerr << "ringscope whatif: " << e << "\n";
    for (const std::string& w : result.warnings)
        std::cerr << "ringscope whatif: warning: " << w << " (using what was read)\n";
    if (result.reports.empty()) return usageError("whatif", "no trace was read");
    if (change.rank) {
        bool has = false;
        for (int id : result.rankIds)
            has = has || id == *change.rank;
        if (!has)
            return usageError("whatif",
                              "no rank " + std::to_string(*change.rank) + " in the input");
    }
    const WhatIfResult r = whatIf(result.traces, result.reports, result.jobReport(), change);
    if (r.steps.empty()) std::cerr << "ringscope whatif: the input has no steps to replay\n";
    if (parser.isSet("json"))
        std::cout << whatIfJson(r) << "\n";
    else
        std::cout << whatIfText(r);
    return result.errors.empty() ? kExitOk : kExitInput;
}

} // namespace rs::cli
