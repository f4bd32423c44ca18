// Many ranks: discovering a job on disk, loading it in parallel under one budget, matching
// collectives across ranks and naming the rank that delays the others.
#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/job/crossrank.h"
#include "core/job/jobloader.h"
#include "tests/testutil.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace rs;

namespace {

std::vector<ReportPtr> analyzeAll(const std::vector<TracePtr>& traces)
{
    std::vector<ReportPtr> out;
    for (const TracePtr& t : traces)
        out.push_back(analyze(t));
    return out;
}

const Finding* findRule(const JobReport& job, const std::string& rule, int nth = 0)
{
    for (const Finding& f : job.findings)
        if (f.rule == rule && nth-- == 0) return &f;
    return nullptr;
}

} // namespace

class TstJob : public QObject {
    Q_OBJECT
private slots:
    void ranksFromNames()
    {
        QCOMPARE(*rankFromName("rank3.json"), 3);
        QCOMPARE(*rankFromName("rank_12.pt.trace.json.gz"), 12);
        QCOMPARE(*rankFromName("worker-5"), 5);
        QCOMPARE(*rankFromName("rank0_ascend_pt"), 0);
        QVERIFY(!rankFromName("trace_view.json"));
        QVERIFY(!rankFromName("frank9")); // not a rank word
    }

    void discoversAscendJob()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        std::string error;
        const auto inputs =
            discoverJob({test::publicTrace("ascend_torchnpu_level1_2rank").toStdString()}, &error);
        QCOMPARE(inputs.size(), size_t(2));
        QCOMPARE(*inputs[0].rank, 0);
        QCOMPARE(*inputs[1].rank, 1);
        JobProgress progress;
        const JobLoadResult job = loadJob(inputs, {}, &progress);
        QVERIFY(job.errors.empty());
        QCOMPARE(job.traces.size(), size_t(2));
        QCOMPARE(*job.traces[1]->rank(), 1);
        QCOMPARE(progress.ranksDone.load(), 2);
        QCOMPARE(progress.done.load(), progress.total.load());

        const JobReport report = analyzeJob(analyzeAll(job.traces));
        // The 4 hcom_allReduce ops of each rank pair up as 4 instances of 2 ranks.
        QCOMPARE(report.collectives.size(), size_t(4));
        for (const CrossRankCollective& c : report.collectives) {
            QCOMPARE(c.ops.size(), size_t(2));
            QCOMPARE(c.kind, CollectiveKind::AllReduce);
            QVERIFY(c.startSkew >= 0);
        }
    }

    void seedCaseEightRanksNamesTheCopyingRank()
    {
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 8;
        o.steps = 5;
        o.badSteps = {1, 3};
        o.badRank = 2;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        std::string error;
        const auto inputs = discoverJob({dir.path().toStdString()}, &error);
        QCOMPARE(inputs.size(), size_t(8));
        const JobLoadResult loaded = loadJob(inputs);
        QCOMPARE(loaded.traces.size(), size_t(8));
        for (int r = 0; r < 8; ++r)
            QCOMPARE(*loaded.traces[r]->rank(), r);
        const JobReport job = analyzeJob(analyzeAll(loaded.traces));
        int delayed = 0;
        for (const CrossRankCollective& c : job.collectives) {
            QCOMPARE(c.ops.size(), size_t(8));
            if (!c.delayingRank) continue;
            ++delayed;
            QCOMPARE(*c.delayingRank, 2);
            QVERIFY2(c.cause.find("internal memcpy") != std::string::npos, c.cause.c_str());
            // ~200 ms of extra copy on rank 2, so each of the 7 others waits ~200 ms.
            QVERIFY2(c.delayNs > 150000000 && c.delayNs < 250000000,
                     std::to_string(c.delayNs).c_str());
            QVERIFY(c.waitCausedNs > 7 * 150'000'000LL);
        }
        QCOMPARE(delayed, 2);
        const Finding* f = findRule(job, "job-rank-delays-collective");
        QVERIFY(f);
        QVERIFY(!f->rank);
        QCOMPARE(f->ranks.front(), 2);
        QCOMPARE(f->ranks.size(), size_t(8));
        QCOMPARE(*f->eventsRank, 2);
        QVERIFY2(f->title.find("Rank 2 delays") != std::string::npos, f->title.c_str());
        QVERIFY2(f->title.find("ranks 0, 1, 3-7 wait") != std::string::npos, f->title.c_str());
        QVERIFY(findRule(job, "job-rank-delays-collective", 1)); // the second bad step
        QVERIFY(!findRule(job, "job-rank-delays-collective", 2));
        const Finding* slow = findRule(job, "job-slow-rank");
        QVERIFY(slow);
        QVERIFY2(slow->title.find("Rank 2") == 0, slow->title.c_str());
    }

    void kinetoJobAndAlignment()
    {
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.kineto = true;
        o.ranks = 4;
        o.steps = 4;
        o.badSteps = {2};
        o.badRank = 1;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        std::string error;
        const auto inputs = discoverJob({dir.path().toStdString()}, &error);
        QCOMPARE(inputs.size(), size_t(4));
        const JobLoadResult loaded = loadJob(inputs);
        QCOMPARE(loaded.traces.size(), size_t(4));
        const JobReport job = analyzeJob(analyzeAll(loaded.traces));
        QVERIFY(!job.collectives.empty());
        int delayed = 0;
        for (const CrossRankCollective& c : job.collectives)
            if (c.delayingRank) {
                ++delayed;
                QCOMPARE(*c.delayingRank, 1);
            }
        QCOMPARE(delayed, 1);
        // Aligning on an instance makes its ends meet on every rank.
        const auto offsets = alignOnCollective(job, 0);
        const CrossRankCollective& c0 = job.collectives[0];
        for (const RankOp& op : c0.ops)
            QCOMPARE(op.end - job.offsets[op.report] + offsets[op.report],
                     c0.ops[0].end - job.offsets[c0.ops[0].report] + offsets[c0.ops[0].report]);
    }

    void budgetAndErrors()
    {
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 3;
        o.steps = 2;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        std::string error;
        auto inputs = discoverJob({dir.path().toStdString()}, &error);
        QCOMPARE(inputs.size(), size_t(3));
        inputs.push_back({dir.filePath("missing.json").toStdString(), 9});
        const JobLoadResult loaded = loadJob(inputs);
        QCOMPARE(loaded.traces.size(), size_t(3));
        QCOMPARE(loaded.errors.size(), size_t(1)); // the missing rank is reported, not fatal
        // A budget too small for any rank: every rank refused with a message.
        LoadOptions tiny;
        tiny.maxMemoryBytes = 4096;
        const JobLoadResult refused =
            loadJob(discoverJob({dir.path().toStdString()}, &error), tiny);
        QCOMPARE(refused.traces.size(), size_t(0));
        QCOMPARE(refused.errors.size(), size_t(3));
        JobProgress cancelled;
        cancelled.cancel = true;
        const JobLoadResult none = loadJob(inputs, {}, &cancelled);
        QVERIFY(none.cancelled);
        // A rank cut short is loaded with what it holds and named in the warnings.
        QFile cut(dir.filePath("cut.json"));
        QVERIFY(cut.open(QIODevice::WriteOnly));
        cut.write(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},{"ph":"X")");
        cut.close();
        const JobLoadResult partial = loadJob({{cut.fileName().toStdString(), 7}});
        QCOMPARE(partial.traces.size(), size_t(1));
        QCOMPARE(partial.warnings.size(), size_t(1));
        QVERIFY(partial.errors.empty());
    }
};

QTEST_GUILESS_MAIN(TstJob)
#include "tst_job.moc"
