// Comparing runs: before/after the seed case's fix (with and without misaligned ranks), the
// findings matched by rule and subject, scaling efficiency over generated 1/8/16/32-card runs,
// and two public runs of one job.
#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/compare/comparereport.h"
#include "core/compare/runloader.h"
#include "core/compare/stepalign.h"
#include "core/job/crossrank.h"
#include "core/job/jobloader.h"
#include "core/producers/producer.h"
#include "tests/support/outputjson.h"
#include "tests/testutil.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <set>

using namespace rs;
using rs::test::compareToJson;
using rs::test::runSummaryJson;
using rs::test::scalingToJson;

namespace {

// Loads and analyses a run the way `ringscope compare` does, and digests it.
RunDigest digestPath(const QString& path)
{
    std::vector<std::string> errors;
    auto d = loadRunDigest(path.toStdString(), {}, &errors);
    if (!d || !errors.empty())
        qWarning("%s: %s", qPrintable(path), errors.empty() ? "?" : errors[0].c_str());
    return d ? *d : RunDigest{};
}

QString writeSeed(const QTemporaryDir& root, const QString& name, const gen::SeedCaseOptions& o)
{
    const QString dir = root.filePath(name);
    if (!gen::writeSeedCaseJob(dir.toStdString(), o)) return {};
    return dir;
}

const FindingChange* findChange(const std::vector<FindingChange>& list, const std::string& rule,
                                std::optional<int> rank)
{
    for (const FindingChange& x : list)
        if (x.finding.rule == rule && x.finding.rank == rank) return &x;
    return nullptr;
}

FindingDigest finding(const std::string& rule, std::optional<int> rank, const std::string& title)
{
    FindingDigest f;
    f.rule = rule;
    f.rank = rank;
    f.title = title;
    f.kind = CollectiveKind::AllReduce;
    f.pattern = "hcom_allReduce__#_#_#";
    f.count = 1;
    return f;
}

} // namespace

class TstCompare : public QObject {
    Q_OBJECT
private slots:
    void namePatterns()
    {
        QCOMPARE(collectivePattern("hcom_allReduce__586_2_1"),
                 std::string("hcom_allReduce__#_#_#"));
        QCOMPARE(collectivePattern("hcom_allReduce__587_0_1"),
                 std::string("hcom_allReduce__#_#_#"));
        QCOMPARE(collectivePattern("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, "
                                   "unsigned long, ncclWork*)"),
                 std::string("ncclKernel_AllReduce_RING_LL_Sum_float"));
        QCOMPARE(collectivePattern("nccl:all_reduce"), std::string("nccl:all_reduce"));
    }

