// Profiled collectives checked across ranks (core/job/collectivecheck.h, issue 44.5):
// collective-mismatch (kind, element count, dtype at one place of a group's sequence),
// collective-count-mismatch and collective-end-spread, on built jobs, on the seed job with a
// planted count mismatch (text, Kineto and database shapes, and a merge of rank summaries),
// and on every public job, where none of the three holds.

#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/job/crossrank.h"
#include "core/job/jobloader.h"
#include "core/job/jobpipeline.h"
#include "core/job/ranksummary.h"
#include "tests/testutil.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

using namespace rs;

namespace {

struct Call {
    CollectiveKind kind = CollectiveKind::AllReduce;
    std::uint64_t count = 1024;
    std::string dtype = "FP32";
    std::optional<int> step = 1;
    TimeNs start = 0, dur = 10'000'000;
    std::string group = "g0";
};

JobRank rankOf(int id, const std::vector<Call>& calls)
{
    AnalysisReport rep;
    for (const Call& c : calls) {
        Collective x;
        x.rank = id;
        x.kind = c.kind;
        x.name = collectiveKindName(c.kind);
        x.group = c.group;
        x.count = c.count;
        x.dtype = c.dtype;
        x.step = c.step;
        x.start = c.start;
        x.dur = c.dur;
        rep.collectives.push_back(std::move(x));
    }
    JobRank r = jobRankOf(rep);
    r.rank = id;
    return r;
}

// Four ranks with the same sequence: AllReduce, AllGather, AllReduce per step, steps 1-2.
std::vector<std::vector<Call>> sameCalls(int ranks = 4)
{
    std::vector<Call> calls;
    for (int step = 1; step <= 2; ++step)
        for (int k = 0; k < 3; ++k) {
            Call c;
            c.kind = k == 1 ? CollectiveKind::AllGather : CollectiveKind::AllReduce;
            c.step = step;
            c.start = step * 1'000'000'000LL + k * 100'000'000LL;
            calls.push_back(c);
        }
    return std::vector<std::vector<Call>>(ranks, calls);
}

JobReport jobOf(const std::vector<std::vector<Call>>& calls)
{
    std::vector<JobRank> ranks;
    for (std::size_t r = 0; r < calls.size(); ++r)
        ranks.push_back(rankOf(int(r), calls[r]));
    return analyzeJob(ranks);
}

std::vector<const Finding*> ofRule(const JobReport& job, const std::string& rule)
{
    std::vector<const Finding*> out;
    for (const Finding& f : job.findings)
        if (f.rule == rule) out.push_back(&f);
    return out;
}

int sequenceFindings(const JobReport& job)
{
    return int(ofRule(job, "collective-mismatch").size() +
               ofRule(job, "collective-count-mismatch").size() +
               ofRule(job, "collective-end-spread").size());
}

} // namespace

class TstCollectiveCheck : public QObject {
    Q_OBJECT

private slots:
    void agreeingRanksGiveNothing() { QCOMPARE(sequenceFindings(jobOf(sameCalls())), 0); }

    // Rank 2 calls AllReduce where the others call AllGather: one finding, and the rest of the
    // step (shifted) is not compared.
    void kindMismatch()
    {
        auto calls = sameCalls();
        calls[2][1].kind = CollectiveKind::AllReduce;
        calls[2][2].kind = CollectiveKind::AllGather;
        const JobReport job = jobOf(calls);
        const auto m = ofRule(job, "collective-mismatch");
        QCOMPARE(int(m.size()), 1);
        QCOMPARE(m[0]->severity, Severity::Error);
        QCOMPARE(m[0]->ranks, std::vector<int>{2});
        QCOMPARE(m[0]->matchingRanks, (std::vector<int>{0, 1, 3}));
        QCOMPARE(m[0]->mismatch, std::string("op"));
        QCOMPARE(m[0]->op, std::string("AllGather"));
        QCOMPARE(m[0]->index, std::optional<int>(1));
        QCOMPARE(m[0]->step, std::optional<int>(1));
        QCOMPARE(m[0]->group, std::string("g0"));
        QCOMPARE(int(m[0]->seen.size()), 2);
        QCOMPARE(m[0]->seen[0].value, std::string("AllGather"));
        QCOMPARE(m[0]->seen[1].value, std::string("AllReduce"));
        QCOMPARE(m[0]->seen[1].ranks, std::vector<int>{2});
        QCOMPARE(m[0]->eventsRank, std::optional<int>(2));
        QVERIFY2(QString::fromStdString(m[0]->title).startsWith("Rank 2 called AllReduce where"),
                 m[0]->title.c_str());
        QCOMPARE(int(ofRule(job, "collective-count-mismatch").size()), 0);
    }

