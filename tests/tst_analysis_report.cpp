// The ringscope.report/1 JSON (what `ringscope analyze --json` prints), the text summary,
// call-stack chains on small traces, and the `ringscope analyze` exit codes.

#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/analysis/reportjson.h"
#include "core/job/jobloader.h"
#include "tests/support/reportoracle.h"
#include "tests/testutil.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace rs;

class TestAnalysisReport : public QObject {
    Q_OBJECT

private slots:
    void schemaFields()
    {
        gen::SeedCaseOptions o;
        LoadResult r = test::loadText(gen::seedCaseTrace(o, 0));
        QVERIFY(r.complete());
        ReportPtr rep = analyze(r.trace);
        const nlohmann::json j = reportToJson({{"rank0.json", rep}});
        QCOMPARE(j.at("schema").get<std::string>(), std::string("ringscope.report/1"));
        QCOMPARE(j.at("inputs").size(), std::size_t(1));
        for (const char* k : {"path", "rank", "events", "warnings"})
            QVERIFY2(j["inputs"][0].contains(k), k);
        QCOMPARE(j["inputs"][0]["events"].get<std::uint64_t>(), r.trace->stats().events);
        QCOMPARE(j.at("collectives").size(), std::size_t(o.steps));
        int anomalous = 0;
        for (const auto& c : j["collectives"]) {
            for (const char* k : {"rank", "name", "kind", "start_ns", "dur_ns", "memcpy_count",
                                  "memcpy_ns", "memcpy_bytes", "unaligned_count", "anomalous",
                                  "mode", "verdict", "algbw_gbps", "busbw_gbps"})
                QVERIFY2(c.contains(k), k);
            QVERIFY(c["start_ns"].is_number_integer());
            QVERIFY(c["dur_ns"].is_number_integer());
            QVERIFY(c["mode"].is_number_integer());
            QCOMPARE(c["kind"].get<std::string>(), std::string("AllReduce"));
            anomalous += c["anomalous"].get<bool>();
        }
        QCOMPARE(anomalous, 2);
        // Exact to the file: the op's start in ns equals the slice's.
        QCOMPARE(j["collectives"][0]["start_ns"].get<std::int64_t>(),
                 r.trace->slice(rep->collectives[0].event).start);
        QCOMPARE(j.at("steps").size(), std::size_t(o.steps));
        for (const auto& s : j["steps"]) {
            for (const char* k : {"rank", "step", "computing_ns", "communication_ns",
                                  "overlapped_ns", "communication_not_overlapped_ns", "free_ns"})
                QVERIFY2(s.contains(k), k);
        }
        QVERIFY(!j.at("findings").empty());
        const auto& f = j["findings"][0];
        for (const char* k :
             {"rule", "severity", "title", "rank", "events", "stack", "recommendation"})
            QVERIFY2(f.contains(k), k);
        QCOMPARE(f["rule"].get<std::string>(), std::string("collective-extra-memcpy"));
        QCOMPARE(f["severity"].get<std::string>(), std::string("error"));
        QVERIFY(!f["stack"].empty());
        QVERIFY(f["events"][0]["start_ns"].is_number_integer());
        QCOMPARE(worstSeverity({{"x", rep}}), std::optional<Severity>(Severity::Error));

        const std::string text = reportToText({{"rank0.json", rep}});
        QVERIFY(text.find("mode B = 2.0x mode A") != std::string::npos);
        QVERIFY(text.find("collective-extra-memcpy") != std::string::npos);
        QVERIFY(text.find("custom_attention_forward") != std::string::npos);
    }

