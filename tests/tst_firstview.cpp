// The first view of a trace fits its activity (activityExtent), not the span counters and lone
// markers stretch: generated traces with far outliers, a long slice across a gap, the real
// 2-rank Ascend job and one of its ranks.
#include "bench/tracegen_seed.h"
#include "core/analysis/activity.h"
#include "core/analysis/analysisutil.h"
#include "tests/testutil.h"
#include "ui/mainwindow.h"
#include "ui/timeline/timelineview.h"

#include <nlohmann/json.hpp>

#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace rs;

namespace {

// The seed case (torch_npu shape) with extra events appended.
TracePtr seedWith(const std::vector<nlohmann::json>& extra)
{
    nlohmann::json events = nlohmann::json::parse(gen::seedCaseTrace({}, 0));
    nlohmann::json& list = events.is_array() ? events : events["traceEvents"];
    for (const nlohmann::json& e : extra)
        list.push_back(e);
    LoadResult r = test::loadText(events.dump());
    return r.trace;
}

// pid and tid of the first slice of a process named `name` in the seed case.
std::pair<nlohmann::json, nlohmann::json> firstSliceOf(const std::string& name)
{
    const nlohmann::json events = nlohmann::json::parse(gen::seedCaseTrace({}, 0));
    const nlohmann::json& list = events.is_array() ? events : events["traceEvents"];
    nlohmann::json pid;
    for (const auto& e : list)
        if (e.value("ph", "") == "M" && e.value("name", "") == "process_name" &&
            e["args"].value("name", "") == name)
            pid = e["pid"];
    for (const auto& e : list)
        if (e.value("ph", "") == "X" && e["pid"] == pid) return {pid, e["tid"]};
    return {};
}

// Slices on the tracks the activity is measured on, and how many lie inside [a, b].
std::pair<int, int> deviceSlicesInside(const Trace& t, TimeNs a, TimeNs b)
{
    const auto roles = analysis::trackRoles(t);
    int all = 0, inside = 0;
    for (TrackId k = 0; k < t.tracks().size(); ++k) {
        const TrackRole r = roles[k];
        if (r != TrackRole::AscendDevice && r != TrackRole::HcclGroup &&
            r != TrackRole::HcclPlane && r != TrackRole::GpuStream)
            continue;
        for (const Slice& s : t.trackSlices(k)) {
            ++all;
            inside += s.start >= a && s.end() <= b;
        }
    }
    return {all, inside};
}

bool openAndWait(MainWindow& w, const QString& path)
{
    QSignalSpy loaded(&w, &MainWindow::traceLoaded);
    w.openPaths({path});
    return loaded.wait(180000);
}

} // namespace

