// `ringscope merge SUMMARY... | FOLDER [--json]`: the job report from per-rank summaries
// (`analyze RANK --summary-out FILE`), without the traces: each summary reads back into the
// rank's report and the job analysis runs on them as `analyze JOBFOLDER` runs on the loaded
// ranks, so both print the same report (docs/scale.md).
#include "app/commands.h"
#include "app/options.h"

#include "core/job/ranksummary.h"

#include <QCommandLineParser>

#include <iostream>

namespace rs::cli {

int merge(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Merge per-rank summaries (ringscope analyze RANK --summary-out FILE) into the job "
        "report: the report `ringscope analyze JOBFOLDER` prints for the same ranks.");
    parser.addHelpOption();
    parser.addPositionalArgument(
        "SUMMARY", "A ringscope.ranksummary/1 file, or a folder of *.ranksummary.json files.",
        "SUMMARY...|FOLDER");
    parser.addOption({"json", "Write the ringscope.report/1 JSON report (docs/report-format.md)."});
    addFailOnOption(parser);
    // Summaries only, no traces: no model cache.
    if (const auto code = parseCommand(parser, "merge", args, false)) return *code;
    std::optional<Severity> failOn;
    if (!failOnSeverity(parser, &failOn))
        return usageError("merge", "--fail-on takes warning or error");
    const QStringList given = parser.positionalArguments();
    if (given.isEmpty()) return usageError("merge", "give the summaries or a folder of them");
    std::vector<std::string> paths;
    for (const QString& p : given)
        paths.push_back(p.toStdString());
    // Two passes over the summaries, never every rank's report at once (docs/scale.md): the
    // warnings and errors come after the report.
    const MergeOutcome merged = parser.isSet("json") ? writeMergedReportJson(std::cout, paths)
                                                     : writeMergedReportText(std::cout, paths);
    for (const std::string& w : merged.warnings)
        std::cerr << "ringscope merge: warning: " << w << "\n";
    for (const std::string& e : merged.errors)
        std::cerr << "ringscope merge: " << e << "\n";
    if (!merged.errors.empty()) return kExitInput;
    if (failOn && merged.worst && *merged.worst >= *failOn) return kExitFailOn;
    return kExitOk;
}

} // namespace rs::cli
