// Plot export: PNG / SVG / PDF of both views, headless, non-blank, at the requested size;
// and the plots of a real analysis (the generated seed case) match its report.

#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "tests/support/reportfixture.h"
#include "tests/testutil.h"
#include "ui/plots/distributionview.h"
#include "ui/plots/plotexport.h"
#include "ui/plots/stepsview.h"

#include <qcustomplot.h>

#include <QImage>
#include <QMenu>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

using namespace rs;

namespace {

ReportPtr analyzeSeedRank(int rank)
{
    gen::SeedCaseOptions o;
    const LoadResult r = test::loadText(gen::seedCaseTrace(o, rank));
    return r.complete() ? analyze(r.trace) : nullptr;
}

// Set RINGSCOPE_PLOT_DUMP=dir to keep the exported images for a look.
void keep(const QString& file)
{
    const QString dir = qEnvironmentVariable("RINGSCOPE_PLOT_DUMP");
    if (dir.isEmpty()) return;
    const QString target = dir + QLatin1Char('/') + QFileInfo(file).fileName();
    QFile::remove(target);
    QFile::copy(file, target);
}

} // namespace

class TestPlotExport : public QObject {
    Q_OBJECT
private slots:
    void formats_data();
    void formats();
    void errors();
    void contextMenuActions();
    void realSeedCase();
    void publicTraces_data();
    void publicTraces();
};

void TestPlotExport::formats_data()
{
    QTest::addColumn<QString>("view");
    QTest::addColumn<QString>("suffix");
    for (const char* view : {"steps", "distribution"})
        for (const char* suffix : {"png", "svg", "pdf"})
            QTest::newRow(qPrintable(QStringLiteral("%1.%2").arg(view, suffix)))
                << QString::fromLatin1(view) << QString::fromLatin1(suffix);
}

void TestPlotExport::formats()
{
    QFETCH(QString, view);
    QFETCH(QString, suffix);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString file = dir.filePath(QStringLiteral("fixture-%1.%2").arg(view, suffix));
    const QSize size(1280, 720);
    QString error;
    QVERIFY2(
        exportPlot({test::seedCaseReport(0), test::seedCaseReport(1)}, view, file, size, &error),
        qPrintable(error));
    keep(file);
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    if (suffix == QLatin1String("png")) {
        QImage img;
        QVERIFY(img.loadFromData(bytes, "PNG"));
        QCOMPARE(img.size(), size);
        // Non-blank: many colours, and a fair share of pixels that are not background.
        std::set<QRgb> colours;
        int ink = 0;
        for (int y = 0; y < img.height(); y += 2)
            for (int x = 0; x < img.width(); x += 2) {
                const QRgb p = img.pixel(x, y);
                colours.insert(p);
                ink += qGray(p) < 235 ? 1 : 0;
            }
        QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
        const double share = double(ink) / double((img.width() / 2) * (img.height() / 2));
        QVERIFY2(share > 0.05 && share < 0.9, qPrintable(QString::number(share)));
        // The series colours are there: blue of communication / collectives, and red or
        // orange of the memcpy figures in the distribution view.
        auto near = [&](QColor c) {
            for (QRgb p : colours)
                if (qAbs(qRed(p) - c.red()) < 6 && qAbs(qGreen(p) - c.green()) < 6 &&
                    qAbs(qBlue(p) - c.blue()) < 6)
                    return true;
            return false;
        };
        if (view == QLatin1String("steps")) {
            QVERIFY(near(plots::colors::commNotOverlapped()));
            QVERIFY(near(plots::colors::computing()));
        } else {
            QVERIFY(near(plots::colors::anomalous()));
            QVERIFY(near(plots::colors::internalMemcpy()));
        }
    } else if (suffix == QLatin1String("svg")) {
        QVERIFY(bytes.startsWith("<?xml"));
        QVERIFY(bytes.contains("<svg"));
        QVERIFY(bytes.contains("width=\"") && bytes.contains("1280"));
        QVERIFY(bytes.count("<path") + bytes.count("<polyline") + bytes.count("<rect") > 50);
        QVERIFY(bytes.contains("<text") || bytes.count("<path") > 200); // labels
    } else {
        QVERIFY(bytes.startsWith("%PDF-"));
        QVERIFY2(bytes.size() > 5000, qPrintable(QString::number(bytes.size())));
        QVERIFY(bytes.contains("/MediaBox"));
    }
}

