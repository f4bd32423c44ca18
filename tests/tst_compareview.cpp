// The compare window (two runs side by side, axes aligned by step, the diff table selecting in
// both), the scaling chart, their image exports, and File > Compare….
#include "bench/tracegen_seed.h"
#include "core/compare/runloader.h"
#include "tests/support/summaryfixture.h"
#include "tests/testutil.h"
#include "ui/compare/comparedialog.h"
#include "ui/compare/comparetablemodel.h"
#include "ui/compare/comparewindow.h"
#include "ui/compare/scalingview.h"
#include "ui/mainwindow.h"
#include "ui/timeline/timelineview.h"

#include <qcustomplot.h>

#include <QAction>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QMenuBar>
#include <QProgressBar>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace rs;

namespace {

struct Runs {
    QTemporaryDir root;
    QString before, after;
};

// The seed case before and after the fix: 4 ranks, steps 40..43, rank 0 copies in 41 and 43.
std::unique_ptr<Runs> seedRuns(bool kineto = false)
{
    auto r = std::make_unique<Runs>();
    gen::SeedCaseOptions o;
    o.ranks = 4;
    o.steps = 4;
    o.kineto = kineto;
    o.badSteps = {1, 3};
    r->before = r->root.filePath("before");
    r->after = r->root.filePath("after");
    if (!gen::writeSeedCaseJob(r->before.toStdString(), o)) return nullptr;
    o.badSteps.clear();
    if (!gen::writeSeedCaseJob(r->after.toStdString(), o)) return nullptr;
    return r;
}

bool waitLoaded(CompareWindow& w)
{
    QSignalSpy ok(&w, &CompareWindow::loaded);
    QSignalSpy failed(&w, &CompareWindow::loadFailed);
    for (int i = 0; i < 600 && ok.isEmpty() && failed.isEmpty(); ++i)
        QTest::qWait(100);
    return !ok.isEmpty();
}

int rowOf(const CompareTableModel& m, CompareRow::Kind kind, int step = -1)
{
    for (int i = 0; i < m.rowCount(); ++i)
        if (m.row(i).kind == kind && (step < 0 || m.row(i).step == step)) return i;
    return -1;
}

} // namespace

