// Distribution view: points, histogram, boxes and mode marks equal the report; clicks on a
// point emit its collective; highlighting switches to the collective's group.

#include "tests/support/reportfixture.h"
#include "tests/testutil.h"
#include "ui/plots/distributionview.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QSignalSpy>
#include <QtTest>

#include <map>

using namespace rs;

class TestDistributionView : public QObject {
    Q_OBJECT
private slots:
    void groupsAndDefault();
    void seriesEqualReport();
    void memcpyShare();
    void clickAndHighlight();
    void comboSwitchesGroup();
    void emptyReports();
};

void TestDistributionView::groupsAndDefault()
{
    auto rep = test::seedCaseReport();
    DistributionView view;
    view.setReports({rep});
    QCOMPARE(int(view.groups().size()), 2);
    QCOMPARE(view.groupCombo()->count(), 2);
    // Opens on the group with the anomalous ops: the AllReduce signature.
    QCOMPARE(view.groups()[size_t(view.currentGroup())].signature, 0u);
    QCOMPARE(view.groups()[size_t(view.currentGroup())].anomalous, 3);
    QVERIFY(view.groupCombo()->currentText().contains(QStringLiteral("3 anomalous")));

    // Two ranks: one entry per rank and signature, labelled with the rank.
    DistributionView two;
    two.setReports({test::seedCaseReport(0), test::seedCaseReport(1)});
    QCOMPARE(two.groupCombo()->count(), 4);
    QVERIFY(two.groupCombo()->itemText(2).startsWith(QStringLiteral("rank 1")));
}

void TestDistributionView::seriesEqualReport()
{
    auto rep = test::seedCaseReport();
    DistributionView view;
    view.setReports({rep});
    const SignatureGroup& sig = rep->signatures[0];
    const auto& points = view.plottedPoints();
    QCOMPARE(points.size(), sig.members.size());
    std::map<int, int> perClass;
    for (const auto& p : points) {
        const Collective& c = rep->collectives[p.collective];
        QCOMPARE(p.x, double(c.dur) / 1e6);
        QCOMPARE(p.row, *c.mode);
        QVERIFY(qAbs(p.y - p.row) <= 0.25);
        perClass[p.cls]++;
        QCOMPARE(p.cls, c.anomalous         ? DistributionView::Anomalous
                        : c.waiting         ? DistributionView::Waiting
                        : c.memcpyCount > 0 ? DistributionView::InternalMemcpy
                                            : DistributionView::NoMemcpy);
    }
    QCOMPARE(perClass[DistributionView::Anomalous], 3);
    QCOMPARE(perClass[DistributionView::InternalMemcpy], 1);
    QCOMPARE(perClass[DistributionView::NoMemcpy], 2);
    for (int c = 0; c < DistributionView::PointClassCount; ++c)
        QCOMPARE(view.points(DistributionView::PointClass(c))->dataCount(), perClass[c]);

    // Histogram: every op in exactly one bin of its class, at the right place.
    const double w = view.binWidth();
    QVERIFY(w > 0);
    for (int c = 0; c < DistributionView::PointClassCount; ++c) {
        QCPBars* bars = view.histogram(DistributionView::PointClass(c));
        double total = 0;
        for (int b = 0; b < bars->dataCount(); ++b) {
            const double key = bars->data()->at(b)->key;
            int expected = 0;
            for (const auto& p : points)
                expected += (p.cls == c && p.x >= key - w / 2 && p.x < key + w / 2) ? 1 : 0;
            QCOMPARE(bars->data()->at(b)->value, double(expected));
            total += bars->data()->at(b)->value;
        }
        QCOMPARE(total, double(perClass[c]));
    }

    // Mode marks A and B at the modes' means; one box per mode with the members' range.
    QCOMPARE(int(view.modeMarks().size()), 2);
    QCOMPARE(view.modeMarks()[0].first, QStringLiteral("A"));
    QCOMPARE(view.modeMarks()[1].first, QStringLiteral("B"));
    QCOMPARE(view.modeMarks()[0].second, double(sig.modes[0].meanNs) / 1e6);
    QCOMPARE(view.modeMarks()[1].second, double(sig.modes[1].meanNs) / 1e6);
    QCOMPARE(view.boxes()->dataCount(), 2);
    QCOMPARE(view.boxes()->data()->at(1)->minimum, double(sig.modes[1].minNs) / 1e6);
    QCOMPARE(view.boxes()->data()->at(1)->maximum, double(sig.modes[1].maxNs) / 1e6);
}