    // The seed case fixed: the misaligned input of steps 2 and 4 becomes aligned.
    void seedCaseFixed_data()
    {
        QTest::addColumn<bool>("kineto");
        QTest::newRow("torch_npu") << false;
        QTest::newRow("kineto") << true;
    }
    void seedCaseFixed()
    {
        QFETCH(bool, kineto);
        QTemporaryDir root;
        gen::SeedCaseOptions o;
        o.ranks = 8;
        o.steps = 6;
        o.kineto = kineto;
        o.badSteps = {2, 4};
        const QString before = writeSeed(root, "before", o);
        o.badSteps.clear();
        const QString after = writeSeed(root, "after", o);
        QVERIFY(!before.isEmpty() && !after.isEmpty());

        const RunComparison c = compareRuns(digestPath(before), digestPath(after));
        QCOMPARE(c.before.rankIds.size(), size_t(8));
        QCOMPARE(c.before.cards, 8);
        QCOMPARE(c.before.stepSamples, 48);
        QCOMPARE(c.after.stepSamples, 48);
        // Every rank's bad step lasts 320 + 400 ms (the others wait for rank 0's copy), the
        // good ones 320 + 200 ms.
        const TimeNs good = 520'000'000, bad = 720'000'000;
        QCOMPARE(*c.after.stepMeanNs, good);
        QCOMPARE(*c.before.stepMeanNs, (8 * (4 * good + 2 * bad)) / 48);
        QCOMPARE(*c.stepDeltaNs(), *c.after.stepMeanNs - *c.before.stepMeanNs);
        QVERIFY(std::abs(*c.stepDeltaPct() - 100.0 * (good - 586'666'666.0) / 586'666'666.0) <
                1e-6);
        QCOMPARE(c.steps.size(), size_t(6));
        QCOMPARE(*c.steps[2].deltaNs(), good - bad);
        QCOMPARE(*c.steps[0].deltaNs(), TimeNs(0));

        // One AllReduce group over every rank; its extra memcpy goes away.
        QCOMPARE(c.collectives.size(), size_t(1));
        const CollectiveDelta& g = c.collectives.front();
        QCOMPARE(g.kind, CollectiveKind::AllReduce);
        QCOMPARE(g.beforeCount, 48);
        QCOMPARE(g.afterCount, 48);
        QVERIFY2(g.beforeExtraMemcpyNs > 2 * 190'000'000 && g.beforeExtraMemcpyNs < 2 * 210'000'000,
                 std::to_string(g.beforeExtraMemcpyNs).c_str());
        QCOMPARE(g.afterExtraMemcpyNs, TimeNs(0));
        QVERIFY(*g.deltaNs() < -50'000'000);

        // Rank 0 copied; its findings and the job's are resolved, nothing is new.
        QVERIFY(c.added.empty());
        // What persists is about the links (the generator's bandwidth), not the copy.
        for (const FindingChange& x : c.persisting) {
            const std::string& r = x.finding.rule;
            QVERIFY2(r.find("memcpy") == std::string::npos && r.rfind("unaligned", 0) != 0 &&
                         r.rfind("job-", 0) != 0 && r != "collective-waiting",
                     r.c_str());
        }
        const FindingChange* copy = findChange(c.resolved, "collective-extra-memcpy", 0);
        QVERIFY(copy);
        QCOMPARE(copy->beforeCount, 2);
        QCOMPARE(copy->afterCount, 0);
        QCOMPARE(*copy->finding.kind, CollectiveKind::AllReduce);
        QCOMPARE(copy->finding.pattern, g.pattern);
        const FindingChange* delays = findChange(c.resolved, "job-rank-delays-collective", 0);
        QVERIFY(delays);
        QCOMPARE(delays->beforeCount, 2); // steps 2 and 4
        QCOMPARE(delays->finding.pattern, g.pattern);
        QVERIFY(findChange(c.resolved, "job-slow-rank", 0));
        QVERIFY(!findChange(c.resolved, "collective-extra-memcpy", 3));

        // The largest op change is the AllReduce's own time; compute kernels did not change.
        QVERIFY(!c.ops.empty());
        QCOMPARE(c.ops.front().name, g.pattern);
        QVERIFY(c.ops.front().deltaNs() < -7 * 2 * 190'000'000LL);
        for (const OpDelta& op : c.ops)
            if (op.name.find("atmul") != std::string::npos ||
                op.name.find("sgemm") != std::string::npos)
                QCOMPARE(op.deltaNs(), TimeNs(0));

        // The JSON carries the issue's fields with these values.
        const nlohmann::json j = compareToJson(c);
        QCOMPARE(j["schema"].get<std::string>(), std::string("ringscope.compare/1"));
        QCOMPARE(j["steps"]["before_mean_ns"].get<TimeNs>(), *c.before.stepMeanNs);
        QCOMPARE(j["steps"]["after_mean_ns"].get<TimeNs>(), good);
        QCOMPARE(j["steps"]["delta_ns"].get<TimeNs>(), *c.stepDeltaNs());
        QVERIFY(j["steps"]["delta_pct"].get<double>() < -11.0);
        QCOMPARE(j["collectives"][0]["name_pattern"].get<std::string>(), g.pattern);
        QCOMPARE(j["collectives"][0]["before_count"].get<int>(), 48);
        QCOMPARE(j["collectives"][0]["after_extra_memcpy_ns"].get<TimeNs>(), TimeNs(0));
        QVERIFY(j["findings_new"].empty());
        QVERIFY(!j["findings_resolved"].empty());
        for (const auto& f : j["findings_resolved"])
            QVERIFY(f.contains("rule") && f.contains("title") && f.contains("rank"));
        QVERIFY(!j["ops"].empty());
        for (const auto& op : j["ops"]) // unchanged ops are not listed
            QVERIFY(op["delta_ns"].get<TimeNs>() != 0);
        QCOMPARE(j["before"]["cards"].get<int>(), 8);

        const std::string text = compareToText(c);
        QVERIFY2(text.find("step time (mean)") != std::string::npos, text.c_str());
        QVERIFY2(text.find("findings resolved") != std::string::npos, text.c_str());
        QVERIFY2(text.find("findings new: none") != std::string::npos, text.c_str());
        // The 7 waiting ranks share one line in the text.
        QVERIFY2(text.find("collective-waiting · ranks 1-7") != std::string::npos, text.c_str());
    }