class TstCompareView : public QObject {
    Q_OBJECT
private slots:
    void sideBySideAlignedByStep()
    {
        auto runs = seedRuns();
        QVERIFY(runs);
        CompareWindow w;
        w.resize(1400, 950);
        w.show();
        // Progress is pushed as the ranks read (no polling timer).
        auto* bar = w.findChild<QProgressBar*>();
        QVERIFY(bar);
        int most = 0;
        connect(bar, &QProgressBar::valueChanged, this, [&](int v) { most = std::max(most, v); });
        w.compare(runs->before, runs->after);
        QVERIFY(w.isLoading());
        QVERIFY2(waitLoaded(w), qPrintable(w.lastError()));
        QVERIFY(!w.isLoading());
        QVERIFY2(most > 0, "no progress pushed");
        const RunComparison* c = w.comparison();
        QVERIFY(c);
        QCOMPARE(c->before.rankIds.size(), size_t(4));
        QVERIFY(*c->stepDeltaNs() < 0);
        QVERIFY(w.alignment().byNumber());
        QCOMPARE(w.alignment().pairs().size(), size_t(4));

        TimelineView* a = w.beforeView();
        TimelineView* b = w.afterView();
        // It opens on the step that changed most (41: rank 0 copied before the fix) with the
        // AllReduce selected in both: the anomalous one before, rank 0's after.
        {
            const Collective* ob =
                w.beforeRun()->session->combined->collectiveOf(a->selectedEvent());
            const Collective* oa =
                w.afterRun()->session->combined->collectiveOf(b->selectedEvent());
            QVERIFY(ob && oa);
            QVERIFY(ob->anomalous);
            QCOMPARE(*ob->step, 41);
            QCOMPARE(*oa->step, 41);
            QCOMPARE(*oa->rank, *ob->rank);
            QVERIFY(a->visibleStart() <= ob->start && a->visibleEnd() >= ob->start + ob->dur);
        }

        // Step 41 shown in both at one scale, starts aligned.
        QVERIFY(w.showStep(41));
        const auto pair = *w.alignment().pairOf(41, true);
        QCOMPARE(a->visibleEnd() - a->visibleStart(), b->visibleEnd() - b->visibleStart());
        QCOMPARE(a->visibleStart() - pair.first.start, b->visibleStart() - pair.second.start);
        // The before step is 720 ms, the after one 520 ms: the range fits the longer.
        QVERIFY(a->visibleEnd() - a->visibleStart() >= 720'000'000);
        QVERIFY(a->selectedEvent() != kNone);
        QCOMPARE(a->trace()->str(a->trace()->slice(a->selectedEvent()).name),
                 std::string("ProfilerStep#41"));

        // Zooming one view moves the other to the same place of the same step.
        const TimeNs t0 = pair.first.start + 100'000'000, t1 = t0 + 200'000'000;
        a->setVisibleRange(t0, t1);
        QCOMPARE(b->visibleStart(), pair.second.start + 100'000'000);
        QCOMPARE(b->visibleEnd() - b->visibleStart(), TimeNs(200'000'000));
        // ... and back the other way.
        b->setVisibleRange(pair.second.start + 5'000'000, pair.second.start + 55'000'000);
        QCOMPARE(a->visibleStart(), pair.first.start + 5'000'000);
        // Unlinked: each view on its own.
        w.setLinked(false);
        a->setVisibleRange(t0, t1);
        QCOMPARE(b->visibleStart(), pair.second.start + 5'000'000);
        w.setLinked(true);
        QCOMPARE(b->visibleStart(), pair.second.start + 100'000'000);

        // The table: 4 steps, the AllReduce group, ops whose time changed.
        CompareTableModel* m = w.model();
        QCOMPARE(m->row(0).kind, CompareRow::Step);
        const int collective = rowOf(*m, CompareRow::Collective);
        QVERIFY(collective >= 0);
        QVERIFY(rowOf(*m, CompareRow::Op) >= 0);
        QCOMPARE(m->rowCount(),
                 4 + 1 + int(std::count_if(c->ops.begin(), c->ops.end(), [](const OpDelta& o) {
                     return o.deltaNs() != 0;
                 })));

        // Clicking the collective row selects the anomalous AllReduce (the longest) before and
        // the same rank's AllReduce of the same step after.
        QVERIFY(w.activateRow(collective));
        const EventId eb = a->selectedEvent(), ea = b->selectedEvent();
        QVERIFY(eb != kNone && ea != kNone);
        const ReportPtr rb = w.beforeRun()->session->combined, ra = w.afterRun()->session->combined;
        const Collective* cb = rb->collectiveOf(eb);
        const Collective* ca = ra->collectiveOf(ea);
        QVERIFY(cb && ca);
        QVERIFY(cb->anomalous);
        QCOMPARE(*cb->rank, 0);
        QCOMPARE(*ca->rank, 0);
        QCOMPARE(*ca->step, *cb->step);
        QVERIFY(!ca->anomalous);
        QVERIFY(a->visibleStart() <= cb->start && a->visibleEnd() >= cb->start + cb->dur);

        // A step row zooms both to that step.
        QVERIFY(w.activateRow(rowOf(*m, CompareRow::Step, 43)));
        QCOMPARE(a->trace()->str(a->trace()->slice(a->selectedEvent()).name),
                 std::string("ProfilerStep#43"));
        QCOMPARE(b->trace()->str(b->trace()->slice(b->selectedEvent()).name),
                 std::string("ProfilerStep#43"));
        // The last step: the shorter run's view is held at its trace end, the other moves as
        // much, and the step starts stay over each other.
        const auto last = *w.alignment().pairOf(43, true);
        QCOMPARE(a->visibleStart() - last.first.start, b->visibleStart() - last.second.start);
        QCOMPARE(a->visibleEnd() - a->visibleStart(), b->visibleEnd() - b->visibleStart());

        // Sorting by delta puts the largest saving first (sort by number, not by text).
        w.table()->sortByColumn(CompareTableModel::Delta, Qt::AscendingOrder);
        const QModelIndex first = w.filterModel()->index(0, 0);
        const CompareRow& top = m->row(w.filterModel()->mapToSource(first).row());
        for (const CompareRow& r : m->rows())
            if (r.delta()) QVERIFY(*top.delta() <= *r.delta());
        // Filtering to one kind.
        w.filterModel()->setKind(CompareRow::Step);
        QCOMPARE(w.filterModel()->rowCount(), 4);
        w.filterModel()->setKind(std::nullopt);
        w.filterModel()->setText("ProfilerStep"); // matches no row name
        QCOMPARE(w.filterModel()->rowCount(), 0);
        w.filterModel()->setText({});

        // Export: the two timelines under a header, in each format.
        QTemporaryDir out;
        QString error;
        QVERIFY2(w.writeImage(out.filePath("c.png"), &error), qPrintable(error));
        const QImage img(out.filePath("c.png"));
        QCOMPARE(img.width(), 1600);
        QVERIFY(img.height() > 600);
        QVERIFY2(w.writeImage(out.filePath("c.svg"), &error), qPrintable(error));
        QFile svg(out.filePath("c.svg"));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray text = svg.readAll();
        QVERIFY(text.contains("Before"));
        QVERIFY(text.contains("After"));
        QVERIFY(text.contains("step time"));
        QVERIFY2(w.writeImage(out.filePath("c.pdf"), &error), qPrintable(error));
        QVERIFY(QFileInfo(out.filePath("c.pdf")).size() > 1000);
        QVERIFY(!w.writeImage(out.filePath("c.bmp"), &error));
        if (!qEnvironmentVariableIsEmpty("RINGSCOPE_SHOTS"))
            w.grab().save(qEnvironmentVariable("RINGSCOPE_SHOTS") + "/compare.png");
    }

