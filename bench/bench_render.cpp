// Timeline rendering benchmark: offscreen full-view frame time, hit-test time and view memory
// for synthetic traces of the same shape at 10k, 1M and 10M events, or for real trace files
// (--trace FILE, repeatable: loaded and analysed, so the frames draw the analysis' marks too).
// Usage: bench_render [--sizes 10000,1000000,10000000] [--trace FILE]... [--width 1920
//                     --height 1080] [--reps 10] [--png PREFIX] [--full-only 1]

#include "core/analysis/analyzer.h"
#include "core/tracebuilder.h"
#include "core/traceloader.h"
#include "ui/timeline/timelinerenderer.h"

#include <QApplication>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace rs;

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

JsonScalar intValue(std::int64_t v)
{
    JsonScalar r;
    r.kind = v < 0 ? JsonScalar::Int : JsonScalar::UInt;
    r.bits = static_cast<std::uint64_t>(v);
    return r;
}

TextRef text(const char* s)
{
    return {s, static_cast<std::uint32_t>(std::strlen(s))};
}

// 16 tracks in 2 processes; per track a repeating 10 µs pattern: a parent of 8 µs holding two
// 2 µs children and a 1 µs grandchild (4 events). Same density at every size: the span grows
// with the event count, so a full view of 10M events folds ~1000x more than one of 10k.
TracePtr buildTrace(std::uint64_t events)
{
    TraceBuilder b;
    TraceEvent ev;
    const int tracks = 16;
    const std::uint64_t periods = std::max<std::uint64_t>(1, events / (4 * tracks));
    const char* names[] = {"MatMul", "FlashAttention", "LayerNorm", "hcom_allReduce_",
                           "Memcpy", "Gelu",           "Add",       "Softmax"};
    for (int t = 0; t < tracks; ++t) {
        const std::int64_t pid = t < 8 ? 1 : 2;
        for (std::uint64_t i = 0; i < periods; ++i) {
            const std::int64_t base = static_cast<std::int64_t>(i) * 10;
            const struct {
                std::int64_t ts, dur;
            } parts[4] = {{base, 8}, {base + 1, 2}, {base + 1, 1}, {base + 4, 2}};
            for (int k = 0; k < 4; ++k) {
                ev.clear();
                ev.ph = text("X");
                ev.name = text(names[(i * 3 + static_cast<std::uint64_t>(k + t)) % 8]);
                ev.ts = intValue(parts[k].ts);
                ev.dur = intValue(parts[k].dur);
                ev.pid = intValue(pid);
                ev.tid = intValue(t);
                b.addEvent(ev);
            }
        }
    }
    return b.finish();
}

} // namespace

