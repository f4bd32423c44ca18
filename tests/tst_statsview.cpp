// The Statistics tab (ui/stats) in the main window: the table equals the core engine's for the
// whole trace, a ruler range and a Shift+dragged area (and `ringscope stats --range` for an area
// over every track), sorting, filter, Copy and Export CSV, occurrences stepped on the timeline,
// the area kept in back / forward history, and a job per rank as the command line gives it.
#include "bench/tracegen_seed.h"
#include "core/stats/stats.h"
#include "tests/support/processrun.h"
#include "tests/testutil.h"
#include "ui/mainwindow.h"
#include "ui/stats/statsmodel.h"
#include "ui/stats/statspane.h"
#include "ui/timeline/timelineview.h"

#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace rs;

namespace {

// The trace of tst_stats: a host thread with nested ops, two GPU streams.
std::string kinetoRank(int rank)
{
    nlohmann::json ev = nlohmann::json::array();
    auto x = [&](const char* name, const char* cat, int pid, int tid, int ts, int dur) {
        ev.push_back({{"ph", "X"},
                      {"name", name},
                      {"cat", cat},
                      {"pid", pid},
                      {"tid", tid},
                      {"ts", 1000000 + ts},
                      {"dur", dur}});
    };
    x("ProfilerStep#1", "user_annotation", 1, 1, 0, 100);
    x("aten::linear", "cpu_op", 1, 1, 10, 40);
    x("aten::matmul", "cpu_op", 1, 1, 15, 20);
    x("aten::add", "cpu_op", 1, 1, 60, 10);
    x("gemm", "kernel", 0, 7, 20, 30);
    x("Memcpy DtoD (Device -> Device)", "gpu_memcpy", 0, 7, 52, 4);
    x("gemm", "kernel", 0, 7, 60, 10);
    x("ncclKernel_AllReduce_RING_LL_Sum_float", "kernel", 0, 7, 80, 15);
    x("relu", "kernel", 0, 8, 25, 10);
    x("void at::vec_kernel<float, 4>(int&)", "kernel", 0, 8, 40, 2); // '<', '&' in a name
    return nlohmann::json{{"schemaVersion", 1},
                          {"distributedInfo", {{"rank", rank}, {"world_size", 1}}},
                          {"traceEvents", ev}}
        .dump();
}

bool openAndWait(MainWindow& w, const QString& path)
{
    QSignalSpy loaded(&w, &MainWindow::traceLoaded);
    QSignalSpy analysed(&w, &MainWindow::analysisFinished);
    w.openPaths({path});
    if (!loaded.wait(120000)) return false;
    return analysed.count() > 0 || analysed.wait(120000);
}

QString ringscope()
{
    return test::binaryDir() + "/app/ringscope";
}

// Two tables are the same rows (name, rank, count, total, min, max).
bool sameRows(const StatsTable& a, const StatsTable& b, QString* why)
{
    if (a.rows.size() != b.rows.size()) {
        *why = QStringLiteral("%1 rows vs %2").arg(a.rows.size()).arg(b.rows.size());
        return false;
    }
    for (std::size_t i = 0; i < a.rows.size(); ++i) {
        const StatsRow &x = a.rows[i], &y = b.rows[i];
        if (x.name != y.name || x.rank != y.rank || x.count != y.count || x.totalNs != y.totalNs ||
            x.minNs != y.minNs || x.maxNs != y.maxNs || x.percent != y.percent) {
            *why = QStringLiteral("row %1: %2 vs %3")
                       .arg(i)
                       .arg(QString::fromStdString(x.name), QString::fromStdString(y.name));
            return false;
        }
    }
    return a.busyNs == b.busyNs || (*why = QStringLiteral("busy differs"), false);
}

// The JSON rows of `ringscope stats` against a table.
bool sameAsCli(const nlohmann::json& j, const StatsTable& t, QString* why)
{
    if (j["rows"].size() != t.rows.size()) {
        *why = QStringLiteral("cli %1 rows, pane %2").arg(j["rows"].size()).arg(t.rows.size());
        return false;
    }
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        const auto& r = j["rows"][i];
        const StatsRow& x = t.rows[i];
        if (r["name"].get<std::string>() != x.name || r["count"].get<std::uint64_t>() != x.count ||
            r["total_ns"].get<TimeNs>() != x.totalNs ||
            (x.rank && r["rank"].get<int>() != *x.rank)) {
            *why = QStringLiteral("row %1: cli %2, pane %3")
                       .arg(i)
                       .arg(QString::fromStdString(r.dump()), QString::fromStdString(x.name));
            return false;
        }
    }
    return true;
}

