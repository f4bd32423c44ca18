// Steps view: plotted series equal the report, clicks select steps, tooltips, spread table.

#include "tests/support/reportfixture.h"
#include "tests/testutil.h"
#include "ui/plots/stepsview.h"

#include <qcustomplot.h>

#include <QSignalSpy>
#include <QtTest>

using namespace rs;

namespace {

double msOf(TimeNs ns)
{
    return double(ns) / 1e6;
}

} // namespace

class TestStepsView : public QObject {
    Q_OBJECT
private slots:
    void spread();
    void seriesEqualReport();
    void severalRanks();
    void clickEmitsStep();
    void highlightAndTooltip();
    void emptyReports();
};

void TestStepsView::spread()
{
    const plots::Spread s = plots::spreadOf({4, 1, 3, 2});
    QCOMPARE(s.n, 4);
    QCOMPARE(s.min, 1.0);
    QCOMPARE(s.max, 4.0);
    QCOMPARE(s.median, 2.5);
    QCOMPARE(s.mean, 2.5);
    QVERIFY(qAbs(s.cv - std::sqrt(1.25) / 2.5) < 1e-12);
    QCOMPARE(plots::spreadOf({7, 1, 5}).median, 5.0);
    QCOMPARE(plots::spreadOf({}).n, 0);
    QCOMPARE(plots::spreadOf({0, 0}).cv, 0.0);
}

void TestStepsView::seriesEqualReport()
{
    auto rep = test::seedCaseReport();
    StepsView view;
    view.setReports({rep});
    const auto& steps = rep->steps;
    QCOMPARE(int(steps.size()), 6);
    for (int s = 0; s < StepsView::SeriesCount; ++s)
        QCOMPARE(view.bars(StepsView::Series(s))->dataCount(), 6);
    QVERIFY(view.computingGraph(0));
    QVERIFY(!view.computingGraph(1));
    QCOMPARE(view.computingGraph(0)->dataCount(), 6);
    for (int i = 0; i < 6; ++i) {
        const StepStats& st = steps[size_t(i)];
        auto val = [&](StepsView::Series s) { return view.bars(s)->data()->at(i)->value; };
        QCOMPARE(view.bars(StepsView::ComputingOnly)->data()->at(i)->key, double(i));
        QCOMPARE(val(StepsView::ComputingOnly), msOf(st.computing - st.overlapped));
        QCOMPARE(val(StepsView::Overlapped), msOf(st.overlapped));
        QCOMPARE(val(StepsView::CommNotOverlapped), msOf(st.communicationNotOverlapped));
        QCOMPARE(val(StepsView::Free), msOf(st.free));
        // The stack's top is the device busy window.
        double top = 0;
        for (int s = 0; s < StepsView::SeriesCount; ++s)
            top += val(StepsView::Series(s));
        QVERIFY(qAbs(top - msOf(st.busyEnd - st.busyStart)) < 1e-9);
        QCOMPARE(view.computingGraph(0)->data()->at(i)->value, msOf(st.computing));
        QCOMPARE(view.communicationGraph(0)->data()->at(i)->value, msOf(st.communication));
    }
    // Step numbers label the x axis; the y axes are in ms.
    auto ticker =
        view.barsRect()->axis(QCPAxis::atBottom)->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    QCOMPARE(ticker->ticks().value(0), QStringLiteral("10"));
    QCOMPARE(ticker->ticks().value(5), QStringLiteral("15"));
    QVERIFY(view.barsRect()->axis(QCPAxis::atLeft)->label().contains(QStringLiteral("ms")));
    // Spread: communication 195.2..410.1, median of 6 = (201.5 + 402.3) / 2.
    const QString text = view.spreadText();
    QVERIFY2(text.contains(QStringLiteral("communication     195.2    301.9    410.1")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("computing         318.9    320.2    322.3")),
             qPrintable(text));
}

void TestStepsView::severalRanks()
{
    auto r0 = test::seedCaseReport(0);
    auto r1 = test::seedCaseReport(1);
    StepsView view;
    view.setReports({r0, r1});
    QCOMPARE(view.bars(StepsView::ComputingOnly)->dataCount(), 12);
    QVERIFY(view.computingGraph(1));
    const auto& cells = view.layout().cells;
    QCOMPARE(int(cells.size()), 12);
    // Grouped by step: rank 0 left of rank 1 inside each group, groups one unit apart.
    for (int i = 0; i < 6; ++i) {
        const auto& a = cells[size_t(2 * i)];
        const auto& b = cells[size_t(2 * i + 1)];
        QCOMPARE(a.rank, 0);
        QCOMPARE(b.rank, 1);
        QCOMPARE(a.step, 10 + i);
        QCOMPARE(b.step, 10 + i);
        QVERIFY(a.key < i && b.key > i);
        const StepStats& st1 = r1->steps[size_t(i)];
        QCOMPARE(view.bars(StepsView::ComputingOnly)->data()->at(2 * i + 1)->value,
                 msOf(st1.computing - st1.overlapped));
        QCOMPARE(view.computingGraph(1)->data()->at(i)->value, msOf(st1.computing));
    }
}