    void countAndDtypeMismatch()
    {
        auto calls = sameCalls();
        calls[1][3].count = 512; // step 2, first AllReduce
        calls[3][5].dtype = "FP16";
        const JobReport job = jobOf(calls);
        const auto m = ofRule(job, "collective-mismatch");
        QCOMPARE(int(m.size()), 2);
        QCOMPARE(m[0]->mismatch, std::string("count"));
        QCOMPARE(m[0]->ranks, std::vector<int>{1});
        QCOMPARE(m[0]->step, std::optional<int>(2));
        QCOMPARE(m[0]->index, std::optional<int>(0));
        QCOMPARE(m[0]->seen[0].value, std::string("1024"));
        QCOMPARE(m[0]->seen[1].value, std::string("512"));
        QVERIFY2(m[0]->title.find("AllReduce of 512 elements") != std::string::npos,
                 m[0]->title.c_str());
        QCOMPARE(m[1]->mismatch, std::string("dtype"));
        QCOMPARE(m[1]->ranks, std::vector<int>{3});
        QCOMPARE(m[1]->index, std::optional<int>(2));
    }

    // An all-to-all's counts are each rank's own; unknown counts and dtypes are not compared;
    // point-to-point ops are not collectives.
    void notCompared()
    {
        auto calls = sameCalls();
        for (auto& r : calls)
            r[0].kind = CollectiveKind::AllToAll;
        calls[1][0].count = 77;
        calls[2][2].count = 0;
        calls[2][2].dtype.clear();
        Call send;
        send.kind = CollectiveKind::Send;
        send.start = 1'050'000'000;
        calls[3].insert(calls[3].begin() + 1, send);
        QCOMPARE(sequenceFindings(jobOf(calls)), 0);
    }

    // One more collective in a step every rank profiled: a count warning naming the rank and
    // the step; a step outside one rank's window is not compared at all.
    void countMismatch()
    {
        auto calls = sameCalls();
        Call extra = calls[0].back();
        extra.start += 50'000'000;
        calls[3].push_back(extra);
        Call third;
        third.step = 3;
        third.start = 3'000'000'000LL;
        calls[0].push_back(third); // only rank 0 profiled step 3
        const JobReport job = jobOf(calls);
        const auto c = ofRule(job, "collective-count-mismatch");
        QCOMPARE(int(c.size()), 1);
        QCOMPARE(c[0]->severity, Severity::Warning);
        QCOMPARE(c[0]->ranks, std::vector<int>{3});
        QCOMPARE(c[0]->step, std::optional<int>(2));
        QCOMPARE(c[0]->matchingRanks, (std::vector<int>{0, 1, 2}));
        QCOMPARE(c[0]->seen[1].value, std::string("4"));
        QCOMPARE(int(ofRule(job, "collective-mismatch").size()), 0);
        // Without steps the whole sequence is one: the extra calls differ in number.
        for (auto& r : calls)
            for (Call& x : r)
                x.step.reset();
        const JobReport flat = jobOf(calls);
        const auto f = ofRule(flat, "collective-count-mismatch");
        QCOMPARE(int(f.size()), 1);
        QVERIFY2(f[0]->recommendation.find("Profiler windows can differ") != std::string::npos,
                 f[0]->recommendation.c_str());
    }

    void endSpread()
    {
        auto calls = sameCalls(2);
        calls[1][0].dur += 3'000'000; // ends 3 ms after rank 0, 30% of 10 ms
        calls[1][1].dur += 900'000;   // 9%: together
        const JobReport job = jobOf(calls);
        const auto s = ofRule(job, "collective-end-spread");
        QCOMPARE(int(s.size()), 1);
        QCOMPARE(s[0]->ranks, std::vector<int>{1});
        QCOMPARE(s[0]->matchingRanks, std::vector<int>{0});
        QCOMPARE(s[0]->step, std::optional<int>(1));
        QCOMPARE(s[0]->index, std::optional<int>(0));
        QVERIFY2(s[0]->title.find("ends 3.00 ms apart") != std::string::npos, s[0]->title.c_str());
        // All-to-all members end when their own part is done.
        for (auto& r : calls)
            r[0].kind = CollectiveKind::AllToAll;
        QCOMPARE(int(ofRule(jobOf(calls), "collective-end-spread").size()), 0);
    }

