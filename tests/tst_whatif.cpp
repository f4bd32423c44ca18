// What a fix would gain (core/job/whatif.h, issue 44.2): the replay of no change is the
// measured trace on every public run and the seed job; without the internal memcpy the seed
// job's mode-B steps take what mode-A steps take; a kernel made faster on every rank shortens
// each step by what it saved, on one rank only it saves nothing (the others still wait);
// `ringscope whatif` prints it.

#include "bench/tracegen_seed.h"
#include "core/job/jobpipeline.h"
#include "core/job/whatif.h"
#include "tests/support/processrun.h"
#include "tests/testutil.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <map>

using namespace rs;

namespace {

PipelineResult seedJob(QTemporaryDir& dir, bool kineto)
{
    gen::SeedCaseOptions o;
    o.kineto = kineto;
    o.ranks = 4;
    if (!gen::writeSeedCaseJob(dir.path().toStdString(), o)) return {};
    return runPipeline({dir.path().toStdString()}, PipelineOptions{});
}

QString ringscope()
{
    return test::binaryDir() + "/app/ringscope";
}

WhatIfResult replay(const PipelineResult& r, const WhatIfChange& c)
{
    return whatIf(r.traces, r.reports, r.jobReport(), c);
}

} // namespace

class TstWhatIf : public QObject {
    Q_OBJECT

private slots:
    void seed_data()
    {
        QTest::addColumn<bool>("kineto");
        QTest::newRow("torch_npu") << false;
        QTest::newRow("kineto") << true;
    }

    void noChangeIsTheMeasuredJob_data() { seed_data(); }
    void noChangeIsTheMeasuredJob()
    {
        QFETCH(bool, kineto);
        QTemporaryDir dir;
        const PipelineResult run = seedJob(dir, kineto);
        QVERIFY(run.job);
        const WhatIfResult r = replay(run, {});
        QCOMPARE(int(r.steps.size()), 6);
        for (const StepPrediction& p : r.steps)
            QCOMPARE(p.predictedNs, p.measuredNs);
    }

    // Mode B (722 ms) without the copy takes what mode A takes (522 ms), within 3%.
    void removeInternalMemcpy_data() { seed_data(); }
    void removeInternalMemcpy()
    {
        QFETCH(bool, kineto);
        QTemporaryDir dir;
        const PipelineResult run = seedJob(dir, kineto);
        QVERIFY(run.job);
        WhatIfChange c;
        c.removeInternalMemcpy = true;
        const WhatIfResult r = replay(run, c);
        QCOMPARE(int(r.steps.size()), 6);
        TimeNs modeA = 0;
        for (const StepPrediction& p : r.steps) {
            const int i = p.step - 40;
            if (i != 2 && i != 4) {
                QCOMPARE(p.predictedNs, p.measuredNs); // nothing to remove
                modeA = p.measuredNs;
            }
        }
        for (const StepPrediction& p : r.steps) {
            const int i = p.step - 40;
            if (i != 2 && i != 4) continue;
            QVERIFY(p.measuredNs > modeA + 150'000'000);
            QVERIFY2(std::llabs(p.predictedNs - modeA) * 100 <= modeA * 3,
                     qPrintable(QString("step %1: predicted %2, mode A %3")
                                    .arg(p.step)
                                    .arg(p.predictedNs)
                                    .arg(modeA)));
        }
        QVERIFY(r.totalPredictedNs < r.totalMeasuredNs);
    }

