// The details pane of a collective: the stacked time bar equals its time_info, each link's
// utilisation bar equals its transfers[] (Kineto: its assumed link), the rectangles do not
// overlap; the link peaks of the settings dialog reach the analysis and change utilisation.

#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/traceloader.h"
#include "tests/testutil.h"
#include "ui/comm/commmatrixmodel.h"
#include "ui/comm/commmatrixview.h"
#include "ui/mainwindow.h"
#include "ui/panes/commbreakdown.h"
#include "ui/panes/detailspane.h"
#include "ui/settings/linkpeaksdialog.h"
#include "ui/theme/theme.h"
#include "ui/timeline/timelineview.h"

#include <QLocale>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include <cmath>

using namespace rs;

namespace {

ReportPtr seedReport(bool kineto, int rank = 0)
{
    gen::SeedCaseOptions o;
    o.ranks = 8;
    o.steps = 3;
    o.badSteps = {1};
    o.kineto = kineto;
    LoadResult lr = test::loadText(gen::seedCaseTrace(o, rank));
    if (!lr.complete()) qWarning("seed trace: %s", lr.message.c_str());
    return analyze(lr.trace);
}

// The idle part of the bar: communication.json's idle time less the internal memcpy.
TimeNs idleOf(const Collective& c)
{
    return c.timeInfo->idleNs - c.timeInfo->memcpyNs;
}

bool disjoint(const std::vector<QRect>& rects)
{
    for (std::size_t i = 0; i < rects.size(); ++i)
        for (std::size_t j = i + 1; j < rects.size(); ++j)
            if (!rects[i].isEmpty() && !rects[j].isEmpty() && rects[i].intersects(rects[j]))
                return false;
    return true;
}

// The pane's bar and link rows for every collective of the report.
void checkReport(const ReportPtr& rep)
{
    DetailsPane pane;
    pane.resize(700, 400);
    pane.setTrace(rep->trace);
    pane.setReport(rep);
    int shown = 0;
    for (const Collective& c : rep->collectives) {
        pane.setEvent(c.event);
        CommBreakdown* b = pane.commBreakdown();
        if (!c.timeInfo && c.transfers.empty() && !c.link) {
            QVERIFY(!b->isVisibleTo(&pane));
            continue;
        }
        QVERIFY(b->isVisibleTo(&pane));
        ++shown;
        if (c.timeInfo) {
            const CommTimeInfo& t = *c.timeInfo;
            const auto& s = b->segments();
            QCOMPARE(s.size(), std::size_t(5));
            QCOMPARE(s[0].name, QStringLiteral("transit"));
            QCOMPARE(s[0].ns, t.transitNs);
            QCOMPARE(s[1].ns + s[2].ns, t.waitNs);
            QCOMPARE(s[2].name, QStringLiteral("synchronization"));
            QCOMPARE(s[2].ns, t.synchronizationNs);
            // communication.json's idle time: the internal memcpy and the rest.
            QCOMPARE(s[3].name, QStringLiteral("internal memcpy"));
            QCOMPARE(s[3].ns, t.memcpyNs);
            QCOMPARE(s[3].ns + s[4].ns, t.idleNs);
            QCOMPARE(s[0].ns + s[1].ns + s[2].ns + s[3].ns + s[4].ns, t.elapseNs);
            // Widths in proportion (to a pixel of rounding), the bar filled exactly.
            const int w = 600;
            const CommBreakdown::Layout lay = b->layoutFor(w);
            int sum = 0;
            for (std::size_t i = 0; i < s.size(); ++i) {
                const double want = double(s[i].ns) / double(t.elapseNs) * w;
                QVERIFY2(std::abs(lay.segments[i].width() - want) <= 1.0,
                         qPrintable(QString::number(lay.segments[i].width()) + " vs " +
                                    QString::number(want)));
                sum += lay.segments[i].width();
            }
            QCOMPARE(sum, w);
            QVERIFY(disjoint(lay.segments));
            QVERIFY(disjoint(lay.legend));
            for (const QRect& r : lay.legend)
                QVERIFY(r.right() < w && !r.intersects(lay.bar));
        }
        std::size_t i = 0;
        for (const TransferStat& ts : c.transfers) {
            const CommBreakdown::Link& l = b->links()[i++];
            QCOMPARE(l.name.toStdString(), ts.name);
            QVERIFY(std::abs(l.gbps - ts.gbps()) < 1e-12);
            QCOMPARE(std::isnan(l.peak), std::isnan(ts.peakGbps));
            if (std::isfinite(ts.peakGbps)) {
                QCOMPARE(l.peak, ts.peakGbps);
                QVERIFY(std::abs(l.utilization - ts.gbps() / ts.peakGbps) < 1e-12);
                QVERIFY(l.text.contains(QStringLiteral("%")));
            }
        }
        if (c.link) {
            const CommBreakdown::Link& l = b->links()[i++];
            QCOMPARE(l.name.toStdString(), c.link->name);
            QCOMPARE(l.utilization, c.link->utilization);
            QVERIFY(l.basis.contains(QString::fromStdString(c.link->basis)));
        }
        QCOMPARE(b->links().size(), i);
        const CommBreakdown::Layout lay = b->layoutFor(600);
        std::vector<QRect> all = {lay.title, lay.bar, lay.linksTitle};
        for (const auto* v :
             {&lay.legend, &lay.linkNames, &lay.linkBars, &lay.linkTexts, &lay.linkBasis})
            all.insert(all.end(), v->begin(), v->end());
        QVERIFY(disjoint(all));
        // The pane's text carries the figures too.
        QVERIFY(pane.text().contains(QStringLiteral("Communication")));
    }
    QVERIFY(shown > 0);
    // Any other event: no bar.
    for (EventId e = 0; e < rep->trace->slices().size(); ++e) {
        if (rep->collectiveOf(e)) continue;
        pane.setEvent(e);
        QVERIFY(!pane.commBreakdown()->isVisibleTo(&pane));
        break;
    }
}

} // namespace