int main(int argc, char** argv)
{
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    std::vector<std::uint64_t> sizes = {10'000, 1'000'000, 10'000'000};
    int width = 1920, height = 1080, reps = 10;
    std::string pngPrefix;
    bool fullOnly = false; // for profiling the full-view frame alone
    std::vector<std::string> files;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--sizes") {
            sizes.clear();
            std::string s = argv[i + 1];
            for (std::size_t p = 0; p < s.size();) {
                const std::size_t q = s.find(',', p);
                sizes.push_back(std::stoull(s.substr(p, q - p)));
                p = q == std::string::npos ? s.size() : q + 1;
            }
        } else if (a == "--width") {
            width = std::atoi(argv[i + 1]);
        } else if (a == "--height") {
            height = std::atoi(argv[i + 1]);
        } else if (a == "--reps") {
            reps = std::max(1, std::atoi(argv[i + 1]));
        } else if (a == "--full-only") {
            fullOnly = std::atoi(argv[i + 1]) != 0;
        } else if (a == "--png") {
            pngPrefix = argv[i + 1];
        } else if (a == "--trace") {
            files.push_back(argv[i + 1]);
        }
    }
    // A file replaces the synthetic sizes: inputs are (size, "") or (0, file).
    std::vector<std::pair<std::uint64_t, std::string>> inputs;
    if (files.empty())
        for (std::uint64_t n : sizes)
            inputs.emplace_back(n, std::string());
    for (const std::string& f : files)
        inputs.emplace_back(0, f);
    std::printf("%-10s %9s %9s %9s %9s %9s %9s %9s %10s %10s %9s\n", "events", "build ms",
                "index ms", "first ms", "full ms", "full min", "zoom10%", "pan ms", "hit avg us",
                "hit p99 us", "view B/ev");
    for (const auto& [n, file] : inputs) {
        auto t = Clock::now();
        TracePtr trace;
        ReportPtr report;
        if (file.empty()) {
            trace = buildTrace(n);
        } else {
            LoadResult r = loadTrace(file);
            if (!r.trace) {
                std::fprintf(stderr, "%s: %s\n", file.c_str(), r.message.c_str());
                return 2;
            }
            trace = r.trace;
            report = analyze(trace);
            std::printf("%s: %zu marked events\n", file.c_str(), report->markIndex.size());
        }
        const double buildMs = msSince(t);
        TimelineRenderer ren;
        t = Clock::now();
        ren.setTrace(trace);
        if (report) ren.setReport(report);
        const double indexMs = msSince(t);
        QImage img(width, height, QImage::Format_ARGB32_Premultiplied);
        const TimeNs t0 = trace->startNs(), t1 = trace->endNs();
        const TimelineGeometry full = ren.geometry(QSizeF(width, height), t0, t1, 0);
        auto frame = [&](const TimelineGeometry& g) {
            QPainter p(&img);
            ren.paint(p, g);
        };
        t = Clock::now();
        frame(full); // first frame: cold caches, fonts, anything built lazily
        const double firstMs = msSince(t);
        double fullMin = 1e300;
        t = Clock::now();
        for (int i = 0; i < reps; ++i) {
            const auto f0 = Clock::now();
            frame(full);
            fullMin = std::min(fullMin, msSince(f0));
        }
        const double fullMs = msSince(t) / reps;
        if (!pngPrefix.empty())
            img.save(QStringLiteral("%1_%2.png")
                         .arg(QString::fromStdString(pngPrefix))
                         .arg(trace->slices().size()));
        const TimeNs mid = t0 + (t1 - t0) / 2;
        const TimelineGeometry zoom =
            ren.geometry(QSizeF(width, height), mid, mid + (t1 - t0) / 10, 0);
        const int zoomReps = fullOnly ? 0 : reps;
        t = Clock::now();
        for (int i = 0; i < zoomReps; ++i)
            frame(zoom);
        const double zoomMs = msSince(t) / std::max(1, zoomReps);
        // A drag pan across the 10% view: every frame a new range, so no frame repeats the
        // last one's memory accesses.
        t = Clock::now();
        for (int i = 0; i < zoomReps; ++i) {
            const TimeNs shift = (t1 - t0) / 10 * i / reps;
            frame(
                ren.geometry(QSizeF(width, height), mid - shift, mid - shift + (t1 - t0) / 10, 0));
        }
        const double panMs = msSince(t) / std::max(1, zoomReps);
        std::mt19937 rng(1);
        std::uniform_real_distribution<double> xs(full.labelWidth, width - 1);
        std::uniform_real_distribution<double> ys(full.rulerHeight, height - 1);
        double maxUs = 0, sumUs = 0;
        std::vector<double> samples;
        const int hits = fullOnly ? 1 : 20000;
        int found = 0;
        for (int i = 0; i < hits; ++i) {
            const QPointF pt(xs(rng), ys(rng));
            const auto h0 = Clock::now();
            const TimelineHit h = ren.hitTest(i % 2 ? full : zoom, pt);
            const double us = std::chrono::duration<double, std::micro>(Clock::now() - h0).count();
            found += h.event != kNone;
            sumUs += us;
            samples.push_back(us);
            maxUs = std::max(maxUs, us);
        }
        std::sort(samples.begin(), samples.end());
        const double p99 = samples[samples.size() * 99 / 100];
        const double perEvent =
            static_cast<double>(ren.viewBytes()) / static_cast<double>(trace->slices().size());
        std::printf("%-10llu %9.1f %9.1f %9.2f %9.2f %9.2f %9.2f %9.2f %10.2f %10.1f %9.2f   "
                    "(%d/%d hits on events)\n",
                    static_cast<unsigned long long>(trace->slices().size()), buildMs, indexMs,
                    firstMs, fullMs, fullMin, zoomMs, panMs, sumUs / hits, p99, perEvent, found,
                    hits);
        std::printf("           hit max %.1f us (scheduling noise on a shared machine)\n", maxUs);
        // Every group collapsed: each header row draws its density summary (two busy-prefix
        // searches per track and pixel column), full view and 10% view.
        ren.setAllCollapsed(true);
        const TimelineGeometry cfull = ren.geometry(QSizeF(width, height), t0, t1, 0);
        const TimelineGeometry czoom =
            ren.geometry(QSizeF(width, height), mid, mid + (t1 - t0) / 10, 0);
        frame(cfull);
        double densFull = 1e300, densZoom = 1e300;
        for (int i = 0; i < reps; ++i) {
            auto d0 = Clock::now();
            frame(cfull);
            densFull = std::min(densFull, msSince(d0));
            d0 = Clock::now();
            frame(czoom);
            densZoom = std::min(densZoom, msSince(d0));
        }
        std::printf(
            "           collapsed (density rows): full %.2f ms, 10%% %.2f ms (best of %d)\n",
            densFull, densZoom, reps);
        ren.setAllCollapsed(false);
        std::fflush(stdout);
    }
    return 0;
}