    // Past the limit, the rest are counted in one note.
    void limit()
    {
        auto calls = sameCalls();
        for (Call& c : calls[1])
            c.dtype = "BF16";
        std::vector<JobRank> ranks;
        for (std::size_t r = 0; r < calls.size(); ++r)
            ranks.push_back(rankOf(int(r), calls[r]));
        JobOptions o;
        o.sequences.maxFindings = 2;
        const JobReport job = analyzeJob(ranks, {}, o);
        const auto m = ofRule(job, "collective-mismatch");
        QCOMPARE(int(m.size()), 3);
        QCOMPARE(m[2]->severity, Severity::Info);
        QCOMPARE(m[2]->title, std::string("4 more collective-mismatch findings left out (2 kept)"));
    }

    // The planted count mismatch: one finding, that rank, that step, in every shape and in a
    // merge of rank summaries; without it, none of the three rules.
    void seedJob_data()
    {
        QTest::addColumn<QString>("shape");
        QTest::newRow("torch_npu") << "text";
        QTest::newRow("kineto") << "kineto";
        QTest::newRow("database") << "db";
    }
    void seedJob()
    {
        QFETCH(QString, shape);
        gen::SeedCaseOptions o;
        o.ranks = 4;
        o.steps = 4;
        o.kineto = shape == "kineto";
        o.database = shape == "db";
        QTemporaryDir clean;
        QVERIFY(gen::writeSeedCaseJob(clean.path().toStdString(), o));
        const PipelineResult c = runPipeline({clean.path().toStdString()}, PipelineOptions{});
        QVERIFY(c.job);
        QCOMPARE(sequenceFindings(*c.job), 0);

        o.countMismatch = {2, 1};
        QTemporaryDir dir;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        const PipelineResult r = runPipeline({dir.path().toStdString()}, PipelineOptions{});
        QVERIFY(r.job);
        QCOMPARE(sequenceFindings(*r.job), 1);
        const auto m = ofRule(*r.job, "collective-mismatch");
        QCOMPARE(int(m.size()), 1);
        QCOMPARE(m[0]->ranks, std::vector<int>{2});
        QCOMPARE(m[0]->step, std::optional<int>(int(o.stepBase) + 1));
        QCOMPARE(m[0]->mismatch, std::string("count"));
        QCOMPARE(m[0]->seen[1].value, std::to_string(o.count / 2));

        // A merge of the ranks' summaries finds the same.
        QTemporaryDir sums;
        std::vector<std::string> paths;
        for (std::size_t i = 0; i < r.reports.size(); ++i) {
            const std::string f =
                sums.filePath(QString("rank%1.summary.json").arg(i)).toStdString();
            std::string error;
            QVERIFY2(writeRankSummary({"rank" + std::to_string(i), r.reports[i]}, f, &error),
                     error.c_str());
            paths.push_back(f);
        }
        const SummaryMerge merge = mergeSummaries(paths, MergeMode::Slim);
        QVERIFY(merge.job);
        const auto mm = ofRule(*merge.job, "collective-mismatch");
        QCOMPARE(int(mm.size()), 1);
        QCOMPARE(mm[0]->ranks, m[0]->ranks);
        QCOMPARE(mm[0]->title, m[0]->title);
        QCOMPARE(mm[0]->seen.size(), m[0]->seen.size());
    }

    // No public job has a real mismatch, count difference or end spread (each checked by hand:
    // docs/analysis.md, "Collectives that do not match").
    void publicJobs_data()
    {
        QTest::addColumn<QString>("set");
        for (const QString& s : test::publicSets())
            QTest::newRow(qPrintable(s)) << QDir(test::publicTracesDir()).filePath(s);
    }
    void publicJobs()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        QFETCH(QString, set);
        RS_SKIP_UNREAD_SET(set);
        std::string error;
        if (discoverJob({set.toStdString()}, &error).size() < 2)
            QSKIP(qPrintable(QFileInfo(set).fileName() + ": one rank, nothing to match"));
        const PipelineResult r = runPipeline({set.toStdString()}, PipelineOptions{});
        QVERIFY2(r.job, qPrintable(set));
        for (const Finding& f : r.job->findings)
            QVERIFY2(f.rule != "collective-count-mismatch" && f.rule != "collective-end-spread" &&
                         (f.rule != "collective-mismatch" || f.seq),
                     qPrintable(set + ": " + QString::fromStdString(f.title)));
    }
};

QTEST_GUILESS_MAIN(TstCollectiveCheck)
#include "tst_collectivecheck.moc"
