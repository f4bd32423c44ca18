// The rank x step heatmap shows each rank's step figures and turns a click into a selection.
#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/traceloader.h"
#include "tests/testutil.h"
#include "ui/heatmap/rankstepheatmap.h"

#include <qcustomplot.h>

#include <QSignalSpy>
#include <QtTest>

#include <cmath>

using namespace rs;

class TstHeatmap : public QObject {
    Q_OBJECT
private slots:
    void valuesAndClicks()
    {
        gen::SeedCaseOptions o;
        o.ranks = 4;
        o.steps = 4;
        o.badSteps = {1};
        o.badRank = 3;
        std::vector<ReportPtr> reports;
        for (int r = 0; r < o.ranks; ++r) {
            const std::string text = gen::seedCaseTrace(o, r);
            LoadResult lr = test::loadText(text);
            QVERIFY2(lr.complete(), lr.message.c_str());
            reports.push_back(analyze(lr.trace));
        }
        RankStepHeatmap map;
        map.resize(600, 400);
        map.setReports(reports);
        map.show();
        QVERIFY(QTest::qWaitForWindowExposed(&map));
        QCOMPARE(map.ranks().size(), size_t(4));
        QCOMPARE(map.steps().size(), size_t(4));
        // It opens on the metric that points at the copying rank; its bad step is the only hot
        // cell there.
        QCOMPARE(map.metric(), RankStepHeatmap::Metric::ExtraMemcpy);
        QVERIFY(map.valueMs(3, 1) > 100);
        for (int r = 0; r < 3; ++r)
            QVERIFY2(map.valueMs(r, 1) < 1, qPrintable(QString::number(map.valueMs(r, 1))));
        QVERIFY(map.valueMs(3, 0) < 1);
        map.setMetric(RankStepHeatmap::Metric::Communication);
        for (int r = 0; r < 4; ++r) {
            for (std::size_t s = 0; s < map.steps().size(); ++s) {
                const StepStats* st = nullptr;
                for (const StepStats& x : reports[r]->steps)
                    if (x.step == map.steps()[s]) st = &x;
                QVERIFY(st);
                QCOMPARE(map.valueMs(r, int(s)), double(st->communication) / 1e6);
            }
        }
        // The bad step's communication stands out on every rank (the others wait).
        QVERIFY(map.valueMs(0, 1) > 1.5 * map.valueMs(0, 0));
        map.setMetric(RankStepHeatmap::Metric::InternalMemcpy);
        QVERIFY(map.valueMs(3, 1) > map.valueMs(0, 1)); // only rank 3 copies
        map.plot()->replot();
        QSignalSpy spy(&map, &RankStepHeatmap::cellClicked);
        QTest::mouseClick(map.plot(), Qt::LeftButton, {}, map.cellCenter(2, 3));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 2);
        QCOMPARE(spy.at(0).at(1).toInt(), map.steps()[3]);
        const QString png = test::binaryDir() + "/heatmap.png";
        QVERIFY(map.plot()->savePng(png, 600, 400));
    }
};

QTEST_MAIN(TstHeatmap)
#include "tst_heatmap.moc"
