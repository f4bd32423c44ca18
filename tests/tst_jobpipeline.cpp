// The one pipeline (core/job/jobpipeline.h) on the 8-rank seed job: who delayed whom with one,
// two and three delaying ranks, progress and cancel, the memory budget bounding how many ranks
// run at once, and the command line giving the job report the viewer's pipeline gives; the
// job export and the unknown-command exit.
#include "bench/tracegen_seed.h"
#include "core/analysis/reportjson.h"
#include "core/job/jobpipeline.h"
#include "tests/support/reportoracle.h"
#include "tests/testutil.h"
#include "ui/job/jobsession.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <set>

using namespace rs;

namespace {

// Steps 1, 3 and 4 (0-based) of 6 are misaligned on one, two and three ranks.
gen::SeedCaseOptions multiDelayJob()
{
    gen::SeedCaseOptions o;
    o.ranks = 8;
    o.steps = 6;
    o.badSteps.clear();
    o.badRanks = {{1, {2}}, {3, {5, 6}}, {4, {0, 3, 7}}};
    return o;
}

struct Run {
    int code = -1;
    QByteArray out, err;
};

Run runRingscope(const QStringList& args)
{
    Run r;
    QProcess p;
    p.start(test::binaryDir() + "/app/ringscope", args);
    if (!p.waitForFinished(120000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

bool haveBinary()
{
    return QFileInfo(test::binaryDir() + "/app/ringscope").isExecutable();
}

// The job's part of a report: cross_rank and the job findings without their evidence events
// (the viewer's reports keep rank shells, not the events' names).
nlohmann::json jobPart(const nlohmann::json& report)
{
    nlohmann::json findings = nlohmann::json::array();
    for (nlohmann::json f : report["findings"])
        if (f["input"].is_null()) {
            f.erase("events");
            findings.push_back(f);
        }
    return {{"cross_rank", report["cross_rank"]}, {"findings", findings}};
}

} // namespace

class TstJobPipeline : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(gen::writeSeedCaseJob(m_dir.path().toStdString(), multiDelayJob()));
    }

    void delayingRanksOneTwoThree()
    {
        const gen::SeedCaseOptions o = multiDelayJob();
        JobProgress progress;
        std::atomic<int> changes{0}; // called on the pool's threads
        progress.onChange = [&changes] { ++changes; };
        const PipelineResult r = runPipeline({m_dir.path().toStdString()}, {}, &progress);
        QVERIFY2(r.errors.empty(), r.errors.empty() ? "" : r.errors.front().c_str());
        QCOMPARE(r.traces.size(), std::size_t(8));
        QCOMPARE(progress.ranksDone.load(), 8);
        QCOMPARE(progress.done.load(), progress.total.load());
        QVERIFY(changes >= 1);
        QVERIFY(r.job);
        QCOMPARE(r.rankIds, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));

        const std::map<int, std::vector<int>> want = {{int(o.stepBase) + 1, {2}},
                                                      {int(o.stepBase) + 3, {5, 6}},
                                                      {int(o.stepBase) + 4, {0, 3, 7}}};
        int delayed = 0;
        for (const CrossRankCollective& c : r.job->collectives) {
            QVERIFY(c.step);
            const auto it = want.find(*c.step);
            if (it == want.end()) {
                QVERIFY2(c.delayingRanks.empty(), std::to_string(*c.step).c_str());
                QVERIFY(!c.delayingRank);
                continue;
            }
            ++delayed;
            QCOMPARE(c.delayingRanks, it->second);
            QVERIFY(c.delayingRank);
            QVERIFY(std::count(it->second.begin(), it->second.end(), *c.delayingRank));
            QVERIFY2(c.delayNs > 150'000'000 && c.delayNs < 250'000'000,
                     std::to_string(c.delayNs).c_str());
            QVERIFY2(c.cause.find("internal memcpy") != std::string::npos, c.cause.c_str());
        }
        QCOMPARE(delayed, 3);

        // Exactly one finding per delayed collective: delaying ranks first, then the waiters.
        std::map<int, const Finding*> byStep;
        for (const Finding& f : r.job->findings) {
            if (f.rule != "job-rank-delays-collective") continue;
            QVERIFY(!f.rank);
            QVERIFY(f.step);
            QVERIFY2(!byStep.count(*f.step), "two findings for one collective");
            byStep[*f.step] = &f;
        }
        QCOMPARE(byStep.size(), std::size_t(3));
        for (const auto& [step, delaying] : want) {
            const Finding& f = *byStep.at(step);
            std::vector<int> ranks = delaying;
            for (int k = 0; k < 8; ++k)
                if (!std::count(delaying.begin(), delaying.end(), k)) ranks.push_back(k);
            QCOMPARE(f.ranks, ranks);
            QVERIFY(f.end > f.start);
            QCOMPARE(f.severity, Severity::Error);
        }
        const std::string two = byStep.at(int(o.stepBase) + 3)->title;
        QVERIFY2(two.rfind("Ranks 5, 6 delay AllReduce in step " + std::to_string(o.stepBase + 3) +
                               " by ",
                           0) == 0,
                 two.c_str());
        QVERIFY2(two.find("internal memcpy of ~") != std::string::npos, two.c_str());
        QVERIFY2(two.find("; ranks 0-4, 7 wait ") != std::string::npos, two.c_str());
        const std::string one = byStep.at(int(o.stepBase) + 1)->title;
        QVERIFY2(one.rfind("Rank 2 delays AllReduce", 0) == 0, one.c_str());
        QVERIFY2(one.find("ranks 0, 1, 3-7 wait") != std::string::npos, one.c_str());
        const std::string three = byStep.at(int(o.stepBase) + 4)->title;
        QVERIFY2(three.rfind("Ranks 0, 3, 7 delay", 0) == 0, three.c_str());
        QVERIFY2(three.find("ranks 1, 2, 4-6 wait") != std::string::npos, three.c_str());

        // A waiting rank's sync-dominated finding names the ranks the job says it waited for.
        int named = 0;
        for (const ReportPtr& rep : r.reports)
            for (const Finding& f : rep->findings)
                if (f.rule == "sync-dominated") {
                    ++named;
                    QVERIFY2(f.recommendation.find("wait for rank 0 (1 of 3 delayed collectives), "
                                                   "rank 2 (1 of 3") != std::string::npos,
                             f.recommendation.c_str());
                    QVERIFY(f.recommendation.find("rank 6 (1 of 3") != std::string::npos);
                }
        QVERIFY(named > 0);

        // The JSON: delaying_ranks on every cross_rank element, the finding's step and span.
        const nlohmann::json j = reportToJson(r.reportInputs(), r.jobReport());
        QCOMPARE(j["cross_rank"].size(), std::size_t(o.steps));
        for (const auto& c : j["cross_rank"]) {
            QVERIFY(c.contains("delaying_ranks"));
            QVERIFY(c["delaying_ranks"].is_array());
            QCOMPARE(c["delaying_ranks"].empty(), c["delaying_rank"].is_null());
        }
        int jobFindings = 0;
        for (const auto& f : j["findings"])
            if (f["rule"] == "job-rank-delays-collective") {
                ++jobFindings;
                QVERIFY(f["rank"].is_null());
                QVERIFY(f["step"].is_number_integer());
                QVERIFY(f["end_ns"].get<long long>() > f["start_ns"].get<long long>());
            }
        QCOMPARE(jobFindings, 3);
    }