void TestDistributionView::memcpyShare()
{
    auto rep = test::seedCaseReport();
    DistributionView view;
    view.setReports({rep});
    QCPBars* share = view.memcpyShare();
    QCOMPARE(share->dataCount(), 6);
    for (int i = 0; i < 6; ++i) {
        const StepStats& st = rep->steps[size_t(i)];
        QCOMPARE(share->data()->at(i)->value,
                 100.0 * double(st.internalMemcpy) / double(st.end - st.start));
    }
    QVERIFY(share->data()->at(1)->value > 20); // step 11: the 200 ms copy
    QVERIFY(share->data()->at(0)->value == 0);
}

void TestDistributionView::clickAndHighlight()
{
    auto rep = test::seedCaseReport();
    DistributionView view;
    view.resize(1100, 650);
    view.setReports({rep});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.plot()->replot();
    QSignalSpy spy(&view, &DistributionView::collectiveClicked);
    QSignalSpy steps(&view, &DistributionView::stepClicked);
    QCPAxis* x = view.stripRect()->axis(QCPAxis::atBottom);
    QCPAxis* y = view.stripRect()->axis(QCPAxis::atLeft);
    for (const auto& p : view.plottedPoints()) {
        const QPoint pos(qRound(x->coordToPixel(p.x)), qRound(y->coordToPixel(p.y)));
        const EventId expected = rep->collectives[p.collective].event;
        QTest::mouseClick(view.plot(), Qt::LeftButton, {}, pos);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).value<EventId>(), expected);
        QCOMPARE(*view.highlightedCollective(), expected);
        const QString tip = view.toolTipAt(pos);
        QVERIFY2(tip.contains(QString::fromStdString(rep->collectives[p.collective].name)),
                 qPrintable(tip));
        spy.clear();
    }
    // A click on the memcpy-share bar of step 13 selects that step.
    QCPAxis* qx = view.shareRect()->axis(QCPAxis::atBottom);
    QCPAxis* qy = view.shareRect()->axis(QCPAxis::atLeft);
    QTest::mouseClick(view.plot(), Qt::LeftButton, {},
                      QPoint(qRound(qx->coordToPixel(3)), qRound(qy->coordToPixel(5))));
    QCOMPARE(steps.count(), 1);
    QCOMPARE(steps.at(0).at(1).toInt(), 13);
    QCOMPARE(spy.count(), 0);

    // Tooltip of a histogram bin names its count.
    const auto& a = view.plottedPoints().front();
    QCPAxis* hx = view.histogramRect()->axis(QCPAxis::atBottom);
    QCPAxis* hy = view.histogramRect()->axis(QCPAxis::atLeft);
    const QString binTip =
        view.toolTipAt(QPoint(qRound(hx->coordToPixel(a.x)), qRound(hy->coordToPixel(0.5))));
    QVERIFY2(binTip.contains(QStringLiteral("ops")), qPrintable(binTip));
}

void TestDistributionView::comboSwitchesGroup()
{
    auto rep = test::seedCaseReport();
    DistributionView view;
    view.setReports({rep});
    // Highlighting an AllGather switches to its group; a copy of an AllReduce switches back.
    const Collective* gather = nullptr;
    const Collective* reduce = nullptr;
    for (const Collective& c : rep->collectives) {
        if (c.kind == CollectiveKind::AllGather && !gather) gather = &c;
        if (c.anomalous && !reduce) reduce = &c;
    }
    QVERIFY(gather && reduce);
    QSignalSpy spy(&view, &DistributionView::collectiveClicked);
    view.highlightCollective(gather->event);
    QCOMPARE(spy.count(), 0);
    QCOMPARE(view.groups()[size_t(view.currentGroup())].signature, 1u);
    QCOMPARE(view.groupCombo()->currentIndex(), view.currentGroup());
    QCOMPARE(view.plottedPoints().size(), rep->signatures[1].members.size());
    QCOMPARE(*view.highlightedCollective(), gather->event);
    view.highlightCollective(reduce->copies.front().event);
    QCOMPARE(view.groups()[size_t(view.currentGroup())].signature, 0u);
    QCOMPARE(*view.highlightedCollective(), reduce->event);
    view.highlightCollective(EventId(424242));
    QVERIFY(!view.highlightedCollective());
    // The combo box drives the group.
    view.groupCombo()->setCurrentIndex(1);
    QCOMPARE(view.currentGroup(), 1);
    QCOMPARE(view.plottedPoints().size(), rep->signatures[1].members.size());
    QVERIFY(view.modeMarks().size() == 1);
}

void TestDistributionView::emptyReports()
{
    DistributionView view;
    view.setReports({});
    QCOMPARE(view.currentGroup(), -1);
    view.setReports({std::make_shared<AnalysisReport>(), nullptr});
    QCOMPARE(view.currentGroup(), -1);
    QVERIFY(view.plottedPoints().empty());
    view.highlightCollective(3);
    QVERIFY(!view.highlightedCollective());
}

QTEST_MAIN(TestDistributionView)
#include "tst_distributionview.moc"
