// Pinned and filtered tracks, density rows of collapsed groups, sticky track labels and themes
// (issue 16.3, 16.4, 16.5): the layout and renderer on hand-made traces, the sidecar round trip,
// and the viewer on a generated trace and a 2-rank job.
#include "bench/tracegen_seed.h"
#include "core/annotations/annotationstore.h"
#include "tests/support/openwait.h"
#include "tests/testutil.h"
#include "ui/annotations/annotationcontroller.h"
#include "ui/export/exportcomposer.h"
#include "ui/mainwindow.h"
#include "ui/plots/stepsview.h"
#include "ui/theme/theme.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/trackfilterbar.h"

#include <qcustomplot.h>

#include <QAction>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QPainter>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <set>
#include <string>

using namespace rs;
using rs::test::openAndWait;

namespace {

// Python (host: threads 1-3 and a 30-deep thread 4), HCCL (Group 0 Communication, Plane 0),
// Ascend Hardware (Stream 2, Stream 3 and a counter). Times in µs.
std::string layoutJson()
{
    std::string j = "[";
    auto meta = [&](int pid, const char* name, int sort) {
        j += R"({"ph":"M","name":"process_name","pid":)" + std::to_string(pid) +
             R"(,"args":{"name":")" + name + R"("}},)";
        j += R"({"ph":"M","name":"process_sort_index","pid":)" + std::to_string(pid) +
             R"(,"args":{"sort_index":)" + std::to_string(sort) + "}},";
    };
    auto thread = [&](int pid, int tid, const char* name) {
        j += R"({"ph":"M","name":"thread_name","pid":)" + std::to_string(pid) + R"(,"tid":)" +
             std::to_string(tid) + R"(,"args":{"name":")" + name + R"("}},)";
    };
    auto slice = [&](int pid, int tid, const char* name, double ts, double dur) {
        j += R"({"ph":"X","name":")" + std::string(name) + R"(","pid":)" + std::to_string(pid) +
             R"(,"tid":)" + std::to_string(tid) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" +
             std::to_string(dur) + "},";
    };
    meta(1, "Python", 1);
    meta(2, "HCCL", 2);
    meta(3, "Ascend Hardware", 3);
    for (int tid = 1; tid <= 3; ++tid)
        slice(1, tid, "host_op", 10.0 * tid, 50);
    for (int d = 0; d < 30; ++d) // one tall track: 30 nested rows
        slice(1, 4, "nested", 1 + d, 200 - 2 * d);
    thread(2, 10, "Group 0 Communication");
    thread(2, 11, "Plane 0");
    slice(2, 10, "hcom_allReduce_", 100, 80);
    slice(2, 11, "Memcpy", 110, 20);
    thread(3, 20, "Stream 2");
    thread(3, 21, "Stream 3");
    slice(3, 20, "MatMul", 20, 60);
    slice(3, 21, "Add", 30, 40);
    j += R"({"ph":"C","name":"hbm","pid":3,"ts":0,"args":{"value":1}},)";
    j += R"({"ph":"C","name":"hbm","pid":3,"ts":100,"args":{"value":2}})";
    j += "]";
    return j;
}

TrackId trackNamed(const Trace& t, const std::string& label)
{
    for (TrackId i = 0; i < t.tracks().size(); ++i)
        if (t.trackLabel(i) == label) return i;
    return kNone;
}

ProcessId processNamed(const Trace& t, const std::string& label)
{
    for (ProcessId p = 0; p < t.processes().size(); ++p)
        if (t.processLabel(p) == label) return p;
    return kNone;
}

// Labels of the tracks the layout shows.
std::set<std::string> shownTracks(const Trace& t, const TimelineLayout& layout)
{
    std::set<std::string> out;
    for (const TimelineRow& r : layout.rows())
        if (r.track != kNone) out.insert(t.processLabel(r.process) + " / " + t.trackLabel(r.track));
    return out;
}

QString writeText(const QString& path, const std::string& text)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(text.data(), static_cast<qint64>(text.size()));
    return path;
}

} // namespace