    void budgetBoundsRanksAtOnce()
    {
        // A budget that holds about two projected ranks at a time: never more run at once, and
        // the reservations never exceed it; every rank still loads.
        std::uint64_t biggest = 0;
        std::string error;
        const auto inputs = discoverJob({m_dir.path().toStdString()}, &error);
        QCOMPARE(inputs.size(), std::size_t(8));
        for (const RankInput& in : inputs)
            biggest = std::max(biggest, projectedRankBytes(in.path));
        PipelineOptions options;
        options.load.maxMemoryBytes = biggest * 2 + biggest / 2;
        options.maxParallel = 4;
        // Loaded ranks keep their model: later ranks wait for room, the first ones fit.
        const PipelineResult r = runPipeline(inputs, options);
        QCOMPARE(r.budget, options.load.maxMemoryBytes);
        QVERIFY(r.peakRunning >= 1 && r.peakRunning <= 4);
        QVERIFY2(r.peakHeld <= r.budget,
                 (std::to_string(r.peakHeld) + " > " + std::to_string(r.budget)).c_str());
        // Ranks that could not fit next to the kept ones are refused with a message.
        QCOMPARE(r.traces.size() + r.errors.size(), std::size_t(8));
    }

    void cancelStopsTheJob()
    {
        JobProgress progress;
        progress.requestCancel();
        const PipelineResult r = runPipeline({m_dir.path().toStdString()}, {}, &progress);
        QVERIFY(r.cancelled);
        QVERIFY(r.traces.empty());
    }

