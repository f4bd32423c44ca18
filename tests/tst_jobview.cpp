// The viewer on a whole job: opening several ranks (folder, files, command line), one group
// per rank's process, job findings, compact rows, clock offsets, align on a collective, the
// rank x step heatmap, and a screenshot.
#include "bench/tracegen_seed.h"
#include "core/job/jobtrace.h"
#include "tests/support/openwait.h"
#include "tests/testutil.h"
#include "ui/gui.h"
#include "ui/heatmap/rankstepheatmap.h"
#include "ui/job/rankoffsetsdialog.h"
#include "ui/mainwindow.h"
#include "ui/panes/findingspane.h"
#include "ui/timeline/timelineview.h"

#include <qcustomplot.h>

#include <QAction>
#include <QDir>
#include <QDropEvent>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <set>

using namespace rs;
using rs::test::openAndWait;

namespace {

bool rebuildAndWait(MainWindow& w, const std::function<void()>& action)
{
    QSignalSpy rebuilt(&w, &MainWindow::jobRebuilt);
    action();
    return rebuilt.count() > 0 || rebuilt.wait(60000);
}

std::string label(const Trace& t, ProcessId p)
{
    return t.processLabel(p);
}

} // namespace

class TstJobView : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    gen::SeedCaseOptions m_seed;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RingscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_jobview"));
        QSettings().clear();
        m_seed.ranks = 8;
        m_seed.steps = 5;
        m_seed.badSteps = {1, 3};
        m_seed.badRank = 2;
        QVERIFY(gen::writeSeedCaseJob(m_dir.path().toStdString(), m_seed));
    }

    void opensEightRankFolderAsJob()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, {m_dir.path()}));
        QVERIFY(w.isJob());
        const JobSessionPtr s = w.jobSession();
        QCOMPARE(s->job.rankCount(), std::size_t(8));
        QVERIFY(s->jobReport);
        QVERIFY(!w.isLoading());
        // It opens on every rank (the compact job layout, issue 26.2); the groups below are
        // those of the expanded view.
        QVERIFY(w.compactAction()->isChecked());
        std::set<int> compactRanks;
        for (const TimelineRow& row : w.timeline()->renderer().layout()->rows())
            compactRanks.insert(row.rank);
        QCOMPARE(compactRanks, (std::set<int>{0, 1, 2, 3, 4, 5, 6, 7}));
        w.compactAction()->setChecked(false);
        QSettings().remove(QStringLiteral("view/jobCompact"));
        QVERIFY2(w.statusText().contains(QStringLiteral("8 ranks")), qPrintable(w.statusText()));
        QVERIFY(w.statusText().contains(QStringLiteral("events")));
        QCOMPARE(w.recentFiles().value(0), QFileInfo(m_dir.path()).absoluteFilePath());

        // One group per rank's process, "Rank N · ...", in rank order on screen.
        const Trace& t = *w.trace();
        const TimelineLayout* layout = w.timeline()->renderer().layout();
        QVERIFY(layout);
        std::vector<int> headerRanks;
        for (const TimelineRow& row : layout->rows()) {
            if (row.kind != RowKind::ProcessHeader) continue;
            const std::string l = label(t, row.process);
            const int b = s->job.blockOfProcess(row.process);
            QVERIFY(b >= 0);
            const std::string want = "Rank " + std::to_string(b) + " \xc2\xb7 ";
            QVERIFY2(l.rfind(want, 0) == 0, l.c_str());
            headerRanks.push_back(b);
        }
        QVERIFY(std::is_sorted(headerRanks.begin(), headerRanks.end()));
        for (int r = 0; r < 8; ++r)
            QVERIFY(std::count(headerRanks.begin(), headerRanks.end(), r) >= 1);
        // A group collapses like any other.
        const ProcessId hccl3 = [&] {
            for (ProcessId p = 0; p < t.processes().size(); ++p)
                if (label(t, p) == "Rank 3 \xc2\xb7 HCCL") return p;
            return kNone;
        }();
        QVERIFY(hccl3 != kNone);
        w.timeline()->renderer().setCollapsed(hccl3, true);
        for (TrackId tr : t.processes()[hccl3].tracks)
            QCOMPARE(w.timeline()->renderer().layout()->rowOfTrack(tr), -1);
        w.timeline()->renderer().setCollapsed(hccl3, false);

        // The job finding is listed; clicking it selects the delaying rank's op.
        QTreeWidget* tree = w.findingsPane()->tree();
        QTreeWidgetItem* jobItem = nullptr;
        for (int i = 0; i < int(w.report()->findings.size()) && !jobItem; ++i) {
            QTreeWidgetItem* it = w.findingsPane()->itemOf(i);
            if (it && it->text(FindingsPane::TitleColumn).contains(QStringLiteral("Rank 2 delays")))
                jobItem = it;
        }
        QVERIFY(jobItem);
        tree->scrollToItem(jobItem);
        const QRect r = tree->visualItemRect(jobItem);
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, r.center());
        const EventId sel = w.timeline()->selectedEvent();
        QVERIFY(sel != kNone);
        QCOMPARE(s->job.blockOfEvent(sel), 2);
        QVERIFY(w.report()->collectiveOf(sel));
        QVERIFY(w.report()->collectiveOf(sel)->anomalous);
        // It is on screen and the align action applies to it.
        QVERIFY(!w.timeline()->timelineGeometry().eventRect(sel).isEmpty());
        QVERIFY(w.alignAction()->isEnabled());
    }

    void compactShowsOnlyCommunicationAndCompute()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(openAndWait(w, {m_dir.path()}));
        const Trace& t = *w.trace();
        const auto countRows = [&] {
            int n = 0;
            for (const TimelineRow& row : w.timeline()->renderer().layout()->rows())
                n += row.kind != RowKind::ProcessHeader;
            return n;
        };
        w.compactAction()->setChecked(false); // a job opens compact: from the expanded view
        const int before = countRows();
        w.compactAction()->setChecked(true);
        QVERIFY(w.timeline()->compact());
        const int after = countRows();
        QVERIFY2(after < before, qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(after)));
        QVERIFY(after > 0);
        int comm = 0, compute = 0;
        for (TrackId tr = 0; tr < t.tracks().size(); ++tr) {
            const TrackRole role = t.role(tr);
            const TimelineLayout* layout = w.timeline()->renderer().layout();
            const bool shown = layout->rowOfTrack(tr) >= 0;
            // The host rows it keeps show only the steps (their ProfilerStep depth).
            if (shown && !isDeviceRole(role)) {
                QCOMPARE(layout->rows()[std::size_t(layout->rowOfTrack(tr))].role, RowRole::Steps);
                continue;
            }
            if (shown) (isCommunicationRole(role) ? comm : compute)++;
        }
        QVERIFY(comm >= 8); // every rank keeps its collectives
        QVERIFY(compute >= 8);
        // Every collective op of the report stays visible.
        for (const Collective& c : w.report()->collectives)
            QVERIFY(w.timeline()->renderer().layout()->rowOfTrack(t.slice(c.event).track) >= 0);
        w.compactAction()->setChecked(false);
        QCOMPARE(countRows(), before);
        QSettings().remove(QStringLiteral("view/jobCompact"));
    }

    void offsetsMoveOneRankExactly()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(openAndWait(w, {m_dir.path()}));
        const JobSessionPtr s0 = w.jobSession();
        const TracePtr before = w.trace();
        // Select an event on rank 3 and look at some range.
        const EventId picked = s0->job.toMerged(3, 5);
        w.timeline()->selectEvent(picked, true);
        w.timeline()->setVisibleRange(before->startNs() + 1'000'000, before->startNs() + 9'000'000);
        const TimeNs t0 = w.timeline()->visibleStart(), t1 = w.timeline()->visibleEnd();

        // Through the dialog: rank 3 moves by +5000 µs.
        w.editRankOffsets();
        auto* dialog = w.findChild<RankOffsetsDialog*>();
        QVERIFY(dialog);
        QCOMPARE(dialog->table()->rowCount(), 8);
        QCOMPARE(dialog->table()->item(3, 0)->text(), QStringLiteral("3"));
        dialog->setOffsetUs(3, 5000.0);
        QVERIFY(rebuildAndWait(w, [&] { dialog->accept(); }));
        const TracePtr after = w.trace();
        QVERIFY(after != before);
        QCOMPARE(w.jobSession()->job.offsets[3], TimeNs(5'000'000));
        for (EventId e = 0; e < before->slices().size(); ++e) {
            const TimeNs d = after->slice(e).start - before->slice(e).start;
            if (d != (s0->job.blockOfEvent(e) == 3 ? 5'000'000 : 0))
                QFAIL(qPrintable(QStringLiteral("event %1 moved by %2").arg(e).arg(d)));
        }
        // Same rank-local event selected, same range shown, report on the new trace.
        QCOMPARE(w.timeline()->selectedEvent(), picked);
        QCOMPARE(w.timeline()->visibleStart(), t0);
        QCOMPARE(w.timeline()->visibleEnd(), t1);
        QCOMPARE(w.report()->trace, after);
        QCOMPARE(w.timeline()->report(), w.report());
    }

    void alignOnCollectiveEndsTogether()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(openAndWait(w, {m_dir.path()}));
        // Skew rank 5 first so the alignment has something to do.
        std::vector<TimeNs> skew = w.jobSession()->job.offsets;
        skew[5] += 3'000'000;
        QVERIFY(rebuildAndWait(w, [&] { w.setRankOffsets(skew); }));
        const JobSessionPtr s = w.jobSession();
        std::size_t instance = s->jobReport->collectives.size();
        for (std::size_t i = 0; i < s->jobReport->collectives.size(); ++i)
            if (s->jobReport->collectives[i].delayingRank) {
                instance = i;
                break;
            }
        QVERIFY(instance < s->jobReport->collectives.size());
        // Select that instance's op on rank 6 (any rank will do).
        const RankOp& op6 = s->jobReport->collectives[instance].ops[6];
        const EventId e6 = s->job.toMerged(
            op6.report, s->localReports[op6.report]->collectives[op6.collective].event);
        QVERIFY(!w.alignAction()->isEnabled() || w.timeline()->selectedEvent() != e6);
        w.selectEvent(e6);
        QVERIFY(w.alignAction()->isEnabled());
        QVERIFY(rebuildAndWait(w, [&] { w.alignAction()->trigger(); }));
        const JobSessionPtr a = w.jobSession();
        std::set<TimeNs> ends;
        for (const RankOp& op : a->jobReport->collectives[instance].ops) {
            const EventId e = a->job.toMerged(
                op.report, a->localReports[op.report]->collectives[op.collective].event);
            ends.insert(w.trace()->slice(e).end());
        }
        QCOMPARE(ends.size(), std::size_t(1));
        QCOMPARE(w.timeline()->selectedEvent(), e6);
    }

    void heatmapCellSelectsRankStep()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, {m_dir.path()}));
        RankStepHeatmap* hm = w.heatmap();
        const int tab = w.bottomTabs()->indexOf(hm);
        QVERIFY(tab >= 0);
        QCOMPARE(w.bottomTabs()->tabText(tab), QStringLiteral("Ranks"));
        w.bottomTabs()->setCurrentIndex(tab);
        QVERIFY(QTest::qWaitForWindowExposed(hm->plot()));
        QCOMPARE(hm->ranks().size(), std::size_t(8));
        QCOMPARE(hm->steps().size(), std::size_t(5));
        hm->plot()->replot();
        // The copying rank's bad step is the hottest on internal memcpy.
        hm->setMetric(RankStepHeatmap::Metric::InternalMemcpy);
        QVERIFY(hm->valueMs(2, 1) > 100);
        QVERIFY(!(hm->valueMs(5, 1) > 100));
        hm->setMetric(RankStepHeatmap::Metric::Communication);
        hm->plot()->replot();
        const QPoint pt = hm->cellCenter(5, 3);
        QTest::mouseClick(hm->plot(), Qt::LeftButton, {}, pt);
        const EventId sel = w.timeline()->selectedEvent();
        QVERIFY(sel != kNone);
        const JobSessionPtr s = w.jobSession();
        QCOMPARE(s->job.blockOfEvent(sel), 5);
        const std::string name = w.trace()->str(w.trace()->slice(sel).name);
        const std::string want = "ProfilerStep#" + std::to_string(hm->steps()[3]);
        QCOMPARE(name, want);
        const Slice& st = w.trace()->slice(sel);
        QVERIFY(w.timeline()->visibleStart() <= st.start);
        QVERIFY(w.timeline()->visibleEnd() >= st.end());
        QVERIFY(w.timeline()->visibleEnd() - w.timeline()->visibleStart() < st.dur * 2);
    }

    void twoFilesOpenBoth()
    {
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.kineto = true;
        o.ranks = 2;
        o.steps = 3;
        o.badSteps = {1};
        o.badRank = 1;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        QStringList files;
        for (const QFileInfo& f : QDir(dir.path()).entryInfoList(QDir::Files, QDir::Name))
            files << f.absoluteFilePath();
        QCOMPARE(files.size(), 2);
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, files));
        QVERIFY(w.isJob());
        QCOMPARE(w.jobSession()->job.rankCount(), std::size_t(2));
        QCOMPARE(w.jobSession()->job.rankIds, (std::vector<int>{0, 1}));
        // Compact on Kineto ranks: the GPU streams (NCCL and compute kernels) stay, host threads
        // show only their steps (the ProfilerStep depth), one row each.
        w.timeline()->setCompact(true);
        const Trace& t = *w.trace();
        const TimelineLayout* layout = w.timeline()->renderer().layout();
        int steps = 0;
        for (TrackId tr = 0; tr < t.tracks().size(); ++tr) {
            const int row = layout->rowOfTrack(tr);
            if (row < 0 || trackClass(t, tr) != TrackClass::Host) continue;
            const TimelineRow& r = layout->rows()[std::size_t(row)];
            QCOMPARE(r.role, RowRole::Steps);
            QCOMPARE(r.depths, 1);
            ++steps;
        }
        QCOMPARE(steps, 2);
        QVERIFY(!w.report()->collectives.empty());
        for (const Collective& c : w.report()->collectives)
            QVERIFY(layout->rowOfTrack(t.slice(c.event).track) >= 0);
        w.timeline()->setCompact(false);
        // Remembered as one entry holding both files.
        QCOMPARE(w.recentFiles().value(0).split(QLatin1Char('\n')), files);
        // One of them alone is a single trace, as before.
        QVERIFY(openAndWait(w, {files.first()}));
        QVERIFY(!w.isJob());
        QCOMPARE(w.bottomTabs()->indexOf(w.heatmap()), -1);
        QCOMPARE(*w.trace()->rank(), 0);
    }

    void commandLineAndDropOpenEveryPath()
    {
        QStringList files;
        for (const QFileInfo& f :
             QDir(m_dir.path()).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            files << f.absoluteFilePath();
        QCOMPARE(files.size(), 8); // rank<N>_ascend_pt folders
        {
            // `ringscope A B C`
            MainWindow w;
            w.show();
            QSignalSpy analysed(&w, &MainWindow::analysisFinished);
            openFromCommandLine(w, files.mid(2, 3));
            QVERIFY(analysed.wait(180000));
            QVERIFY(w.isJob());
            QCOMPARE(w.jobSession()->job.rankIds, (std::vector<int>{2, 3, 4}));
        }
        {
            // Dropping two rank folders on the window.
            MainWindow w;
            w.show();
            QSignalSpy analysed(&w, &MainWindow::analysisFinished);
            QMimeData mime;
            mime.setUrls({QUrl::fromLocalFile(files[6]), QUrl::fromLocalFile(files[7])});
            // Qt delivers a drop to the widget that accepted the drag's enter.
            QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, {});
            QApplication::sendEvent(&w, &enter);
            QVERIFY(enter.isAccepted());
            QDropEvent drop(QPointF(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, {});
            QApplication::sendEvent(&w, &drop);
            QVERIFY2(drop.isAccepted(), qPrintable(w.statusText()));
            QVERIFY(w.isLoading());
            QVERIFY(analysed.wait(180000));
            QVERIFY(w.isJob());
            QCOMPARE(w.jobSession()->job.rankIds, (std::vector<int>{6, 7}));
        }
    }

    void cancelAndSupersede()
    {
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::traceLoaded);
        w.openPaths({m_dir.path()});
        QVERIFY(w.isLoading());
        // The status bar's Cancel button stops the job.
        QPushButton* cancel = nullptr;
        for (QPushButton* b : w.statusBar()->findChildren<QPushButton*>())
            if (b->text() == QStringLiteral("Cancel")) cancel = b;
        QVERIFY(cancel);
        QVERIFY(!cancel->isHidden());
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!w.isLoading(), 60000);
        QTest::qWait(100);
        QCOMPARE(loaded.count(), 0);
        QVERIFY(!w.isJob());
        QVERIFY2(w.statusText().contains(QStringLiteral("cancelled")), qPrintable(w.statusText()));

        // A job superseded by a newer job is dropped: only the last one opens.
        QSignalSpy analysed(&w, &MainWindow::analysisFinished);
        const QString first = QDir(m_dir.path())
                                  .entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)
                                  .first()
                                  .absoluteFilePath();
        w.openPaths({m_dir.path()});
        w.openPaths({first, QDir(m_dir.path()).filePath(QStringLiteral("rank1_ascend_pt"))});
        QVERIFY(analysed.wait(180000));
        QTest::qWait(300);
        QCOMPARE(analysed.count(), 1);
        QCOMPARE(w.jobSession()->job.rankCount(), std::size_t(2));
        // A single trace opened while a job loads supersedes it too.
        QSignalSpy loadedOne(&w, &MainWindow::traceLoaded);
        w.openPaths({m_dir.path()});
        w.openPaths({first});
        QVERIFY(loadedOne.wait(180000));
        QTRY_VERIFY_WITH_TIMEOUT(!w.isLoading(), 60000);
        QTest::qWait(300);
        QVERIFY(!w.isJob());
        QCOMPARE(loadedOne.count(), 1);
    }

    void failedRankIsReportedOthersOpen()
    {
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.kineto = true;
        o.ranks = 3;
        o.steps = 2;
        o.badSteps = {};
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        QFile bad(dir.filePath(QStringLiteral("rank9.pt.trace.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"traceEvents\": [ this is not json");
        bad.close();
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, {dir.path()}));
        QVERIFY(w.isJob());
        QCOMPARE(w.jobSession()->job.rankCount(), std::size_t(3));
        QVERIFY(!w.jobSession()->errors.empty());
        QVERIFY2(w.lastError().contains(QStringLiteral("rank9")), qPrintable(w.lastError()));
        QVERIFY2(w.statusText().contains(QStringLiteral("failed")), qPrintable(w.statusText()));
    }

    void publicAscendTwoRanks()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        MainWindow w;
        w.show();
        QVERIFY(openAndWait(w, {test::publicTrace("ascend_torchnpu_level1_2rank")}));
        QVERIFY(w.isJob());
        QCOMPARE(w.jobSession()->job.rankIds, (std::vector<int>{0, 1}));
        QVERIFY(w.jobSession()->jobReport);
        QCOMPARE(w.jobSession()->jobReport->collectives.size(), std::size_t(4));
        QVERIFY2(w.statusText().contains(QStringLiteral("2 ranks")),
                 qPrintable(w.statusText() + " / " + w.lastError()));
        int hccl = 0;
        for (ProcessId p = 0; p < w.trace()->processes().size(); ++p)
            hccl += QString::fromStdString(w.trace()->processLabel(p))
                        .endsWith(QStringLiteral("\u00b7 HCCL"));
        QCOMPARE(hccl, 2);
    }

    void screenshot()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, {m_dir.path()}));
        w.compactAction()->setChecked(true);
        w.showFinding(0); // the job finding: the copying rank's AllReduce
        QVERIFY(w.report()->findings.front().rule.rfind("job-", 0) == 0);
        w.bottomTabs()->setCurrentWidget(w.heatmap());
        // Internal memcpy tells the case's story: one rank copies in the bad steps.
        w.heatmap()->setMetric(RankStepHeatmap::Metric::InternalMemcpy);
        QTest::qWait(50);
        const QString out = QDir(test::binaryDir()).filePath(QStringLiteral("job-view.png"));
        QVERIFY(w.grab().save(out));
        QVERIFY(QFileInfo(out).size() > 10000);
    }
};

QTEST_MAIN(TstJobView)
#include "tst_jobview.moc"
