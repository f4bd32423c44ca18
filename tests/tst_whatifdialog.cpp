// The "What if…" dialog (issue 44.3) on a 4-rank seed job in the viewer: the replay runs on
// the pool (run() returns at once, the answer comes later from another thread), no change
// predicts the measured steps, removing the internal memcpy predicts what core's whatIf on the
// ranks' own traces predicts, the Steps plot shows the prediction as a series, the findings'
// memcpy action presets the change, and a bad scale row is refused.

#include "bench/tracegen_seed.h"
#include "core/job/jobpipeline.h"
#include "core/job/whatif.h"
#include "tests/support/openwait.h"
#include "tests/testutil.h"
#include "ui/mainwindow.h"
#include "ui/panes/criticalpathcontroller.h"
#include "ui/panes/criticalpathpane.h"
#include "ui/panes/whatifdialog.h"
#include "ui/plots/stepsview.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <memory>

using namespace rs;
using rs::test::openAndWait;

class TstWhatIfDialog : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    gen::SeedCaseOptions m_seed;
    std::unique_ptr<MainWindow> m_w;

    WhatIfDialog* runChange(const WhatIfChange& c)
    {
        WhatIfDialog* d = m_w->criticalPath()->whatIf(c);
        QElapsedTimer t;
        t.start();
        if (!d->run()) return nullptr;
        // The GUI thread only posts the replay.
        if (t.elapsed() > 50) qWarning("run() held the GUI thread %lld ms", t.elapsed());
        if (!d->isRunning()) return nullptr;
        if (!QTest::qWaitFor([d] { return !d->isRunning(); }, 120000)) return nullptr;
        return d;
    }

    // The same change replayed by core on the ranks' own traces (`ringscope whatif`).
    WhatIfResult coreWhatIf(const WhatIfChange& c) const
    {
        const PipelineResult r = runPipeline({m_dir.path().toStdString()}, PipelineOptions{});
        return whatIf(r.traces, r.reports, r.jobReport(), c);
    }