    void oneJobRule()
    {
        QVERIFY(formsOneJob(std::vector<std::optional<int>>{0, 1, 2}));
        QVERIFY(!formsOneJob(std::vector<std::optional<int>>{0}));
        QVERIFY(!formsOneJob(std::vector<std::optional<int>>{0, 0}));
        QVERIFY(!formsOneJob(std::vector<std::optional<int>>{0, std::nullopt}));
    }

    void cliAndViewerGiveTheSameJobReport()
    {
        if (!haveBinary()) QSKIP("the ringscope binary is not built in this tree");
        const Run cli = runRingscope({"analyze", m_dir.path(), "--json"});
        QCOMPARE(cli.code, 0);
        const nlohmann::json fromCli = nlohmann::json::parse(cli.out.toStdString());
        // The viewer's path: the session built on the pipeline, as MainWindow drives it.
        std::string error;
        const auto inputs = discoverJob({m_dir.path().toStdString()}, &error);
        JobProgress progress;
        const JobSessionPtr s = buildJobSession(inputs, m_dir.path().toStdString(), &progress);
        QVERIFY(s && s->jobReport);
        const nlohmann::json fromViewer = reportToJson({}, &*s->jobReport);
        QCOMPARE(jobPart(fromViewer).dump(1), jobPart(fromCli).dump(1));
        QVERIFY(!fromCli["cross_rank"].empty());
    }

    void exportsTheJob()
    {
        if (!haveBinary()) QSKIP("the ringscope binary is not built in this tree");
        QTemporaryDir out;
        const QString svg = out.filePath("job.svg");
        const Run r = runRingscope(
            {"export", m_dir.path(), "--out", svg, "--annotate-findings", "--finding", "1"});
        QVERIFY2(r.code == 0, r.err.constData());
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        for (int rank = 0; rank < 8; ++rank)
            QVERIFY2(text.contains(QStringLiteral("Rank %1 \u00b7 ").arg(rank).toUtf8()),
                     qPrintable(QString::number(rank)));
        // The report of the job's first finding shows the call stack down to the source frame
        // (on the timeline its label may be dropped where labels would overlap).
        const QString report = out.filePath("report.svg");
        const Run composite = runRingscope({"export", m_dir.path(), "--out", report, "--composite",
                                            "--annotate-findings", "--finding", "1"});
        QVERIFY2(composite.code == 0, composite.err.constData());
        QFile rf(report);
        QVERIFY(rf.open(QIODevice::ReadOnly));
        QVERIFY(rf.readAll().contains("custom_attention_forward"));

        // --finding counts the job's findings as the Findings pane does (the combined report).
        std::string error;
        const JobSessionPtr s = buildJobSession(discoverJob({m_dir.path().toStdString()}, &error),
                                                m_dir.path().toStdString(), nullptr);
        const std::size_t n = s->combined->findings.size();
        QVERIFY(n > 3);
        const Run last =
            runRingscope({"export", m_dir.path(), "--out", svg, "--finding", QString::number(n)});
        QCOMPARE(last.code, 0);
        const Run past = runRingscope(
            {"export", m_dir.path(), "--out", svg, "--finding", QString::number(n + 1)});
        QCOMPARE(past.code, 2);
        QVERIFY2(past.err.contains(QByteArray::number(qulonglong(n)) + " finding(s)"),
                 past.err.constData());
        // Several files and rank folders are accepted too.
        const Run two = runRingscope({"export", m_dir.filePath("rank0_ascend_pt"),
                                      m_dir.filePath("rank1_ascend_pt"), "--out", svg});
        QVERIFY2(two.code == 0, two.err.constData());
    }

    void unknownCommandExitsTwo()
    {
        if (!haveBinary()) QSKIP("the ringscope binary is not built in this tree");
        const Run typo = runRingscope({"anaylze", m_dir.path()});
        QCOMPARE(typo.code, 2);
        QVERIFY2(typo.err.contains("unknown command"), typo.err.constData());
        for (const char* c : {"analyze", "export", "info", "compare"})
            QVERIFY2(typo.err.contains(c), typo.err.constData());
        QCOMPARE(runRingscope({"frobnicate"}).code, 2);
        // A real subcommand still runs.
        QCOMPARE(runRingscope({"info", m_dir.filePath("rank0_ascend_pt")}).code, 0);
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TstJobPipeline)
#include "tst_jobpipeline.moc"