void TestStepsView::clickEmitsStep()
{
    auto rep = test::seedCaseReport(3);
    StepsView view;
    view.resize(1000, 600);
    view.setReports({rep});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.plot()->replot();
    QSignalSpy spy(&view, &StepsView::stepClicked);
    QCPBars* bars = view.bars(StepsView::CommNotOverlapped);
    for (int i : {3, 0, 5}) {
        const double key = bars->data()->at(i)->key;
        const double base = bars->data()->at(i)->value / 2 +
                            view.bars(StepsView::ComputingOnly)->data()->at(i)->value +
                            view.bars(StepsView::Overlapped)->data()->at(i)->value;
        QCPAxis* x = view.barsRect()->axis(QCPAxis::atBottom);
        QCPAxis* y = view.barsRect()->axis(QCPAxis::atLeft);
        const QPoint pos(qRound(x->coordToPixel(key)), qRound(y->coordToPixel(base)));
        QTest::mouseClick(view.plot(), Qt::LeftButton, {}, pos);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).toInt(), 3);
        QCOMPARE(spy.at(0).at(1).toInt(), rep->steps[size_t(i)].step);
        QCOMPARE(view.highlightedStep()->second, rep->steps[size_t(i)].step);
        spy.clear();
    }
    // Between two groups: nothing.
    QCPAxis* x = view.barsRect()->axis(QCPAxis::atBottom);
    QCPAxis* y = view.barsRect()->axis(QCPAxis::atLeft);
    QTest::mouseClick(view.plot(), Qt::LeftButton, {},
                      QPoint(qRound(x->coordToPixel(2.5)), qRound(y->coordToPixel(10))));
    QCOMPARE(spy.count(), 0);
    // A point of the lines chart selects its step too.
    QCPGraph* comm = view.communicationGraph(0);
    QCPAxis* lx = view.linesRect()->axis(QCPAxis::atBottom);
    QCPAxis* ly = view.linesRect()->axis(QCPAxis::atLeft);
    QTest::mouseClick(view.plot(), Qt::LeftButton, {},
                      QPoint(qRound(lx->coordToPixel(comm->data()->at(1)->key)),
                             qRound(ly->coordToPixel(comm->data()->at(1)->value))));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(1).toInt(), 11);
}

void TestStepsView::highlightAndTooltip()
{
    auto rep = test::seedCaseReport();
    StepsView view;
    view.resize(900, 500);
    view.setReports({rep});
    view.plot()->replot();
    QSignalSpy spy(&view, &StepsView::stepClicked);
    view.highlightStep(0, 13);
    QCOMPARE(spy.count(), 0); // a slot never echoes a signal
    QVERIFY(view.highlightedStep());
    QCOMPARE(view.highlightedStep()->second, 13);
    view.highlightStep(0, 99);
    QVERIFY(!view.highlightedStep());

    QCPAxis* x = view.barsRect()->axis(QCPAxis::atBottom);
    QCPAxis* y = view.barsRect()->axis(QCPAxis::atLeft);
    const QString tip =
        view.toolTipAt(QPoint(qRound(x->coordToPixel(1)), qRound(y->coordToPixel(100))));
    QVERIFY2(tip.contains(QStringLiteral("step 11")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("communication: 410.100 ms")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("internal memcpy: 200.500 ms")), qPrintable(tip));
    QVERIFY(view.toolTipAt(QPoint(2, 2)).isEmpty());
}

void TestStepsView::emptyReports()
{
    StepsView view;
    view.setReports({});
    QCOMPARE(view.bars(StepsView::Free)->dataCount(), 0);
    auto rep = std::make_shared<AnalysisReport>();
    view.setReports({rep, nullptr});
    QCOMPARE(view.bars(StepsView::Free)->dataCount(), 0);
    QVERIFY(view.spreadText().isEmpty());
    view.highlightStep(0, 1);
    QVERIFY(!view.highlightedStep());
}

QTEST_MAIN(TestStepsView)
#include "tst_stepsview.moc"
