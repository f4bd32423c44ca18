#include "app/commands.h"

#include "core/analysis/analyzer.h"
#include "core/analysis/reportjson.h"
#include "core/traceloader.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <iostream>

namespace rs::cli {

int analyze(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Analyse the communication of traces: collectives, their internal memcpy, duration "
        "modes and anomalies, alignment, steps, bandwidth, findings with call stacks.");
    parser.addHelpOption();
    parser.addPositionalArgument(
        "PATH", "Trace file (.json, .json.gz), torch_npu run folder, or a job folder of them.",
        "PATH...");
    parser.addOption({"json", "Write the ringscope.report/1 JSON report (docs/report-format.md)."});
    parser.addOption(
        {"size-align", "Size boundary in bytes for transfer sizes (default 512).", "N", "512"});
    parser.addOption({"addr-align", "Address boundary in bytes for buffer addresses (default 128).",
                      "N", "128"});
    parser.addOption(
        {"fail-on", "Exit 1 when a finding of this severity or worse exists.", "warning|error"});
    parser.addOption(
        {"max-memory", "Memory budget for loading, in MiB (default: 75% of RAM).", "MiB"});
    if (!parser.parse(QStringList{"ringscope analyze"} + args)) {
        std::cerr << "ringscope analyze: " << parser.errorText().toStdString() << "\n";
        return kExitInput;
    }
    if (parser.isSet("help")) {
        std::cout << parser.helpText().toStdString();
        return kExitOk;
    }
    const QStringList paths = parser.positionalArguments();
    if (paths.isEmpty()) {
        std::cerr << "ringscope analyze: give at least one trace path\n";
        return kExitInput;
    }
    AnalysisOptions options;
    bool ok1 = false, ok2 = false;
    options.sizeAlign = parser.value("size-align").toULongLong(&ok1);
    options.addrAlign = parser.value("addr-align").toULongLong(&ok2);
    if (!ok1 || !ok2) {
        std::cerr << "ringscope analyze: --size-align and --addr-align take a number of bytes\n";
        return kExitInput;
    }
    std::optional<Severity> failOn;
    if (parser.isSet("fail-on")) {
        const QString v = parser.value("fail-on");
        if (v == "warning")
            failOn = Severity::Warning;
        else if (v == "error")
            failOn = Severity::Error;
        else {
            std::cerr << "ringscope analyze: --fail-on takes warning or error\n";
            return kExitInput;
        }
    }
    LoadOptions load;
    if (parser.isSet("max-memory"))
        load.maxMemoryBytes = parser.value("max-memory").toULongLong() << 20;

    std::vector<ReportInput> inputs;
    bool inputError = false;
    for (const QString& p : paths) {
        for (const std::string& path : expandTracePaths(p.toStdString())) {
            LoadResult r = loadTrace(path, load);
            if (!r.ok) {
                std::cerr << "ringscope analyze: " << r.error << "\n";
                inputError = true;
                continue;
            }
            inputs.push_back({path, rs::analyze(r.trace, options)});
        }
    }
    if (parser.isSet("json"))
        std::cout << reportToJson(inputs).dump(2) << "\n";
    else
        std::cout << reportToText(inputs);
    if (inputError) return kExitInput;
    const auto worst = worstSeverity(inputs);
    if (failOn && worst && *worst >= *failOn) return kExitFailOn;
    return kExitOk;
}

} // namespace rs::cli