void TestPlotExport::errors()
{
    QTemporaryDir dir;
    QString error;
    const auto reps = std::vector<ReportPtr>{test::seedCaseReport()};
    QVERIFY(!exportPlot(reps, QStringLiteral("pie"), dir.filePath("a.png"), {800, 600}, &error));
    QVERIFY(error.contains(QStringLiteral("pie")));
    QVERIFY(!exportPlot(reps, QStringLiteral("steps"), dir.filePath("a.bmp"), {800, 600}, &error));
    QVERIFY(error.contains(QStringLiteral(".png")));
    QVERIFY(!exportPlot(reps, QStringLiteral("steps"), dir.filePath("a.png"), {0, 600}, &error));
    QVERIFY(!exportPlot(reps, QStringLiteral("steps"), dir.filePath("no/such/dir/a.png"),
                        {800, 600}, &error));
    QVERIFY(!QFile::exists(dir.filePath("a.png")));
    // No steps at all still renders (an empty chart with a title that says so).
    QVERIFY2(exportPlot({std::make_shared<AnalysisReport>()}, QStringLiteral("distribution"),
                        dir.filePath("empty.png"), {640, 480}, &error),
             qPrintable(error));
    QCOMPARE(QImage(dir.filePath("empty.png")).size(), QSize(640, 480));
}

