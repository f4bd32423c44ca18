#include "app/commands.h"

#include "app/options.h"

#include "core/analysis/reportjson.h"
#include "core/job/jobpipeline.h"
#include "core/job/ranksummary.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cmath>
#include <iostream>

namespace rs::cli {

bool parseLinkPeaks(const QStringList& values, AnalysisOptions* options, std::string* error)
{
    for (const QString& v : values) {
        const int eq = v.indexOf('=');
        bool ok = false;
        const double gbps = eq > 0 ? v.mid(eq + 1).toDouble(&ok) : 0.0;
        if (eq <= 0 || !ok || !(gbps > 0) || !std::isfinite(gbps)) {
            *error = "--link-peak takes NAME=GBPS with a positive number, e.g. HCCS=28 (got " +
                     v.toStdString() + ")";
            return false;
        }
        options->linkPeaks[v.left(eq).trimmed().toStdString()] = gbps;
    }
    return true;
}

int analyze(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Analyse the communication of traces: collectives, their internal memcpy, duration "
        "modes and anomalies, alignment, steps, bandwidth, findings with call stacks.");
    parser.addHelpOption();
    addTracePaths(parser);
    parser.addOption({"json", "Write the ringscope.report/1 JSON report (docs/report-format.md)."});
    parser.addOption(
        {"size-align", "Size boundary in bytes for transfer sizes (default 512).", "N", "512"});
    parser.addOption({"addr-align", "Address boundary in bytes for buffer addresses (default 128).",
                      "N", "128"});
    addFailOnOption(parser);
    addMaxMemoryOption(parser);
    parser.addOption({"summary-out",
                      "Write this rank's summary (ringscope.ranksummary/1, docs/scale.md) to "
                      "FILE instead of the text report (with --json, both); one rank only. "
                      "`ringscope merge` makes the job report from the summaries.",
                      "FILE"});
    parser.addOption({"link-peak",
                      "A link's peak in GB/s for utilisation, repeatable (HCCS=28, RDMA=25, "
                      "NVLink=450...; defaults in docs/analysis.md).",
                      "NAME=GBPS"});
    addCacheOptions(parser);
    if (const auto code = parseCommand(parser, "analyze", args, true)) return *code;
    const QStringList paths = parser.positionalArguments();
    if (paths.isEmpty()) return usageError("analyze", "give at least one trace path");
    AnalysisOptions options;
    bool ok1 = false, ok2 = false;
    options.sizeAlign = parser.value("size-align").toULongLong(&ok1);
    options.addrAlign = parser.value("addr-align").toULongLong(&ok2);
    if (!ok1 || !ok2) {
        std::cerr << "ringscope analyze: --size-align and --addr-align take a number of bytes\n";
        return kExitInput;
    }
    std::string peakError;
    if (!parseLinkPeaks(parser.values("link-peak"), &options, &peakError)) {
        std::cerr << "ringscope analyze: " << peakError << "\n";
        return kExitInput;
    }
    std::optional<Severity> failOn;
    if (!failOnSeverity(parser, &failOn))
        return usageError("analyze", "--fail-on takes warning or error");
    LoadOptions load;
    const auto budget = maxMemoryBytes(parser);
    if (!budget) return usageError("analyze", "--max-memory takes a number of MiB");
    load.maxMemoryBytes = *budget;

    // Every path may stand for several ranks (a job folder): the pipeline resolves, loads and
    // analyses them in parallel and matches the ranks of one job.
    std::vector<std::string> given;
    for (const QString& p : paths)
        given.push_back(p.toStdString());
    // --summary-out: one rank (a path that resolves to several is refused before loading).
    const QString summaryOut = parser.value("summary-out");
    if (parser.isSet("summary-out")) {
        std::string discoverError;
        const std::size_t ranks = discoverJob(given, &discoverError).size();
        if (ranks != 1 && discoverError.empty()) {
            std::cerr << "ringscope analyze: --summary-out takes one rank, " << ranks
                      << " found: run it once per rank (scripts/slurm/analyze-job does, as a "
                         "Slurm array) and `ringscope merge` the summaries\n";
            return kExitInput;
        }
    }
    PipelineOptions pipeline;
    pipeline.load = load;
    pipeline.analysis = options;
    // Only reports are printed: each trace is let go once analysed, so a job larger than the
    // memory budget is analysed a few ranks at a time instead of refusing the later ranks.
    pipeline.keepTraces = false;
    const PipelineResult result = runPipeline(given, pipeline);
    for (const std::string& e : result.errors)
        std::cerr << "ringscope analyze: " << e << "\n";
    for (const std::string& w : result.warnings)
        std::cerr << "ringscope analyze: warning: " << w << " (using what was read)\n";
    const bool inputError = !result.errors.empty();
    const std::vector<ReportInput> inputs = result.reportInputs();
    const JobReport* jobPtr = result.jobReport();
    if (!summaryOut.isEmpty()) {
        std::string error;
        if (inputs.size() != 1 ||
            !writeRankSummary(inputs.front(), summaryOut.toStdString(), &error)) {
            std::cerr << "ringscope analyze: "
                      << (error.empty() ? "no rank was read: no summary written" : error) << "\n";
            return kExitInput;
        }
    }
    if (parser.isSet("json"))
        writeReportJson(std::cout, inputs, jobPtr);
    else if (summaryOut.isEmpty())
        std::cout << reportToText(inputs, jobPtr);
    if (inputError) return kExitInput;
    const auto worst = worstSeverity(inputs, jobPtr);
    if (failOn && worst && *worst >= *failOn) return kExitFailOn;
    return kExitOk;
}

} // namespace rs::cli
