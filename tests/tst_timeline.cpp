#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "tests/testutil.h"
#include "ui/timeline/timelineview.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>

using namespace rs;

namespace {

// Two processes (sort index puts "Device" first), a nested host track, a dense device track of
// 2000 slices of 100 ns each, and a counter.
std::string syntheticJson()
{
    std::string j = "[";
    j += R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"Host"}},)";
    j += R"({"ph":"M","name":"process_sort_index","pid":1,"args":{"sort_index":5}},)";
    j += R"({"ph":"M","name":"process_name","pid":2,"args":{"name":"Device"}},)";
    j += R"({"ph":"M","name":"process_sort_index","pid":2,"args":{"sort_index":1}},)";
    j += R"({"ph":"X","name":"outer","pid":1,"tid":1,"ts":0,"dur":1000,"args":{"k":"v"}},)";
    j += R"({"ph":"X","name":"inner","pid":1,"tid":1,"ts":100,"dur":300},)";
    j += R"({"ph":"X","name":"late","pid":1,"tid":1,"ts":600,"dur":200},)";
    for (int i = 0; i < 2000; ++i)
        j += R"({"ph":"X","name":"k)" + std::to_string(i % 7) + R"(","pid":2,"tid":7,"ts":)" +
             std::to_string(i * 0.4) + R"(,"dur":0.1},)";
    j += R"({"ph":"C","name":"mem","pid":2,"ts":0,"args":{"value":1}},)";
    j += R"({"ph":"C","name":"mem","pid":2,"ts":500,"args":{"value":3}})";
    j += "]";
    return j;
}

// Counters as torch_npu writes them: the unit in the args key (a delimiter: they hold ")").
const char* kCounterJson = R"json([
 {"ph":"M","name":"process_name","pid":5,"args":{"name":"HBM"}},
 {"ph":"C","name":"HBM 0/Read","pid":5,"ts":0,"args":{"Read(MB/s)":12000.5}},
 {"ph":"C","name":"HBM 0/Read","pid":5,"ts":10,"args":{"Read(MB/s)":27430}},
 {"ph":"C","name":"LLC 0 Read/Hit Rate","pid":5,"ts":0,"args":{"Hit Rate(%)":87.26}},
 {"ph":"C","name":"AI Core Freq","pid":5,"ts":0,"args":{"MHz":1800}},
 {"ph":"C","name":"mem","pid":5,"ts":0,"args":{"value":0.5}}
])json";

// A dense trace for the fold LOD: track 1 has 20000 flat slices whose durations and gaps
// spread log-uniformly over 0 ns .. 1 ms (with zero-length ones), track 2 nests two children
// in each parent, so its rows interleave in the slice array.
std::string denseFoldJson()
{
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> lg(0, 6);
    auto logNs = [&] { return static_cast<long long>(std::pow(10.0, lg(rng))) - 1; };
    auto us = [](long long ns) {
        char b[48];
        std::snprintf(b, sizeof b, "%lld.%03lld", ns / 1000, ns % 1000);
        return std::string(b);
    };
    std::string j = "[";
    long long t = 0;
    for (int i = 0; i < 20000; ++i) {
        t += i % 5 == 0 ? logNs() : (logNs() % 100); // mostly small gaps, some large
        const long long d = i % 11 == 0 ? 0 : logNs();
        j += R"({"ph":"X","name":"s)" + std::to_string(i % 13) + R"(","pid":1,"tid":1,"ts":)" +
             us(t) + R"(,"dur":)" + us(d) + "},";
        t += d;
    }
    t = 0;
    for (int i = 0; i < 3000; ++i) {
        const long long a = logNs() % 5000, b = logNs() % 5000, gap = logNs() % 3000;
        j += R"({"ph":"X","name":"p","pid":1,"tid":2,"ts":)" + us(t) + R"(,"dur":)" +
             us(a + b + gap + 2) + "},";
        j += R"({"ph":"X","name":"c)" + std::to_string(i % 3) + R"(","pid":1,"tid":2,"ts":)" +
             us(t + 1) + R"(,"dur":)" + us(a) + "},";
        j += R"({"ph":"X","name":"d","pid":1,"tid":2,"ts":)" + us(t + 1 + a + gap) + R"(,"dur":)" +
             us(b) + "},";
        t += a + b + gap + 2 + logNs() % 2000;
    }
    j.back() = ']';
    return j;
}

EventId findByName(const Trace& t, const std::string& name)
{
    for (EventId e = 0; e < t.slices().size(); ++e)
        if (t.str(t.slice(e).name) == name) return e;
    return kNone;
}

} // namespace

class TstTimeline : public QObject {
    Q_OBJECT
private:
    TracePtr m_trace;

private slots:
    void initTestCase()
    {
        LoadResult r = test::loadText(syntheticJson());
        QVERIFY2(r.complete(), r.message.c_str());
        m_trace = r.trace;
    }

    void layoutOrdersBySortIndexAndNests()
    {
        TimelineRenderer ren;
        ren.setTrace(m_trace);
        const auto& rows = ren.layout()->rows();
        QVERIFY(rows.size() >= 4);
        QCOMPARE(rows[0].kind, RowKind::ProcessHeader);
        QCOMPARE(QString::fromStdString(m_trace->processLabel(rows[0].process)),
                 QStringLiteral("Device"));
        const TrackId host = m_trace->slice(findByName(*m_trace, "outer")).track;
        const int hr = ren.layout()->rowOfTrack(host);
        QVERIFY(hr > 0);
        QCOMPARE(rows[static_cast<std::size_t>(hr)].depths, 2);
        // Collapsing a group hides its tracks and shortens the content.
        const double before = ren.contentHeight();
        ren.setCollapsed(m_trace->tracks()[host].process, true);
        QCOMPARE(ren.layout()->rowOfTrack(host), -1);
        QVERIFY(ren.contentHeight() < before);
    }