    // Issue 26.11: the window opens on the rank that copies (here rank 3, not the first rank
    // that waited for it), and the exported image draws the timelines' names in their own
    // font, not the headline's large bold one that cut their underscores off.
    void opensOnTheFlaggedRankAndKeepsNames()
    {
        auto r = std::make_unique<Runs>();
        gen::SeedCaseOptions o;
        o.ranks = 4;
        o.steps = 4;
        o.badSteps = {1, 3};
        o.badRank = 3;
        r->before = r->root.filePath("before");
        r->after = r->root.filePath("after");
        QVERIFY(gen::writeSeedCaseJob(r->before.toStdString(), o));
        o.badSteps.clear();
        QVERIFY(gen::writeSeedCaseJob(r->after.toStdString(), o));
        CompareWindow w;
        w.resize(1400, 950);
        w.show();
        w.compare(r->before, r->after);
        QVERIFY2(waitLoaded(w), qPrintable(w.lastError()));
        const Collective* ob =
            w.beforeRun()->session->combined->collectiveOf(w.beforeView()->selectedEvent());
        const Collective* oa =
            w.afterRun()->session->combined->collectiveOf(w.afterView()->selectedEvent());
        QVERIFY(ob && oa);
        QVERIFY(ob->anomalous);
        QCOMPARE(*ob->rank, 3);
        QCOMPARE(*oa->rank, 3);
        // Its row is on screen in both panes.
        for (TimelineView* v : {w.beforeView(), w.afterView()}) {
            const QRectF box = v->timelineGeometry().eventRect(v->selectedEvent());
            QVERIFY(!box.isEmpty() && v->timelineGeometry().plotRect().intersects(box));
        }
        // The SVG: the op's name is drawn whole, in a font that is neither the headline's size
        // nor bold.
        QTemporaryDir out;
        QString error;
        QVERIFY2(w.writeImage(out.filePath("c.svg"), &error), qPrintable(error));
        QFile svg(out.filePath("c.svg"));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(svg.readAll());
        const QString name = QString::fromStdString(ob->name);
        QVERIFY2(name.contains('_'), qPrintable(name));
        const qsizetype at = text.indexOf(name);
        QVERIFY2(at > 0, qPrintable(name));
        // The group that draws it carries the font.
        const qsizetype group = text.lastIndexOf(QStringLiteral("<g "), at);
        const QString attrs = text.mid(group, text.indexOf('>', group) - group);
        QVERIFY2(!attrs.contains(QStringLiteral("font-weight=\"700\"")), qPrintable(attrs));
        const QRegularExpression size(QStringLiteral("font-size=\"([0-9.]+)\""));
        const auto m = size.match(attrs);
        QVERIFY2(m.hasMatch(), qPrintable(attrs));
        QVERIFY2(m.captured(1).toDouble() < 13, qPrintable(attrs));
    }

