// The critical path (core/analysis/criticalpath.h, issue 44): on the seed job the mode-B steps'
// path runs through the misaligned rank's internal memcpy and nowhere else; every path covers
// its step exactly (contiguous segments, by-kind totals summing to the step) on one rank, on a
// job and on every public run; rank summaries carry the pieces, so a merge walks the same path.

#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/analysis/criticalpath.h"
#include "core/job/crossrank.h"
#include "core/job/jobpipeline.h"
#include "core/job/ranksummary.h"
#include "tests/testutil.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

using namespace rs;

namespace {

std::vector<ReportPtr> analyzeSeedJob(const gen::SeedCaseOptions& o)
{
    std::vector<ReportPtr> out;
    for (int rank = 0; rank < o.ranks; ++rank) {
        LoadResult r = test::loadText(gen::seedCaseTrace(o, rank));
        if (!r.complete()) return {};
        out.push_back(analyze(r.trace));
    }
    return out;
}

TimeNs kindOnRank(const StepPath& p, PathKind k, std::optional<int> rank)
{
    TimeNs sum = 0;
    for (const PathSegment& s : p.segments)
        if (s.kind == k && (!rank || s.rank == rank)) sum += s.end - s.start;
    return sum;
}

bool badStep(const gen::SeedCaseOptions& o, int step)
{
    const int i = step - int(o.stepBase);
    return i == 2 || i == 4;
}

} // namespace

class TstCriticalPath : public QObject {
    Q_OBJECT

private slots:
    void seedJob_data()
    {
        QTest::addColumn<bool>("kineto");
        QTest::newRow("torch_npu") << false;
        QTest::newRow("kineto") << true;
    }

    // The job's path of a mode-B step runs through the bad rank's extra internal memcpy (its
    // whole length) and the exchange after it; mode-A steps have no internal memcpy on it.
    void seedJob()
    {
        QFETCH(bool, kineto);
        gen::SeedCaseOptions o;
        o.kineto = kineto;
        o.ranks = 4;
        const std::vector<ReportPtr> reports = analyzeSeedJob(o);
        QCOMPARE(int(reports.size()), o.ranks);
        const JobReport job = analyzeJob(reports);
        QCOMPARE(int(job.criticalPath.size()), o.steps);
        for (const StepPath& p : job.criticalPath) {
            const std::string bad = checkStepPath(p);
            QVERIFY2(bad.empty(), bad.c_str());
            const TimeNs copy = kindOnRank(p, PathKind::InternalMemcpy, std::nullopt);
            if (badStep(o, p.step)) {
                QVERIFY2(std::llabs(kindOnRank(p, PathKind::InternalMemcpy, o.badRank) -
                                    o.extraMemcpyNs) < o.extraMemcpyNs / 50,
                         qPrintable(QString("step %1: %2 ns of internal memcpy on rank %3")
                                        .arg(p.step)
                                        .arg(kindOnRank(p, PathKind::InternalMemcpy, o.badRank))
                                        .arg(o.badRank)));
                QCOMPARE(copy, kindOnRank(p, PathKind::InternalMemcpy, o.badRank));
            } else {
                QCOMPARE(copy, TimeNs(0));
            }
            QVERIFY(p.byKind[std::size_t(PathKind::Collective)] > 0);
            QVERIFY(p.byKind[std::size_t(PathKind::Compute)] > 0);
        }
    }

    // Planted causes: a slow kernel on one rank (the path runs through that kernel there), a
    // late host launch (the path runs through that rank's host), in one step each.
    void plantedCauses_data() { seedJob_data(); }
    void plantedCauses()
    {
        QFETCH(bool, kineto);
        gen::SeedCaseOptions o;
        o.kineto = kineto;
        o.ranks = 4;
        o.badSteps = {4};
        o.slowKernel = {2, 1, 50'000'000};
        o.lateLaunch = {1, 3, 30'000'000};
        const std::vector<ReportPtr> reports = analyzeSeedJob(o);
        QCOMPARE(int(reports.size()), o.ranks);
        const JobReport job = analyzeJob(reports);
        QCOMPARE(int(job.criticalPath.size()), o.steps);
        const TimeNs k = o.computeNs / 4;
        for (const StepPath& p : job.criticalPath) {
            const std::string bad = checkStepPath(p);
            QVERIFY2(bad.empty(), bad.c_str());
            const int i = p.step - int(o.stepBase);
            // The slow kernel: on rank 2, k + 50 ms long, on the path.
            bool slowOnPath = false;
            for (const PathSegment& s : p.segments)
                slowOnPath = slowOnPath || (s.kind == PathKind::Compute && s.rank == 2 &&
                                            s.end - s.start == k + o.slowKernel.ns);
            QCOMPARE(slowOnPath, i == 1);
            // The late launch: rank 1's host and launch fill the 30 ms the device idled.
            const TimeNs host =
                kindOnRank(p, PathKind::Host, 1) + kindOnRank(p, PathKind::Launch, 1);
            if (i == 3)
                QVERIFY2(std::llabs(host - o.lateLaunch.ns) <= 1'200'000,
                         qPrintable(QString("step %1: %2 ns of host and launch on rank 1")
                                        .arg(p.step)
                                        .arg(host)));
            else
                QVERIFY2(host <= 1'200'000, qPrintable(QString::number(host)));
            QCOMPARE(kindOnRank(p, PathKind::InternalMemcpy, std::nullopt) > 0, i == 4);
        }
    }