    // The fix on one rank and a new misalignment on another: rank 0's problem is resolved, rank
    // 5's is new, although both findings read alike.
    void newMisalignedRankIsNew()
    {
        QTemporaryDir root;
        gen::SeedCaseOptions o;
        o.ranks = 8;
        o.steps = 5;
        o.badSteps = {1, 3};
        o.badRank = 0;
        const QString before = writeSeed(root, "before", o);
        o.badRank = 5;
        o.badSteps = {2};
        const QString after = writeSeed(root, "after", o);
        const RunComparison c = compareRuns(digestPath(before), digestPath(after));
        QVERIFY(findChange(c.resolved, "collective-extra-memcpy", 0));
        const FindingChange* added = findChange(c.added, "collective-extra-memcpy", 5);
        QVERIFY(added);
        QCOMPARE(added->afterCount, 1);
        QVERIFY(findChange(c.added, "job-rank-delays-collective", 5));
        QVERIFY(findChange(c.resolved, "job-rank-delays-collective", 0));
        // Rank 5 waited before and copies after; rank 0 copied before and waits after.
        QVERIFY(findChange(c.resolved, "collective-waiting", 5));
        QVERIFY(findChange(c.added, "collective-waiting", 0));
        // Ranks 1-4, 6, 7 waited in both runs (2 steps before, 1 after).
        const FindingChange* both = findChange(c.persisting, "collective-waiting", 3);
        QVERIFY(both);
        QCOMPARE(both->beforeCount, 2);
        QCOMPARE(both->afterCount, 1);
        // 2 bad steps of 400 ms before, 1 after.
        QCOMPARE(*c.stepDeltaNs(), TimeNs((2 - 1) * -200'000'000LL / 5));
    }

    void sameRunHasNoChange()
    {
        QTemporaryDir root;
        gen::SeedCaseOptions o;
        o.ranks = 4;
        o.steps = 4;
        const QString run = writeSeed(root, "run", o);
        const RunDigest d = digestPath(run);
        const RunComparison c = compareRuns(d, d);
        QCOMPARE(*c.stepDeltaNs(), TimeNs(0));
        QCOMPARE(*c.stepDeltaPct(), 0.0);
        QVERIFY(c.resolved.empty() && c.added.empty());
        QCOMPARE(c.persisting.size(), d.findings.size());
        for (const CollectiveDelta& g : c.collectives)
            QCOMPARE(*g.deltaNs(), TimeNs(0));
        for (const OpDelta& op : c.ops)
            QCOMPARE(op.deltaNs(), TimeNs(0));
        QVERIFY(compareToJson(c)["ops"].empty());
    }

    // Titles change with durations and counts; the key is the rule and the subject.
    void findingsMatchBySubjectNotTitle()
    {
        RunDigest before, after;
        before.findings = {finding("collective-extra-memcpy", 0, "AllReduce carries 200 ms"),
                           finding("collective-waiting", 1, "waited (400 ms)")};
        after.findings = {finding("collective-extra-memcpy", 0, "AllReduce carries 3 ms"),
                          finding("collective-waiting", 2, "waited (400 ms)")};
        const RunComparison c = compareRuns(before, after);
        QCOMPARE(c.persisting.size(), size_t(1));
        QCOMPARE(c.persisting[0].finding.rule, std::string("collective-extra-memcpy"));
        QCOMPARE(c.resolved.size(), size_t(1));
        QCOMPARE(*c.resolved[0].finding.rank, 1);
        QCOMPARE(c.added.size(), size_t(1));
        QCOMPARE(*c.added[0].finding.rank, 2);
        // Another collective pattern is another subject.
        after.findings[0].pattern = "hcom_allGather__#_#_#";
        after.findings[0].kind = CollectiveKind::AllGather;
        const RunComparison d = compareRuns(before, after);
        QVERIFY(d.persisting.empty());
        QCOMPARE(d.resolved.size(), size_t(2));
    }