class TstTracks : public QObject {
    Q_OBJECT
private:
    TracePtr m_trace;
    QTemporaryDir m_dir;
    QString m_jobDir;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RingscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_tracks"));
        QSettings().clear();
        LoadResult r = test::loadText(layoutJson());
        QVERIFY2(r.complete(), r.message.c_str());
        m_trace = r.trace;
        gen::SeedCaseOptions o;
        o.ranks = 2;
        o.steps = 3;
        o.badSteps = {1};
        m_jobDir = m_dir.filePath(QStringLiteral("job2"));
        QVERIFY(QDir().mkpath(m_jobDir));
        QVERIFY(gen::writeSeedCaseJob(m_jobDir.toStdString(), o));
    }

    void pinnedBandStaysWhileScrolling()
    {
        TimelineRenderer ren;
        ren.setTrace(m_trace);
        const TrackId stream3 = trackNamed(*m_trace, "Stream 3");
        const TrackId thread1 = trackNamed(*m_trace, "Thread 1");
        QVERIFY(stream3 != kNone && thread1 != kNone);
        QCOMPARE(ren.layout()->pinnedHeight(), 0.0);
        ren.setPinned(kNone, stream3, true);
        const TimelineLayout& l = *ren.layout();
        QCOMPARE(l.firstScrollingRow(), 1);
        QCOMPARE(l.rows()[0].track, stream3);
        QVERIFY(l.rows()[0].pinned && l.rows()[0].alone);
        QCOMPARE(l.pinnedHeight(), l.rows()[0].height);
        // Moved, not copied: Stream 3 has one row, Ascend Hardware keeps Stream 2.
        int stream3Rows = 0;
        for (const TimelineRow& r : l.rows())
            stream3Rows += r.track == stream3;
        QCOMPARE(stream3Rows, 1);

        const QSizeF size(1200, 300);
        const TimeNs t0 = m_trace->startNs(), t1 = m_trace->endNs();
        const TimelineGeometry g0 = ren.geometry(size, t0, t1, 0);
        const TimelineGeometry g1 = ren.geometry(size, t0, t1, 200);
        // The pinned track stays right under the ruler whatever the scroll...
        QCOMPARE(g0.trackRect(stream3), g1.trackRect(stream3));
        QCOMPARE(g0.trackRect(stream3).top(), g0.rulerHeight);
        QCOMPARE(g1.rowAtY(g1.rulerHeight + 3), 0);
        // ...while the rest scrolls under it.
        QCOMPARE(g1.trackRect(thread1).top(), g0.trackRect(thread1).top() - 200);
        QCOMPARE(g1.scrollTop(), g1.rulerHeight + l.pinnedHeight());
        const int under = g1.rowAtY(g1.scrollTop() + 1);
        QVERIFY(under >= l.firstScrollingRow());
        const TimelineRow& ur = l.rows()[static_cast<std::size_t>(under)];
        QVERIFY(ur.y <= l.pinnedHeight() + 200 + 1 && ur.y + ur.height > l.pinnedHeight() + 200);
        // Painted: the band shows Stream 3's slice at both scrolls (same pixels).
        auto band = [&](double scroll) {
            QImage img(size.toSize(), QImage::Format_ARGB32);
            QPainter p(&img);
            ren.paint(p, ren.geometry(size, t0, t1, scroll));
            p.end();
            return img.copy(0, 0, 1200, static_cast<int>(g0.scrollTop()));
        };
        QCOMPARE(band(0), band(200));

        // A whole group pinned comes before single tracks; unpinning empties the band.
        const ProcessId hccl = processNamed(*m_trace, "HCCL");
        ren.setPinned(hccl, kNone, true);
        QCOMPARE(ren.layout()->rows()[0].kind, RowKind::ProcessHeader);
        QCOMPARE(ren.layout()->rows()[0].process, hccl);
        QCOMPARE(ren.layout()->rows()[3].track, stream3);
        QCOMPARE(ren.layout()->firstScrollingRow(), 4);
        QCOMPARE(ren.trackViewState().pinned.size(), std::size_t(2));
        QCOMPARE(ren.trackViewState().pinned[1].process, std::string("HCCL"));
        QVERIFY(ren.trackViewState().pinned[1].isGroup());
        ren.setPinned(hccl, kNone, false);
        ren.setPinned(kNone, stream3, false);
        QCOMPARE(ren.layout()->pinnedHeight(), 0.0);

        // The view: scrolling the bar moves the others, not the pinned track.
        TimelineView view;
        view.resize(1000, 260);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setTrace(m_trace);
        // The first view folded the tall host group above the device tracks: unfolded here.
        view.renderer().setAllCollapsed(false);
        TrackViewState s;
        s.pinned.push_back(trackKey(*m_trace, stream3));
        view.setTrackViewState(s);
        auto* bar = view.findChild<QScrollBar*>();
        QVERIFY(bar && bar->maximum() > 100);
        bar->setValue(0);
        const QRectF before = view.timelineGeometry().trackRect(stream3);
        const QRectF otherBefore = view.timelineGeometry().trackRect(thread1);
        bar->setValue(100);
        QCOMPARE(view.timelineGeometry().trackRect(stream3), before);
        QCOMPARE(view.timelineGeometry().trackRect(thread1).top(), otherBefore.top() - 100);
        // T over a label unpins it; the view says the user changed the state.
        QSignalSpy changed(&view, &TimelineView::trackViewChanged);
        QTest::mouseMove(&view, QPoint(30, static_cast<int>(before.center().y())));
        QTest::keyClick(&view, Qt::Key_T);
        QCOMPARE(changed.count(), 1);
        QVERIFY(!view.renderer().isTrackPinned(stream3));
    }

    // An area over a track scrolled under the pinned band stops at the band: neither its
    // rectangle nor its label covers the pinned rows.
    void areaStopsAtThePinnedBand()
    {
        TimelineView view;
        view.resize(1000, 260);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setTrace(m_trace);
        view.renderer().setAllCollapsed(false); // the first view folded Thread 4's group
        const TrackId stream3 = trackNamed(*m_trace, "Stream 3");
        const TrackId thread4 = trackNamed(*m_trace, "Thread 4"); // 30 rows tall
        QVERIFY(stream3 != kNone && thread4 != kNone);
        TrackViewState s;
        s.pinned.push_back(trackKey(*m_trace, stream3));
        view.setTrackViewState(s);
        TimelineArea area;
        area.t0 = m_trace->startNs();
        area.t1 = m_trace->endNs();
        area.tracks = {thread4};
        auto* bar = view.findChild<QScrollBar*>();
        QVERIFY(bar);
        bar->setValue(0);
        view.setArea(area);
        const QRectF before = view.areaRect(area);
        QVERIFY(!before.isEmpty());
        // Scroll until Thread 4's top is under the band while its rows still show below it.
        const TimelineGeometry g0 = view.timelineGeometry();
        const double under = g0.trackRect(thread4).top() - g0.scrollTop() + 20;
        bar->setValue(static_cast<int>(under));
        const TimelineGeometry g = view.timelineGeometry();
        QVERIFY(g.trackRect(thread4).top() < g.scrollTop());
        const QRectF r = view.areaRect(area);
        QVERIFY(!r.isEmpty());
        QCOMPARE(r.top(), g.scrollTop());
        // Painted: the band's rows are the same pixels with and without the area.
        auto bandPixels = [&] {
            return view.grab().toImage().copy(QRect(int(g.labelWidth), int(g.rulerHeight),
                                                    int(g.plotRect().width()),
                                                    int(g.pinnedHeight()) - 1));
        };
        const QImage with = bandPixels();
        view.setArea({});
        QCOMPARE(bandPixels(), with);
    }

    void filterByRegexAndKind()
    {
        TimelineRenderer ren;
        ren.setTrace(m_trace);
        const Trace& t = *m_trace;
        auto with = [&](TrackFilterSpec f) {
            TrackViewState s;
            s.filter = f;
            ren.setTrackViewState(s);
            return shownTracks(t, *ren.layout());
        };
        const std::set<std::string> all = with({});
        QCOMPARE(all.size(), std::size_t(9));
        QCOMPARE(ren.hiddenTrackCount(), 0);
        // By name, case-insensitive, on the track's or its process's label.
        TrackFilterSpec f;
        f.text = "stream";
        QCOMPARE(with(f), (std::set<std::string>{"Ascend Hardware / Stream 2",
                                                 "Ascend Hardware / Stream 3"}));
        QCOMPARE(ren.hiddenTrackCount(), 7);
        f.text = "hccl";
        QCOMPARE(with(f),
                 (std::set<std::string>{"HCCL / Group 0 Communication", "HCCL / Plane 0"}));
        // A regex.
        f.text = "^Stream [3-9]$|Plane";
        f.regex = true;
        QCOMPARE(with(f), (std::set<std::string>{"Ascend Hardware / Stream 3", "HCCL / Plane 0"}));
        QVERIFY(ren.filterError().isEmpty());
        f.text = "Stream (";
        QVERIFY(with(f).empty());
        QVERIFY(!ren.filterError().isEmpty());
        // By kind: host, device (streams and the device's counter), communication.
        TrackFilterSpec k;
        k.host = false;
        k.device = false;
        QCOMPARE(with(k),
                 (std::set<std::string>{"HCCL / Group 0 Communication", "HCCL / Plane 0"}));
        k = {};
        k.device = false;
        k.communication = false;
        QCOMPARE(with(k), (std::set<std::string>{"Python / Thread 1", "Python / Thread 2",
                                                 "Python / Thread 3", "Python / Thread 4"}));
        k = {};
        k.host = false;
        k.communication = false;
        QCOMPARE(with(k),
                 (std::set<std::string>{"Ascend Hardware / Stream 2", "Ascend Hardware / Stream 3",
                                        "Ascend Hardware / hbm"}));
        QCOMPARE(ren.hiddenTrackCount(), 6);
        // Text and kind together; a pinned track shows whatever the filter says.
        k.text = "3";
        QCOMPARE(with(k), (std::set<std::string>{"Ascend Hardware / Stream 3"}));
        TrackViewState s;
        s.filter = k;
        s.pinned.push_back(trackKey(t, trackNamed(t, "Plane 0")));
        ren.setTrackViewState(s);
        QCOMPARE(shownTracks(t, *ren.layout()),
                 (std::set<std::string>{"Ascend Hardware / Stream 3", "HCCL / Plane 0"}));
        QCOMPARE(ren.hiddenTrackCount(), 7);
        // Compact mode and the filter both apply.
        ren.setTrackViewState({});
        ren.setTrackFilter(std::vector<bool>(t.tracks().size(), true));
        QCOMPARE(shownTracks(t, *ren.layout()), all);
    }

    void filterOnGeneratedTrace()
    {
        // One rank of the seed case (torch_npu shape): expected sets from the labels alone.
        gen::SeedCaseOptions o;
        o.ranks = 1;
        o.steps = 3;
        LoadResult r = test::loadText(gen::seedCaseTrace(o, 0));
        QVERIFY2(r.complete(), r.message.c_str());
        const Trace& t = *r.trace;
        TimelineRenderer ren;
        ren.setTrace(r.trace);
        const std::set<std::string> all = shownTracks(t, *ren.layout());
        auto expect = [&](auto pred) {
            std::set<std::string> out;
            for (const std::string& s : all)
                if (pred(s)) out.insert(s);
            return out;
        };
        TrackViewState s;
        s.filter.text = "^(HCCL|Ascend Hardware)$";
        s.filter.regex = true;
        ren.setTrackViewState(s);
        const auto shown = shownTracks(t, *ren.layout());
        QVERIFY(!shown.empty());
        QCOMPARE(shown, expect([](const std::string& x) {
                     return x.rfind("HCCL / ", 0) == 0 || x.rfind("Ascend Hardware / ", 0) == 0;
                 }));
        QCOMPARE(ren.hiddenTrackCount(), static_cast<int>(all.size() - shown.size()));
        s = {};
        s.filter.host = false;
        s.filter.device = false;
        ren.setTrackViewState(s);
        QCOMPARE(shownTracks(t, *ren.layout()),
                 expect([](const std::string& x) { return x.rfind("HCCL / ", 0) == 0; }));
    }

    void densityRowOfCollapsedGroup()
    {
        // Track 1: [0, 1000) with a nested child, [1500, 2000), [2500, 2750); track 2:
        // [3000, 3500) ns. At 100 ns per pixel the busiest track's share per column is exact.
        const std::string j =
            R"([{"ph":"M","name":"process_name","pid":1,"args":{"name":"Device"}},)"
            R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1},)"
            R"({"ph":"X","name":"child","pid":1,"tid":1,"ts":0.1,"dur":0.8},)"
            R"({"ph":"X","name":"b","pid":1,"tid":1,"ts":1.5,"dur":0.5},)"
            R"({"ph":"X","name":"c","pid":1,"tid":1,"ts":2.5,"dur":0.25},)"
            R"({"ph":"X","name":"d","pid":1,"tid":2,"ts":3,"dur":0.5}])";
        LoadResult r = test::loadText(j);
        QVERIFY2(r.complete(), r.message.c_str());
        const Trace& t = *r.trace;
        TimelineRenderer ren;
        ren.setTrace(r.trace);
        ren.setLabelWidth(100);
        const TrackId t1 = t.slice(0).track;
        const TimeNs base = t.startNs();
        QCOMPARE(ren.index()->busyIn(t1, base, base + 2600), TimeNs(1600));
        QCOMPARE(ren.index()->busyIn(t1, base + 950, base + 1600), TimeNs(150));
        // The forward pass over many edges agrees with one search per edge.
        std::vector<TimeNs> times, fast(400);
        for (int i = 0; i < 400; ++i)
            times.push_back(base - 500 + i * 10 + (i % 7));
        ren.index()->busyBeforeEach(t1, times, fast);
        for (int i = 0; i < 400; ++i)
            QCOMPARE(fast[i], ren.index()->busyIn(t1, base - 1000, times[i]));
        ren.setCollapsed(0, true);
        const TimelineGeometry g = ren.geometry(QSizeF(300, 120), base, base + 20000, 0);
        QCOMPARE(g.nsPerPixel(), 100.0);
        const TimelineRow& header = ren.layout()->rows()[0];
        QCOMPARE(header.kind, RowKind::ProcessHeader);
        QCOMPARE(header.trackCount, 2u);
        const std::vector<float> cols = ren.densityColumns(g, header);
        QCOMPARE(cols.size(), std::size_t(200));
        std::vector<float> want(200, 0.f);
        for (int i = 0; i < 10; ++i)
            want[i] = 1;
        for (int i = 15; i < 20; ++i)
            want[i] = 1;
        want[25] = want[26] = 1;
        want[27] = 0.5f;
        for (int i = 30; i < 35; ++i)
            want[i] = 1;
        for (int i = 0; i < 200; ++i)
            QVERIFY2(
                std::abs(cols[i] - want[i]) < 1e-6,
                qPrintable(
                    QStringLiteral("column %1: %2, want %3").arg(i).arg(cols[i]).arg(want[i])));
        // Painted in the header row's plot part: full bars where busy, nothing where idle.
        QImage img(300, 120, QImage::Format_ARGB32);
        QPainter p(&img);
        ren.paint(p, g);
        p.end();
        const int y = static_cast<int>(g.screenY(header.y) + header.height - 4);
        QCOMPARE(img.pixelColor(100 + 5, y), ren.style().density);
        QVERIFY(img.pixelColor(100 + 12, y) != ren.style().density);
        QCOMPARE(img.pixelColor(100 + 32, y), ren.style().density);
    }

    void busyPassAgreesOnDenseTrack()
    {
        // 5000 top-level slices of uneven lengths and gaps: the forward pass jumps over many
        // slices per edge (prefix path) and few (direct sums); both must equal a search each.
        std::string j = "[";
        long long t = 0;
        for (int i = 0; i < 5000; ++i) {
            const long long d = 1 + (i * 7919) % 97, gap = (i * 104729) % 53;
            j += R"({"ph":"X","name":"s","pid":1,"tid":1,"ts":)" + std::to_string(t) +
                 R"(,"dur":)" + std::to_string(d) + "},";
            t += d + gap;
        }
        j.back() = ']';
        LoadResult r = test::loadText(j);
        QVERIFY2(r.complete(), r.message.c_str());
        TimelineIndex index(r.trace);
        const TimeNs base = r.trace->startNs(), span = r.trace->endNs() - base;
        for (const int columns : {7, 300, 20000}) {
            std::vector<TimeNs> times, fast(static_cast<std::size_t>(columns) + 1);
            for (int i = 0; i <= columns; ++i)
                times.push_back(base - 10 + span * i / columns + (i % 3) * 17);
            std::sort(times.begin(), times.end());
            index.busyBeforeEach(0, times, fast);
            for (std::size_t i = 0; i < times.size(); ++i)
                QCOMPARE(fast[i], index.busyIn(0, base - 1000, times[i]));
        }
    }

    void stickyTrackLabel()
    {
        TimelineRenderer ren;
        ren.setTrace(m_trace);
        const TrackId tall = trackNamed(*m_trace, "Thread 4");
        const int ri = ren.layout()->rowOfTrack(tall);
        QVERIFY(ri >= 0);
        const TimelineRow row = ren.layout()->rows()[static_cast<std::size_t>(ri)];
        QCOMPARE(row.depths, 30);
        const QSizeF size(1000, 300);
        const TimeNs t0 = m_trace->startNs(), t1 = m_trace->endNs();
        // Not scrolled: the label is at the row's top.
        TimelineGeometry g = ren.geometry(size, t0, t1, 0);
        QCOMPARE(g.labelRect(ri).top(), g.screenY(row.y));
        // Scrolled 100 px into the track: the label stays at the top of its visible part.
        g = ren.geometry(size, t0, t1, row.y + 100);
        QVERIFY(g.screenY(row.y) < g.scrollTop());
        QCOMPARE(g.labelRect(ri).top(), g.scrollTop());
        // Near the track's end it slides up with it rather than over the next track.
        g = ren.geometry(size, t0, t1, row.y + row.height - 10);
        const QRectF lr = g.labelRect(ri);
        QCOMPARE(lr.bottom(), g.screenY(row.y) + row.height);
        QVERIFY(lr.top() < g.scrollTop());
        // Under a pinned band: the top of the scrolling area.
        ren.setPinned(kNone, trackNamed(*m_trace, "Stream 2"), true);
        const int ri2 = ren.layout()->rowOfTrack(tall);
        const TimelineRow row2 = ren.layout()->rows()[static_cast<std::size_t>(ri2)];
        g = ren.geometry(size, t0, t1, row2.y - ren.layout()->pinnedHeight() + 150);
        QCOMPARE(g.labelRect(ri2).top(), g.scrollTop());
        QVERIFY(g.scrollTop() > g.rulerHeight);
        // The painted label: the track's name shows in the label column at that place.
        QImage img(size.toSize(), QImage::Format_ARGB32);
        QPainter p(&img);
        ren.paint(p, g);
        p.end();
        const QRectF at = g.labelRect(ri2);
        int ink = 0;
        for (int x = 20; x < 120; ++x)
            for (int y = static_cast<int>(at.top()) + 2; y < static_cast<int>(at.bottom()) - 2; ++y)
                ink += img.pixelColor(x, y).lightness() < 128;
        QVERIFY2(ink > 20, "no label text at the sticky position");
    }

    void trackStateJsonRoundTrip()
    {
        TrackViewState s;
        s.pinned.push_back({"Rank 3 \xc2\xb7 HCCL", 0, "", 0});
        s.pinned.push_back({"Python", 1, "Thread 7", 2});
        s.filter.text = "Rank [0-3]";
        s.filter.regex = true;
        s.filter.device = false;
        s.extra["future"] = {1, 2};
        const TrackViewState back = trackStateFromJson(trackStateToJson(s));
        QVERIFY(back == s);
        // Bad entries are skipped and counted; the good ones stay.
        int skipped = 0;
        const TrackViewState part = trackStateFromJson(
            nlohmann::json::parse(R"({"pinned":[{"process":"HCCL"},{"track":3},7],"filter":5})"),
            &skipped);
        QCOMPARE(skipped, 3);
        QCOMPARE(part.pinned.size(), std::size_t(1));
        QVERIFY(!part.filter.active());
    }

    void pinsAndFilterPersistAcrossReopen()
    {
        const QString path = writeText(m_dir.filePath(QStringLiteral("layout.json")), layoutJson());
        QVERIFY(!path.isEmpty());
        // An older sidecar (no "tracks") loads, and a save without pins adds none.
        const QByteArray old =
            R"({"schema":"ringscope.annotations/1","annotations":[{"id":1,"kind":"note",)"
            R"("text":"keep me","timeNs":5000}],"later":{"x":1}})";
        QFile side(sidecarPathFor(path));
        QVERIFY(side.open(QIODevice::WriteOnly));
        side.write(old);
        side.close();
        TrackViewState state;
        {
            LoadResult r = loadTrace(path.toStdString());
            QVERIFY(r.complete());
            AnnotationStore store;
            QCOMPARE(store.open(r.trace).status, SidecarStatus::Loaded);
            QVERIFY(store.trackState().empty());
            QCOMPARE(store.annotations().size(), std::size_t(1));
            TimelineRenderer ren;
            ren.setTrace(r.trace);
            ren.setPinned(processNamed(*r.trace, "HCCL"), kNone, true);
            ren.setPinned(kNone, trackNamed(*r.trace, "Stream 3"), true);
            TrackViewState s = ren.trackViewState();
            s.filter.text = "thread [12]";
            s.filter.regex = true;
            s.filter.communication = false;
            ren.setTrackViewState(s);
            state = ren.trackViewState();
            QVERIFY(!store.isDirty());
            store.setTrackState(state);
            QVERIFY(store.isDirty());
            QVERIFY(store.save().ok);
        }
        {
            // Reopened: same pins, same filter, same rows; the note and unknown keys kept.
            LoadResult r = loadTrace(path.toStdString());
            AnnotationStore store;
            QCOMPARE(store.open(r.trace).status, SidecarStatus::Loaded);
            QVERIFY(store.trackState() == state);
            QCOMPARE(store.annotations().size(), std::size_t(1));
            QCOMPARE(store.annotations()[0].text, std::string("keep me"));
            TimelineRenderer ren;
            ren.setTrace(r.trace);
            ren.setTrackViewState(store.trackState());
            QCOMPARE(shownTracks(*r.trace, *ren.layout()),
                     (std::set<std::string>{"HCCL / Group 0 Communication", "HCCL / Plane 0",
                                            "Ascend Hardware / Stream 3", "Python / Thread 1",
                                            "Python / Thread 2"}));
            QCOMPARE(ren.layout()->rows()[0].process, processNamed(*r.trace, "HCCL"));
            QVERIFY(ren.layout()->pinnedHeight() > 0);
            QFile f(sidecarPathFor(path));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const auto j = nlohmann::json::parse(f.readAll().toStdString());
            QVERIFY(j.contains("later"));
            QCOMPARE(j["tracks"]["filter"]["text"].get<std::string>(), std::string("thread [12]"));
        }
    }

    // Issue 26.5: the kind buttons are chips that show only their kind; none checked shows
    // every track.
    void kindChipsShowOnlyTheirKind()
    {
        TimelineView view;
        view.resize(1200, 800);
        view.setTrace(m_trace);
        TrackFilterBar bar(&view);
        const Trace& t = *m_trace;
        auto kinds = [&] {
            std::set<TrackClass> out;
            for (const TimelineRow& row : view.renderer().layout()->rows())
                if (row.track != kNone) out.insert(trackClass(t, row.track));
            return out;
        };
        const std::set<TrackClass> every = kinds();
        QCOMPARE(every.size(), std::size_t(3));
        for (TrackClass k : every)
            QVERIFY(!bar.kindAction(k)->isChecked());
        bar.kindAction(TrackClass::Device)->setChecked(true);
        QCOMPARE(kinds(), (std::set<TrackClass>{TrackClass::Device}));
        QVERIFY(!view.trackViewState().filter.host && view.trackViewState().filter.device &&
                !view.trackViewState().filter.communication);
        QVERIFY(bar.hiddenText().endsWith(QStringLiteral("hidden")));
        bar.kindAction(TrackClass::Communication)->setChecked(true);
        QCOMPARE(kinds(), (std::set<TrackClass>{TrackClass::Device, TrackClass::Communication}));
        bar.kindAction(TrackClass::Device)->setChecked(false);
        QCOMPARE(kinds(), (std::set<TrackClass>{TrackClass::Communication}));
        bar.kindAction(TrackClass::Communication)->setChecked(false);
        QCOMPARE(kinds(), every); // none checked: every kind
        QVERIFY(!view.trackViewState().filter.active());
        // A state from the sidecar (host hidden) shows as the other kinds' chips.
        TrackViewState s;
        s.filter.host = false;
        view.setTrackViewState(s);
        QVERIFY(!bar.kindAction(TrackClass::Host)->isChecked());
        QVERIFY(bar.kindAction(TrackClass::Device)->isChecked());
        QVERIFY(bar.kindAction(TrackClass::Communication)->isChecked());
        QVERIFY(!kinds().count(TrackClass::Host));
        bar.clearFilter();
        QCOMPARE(kinds(), every);
    }

    void jobPinsAndFilterInTheViewer()
    {
        // A 2-rank job: pin "Rank 1 · HCCL" from the label's context menu path, filter rank 1,
        // save, reopen in a new window: the same group is pinned and the filter is back.
        const std::string hccl1 = "Rank 1 \xc2\xb7 HCCL";
        {
            MainWindow w;
            w.resize(1400, 900);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(openAndWait(w, {m_jobDir}));
            QVERIFY(w.isJob());
            const Trace& t = *w.trace();
            TimelineView* view = w.timeline();
            const ProcessId p = processNamed(t, hccl1);
            QVERIFY(p != kNone);
            // The groups as they are (a job opens compact): pins and filters over every track.
            w.compactAction()->setChecked(false);
            view->togglePinned(p, kNone);
            QVERIFY(view->renderer().isProcessPinned(p));
            QCOMPARE(view->renderer().layout()->rows()[0].process, p);
            // The filter bar: by kind (communication only: its chip shows only that kind), then
            // a text for rank 1.
            TrackFilterBar* bar = w.trackFilterBar();
            QVERIFY(bar);
            for (TrackClass k : {TrackClass::Host, TrackClass::Device, TrackClass::Communication})
                QVERIFY(!bar->kindAction(k)->isChecked()); // none picked: every kind shows
            bar->kindAction(TrackClass::Communication)->setChecked(true);
            std::set<std::string> want;
            for (TrackId tr = 0; tr < t.tracks().size(); ++tr) {
                const Track& track = t.tracks()[tr];
                const bool content = track.kind == TrackKind::Counter ? track.counter != kNone
                                                                      : track.end > track.begin;
                if (content &&
                    (trackClass(t, tr) == TrackClass::Communication || track.process == p))
                    want.insert(t.processLabel(track.process) + " / " + t.trackLabel(tr));
            }
            QCOMPARE(shownTracks(t, *view->renderer().layout()), want);
            bool bothRanks = false;
            for (const std::string& s : want)
                bothRanks = bothRanks || s.rfind("Rank 0 \xc2\xb7 HCCL", 0) == 0;
            QVERIFY(bothRanks);
            QVERIFY2(bar->hiddenText().endsWith(QStringLiteral("tracks hidden")),
                     qPrintable(bar->hiddenText()));
            bar->textBox()->setText(QStringLiteral("Rank 1"));
            QTest::keyClick(bar->textBox(), Qt::Key_Return);
            for (const TimelineRow& row : view->renderer().layout()->rows())
                QVERIFY(t.processLabel(row.process).rfind("Rank 1 \xc2\xb7 ", 0) == 0);
            QVERIFY(w.annotations()->store()->isDirty());
            QVERIFY(w.annotations()->save(&w));
        }
        {
            MainWindow w;
            w.resize(1400, 900);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(openAndWait(w, {m_jobDir}));
            const Trace& t = *w.trace();
            const ProcessId p = processNamed(t, hccl1);
            QVERIFY(w.timeline()->renderer().isProcessPinned(p));
            QCOMPARE(w.timeline()->renderer().layout()->rows()[0].process, p);
            QCOMPARE(w.trackFilterBar()->textBox()->text(), QStringLiteral("Rank 1"));
            QVERIFY(!w.trackFilterBar()->kindAction(TrackClass::Host)->isChecked());
            QVERIFY(w.trackFilterBar()->kindAction(TrackClass::Communication)->isChecked());
            QVERIFY(!w.annotations()->store()->isDirty());
            // Clear shows every track again (the pin stays).
            w.trackFilterBar()->clearFilter();
            QCOMPARE(w.timeline()->renderer().hiddenTrackCount(), 0);
            QVERIFY(w.trackFilterBar()->hiddenText().isEmpty());
            QVERIFY(w.timeline()->renderer().isProcessPinned(p));
            w.annotations()->store()->setTrackState({}); // leave the folder as found
            QVERIFY(w.annotations()->save(&w));
        }
        QSettings().remove(QStringLiteral("view/jobCompact"));
    }

    void themeSwitchesRendererPlotsAndExports()
    {
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.setTheme(Theme::Dark); // widgets get the palette change as a posted event
        QCOMPARE(QSettings().value(QStringLiteral("view/theme")).toString(),
                 QStringLiteral("dark"));
        QTRY_COMPARE(w.timeline()->renderer().style().background, ThemePalette::dark().background);
        QVERIFY(w.timeline()->renderer().style().dark);
        auto* steps = w.findChild<StepsView*>();
        QVERIFY(steps);
        QTRY_COMPARE(steps->plot()->xAxis->tickLabelColor(), ThemePalette::dark().plotText);
        QVERIFY(paletteIsDark(QApplication::palette()));
        w.setTheme(Theme::Light);
        QTRY_COMPARE(w.timeline()->renderer().style().background, ThemePalette::light().background);
        QTRY_COMPARE(steps->plot()->xAxis->tickLabelColor(), ThemePalette::light().plotText);
        QVERIFY(!paletteIsDark(QApplication::palette()));

        // Exports: light by default (whatever the screen shows), dark when asked.
        ExportComposer c(m_trace, nullptr, nullptr);
        ExportOptions o;
        o.width = 800;
        c.setOptions(o);
        const QString light = m_dir.filePath(QStringLiteral("light.png"));
        const QString dark = m_dir.filePath(QStringLiteral("dark.png"));
        QString error;
        QVERIFY2(c.writeTimeline(light, &error), qPrintable(error));
        QCOMPARE(QImage(light).pixelColor(3, 3), ThemePalette::light().page);
        QCOMPARE(c.renderer().style().background, ThemePalette::light().background);
        o.dark = true;
        c.setOptions(o);
        QCOMPARE(c.renderer().style().background, ThemePalette::dark().background);
        QVERIFY2(c.writeTimeline(dark, &error), qPrintable(error));
        QCOMPARE(QImage(dark).pixelColor(3, 3), ThemePalette::dark().page);
        w.setTheme(Theme::System);
        QCOMPARE(currentTheme(), Theme::System);
    }
};

QTEST_MAIN(TstTracks)
#include "tst_tracks.moc"
