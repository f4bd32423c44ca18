// The Communication tab: the matrix model equals the report's matrix (one public Level1 rank,
// the two public ranks as a job, the 8-rank seed job with global ranks), a click on a cell
// lists and selects its transfer tasks, and the controls, axes and cell labels do not overlap.

#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/job/jobloader.h"
#include "core/traceloader.h"
#include "tests/testutil.h"
#include "ui/comm/commmatrixview.h"
#include "ui/job/jobsession.h"
#include "ui/mainwindow.h"
#include "ui/plots/plotexport.h"
#include "ui/theme/theme.h"
#include "ui/timeline/timelineview.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QDockWidget>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include <cmath>
#include <map>

using namespace rs;

namespace {

bool isTotal(const std::string& g)
{
    return g.size() > 6 && g.compare(g.size() - 6, 6, "-total") == 0;
}

JobSessionPtr openJob(const std::vector<std::string>& paths)
{
    std::string error;
    const auto inputs = discoverJob(paths, &error);
    if (inputs.size() < 2) {
        qWarning("not a job: %s", error.c_str());
        return nullptr;
    }
    return buildJobSession(inputs, paths.front(), nullptr);
}

// Every matrix entry of every report is the cell of its scope (step, op group): same bytes,
// time, GB/s and transport, when each (scope, src, dst) comes from one rank; `global` maps a
// report's group rank to the global rank the model must show.
void compareEntries(CommMatrixModel& model, const std::vector<ReportPtr>& reports,
                    const std::function<int(std::size_t, const MatrixEntry&, int)>& global)
{
    std::size_t compared = 0;
    for (std::size_t b = 0; b < reports.size(); ++b) {
        for (const MatrixEntry& m : reports[b]->matrix) {
            model.setScope(m.step, QString::fromStdString(m.opGroup));
            const int src = global(b, m, m.src), dst = global(b, m, m.dst);
            const CommCell* c = model.cell(src, dst);
            QVERIFY2(c, qPrintable(QStringLiteral("no cell %1-%2 for %3")
                                       .arg(src)
                                       .arg(dst)
                                       .arg(QString::fromStdString(m.opGroup))));
            QCOMPARE(c->parts.size(), std::size_t(1));
            QCOMPARE(c->parts.front().entry, &m);
            QCOMPARE(c->bytes, m.bytes);
            QCOMPARE(c->ns, m.ns);
            QCOMPARE(c->transport, m.transport);
            QVERIFY(std::abs(c->gbps() - m.gbps) < 1e-9);
            QCOMPARE(c->tasks, m.tasks);
            const double peak = linkPeak(reports[b]->options, m.transport);
            if (std::isfinite(peak))
                QVERIFY(std::abs(c->utilization() - m.gbps / peak) < 1e-9);
            else
                QVERIFY(std::isnan(c->utilization()));
            ++compared;
        }
    }
    QVERIFY(compared > 0);
    // All steps, all ops: the sum of every "-total" entry of each link.
    model.setScope(std::nullopt, QString());
    std::map<std::pair<int, int>, std::pair<std::uint64_t, TimeNs>> sums;
    for (std::size_t b = 0; b < reports.size(); ++b)
        for (const MatrixEntry& m : reports[b]->matrix)
            if (isTotal(m.opGroup)) {
                auto& s = sums[{global(b, m, m.src), global(b, m, m.dst)}];
                s.first += m.bytes;
                s.second += m.ns;
            }
    QVERIFY(!sums.empty());
    int cells = 0;
    for (int r = 0; r < model.rowCount(); ++r)
        for (int c = 0; c < model.columnCount(); ++c)
            cells += model.cellAt(r, c) != nullptr;
    QCOMPARE(cells, int(sums.size()));
    for (const auto& [k, s] : sums) {
        const CommCell* c = model.cell(k.first, k.second);
        QVERIFY(c);
        QCOMPARE(c->bytes, s.first);
        QCOMPARE(c->ns, s.second);
    }
}

int sameRank(std::size_t, const MatrixEntry&, int local)
{
    return local;
}

} // namespace

