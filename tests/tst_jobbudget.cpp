// Local parallelism bounded by memory (issue 17, item 4): on a pool of 8 threads, a job's ranks
// run at once only as many as the memory budget holds by their projected size (file sizes, as
// HTA sizes its pool), not as many as there are ranks or threads. The pool is made with 8
// threads (RINGSCOPE_THREADS) so that the budget, not this machine's 2 cores, is the limit.
#include "bench/tracegen_seed.h"
#include "core/analysis/reportjson.h"
#include "core/job/jobloader.h"
#include "core/job/jobpipeline.h"
#include "core/workpool.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <sstream>

using namespace rs;

class TstJobBudget : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::vector<RankInput> m_inputs;
    std::uint64_t m_biggest = 0, m_smallest = ~std::uint64_t(0);

private slots:
    void initTestCase()
    {
        QCOMPARE(WorkPool::global().threadCount(), 8);
        QVERIFY(m_dir.isValid());
        gen::SeedCaseOptions o;
        o.ranks = 8;
        QVERIFY(gen::writeSeedCaseJob(m_dir.path().toStdString(), o));
        std::string error;
        m_inputs = discoverJob({m_dir.path().toStdString()}, &error);
        QCOMPARE(m_inputs.size(), std::size_t(8));
        for (const RankInput& in : m_inputs) {
            m_biggest = std::max(m_biggest, projectedRankBytes(in.path));
            m_smallest = std::min(m_smallest, projectedRankBytes(in.path));
        }
        QVERIFY(m_smallest > 0);
    }

    void budgetNotThreadsBoundsRanksAtOnce_data()
    {
        QTest::addColumn<int>("ranksInBudget");
        QTest::newRow("1 rank") << 1;
        QTest::newRow("2 ranks") << 2;
        QTest::newRow("3 ranks") << 3;
    }

    void budgetNotThreadsBoundsRanksAtOnce()
    {
        QFETCH(int, ranksInBudget);
        PipelineOptions options;
        // Room for ranksInBudget of the biggest ranks and a half: never one more at once.
        options.load.maxMemoryBytes = m_biggest * ranksInBudget + m_biggest / 2;
        options.maxParallel = 8;
        const PipelineResult r = runPipeline(m_inputs, options);
        QCOMPARE(r.budget, options.load.maxMemoryBytes);
        const auto mostThatFit = static_cast<int>(r.budget / m_smallest);
        QVERIFY2(r.peakRunning >= 1 && r.peakRunning <= mostThatFit &&
                     r.peakRunning <= ranksInBudget + 1,
                 qPrintable(QStringLiteral("%1 ranks at once, %2 fit in the budget")
                                .arg(r.peakRunning)
                                .arg(mostThatFit)));
        QVERIFY2(r.peakHeld <= r.budget,
                 (std::to_string(r.peakHeld) + " > " + std::to_string(r.budget)).c_str());
        // Every rank was either loaded or refused with a message, none lost.
        QCOMPARE(r.traces.size() + r.errors.size(), std::size_t(8));
        QVERIFY(!r.traces.empty());
    }

    void reportsOnlyFreeTracesSoTheBudgetAdmitsEveryRank()
    {
        // A budget of one and a half ranks, smaller than the job: keeping the traces (the
        // viewer) refuses the ranks that cannot fit next to the loaded ones; letting each go
        // once analysed (analyze) admits every rank in turn and gives the same job report as an
        // ample budget.
        PipelineOptions small;
        small.load.maxMemoryBytes = m_biggest + m_biggest / 2;
        small.maxParallel = 8;
        const PipelineResult kept = runPipeline(m_inputs, small);
        QVERIFY2(
            kept.reports.size() < 8 && !kept.errors.empty(),
            qPrintable(
                QStringLiteral("%1 ranks kept in a budget of 1.5 ranks").arg(kept.reports.size())));

        small.keepTraces = false;
        const PipelineResult freed = runPipeline(m_inputs, small);
        QVERIFY2(freed.errors.empty(), freed.errors.empty() ? "" : freed.errors.front().c_str());
        QCOMPARE(freed.reports.size(), std::size_t(8));
        QVERIFY(freed.peakHeld <= freed.budget);
        QVERIFY(freed.peakRunning <= 1 + 1);
        QVERIFY(freed.job);
        for (std::size_t i = 0; i < freed.reports.size(); ++i) {
            QVERIFY(!freed.traces[i]);
            QVERIFY(!freed.reports[i]->trace);
            QVERIFY(freed.reports[i]->facts);
        }

        PipelineOptions ample;
        ample.load.maxMemoryBytes = m_biggest * 100;
        const PipelineResult all = runPipeline(m_inputs, ample);
        QCOMPARE(all.reports.size(), std::size_t(8));
        std::ostringstream a, b;
        writeReportJson(a, all.reportInputs(), all.jobReport());
        writeReportJson(b, freed.reportInputs(), freed.jobReport());
        QVERIFY(!a.str().empty());
        QVERIFY(a.str() == b.str());
        QCOMPARE(QString::fromStdString(reportToText(freed.reportInputs(), freed.jobReport())),
                 QString::fromStdString(reportToText(all.reportInputs(), all.jobReport())));
    }

    void ampleBudgetIsBoundedByThreads()
    {
        // With room for every rank, the limit is the pool's threads and maxParallel.
        PipelineOptions options;
        options.load.maxMemoryBytes = m_biggest * 100;
        options.maxParallel = 3;
        const PipelineResult r = runPipeline(m_inputs, options);
        QVERIFY(r.peakRunning >= 1 && r.peakRunning <= 3);
        QCOMPARE(r.traces.size(), std::size_t(8));
        QVERIFY(r.errors.empty());
    }
};

int main(int argc, char** argv)
{
    // Before the pool exists: 8 threads, more than the ranks the budgets above hold.
    qputenv("RINGSCOPE_THREADS", "8");
    QCoreApplication app(argc, argv);
    TstJobBudget t;
    return QTest::qExec(&t, argc, argv);
}

#include "tst_jobbudget.moc"