class TstCommBreakdown : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RingscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_commbreakdown"));
        QSettings().clear();
    }

    void segmentsEqualTimeInfoSeed()
    {
        checkReport(seedReport(false, 0));
        checkReport(seedReport(false, 1));
    }

    // Issue 43.3: the flagged AllReduce's 200 ms extra copy is a part of the bar of its own,
    // not "idle"; the memcpy figures read the same in Details, the bar and the matrix's self
    // cell (docs/comm-health.md), bytes with thousands separators, "elapsed".
    void memcpyOneDefinitionAcrossPanes()
    {
        gen::SeedCaseOptions o;
        o.ranks = 8;
        o.steps = 3;
        o.badSteps = {1};
        LoadResult lr = test::loadText(gen::seedCaseTrace(o, o.badRank));
        QVERIFY(lr.complete());
        const ReportPtr rep = analyze(lr.trace);
        const Collective* bad = nullptr;
        for (const Collective& c : rep->collectives)
            if (c.anomalous) bad = &c;
        QVERIFY(bad && bad->timeInfo);
        const CommTimeInfo& t = *bad->timeInfo;
        // The extra copy runs while the master plane idles: nearly all of the idle time.
        QVERIFY2(t.memcpyNs >= bad->extraMemcpyNs - 1'000'000 && t.memcpyNs <= t.idleNs,
                 qPrintable(QStringLiteral("memcpy %1 idle %2 extra %3")
                                .arg(t.memcpyNs)
                                .arg(t.idleNs)
                                .arg(bad->extraMemcpyNs)));
        // A normal op of the same rank: its small local copies only.
        for (const Collective& c : rep->collectives)
            if (!c.anomalous && c.timeInfo) QVERIFY(c.timeInfo->memcpyNs < 5'000'000);
        DetailsPane pane;
        pane.resize(900, 500);
        pane.setTrace(rep->trace);
        pane.setReport(rep);
        pane.setEvent(bad->event);
        const QString text = pane.text();
        // Within the rank: the extra copy, the local copy and the copy out.
        std::uint64_t localBytes = 0;
        int local = 0;
        for (const InternalCopy& cp : bad->copies)
            if (cp.local) {
                localBytes += cp.bytes;
                ++local;
            }
        QCOMPARE(local, 3);
        const QString bytes = QLocale(QLocale::English).toString(qulonglong(bad->memcpyBytes));
        QVERIFY2(
            text.contains(QStringLiteral("Internal memcpy: %1 tasks, %2, %3 B")
                              .arg(bad->memcpyCount)
                              .arg(QString::fromStdString(formatDuration(bad->memcpyNs)), bytes)),
            qPrintable(text));
        QVERIFY2(
            text.contains(QStringLiteral("within the rank: 3 tasks, 203 ms, %1 B")
                              .arg(QLocale(QLocale::English).toString(qulonglong(localBytes)))),
            qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("internal memcpy %1")
                                   .arg(QString::fromStdString(formatDuration(t.memcpyNs)))),
                 qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("elapsed")));
        QVERIFY(!text.contains(QRegularExpression(QStringLiteral("\\belapse\\b"))));
        QVERIFY(!text.contains(QString::number(bad->memcpyBytes))); // never without separators
        // The matrix's self cell for this op's step: the same copies (plus the op's 4-byte
        // Reduce_Inline flag write, as communication_matrix.json counts the self link).
        CommMatrixModel m;
        m.setReports({rep});
        m.setScope(bad->step, QString(), QString());
        const CommCell* self = m.cell(0, 0);
        QVERIFY(self && CommMatrixModel::isSelf(*self));
        QVERIFY2(self->bytes >= localBytes && self->bytes <= localBytes + 16,
                 qPrintable(QString::number(self->bytes)));
        const QString tip = m.tooltip(*self);
        QVERIFY2(tip.contains(QLocale(QLocale::English).toString(qulonglong(self->bytes)) + " B"),
                 qPrintable(tip));
        QVERIFY(tip.contains(QStringLiteral("203 ms")));
    }

    void kinetoLinkRow()
    {
        const ReportPtr rep = seedReport(true);
        bool any = false;
        for (const Collective& c : rep->collectives)
            any = any || c.link.has_value();
        QVERIFY(any);
        checkReport(rep);
    }

    void segmentsEqualTimeInfoPublic()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        for (const char* run : {"ascend_torchnpu_level1_2rank/rank0_ascend_pt",
                                "ascend_torchnpu_level1_2rank/rank1_ascend_pt"}) {
            LoadResult lr = loadTrace(test::publicTrace(run).toStdString());
            QVERIFY2(!lr.failed(), lr.message.c_str());
            const ReportPtr rep = analyze(lr.trace);
            checkReport(rep);
            if (!QString::fromLatin1(run).contains("rank0")) continue;
            // For people to look at (docs/images/comm-details.png): a real, mostly idle op.
            DetailsPane pane;
            pane.resize(900, 420);
            pane.setTrace(rep->trace);
            pane.setReport(rep);
            pane.setEvent(rep->collectives.front().event);
            pane.show();
            QVERIFY(QTest::qWaitForWindowExposed(&pane));
            QVERIFY(pane.grab().save(test::binaryDir() + "/comm-details-public.png"));
        }
    }

    void dialogPeaks()
    {
        QSettings().clear();
        LinkPeaksDialog d({{"hccs", 30.0}});
        std::map<std::string, double> p;
        QVERIFY(d.peaks(&p));
        QCOMPARE(p.size(), std::size_t(1));
        QCOMPARE(p.at("HCCS"), 30.0); // a stored name matches case-insensitively
        d.setPeakText("RDMA", "25");
        d.setPeakText("NVLink", "abc");
        QString error;
        QVERIFY(!d.peaks(&p, &error));
        QVERIFY(error.contains("NVLink"));
        d.accept(); // refused: the dialog stays
        QCOMPARE(d.result(), int(QDialog::Rejected));
        d.setPeakText("NVLink", "");
        QVERIFY(d.peaks(&p));
        QCOMPARE(p.size(), std::size_t(2));
        linkpeaks::save(p);
        const AnalysisOptions o = linkpeaks::analysisOptions();
        QCOMPARE(o.linkPeaks.at("RDMA"), 25.0);
        QCOMPARE(o.linkPeaks.at("HCCS"), 30.0);
        QSettings().clear();
        QVERIFY(linkpeaks::analysisOptions().linkPeaks.empty());
    }

    // Issue 26.8: the bar filled under the light theme takes the dark theme's inks after a
    // switch (the idle segment was left near-white).
    void idleSegmentFollowsTheTheme()
    {
        applyTheme(Theme::Light);
        const ReportPtr rep = seedReport(false, 1);
        const Collective* widest = nullptr;
        for (const Collective& c : rep->collectives)
            if (c.timeInfo && (!widest || idleOf(c) * widest->timeInfo->elapseNs >
                                              idleOf(*widest) * c.timeInfo->elapseNs))
                widest = &c;
        // Wide enough to sample (over 1% of the op: 7 px of the 700 px pane).
        QVERIFY(widest && idleOf(*widest) * 100 > widest->timeInfo->elapseNs);
        DetailsPane pane;
        pane.resize(700, 400);
        pane.setTrace(rep->trace);
        pane.setReport(rep);
        pane.setEvent(widest->event);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        CommBreakdown* b = pane.commBreakdown();
        auto idleInk = [&] {
            const QImage img = b->grab().toImage();
            const QRect r = b->layoutFor(b->width()).segments[4];
            return img.pixelColor(r.center() * img.devicePixelRatio());
        };
        QCOMPARE(idleInk(), ThemePalette::light().breakdownIdle);
        applyTheme(Theme::Dark);
        QCoreApplication::processEvents();
        QCOMPARE(idleInk(), ThemePalette::dark().breakdownIdle);
        QCOMPARE(b->segments()[4].color, ThemePalette::dark().breakdownIdle);
        applyTheme(Theme::Light);
        QCoreApplication::processEvents();
        QCOMPARE(idleInk(), ThemePalette::light().breakdownIdle);
    }

    void settingsChangeUtilization()
    {
        QSettings().clear();
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 2;
        o.steps = 3;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy analysed(&w, &MainWindow::analysisFinished);
        w.openPaths({dir.path() + "/rank0_ascend_pt"});
        QVERIFY(analysed.wait(120000));
        auto hccs = [](const ReportPtr& r) -> const TransferStat* {
            for (const Collective& c : r->collectives)
                for (const TransferStat& t : c.transfers)
                    if (t.name == "HCCS") return &t;
            return nullptr;
        };
        const TransferStat* before = hccs(w.report());
        QVERIFY(before);
        QCOMPARE(before->peakGbps, 18.0);
        const double gbps = before->gbps();
        CommMatrixView* view = w.commView();
        view->setMetric(CommMatrixModel::Metric::Utilization);
        QVERIFY(view->model()->cell(0, 1));
        const double cellBefore = view->model()->cell(0, 1)->utilization();

        // Select the first collective: the details pane shows it against 18 GB/s.
        w.selectEvent(w.report()->collectives.front().event);
        w.bottomTabs()->setCurrentWidget(w.detailsPane());
        QCoreApplication::processEvents();
        CommBreakdown* b = w.detailsPane()->commBreakdown();
        QVERIFY(b->isVisible());
        // At 1280x800 the bar is not clipped and does not cover the tree.
        QVERIFY(b->height() >= b->heightForWidth(b->width()));
        QVERIFY(!b->geometry().intersects(w.detailsPane()->tree()->geometry()));
        QVERIFY(w.grab().save(test::binaryDir() + "/comm-details-window.png"));
        QVERIFY(w.detailsPane()->grab().save(test::binaryDir() + "/comm-details.png"));

        w.editLinkPeaks();
        auto* d = w.findChild<LinkPeaksDialog*>(QStringLiteral("linkPeaksDialog"));
        QVERIFY(d);
        d->setPeakText("HCCS", "28");
        d->accept();
        QVERIFY(analysed.wait(120000));
        QCOMPARE(linkpeaks::load().at("HCCS"), 28.0);
        const TransferStat* after = hccs(w.report());
        QVERIFY(after);
        QCOMPARE(after->peakGbps, 28.0);
        QVERIFY(std::abs(after->utilization - gbps / 28.0) < 1e-12);
        QCOMPARE(w.report()->options.linkPeaks.at("HCCS"), 28.0);
        // The matrix reads the new peak.
        const double cellAfter = view->model()->cell(0, 1)->utilization();
        QVERIFY(std::abs(cellAfter - cellBefore * 18.0 / 28.0) < 1e-12);

        // A job loads again with the peaks.
        w.openPaths({dir.path()});
        QVERIFY(analysed.wait(180000));
        QVERIFY(w.isJob());
        for (const ReportPtr& r : w.jobSession()->perRank)
            QCOMPARE(hccs(r)->peakGbps, 28.0);
        QSettings().clear();
    }
};

QTEST_MAIN(TstCommBreakdown)
#include "tst_commbreakdown.moc"