private slots:
    void initTestCase()
    {
        m_seed.ranks = 4;
        m_seed.steps = 5;
        m_seed.badSteps = {1, 3};
        m_seed.badRank = 1;
        m_w = test::openSeedJobWindow(QStringLiteral("tst_whatifdialog"), m_dir.path(), m_seed);
        QVERIFY(m_w);
    }

    void cleanupTestCase() { m_w.reset(); }

    // No change: every step predicted at its measured time, computed off the GUI thread.
    void noChangeIsMeasured()
    {
        WhatIfDialog* d = runChange({});
        QVERIFY(d);
        QVERIFY(d->lastWorkerThread());
        QVERIFY(d->lastWorkerThread() != QThread::currentThread());
        const WhatIfResult& r = d->result();
        QCOMPARE(int(r.steps.size()), m_seed.steps);
        for (const StepPrediction& p : r.steps) {
            QVERIFY(p.measuredNs > 0);
            QVERIFY2(std::abs(double(p.predictedNs - p.measuredNs)) <= 0.005 * double(p.measuredNs),
                     qPrintable(QStringLiteral("step %1: %2 vs %3")
                                    .arg(p.step)
                                    .arg(p.predictedNs)
                                    .arg(p.measuredNs)));
        }
        QCOMPARE(d->table()->rowCount(), m_seed.steps);
        QVERIFY(d->totalLabel()->text().contains(QStringLiteral("Total")));
        // The measured times are core's own on the ranks' traces.
        const WhatIfResult core = coreWhatIf({});
        QCOMPARE(core.steps.size(), r.steps.size());
        for (std::size_t i = 0; i < r.steps.size(); ++i)
            QCOMPARE(r.steps[i].measuredNs, core.steps[i].measuredNs);
    }

    // Without the internal memcpy the mode-B steps shrink, as core predicts on the rank
    // traces; the Steps plot carries the measured and the predicted series.
    void removeMemcpyPredictsLess()
    {
        WhatIfChange c;
        c.removeInternalMemcpy = true;
        WhatIfDialog* d = runChange(c);
        QVERIFY(d);
        QVERIFY(d->removeMemcpyBox()->isChecked());
        const WhatIfResult& r = d->result();
        const WhatIfResult core = coreWhatIf(c);
        QCOMPARE(r.steps.size(), core.steps.size());
        for (std::size_t i = 0; i < r.steps.size(); ++i) {
            QCOMPARE(r.steps[i].step, core.steps[i].step);
            QCOMPARE(r.steps[i].predictedNs, core.steps[i].predictedNs);
        }
        QVERIFY(r.totalPredictedNs < r.totalMeasuredNs);
        const int bad = int(m_seed.stepBase) + m_seed.badSteps.front();
        for (const StepPrediction& p : r.steps)
            if (p.step == bad) QVERIFY(p.predictedNs < p.measuredNs * 9 / 10);
        StepsView* steps = m_w->stepsView();
        QTRY_VERIFY(steps->predictedGraph());
        QCOMPARE(steps->predictedGraph()->dataCount(), m_seed.steps);
        QCOMPARE(steps->measuredGraph()->dataCount(), m_seed.steps);
        QVERIFY(steps->predictedGraph()->name().contains(QStringLiteral("internal memcpy")));
        QCOMPARE(m_w->bottomTabs()->currentWidget(), static_cast<QWidget*>(steps));
        // The plot's predicted point of the bad step is its prediction in ms.
        for (const StepPrediction& p : r.steps)
            if (p.step == bad) {
                bool found = false;
                for (auto it = steps->predictedGraph()->data()->begin();
                     it != steps->predictedGraph()->data()->end(); ++it)
                    found = found || std::abs(it->value - double(p.predictedNs) / 1e6) < 1e-6;
                QVERIFY(found);
            }
    }

    // Limited to a rank that only waits, removing the memcpy gains nothing.
    void rankLimit()
    {
        WhatIfChange c;
        c.removeInternalMemcpy = true;
        c.rank = 3;
        WhatIfDialog* d = runChange(c);
        QVERIFY(d);
        QVERIFY(d->rankBox()->isChecked());
        QCOMPARE(d->rankSpin()->value(), 3);
        QCOMPARE(d->result().totalPredictedNs, d->result().totalMeasuredNs);
    }

    void scaleRows()
    {
        WhatIfDialog* d = m_w->criticalPath()->whatIf({});
        d->scaleEdit()->setPlainText(QStringLiteral("MatMul*=half"));
        QVERIFY(!d->change());
        QVERIFY(!d->run());
        d->scaleEdit()->setPlainText(QStringLiteral("  *=0.5 \n"));
        const auto c = d->change();
        QVERIFY(c);
        QCOMPARE(int(c->scale.size()), 1);
        QCOMPARE(c->scale.front().glob, std::string("*"));
        QCOMPARE(c->scale.front().factor, 0.5);
        QVERIFY(runChange(*c));
        QVERIFY(d->result().totalPredictedNs < d->result().totalMeasuredNs);
    }

    // A finding about the copying rank's internal memcpy presets "remove it on that rank".
    void findingPresetsTheChange()
    {
        const ReportPtr rep = m_w->report();
        const Finding* memcpy = nullptr;
        for (const Finding& f : rep->findings)
            if (!memcpy && CriticalPathController::isMemcpyFinding(f)) memcpy = &f;
        QVERIFY(memcpy);
        const WhatIfChange c = CriticalPathController::memcpyChange(*memcpy);
        QVERIFY(c.removeInternalMemcpy);
        QCOMPARE(c.rank, std::optional<int>(m_seed.badRank));
        // The tab's button opens the same dialog, the memcpy's removal preset on a step that
        // waited on one, not on a step that did not.
        CriticalPathPane* pane = m_w->criticalPath()->pane();
        QVERIFY(pane->whatIfButton()->isEnabled());
        WhatIfDialog* d = m_w->criticalPath()->whatIfDialog();
        for (const int i : {m_seed.badSteps.front(), 0}) {
            d->hide();
            QVERIFY(pane->setStep(int(m_seed.stepBase) + i));
            pane->whatIfButton()->click();
            QVERIFY(d->isVisible());
            QCOMPARE(d->removeMemcpyBox()->isChecked(), i == m_seed.badSteps.front());
        }
    }
};

QTEST_MAIN(TstWhatIfDialog)
#include "tst_whatifdialog.moc"