    void exactTorchNpuStart()
    {
        // start_ns exact to the file for a torch_npu op at "1736408883732241.564".
        const std::string json = R"([
 {"name":"process_name","pid":3170820576,"tid":0,"args":{"name":"HCCL"},"ph":"M"},
 {"name":"thread_name","pid":3170820576,"tid":0,"args":{"name":"Group 0 Communication"},"ph":"M"},
 {"name":"hcom_allReduce__586_0_1","pid":3170820576,"tid":0,"ts":"1736408883732241.564",
  "dur":79089.52021875,"args":{"data_type":"FP32","alg_type":"MESH-RING","count":4097000},"ph":"X"}
])";
        LoadResult r = test::loadText(json);
        QVERIFY(r.complete());
        ReportPtr rep = analyze(r.trace);
        const nlohmann::json j = reportToJson({{"t", rep}});
        QCOMPARE(j["collectives"].size(), std::size_t(1));
        QCOMPARE(j["collectives"][0]["start_ns"].get<std::int64_t>(),
                 std::int64_t(1736408883732241564));
        QCOMPARE(j["collectives"][0]["bytes"].get<std::uint64_t>(), std::uint64_t(4097000) * 4);
        QVERIFY(j["collectives"][0]["mode"].is_null());
        QCOMPARE(j["collectives"][0]["memcpy_count"].get<int>(), 0);
        // No tasks, no peers, no findings.
        QVERIFY(j["findings"].empty());
    }

    void chainKinetoTorchNpu_data()
    {
        QTest::addColumn<bool>("kineto");
        QTest::newRow("torch_npu") << false;
        QTest::newRow("kineto") << true;
    }

    void chainKinetoTorchNpu()
    {
        QFETCH(bool, kineto);
        gen::SeedCaseOptions o;
        o.kineto = kineto;
        LoadResult r = test::loadText(gen::seedCaseTrace(o, 0));
        QVERIFY(r.complete());
        ReportPtr rep = analyze(r.trace);
        const Collective& c = rep->collectives.front();
        const auto chain = callStack(*r.trace, c.event);
        // Innermost first: the device op, then the host op that launched it, then Python.
        QCOMPARE(chain.front().event, c.event);
        QVERIFY(chain.size() >= 4);
        QCOMPARE(chain[1].kind, std::string("host op"));
        bool sawCustom = false;
        for (const StackEntry& s : chain)
            sawCustom |= s.text.find("custom_attention_forward") != std::string::npos;
        QVERIFY(sawCustom);
        QCOMPARE(sourceFrame(chain),
                 std::string("model/attention.py(57): custom_attention_forward"));
        // Bounded.
        QCOMPARE(callStack(*r.trace, c.event, 3).size(), std::size_t(3));
        QVERIFY(callStack(*r.trace, kNone).empty());
    }

    void chainCycleAndFrames()
    {
        // Flows that form a cycle between two roots, and stackFrames with a parent loop.
        const std::string json = R"({"traceEvents":[
 {"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10,"sf":2},
 {"ph":"X","name":"b","pid":1,"tid":2,"ts":0,"dur":10},
 {"ph":"s","id":1,"pid":1,"tid":1,"ts":1,"cat":"x","name":"f"},
 {"ph":"f","id":1,"pid":1,"tid":2,"ts":1,"cat":"x","name":"f","bp":"e"},
 {"ph":"s","id":2,"pid":1,"tid":2,"ts":2,"cat":"x","name":"f"},
 {"ph":"f","id":2,"pid":1,"tid":1,"ts":2,"cat":"x","name":"f","bp":"e"}
],"stackFrames":{"1":{"name":"outer","parent":"2"},"2":{"name":"inner","parent":"1"}}})";
        LoadResult r = test::loadText(json);
        QVERIFY(r.complete());
        for (EventId e = 0; e < r.trace->slices().size(); ++e) {
            const auto chain = callStack(*r.trace, e, 50);
            QVERIFY(!chain.empty());
            QVERIFY(chain.size() <= 50);
        }
    }

    void pythonCallStackArg()
    {
        // torch_npu "Call stack": one string, innermost first, frames separated by ";\r\n".
        const std::string json = R"([
 {"name":"process_name","pid":10,"tid":0,"args":{"name":"Python"},"ph":"M"},
 {"ph":"X","name":"outer_op","pid":10,"tid":10,"ts":"100.000","dur":50,"cat":"cpu_op"},
 {"ph":"X","name":"aten::empty","pid":10,"tid":10,"ts":"110.000","dur":5,"cat":"cpu_op",
  "args":{"Call stack":"my/model.py(12): build;\r\ntorch/nn/modules/module.py(1501): _call_impl;\r\ntrain.py(3): main"}}
])";
        LoadResult r = test::loadText(json);
        QVERIFY(r.complete());
        EventId e = kNone;
        for (EventId i = 0; i < r.trace->slices().size(); ++i) {
            if (r.trace->str(r.trace->slice(i).name) == "aten::empty") e = i;
        }
        QVERIFY(e != kNone);
        const auto chain = callStack(*r.trace, e);
        QCOMPARE(chain.size(), std::size_t(5));
        QCOMPARE(chain[0].text, std::string("aten::empty"));
        QCOMPARE(chain[1].text, std::string("my/model.py(12): build"));
        QCOMPARE(chain[1].kind, std::string("call stack"));
        QCOMPARE(chain[3].text, std::string("train.py(3): main"));
        QCOMPARE(chain[4].text, std::string("outer_op"));
        QCOMPARE(sourceFrame(chain), std::string("my/model.py(12): build"));
    }

    void expandsJobFolders()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        gen::SeedCaseOptions o;
        o.kineto = true;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        for (const char* junk : {"rank0.pt.trace.ringscope.json", "communication.json"}) {
            QFile f(dir.filePath(junk));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{}");
        }
        std::string error;
        const auto inputs = discoverJob({dir.path().toStdString()}, &error);
        QCOMPARE(inputs.size(), std::size_t(2));
        QVERIFY(inputs[0].path.ends_with("rank0.pt.trace.json"));
        QVERIFY(inputs[1].path.ends_with("rank1.pt.trace.json"));
        // A trace path stands for itself.
        const auto one = discoverJob({inputs[0].path}, &error);
        QCOMPARE(one.size(), std::size_t(1));
        QCOMPARE(one[0].path, inputs[0].path);
    }

    void commandLine()
    {
        const QString exe = test::binaryDir() + "/app/ringscope";
        if (!QFileInfo(exe).isExecutable()) QSKIP("the ringscope binary is not built in this tree");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        gen::SeedCaseOptions o;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        auto run = [&](const QStringList& args, QByteArray* out) {
            QProcess p;
            p.start(exe, QStringList{"analyze"} + args);
            if (!p.waitForFinished(120000)) return -1;
            if (out) *out = p.readAllStandardOutput();
            return p.exitCode();
        };
        QByteArray out;
        // The job folder expands to its two rank folders.
        QCOMPARE(run({dir.path(), "--json"}, &out), 0);
        const auto j = nlohmann::json::parse(out.toStdString());
        QCOMPARE(j["inputs"].size(), std::size_t(2));
        QCOMPARE(j["inputs"][1]["rank"].get<int>(), 1);
        QCOMPARE(j["collectives"].size(), std::size_t(2 * o.steps));
        // Across the two ranks: every AllReduce matched, rank 0's copies delay rank 1.
        QCOMPARE(j["cross_rank"].size(), std::size_t(o.steps));
        int delayed = 0, jobFindings = 0;
        for (const auto& c : j["cross_rank"])
            if (!c["delaying_rank"].is_null()) {
                ++delayed;
                QCOMPARE(c["delaying_rank"].get<int>(), o.badRank);
            }
        QCOMPARE(delayed, int(o.badSteps.size()));
        for (const auto& f : j["findings"])
            if (f["rule"] == "job-rank-delays-collective") {
                ++jobFindings;
                QVERIFY(f["rank"].is_null());
                QCOMPARE(f["ranks"][0].get<int>(), o.badRank);
                QCOMPARE(f["events"][0]["rank"].get<int>(), o.badRank);
            }
        QCOMPARE(jobFindings, int(o.badSteps.size()));
        QCOMPARE(run({dir.path(), "--fail-on", "error"}, &out), 1);
        QVERIFY(out.contains("collective-extra-memcpy"));
        QCOMPARE(run({dir.path() + "/rank1_ascend_pt", "--fail-on", "error"}, nullptr), 0);
        QCOMPARE(run({dir.path() + "/nothing-here"}, nullptr), 2);
        QCOMPARE(run({dir.path(), "--fail-on", "sometimes"}, nullptr), 2);
        // Alignment options reach the analysis.
        QCOMPARE(run({dir.path() + "/rank0_ascend_pt", "--json", "--size-align", "32",
                      "--addr-align", "64"},
                     &out),
                 0);
        const auto k = nlohmann::json::parse(out.toStdString());
        QCOMPARE(k["options"]["size_align"].get<int>(), 32);
        // Link peaks reach the analysis; a bad one is a usage error.
        QCOMPARE(run({dir.path() + "/rank0_ascend_pt", "--json", "--link-peak", "HCCS=28",
                      "--link-peak", "RDMA=25"},
                     &out),
                 0);
        const auto lp = nlohmann::json::parse(out.toStdString());
        QCOMPARE(lp["options"]["link_peaks"]["HCCS"].get<double>(), 28.0);
        QCOMPARE(lp["options"]["link_peaks"]["RDMA"].get<double>(), 25.0);
        for (const auto& c : lp["collectives"])
            for (const auto& t : c["transfers"])
                if (t["name"] == "HCCS") QCOMPARE(t["peak_gbps"].get<double>(), 28.0);
        QCOMPARE(run({dir.path(), "--link-peak", "HCCS"}, nullptr), 2);
        QCOMPARE(run({dir.path(), "--link-peak", "HCCS=-1"}, nullptr), 2);
        // The text has the communication section per rank and the matrix summary of the job.
        QCOMPARE(run({dir.path()}, &out), 0);
        QVERIFY(out.contains("communication (slowest ops):"));
        QVERIFY(out.contains("communication matrix"));
        for (const auto& c : k["collectives"])
            QCOMPARE(c["unaligned_count"].get<int>(), 0);
    }
};

QTEST_GUILESS_MAIN(TestAnalysisReport)
#include "tst_analysis_report.moc"
