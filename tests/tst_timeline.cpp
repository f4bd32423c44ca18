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
        QVERIFY2(r.ok, r.error.c_str());
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
        QCOMPARE(view.visibleStart(), a0);
        QCOMPARE(view.visibleEnd(), a1);
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

    void seedCaseFrameAsPng()
    {
        // Rank 0 of the seed case copies: its AllReduce of steps 2 and 4 carry an extra Memcpy.
        const std::string json = gen::seedCaseTrace(gen::SeedCaseOptions{}, 0);
        LoadResult r = loadTraceFromMemory(json.data(), json.size());
        QVERIFY2(r.ok, r.error.c_str());
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
        QVERIFY2(r.ok, r.error.c_str());
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
};

QTEST_MAIN(TstTimeline)
#include "tst_timeline.moc"
