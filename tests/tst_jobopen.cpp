// Issue 26, the job as it opens: every rank in view (the compact job layout), the panes folded
// until something is selected (26.2); finding callouts only in free space, never over the bars
// they explain and never out of the view (26.3); N / P say where they are, highlight the
// finding and say when they move to another rank (26.4); the status bar names a job opened
// as "dir/" (26.8).
#include "bench/tracegen_seed.h"
#include "tests/support/openwait.h"
#include "tests/testutil.h"
#include "ui/annotations/annotationcontroller.h"
#include "ui/mainwindow.h"
#include "ui/panes/findingspane.h"
#include "ui/timeline/timelineview.h"

#include <QAction>
#include <QDockWidget>
#include <QHelpEvent>
#include <QLabel>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>
#include <QTreeWidget>

#include <map>
#include <set>

using namespace rs;

class TstJobOpen : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    gen::SeedCaseOptions m_seed;

    // Every automatic label drawn lies in the plot and over no bar; returns how many.
    int checkLabelsInFreeSpace(MainWindow& w, const char* where)
    {
        TimelineView* tl = w.timeline();
        tl->repaint();
        QCoreApplication::processEvents();
        const TimelineGeometry g = tl->timelineGeometry();
        const std::vector<QRectF> bars = tl->renderer().occupiedRects(g);
        int labels = 0;
        for (const PaintedAnnotation& pa : w.annotations()->lastPainted()) {
            const Annotation* a = w.annotations()->store()->find(pa.id);
            if (!a || !a->automatic || pa.label.isEmpty()) continue;
            ++labels;
            if (!g.plotRect().contains(pa.label)) {
                QTest::qFail(qPrintable(QStringLiteral("%1: label leaves the view").arg(where)),
                             __FILE__, __LINE__);
                return -1;
            }
            for (const QRectF& b : bars)
                if (pa.label.intersects(b)) {
                    QTest::qFail(qPrintable(QStringLiteral("%1: \"%2\" covers a bar")
                                                .arg(where, QString::fromStdString(a->text))),
                                 __FILE__, __LINE__);
                    return -1;
                }
        }
        return labels;
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RingscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_jobopen"));
        QSettings().clear();
        m_seed.ranks = 8;
        QVERIFY(gen::writeSeedCaseJob(m_dir.path().toStdString(), m_seed));
    }

    // 26.2 and 26.8: the 8-rank job at the first window's size shows every rank, per rank its
    // steps, collectives, flagged copies and compute, with the panes folded to their tabs.
    void opensOnEveryRank()
    {
        MainWindow w;
        w.resize(MainWindow::initialSize(QRect(0, 0, 1600, 1000)));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // Opened as "job/": the job is still named.
        QVERIFY(test::openAndWait(w, {m_dir.path() + QStringLiteral("/")}));
        QVERIFY(w.isJob());
        const QString name = QFileInfo(m_dir.path()).fileName();
        QVERIFY2(w.statusText().startsWith(name + QStringLiteral(" \u00b7 8 ranks")),
                 qPrintable(w.statusText()));
        QVERIFY(w.windowTitle().startsWith(name));

        QVERIFY(w.compactAction()->isChecked());
        QVERIFY(w.panesCollapsed());
        QCoreApplication::processEvents();
        const QDockWidget* panes = w.findChild<QDockWidget*>(QStringLiteral("panesDock"));
        QVERIFY(panes);
        QVERIFY2(panes->height() < 80, qPrintable(QString::number(panes->height())));
        TimelineView* tl = w.timeline();
        QVERIFY2(tl->height() > w.height() * 6 / 10, qPrintable(QString::number(tl->height())));

        // Every row of every rank on screen at once, each rank's rows in order.
        const TimelineGeometry g = tl->timelineGeometry();
        std::map<int, std::vector<RowRole>> roles;
        for (std::size_t i = 0; i < g.layout->rows().size(); ++i) {
            const TimelineRow& row = g.layout->rows()[i];
            QVERIFY(row.kind != RowKind::ProcessHeader);
            const QRectF r = g.rowRect(int(i));
            QVERIFY2(r.bottom() <= g.plotRect().bottom() + 0.5,
                     qPrintable(QStringLiteral("rank %1's row below the view").arg(row.rank)));
            roles[row.rank].push_back(row.role);
            QCOMPARE(row.rankFirst, roles[row.rank].size() == 1);
        }
        QCOMPARE(int(roles.size()), m_seed.ranks);
        for (const auto& [rank, list] : roles) {
            QCOMPARE(list.front(), RowRole::Steps);
            QCOMPARE(list[1], RowRole::Communication);
            QCOMPARE(list.back(), RowRole::Compute);
            // The copying rank has its extra copies' row.
            QCOMPARE(list.size(), std::size_t(rank == m_seed.badRank ? 4 : 3));
        }
        // The steps row shows only the ProfilerStep depth of the Python thread.
        for (const TimelineRow& row : g.layout->rows())
            if (row.role == RowRole::Steps) {
                QCOMPARE(row.depths, 1);
                const auto ids = tl->renderer().index()->row(row.track, row.firstDepth);
                QVERIFY(!ids.empty());
                QVERIFY(
                    w.trace()->str(w.trace()->slice(ids.front()).name).rfind("ProfilerStep#", 0) ==
                    0);
            }
        // The labels name the rank once and the row's kind.
        QCOMPARE(tl->renderer().rankName(g.layout->rows().front()), QStringLiteral("Rank 0"));
        QCOMPARE(tl->renderer().rowLabel(g.layout->rows().front()), QStringLiteral("Steps"));
        QVERIFY(tl->renderer().rowLabel(g.layout->rows()[1]).startsWith(QStringLiteral("HCCL")));
        // No "tracks hidden" for what compact mode leaves out: the user filtered nothing.
        QCOMPARE(tl->renderer().hiddenTrackCount(), 0);

        // A selection unfolds the panes; the choice to leave compact mode sticks for jobs.
        tl->selectNextFlagged(+1);
        QVERIFY(!w.panesCollapsed());
        QCoreApplication::processEvents();
        QVERIFY(panes->height() > 150);
        w.compactAction()->setChecked(false);
        QVERIFY(!QSettings().value(QStringLiteral("view/jobCompact"), true).toBool());
        QSettings().remove(QStringLiteral("view/jobCompact"));
        // A Python frame clicked in the call stack is on a row compact mode leaves out: the
        // view shows every row again to show it.
        w.compactAction()->setChecked(true);
        EventId python = kNone;
        for (EventId e = 0; e < w.trace()->slices().size() && python == kNone; ++e)
            if (w.trace()->str(w.trace()->slice(e).name).find("custom_attention_forward") !=
                std::string::npos)
                python = e;
        QVERIFY(python != kNone);
        QVERIFY(tl->timelineGeometry().eventRect(python).isNull());
        w.selectEvent(python);
        QVERIFY(!w.compactAction()->isChecked());
        QVERIFY(!tl->timelineGeometry().eventRect(python).isNull());
        QSettings().remove(QStringLiteral("view/jobCompact"));
    }

    // 26.3: finding labels go into free space or stay markers (text on hover), at any zoom,
    // compact or not.
    void calloutsKeepOffTheBars()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(test::openAndWait(w, {m_dir.path()}));
        TimelineView* tl = w.timeline();
        const Collective* bad = nullptr;
        for (const Collective& c : w.report()->collectives)
            if (c.anomalous && !bad) bad = &c;
        QVERIFY(bad);
        int drawn = 0, frames = 0;
        for (const bool compact : {true, false}) {
            w.compactAction()->setChecked(compact);
            for (const double context : {0.1, 1.0, 4.0}) {
                const TimeNs pad = TimeNs(double(bad->dur) * context);
                tl->zoomToRange(bad->start - pad, bad->start + bad->dur + pad);
                tl->revealEvent(bad->event);
                const int n = checkLabelsInFreeSpace(w, compact ? "compact" : "expanded");
                QVERIFY(n >= 0);
                drawn += n;
                ++frames;
            }
            tl->showAll();
            QVERIFY(checkLabelsInFreeSpace(w, "all") >= 0);
        }
        QCOMPARE(frames, 6);
        QVERIFY(drawn > 0); // some found free space
        // A label left out (or cut to its first line) shows whole over its event.
        w.compactAction()->setChecked(true);
        tl->showAll();
        tl->repaint();
        QCoreApplication::processEvents();
        const PaintedAnnotation* marker = nullptr;
        for (const PaintedAnnotation& pa : w.annotations()->lastPainted())
            if ((pa.dropped || pa.shortened) && !pa.anchor.isEmpty()) marker = &pa;
        QVERIFY(marker);
        const QPoint at = marker->anchor.center().toPoint();
        QStringList texts; // every label left out over that point
        for (const PaintedAnnotation& pa : w.annotations()->lastPainted())
            if ((pa.dropped || pa.shortened) && pa.anchor.adjusted(-2, -2, 2, 2).contains(at))
                texts << QString::fromStdString(w.annotations()->store()->find(pa.id)->text);
        QHelpEvent help(QEvent::ToolTip, at, tl->mapToGlobal(at));
        QCoreApplication::sendEvent(tl, &help);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(texts.contains(QToolTip::text()), qPrintable(QToolTip::text()));
        QToolTip::hideText();
        w.compactAction()->setChecked(true);
        QSettings().remove(QStringLiteral("view/jobCompact"));
    }

    // 26.4 and 43.2: causes and waiters are counted and walked apart. N / P go through the
    // causes (the rank that copies), Shift+N / Shift+P through every flagged op; the chip and
    // the status bar say which it is ("cause 1 of 2", "waiting 3 of 14"), what it does ("cause:
    // rank 0 copies its input", "waits 200 ms for rank 0"), and the Findings pane highlights
    // its finding.
    void nextPreviousSayWhereTheyAre()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(test::openAndWait(w, {m_dir.path()}));
        TimelineView* tl = w.timeline();
        const int bad = int(m_seed.badSteps.size());
        const int waiting = bad * (m_seed.ranks - 1);
        QCOMPARE(int(tl->flaggedSequence(TimelineView::FlaggedWalk::Causes).size()), bad);
        const int n = int(tl->flaggedSequence().size());
        QCOMPARE(n, bad + waiting);
        QVERIFY2(
            w.statusText().contains(QStringLiteral("%1 causes · %2 waiting").arg(bad).arg(waiting)),
            qPrintable(w.statusText()));
        QVERIFY(!w.statusText().contains(QStringLiteral("flagged")));
        QLabel* label = w.flaggedLabel();
        QVERIFY(!label->isVisible());
        auto checkFinding = [&](EventId e) {
            const int f = w.findingsPane()->highlighted();
            QVERIFY2(f >= 0, qPrintable(label->text()));
            const Finding& fd = w.report()->findings[std::size_t(f)];
            QVERIFY(std::find(fd.events.begin(), fd.events.end(), e) != fd.events.end());
            QCOMPARE(w.findingsPane()->tree()->selectedItems().size(), 1);
        };
        // N: the causes only, in time order, then around.
        for (int k = 1; k <= bad; ++k) {
            QTest::keyClick(tl, Qt::Key_N);
            const EventId e = tl->selectedEvent();
            QTRY_VERIFY(
                tl->timelineGeometry().plotRect().intersects(tl->timelineGeometry().eventRect(e)));
            const Collective* c = w.report()->collectiveOf(e);
            QVERIFY(c && c->anomalous);
            QCOMPARE(w.jobSession()->job.blockOfEvent(e), m_seed.badRank);
            const auto place = tl->flaggedPlace(e);
            QVERIFY(place && place->role == flagged::Role::Cause);
            QCOMPARE(place->k, k);
            QCOMPARE(place->n, bad);
            QVERIFY(label->isVisible());
            QVERIFY2(label->text().startsWith(QStringLiteral("cause %1 of %2").arg(k).arg(bad)),
                     qPrintable(label->text()));
            QVERIFY2(label->text().startsWith(
                         QStringLiteral("cause %1 of %2: rank %3 copies its input (extra Memcpy "
                                        "200 ms)")
                             .arg(k)
                             .arg(bad)
                             .arg(m_seed.badRank)),
                     qPrintable(label->text()));
            QVERIFY(tl->flaggedChip().startsWith(
                QStringLiteral("cause %1 of %2 · rank %3").arg(k).arg(bad).arg(m_seed.badRank)));
            QVERIFY(!tl->flaggedChipRect().isEmpty());
            QVERIFY(tl->flaggedChipRect().bottom() <= tl->timelineGeometry().rulerHeight);
            checkFinding(e);
        }
        const EventId lastCause = tl->selectedEvent();
        QTest::keyClick(tl, Qt::Key_N); // wraps to the first cause
        QCOMPARE(tl->flaggedPlace(tl->selectedEvent())->k, 1);
        QTest::keyClick(tl, Qt::Key_P);
        QCOMPARE(tl->selectedEvent(), lastCause);
        // Shift+N: from the last cause on through its waiters, every op.
        std::set<int> ranks;
        int waiters = 0;
        for (int i = 0; i < m_seed.ranks - 1; ++i) {
            QTest::keyClick(tl, Qt::Key_N, Qt::ShiftModifier);
            const EventId e = tl->selectedEvent();
            const auto place = tl->flaggedPlace(e);
            QVERIFY(place && place->role == flagged::Role::Waiting);
            ++waiters;
            QCOMPARE(place->n, waiting);
            QVERIFY2(label->text().startsWith(
                         QStringLiteral("waiting %1 of %2").arg(place->k).arg(waiting)),
                     qPrintable(label->text()));
            QVERIFY2(label->text().contains(
                         QStringLiteral("waits 200 ms for rank %1").arg(m_seed.badRank)),
                     qPrintable(label->text()));
            QVERIFY(label->text().contains(QStringLiteral("step ")));
            const int rank =
                w.jobSession()->job.rankIds[std::size_t(w.jobSession()->job.blockOfEvent(e))];
            QVERIFY(label->text().contains(QStringLiteral("rank %1").arg(rank)) ||
                    tl->flaggedChip().contains(QStringLiteral("rank %1").arg(rank)));
            ranks.insert(rank);
            checkFinding(e);
        }
        QCOMPARE(int(ranks.size()), m_seed.ranks - 1);
        QCOMPARE(waiters, m_seed.ranks - 1);
        // All of them: n Shift+N presses come back where they started.
        const EventId start = tl->selectedEvent();
        for (int i = 0; i < n; ++i)
            QTest::keyClick(tl, Qt::Key_N, Qt::ShiftModifier);
        QCOMPARE(tl->selectedEvent(), start);
        // From a waiter N goes on to a cause.
        QTest::keyClick(tl, Qt::Key_N);
        QVERIFY(w.report()->collectiveOf(tl->selectedEvent())->anomalous);
        // Anything else selected: no chip.
        w.selectEvent(w.report()->steps.front().event);
        QVERIFY(tl->flaggedChip().isEmpty());
        QVERIFY(!label->isVisible());
    }
};

QTEST_MAIN(TstJobOpen)
#include "tst_jobopen.moc"