    // Issue 26.12: a delta under the noise of the measurement is neutral in the table (not
    // red for +8 ns, no "-0.0%"); one above it keeps its colour.
    void deltasWithinNoiseAreNeutral()
    {
        RunDigest a, b;
        a.steps = {{40, 1, 587'000'000}, {41, 1, 587'000'000}};
        b.steps = {{40, 1, 587'000'008}, {41, 1, 650'000'000}};
        const RunComparison c = compareRuns(a, b);
        CompareTableModel m;
        m.setComparison(&c);
        QCOMPARE(m.rowCount(), 2);
        const QModelIndex d0 = m.index(0, CompareTableModel::Delta);
        QCOMPARE(m.data(d0, Qt::DisplayRole).toString(), QStringLiteral("+8 ns"));
        QVERIFY(!m.data(d0, Qt::ForegroundRole).isValid());
        QCOMPARE(m.data(m.index(0, CompareTableModel::DeltaPct), Qt::DisplayRole).toString(),
                 QStringLiteral("0.0%"));
        QVERIFY(m.data(m.index(1, CompareTableModel::Delta), Qt::ForegroundRole).isValid());
    }

    void kinetoRunsAndLoadErrors()
    {
        auto runs = seedRuns(true);
        QVERIFY(runs);
        CompareWindow w;
        w.compare(runs->before, runs->after);
        QVERIFY2(waitLoaded(w), qPrintable(w.lastError()));
        QVERIFY(w.comparison()->collectives.size() >= 1);
        QVERIFY(w.activateRow(rowOf(*w.model(), CompareRow::Collective)));
        QVERIFY(w.beforeView()->selectedEvent() != kNone);

        CompareWindow bad;
        QSignalSpy failed(&bad, &CompareWindow::loadFailed);
        bad.compare(runs->before, runs->root.filePath("nothing-here"));
        QVERIFY(failed.wait(60000));
        QVERIFY(!bad.comparison());
        QVERIFY(bad.lastError().contains("nothing-here"));
    }

