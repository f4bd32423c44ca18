// `ringscope merge SUMMARY... | FOLDER [--json]`: the job report from per-rank summaries
// (`analyze RANK --summary-out FILE`), without the traces: each summary reads back into the
// rank's report and the job analysis runs on them as `analyze JOBFOLDER` runs on the loaded
// ranks, so both print the same report (docs/scale.md).
#include "app/commands.h"

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
    parser.addOption(
        {"fail-on", "Exit 1 when a finding of this severity or worse exists.", "warning|error"});
    if (!parser.parse(QStringList{"ringscope merge"} + args)) {
        std::cerr << "ringscope merge: " << parser.errorText().toStdString() << "\n";
        return kExitInput;
    }
    if (parser.isSet("help")) {
        std::cout << parser.helpText().toStdString();
        return kExitOk;
    }
    std::optional<Severity> failOn;
    if (parser.isSet("fail-on")) {
        const QString v = parser.value("fail-on");
        if (v == "warning")
            failOn = Severity::Warning;
        else if (v == "error")
            failOn = Severity::Error;
        else {
            std::cerr << "ringscope merge: --fail-on takes warning or error\n";
            return kExitInput;
        }
    }
    const QStringList given = parser.positionalArguments();
    if (given.isEmpty()) {
        std::cerr << "ringscope merge: give the summaries or a folder of them\n";
        return kExitInput;
    }
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
