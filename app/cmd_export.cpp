// `ringscope export`: the annotated timeline picture (or the composite report, or a plot)
// rendered with no display, for reports and CI.

#include "app/commands.h"

#include "app/options.h"

#include "core/annotations/annotationstore.h"
#include "core/annotations/findingannotations.h"
#include "core/job/jobpipeline.h"
#include "ui/export/exportcomposer.h"
#include "ui/job/jobsession.h"
#include "ui/plots/plotexport.h"
#include "ui/theme/theme.h"
#include "ui/timeline/criticalpathlayer.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <cmath>
#include <iostream>
#include <optional>

namespace rs::cli {

namespace {

int usageError(const QString& why)
{
    return cli::usageError("export", why.toStdString());
}

// "1500000", "1.5ms", "200us", "0.4s", "12ns" -> ns.
std::optional<TimeNs> parseTime(const QString& text)
{
    static const QRegularExpression re(
        QStringLiteral(R"(^\s*(-?[0-9]+(?:\.[0-9]+)?)\s*(ns|us|µs|ms|s)?\s*$)"));
    const auto m = re.match(text);
    if (!m.hasMatch()) return std::nullopt;
    const QString unit = m.captured(2);
    double scale = 1;
    if (unit == "us" || unit == QStringLiteral("µs"))
        scale = 1e3;
    else if (unit == "ms")
        scale = 1e6;
    else if (unit == "s")
        scale = 1e9;
    if (unit.isEmpty() || unit == "ns") {
        bool ok = false;
        const qlonglong v = m.captured(1).toLongLong(&ok);
        if (ok) return v;
    }
    const double v = m.captured(1).toDouble() * scale;
    if (!std::isfinite(v) || std::abs(v) > 9.2e18) return std::nullopt;
    return static_cast<TimeNs>(std::llround(v));
}

} // namespace

int exportImage(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Render the timeline of a range with its annotations, a title block (trace, rank, "
        "range, top findings) and a legend of the markers, as PNG, SVG or PDF, with no "
        "display. Or the composite report (--composite), or a plot (--view).");
    parser.addHelpOption();
    addTracePaths(parser, "Several ranks render as the job, each rank's tracks labelled "
                          "\"Rank N\".");
    parser.addOption({"out", "Output file: .png, .svg or .pdf.", "FILE"});
    parser.addOption({"range",
                      "Time range START:END from the trace start, in ns or with a unit "
                      "(1.2s:1.6s, 1200ms:1600ms). Absolute trace times are accepted too.",
                      "START:END"});
    parser.addOption({"finding",
                      "Show finding N (1 = the most severe): its step over every "
                      "rank, framed whole.",
                      "N"});
    parser.addOption({"step", "Show ProfilerStep#N.", "N"});
    parser.addOption({"width", "Width in pixels (default 1600).", "PX"});
    parser.addOption({"height", "Height in pixels (default: what the tracks need).", "PX"});
    parser.addOption({"scale", "PNG pixels per pixel: 1 or 2 (HiDPI, slides).", "X"});
    parser.addOption({"annotate-findings",
                      "Label the anomalous collectives, their extra Memcpy and the source "
                      "frame. Under the timeline, either way: the step plot and the root cause "
                      "(the finding's words, the source frame, the fix, the call stack)."});
    parser.addOption({"composite",
                      "The report page: timeline (every rank) + step plot + root cause of "
                      "--finding N (of --step N: its anomalous collective; else the top "
                      "finding in the range)."});
    parser.addOption({"no-story", "The timeline alone: no step plot and root cause under it."});
    parser.addOption({"critical-path",
                      "Draw each step's critical path over the tracks: a band per segment in "
                      "its kind's colour, connectors where it jumps to another rank."});
    parser.addOption(
        {"view", "A plot instead of the timeline: steps, distribution or matrix.", "VIEW"});
    parser.addOption({"title", "Title of the picture (default: the trace file name).", "TEXT"});
    parser.addOption({"theme",
                      "Colours of the picture: light (default, for print and tickets) or dark.",
                      "light|dark"});
    parser.addOption({"no-sidecar", "Ignore the annotations saved next to the trace."});
    addMaxMemoryOption(parser);
    parser.addOption(
        {"link-peak", "A link's peak in GB/s (as for analyze), repeatable.", "NAME=GBPS"});
    addCacheOptions(parser);
    if (const auto code = parseCommand(parser, "export", args, true)) return *code;
    const QStringList paths = parser.positionalArguments();
    if (paths.isEmpty()) return usageError("give a trace path");
    const QString out = parser.value("out");
    if (out.isEmpty()) return usageError("give --out FILE.png|svg|pdf");
    if (!exportFormatFor(out))
        return usageError(QString("unknown image format for %1: use .png, .svg or .pdf").arg(out));
    const int selectors =
        int(parser.isSet("range")) + int(parser.isSet("finding")) + int(parser.isSet("step"));
    if (selectors > 1) return usageError("give at most one of --range, --finding, --step");
    auto intOption = [&](const char* name, int lo, int hi, int* value) {
        if (!parser.isSet(name)) return true;
        bool ok = false;
        *value = parser.value(name).toInt(&ok);
        return ok && *value >= lo && *value <= hi;
    };
    int width = 1600, height = 0, scale = 1, findingNo = 0, stepNo = 0;
    if (!intOption("width", 50, 20000, &width) || !intOption("height", 50, 20000, &height))
        return usageError("--width and --height take 50..20000 pixels");
    if (!intOption("scale", 1, 4, &scale)) return usageError("--scale takes 1, 2, 3 or 4");
    if (!intOption("finding", 1, 1 << 30, &findingNo))
        return usageError("--finding takes a number from 1");
    if (!intOption("step", 0, 1 << 30, &stepNo)) return usageError("--step takes a step number");
    const QString themeText = parser.isSet("theme") ? parser.value("theme") : QString("light");
    const std::optional<Theme> theme = themeFromName(themeText);
    if (!theme || *theme == Theme::System) return usageError("--theme takes light or dark");
    const bool dark = *theme == Theme::Dark;
    if (dark) applyTheme(Theme::Dark); // the plots' inks read the theme in use
    const bool isView = parser.isSet("view");
    if (isView && selectors > 0)
        return usageError("--view draws every step: --range, --finding and --step do not apply");

    AnalysisOptions analysisOptions;
    std::string peakError;
    if (!parseLinkPeaks(parser.values("link-peak"), &analysisOptions, &peakError))
        return usageError(QString::fromStdString(peakError));
    LoadOptions loadOptions;
    const auto budget = maxMemoryBytes(parser);
    if (!budget) return usageError("--max-memory takes a number of MiB");
    loadOptions.maxMemoryBytes = *budget;
    // What analyze reads: the pipeline resolves the ranks, loads and analyses them.
    std::vector<std::string> given;
    for (const QString& p : paths)
        given.push_back(p.toStdString());
    PipelineOptions pipeline;
    pipeline.load = loadOptions;
    pipeline.analysis = analysisOptions;
    pipeline.crossRank = false; // the job session matches the ranks on its own offsets
    PipelineResult result = runPipeline(given, pipeline);
    for (const std::string& w : result.warnings)
        std::cerr << "ringscope export: warning: " << w << " (using what was read)\n";
    if (result.traces.empty())
        return usageError(QString::fromStdString(
            result.errors.empty() ? std::string("no trace found in the given paths")
                                  : result.errors.front()));
    // A rank that failed is named; the others still render, and the exit code says so.
    for (const std::string& e : result.errors)
        std::cerr << "ringscope export: " << e << "\n";
    const int doneCode = result.errors.empty() ? kExitOk : kExitInput;

    if (isView) {
        QString error;
        const QSize size(width, height > 0 ? height : width * 9 / 16);
        if (!exportPlot(result.reports, parser.value("view"), out, size, &error, dark))
            return usageError(error);
        std::cout << out.toStdString() << "\n";
        return doneCode;
    }

    // Several ranks render as the viewer shows the job: one merged trace, "Rank N · ..." groups,
    // the combined findings (numbered as in the Findings pane).
    ReportPtr report;
    JobSessionPtr session;
    if (result.traces.size() == 1) {
        report = result.reports.front();
    } else {
        const std::string name =
            paths.size() == 1
                ? QDir::cleanPath(QFileInfo(paths.front()).absoluteFilePath()).toStdString()
                : result.traces.front()->path();
        session = buildJobSession(std::move(result), name);
        report = session->combined;
    }
    const TracePtr trace = report->trace;
    AnnotationStore store;
    if (parser.isSet("no-sidecar")) {
        store.setTrace(trace);
    } else {
        const SidecarLoadResult s = store.open(trace);
        if (!s.message.isEmpty())
            std::cerr << "ringscope export: warning: " << s.message.toStdString() << "\n";
    }
    const bool annotate = parser.isSet("annotate-findings");
    if (annotate) store.setAutomatic(findingAnnotations(*report));
    // The sidecar's toggle is for the viewer; on the command line the flag decides.
    store.blockSignals(true);
    store.setShowAutomatic(annotate);
    store.blockSignals(false);

    ExportOptions options;
    options.width = width;
    options.height = height;
    options.scale = scale;
    options.title = parser.value("title");
    options.dark = dark;
    options.story = !parser.isSet("no-story");
    // A job grows to show every rank's tracks (the size limit stays), unless --height is set.
    if (session) options.maxAutoHeight = 20000;
    if (parser.isSet("range")) {
        const QStringList parts = parser.value("range").split(':');
        const auto a = parts.size() == 2 ? parseTime(parts[0]) : std::nullopt;
        const auto b = parts.size() == 2 ? parseTime(parts[1]) : std::nullopt;
        if (!a || !b || *b <= *a)
            return usageError("--range takes START:END with START < END, e.g. 1.2s:1.6s");
        // Absolute trace times are far above the trace's length; relative ones are not.
        const TimeNs length = trace->endNs() - trace->startNs();
        const bool absolute = *a >= trace->startNs() && trace->startNs() > length;
        options.t0 = absolute ? *a : trace->startNs() + *a;
        options.t1 = absolute ? *b : trace->startNs() + *b;
    } else if (findingNo > 0) {
        if (static_cast<std::size_t>(findingNo) > report->findings.size())
            return usageError(QString("--finding %1: the trace has %2 finding(s)")
                                  .arg(findingNo)
                                  .arg(report->findings.size()));
        const Finding& f = report->findings[static_cast<std::size_t>(findingNo - 1)];
        // Its step whole (every rank's), not a sliver around the op.
        std::tie(options.t0, options.t1) = findingRange(*report, f);
        if (!f.events.empty()) options.focus = f.events.front();
    } else if (parser.isSet("step")) {
        // Every rank's step of that number (a job's), framed whole.
        std::optional<StepStats> step;
        for (const StepStats& s : report->steps) {
            if (s.step != stepNo) continue;
            if (!step) {
                step = s;
                continue;
            }
            step->start = std::min(step->start, s.start);
            step->end = std::max(step->end, s.end);
            if (s.busyEnd > s.busyStart) {
                step->busyStart =
                    step->busyStart ? std::min(step->busyStart, s.busyStart) : s.busyStart;
                step->busyEnd = std::max(step->busyEnd, s.busyEnd);
            }
        }
        if (!step) {
            QStringList have;
            for (const StepStats& s : report->steps)
                have << QString::number(s.step);
            return usageError(QString("--step %1: no such ProfilerStep (steps: %2)")
                                  .arg(stepNo)
                                  .arg(have.isEmpty() ? QString("none") : have.join(", ")));
        }
        const TimeNs a = std::min(step->start, step->busyStart ? step->busyStart : step->start);
        const TimeNs b = std::max(step->end, step->busyEnd);
        const TimeNs pad = (b - a) / 50;
        options.t0 = a - pad;
        options.t1 = b + pad;
        // The step's anomalous collective, if any, is what the picture is about.
        for (const Collective& c : report->collectives)
            if (c.anomalous && c.start >= a && c.start < b) {
                options.focus = c.event;
                break;
            }
    }

    ExportComposer composer(trace, report, &store);
    composer.setOptions(options);
    if (parser.isSet("critical-path")) {
        // The painter the viewer's toggle uses (ui/timeline/criticalpathlayer.h).
        const std::shared_ptr<const CriticalPathLayer> path =
            session ? CriticalPathLayer::forJob(*session) : CriticalPathLayer::forReport(*report);
        if (path->empty())
            std::cerr << "ringscope export: warning: no critical path (the trace has no steps)\n";
        composer.renderer().setPathOverlay(
            [path](QPainter& p, const TimelineGeometry& g, const TimelineRenderer& r) {
                path->paint(p, g, r);
            });
    }
    // The tracks pinned and filtered in the viewer (saved in the sidecar) render the same way.
    composer.renderer().setTrackViewState(store.trackState());
    if (session) {
        // Each process's rank: finding labels stay on their rank's rows, and a job taller than
        // the picture folds to the compact job layout so that every rank shows.
        std::vector<int> ranks(trace->processes().size(), 0);
        for (ProcessId p = 0; p < ranks.size(); ++p)
            ranks[p] = std::max(0, session->job.blockOfProcess(p));
        composer.renderer().setProcessRanks(std::move(ranks));
        composer.setRankReports(session->perRank);
        // Every rank, on the timeline picture and in the report page alike.
        const QString note = composer.fitRanksToHeight(parser.isSet("composite"));
        if (!note.isEmpty())
            std::cerr << "ringscope export: " << note.toStdString() << ", to show all "
                      << session->job.rankCount() << " ranks\n";
    }
    QString error;
    const bool ok = parser.isSet("composite") ? composer.writeComposite(out, &error)
                                              : composer.writeTimeline(out, &error);
    if (!ok) return usageError(error);
    std::cout << out.toStdString() << "\n";
    return doneCode;
}

} // namespace rs::cli