    // Each internal-memcpy finding's gain_ns (read off the critical path) is what the replay
    // saves in its step: the job's finding against the job's replay without the copies, each
    // rank's finding against that rank's replay alone. Two ranks copying in one step, a slow
    // kernel elsewhere and a late launch do not change that.
    void findingGainIsTheReplaysSaving_data()
    {
        QTest::addColumn<bool>("kineto");
        QTest::addColumn<bool>("mixed");
        QTest::newRow("torch_npu") << false << false;
        QTest::newRow("kineto") << true << false;
        QTest::newRow("torch_npu, two copiers, slow kernel, late launch") << false << true;
    }
    void findingGainIsTheReplaysSaving()
    {
        QFETCH(bool, kineto);
        QFETCH(bool, mixed);
        gen::SeedCaseOptions o;
        o.kineto = kineto;
        o.ranks = 4;
        if (mixed) {
            o.badRanks = {{2, {1, 3}}, {4, {0}}};
            o.slowKernel = {2, 3, 30'000'000};
            o.lateLaunch = {1, 4, 20'000'000};
        }
        QTemporaryDir dir;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        const PipelineResult run = runPipeline({dir.path().toStdString()}, PipelineOptions{});
        QVERIFY(run.job);
        WhatIfChange all;
        all.removeInternalMemcpy = true;
        std::map<int, TimeNs> saving;
        for (const StepPrediction& p : replay(run, all).steps)
            saving[p.step] = p.measuredNs - p.predictedNs;
        int jobGains = 0;
        for (const Finding& f : run.job->findings) {
            if (f.rule != "job-rank-delays-collective" || !f.gainNs) continue;
            ++jobGains;
            QVERIFY(f.step);
            QVERIFY2(std::llabs(*f.gainNs - saving[*f.step]) <= saving[*f.step] / 100 + 1'000,
                     qPrintable(QString("step %1: gain %2, replay %3")
                                    .arg(*f.step)
                                    .arg(*f.gainNs)
                                    .arg(saving[*f.step])));
            QVERIFY(f.recommendation.find("Gain: without") != std::string::npos);
        }
        QCOMPARE(jobGains, 2); // the two bad steps
        int rankGains = 0;
        for (std::size_t i = 0; i < run.reports.size(); ++i) {
            const AnalysisReport& rep = *run.reports[i];
            for (const Finding& f : rep.findings) {
                if (f.rule != "collective-extra-memcpy") continue;
                QVERIFY(f.gainNs);
                ++rankGains;
                const Collective* c = rep.collectiveOf(f.events.front());
                QVERIFY(c && c->step);
                const WhatIfResult alone =
                    whatIf(std::vector<TracePtr>{run.traces[i]},
                           std::vector<ReportPtr>{run.reports[i]}, nullptr, all);
                TimeNs s = -1;
                for (const StepPrediction& p : alone.steps)
                    if (p.step == *c->step) s = p.measuredNs - p.predictedNs;
                QVERIFY2(std::llabs(*f.gainNs - s) <= s / 100 + 1'000,
                         qPrintable(QString("rank %1 step %2: gain %3, replay alone %4")
                                        .arg(i)
                                        .arg(*c->step)
                                        .arg(*f.gainNs)
                                        .arg(s)));
            }
        }
        QCOMPARE(rankGains, mixed ? 3 : 2);
    }

    // The MatMul kernel twice as fast: 40 ms off every step when every rank has it; on one rank
    // only, nothing (the collective waits for the others).
    void scaleKernel()
    {
        QTemporaryDir dir;
        const PipelineResult run = seedJob(dir, false);
        QVERIFY(run.job);
        WhatIfChange c;
        c.scale.push_back({"aclnnMatmul*", 0.5});
        WhatIfResult r = replay(run, c);
        for (const StepPrediction& p : r.steps)
            QCOMPARE(p.measuredNs - p.predictedNs, TimeNs(40'000'000));
        c.rank = 3;
        r = replay(run, c);
        // The ranks' clocks differ by a few hundred ns: rank 3, ready last by those, no longer is.
        for (const StepPrediction& p : r.steps)
            QVERIFY2(std::llabs(p.predictedNs - p.measuredNs) < 1'000,
                     qPrintable(QString("%1 vs %2").arg(p.predictedNs).arg(p.measuredNs)));
    }

    // Every public run: no change replays to the measured step times (within 0.5%).
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
        const PipelineResult run = runPipeline({set.toStdString()}, PipelineOptions{});
        QVERIFY2(!run.reports.empty(), qPrintable(set));
        const WhatIfResult r = replay(run, {});
        for (const StepPrediction& p : r.steps)
            QVERIFY2(std::llabs(p.predictedNs - p.measuredNs) * 200 <= p.measuredNs,
                     qPrintable(QString("%1 step %2: measured %3, replayed %4")
                                    .arg(set)
                                    .arg(p.step)
                                    .arg(p.measuredNs)
                                    .arg(p.predictedNs)));
        qInfo("%s: %d steps replayed", qPrintable(QFileInfo(set).fileName()), int(r.steps.size()));
    }

    void commandLine()
    {
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 4;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        auto run = test::runProcess(
            ringscope(), {"whatif", dir.path(), "--remove", "internal-memcpy", "--json"});
        QVERIFY2(run.code == 0, qPrintable(run.describe()));
        const auto j = nlohmann::json::parse(run.out.toStdString());
        QCOMPARE(j["steps"].size(), std::size_t(6));
        QVERIFY(j["total_predicted_ns"].get<TimeNs>() < j["total_measured_ns"].get<TimeNs>());
        QCOMPARE(j["steps"][2]["step"].get<int>(), 42);
        run = test::runProcess(ringscope(), {"whatif", dir.path(), "--scale", "x"});
        QCOMPARE(run.code, 2);
        run = test::runProcess(ringscope(), {"whatif", dir.path(), "--rank", "9"});
        QCOMPARE(run.code, 2);
        run = test::runProcess(ringscope(), {"whatif", dir.path()});
        QVERIFY2(run.code == 0 && run.out.contains("total"), qPrintable(run.describe()));
    }
};

QTEST_GUILESS_MAIN(TstWhatIf)
#include "tst_whatif.moc"