class TstFirstView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RingscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_firstview"));
        QSettings().clear();
    }

    // A process-start marker 30 s before and a lone device slice 30 s after the run: the
    // trace spans a minute, the activity a few seconds, and the first view shows those.
    void farOutliersAreLeftOut()
    {
        const TracePtr plain = seedWith({});
        QVERIFY(plain);
        const auto [hwPid, hwTid] = firstSliceOf("Ascend Hardware");
        const auto [pyPid, pyTid] = firstSliceOf("Python");
        QVERIFY(!hwPid.is_null() && !pyPid.is_null());
        const double t0 = double(plain->startNs()) / 1000, t1 = double(plain->endNs()) / 1000;
        const TracePtr t = seedWith({{{"ph", "X"},
                                      {"name", "process start"},
                                      {"pid", pyPid},
                                      {"tid", pyTid},
                                      {"ts", t0 - 30e6},
                                      {"dur", 1}},
                                     {{"ph", "X"},
                                      {"name", "lone kernel"},
                                      {"pid", hwPid},
                                      {"tid", hwTid},
                                      {"ts", t1 + 30e6},
                                      {"dur", 5}}});
        QVERIFY(t);
        QVERIFY(t->endNs() - t->startNs() > 60'000'000'000LL);
        const auto extent = activityExtent(*t);
        QVERIFY(extent);
        const auto [a, b] = *extent;
        QVERIFY2(b - a < (plain->endNs() - plain->startNs()) * 11 / 10,
                 qPrintable(QString::number(double(b - a) / 1e9)));
        const auto [all, inside] = deviceSlicesInside(*t, a, b);
        QCOMPARE(inside, all - 1); // every device slice but the lone one

        TimelineView view;
        view.resize(1200, 600);
        view.setTrace(t);
        const TimeNs span = b - a;
        QVERIFY(view.visibleStart() <= a && view.visibleStart() >= a - span / 20);
        QVERIFY(view.visibleEnd() >= b && view.visibleEnd() <= b + span / 20);
        // 0 still shows everything.
        view.showAll();
        QVERIFY(view.visibleStart() <= t->startNs() && view.visibleEnd() >= t->endNs());
    }

    // Without outliers the first view is the whole trace, as before.
    void noOutlierFitsTheWholeRun()
    {
        const TracePtr t = seedWith({});
        TimelineView view;
        view.resize(1200, 600);
        view.setTrace(t);
        const TimeNs first0 = view.visibleStart(), first1 = view.visibleEnd();
        const auto [all, inside] = deviceSlicesInside(*t, first0, first1);
        QCOMPARE(inside, all);
        view.showAll();
        QVERIFY(first1 - first0 <= view.visibleEnd() - view.visibleStart());
    }

    // A generic trace (no device tracks): every slice counts; a slice running across the gap
    // is activity, a lone one beyond it is not.
    void genericTraceKeepsLongSlices()
    {
        auto make = [](bool bridge) {
            std::string j = "[";
            for (int i = 0; i < 500; ++i)
                j += R"({"ph":"X","name":"k","pid":1,"tid":1,"ts":)" + std::to_string(i * 2) +
                     R"(,"dur":1},)";
            if (bridge) j += R"({"ph":"X","name":"outer","pid":1,"tid":2,"ts":0,"dur":9000},)";
            j += R"({"ph":"X","name":"lone","pid":1,"tid":3,"ts":20000,"dur":1}])";
            return test::loadText(j).trace;
        };
        const TracePtr lone = make(false);
        const auto e1 = activityExtent(*lone);
        QVERIFY(e1);
        QCOMPARE(e1->first, lone->startNs());
        QCOMPARE(e1->second, lone->startNs() + 999'000);
        const TracePtr bridged = make(true);
        const auto e2 = activityExtent(*bridged);
        QVERIFY(e2);
        QCOMPARE(e2->second, bridged->startNs() + 9'000'000); // the long slice's end
    }

    // The real 2-rank Ascend job opened on 0-540 ms with its activity in a fifth of it; one
    // rank alone the same. The first view holds every HCCL and device slice but far less span.
    void realAscendRun_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("job") << QStringLiteral("ascend_torchnpu_level1_2rank");
        QTest::newRow("rank0") << QStringLiteral("ascend_torchnpu_level1_2rank/rank0_ascend_pt");
    }
    void realAscendRun()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        QFETCH(QString, path);
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, test::publicTrace(path)));
        const Trace& t = *w.trace();
        const TimeNs a = w.timeline()->visibleStart(), b = w.timeline()->visibleEnd();
        const TimeNs span = t.endNs() - t.startNs();
        const auto [all, inside] = deviceSlicesInside(t, a, b);
        QVERIFY(all > 100);
        QVERIFY2(inside >= all * 98 / 100,
                 qPrintable(QStringLiteral("%1 of %2").arg(inside).arg(all)));
        QVERIFY2(b - a < span * 3 / 4, qPrintable(QStringLiteral("first view %1 ms of %2 ms")
                                                      .arg(double(b - a) / 1e6)
                                                      .arg(double(span) / 1e6)));
    }

    // Issue 26.5 and 43.8: a Kineto trace whose host threads fill the first screen opens at
    // the top of its first process, the host groups above the GPU streams folded so that the
    // streams are in view, on their busiest span; the ruler's corner says when that span is
    // less than the trace's.
    void kinetoOpensOnTheDeviceTracks()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        const QString path = test::publicTrace(QStringLiteral(
            "kineto_rccl_mi300x_ddp_with_stack_tracelens/resnet_act_checkpoint.json.gz"));
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy loaded(&w, &MainWindow::traceLoaded);
        w.openPaths({path});
        QVERIFY(loaded.wait(180000));
        TimelineView* tl = w.timeline();
        const Trace& t = *w.trace();
        const TimelineGeometry g = tl->timelineGeometry();
        int device = 0;
        for (std::size_t i = 0; i < g.layout->rows().size(); ++i) {
            const TimelineRow& row = g.layout->rows()[i];
            if (row.kind != RowKind::Slices || trackClass(t, row.track) == TrackClass::Host)
                continue;
            const QRectF r = g.rowRect(int(i));
            device += r.top() >= g.plotRect().top() && r.bottom() <= g.plotRect().bottom() + 1;
        }
        QVERIFY2(device >= 2, "the GPU streams are on the first screen");
        // The top of the first process: nothing scrolled off, its header the first row.
        QCOMPARE(tl->scrollY(), 0.0);
        QCOMPARE(g.layout->rows().front().kind, RowKind::ProcessHeader);
        QVERIFY(g.rowRect(0).top() >= g.plotRect().top() - 0.5);
        // Some host group folded to get there, and a click on it unfolds it.
        bool folded = false;
        for (ProcessId p = 0; p < t.processes().size(); ++p)
            folded = folded || tl->renderer().isCollapsed(p);
        QVERIFY(folded);
        // Horizontally on the device activity, which the view shows whole.
        const auto act = tl->renderer().index()->activity();
        QVERIFY(act);
        QVERIFY(tl->visibleStart() <= act->first && tl->visibleEnd() >= act->second);
        // The activity is less than the span here: said in the ruler's corner until the view
        // moves; 0 shows everything.
        if (t.endNs() - t.startNs() > (act->second - act->first) * 21 / 20) {
            QVERIFY2(tl->activityNote().startsWith(QStringLiteral("activity ")),
                     qPrintable(tl->activityNote()));
            QVERIFY(tl->activityNote().endsWith(QStringLiteral("0: all")));
            tl->showAll();
            QVERIFY(tl->activityNote().isEmpty());
        }
    }
};

QTEST_MAIN(TstFirstView)
#include "tst_firstview.moc"
