// The "Critical path" tab and the View > Critical path toggle (issue 44.3) on a 4-rank seed
// job in the viewer: the rows are the job's path of the chosen step and cover it, the per-kind
// bar sums to the step, clicking a row selects its event (on its rank) and zooms to it, the
// pane follows the step of the selection, and the toggle draws over the timeline and is saved.

#include "bench/tracegen_seed.h"
#include "tests/support/openwait.h"
#include "tests/testutil.h"
#include "ui/mainwindow.h"
#include "ui/panes/criticalpathcontroller.h"
#include "ui/panes/criticalpathpane.h"
#include "ui/timeline/timelineview.h"

#include <QAction>
#include <QComboBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace rs;
using rs::test::openAndWait;

class TstCriticalPathPane : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    gen::SeedCaseOptions m_seed;
    std::unique_ptr<MainWindow> m_w;

    CriticalPathPane* pane() const { return m_w->criticalPath()->pane(); }
    int badStep() const { return int(m_seed.stepBase) + m_seed.badSteps.front(); }

private slots:
    void initTestCase()
    {
        m_seed.ranks = 4;
        m_seed.steps = 4;
        m_seed.badSteps = {1};
        m_seed.badRank = 2;
        m_w = test::openSeedJobWindow(QStringLiteral("tst_criticalpathpane"), m_dir.path(), m_seed);
        QVERIFY(m_w);
    }

    void cleanupTestCase() { m_w.reset(); }

    // Every job step is in the chooser; the rows are its segments, in order, covering it.
    void rowsCoverTheStep()
    {
        QVERIFY(pane()->layer());
        const auto& paths = m_w->jobSession()->jobReport->criticalPath;
        QCOMPARE(pane()->stepChooser()->count(), int(paths.size()));
        QVERIFY(pane()->setStep(badStep()));
        const StepPath* p = pane()->currentPath();
        QVERIFY(p);
        QCOMPARE(pane()->stepChooser()->currentData().toInt(), badStep());
        QAbstractItemModel* m = pane()->table()->model();
        QCOMPARE(m->rowCount(), int(p->segments.size()));
        TimeNs at = p->start;
        TimeNs sum = 0;
        for (int row = 0; row < m->rowCount(); ++row) {
            const PathSegment& s = p->segments[std::size_t(row)];
            QCOMPARE(s.start, at);
            at = s.end;
            sum += s.end - s.start;
            QCOMPARE(m->index(row, CriticalPathModel::RankColumn).data().toInt(), *s.rank);
            QCOMPARE(m->index(row, CriticalPathModel::KindColumn).data().toString(),
                     CriticalPathLayer::kindLabel(s.kind));
            QCOMPARE(m->index(row, CriticalPathModel::NameColumn).data().toString(),
                     QString::fromStdString(s.name));
        }
        QCOMPARE(at, p->end);
        QCOMPARE(sum, p->end - p->start);
        // The same path the job report holds for that step (times and kinds).
        const auto it = std::find_if(paths.begin(), paths.end(),
                                     [&](const StepPath& x) { return x.step == badStep(); });
        QVERIFY(it != paths.end());
        QCOMPARE(it->segments.size(), p->segments.size());
        for (std::size_t i = 0; i < p->segments.size(); ++i) {
            QCOMPARE(it->segments[i].start, p->segments[i].start);
            QCOMPARE(it->segments[i].kind, p->segments[i].kind);
            QCOMPARE(it->segments[i].rank, p->segments[i].rank);
        }
    }

    // The bar's parts are the step's time per kind: they sum to the step, and each kind's
    // width is its share of the bar.
    void kindBarSumsToTheStep()
    {
        QVERIFY(pane()->setStep(badStep()));
        const StepPath* p = pane()->currentPath();
        m_w->setPanesCollapsed(false);
        m_w->bottomTabs()->setCurrentWidget(pane());
        QVERIFY(QTest::qWaitForWindowExposed(pane()->kindBar()));
        const auto& by = pane()->kindBar()->byKind();
        TimeNs sum = 0;
        for (TimeNs v : by)
            sum += v;
        QCOMPARE(sum, p->end - p->start);
        QVERIFY2(by[std::size_t(PathKind::InternalMemcpy)] > 0,
                 "the mode-B step waits on the copying rank's internal memcpy");
        double width = 0;
        for (int k = 0; k < kPathKinds; ++k) {
            const QRectF r = pane()->kindBar()->partRect(PathKind(k));
            QCOMPARE(r.isEmpty(), by[std::size_t(k)] == 0);
            width += r.width();
        }
        QVERIFY(std::abs(width - (pane()->kindBar()->width() - 8)) < 0.5);
    }

    // A click on the internal memcpy's row selects its collective on the copying rank and
    // zooms the timeline to the segment.
    void clickSelectsTheEvent()
    {
        QVERIFY(pane()->setStep(badStep()));
        const StepPath* p = pane()->currentPath();
        int row = -1;
        for (std::size_t i = 0; i < p->segments.size() && row < 0; ++i)
            if (p->segments[i].kind == PathKind::InternalMemcpy) row = int(i);
        QVERIFY(row >= 0);
        const PathSegment& s = p->segments[std::size_t(row)];
        QVERIFY(s.event != kNone);
        m_w->setPanesCollapsed(false);
        m_w->bottomTabs()->setCurrentWidget(pane());
        QTableView* t = pane()->table();
        QVERIFY(QTest::qWaitForWindowExposed(t));
        t->scrollTo(t->model()->index(row, 0));
        const QRect cell = t->visualRect(t->model()->index(row, CriticalPathModel::NameColumn));
        QVERIFY(!cell.isEmpty());
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, cell.center());
        QTRY_COMPARE(m_w->session()->selection(), s.event);
        QCOMPARE(m_w->timeline()->selectedEvent(), s.event);
        QCOMPARE(m_w->session()->rankOf(s.event), std::optional<int>(m_seed.badRank));
        // The segment is in view.
        QVERIFY(m_w->timeline()->visibleStart() <= s.start);
        QVERIFY(m_w->timeline()->visibleEnd() >= s.end);
        QCOMPARE(pane()->step(), badStep());
    }

    // Selecting an event of another step moves the pane to that step.
    void followsTheSelectedStep()
    {
        const int other = int(m_seed.stepBase) + 3;
        QVERIFY(pane()->setStep(badStep()));
        EventId e = kNone;
        for (const StepStats& st : m_w->report()->steps)
            if (st.step == other && st.event != kNone) e = st.event;
        QVERIFY(e != kNone);
        m_w->selectEvent(e);
        QTRY_COMPARE(pane()->step(), other);
        QCOMPARE(pane()->stepChooser()->currentData().toInt(), other);
    }

    // The toggle draws the path over the tracks, and is kept for the next window.
    void toggleDrawsAndPersists()
    {
        CriticalPathController* c = m_w->criticalPath();
        QAction* toggle = c->toggleAction();
        QVERIFY(!toggle->shortcut().isEmpty());
        toggle->setChecked(false);
        TimelineView* v = m_w->timeline();
        const StepPath* p = pane()->layer()->path(badStep());
        v->zoomToRange(p->start, p->end);
        QTest::qWait(50);
        const QImage plain = v->grab().toImage();
        toggle->setChecked(true);
        QVERIFY(c->isShown());
        QVERIFY(QSettings().value(QStringLiteral("view/criticalPath")).toBool());
        QTest::qWait(50);
        const QImage drawn = v->grab().toImage();
        QCOMPARE(plain.size(), drawn.size());
        QVERIFY(plain != drawn);
        QVERIFY(pane()->layer()->lastStats().pieces > 0);
        // A new window starts with it on.
        {
            MainWindow second;
            QVERIFY(second.criticalPath()->toggleAction()->isChecked());
            QVERIFY(second.criticalPath()->isShown());
        }
        toggle->setChecked(false);
        QVERIFY(!c->isShown());
        QVERIFY(!QSettings().value(QStringLiteral("view/criticalPath")).toBool());
    }
};

QTEST_MAIN(TstCriticalPathPane)
#include "tst_criticalpathpane.moc"