    // Two public runs of one job (ranks 0 and 1 of the Level1 job) side by side.
    void publicRuns()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        const QString job = test::publicTrace("ascend_torchnpu_level1_2rank");
        CompareWindow w;
        w.resize(1400, 950);
        w.show();
        w.compare(job + "/rank0_ascend_pt", job + "/rank1_ascend_pt");
        QVERIFY2(waitLoaded(w), qPrintable(w.lastError()));
        QVERIFY(w.alignment().byNumber());
        QCOMPARE(w.alignment().pairs().size(), size_t(1)); // ProfilerStep#50 on both
        QCOMPARE(w.alignment().pairs()[0].first.step, 50);
        // Opened on step 50 with an hcom_allReduce selected on both sides.
        for (TimelineView* v : {w.beforeView(), w.afterView()}) {
            QVERIFY(v->selectedEvent() != kNone);
            QVERIFY(v->trace()
                        ->str(v->trace()->slice(v->selectedEvent()).name)
                        .rfind("hcom_allReduce", 0) == 0);
        }
        // An op row (a compute kernel both ranks ran) selects that kernel in both.
        const CompareTableModel& m = *w.model();
        int op = -1;
        for (int i = 0; i < m.rowCount() && op < 0; ++i)
            if (m.row(i).kind == CompareRow::Op && m.row(i).key.rfind("aclnn", 0) == 0) op = i;
        QVERIFY(op >= 0);
        QVERIFY(w.activateRow(op));
        for (TimelineView* v : {w.beforeView(), w.afterView()})
            QCOMPARE(v->trace()->str(v->trace()->slice(v->selectedEvent()).name), m.row(op).key);
        if (!qEnvironmentVariableIsEmpty("RINGSCOPE_SHOTS"))
            w.grab().save(qEnvironmentVariable("RINGSCOPE_SHOTS") + "/compare_public.png");
    }

    void scalingChart()
    {
        std::vector<RunDigest> runs(4);
        const int cards[] = {1, 8, 16, 32};
        const TimeNs step[] = {120'000'000, 18'000'000, 11'500'000, 9'000'000};
        for (int i = 0; i < 4; ++i) {
            runs[i].path = "cards" + std::to_string(cards[i]);
            runs[i].cards = cards[i];
            runs[i].stepMeanNs = step[i];
        }
        ScalingWindow w;
        w.resize(1000, 760);
        w.show();
        QSignalSpy ok(&w, &ScalingWindow::loaded);
        w.setDigests(runs, false);
        QCOMPARE(ok.size(), 1);
        ScalingView* v = w.view();
        QCOMPARE(v->efficiencyGraph()->data()->size(), 4);
        QCOMPARE(v->stepTimeGraph()->data()->size(), 4);
        QVERIFY(std::abs(v->efficiencyGraph()->data()->at(3)->value - 100.0 * 120 / 288.0) < 1e-9);
        QCOMPARE(v->efficiencyGraph()->data()->at(3)->key, 5.0); // log2(32)
        QCOMPARE(v->stepTimeGraph()->data()->at(0)->value, 120.0);
        QCOMPARE(w.table()->rowCount(), 4);
        QCOMPARE(w.table()->item(3, 4)->text(), QString("41.7%"));
        QVERIFY(v->toolTipAt(QPoint(int(v->plot()->xAxis->coordToPixel(5.0)), 100))
                    .contains("efficiency 41.7%"));
        QTemporaryDir out;
        QString error;
        for (const char* f : {"s.png", "s.svg", "s.pdf"})
            QVERIFY2(
                exportScalingPlot(v->points(), false, out.filePath(f), QSize(900, 600), &error),
                qPrintable(error));
        QCOMPARE(QImage(out.filePath("s.png")).size(), QSize(900, 600));
        QVERIFY(
            !exportScalingPlot(v->points(), false, out.filePath("s.gif"), QSize(900, 600), &error));
        if (!qEnvironmentVariableIsEmpty("RINGSCOPE_SHOTS"))
            w.grab().save(qEnvironmentVariable("RINGSCOPE_SHOTS") + "/scaling.png");
    }

    void scalingWindowLoadsRuns()
    {
        QTemporaryDir root;
        QStringList paths;
        for (int cards : {1, 4}) {
            gen::SeedCaseOptions o;
            o.ranks = cards;
            o.steps = 2;
            o.badSteps.clear();
            o.computeNs = 80'000'000 / cards;
            o.allReduceNs = cards > 1 ? 4'000'000 : 0;
            paths << root.filePath(QString("c%1").arg(cards));
            QVERIFY(gen::writeSeedCaseJob(paths.back().toStdString(), o));
        }
        ScalingWindow w;
        QSignalSpy ok(&w, &ScalingWindow::loaded);
        // Progress is pushed as the runs load (no polling timer): the bar passes half way
        // when the first of the two runs is done.
        auto* bar = w.findChild<QProgressBar*>();
        QVERIFY(bar);
        int most = 0;
        connect(bar, &QProgressBar::valueChanged, this, [&](int v) { most = std::max(most, v); });
        w.measure(paths, false);
        QVERIFY(w.isLoading());
        QVERIFY(ok.wait(60000));
        QVERIFY2(most >= 500, qPrintable(QString::number(most)));
        const auto& p = w.view()->points();
        QCOMPARE(p.size(), size_t(2));
        QCOMPARE(p[1].cards, 4);
        QCOMPARE(*p[1].stepMeanNs, TimeNs(24'000'000));
        QVERIFY(std::abs(*p[1].efficiency - 80.0 / (4 * 24.0)) < 1e-9);
    }

    void opensSummariesFolder()
    {
        // BEFORE as a folder of rank summaries (issue 17.2): a job without traces, compared
        // with AFTER's traces as the traces compare; the ops are said to be not available.
        auto runs = seedRuns();
        QVERIFY(runs);
        const QString summaries = runs->root.filePath("before-summaries");
        std::string error;
        QVERIFY2(test::writeJobSummaries(runs->before.toStdString(), summaries.toStdString(),
                                         &error, true)
                         .size() == 4,
                 error.c_str());
        CompareWindow w;
        w.resize(1400, 950);
        w.show();
        w.compare(summaries, runs->after);
        QVERIFY2(waitLoaded(w), qPrintable(w.lastError()));
        QVERIFY(w.beforeRun()->session->fromSummaries());
        const RunComparison* c = w.comparison();
        QVERIFY(c);
        QVERIFY(c->before.fromSummaries && !c->after.fromSummaries);
        QVERIFY(!c->opsAvailable && c->ops.empty());
        // The figures of the traces' comparison (core/compare on the same runs).
        std::vector<std::string> errors;
        const RunComparison t = compareRuns(*loadRunDigest(runs->before.toStdString(), {}, &errors),
                                            *loadRunDigest(runs->after.toStdString(), {}, &errors));
        QCOMPARE(c->before.stepMeanNs, t.before.stepMeanNs);
        QCOMPARE(c->steps.size(), t.steps.size());
        for (std::size_t i = 0; i < c->steps.size(); ++i)
            QCOMPARE(c->steps[i].deltaNs(), t.steps[i].deltaNs());
        QCOMPARE(c->collectives.size(), t.collectives.size());
        QCOMPARE(c->collectives[0].beforeExtraMemcpyNs, t.collectives[0].beforeExtraMemcpyNs);
        QCOMPARE(c->before.anomalousCount, t.before.anomalousCount);
        QCOMPARE(c->resolved.size(), t.resolved.size());
        QCOMPARE(c->added.size(), t.added.size());
        // The table: steps and the collective group, no op row; the window says why.
        QCOMPARE(rowOf(*w.model(), CompareRow::Op), -1);
        QCOMPARE(w.model()->rowCount(), 4 + 1);
        bool said = false, captioned = false;
        for (const QLabel* l : w.findChildren<QLabel*>()) {
            said = said || l->text().contains("ops: not available");
            captioned = captioned || l->text().contains("rank summaries");
        }
        QVERIFY(said && captioned);
        // It opens on the step that changed most with the anomalous AllReduce selected: on the
        // summaries' small trace before, rank 0's op after.
        const Collective* ob =
            w.beforeRun()->session->combined->collectiveOf(w.beforeView()->selectedEvent());
        const Collective* oa =
            w.afterRun()->session->combined->collectiveOf(w.afterView()->selectedEvent());
        QVERIFY(ob && oa);
        QVERIFY(ob->anomalous);
        QCOMPARE(*oa->rank, *ob->rank);
        QCOMPARE(*oa->step, *ob->step);
    }

    void fileMenuOpensCompare()
    {
        auto runs = seedRuns();
        QVERIFY(runs);
        MainWindow main;
        QAction* action = nullptr;
        for (QAction* m : main.menuBar()->actions())
            if (m->menu())
                for (QAction* a : m->menu()->actions())
                    if (a->text().startsWith("&Compare")) action = a;
        QVERIFY(action);
        CompareDialog d(runs->before);
        QCOMPARE(d.beforePath(), runs->before);
        QCOMPARE(d.mode(), CompareDialog::Mode::BeforeAfter);
        d.setPaths(runs->before, runs->after);
        QWidget* opened = d.openWindow(nullptr);
        auto* w = qobject_cast<CompareWindow*>(opened);
        QVERIFY(w);
        QVERIFY2(waitLoaded(*w), qPrintable(w->lastError()));
        w->close(); // deletes itself
        d.setMode(CompareDialog::Mode::Scaling);
        d.setScalingRuns({runs->before, runs->after});
        QCOMPARE(d.scalingRuns().size(), 2);
        auto* s = qobject_cast<ScalingWindow*>(d.openWindow(nullptr));
        QVERIFY(s);
        QSignalSpy ok(s, &ScalingWindow::loaded);
        QVERIFY(ok.wait(60000));
        QCOMPARE(s->view()->points().size(), size_t(2));
        s->close();
    }
};

QTEST_MAIN(TstCompareView)
#include "tst_compareview.moc"