    // Issue 26.12: the same job profiled by torch_npu and by Kineto is the same problem: its
    // collectives pair by kind, group, size and order (not by the producers' op names), its
    // findings persist, and rules one producer cannot evaluate are set apart.
    void acrossProducersTheSameJobMatches()
    {
        QTemporaryDir root;
        gen::SeedCaseOptions o;
        o.ranks = 8;
        o.steps = 6;
        o.badSteps = {2, 4};
        const QString npu = writeSeed(root, "npu", o);
        o.kineto = true;
        const QString kineto = writeSeed(root, "kineto", o);
        QVERIFY(!npu.isEmpty() && !kineto.isEmpty());
        const RunComparison c = compareRuns(digestPath(npu), digestPath(kineto));
        QVERIFY(c.crossProducer);
        // One AllReduce group, 48 -> 48 (not "48 -> 0" and "0 -> 48").
        QCOMPARE(c.collectives.size(), size_t(1));
        const CollectiveDelta& g = c.collectives.front();
        QCOMPARE(g.kind, CollectiveKind::AllReduce);
        QCOMPARE(g.pattern, std::string("hcom_allReduce__#_#_#"));
        QCOMPARE(g.afterPattern, std::string("ncclKernel_AllReduce_RING_LL_Sum_float"));
        QCOMPARE(g.matchedBy, std::string("shape"));
        QCOMPARE(g.beforeCount, 48);
        QCOMPARE(g.afterCount, 48);
        QCOMPARE(g.beforeExtraMemcpyNs, g.afterExtraMemcpyNs);
        QVERIFY(withinNoise(*g.deltaNs(), g.beforeMeanNs));
        // The delaying rank, its extra copy and the waits are the same findings on both sides.
        for (const char* rule : {"collective-extra-memcpy", "job-rank-delays-collective",
                                 "unaligned-address", "job-slow-rank"}) {
            QVERIFY2(findChange(c.persisting, rule, 0), rule);
            QVERIFY2(!findChange(c.resolved, rule, 0) && !findChange(c.added, rule, 0), rule);
        }
        for (int r = 1; r < 8; ++r)
            QVERIFY(findChange(c.persisting, "collective-waiting", r));
        QVERIFY2(c.added.empty(), c.added.empty() ? "" : c.added.front().finding.key().c_str());
        // HCCL's synchronization time has no Kineto counterpart: not "resolved".
        QVERIFY(!c.notComparable.empty());
        for (const FindingChange& x : c.notComparable)
            QCOMPARE(x.finding.rule, std::string("sync-dominated"));
        for (const FindingChange& x : c.resolved)
            QVERIFY2(x.finding.rule == "link-underutilized", x.finding.key().c_str());
        // The collective's device time pairs too: no "-12.8 s" / "+12.4 s" for one op.
        for (const OpDelta& op : c.ops)
            QVERIFY2(op.name != "ncclKernel_AllReduce_RING_LL_Sum_float", op.name.c_str());
        // JSON: added fields, none renamed; the text names both patterns once.
        const auto j = compareToJson(c);
        QCOMPARE(j["collectives"].size(), size_t(1));
        QCOMPARE(j["collectives"][0]["name_pattern"].get<std::string>(), g.pattern);
        QCOMPARE(j["collectives"][0]["after_name_pattern"].get<std::string>(), g.afterPattern);
        QCOMPARE(j["collectives"][0]["matched_by"].get<std::string>(), std::string("shape"));
        QCOMPARE(j["collectives"][0]["after_count"].get<int>(), 48);
        QVERIFY(j["cross_producer"].get<bool>());
        QVERIFY(!j["findings_not_comparable"].empty());
        const std::string text = compareToText(c);
        QVERIFY2(text.find("48 -> 48") != std::string::npos, text.c_str());
        QVERIFY(text.find("0 -> 48") == std::string::npos);
        QVERIFY(text.find("48 -> 0") == std::string::npos);
        QVERIFY(text.find("-0.0%") == std::string::npos && text.find("+0.0%") == std::string::npos);
        // The same producer still pairs by pattern (the seed case's fix is unchanged).
        const RunComparison same = compareRuns(digestPath(npu), digestPath(npu));
        QCOMPARE(same.collectives.front().matchedBy, std::string("pattern"));
        QVERIFY(!same.crossProducer && same.notComparable.empty());
    }

