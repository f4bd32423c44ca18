#include "core/job/jobtrace.h"
#include "tests/testutil.h"
#include "ui/heatmap/rankstepheatmap.h"
#include "ui/job/jobsession.h"
#include "ui/mainwindow.h"
#include "ui/panes/callstackpane.h"
#include "ui/panes/detailspane.h"
#include "ui/panes/findingspane.h"
#include "ui/panes/searchpane.h"
#include "ui/plots/distributionview.h"
#include "ui/plots/stepsview.h"
#include "ui/timeline/timelineview.h"

#include <QDir>
#include <QDockWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <QTreeWidget>

#include <set>

using namespace rs;

namespace {

EventId firstNamed(const Trace& t, const QString& prefix)
{
    for (EventId e = 0; e < t.slices().size(); ++e)
        if (QString::fromStdString(t.str(t.slice(e).name)).startsWith(prefix)) return e;
    return kNone;
}

// Loads a path into the window and waits for the trace and its analysis.
bool openAndWait(MainWindow& w, const QString& path)
{
    QSignalSpy loaded(&w, &MainWindow::traceLoaded);
    QSignalSpy analysed(&w, &MainWindow::analysisFinished);
    w.openPaths({path});
    if (!loaded.wait(120000)) return false;
    return analysed.count() > 0 || analysed.wait(120000);
}

} // namespace

class TstMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RingscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
        QSettings().clear();
    }

    void clickAllReduceShowsDetailsAndCallStack()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, test::publicTrace("ascend_torchnpu_level1_2rank/rank0_ascend_pt")));
        QVERIFY(w.trace());
        QVERIFY2(w.statusText().contains(QStringLiteral("rank 0")), qPrintable(w.statusText()));
        QVERIFY(w.statusText().contains(QStringLiteral("events")));

        const Trace& t = *w.trace();
        const EventId op = firstNamed(t, QStringLiteral("hcom_allReduce"));
        QVERIFY(op != kNone);
        TimelineView* tl = w.timeline();
        const Slice& s = t.slice(op);
        tl->zoomToRange(s.start - s.dur, s.end() + s.dur);
        tl->revealEvent(op);
        const QPoint pt = tl->eventCenter(op);
        QVERIFY2(tl->rect().contains(pt),
                 qPrintable(QStringLiteral("%1,%2").arg(pt.x()).arg(pt.y())));
        // The hit test at that pixel is the op itself (not a neighbour or a folded block).
        QCOMPARE(tl->renderer().hitTest(tl->timelineGeometry(), pt).event, op);
        QTest::mouseClick(tl, Qt::LeftButton, {}, pt);
        QCOMPARE(tl->selectedEvent(), op);

        // The plots follow: one report each, the op's collective ringed, its step outlined.
        QCOMPARE(w.stepsView()->reports().size(), std::size_t(1));
        if (w.report()->collectiveOf(op))
            QVERIFY(w.distributionView()->highlightedCollective().has_value());
        if (!w.report()->steps.empty()) QVERIFY(w.stepsView()->highlightedStep().has_value());
        const QString details = w.detailsPane()->text();
        QVERIFY2(details.contains(QString::fromStdString(t.str(s.name))), qPrintable(details));
        QVERIFY(details.contains(QStringLiteral("HCCL")));
        QVERIFY(details.contains(QStringLiteral("alg_type"))); // args tree
        QVERIFY(details.contains(QStringLiteral("MESH-RING")));

        const auto& chain = w.callStackPane()->entries();
        QVERIFY(!chain.empty());
        QCOMPARE(chain.front().event, op); // innermost first
        QVERIFY(w.callStackPane()->text().contains(QStringLiteral("hcom_allReduce")));
        // The op is launched from the host: some frame is a host-side slice of another track.
        int host = -1;
        for (std::size_t i = 1; i < chain.size(); ++i)
            if (chain[i].event != kNone && t.slice(chain[i].event).track != s.track) {
                host = static_cast<int>(i);
                break;
            }
        QVERIFY2(host > 0, qPrintable(w.callStackPane()->text()));
        // Clicking that frame selects and reveals it in the timeline.
        w.bottomTabs()->setCurrentWidget(w.callStackPane());
        QTreeWidget* tree = w.callStackPane()->tree();
        // The panes unfolded with the selection: let their layout settle before aiming.
        QVERIFY(QTest::qWaitForWindowExposed(tree));
        QTest::qWait(50);
        QTreeWidgetItem* item = tree->topLevelItem(host);
        tree->scrollToItem(item);
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {},
                          tree->visualItemRect(item).center());
        const EventId hostEvent = chain[static_cast<std::size_t>(host)].event;
        QTRY_COMPARE(tl->selectedEvent(), hostEvent);
        // The pane follows at once: no rows of the previous chain.
        QCOMPARE(w.callStackPane()->entries().front().event, hostEvent);
        QCOMPARE(tree->topLevelItemCount(), int(w.callStackPane()->entries().size()));
        QVERIFY(tl->rect().contains(tl->eventCenter(hostEvent)));
        QVERIFY(w.detailsPane()->text().contains(
            QString::fromStdString(t.str(t.slice(hostEvent).name))));
        // Alt+Left goes back to the op.
        QTest::keyClick(tl, Qt::Key_Left, Qt::AltModifier);
        QCOMPARE(tl->selectedEvent(), op);

        // A screenshot of the whole window in the build tree, for people to look at: a flagged
        // collective when the analysis found one, else the op, with some context around it.
        if (!tl->selectNextFlagged(+1)) tl->selectEvent(op);
        w.bottomTabs()->setCurrentWidget(w.detailsPane());
        tl->fitSelection();
        tl->zoomBy(4.0, tl->eventCenter(tl->selectedEvent()).x());
        const QString png = QDir(test::binaryDir()).filePath(QStringLiteral("viewer_rank0.png"));
        QVERIFY(w.grab().save(png));
    }

    void searchAndFindings()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, test::publicTrace("ascend_torchnpu_level1_2rank/rank0_ascend_pt")));
        // SOURCES.md: four hcom_allReduce ops on HCCL tid 0, and their four AscendCL launches.
        QCOMPARE(w.searchPane()->search(QStringLiteral("hcom_allreduce")), 8);
        QCOMPARE(w.searchPane()->search(QStringLiteral("HCOM_ALLREDUCE__")), 4);
        QCOMPARE(w.searchPane()->search(QStringLiteral("^hcom_allReduce__586_[0-3]_1$"), true), 4);
        w.searchPane()->next();
        QCOMPARE(w.timeline()->selectedEvent(), w.searchPane()->results().front());
        w.searchPane()->next();
        QCOMPARE(w.timeline()->selectedEvent(), w.searchPane()->results()[1]);
        w.searchPane()->previous();
        QCOMPARE(w.timeline()->selectedEvent(), w.searchPane()->results().front());
        // Ctrl+F focuses the search field.
        w.activateWindow();
        QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier);
        QCOMPARE(w.bottomTabs()->currentWidget(), w.searchPane());

        QVERIFY(w.report());
        QCOMPARE(w.findingsPane()->count(), static_cast<int>(w.report()->findings.size()));
        for (int i = 0; i < static_cast<int>(w.report()->findings.size()); ++i) {
            const Finding& f = w.report()->findings[static_cast<std::size_t>(i)];
            if (f.events.empty()) continue;
            w.findingsPane()->tree()->setCurrentItem(w.findingsPane()->itemOf(i));
            emit w.findingsPane()->findingActivated(i);
            QCOMPARE(w.timeline()->selectedEvent(), f.events.front());
            const Slice& s = w.trace()->slice(f.events.front());
            QVERIFY(w.timeline()->visibleStart() <= s.start + s.dur &&
                    w.timeline()->visibleEnd() >= s.start);
            break;
        }
    }

    void loadErrorKeepsTraceAndSaysWhy()
    {
        MainWindow w;
        QSignalSpy failed(&w, &MainWindow::loadFailed);
        const QString bad = QDir(test::binaryDir()).filePath(QStringLiteral("no_such_trace.json"));
        w.openPaths({bad});
        QVERIFY(failed.wait(20000));
        QVERIFY(!w.lastError().isEmpty());
        QCOMPARE(failed.first().first().toString(), w.lastError());
        QVERIFY(!w.trace());
    }

    void recentFilesRemembered()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        MainWindow w;
        const QString path = test::publicTrace("ascend_torchnpu_level1_2rank/rank1_ascend_pt");
        QVERIFY(openAndWait(w, path));
        QCOMPARE(w.recentFiles().value(0), QFileInfo(path).absoluteFilePath());
        QVERIFY(w.statusText().contains(QStringLiteral("rank 1")));
    }

    void layoutRemembered()
    {
        {
            MainWindow w;
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            auto* dock = w.findChild<QDockWidget*>(QStringLiteral("findingsDock"));
            QVERIFY(dock);
            dock->hide();
            w.bottomTabs()->setCurrentWidget(w.searchPane());
            w.close();
        }
        MainWindow again;
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QVERIFY(!again.findChild<QDockWidget*>(QStringLiteral("findingsDock"))->isVisible());
        QCOMPARE(again.bottomTabs()->currentWidget(), again.searchPane());
        QSettings().remove(QStringLiteral("window"));
    }

    void bottomTabSlot()
    {
        MainWindow w;
        auto* pane = new QWidget;
        const int before = w.bottomTabs()->count();
        w.addBottomTab(pane, QStringLiteral("Steps"));
        QCOMPARE(w.bottomTabs()->count(), before + 1);
        QCOMPARE(w.bottomTabs()->widget(before), pane);
    }

    // No argument opens the bundled sample: the two ranks the README promises, as a job (the
    // Ranks heatmap, job findings, a group per rank).
    void sampleOpensAsTwoRankJob()
    {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy loaded(&w, &MainWindow::traceLoaded);
        QSignalSpy analysed(&w, &MainWindow::analysisFinished);
        w.openSample();
        QVERIFY(loaded.wait(120000));
        QVERIFY(analysed.count() > 0 || analysed.wait(120000));
        QVERIFY(w.isJob());
        QCOMPARE(w.jobSession()->job.rankCount(), std::size_t(2));
        QVERIFY2(w.statusText().contains(QStringLiteral("2 ranks")), qPrintable(w.statusText()));
        QVERIFY(w.bottomTabs()->indexOf(static_cast<QWidget*>(w.heatmap())) >= 0);
        std::set<std::string> ranks;
        for (ProcessId p = 0; p < w.trace()->processes().size(); ++p)
            ranks.insert(w.trace()->processLabel(p).substr(0, 7));
        QVERIFY(ranks.count("Rank 0 ") && ranks.count("Rank 1 "));
        // The sample's anomaly is there, and the temporary copy is not a recent file.
        QVERIFY(w.report() && !w.report()->findings.empty());
        QVERIFY(w.recentFiles().isEmpty() ||
                !w.recentFiles().first().contains(QStringLiteral("ringscope-sample")));
    }

    // The bottom tab comes back by name: a Ranks tab inserted before Steps (a job) does not
    // turn a remembered Steps into Distribution.
    void bottomTabRestoredByName()
    {
        QSettings().remove(QStringLiteral("window"));
        {
            MainWindow w;
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QSignalSpy loaded(&w, &MainWindow::traceLoaded);
            w.openSample();
            QVERIFY(loaded.wait(120000));
            QVERIFY(w.isJob()); // the Ranks tab sits before Steps now
            w.bottomTabs()->setCurrentWidget(static_cast<QWidget*>(w.stepsView()));
            w.close();
        }
        MainWindow again; // no job: no Ranks tab
        QCOMPARE(again.bottomTabs()->currentWidget(), static_cast<QWidget*>(again.stepsView()));
        QSettings().remove(QStringLiteral("window"));
    }
};

QTEST_MAIN(TstMainWindow)
#include "tst_mainwindow.moc"