void TestPlotExport::contextMenuActions()
{
    StepsView view;
    QMenu menu;
    plots::addExportActions(&menu, view.plot(), &view, QStringLiteral("steps"));
    QStringList texts;
    for (QAction* a : menu.actions())
        texts << a->text();
    QCOMPARE(texts, (QStringList{QStringLiteral("Export as PNG…"), QStringLiteral("Export as SVG…"),
                                 QStringLiteral("Export as PDF…")}));
    // The widget's own size is used when none is given.
    view.resize(700, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTemporaryDir dir;
    QString error;
    QVERIFY2(plots::savePlotFile(view.plot(), dir.filePath("own.png"), QSize(), &error),
             qPrintable(error));
    QCOMPARE(QImage(dir.filePath("own.png")).size(), view.plot()->size());
}

void TestPlotExport::realSeedCase()
{
    // The generated seed case analysed for real: the bad rank (0) and a waiting rank (1).
    const ReportPtr r0 = analyzeSeedRank(0);
    const ReportPtr r1 = analyzeSeedRank(1);
    QVERIFY(r0 && r1);
    QCOMPARE(int(r0->steps.size()), 6);

    StepsView steps;
    steps.setReports({r0});
    for (int i = 0; i < 6; ++i) {
        const StepStats& st = r0->steps[size_t(i)];
        QCOMPARE(steps.bars(StepsView::CommNotOverlapped)->data()->at(i)->value,
                 double(st.communicationNotOverlapped) / 1e6);
        QCOMPARE(steps.bars(StepsView::Free)->data()->at(i)->value, double(st.free) / 1e6);
        QCOMPARE(steps.computingGraph(0)->data()->at(i)->value, double(st.computing) / 1e6);
        QCOMPARE(steps.communicationGraph(0)->data()->at(i)->value, double(st.communication) / 1e6);
        // The case: computing steady at ~320 ms, communication ~200 or ~400 ms.
        QVERIFY(qAbs(double(st.computing) / 1e6 - 320) < 20);
    }
    // Computing includes the overlapped part in the analyzer: the stack is the busy window plus
    // the free time torch_npu counts after it (the idle gap to the next step), never more.
    for (int i = 0; i < 6; ++i) {
        const StepStats& st = r0->steps[size_t(i)];
        double top = 0;
        for (int s = 0; s < StepsView::SeriesCount; ++s)
            top += steps.bars(StepsView::Series(s))->data()->at(i)->value;
        const double busy = double(st.busyEnd - st.busyStart) / 1e6;
        QVERIFY(top >= busy - 1e-6);
        QVERIFY(top <= busy + double(st.free) / 1e6 + 1e-6);
    }

    DistributionView dist;
    dist.setReports({r0});
    QVERIFY(dist.currentGroup() >= 0);
    const auto& g = dist.groups()[size_t(dist.currentGroup())];
    const SignatureGroup& sig = r0->signatures[g.signature];
    QCOMPARE(dist.plottedPoints().size(), sig.members.size());
    int anomalous = 0;
    for (const auto& p : dist.plottedPoints()) {
        const Collective& c = r0->collectives[p.collective];
        QCOMPARE(p.x, double(c.dur) / 1e6);
        QCOMPARE(p.cls == DistributionView::Anomalous, c.anomalous);
        anomalous += c.anomalous ? 1 : 0;
    }
    QCOMPARE(anomalous, 2); // badSteps {2, 4}
    QCOMPARE(dist.points(DistributionView::Anomalous)->dataCount(), anomalous);
    QCOMPARE(int(dist.modeMarks().size()), int(sig.modes.size()));
    QCOMPARE(int(sig.modes.size()), 2);
    QCOMPARE(dist.modeMarks()[0].second, double(sig.modes[0].meanNs) / 1e6);
    QCOMPARE(dist.modeMarks()[1].first, QStringLiteral("B"));

    // The other rank only waits: its slow ops are grey (waiting), not red.
    DistributionView other;
    other.setReports({r1});
    QVERIFY(other.currentGroup() >= 0);
    int waiting = 0;
    for (const auto& p : other.plottedPoints()) {
        const Collective& c = r1->collectives[p.collective];
        QVERIFY(!c.anomalous);
        QCOMPARE(p.cls == DistributionView::Waiting, c.waiting);
        waiting += c.waiting ? 1 : 0;
    }
    QCOMPARE(waiting, 2);

    QTemporaryDir dir;
    for (const char* view : {"steps", "distribution"}) {
        for (const auto& [name, reps] :
             {std::pair{QStringLiteral("seed-rank0"), std::vector<ReportPtr>{r0}},
              std::pair{QStringLiteral("seed-rank1"), std::vector<ReportPtr>{r1}},
              std::pair{QStringLiteral("seed-2ranks"), std::vector<ReportPtr>{r0, r1}}}) {
            const QString file = dir.filePath(QStringLiteral("%1-%2.png").arg(name, view));
            QString error;
            QVERIFY2(exportPlot(reps, QString::fromLatin1(view), file, {1200, 700}, &error),
                     qPrintable(error));
            QCOMPARE(QImage(file).size(), QSize(1200, 700));
            keep(file);
        }
    }
}

void TestPlotExport::publicTraces_data()
{
    QTest::addColumn<QStringList>("files");
    QTest::addColumn<QString>("name");
    QTest::newRow("ascend 2 ranks")
        << QStringList{QStringLiteral("ascend_torchnpu_level1_2rank/rank0_ascend_pt/"
                                      "ASCEND_PROFILER_OUTPUT/trace_view.json"),
                       QStringLiteral("ascend_torchnpu_level1_2rank/rank1_ascend_pt/"
                                      "ASCEND_PROFILER_OUTPUT/trace_view.json")}
        << QStringLiteral("ascend2");
    QTest::newRow("kineto nccl a100")
        << QStringList{QStringLiteral("kineto_nccl_a100_2rank_hta/nccl_data.json.gz")}
        << QStringLiteral("kineto-a100");
}

void TestPlotExport::publicTraces()
{
    RS_REQUIRE_PUBLIC_TRACES();
    QFETCH(QStringList, files);
    QFETCH(QString, name);
    std::vector<ReportPtr> reports;
    for (const QString& f : files) {
        const LoadResult r = loadTrace(test::publicTrace(f).toStdString());
        QVERIFY2(r.complete(), r.message.c_str());
        reports.push_back(analyze(r.trace));
        QVERIFY(!reports.back()->steps.empty());
    }
    // Every step of every rank is plotted with the report's figures.
    StepsView steps;
    steps.setReports(reports);
    size_t total = 0;
    for (const ReportPtr& rep : reports)
        total += rep->steps.size();
    QCOMPARE(size_t(steps.bars(StepsView::Free)->dataCount()), total);
    for (size_t i = 0; i < steps.layout().cells.size(); ++i) {
        const auto& cell = steps.layout().cells[i];
        QCOMPARE(steps.bars(StepsView::CommNotOverlapped)->data()->at(int(i))->value,
                 double(cell.stats->communicationNotOverlapped) / 1e6);
        QCOMPARE(steps.bars(StepsView::Overlapped)->data()->at(int(i))->value,
                 double(cell.stats->overlapped) / 1e6);
    }
    DistributionView dist;
    dist.setReports(reports);
    QVERIFY(dist.currentGroup() >= 0);
    const auto& g = dist.groups()[size_t(dist.currentGroup())];
    QCOMPARE(dist.plottedPoints().size(),
             reports[size_t(g.report)]->signatures[g.signature].members.size());

    QTemporaryDir dir;
    for (const char* view : {"steps", "distribution"}) {
        const QString file = dir.filePath(QStringLiteral("%1-%2.png").arg(name, view));
        QString error;
        QVERIFY2(exportPlot(reports, QString::fromLatin1(view), file, {1200, 700}, &error),
                 qPrintable(error));
        QCOMPARE(QImage(file).size(), QSize(1200, 700));
        keep(file);
    }
}

QTEST_MAIN(TestPlotExport)
#include "tst_plotexport.moc"