class TstCommView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RingscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_commview"));
        QSettings().clear();
    }

    void mainWindowSelectsTransfers()
    {
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 8;
        o.steps = 3;
        o.badSteps = {1};
        o.badRank = 2;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy loaded(&w, &MainWindow::traceLoaded);
        QSignalSpy analysed(&w, &MainWindow::analysisFinished);
        w.openPaths({dir.path()});
        QVERIFY(loaded.wait(180000));
        QVERIFY(analysed.count() > 0 || analysed.wait(180000));
        QVERIFY(w.isJob());
        CommMatrixView* view = w.commView();
        QVERIFY(view);
        // A job opens with the panes folded: the user clicks the tab, which unfolds them.
        w.setPanesCollapsed(false);
        w.bottomTabs()->setCurrentWidget(view);
        QTest::qWait(50);
        QCOMPARE(view->model()->ranks().size(), std::size_t(8));
        QVERIFY(view->model()->globalRanks());
        view->plot()->replot();
        QTest::mouseClick(view->plot(), Qt::LeftButton, {}, view->cellCenter(3, 6));
        const CommCell* c = view->model()->cell(3, 6);
        QVERIFY(c && !c->tasks.empty());
        // The first transfer is selected, all of them in view, on rank 3's HCCL tracks.
        QCOMPARE(w.timeline()->selectedEvent(), c->tasks.front());
        const Trace& t = *w.trace();
        for (EventId e : c->tasks) {
            QCOMPARE(w.jobSession()->job.blockOfEvent(e), w.jobSession()->job.blockOfRank(3));
            QVERIFY(t.slice(e).start >= w.timeline()->visibleStart());
            QVERIFY(t.slice(e).end() <= w.timeline()->visibleEnd());
        }
        // For people to look at (docs/images/comm.png): a taller pane, as a user would drag it.
        if (auto* dock = w.findChild<QDockWidget*>(QStringLiteral("panesDock")))
            w.resizeDocks({dock}, {430}, Qt::Vertical);
        QTest::qWait(50);
        view->plot()->replot();
        QVERIFY(w.grab().save(test::binaryDir() + "/comm-window.png"));
        // A single trace shows its own matrix (ranks within the group).
        const std::string rank1 = (dir.path() + "/rank1_ascend_pt").toStdString();
        w.openPaths({QString::fromStdString(rank1)});
        QVERIFY(analysed.wait(180000));
        QVERIFY(!w.isJob());
        QVERIFY(!view->model()->globalRanks());
        QCOMPARE(view->model()->reports().size(), std::size_t(1));
        QCOMPARE(view->model()->reports().front(), w.report());
    }

    void modelEqualsPublicMatrix()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        for (const char* run : {"ascend_torchnpu_level1_2rank/rank0_ascend_pt",
                                "ascend_torchnpu_level1_2rank/rank1_ascend_pt"}) {
            LoadResult lr = loadTrace(test::publicTrace(run).toStdString());
            QVERIFY2(!lr.failed(), lr.message.c_str());
            ReportPtr rep = analyze(lr.trace);
            QVERIFY(!rep->matrix.empty());
            CommMatrixModel model;
            model.setReports({rep});
            QVERIFY(!model.globalRanks());
            QCOMPARE(model.ranks().size(), std::size_t(8)); // 0-0 LOCAL, 0-1 ... 0-7 HCCS
            QCOMPARE(model.opGroups().first(), QStringLiteral("allreduce-top1"));
            QCOMPARE(model.opGroups().last(), QStringLiteral("allreduce-total"));
            compareEntries(model, {rep}, sameRank);
            if (QString::fromLatin1(run).contains("rank0")) {
                // comm-health.md: rank 0, link 0-1, total 61.210624 MB in 3.88393759375 ms.
                model.setScope(50, QStringLiteral("allreduce-total"));
                const CommCell* c = model.cell(0, 1);
                QVERIFY(c);
                QCOMPARE(c->bytes, std::uint64_t(61210624));
                QVERIFY(std::abs(c->gbps() - 15.7599) < 1e-4);
                QCOMPARE(c->transport, std::string("HCCS"));
                QVERIFY(std::abs(c->utilization() - c->gbps() / 18.0) < 1e-12);
                QCOMPARE(model.cell(0, 0)->transport, std::string("LOCAL"));
            }
        }
    }

    void publicRanksAsJob()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        const JobSessionPtr s =
            openJob({test::publicTrace("ascend_torchnpu_level1_2rank").toStdString()});
        QVERIFY(s);
        QCOMPARE(s->perRank.size(), std::size_t(2));
        CommMatrixModel model;
        model.setReports(s->perRank);
        QVERIFY(model.globalRanks());
        // Issue 26.6: by default only the loaded ranks, rows and columns; what they sent to
        // ranks 2-7 (no loaded rank) is named, not drawn.
        QCOMPARE(model.ranks(), (std::vector<int>{0, 1}));
        QCOMPARE(model.unloadedRanks(), (std::vector<int>{2, 3, 4, 5, 6, 7}));
        QVERIFY(model.unloadedBytes() > 0);
        QVERIFY2(model.rankNote().contains(QStringLiteral("not loaded (2, 3, 4, 5, 6, 7")),
                 qPrintable(model.rankNote()));
        QVERIFY(model.cell(0, 1) && model.cell(1, 0) && model.cell(0, 0));
        // Shown on request, each rank's self link maps its own group rank.
        model.setShowUnloaded(true);
        QCOMPARE(model.ranks().size(), std::size_t(8));
        QVERIFY2(model.rankNote().contains(QStringLiteral("2, 3")), qPrintable(model.rankNote()));
        compareEntries(model, s->perRank, sameRank);
    }

    // Issue 26.6: a rank's traffic with itself (its LOCAL self link) is no link: the heatmap
    // draws it apart and leaves it out of the colour scale, its cell and tooltip say "self".
    void selfTrafficApartFromTheLinks()
    {
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 8;
        o.steps = 3;
        o.badSteps = {1};
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        const JobSessionPtr s = openJob({dir.path().toStdString()});
        QVERIFY(s);
        CommMatrixView view;
        view.resize(1600, 1000); // cells wide enough for their values
        view.setReports(s->perRank);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        CommMatrixModel* m = view.model();
        QVERIFY(m->unloadedRanks().empty());
        QVERIFY(!view.unloadedRanksBox()->isVisible());
        // The copying rank's self traffic is the largest figure of the matrix...
        const CommCell* self = m->cell(o.badRank, o.badRank);
        QVERIFY(self && CommMatrixModel::isSelf(*self));
        std::uint64_t links = 0;
        for (int a : m->ranks())
            for (int b : m->ranks())
                if (a != b && m->cell(a, b)) links = std::max(links, m->cell(a, b)->bytes);
        QVERIFY(self->bytes > links);
        // ...but not on the links' scale: it is centred on their median (every link of the
        // seed job carries the same), the self cell far above its top.
        QVERIFY2(std::abs(view.linkMedian() - double(links) / 1e6) < 1e-6,
                 qPrintable(QString::number(view.linkMedian())));
        QVERIFY(view.scaleUpper() < double(self->bytes) / 1e6);
        const int i = m->indexOfRank(o.badRank);
        QVERIFY(std::isnan(view.colorMap()->data()->cell(i, i)));
        bool labelled = false;
        for (QCPItemText* t : view.cellLabels())
            labelled = labelled || t->text().startsWith(QStringLiteral("self\n"));
        QVERIFY(labelled);
        view.plot()->replot();
        QTRY_VERIFY(view.visibleCellLabels() > 0);
        for (QCPItemText* t : view.cellLabels()) // the self cells' two lines fit like the others
            if (t->text().startsWith(QStringLiteral("self\n"))) QVERIFY(t->visible());
        QVERIFY(m->tooltip(*self).contains(QStringLiteral("itself")));
        // Its transfers are still listed when clicked.
        QVERIFY(view.selectCell(o.badRank, o.badRank));
        QVERIFY(view.transferList()->topLevelItemCount() > 0);
    }

    // Issue 43.10: in GB/s the ramp diverges around the links' median: equal links are one
    // neutral colour (not all red), the slow link red; the copying rank's self cell stands out
    // among the self cells (its own scale around their median).
    void gbpsDivergesAroundTheMedian()
    {
        auto rep = std::make_shared<AnalysisReport>();
        const int n = 4;
        // Copied from strings, not assigned from literals (GCC 12's -Wstringop-overflow
        // misreads a one-character literal's assignment here).
        const std::string opGroup = "allreduce-total", group = "g";
        for (int a = 0; a < n; ++a)
            for (int b = 0; b < n; ++b) {
                MatrixEntry m;
                m.rank = 0;
                m.step = 1;
                m.opGroup = opGroup;
                m.group = group;
                m.src = a;
                m.dst = b;
                m.transport = a == b ? "LOCAL" : "HCCS";
                m.bytes = 100'000'000;
                // Every link 10 GB/s but 1 -> 2 (5 GB/s); rank 3's own copies slow too.
                m.ns = (a == 1 && b == 2) || (a == 3 && b == 3) ? 20'000'000 : 10'000'000;
                m.gbps = double(m.bytes) / double(m.ns);
                rep->matrix.push_back(m);
            }
        CommMatrixView view;
        view.resize(1200, 700);
        view.setReports({rep});
        view.setMetric(CommMatrixModel::Metric::Gbps);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.linkMedian(), 10.0);
        QCPColorMap* map = view.colorMap();
        const QCPRange range = map->dataRange();
        QVERIFY(std::abs((range.lower + range.upper) / 2 - 10.0) < 1e-9);
        auto colour = [&](int src, int dst) {
            const CommMatrixModel* m = view.model();
            return map->gradient().color(
                map->data()->cell(m->indexOfRank(dst), m->indexOfRank(src)), range);
        };
        const QColor middle = map->gradient().color(10.0, range);
        QCOMPARE(colour(0, 1), middle);
        QCOMPARE(colour(2, 3), middle);
        const ThemePalette& pal = currentPalette();
        QCOMPARE(colour(1, 2), map->gradient().color(range.lower, range));
        QVERIFY(colour(1, 2) != middle);
        QCOMPARE(map->gradient().color(range.lower, range), pal.heatHigh); // slow: red
        // Equal links only: every link the neutral middle (not all red).
        for (MatrixEntry& m : rep->matrix)
            if (m.src != m.dst) m.ns = 10'000'000;
        view.setReports({rep});
        view.setMetric(CommMatrixModel::Metric::Gbps);
        const QCPRange even = map->dataRange();
        QCOMPARE(map->gradient().color(map->data()->cell(0, 1), even),
                 map->gradient().color(10.0, even));
        const QColor calm = map->gradient().color(10.0, even);
        QVERIFY(std::abs(calm.red() - pal.transportLocal.red()) +
                    std::abs(calm.green() - pal.transportLocal.green()) +
                    std::abs(calm.blue() - pal.transportLocal.blue()) <
                12);
    }

    void seedJobGlobalRanks()
    {
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 8;
        o.steps = 3;
        o.badSteps = {1};
        o.badRank = 2;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        const JobSessionPtr s = openJob({dir.path().toStdString()});
        QVERIFY(s);
        QCOMPARE(s->perRank.size(), std::size_t(8));
        CommMatrixModel model;
        model.setReports(s->perRank);
        QVERIFY(model.globalRanks());
        QCOMPARE(model.ranks().size(), std::size_t(8));
        // The global rank of a group rank: the rank whose matrix has its self link.
        std::map<int, int> self;
        for (std::size_t b = 0; b < s->perRank.size(); ++b)
            for (const MatrixEntry& m : s->perRank[b]->matrix) {
                QCOMPARE(m.rank.value_or(-1), s->job.rankIds[b]);
                if (m.src == m.dst && m.transport == "LOCAL") self[m.src] = *m.rank;
            }
        QCOMPARE(self.size(), std::size_t(8));
        compareEntries(model, s->perRank,
                       [&](std::size_t, const MatrixEntry&, int l) { return self.at(l); });
        // The tasks are the merged trace's transfer slices of the entry's own rank.
        const Trace& t = *s->job.trace;
        for (std::size_t b = 0; b < s->perRank.size(); ++b)
            for (const MatrixEntry& m : s->perRank[b]->matrix)
                for (EventId e : m.tasks) {
                    QCOMPARE(s->job.blockOfEvent(e), int(b));
                    const std::string name(t.str(t.slice(e).name));
                    QVERIFY2(name == "Memcpy" || name == "Reduce_Inline", name.c_str());
                }
        // Every rank's matrix survives the merge, as the rank analysed it.
        for (std::size_t b = 0; b < s->perRank.size(); ++b)
            QCOMPARE(s->perRank[b]->matrix.size(), s->localReports[b]->matrix.size());
        // Exported as an image like the other plots.
        const QString png = test::binaryDir() + "/commmatrix-export.png";
        QString error;
        QVERIFY2(exportPlot(s->perRank, "matrix", png, QSize(900, 600), &error), qPrintable(error));
        QCOMPARE(QImage(png).size(), QSize(900, 600));
    }

    void clickSelectsTransfers()
    {
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 8;
        o.steps = 3;
        o.badSteps = {1};
        o.badRank = 2;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        const JobSessionPtr s = openJob({dir.path().toStdString()});
        QVERIFY(s);
        CommMatrixView view;
        view.resize(1280, 400);
        view.setReports(s->perRank);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.plot()->replot();
        QSignalSpy spy(&view, &CommMatrixView::transfersSelected);
        QTest::mouseClick(view.plot(), Qt::LeftButton, {}, view.cellCenter(2, 5));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(view.selectedCell(), std::make_optional(std::make_pair(2, 5)));
        const CommCell* c = view.model()->cell(2, 5);
        QVERIFY(c);
        const auto tasks = spy.at(0).at(0).value<std::vector<EventId>>();
        QCOMPARE(tasks, c->tasks);
        QVERIFY(!tasks.empty());
        // One row per matrix entry behind the cell (every step's totals of rank 2 to 5).
        QCOMPARE(view.transferList()->topLevelItemCount(), int(c->parts.size()));
        QCOMPARE(int(c->parts.size()), o.steps);
        // A row selects that entry's tasks only.
        QTreeWidgetItem* row = view.transferList()->topLevelItem(1);
        const QRect r = view.transferList()->visualItemRect(row);
        QTest::mouseClick(view.transferList()->viewport(), Qt::LeftButton, {}, r.center());
        QCOMPARE(spy.count(), 2);
        QCOMPARE(spy.at(1).at(0).value<std::vector<EventId>>(), c->parts[1].entry->tasks);
        // An empty place selects nothing.
        QTest::mouseClick(view.plot(), Qt::LeftButton, {}, QPoint(2, 2));
        QCOMPARE(spy.count(), 2);
        // Each metric draws the cell's value.
        using M = CommMatrixModel::Metric;
        view.setMetric(M::Gbps);
        const int x = view.model()->indexOfRank(5), y = view.model()->indexOfRank(2);
        QVERIFY(std::abs(view.colorMap()->data()->cell(x, y) - c->gbps()) < 1e-9);
        view.setMetric(M::Utilization);
        QVERIFY(std::abs(view.colorMap()->data()->cell(x, y) - 100 * c->gbps() / 18.0) < 1e-9);
        view.setMetric(M::Transport);
        QCOMPARE(view.colorMap()->data()->cell(x, y),
                 double(CommMatrixModel::transportNames().indexOf("HCCS")));
        QCOMPARE(view.colorMap()->data()->cell(y, y),
                 double(CommMatrixModel::transportNames().indexOf("LOCAL")));
    }

    void layoutAt1280x800()
    {
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 8;
        o.steps = 3;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        const JobSessionPtr s = openJob({dir.path().toStdString()});
        QVERIFY(s);
        CommMatrixView view;
        view.resize(1280, 800);
        view.setReports(s->perRank);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        for (auto m : {CommMatrixModel::Metric::Bytes, CommMatrixModel::Metric::Gbps,
                       CommMatrixModel::Metric::Utilization, CommMatrixModel::Metric::Transport}) {
            view.setMetric(m);
            QCoreApplication::processEvents();
            view.plot()->replot();
            // The controls side by side, none over another, all inside the view.
            const auto ctl = view.controls();
            for (std::size_t i = 0; i < ctl.size(); ++i) {
                const QRect a(ctl[i]->mapTo(&view, QPoint(0, 0)), ctl[i]->size());
                QVERIFY(view.rect().contains(a));
                for (std::size_t j = i + 1; j < ctl.size(); ++j) {
                    const QRect b(ctl[j]->mapTo(&view, QPoint(0, 0)), ctl[j]->size());
                    QVERIFY2(!a.intersects(b),
                             qPrintable(ctl[i]->objectName() + " / " + ctl[j]->objectName()));
                }
            }
            // The heatmap and its colour scale apart; tick labels fit in the margins.
            QCustomPlot* p = view.plot();
            QCPAxisRect* ar = p->axisRect();
            QCPColorScale* scale = nullptr;
            for (int i = 0; i < p->plotLayout()->elementCount(); ++i)
                if (auto* cs = qobject_cast<QCPColorScale*>(p->plotLayout()->elementAt(i)))
                    scale = cs;
            QVERIFY(scale);
            QVERIFY(!ar->outerRect().intersects(scale->outerRect()));
            QVERIFY(p->rect().contains(scale->outerRect()));
            const QFontMetrics tick(p->yAxis->tickLabelFont());
            const QFontMetrics lab(p->yAxis->labelFont());
            QVERIFY(ar->margins().left() >= tick.horizontalAdvance("7") + lab.height());
            QVERIFY(ar->margins().bottom() >= tick.height() + lab.height());
            // Visible cell labels lie inside their cells.
            const double cw = double(ar->rect().width()) / 8, ch = double(ar->rect().height()) / 8;
            QVERIFY2(view.visibleCellLabels() > 0,
                     qPrintable(
                         QStringLiteral("metric %1: cells %2x%3 px").arg(int(m)).arg(cw).arg(ch)));
            for (QCPItemText* t : view.cellLabels()) {
                if (!t->visible()) continue;
                // A self cell's label has two lines ("self", its value).
                const QRect br = QFontMetrics(t->font()).boundingRect(
                    QRect(0, 0, 100000, 100000), Qt::AlignLeft | Qt::AlignTop, t->text());
                QVERIFY2(br.width() < cw && br.height() < ch, qPrintable(t->text()));
            }
        }
        const QString png = test::binaryDir() + "/commmatrix.png";
        QVERIFY(view.grab().save(png));
    }
};

QTEST_MAIN(TstCommView)
#include "tst_commview.moc"