    void rowSearchesAgree()
    {
        TimelineIndex index(m_trace);
        const EventId k = findByName(*m_trace, "k0");
        const auto row = index.row(m_trace->slice(k).track, 0);
        QCOMPARE(row.size(), std::size_t(2000));
        const TimeNs t0 = m_trace->startNs();
        // Every guess and start point gives the plain binary search's answer.
        for (TimeNs t : {t0 - 5, t0, t0 + 399, t0 + 400, t0 + 401, t0 + 123'456, t0 + 799'600,
                         t0 + 10'000'000}) {
            const std::size_t want = index.firstStartingAt(row, t);
            for (std::size_t from : {std::size_t(0), std::size_t(1), want > 3 ? want - 3 : 0})
                for (std::size_t guess : {std::size_t(0), from + 1, want, want + 1, want + 500,
                                          std::size_t(1999), std::size_t(5000)}) {
                    if (from > want) continue;
                    QCOMPARE(index.firstStartingAtNear(row, from, guess, t), want);
                }
            QCOMPARE(index.firstEndingAfter(row, t) <= want, true);
        }
    }

    void lodPyramidAgreesWithScans()
    {
        // Codes are monotone and split every power of two in four.
        std::mt19937_64 rng(3);
        for (int i = 0; i < 20000; ++i) {
            const TimeNs a = static_cast<TimeNs>(rng() >> (rng() % 64));
            const TimeNs b = static_cast<TimeNs>(rng() >> (rng() % 64));
            QVERIFY(lodCode(std::min(a, b)) <= lodCode(std::max(a, b)));
        }
        for (int e = 2; e < 60; ++e)
            QVERIFY(lodCode(TimeNs(1) << e) < lodCode((TimeNs(5) << e) / 4));
        QCOMPARE(lodCode(0), std::uint8_t(0));
        QCOMPARE(lodCode(-5), std::uint8_t(0));
        // Three levels (300k > 64^2 entries); mostly small values, rare large ones.
        std::vector<std::uint8_t> v(300'000);
        for (auto& x : v)
            x = static_cast<std::uint8_t>(rng() % 1000 == 0 ? 100 + rng() % 150 : rng() % 50);
        MaxPyramid pyr;
        pyr.build(v);
        for (int q = 0; q < 300; ++q) {
            std::size_t from = rng() % v.size(), to = rng() % (v.size() + 1);
            if (q % 3 == 0) to = std::min(v.size(), from + rng() % 200); // short ranges too
            if (from > to) std::swap(from, to);
            const auto c = static_cast<std::uint8_t>(q % 2 ? rng() % 60 : 100 + rng() % 160);
            std::size_t want = from;
            while (want < to && v[want] < c)
                ++want;
            QCOMPARE(pyr.firstAtLeast(from, to, c), want);
            std::uint8_t mx = 0;
            for (std::size_t i = from; i < to; ++i)
                mx = std::max(mx, v[i]);
            QCOMPARE(pyr.maxIn(from, to), mx);
        }
    }

    void lodFoldMatchesExactFold()
    {
        LoadResult r = test::loadText(denseFoldJson());
        QVERIFY2(r.complete(), r.message.c_str());
        const Trace& tr = *r.trace;
        TimelineIndex index(r.trace);
        int rowsChecked = 0;
        for (TrackId t = 0; t < tr.tracks().size(); ++t)
            for (int d = 0; d < index.depthCount(t); ++d) {
                const auto row = index.row(t, d);
                if (row.size() < 1000) continue;
                ++rowsChecked;
                // The exact fold: slice m joins m-1's block when its duration and its gap to
                // the block's end are both below the fold width.
                std::vector<TimeNs> key(row.size(), 0);
                TimeNs blockEnd = tr.slice(row[0]).end();
                for (std::size_t m = 1; m < row.size(); ++m) {
                    const Slice& s = tr.slice(row[m]);
                    key[m] = std::max(s.dur, s.start - blockEnd);
                    QVERIFY(s.end() >= blockEnd); // same-depth ends are ordered
                    blockEnd = s.end();
                }
                // Fold widths of several zoom levels, and ones that tie with actual keys.
                std::vector<TimeNs> widths = {1,    2,      7,       50,        333,        1000,
                                              4096, 10'000, 100'000, 1'000'000, 100'000'000};
                for (std::size_t m : {std::size_t(17), row.size() / 3, row.size() - 5})
                    widths.insert(widths.end(), {key[m], key[m] + 1, key[m] - 1});
                std::mt19937 rng(static_cast<unsigned>(t * 100 + d));
                for (TimeNs w : widths) {
                    if (w < 1) continue;
                    std::vector<std::size_t> next(row.size() + 1, row.size());
                    for (std::size_t m = row.size(); m-- > 1;)
                        next[m] = key[m] >= w ? m : next[m + 1];
                    for (std::size_t i = 0; i < row.size(); ++i) {
                        const std::size_t end =
                            i % 2 ? row.size() : std::min(row.size(), i + 1 + rng() % 5000);
                        const std::size_t want = std::min(next[i + 1], end);
                        const std::size_t got = index.foldBlockEnd(row, i, end, w);
                        if (got != want)
                            QFAIL(qPrintable(QStringLiteral("row %1/%2 w %3 i %4: %5 != %6")
                                                 .arg(t)
                                                 .arg(d)
                                                 .arg(w)
                                                 .arg(i)
                                                 .arg(got)
                                                 .arg(want)));
                        // The block's colour comes from the first of its longest slices.
                        if (i % 97 == 0 && want > i) {
                            std::size_t best = i;
                            for (std::size_t m = i; m < want; ++m)
                                if (lodCode(tr.slice(row[m]).dur) >
                                    lodCode(tr.slice(row[best]).dur))
                                    best = m;
                            QCOMPARE(index.longestIn(row, i, want), best);
                        }
                    }
                }
            }
        QCOMPARE(rowsChecked, 3); // the flat row and the nested track's two rows
        // The LOD stays inside the view's memory budget of 8 bytes per event.
        QVERIFY(static_cast<double>(index.bytes()) / static_cast<double>(tr.slices().size()) <=
                6.5);
    }

    void lodFramesCoverDenseRows()
    {
        // Every zoom level of the dense trace paints its flat row's slices and blocks where
        // the exact fold puts them: pixels inside a block or slice are not background, and
        // pixels in gaps of two fold widths or more are.
        LoadResult r = test::loadText(denseFoldJson());
        QVERIFY2(r.complete(), r.message.c_str());
        const Trace& tr = *r.trace;
        TimelineRenderer ren;
        ren.setTrace(r.trace);
        const auto row = ren.index()->row(0, 0);
        QVERIFY(row.size() > 19000); // zero-length slices may nest under a neighbour
        const TimeNs t0 = tr.startNs(), span = tr.endNs() - tr.startNs();
        QImage img(1200, 300, QImage::Format_ARGB32_Premultiplied);
        int checked = 0;
        for (TimeNs div : {1, 7, 30, 100, 300, 900, 3000}) {
            const TimeNs a = t0 + span / 3, b = a + span / div;
            const TimelineGeometry g = ren.geometry(QSizeF(1200, 300), a, b, 0);
            {
                QPainter p(&img);
                ren.paint(p, g);
            }
            const int y = static_cast<int>(g.depthRect(0, 0).center().y());
            const QColor bg = ren.style().background;
            int inked = 0, gaps = 0;
            const double px = g.nsPerPixel();
            for (std::size_t m = 1; m < row.size(); ++m) {
                const Slice& s = tr.slice(row[m]);
                const Slice& prev = tr.slice(row[m - 1]);
                const double x = g.xOf(s.start), xp = g.xOf(prev.end());
                if (x < g.plotRect().left() + 4 || x > g.plotRect().right() - 4) continue;
                if (static_cast<double>(s.dur) >= 4 * px) {
                    QVERIFY(img.pixelColor(static_cast<int>(x + 2 * 1), y) != bg);
                    ++inked;
                }
                if (static_cast<double>(s.start - prev.end()) >= 4 * px &&
                    xp > g.plotRect().left()) {
                    QCOMPARE(img.pixelColor(static_cast<int>((x + xp) / 2), y), bg);
                    ++gaps;
                }
            }
            checked += inked + gaps;
        }
        QVERIFY2(checked > 100, qPrintable(QString::number(checked)));
    }

    void geometryMapsTimeAndEvents()
    {
        TimelineRenderer ren;
        ren.setTrace(m_trace);
        ren.setLabelWidth(200);
        const TimeNs t0 = m_trace->startNs();
        const TimelineGeometry g = ren.geometry(QSizeF(1200, 600), t0, t0 + 1'000'000, 0);
        QCOMPARE(g.nsPerPixel(), 1000.0);
        QCOMPARE(g.xOf(t0 + 500'000), 700.0);
        QCOMPARE(g.timeAt(700.0), t0 + 500'000);
        const EventId inner = findByName(*m_trace, "inner");
        const QRectF r = g.eventRect(inner);
        QCOMPARE(r.left(), 300.0);
        QCOMPARE(r.width(), 300.0);
        const EventId outer = findByName(*m_trace, "outer");
        QVERIFY(g.eventRect(outer).bottom() <= r.top()); // depth 1 below depth 0
    }

    void hitTestFindsDeepestAndFolded()
    {
        TimelineRenderer ren;
        ren.setTrace(m_trace);
        ren.setLabelWidth(200);
        const TimeNs t0 = m_trace->startNs();
        const TimelineGeometry g = ren.geometry(QSizeF(1200, 800), t0, t0 + 1'000'000, 0);
        const EventId inner = findByName(*m_trace, "inner");
        TimelineHit h = ren.hitTest(g, g.eventRect(inner).center());
        QCOMPARE(h.kind, TimelineHit::Event);
        QCOMPARE(h.event, inner);
        const EventId outer = findByName(*m_trace, "outer");
        h = ren.hitTest(g, g.eventRect(outer).center() + QPointF(300, 0));
        QCOMPARE(h.event, outer);
        // Device slices are 100 ns every 400 ns: 0.4 px apart at 1 µs/px, so they fold.
        const EventId k = findByName(*m_trace, "k3");
        const QRectF kr = g.eventRect(k);
        h = ren.hitTest(g, QPointF(kr.left() + 100, kr.center().y()));
        QCOMPARE(h.kind, TimelineHit::Folded);
        QVERIFY2(h.foldedCount >= 5 && h.foldedCount <= 15,
                 qPrintable(QString::number(h.foldedCount)));
        // Zoomed in, the same slices are separate events.
        const TimelineGeometry z = ren.geometry(QSizeF(1200, 800), t0, t0 + 10'000, 0);
        const QRectF zr = z.eventRect(k);
        h = ren.hitTest(z, zr.center());
        QCOMPARE(h.kind, TimelineHit::Event);
        QCOMPARE(h.event, k);
        // Ruler and labels.
        QCOMPARE(ren.hitTest(g, QPointF(600, 5)).kind, TimelineHit::Ruler);
        QCOMPARE(ren.hitTest(g, QPointF(50, g.rowRect(0).center().y())).kind,
                 TimelineHit::ProcessHeader);
    }

    void foldedRowPaintsBlocks()
    {
        TimelineRenderer ren;
        ren.setTrace(m_trace);
        const TimeNs t0 = m_trace->startNs();
        const TimelineGeometry g = ren.geometry(QSizeF(1000, 400), t0, t0 + 1'000'000, 0);
        QImage img(1000, 400, QImage::Format_ARGB32_Premultiplied);
        QPainter p(&img);
        ren.paint(p, g);
        p.end();
        // The dense device row is covered by blocks across its 800 µs: no background gaps.
        const EventId k = findByName(*m_trace, "k0");
        const double y = g.eventRect(k).center().y();
        const QColor bg = ren.style().background;
        int covered = 0, total = 0;
        for (int x = static_cast<int>(g.xOf(t0 + 10'000)); x < g.xOf(t0 + 790'000); ++x, ++total)
            covered += img.pixelColor(x, static_cast<int>(y)) != bg;
        QVERIFY(total > 500);
        QVERIFY2(covered >= total * 95 / 100, qPrintable(QString::number(covered)));
    }

    void rulerSteps()
    {
        QCOMPARE(niceTimeStep(1), TimeNs(1));
        QCOMPARE(niceTimeStep(130), TimeNs(200));
        QCOMPARE(niceTimeStep(4'100'000), TimeNs(5'000'000));
        QCOMPARE(formatOffset(5'000'000, 5'000'000), QStringLiteral("5 ms"));
        QCOMPARE(formatOffset(1'500'000, 500'000), QStringLiteral("1.5 ms"));
        QCOMPARE(formatOffset(2'000'000'000, 1'000'000'000), QStringLiteral("2 s"));
    }

    void tracePaintedOncePerTrace()
    {
        // The session holds a trace's analysis until this signal: once per trace set, after
        // its frame, not on later paints.
        TimelineView view;
        view.resize(800, 400);
        QSignalSpy painted(&view, &TimelineView::tracePainted);
        view.setTrace(m_trace);
        QCOMPARE(painted.count(), 0);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(painted.wait(5000) || painted.count() == 1);
        QCOMPARE(painted.count(), 1);
        view.repaint();
        QCOMPARE(painted.count(), 1);
        view.setTrace(nullptr); // no trace: nothing to announce
        view.repaint();
        QCOMPARE(painted.count(), 1);
        view.setTrace(m_trace);
        view.repaint();
        QCOMPARE(painted.count(), 2);
    }

    void keyboardZoomAndPan()
    {
        TimelineView view;
        view.resize(1200, 600);
        view.setTrace(m_trace);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const TimeNs a0 = view.visibleStart(), a1 = view.visibleEnd();
        const TimeNs span = a1 - a0;
        QVERIFY(a0 <= m_trace->startNs() && a1 >= m_trace->endNs());
        QTest::keyClick(&view, Qt::Key_W);
        const TimeNs span2 = view.visibleEnd() - view.visibleStart();
        QVERIFY2(std::abs(span2 - span * 7 / 10) <= 2, qPrintable(QString::number(span2)));
        // Zoom anchors at the centre (no cursor): the middle stays put.
        QVERIFY(std::abs((view.visibleStart() + view.visibleEnd()) / 2 - (a0 + a1) / 2) <= 2);
        const TimeNs s0 = view.visibleStart();
        QTest::keyClick(&view, Qt::Key_D);
        const double plotW = view.timelineGeometry().plotRect().width();
        const TimeNs expected = static_cast<TimeNs>(plotW * 0.2 * span2 / plotW);
        QVERIFY2(std::abs(view.visibleStart() - s0 - expected) <= 2,
                 qPrintable(QString::number(view.visibleStart() - s0)));
        QTest::keyClick(&view, Qt::Key_A);
        QVERIFY(std::abs(view.visibleStart() - s0) <= 2);
        QTest::keyClick(&view, Qt::Key_S);
        QVERIFY(view.visibleEnd() - view.visibleStart() > span2);
        QTest::keyClick(&view, Qt::Key_W);
        QTest::keyClick(&view, Qt::Key_W);
        QTest::keyClick(&view, Qt::Key_0);
        const TimeNs all = m_trace->endNs() - m_trace->startNs();
        QCOMPARE(view.visibleStart(), m_trace->startNs() - all / 100);
        QCOMPARE(view.visibleEnd(), m_trace->endNs() + all / 100);
    }

    void fitAndHistory()
    {
        TimelineView view;
        view.resize(1200, 600);
        view.setTrace(m_trace);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy spy(&view, &TimelineView::eventSelected);
        const EventId inner = findByName(*m_trace, "inner");
        const EventId late = findByName(*m_trace, "late");
        QTest::mouseClick(&view, Qt::LeftButton, {}, view.eventCenter(inner));
        QCOMPARE(view.selectedEvent(), inner);
        QCOMPARE(spy.count(), 1);
        QTest::mouseClick(&view, Qt::LeftButton, {}, view.eventCenter(late));
        QCOMPARE(view.selectedEvent(), late);
        QTest::keyClick(&view, Qt::Key_F);
        const Slice& s = m_trace->slice(late);
        QVERIFY(view.visibleStart() <= s.start && view.visibleEnd() >= s.end());
        QVERIFY(view.visibleEnd() - view.visibleStart() < s.dur * 2);
        QTest::keyClick(&view, Qt::Key_Left, Qt::AltModifier);
        QCOMPARE(view.selectedEvent(), inner);
        QTest::keyClick(&view, Qt::Key_Right, Qt::AltModifier);
        QCOMPARE(view.selectedEvent(), late);
    }

    void rulerRangeAndEnter()
    {
        TimelineView view;
        view.resize(1200, 600);
        view.setTrace(m_trace);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const TimelineGeometry g = view.timelineGeometry();
        const QPoint a(static_cast<int>(g.labelWidth + 100), 10);
        const QPoint b(static_cast<int>(g.labelWidth + 400), 10);
        const TimeNs ta = g.timeAt(a.x()), tb = g.timeAt(b.x());
        QSignalSpy spy(&view, &TimelineView::rangeSelected);
        QTest::mousePress(&view, Qt::LeftButton, {}, a);
        QTest::mouseMove(&view, QPoint((a.x() + b.x()) / 2, 10));
        QTest::mouseMove(&view, b);
        QTest::mouseRelease(&view, Qt::LeftButton, {}, b);
        QCOMPARE(spy.count(), 1);
        QVERIFY(view.renderer().hasRangeSelection());
        QTest::keyClick(&view, Qt::Key_Return);
        QVERIFY(std::abs(view.visibleStart() - ta) <= 2);
        QVERIFY(std::abs(view.visibleEnd() - tb) <= 2);
    }

    void headerClickCollapsesAndHelpToggles()
    {
        TimelineView view;
        view.resize(1000, 500);
        view.setTrace(m_trace);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const TimelineGeometry g = view.timelineGeometry();
        const TimelineRow& header = g.layout->rows().front();
        QCOMPARE(header.kind, RowKind::ProcessHeader);
        const QPoint at(40, static_cast<int>(g.rowRect(0).center().y()));
        const double height = view.renderer().contentHeight();
        QTest::mouseClick(&view, Qt::LeftButton, {}, at);
        QVERIFY(view.renderer().isCollapsed(header.process));
        QVERIFY(view.renderer().contentHeight() < height);
        QTest::mouseClick(&view, Qt::LeftButton, {}, at);
        QVERIFY(!view.renderer().isCollapsed(header.process));
        QCOMPARE(view.renderer().contentHeight(), height);
        // Selecting an event in a collapsed group expands it.
        const EventId k = findByName(*m_trace, "k1");
        view.renderer().setCollapsed(header.process, true);
        view.selectEvent(k);
        QVERIFY(!view.renderer().isCollapsed(header.process));
        QTest::keyClick(&view, Qt::Key_Question);
        QVERIFY(view.helpVisible());
        QVERIFY(TimelineView::helpText().contains(QStringLiteral("Alt+Left")));
        QTest::keyClick(&view, Qt::Key_Escape);
        QVERIFY(!view.helpVisible());
    }

    void hoverReusesCachedFrame()
    {
        TimelineView view;
        view.resize(1000, 500);
        view.setTrace(m_trace);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTest::qWait(20);
        const int frames = view.renderCount();
        for (int x = 300; x < 600; x += 50) {
            QTest::mouseMove(&view, QPoint(x, 200));
            view.repaint();
        }
        QCOMPARE(view.renderCount(), frames);
        QTest::keyClick(&view, Qt::Key_W);
        view.repaint();
        QCOMPARE(view.renderCount(), frames + 1);
    }

    void marksAndFlaggedOnly()
    {
        const EventId inner = findByName(*m_trace, "inner");
        const EventId late = findByName(*m_trace, "late");
        const EventId outer = findByName(*m_trace, "outer");
        auto rep = std::make_shared<AnalysisReport>();
        rep->trace = m_trace;
        Collective c;
        c.event = inner;
        c.anomalous = true;
        c.start = m_trace->slice(inner).start;
        c.dur = m_trace->slice(inner).dur;
        rep->collectives.push_back(c);
        rep->collectiveIndex = {{inner, 0}};
        rep->markIndex = {{inner, kMarkCollective | kMarkAnomalous | kMarkHasInternalMemcpy},
                          {late, kMarkInternalMemcpy}};
        std::sort(rep->markIndex.begin(), rep->markIndex.end());
        TimelineRenderer ren;
        ren.setTrace(m_trace);
        ren.setReport(rep);
        QVERIFY(ren.isFlagged(inner));
        QVERIFY(!ren.isFlagged(outer));
        const TimeNs t0 = m_trace->startNs();
        const TimelineGeometry g = ren.geometry(QSizeF(1000, 400), t0, t0 + 1'000'000, 0);
        auto render = [&] {
            QImage img(1000, 400, QImage::Format_ARGB32_Premultiplied);
            QPainter p(&img);
            ren.paint(p, g);
            return img;
        };
        QImage img = render();
        // Strong red outline just outside the anomalous collective.
        const QRectF r = g.eventRect(inner);
        const QColor edge =
            img.pixelColor(QPoint(static_cast<int>(r.center().x()), static_cast<int>(r.top() - 1)));
        QVERIFY2(edge.red() > 180 && edge.green() < 90 && edge.blue() < 110,
                 qPrintable(edge.name()));
        // Internal memcpy: orange fill with darker hatching, so both colours occur inside.
        const QRectF m = g.eventRect(late).adjusted(3, 3, -3, -3);
        int orange = 0, hatch = 0;
        for (int x = static_cast<int>(m.left()); x < m.right(); ++x) {
            const QColor px = img.pixelColor(x, static_cast<int>(m.center().y()));
            orange += px == ren.style().internalCopy;
            hatch += px.red() < 200 && px.red() > 100 && px.blue() < 40;
        }
        QVERIFY2(orange > 10 && hatch > 3,
                 qPrintable(QStringLiteral("%1 %2").arg(orange).arg(hatch)));
        // Flagged only fades the rest towards the background.
        const QPoint outerPt = g.eventRect(outer).center().toPoint() + QPoint(150, 0);
        const QColor before = img.pixelColor(outerPt);
        ren.setFlaggedOnly(true);
        img = render();
        const QColor after = img.pixelColor(outerPt);
        const QColor bg = ren.style().background;
        auto dist = [](const QColor& a, const QColor& b) {
            return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) +
                   std::abs(a.blue() - b.blue());
        };
        QVERIFY(dist(after, bg) * 3 < dist(before, bg));
        QCOMPARE(
            img.pixelColor(QPoint(static_cast<int>(r.center().x()), static_cast<int>(r.top() - 1))),
            edge);
    }

    // Marked slices too narrow to see, joined into one run at this zoom, are drawn as one
    // folded block: no single slice's name and duration written over the whole run.
    void joinedMarksAreUnlabelled()
    {
        std::string json = "[";
        for (int i = 0; i < 200; ++i)
            json.append(R"({"ph":"X","name":"hcom_allReduce_","pid":1,"tid":1,"ts":)")
                .append(std::to_string(100 + i * 40))
                .append(R"(,"dur":1},)");
        json.append(R"({"ph":"X","name":"end","pid":1,"tid":2,"ts":20000,"dur":1}])");
        LoadResult r = loadTraceFromMemory(json.data(), json.size());
        QVERIFY2(r.complete(), r.message.c_str());
        auto rep = std::make_shared<AnalysisReport>();
        rep->trace = r.trace;
        const Track& track = r.trace->tracks()[r.trace->slice(0).track];
        for (EventId e = track.begin; e < track.end; ++e)
            rep->markIndex.emplace_back(e, kMarkCollective | kMarkHasInternalMemcpy);
        TimelineRenderer ren;
        ren.setTrace(r.trace);
        ren.setReport(rep);
        const TimeNs t0 = r.trace->startNs();
        const TimelineGeometry g = ren.geometry(QSizeF(1400, 300), t0, t0 + 20'500'000, 0);
        QImage img(1400, 300, QImage::Format_ARGB32_Premultiplied);
        {
            QPainter p(&img);
            ren.paint(p, g);
        }
        // Along the run's middle, inside its outline: one colour (a label's glyphs add more).
        const QRectF first = g.eventRect(track.begin), last = g.eventRect(track.end - 1);
        QVERIFY(last.right() - first.left() > 300); // one run, wide enough for a label
        const int y = static_cast<int>(first.center().y());
        std::map<QRgb, int> colours;
        for (int x = static_cast<int>(first.left()) + 6; x < static_cast<int>(last.right()) - 6;
             ++x)
            ++colours[img.pixel(x, y)];
        QCOMPARE(colours.size(), std::size_t(1));
    }

    void seedCaseFrameAsPng()
    {
        // Rank 0 of the seed case copies: its AllReduce of steps 2 and 4 carry an extra Memcpy.
        const std::string json = gen::seedCaseTrace(gen::SeedCaseOptions{}, 0);
        LoadResult r = loadTraceFromMemory(json.data(), json.size());
        QVERIFY2(r.complete(), r.message.c_str());
        ReportPtr rep = analyze(r.trace);
        QVERIFY(rep);
        TimelineView view;
        view.resize(1600, 900);
        view.setTrace(r.trace);
        view.setReport(rep);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.selectNextFlagged(+1));
        const EventId sel = view.selectedEvent();
        const Collective* c = rep->collectiveOf(sel);
        QVERIFY(c && c->event == sel && c->anomalous);
        view.fitSelection();
        view.zoomBy(3.0, view.eventCenter(sel).x());
        const QImage img = view.grab().toImage();
        const QString png = QDir(test::binaryDir()).filePath(QStringLiteral("timeline_seed.png"));
        QVERIFY(img.save(png));
        // The flagged collective is on screen with its strong red outline.
        const QRectF er = view.timelineGeometry().eventRect(sel);
        QVERIFY(view.rect().contains(er.center().toPoint()));
        int red = 0;
        for (int x = static_cast<int>(er.left()); x < er.right(); ++x) {
            const QColor px = img.pixelColor(x, static_cast<int>(er.top() - 1));
            red += px.red() > 180 && px.green() < 90;
        }
        QVERIFY(red > 10);
        // N walks on to the next flagged op (step 4), P comes back.
        QVERIFY(view.selectNextFlagged(+1));
        QVERIFY(view.selectedEvent() != sel);
        QVERIFY(r.trace->slice(view.selectedEvent()).start > r.trace->slice(sel).start);
        QVERIFY(view.selectNextFlagged(-1));
        QCOMPARE(view.selectedEvent(), sel);
    }

    void realTraceFullView()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        LoadResult r = loadTrace(
            test::publicTrace("ascend_torchnpu_level1_2rank/rank0_ascend_pt").toStdString());
        QVERIFY2(r.complete(), r.message.c_str());
        TimelineRenderer ren;
        ren.setTrace(r.trace);
        ren.setReport(analyze(r.trace));
        // Processes in sort-index order with their torch_npu names; every named one is shown.
        QStringList order;
        for (const TimelineRow& row : ren.layout()->rows())
            if (row.kind == RowKind::ProcessHeader)
                order << QString::fromStdString(r.trace->processLabel(row.process));
        QVERIFY2(order.indexOf(QStringLiteral("Python")) < order.indexOf(QStringLiteral("HCCL")),
                 qPrintable(order.join(',')));
        QVERIFY(order.contains(QStringLiteral("Ascend Hardware")));
        const int h = static_cast<int>(ren.contentHeight() + TimelineGeometry::kRulerHeight + 10);
        QVERIFY(h < 4000);
        const TimelineGeometry g =
            ren.geometry(QSizeF(1600, h), r.trace->startNs(), r.trace->endNs(), 0);
        QImage img(1600, h, QImage::Format_ARGB32_Premultiplied);
        QPainter p(&img);
        ren.paint(p, g);
        p.end();
        QVERIFY(
            img.save(QDir(test::binaryDir()).filePath(QStringLiteral("timeline_rank0_full.png"))));
        // Every hcom op is on screen inside the plot and hit-tests to itself.
        int ops = 0;
        for (EventId e = 0; e < r.trace->slices().size(); ++e) {
            if (r.trace->str(r.trace->slice(e).name).rfind("hcom_allReduce", 0) != 0) continue;
            const QRectF er = g.eventRect(e);
            QVERIFY(g.plotRect().contains(er.center()));
            if (er.width() >= 3) {
                QCOMPARE(ren.hitTest(g, er.center()).event, e);
                ++ops;
            }
        }
        QVERIFY(ops >= 1);
    }

    void overlayHookGetsGeometry()
    {
        TimelineRenderer ren;
        ren.setTrace(m_trace);
        const EventId inner = findByName(*m_trace, "inner");
        QRectF seen;
        ren.setOverlay([&](QPainter& p, const TimelineGeometry& g) {
            seen = g.eventRect(inner);
            p.fillRect(seen, Qt::magenta);
        });
        const TimeNs t0 = m_trace->startNs();
        const TimelineGeometry g = ren.geometry(QSizeF(800, 300), t0, t0 + 1'000'000, 0);
        QImage img(800, 300, QImage::Format_ARGB32_Premultiplied);
        QPainter p(&img);
        ren.paint(p, g);
        p.end();
        QVERIFY(!seen.isNull());
        QCOMPARE(img.pixelColor(seen.center().toPoint()), QColor(Qt::magenta));
    }

    // The `?` overlay is sized from its text: every key and description fits its rectangle, the
    // box holds them all and stays in the widget, in one column or wrapped into more.
    void helpOverlayHoldsEveryLine()
    {
        for (const QSize size : {QSize(1000, 600), QSize(950, 430), QSize(1500, 240)}) {
            TimelineView view;
            view.resize(size);
            view.setTrace(m_trace);
            view.show();
            QVERIFY(QTest::qWaitForWindowExposed(&view));
            view.setHelpVisible(true);
            const TimelineView::HelpLayout l = view.helpLayout();
            QFont bold = view.font();
            bold.setBold(true);
            const QFontMetricsF fm(view.font()), bfm(bold);
            const QStringList lines = TimelineView::helpText().split('\n');
            QCOMPARE(l.keys.size(), lines.size());
            QVERIFY(l.box.contains(l.titleRect));
            QVERIFY(bfm.horizontalAdvance(l.title) <= l.titleRect.width());
            const QRectF widget(0, 0, view.width(), view.height());
            QVERIFY2(widget.contains(l.box),
                     qPrintable(QStringLiteral("%1x%2").arg(size.width()).arg(size.height())));
            std::vector<QRectF> all;
            for (int i = 0; i < lines.size(); ++i) {
                const QRectF k = l.keyRects[std::size_t(i)], d = l.descriptionRects[std::size_t(i)];
                QVERIFY2(bfm.horizontalAdvance(l.keys[i]) <= k.width(), qPrintable(l.keys[i]));
                QVERIFY2(fm.horizontalAdvance(l.descriptions[i]) <= d.width(),
                         qPrintable(l.descriptions[i]));
                QVERIFY(fm.height() <= d.height());
                QVERIFY2(l.box.contains(k) && l.box.contains(d), qPrintable(l.descriptions[i]));
                all.push_back(k);
                all.push_back(d);
            }
            for (std::size_t i = 0; i < all.size(); ++i)
                for (std::size_t j = i + 1; j < all.size(); ++j)
                    QVERIFY(!all[i].intersects(all[j]));
            // The line of the bug report is there in full.
            QVERIFY(l.descriptions.join('\n').contains(QStringLiteral("Shift+Enter previous")));
            view.repaint(); // paints without asserting
        }
    }

    // The range selection's duration sits in the ruler without overprinting a tick label.
    void rangeLabelClearsTickLabels()
    {
        TimelineView view;
        view.resize(1200, 400);
        view.setTrace(m_trace);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        int checked = 0, hiddenSeen = 0;
        const TimelineGeometry g = view.timelineGeometry();
        const double plotW = g.plotRect().width();
        for (double from = 0; from < 0.9; from += 0.05) {
            for (double len : {0.02, 0.1, 0.3}) {
                const TimeNs a = g.timeAt(g.labelWidth + from * plotW);
                const TimeNs b = g.timeAt(g.labelWidth + std::min(1.0, from + len) * plotW);
                view.setRangeSelection(a, b);
                const auto text = view.renderer().rulerText(view.timelineGeometry(), view.font());
                QVERIFY(!text.rangeRect.isNull());
                QVERIFY(text.rangeRect.left() >= g.labelWidth &&
                        text.rangeRect.right() <= view.width());
                int shown = 0;
                for (const auto& t : text.ticks) {
                    hiddenSeen += t.hidden;
                    if (t.hidden) continue;
                    ++shown;
                    QVERIFY2(!t.rect.intersects(text.rangeRect),
                             qPrintable(t.text + " under " + text.rangeText));
                }
                QVERIFY(shown >= 2); // the ruler still reads
                ++checked;
            }
        }
        QVERIFY(checked > 20);
        QVERIFY(hiddenSeen > 0); // some placements did collide and were resolved
        // Without a range every tick label is drawn.
        view.setRangeSelection(0, 0);
        for (const auto& t : view.renderer().rulerText(view.timelineGeometry(), view.font()).ticks)
            QVERIFY(!t.hidden);
    }

    // The cursor's time box in the ruler never covers part of a tick label: the labels it
    // meets give way (no glyph left beside the box), the others stay.
    void cursorTimeClearsTickLabels()
    {
        TimelineView view;
        view.resize(1200, 400);
        view.setTrace(m_trace);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const TimelineGeometry g = view.timelineGeometry();
        const TimelineStyle& st = view.renderer().style();
        const auto ticks = view.renderer().rulerText(g, view.font()).ticks;
        QVERIFY(ticks.size() >= 3);
        int met = 0;
        // Hover just left of each tick label, then over its middle.
        for (const auto& t : ticks) {
            for (double dx : {-12.0, t.rect.width() / 2}) {
                const QPoint at(int(t.rect.left() + dx), int(g.rulerHeight + 40));
                if (at.x() <= g.labelWidth + 2 || at.x() >= view.width() - 2) continue;
                QTest::mouseMove(&view, at);
                QCoreApplication::processEvents();
                const QRectF box = view.cursorTimeRect();
                QVERIFY(!box.isEmpty());
                QVERIFY(box.top() >= 0 && box.bottom() <= g.rulerHeight);
                const QImage img = view.grab().toImage();
                const qreal dpr = img.devicePixelRatio();
                for (const auto& u : ticks) {
                    if (!u.rect.adjusted(-2, 0, 2, 0).intersects(box)) continue;
                    ++met;
                    // Every pixel of that label outside the box (and off the cursor line) is
                    // the ruler's background: the label is gone, not cut.
                    for (int y = int(u.rect.top()) + 1; y < int(u.rect.bottom()); ++y)
                        for (int x = int(u.rect.left()) + 1;
                             x < std::min(int(u.rect.right()), view.width()); ++x) {
                            if (box.adjusted(-1, -1, 1, 1).contains(QPointF(x, y))) continue;
                            if (std::abs(x - at.x()) <= 1) continue;
                            const QColor c = img.pixelColor(int(x * dpr), int(y * dpr));
                            QVERIFY2(
                                c == st.ruler,
                                qPrintable(QStringLiteral("%1 shows beside the cursor box at %2,%3")
                                               .arg(u.text)
                                               .arg(x)
                                               .arg(y)));
                        }
                }
            }
        }
        QVERIFY(met > 0); // some placements met a label
    }

    // Issue 26.8: a counter's maximum and hover value read with their unit, without exponent
    // ("max 27,430 MB/s", not "max 2.743e+04").
    void counterValuesCarryTheirUnit()
    {
        LoadResult r = test::loadText(kCounterJson);
        QVERIFY(r.trace);
        const Trace& t = *r.trace;
        std::map<std::string, TrackId> byName;
        for (TrackId k = 0; k < t.tracks().size(); ++k)
            if (t.tracks()[k].kind == TrackKind::Counter)
                byName[t.str(t.counters()[t.tracks()[k].counter].name)] = k;
        QCOMPARE(counterUnit(t, byName["HBM 0/Read"]), QStringLiteral("MB/s"));
        QCOMPARE(counterValueText(t, byName["HBM 0/Read"], 27430), QStringLiteral("27,430 MB/s"));
        QCOMPARE(counterValueText(t, byName["LLC 0 Read/Hit Rate"], 87.26),
                 QStringLiteral("87.3 %"));
        QCOMPARE(counterValueText(t, byName["AI Core Freq"], 1800), QStringLiteral("1,800 MHz"));
        QCOMPARE(counterValueText(t, byName["mem"], 0.5), QStringLiteral("0.500"));
        QVERIFY(!counterValueText(t, byName["HBM 0/Read"], 2.743e4).contains('e'));
    }
};

QTEST_MAIN(TstTimeline)
#include "tst_timeline.moc"