TrackId trackWithTid(const Trace& t, const char* tid)
{
    for (TrackId tr = 0; tr < t.tracks().size(); ++tr)
        if (t.tracks()[tr].tid == tid) return tr;
    return kNone;
}

} // namespace

class TstStatsView : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_file;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RingscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_statsview"));
        QSettings().clear();
        m_file = m_dir.filePath("rank0.pt.trace.json");
        QFile f(m_file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(kinetoRank(0)));
    }

    void tableSortFilterCopyExport()
    {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, m_file));
        StatsPane* pane = w.statsPane();
        QVERIFY(pane);
        w.bottomTabs()->setCurrentWidget(pane);
        QCOMPARE(pane->scope(), StatsPane::Scope::Whole);
        StatsOptions o;
        const StatsTable core = computeStats(*w.trace(), w.report().get(), o);
        QString why;
        QVERIFY2(sameRows(pane->table(), core, &why), qPrintable(why));
        QCOMPARE(pane->proxy()->rowCount(), 4);
        // Human units in the cells, exact ns in the tooltip.
        const QModelIndex total = pane->proxy()->index(0, StatsTableModel::Total);
        QCOMPARE(total.data().toString(), QStringLiteral("40.0 µs"));
        QVERIFY(total.data(Qt::ToolTipRole).toString().contains(QStringLiteral("40,000 ns")));

        // Sorting by count ascending puts a single occurrence first; the filter narrows.
        pane->tableView()->sortByColumn(StatsTableModel::Count, Qt::AscendingOrder);
        QCOMPARE(pane->proxy()->index(0, StatsTableModel::Count).data().toString(),
                 QStringLiteral("1"));
        pane->tableView()->sortByColumn(StatsTableModel::Total, Qt::DescendingOrder);
        pane->filterEdit()->setText(QStringLiteral("GEMM"));
        QCOMPARE(pane->proxy()->rowCount(), 1);
        QVERIFY(pane->selectedRowsTsv().startsWith(QStringLiteral(
            "name\tcount\ttotal_ns\tmean_ns\tmin_ns\tmax_ns\tpercent\ngemm\t2\t40000\t")));
        pane->filterEdit()->clear();
        // Export CSV of the unfiltered table is the command line's CSV.
        QCOMPARE(pane->csvText(), QString::fromStdString(statsToCsv(core)));
        const test::ProcessRun cli =
            QFileInfo(ringscope()).isExecutable()
                ? test::runProcess(ringscope(), {"stats", m_file, "--by", "kernel", "--csv"})
                : test::ProcessRun{};
        if (cli.code == 0) QCOMPARE(pane->csvText(), cli.out);
        QCOMPARE(pane->commandLine()->text(),
                 QStringLiteral("ringscope stats %1 --by kernel").arg(m_file));

        // The "By" selector.
        pane->byBox()->setCurrentIndex(1); // ops
        QCOMPARE(pane->group(), StatsGroup::Op);
        QCOMPARE(pane->table().rows.front().name, std::string("aten::linear"));
        QVERIFY(pane->commandLine()->text().endsWith(QStringLiteral("--by op")));
    }

    void areaSelectionIsTheEnginesArea()
    {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, m_file));
        StatsPane* pane = w.statsPane();
        w.bottomTabs()->setCurrentWidget(pane);
        TimelineView* tl = w.timeline();
        const Trace& t = *w.trace();
        const TrackId s7 = trackWithTid(t, "7"), s8 = trackWithTid(t, "8");
        QVERIFY(s7 != kNone && s8 != kNone);
        tl->zoomToRange(t.startNs(), t.endNs());
        const TimelineGeometry g = tl->timelineGeometry();
        const QRectF r7 = g.trackRect(s7), r8 = g.trackRect(s8);
        QVERIFY2(!r7.isEmpty() && !r8.isEmpty(), "both GPU streams on screen");
        // Shift+drag from 30 us to 65 us over both streams' rows.
        const QPoint a(int(g.xOf(t.startNs() + 30000)), int(std::min(r7.top(), r8.top()) + 2));
        const QPoint b(int(g.xOf(t.startNs() + 65000)),
                       int(std::max(r7.bottom(), r8.bottom()) - 2));
        QSignalSpy areas(tl, &TimelineView::areaSelected);
        QTest::mousePress(tl, Qt::LeftButton, Qt::ShiftModifier, a);
        QTest::mouseMove(tl, (a + b) / 2);
        QTest::mouseMove(tl, b);
        QTest::mouseRelease(tl, Qt::LeftButton, Qt::ShiftModifier, b);
        QCOMPARE(areas.count(), 1);
        const TimelineArea area = tl->area();
        QVERIFY(area.valid());
        QCOMPARE(area.tracks, (std::vector<TrackId>{std::min(s7, s8), std::max(s7, s8)}));
        QVERIFY(std::abs(area.t0 - (t.startNs() + 30000)) < 1000);
        // The visible range did not pan: Shift+drag is not the plain drag.
        QCOMPARE(tl->visibleStart(), t.startNs());
        QCOMPARE(pane->scope(), StatsPane::Scope::Selection);
        QCOMPARE(pane->selectionArea(), area);
        StatsOptions o;
        o.scope.range = std::pair{area.t0, area.t1};
        o.scope.tracks = area.tracks;
        QString why;
        QVERIFY2(sameRows(pane->table(), computeStats(*w.trace(), w.report().get(), o), &why),
                 qPrintable(why));
        QVERIFY(pane->commandLine()->text().contains(
            QStringLiteral("--range %1:%2").arg(area.t0).arg(area.t1)));
        QVERIFY(!tl->areaRect(area).isEmpty()); // drawn

        // An area over every track is `ringscope stats --range` of its range.
        TimelineArea all = area;
        all.tracks = tl->tracksBetween(0, 1e9);
        tl->setArea(all);
        if (QFileInfo(ringscope()).isExecutable()) {
            const test::ProcessRun cli = test::runProcess(
                ringscope(), {"stats", m_file, "--by", "kernel", "--json", "--range",
                              QStringLiteral("%1:%2").arg(all.t0).arg(all.t1)});
            QVERIFY2(cli.code == 0, qPrintable(cli.describe()));
            QVERIFY2(sameAsCli(nlohmann::json::parse(cli.out.toStdString()), pane->table(), &why),
                     qPrintable(why));
        }
        // The area image.
        const QString png = m_dir.filePath("area.png");
        QString error;
        QVERIFY2(pane->exportAreaImage(png, &error), qPrintable(error));
        QVERIFY(QFileInfo(png).size() > 1000);

        // History: back goes to the first area, forward to the second; Esc clears it.
        QVERIFY(tl->historyBack());
        QCOMPARE(tl->area(), area);
        QCOMPARE(pane->selectionArea(), area);
        QVERIFY(tl->historyForward());
        QCOMPARE(tl->area(), all);
        tl->setFocus();
        QTest::keyClick(tl, Qt::Key_Escape);
        QVERIFY(!tl->area().valid());
        QVERIFY(!pane->selectionArea().valid());
        QVERIFY(pane->scopeLabel()->text().contains(QStringLiteral("No selection")));

        // A ruler range is a Selection scope over every track.
        tl->setRangeSelection(t.startNs() + 30000, t.startNs() + 65000);
        o.scope.tracks.reset();
        o.scope.range = std::pair{t.startNs() + 30000, t.startNs() + 65000};
        QVERIFY2(sameRows(pane->table(), computeStats(*w.trace(), w.report().get(), o), &why),
                 qPrintable(why));
    }

    // Issue 26.7: a plain drag over the tracks makes an area (as in Perfetto) and its
    // statistics show at once; its label sits in the ruler, over no track; the middle button
    // pans, never far before 0 s.
    void plainDragMakesAnAreaAndShowsItsStatistics()
    {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, m_file));
        QVERIFY(w.panesCollapsed());
        TimelineView* tl = w.timeline();
        const Trace& t = *w.trace();
        const TrackId s7 = trackWithTid(t, "7"), s8 = trackWithTid(t, "8");
        tl->zoomToRange(t.startNs(), t.endNs());
        const TimelineGeometry g = tl->timelineGeometry();
        const QRectF r7 = g.trackRect(s7), r8 = g.trackRect(s8);
        QVERIFY(!r7.isEmpty() && !r8.isEmpty());
        const QPoint a(int(g.xOf(t.startNs() + 30000)), int(std::min(r7.top(), r8.top()) + 2));
        const QPoint b(int(g.xOf(t.startNs() + 65000)),
                       int(std::max(r7.bottom(), r8.bottom()) - 2));
        QSignalSpy areas(tl, &TimelineView::areaSelected);
        QTest::mousePress(tl, Qt::LeftButton, {}, a);
        QTest::mouseMove(tl, (a + b) / 2);
        QTest::mouseMove(tl, b);
        QTest::mouseRelease(tl, Qt::LeftButton, {}, b);
        QCOMPARE(areas.count(), 1);
        QVERIFY(tl->area().valid());
        QCOMPARE(tl->area().tracks, (std::vector<TrackId>{std::min(s7, s8), std::max(s7, s8)}));
        QCOMPARE(tl->visibleStart(), t.startNs()); // a plain drag no longer pans
        // The aggregates, without opening anything.
        QVERIFY(!w.panesCollapsed());
        QCOMPARE(w.bottomTabs()->currentWidget(), static_cast<QWidget*>(w.statsPane()));
        QCOMPARE(w.statsPane()->scope(), StatsPane::Scope::Selection);
        QVERIFY(w.statsPane()->proxy()->rowCount() > 0);
        // The label is in the ruler, over the area.
        const QRectF label = tl->areaLabelRect(tl->area());
        QVERIFY(!label.isEmpty());
        QVERIFY(label.top() >= 0 && label.bottom() <= tl->timelineGeometry().rulerHeight);
        const QRectF box = tl->areaRect(tl->area());
        QVERIFY(label.right() > box.left() && label.left() < box.right());
        // A click is still a click: it clears the area and selects.
        QTest::mouseClick(tl, Qt::LeftButton, {}, a);
        QVERIFY(!tl->area().valid());

        // The middle button pans; the view stops a sliver before the trace's start.
        const TimeNs span = tl->visibleEnd() - tl->visibleStart();
        const QPoint m(tl->width() / 2, int(r7.center().y()));
        QTest::mousePress(tl, Qt::MiddleButton, {}, m);
        QTest::mouseMove(tl, m + QPoint(40, 0));
        QTest::mouseMove(tl, m + QPoint(tl->width(), 0));
        QTest::mouseRelease(tl, Qt::MiddleButton, {}, m + QPoint(tl->width(), 0));
        QVERIFY(tl->visibleStart() < t.startNs());
        QVERIFY2(t.startNs() - tl->visibleStart() <= span / 50 + 1,
                 qPrintable(QString::number(t.startNs() - tl->visibleStart())));
        QCOMPARE(tl->visibleEnd() - tl->visibleStart(), span);
    }

    void occurrencesStepOnTheTimeline()
    {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, m_file));
        StatsPane* pane = w.statsPane();
        w.bottomTabs()->setCurrentWidget(pane);
        pane->filterEdit()->setText(QStringLiteral("gemm"));
        QCOMPARE(pane->proxy()->rowCount(), 1);
        const QModelIndex cell = pane->proxy()->index(0, StatsTableModel::Name);
        // The view's double-click signal (QTest's synthetic double click does not reach an
        // item view's viewport on the offscreen platform).
        emit pane->tableView()->doubleClicked(cell);
        QCOMPARE(pane->occurrenceCount(), 2);
        QCOMPARE(pane->occurrenceList()->count(), 2);
        const Trace& t = *w.trace();
        TimelineView* tl = w.timeline();
        const EventId first = tl->selectedEvent();
        QVERIFY(first != kNone);
        QCOMPARE(t.str(t.slice(first).name), std::string("gemm"));
        QCOMPARE(t.slice(first).start, t.startNs() + 20000);
        QVERIFY(pane->stepOccurrence(+1));
        const EventId second = tl->selectedEvent();
        QCOMPARE(t.slice(second).start, t.startNs() + 60000);
        // Zoomed to it.
        QVERIFY(tl->visibleStart() <= t.slice(second).start);
        QVERIFY(tl->visibleEnd() >= t.slice(second).end());
        QVERIFY(tl->visibleEnd() - tl->visibleStart() < 4 * t.slice(second).dur);
        QVERIFY(pane->stepOccurrence(+1)); // wraps
        QCOMPARE(tl->selectedEvent(), first);
        QCOMPARE(pane->occurrenceList()->currentRow(), 0);
        QCOMPARE(pane->occurrenceLabel()->text(), QStringLiteral("2 occurrences of gemm"));

        // A templated kernel's name shows as written, not as HTML.
        pane->filterEdit()->setText(QStringLiteral("vec_kernel"));
        QCOMPARE(pane->proxy()->rowCount(), 1);
        emit pane->tableView()->doubleClicked(pane->proxy()->index(0, StatsTableModel::Name));
        QCOMPARE(pane->occurrenceLabel()->text(),
                 QStringLiteral("1 occurrence of void at::vec_kernel<float, 4>(int&)"));
        QCOMPARE(pane->occurrenceLabel()->textFormat(), Qt::PlainText);
    }

    void jobPerRankIsTheCommandLines()
    {
        QTemporaryDir dir;
        gen::SeedCaseOptions so;
        so.ranks = 2;
        so.steps = 3;
        so.badSteps = {1};
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), so));
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, dir.path()));
        QVERIFY(w.isJob());
        StatsPane* pane = w.statsPane();
        w.bottomTabs()->setCurrentWidget(pane);
        pane->setGroup(StatsGroup::Collective);
        pane->setPerRank(true);
        QVERIFY(!pane->tableView()->isColumnHidden(StatsTableModel::Rank));
        const StatsTable& table = pane->table();
        QVERIFY(!table.rows.empty());
        for (const StatsRow& r : table.rows)
            QVERIFY(r.rank.has_value());
        QVERIFY(pane->commandLine()->text().endsWith(QStringLiteral("--by collective --per-rank")));
        if (!QFileInfo(ringscope()).isExecutable()) QSKIP("the ringscope binary is not built");
        const test::ProcessRun cli = test::runProcess(
            ringscope(), {"stats", dir.path(), "--by", "collective", "--per-rank", "--json"});
        QVERIFY2(cli.code == 0, qPrintable(cli.describe()));
        QString why;
        QVERIFY2(sameAsCli(nlohmann::json::parse(cli.out.toStdString()), table, &why),
                 qPrintable(why));
        // Kernels too (no analysis needed by the command line).
        pane->setGroup(StatsGroup::Kernel);
        const test::ProcessRun k = test::runProcess(
            ringscope(), {"stats", dir.path(), "--by", "kernel", "--per-rank", "--json"});
        QVERIFY2(sameAsCli(nlohmann::json::parse(k.out.toStdString()), pane->table(), &why),
                 qPrintable(why));
    }

    void realTraceIsTheCommandLines()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        const QString path = test::publicTrace("ascend_torchnpu_level1_2rank/rank0_ascend_pt");
        if (!QFileInfo::exists(path)) QSKIP("the level1 trace is absent");
        if (!QFileInfo(ringscope()).isExecutable()) QSKIP("the ringscope binary is not built");
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, path));
        StatsPane* pane = w.statsPane();
        w.bottomTabs()->setCurrentWidget(pane);
        for (const char* by : {"kernel", "collective", "op"}) {
            pane->setGroup(*parseStatsGroup(by));
            const test::ProcessRun cli =
                test::runProcess(ringscope(), {"stats", path, "--by", by, "--json"});
            QVERIFY2(cli.code == 0, qPrintable(cli.describe()));
            QString why;
            QVERIFY2(sameAsCli(nlohmann::json::parse(cli.out.toStdString()), pane->table(), &why),
                     qPrintable(QString(by) + ": " + why));
            QVERIFY(!pane->table().rows.empty());
        }
    }
};

QTEST_MAIN(TstStatsView)
#include "tst_statsview.moc"
