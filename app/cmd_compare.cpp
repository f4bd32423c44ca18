#include "app/commands.h"

#include "app/options.h"

#include "core/compare/comparereport.h"
#include "core/compare/runloader.h"
#include "ui/compare/comparerun.h"
#include "ui/compare/comparewindow.h"
#include "ui/compare/scalingview.h"

#include <QApplication>

#include <QCommandLineParser>
#include <QFileInfo>

#include <iostream>

namespace rs::cli {

int compare(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Compare two runs (before and after a fix): step time, collectives and their extra "
        "internal memcpy, findings resolved and new, ops whose device time changed. With "
        "--scaling, the scaling efficiency of runs on different card counts.");
    parser.addHelpOption();
    parser.addPositionalArgument("BEFORE",
                                 "Trace file, rank folder or job folder, or a folder of rank "
                                 "summaries (ringscope.ranksummary/1: no ops).");
    parser.addPositionalArgument("AFTER", "The run to compare with BEFORE (same kinds).");
    parser.addOption({"json", "Write ringscope.compare/1 (or ringscope.scaling/1) JSON."});
    parser.addOption({"scaling", "Scaling efficiency of RUN... (the first is the baseline)."});
    parser.addOption({"weak", "With --scaling: weak scaling (efficiency = T0 / T)."});
    parser.addOption({"top",
                      "How many op changes to list (default 20 in JSON, 10 in text; 0 "
                      "lists every op).",
                      "N"});
    parser.addOption(
        {"size-align", "Size boundary in bytes for transfer sizes (default 512).", "N", "512"});
    parser.addOption({"addr-align", "Address boundary in bytes for buffer addresses (default 128).",
                      "N", "128"});
    addMaxMemoryOption(parser);
    parser.addOption({"image",
                      "Also write the picture: the two timelines on their first common step "
                      "(or the scaling chart), PNG, SVG or PDF by suffix.",
                      "FILE"});
    addCacheOptions(parser);
    if (const auto code =
            parseCommand(parser, "compare", args, true,
                         "\nUsage: ringscope compare BEFORE AFTER [--json]\n"
                         "       ringscope compare --scaling [--weak] RUN... [--json]\n"))
        return *code;
    const bool scaling = parser.isSet("scaling");
    const bool json = parser.isSet("json");
    const QStringList paths = parser.positionalArguments();
    if (parser.isSet("weak") && !scaling) {
        std::cerr << "ringscope compare: --weak goes with --scaling\n";
        return kExitInput;
    }
    if (!scaling && paths.size() != 2) {
        std::cerr << "ringscope compare: give two runs, BEFORE and AFTER (or --scaling RUN...)\n";
        return kExitInput;
    }
    if (scaling && paths.size() < 2) {
        std::cerr << "ringscope compare --scaling: give at least two runs, the baseline first\n";
        return kExitInput;
    }
    RunLoadOptions o;
    bool ok1 = false, ok2 = false;
    o.analysis.sizeAlign = parser.value("size-align").toULongLong(&ok1);
    o.analysis.addrAlign = parser.value("addr-align").toULongLong(&ok2);
    if (!ok1 || !ok2) {
        std::cerr << "ringscope compare: --size-align and --addr-align take a number of bytes\n";
        return kExitInput;
    }
    const auto budget = maxMemoryBytes(parser);
    if (!budget) return usageError("compare", "--max-memory takes a number of MiB");
    o.load.maxMemoryBytes = *budget;
    std::size_t top = json ? 20 : 10;
    if (parser.isSet("top")) {
        bool ok = false;
        top = parser.value("top").toULongLong(&ok);
        if (!ok) {
            std::cerr << "ringscope compare: --top takes a number\n";
            return kExitInput;
        }
    }

    const QString image = parser.value("image");
    if (!image.isEmpty()) {
        const QString suffix = QFileInfo(image).suffix().toLower();
        if (suffix != "png" && suffix != "svg" && suffix != "pdf") {
            std::cerr << "ringscope compare: --image takes a .png, .svg or .pdf file\n";
            return kExitInput;
        }
        if (!qobject_cast<QApplication*>(QCoreApplication::instance())) {
            std::cerr << "ringscope compare: --image needs the GUI libraries (internal error)\n";
            return kExitInput;
        }
    }

    bool inputError = false;
    std::vector<RunDigest> runs;
    // The picture of two runs needs both on screen: they load as the viewer loads them (and
    // stay in memory together); the figures come from the same digests.
    if (!scaling && !image.isEmpty()) {
        CompareRunPtr sides[2];
        for (int i = 0; i < 2; ++i) {
            sides[i] = loadCompareRun(paths[i], nullptr);
            for (const std::string& e : sides[i]->errors)
                std::cerr << "ringscope compare: " << e << "\n";
            inputError = inputError || !sides[i]->errors.empty();
            if (!sides[i]->ok()) {
                std::cerr << "ringscope compare: cannot read " << paths[i].toStdString() << "\n";
                return kExitInput;
            }
        }
        // Opens on the step that changed most, its most changed collective selected in both.
        CompareWindow window;
        window.resize(1600, 1000);
        window.setRuns(sides[0], sides[1]);
        QString error;
        if (!window.writeImage(image, &error)) {
            std::cerr << "ringscope compare: " << error.toStdString() << "\n";
            return kExitInput;
        }
        const RunComparison& c = *window.comparison();
        if (json)
            std::cout << compareJson(c, top) << "\n";
        else
            std::cout << compareToText(c, top);
        return inputError ? kExitInput : kExitOk;
    }

    // One run at a time: each is digested and its traces freed before the next loads.
    for (const QString& p : paths) {
        std::vector<std::string> errors;
        auto d = loadRunDigest(p.toStdString(), o, &errors);
        for (const std::string& e : errors)
            std::cerr << "ringscope compare: " << e << "\n";
        inputError = inputError || !errors.empty();
        if (!d) {
            std::cerr << "ringscope compare: cannot read " << p.toStdString() << "\n";
            return kExitInput;
        }
        runs.push_back(std::move(*d));
    }
    if (scaling) {
        const bool weak = parser.isSet("weak");
        const auto points = scalingOf(runs, weak);
        QString error;
        if (!image.isEmpty() && !exportScalingPlot(points, weak, image, QSize(1200, 800), &error)) {
            std::cerr << "ringscope compare: " << error.toStdString() << "\n";
            return kExitInput;
        }
        if (json)
            std::cout << scalingJson(points, weak) << "\n";
        else
            std::cout << scalingToText(points, weak);
    } else {
        const RunComparison c = compareRuns(std::move(runs[0]), std::move(runs[1]));
        if (json)
            std::cout << compareJson(c, top) << "\n";
        else
            std::cout << compareToText(c, top);
    }
    return inputError ? kExitInput : kExitOk;
}

} // namespace rs::cli