    // Deltas under the noise of the measurement are neutral.
    void deltasWithinNoise()
    {
        QVERIFY(withinNoise(8));
        QVERIFY(withinNoise(-999));
        QVERIFY(!withinNoise(1000));
        QVERIFY(withinNoise(2'000'000, TimeNs(587'000'000))); // 0.3% of the step
        QVERIFY(!withinNoise(66'000'000, TimeNs(587'000'000)));
        QVERIFY(!withinNoise(-5000, TimeNs(100'000)));
        RunDigest a, b;
        a.stepMeanNs = 587'000'000;
        b.stepMeanNs = 587'000'000 - 8;
        a.stepSamples = b.stepSamples = 1;
        const RunComparison c = compareRuns(a, b);
        const std::string text = compareToText(c);
        QVERIFY2(text.find("(0.0%)") != std::string::npos, text.c_str());
        QVERIFY(text.find("-0.0%") == std::string::npos);
        QVERIFY(compareToJson(c)["steps"]["delta_within_noise"].get<bool>());
    }

    void missingStepsAreNull()
    {
        RunDigest before, after;
        StepDigest s;
        s.step = 3;
        s.samples = 2;
        s.sumNs = 20;
        before.steps = {s};
        before.stepSamples = 2;
        before.stepMeanNs = 10;
        const RunComparison c = compareRuns(before, after);
        QVERIFY(!c.stepDeltaNs());
        QVERIFY(!c.stepDeltaPct());
        const nlohmann::json j = compareToJson(c);
        QVERIFY(j["steps"]["after_mean_ns"].is_null());
        QVERIFY(j["steps"]["delta_ns"].is_null());
        QVERIFY(j["steps"]["delta_pct"].is_null());
        QVERIFY(j["steps"]["per_step"][0]["after_mean_ns"].is_null());
    }

    void stepAlignment()
    {
        const std::vector<StepAnchor> a = {{40, 1000, 1500}, {41, 2000, 2600}, {42, 3000, 3500}};
        const std::vector<StepAnchor> b = {
            {41, 50'000, 50'400}, {42, 60'000, 60'300}, {43, 70'000, 70'100}};
        const StepAlignment al(a, b);
        QVERIFY(al.valid());
        QVERIFY(al.byNumber());
        QCOMPARE(al.pairs().size(), size_t(2));        // steps 41 and 42
        QCOMPARE(*al.map(2100, true), TimeNs(50'100)); // 100 ns into step 41
        QCOMPARE(*al.map(3200, true), TimeNs(60'200));
        QCOMPARE(*al.map(60'250, false), TimeNs(3250));
        QCOMPARE(*al.map(1500, true), TimeNs(49'500));       // before step 41: relative to it
        QCOMPARE(*al.map(2900, true, 3100), TimeNs(59'900)); // picked by 3100: step 42
        QCOMPARE(al.pairOf(42, false)->first.start, TimeNs(3000));
        QVERIFY(!al.pairOf(40, true));
        // No step number in common: the i-th step over the i-th.
        const StepAlignment ord({{10, 0, 10}, {11, 100, 110}},
                                {{40, 5000, 5010}, {41, 6000, 6010}});
        QVERIFY(!ord.byNumber());
        QCOMPARE(*ord.map(105, true), TimeNs(6005));
        QCOMPARE(ord.pairOf(11, true)->second.step, 41);
        QVERIFY(!StepAlignment({}, b).valid());
        QVERIFY(!StepAlignment({}, b).map(5, true));
    }

    // Strong scaling of the seed model from 1 to 32 cards: the per-card compute shrinks, the
    // AllReduce grows. 32 cards at 9 ms against 120 ms on one card is 41.7%, as computed.
    void strongScaling_data()
    {
        QTest::addColumn<bool>("kineto");
        QTest::newRow("torch_npu") << false;
        QTest::newRow("kineto") << true;
    }
    void strongScaling()
    {
        QFETCH(bool, kineto);
        QTemporaryDir root;
        struct Run {
            int cards;
            TimeNs compute, allReduce;
        };
        const Run runs[] = {{1, 120'000'000, 0},
                            {8, 15'000'000, 3'000'000},
                            {16, 7'500'000, 4'000'000},
                            {32, 3'750'000, 5'250'000}};
        std::vector<RunDigest> digests;
        for (const Run& r : runs) {
            gen::SeedCaseOptions o;
            o.kineto = kineto;
            o.ranks = r.cards;
            o.steps = 3;
            o.badSteps.clear();
            o.computeNs = r.compute;
            o.allReduceNs = r.allReduce;
            o.withStack = false;
            // The 32-card run keeps 4 of its ranks: the cards come from its world size.
            if (r.cards == 32) o.writeRanks = 4;
            const QString dir = writeSeed(root, QString("cards%1").arg(r.cards), o);
            QVERIFY(!dir.isEmpty());
            digests.push_back(digestPath(dir));
        }
        QCOMPARE(digests[0].collectiveCount, size_t(0)); // a single card has no AllReduce
        QCOMPARE(digests[3].rankIds.size(), size_t(4));
        QCOMPARE(*digests[3].worldSize, 32);

        const auto points = scalingOf(digests, false);
        QCOMPARE(points.size(), size_t(4));
        const TimeNs step[] = {120'000'000, 18'000'000, 11'500'000, 9'000'000};
        const double eff[] = {1.0, 120.0 / (8 * 18.0), 120.0 / (16 * 11.5), 120.0 / (32 * 9.0)};
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(points[i].cards, runs[i].cards);
            QCOMPARE(*points[i].stepMeanNs, step[i]);
            QVERIFY2(std::abs(*points[i].efficiency - eff[i]) < 1e-9,
                     qPrintable(QString("run %1: %2").arg(i).arg(*points[i].efficiency)));
        }
        QVERIFY(std::abs(*points[3].efficiency - 0.416667) < 1e-5);
        QVERIFY(std::abs(*points[3].speedup - 120.0 / 9.0) < 1e-9);

        const nlohmann::json j = scalingToJson(points, false);
        QCOMPARE(j["schema"].get<std::string>(), std::string("ringscope.scaling/1"));
        QCOMPARE(j["runs"].size(), size_t(4));
        QCOMPARE(j["runs"][3]["cards"].get<int>(), 32);
        QCOMPARE(j["runs"][0]["efficiency"].get<double>(), 1.0);
        QCOMPARE(j["runs"][2]["step_mean_ns"].get<TimeNs>(), TimeNs(11'500'000));
        QVERIFY(scalingToText(points, false).find("41.7%") != std::string::npos);
    }

    void weakScaling()
    {
        std::vector<RunDigest> runs(3);
        const int cards[] = {1, 8, 16};
        const TimeNs t[] = {100, 125, 0};
        for (int i = 0; i < 3; ++i) {
            runs[i].path = "run" + std::to_string(i);
            runs[i].cards = cards[i];
            if (t[i]) runs[i].stepMeanNs = t[i];
        }
        const auto weak = scalingOf(runs, true);
        QCOMPARE(*weak[0].efficiency, 1.0);
        QCOMPARE(*weak[1].efficiency, 0.8);
        QVERIFY(!weak[2].efficiency); // no steps: no figure, not zero
        QVERIFY(!weak[2].stepMeanNs);
        const auto strong = scalingOf(runs, false);
        QCOMPARE(*strong[1].efficiency, 100.0 / (8 * 125.0));
        QCOMPARE(weak[1].path, std::string("run1"));
        QVERIFY(scalingToJson(weak, true)["runs"][2]["efficiency"].is_null());
        QCOMPARE(scalingToJson(weak, true)["mode"].get<std::string>(), std::string("weak"));
    }

    // Without a declared world size the cards are the ranks found.
    void cardsFallBackToRanksFound()
    {
        QTemporaryDir root;
        gen::SeedCaseOptions o;
        o.ranks = 4;
        o.steps = 2;
        o.writeRanks = 3;
        const QString dir = writeSeed(root, "run", o);
        QCOMPARE(digestPath(dir).cards, 4);
        for (int r = 0; r < 3; ++r)
            QVERIFY(QFile::remove(
                QDir(dir).filePath(QString("rank%1_ascend_pt/profiler_metadata.json").arg(r))));
        const RunDigest d = digestPath(dir);
        QVERIFY(!d.worldSize);
        QCOMPARE(d.cards, 3);
    }

    void worldSizeFromTorchNpuMetadata()
    {
        QTemporaryDir root;
        const QString run = root.filePath("rank0_ascend_pt");
        QVERIFY(QDir().mkpath(run + "/ASCEND_PROFILER_OUTPUT"));
        QFile f(run + "/profiler_metadata.json");
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(
            R"({"parallel_group_info": {"g1": {"group_name": "dp", "global_ranks": [0, 4, 8, 12]},
                    "g2": {"global_ranks": [12, 13, 14, 15]}}})");
        f.close();
        const auto r = test::loadText(R"([{"name":"x","ph":"X","ts":1,"dur":1,"pid":1,"tid":1}])");
        QVERIFY(r.trace);
        // A trace loaded from memory has no path beside the metadata; none is found.
        QVERIFY(!worldSizeOf({r.trace}));
        QFile t(run + "/ASCEND_PROFILER_OUTPUT/trace_view.json");
        QVERIFY(t.open(QIODevice::WriteOnly));
        t.write(R"([{"name":"x","ph":"X","ts":"1.000","dur":1,"pid":1,"tid":1},
                    {"name":"process_name","ph":"M","pid":1,"args":{"name":"Ascend Hardware"}}])");
        t.close();
        const LoadResult loaded = loadTrace(run.toStdString());
        QVERIFY(loaded.trace);
        QCOMPARE(loaded.trace->producer().id(), std::string_view("torch_npu"));
        QCOMPARE(*worldSizeOf({loaded.trace}), 16); // highest global rank 15, plus one
        QVERIFY(QFile::remove(run + "/profiler_metadata.json"));
        QFile g(run + "/profiler_metadata.json");
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write(R"({"distributed_args": {"world_size": "8", "rank": 0}})");
        g.close();
        QCOMPARE(*worldSizeOf({loaded.trace}), 8);
        // Metadata without it: profiler_info_N.json may say.
        QVERIFY(QFile::remove(run + "/profiler_metadata.json"));
        QVERIFY(!worldSizeOf({loaded.trace}));
        QFile info(run + "/profiler_info_0.json");
        QVERIFY(info.open(QIODevice::WriteOnly));
        info.write(R"({"rank_id": 0, "world_size": 4, "config": {}})");
        info.close();
        QCOMPARE(*worldSizeOf({loaded.trace}), 4);
    }

    // `ringscope compare`: exit 0, 2 on unreadable input or bad usage; both JSON schemas.
    void commandLine()
    {
        const QString exe = test::binaryDir() + "/app/ringscope";
        if (!QFile::exists(exe)) QSKIP("the ringscope binary is not built");
        QTemporaryDir root;
        gen::SeedCaseOptions o;
        o.ranks = 2;
        o.steps = 4;
        o.badSteps = {1};
        const QString before = writeSeed(root, "before", o);
        o.badSteps.clear();
        const QString after = writeSeed(root, "after", o);
        auto run = [&](const QStringList& args, QByteArray* out = nullptr) {
            QProcess p;
            p.start(exe, QStringList{"compare"} + args);
            p.waitForFinished(120000);
            if (out) *out = p.readAllStandardOutput();
            return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        };
        QByteArray out;
        QCOMPARE(run({before, after, "--json"}, &out), 0);
        const auto j = nlohmann::json::parse(out.toStdString(), nullptr, false);
        QVERIFY(j.is_object());
        QCOMPARE(j["schema"].get<std::string>(), std::string("ringscope.compare/1"));
        QVERIFY(j["steps"]["delta_ns"].get<TimeNs>() < 0);
        QCOMPARE(j["before"]["rank_count"].get<int>(), 2);
        QVERIFY(!j["findings_resolved"].empty());
        QCOMPARE(run({before, after}, &out), 0);
        QVERIFY2(out.contains("step time (mean)"), out.constData());
        QVERIFY(out.contains("findings resolved"));
        QCOMPARE(run({"--scaling", before, after, "--json"}, &out), 0);
        const auto s = nlohmann::json::parse(out.toStdString(), nullptr, false);
        QCOMPARE(s["schema"].get<std::string>(), std::string("ringscope.scaling/1"));
        QCOMPARE(s["runs"].size(), size_t(2));
        QCOMPARE(s["runs"][0]["efficiency"].get<double>(), 1.0);
        QCOMPARE(run({"--scaling", "--weak", before, after}, &out), 0);
        QVERIFY(out.contains("Weak scaling"));
        // Unreadable input and bad usage.
        QCOMPARE(run({before, root.filePath("missing")}), 2);
        const QString junk = root.filePath("junk.json");
        {
            QFile f(junk);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{ not json");
        }
        QCOMPARE(run({junk, after, "--json"}), 2);
        QCOMPARE(run({before}), 2);
        QCOMPARE(run({"--weak", before, after}), 2);
        QCOMPARE(run({"--scaling", before}), 2);
        QCOMPARE(run({"--help"}, &out), 0);
        // --image: the two timelines, or the scaling chart, headless.
        const QString png = root.filePath("c.png"), svg = root.filePath("s.svg");
        QCOMPARE(run({before, after, "--image", png}, &out), 0);
        QVERIFY(out.contains("step time (mean)"));
        QFile pf(png);
        QVERIFY(pf.open(QIODevice::ReadOnly));
        QVERIFY(pf.read(4) == QByteArray("\x89PNG"));
        QVERIFY(pf.size() > 10000);
        QCOMPARE(run({"--scaling", before, after, "--image", svg, "--json"}, &out), 0);
        QVERIFY(out.contains("ringscope.scaling/1"));
        QFile sf(svg);
        QVERIFY(sf.open(QIODevice::ReadOnly));
        QVERIFY(sf.readAll().contains("<svg"));
        QCOMPARE(run({before, after, "--image", root.filePath("c.bmp")}), 2);
    }

    // Ranks 0 and 1 of the public Level1 job as two runs: their steps are torch_npu's
    // step_trace_time.csv figures (Computing + Communication(Not Overlapped) + Free).
    void publicRunsOfOneJob()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        const QString job = test::publicTrace("ascend_torchnpu_level1_2rank");
        const RunDigest r0 = digestPath(job + "/rank0_ascend_pt");
        const RunDigest r1 = digestPath(job + "/rank1_ascend_pt");
        QCOMPARE(r0.rankIds, std::vector<int>{0});
        QCOMPARE(r1.rankIds, std::vector<int>{1});
        QCOMPARE(r0.producer, std::string("torch_npu"));
        // step 50: 8873.756 + 101963.203 + 25744.050 µs on rank 0, 8878.295 + 96359.047 +
        // 26675.274 µs on rank 1.
        // The csv rounds to the nanosecond: the device busy window is the same figure.
        const double want0 = 136581.009e3, want1 = 131912.616e3;
        QVERIFY2(std::abs(double(*r0.stepMeanNs) - want0) <= 2,
                 std::to_string(*r0.stepMeanNs).c_str());
        QVERIFY2(std::abs(double(*r1.stepMeanNs) - want1) <= 2,
                 std::to_string(*r1.stepMeanNs).c_str());
        const RunComparison c = compareRuns(r0, r1);
        QCOMPARE(c.steps.size(), size_t(1));
        QCOMPARE(c.steps[0].step, 50);
        QVERIFY(*c.stepDeltaNs() < 0);
        QCOMPARE(c.collectives.size(), size_t(1));
        QCOMPARE(c.collectives[0].pattern, std::string("hcom_allReduce__#_#_#"));
        QCOMPARE(c.collectives[0].beforeCount, 4);
        QCOMPARE(c.collectives[0].afterCount, 4);
        // Both ranks ran the same kernels: every op name is on both sides.
        std::size_t both = 0;
        for (const OpDelta& op : c.ops)
            both += op.beforeCount > 0 && op.afterCount > 0;
        QVERIFY(both > 20);

        // The whole job against itself, and its summary.
        const RunDigest all = digestPath(job);
        QCOMPARE(all.rankIds, (std::vector<int>{0, 1}));
        QCOMPARE(all.cards, 2); // the metadata does not say 8: the ranks found
        QCOMPARE(all.stepSamples, 2);
        QCOMPARE(*all.stepMeanNs, (*r0.stepMeanNs + *r1.stepMeanNs) / 2);
        const RunComparison self = compareRuns(all, all);
        QVERIFY(self.resolved.empty() && self.added.empty());
    }
};

QTEST_GUILESS_MAIN(TstCompare)
#include "tst_compare.moc"