    // One rank alone: its own path, the same kinds, its own copy on its bad steps.
    void oneRank()
    {
        gen::SeedCaseOptions o;
        o.ranks = 2;
        const std::vector<ReportPtr> reports = analyzeSeedJob(o);
        QCOMPARE(int(reports.size()), 2);
        for (int rank = 0; rank < 2; ++rank) {
            const std::vector<StepPath> path = rankCriticalPath(*reports[std::size_t(rank)]);
            QCOMPARE(int(path.size()), o.steps);
            for (const StepPath& p : path) {
                const std::string bad = checkStepPath(p);
                QVERIFY2(bad.empty(), bad.c_str());
                for (const PathSegment& s : p.segments)
                    QCOMPARE(s.rank, reportRank(*reports[std::size_t(rank)]));
                const TimeNs copy = p.byKind[std::size_t(PathKind::InternalMemcpy)];
                QCOMPARE(copy > 0, rank == o.badRank && badStep(o, p.step));
            }
        }
    }

    // The merge of rank summaries walks the same path as the job of traces.
    void summariesGiveTheSamePath()
    {
        gen::SeedCaseOptions o;
        o.ranks = 4;
        o.slowKernel = {2, 1, 50'000'000};
        QTemporaryDir jobDir;
        QVERIFY(gen::writeSeedCaseJob(jobDir.path().toStdString(), o));
        const PipelineResult run = runPipeline({jobDir.path().toStdString()}, PipelineOptions{});
        QVERIFY(run.job);
        const std::vector<ReportPtr>& reports = run.reports;
        const JobReport& job = *run.job;
        QCOMPARE(int(job.criticalPath.size()), o.steps);
        QTemporaryDir dir;
        QStringList files;
        for (std::size_t i = 0; i < reports.size(); ++i) {
            const QString f = dir.filePath(QString("rank%1.summary.json").arg(i));
            std::string error;
            const ReportInput in{"rank" + std::to_string(i) + ".json", reports[i]};
            QVERIFY2(writeRankSummary(in, f.toStdString(), &error), error.c_str());
            files << f;
        }
        std::vector<std::string> paths;
        for (const QString& f : files)
            paths.push_back(f.toStdString());
        const SummaryMerge merge = mergeSummaries(paths, MergeMode::Slim);
        QVERIFY(merge.job);
        QCOMPARE(merge.job->criticalPath.size(), job.criticalPath.size());
        for (std::size_t i = 0; i < job.criticalPath.size(); ++i) {
            const StepPath& a = job.criticalPath[i];
            const StepPath& b = merge.job->criticalPath[i];
            QCOMPARE(a.step, b.step);
            QCOMPARE(a.start, b.start);
            QCOMPARE(a.end, b.end);
            QCOMPARE(a.byKind, b.byKind);
            QCOMPARE(a.segments.size(), b.segments.size());
            for (std::size_t k = 0; k < a.segments.size(); ++k) {
                QCOMPARE(a.segments[k].rank, b.segments[k].rank);
                QCOMPARE(a.segments[k].kind, b.segments[k].kind);
                QCOMPARE(a.segments[k].name, b.segments[k].name);
                QCOMPARE(a.segments[k].event, b.segments[k].event);
                QCOMPARE(a.segments[k].start, b.segments[k].start);
            }
        }
    }

    // Every public run: each rank's path and the job's cover their steps.
    void publicRuns_data()
    {
        QTest::addColumn<QString>("set");
        for (const QString& s : test::publicSets())
            QTest::newRow(qPrintable(s)) << QDir(test::publicTracesDir()).filePath(s);
    }
    void publicRuns()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        QFETCH(QString, set);
        RS_SKIP_UNREAD_SET(set);
        PipelineOptions po;
        const PipelineResult r = runPipeline({set.toStdString()}, po);
        QVERIFY2(!r.reports.empty(), qPrintable(set));
        int paths = 0;
        for (const ReportPtr& rep : r.reports) {
            for (const StepPath& p : rankCriticalPath(*rep)) {
                const std::string bad = checkStepPath(p);
                QVERIFY2(bad.empty(), qPrintable(set + ": " + QString::fromStdString(bad)));
                ++paths;
            }
        }
        if (r.job) {
            for (const StepPath& p : r.job->criticalPath) {
                const std::string bad = checkStepPath(p);
                QVERIFY2(bad.empty(), qPrintable(set + " (job): " + QString::fromStdString(bad)));
            }
        }
        qInfo("%s: %d rank step paths, %d job step paths", qPrintable(QFileInfo(set).fileName()),
              paths, r.job ? int(r.job->criticalPath.size()) : 0);
    }
};

QTEST_GUILESS_MAIN(TstCriticalPath)
#include "tst_criticalpath.moc"
