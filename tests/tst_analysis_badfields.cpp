// Every arg the analysis reads, given every JSON type: a type that cannot mean the value is a
// counted bad field (a warning in the report), never an exception, and the rest of the
// analysis goes on.

#include "core/analysis/analyzer.h"
#include "core/analysis/reportjson.h"
#include "core/producers/producer.h"
#include "tests/support/reportoracle.h"
#include "tests/testutil.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace rs;
using nlohmann::json;

namespace {

// Every JSON type, and whether a string / a count may be read from it.
struct Value {
    const char* tag;
    json v;
    bool okString; // a string, or a number read as its text
    bool okCount;  // a number (negative: unread, yet the right type), or decimal / hex text
};

std::vector<Value> everyType()
{
    return {{"null", nullptr, false, false},
            {"true", true, false, false},
            {"false", false, false, false},
            {"int", 4, true, true},
            {"negative", -3, true, true},
            {"float", 2.5, true, true},
            {"string", "FP32", true, false},
            {"numeric string", "12", true, true},
            {"hex string", "0x10", true, true},
            {"empty array", json::array(), false, false},
            {"array", json::array({1, 2}), false, false},
            {"empty object", json::object(), false, false},
            {"object", json{{"a", 1}}, false, false}};
}

json meta(int pid, const char* what, const char* name, int tid = 0)
{
    json m = {{"ph", "M"}, {"pid", pid}, {"name", what}, {"args", {{"name", name}}}};
    if (std::string(what) == "thread_name") m["tid"] = tid;
    return m;
}

json slice(int pid, int tid, const std::string& name, double ts, double dur, json args,
           const char* cat = nullptr)
{
    json e = {{"ph", "X"},
              {"pid", pid},
              {"tid", tid},
              {"name", name},
              {"ts", ts},
              {"dur", dur},
              {"args", std::move(args)}};
    if (cat) e["cat"] = cat;
    return e;
}

// A torch_npu trace: one HCCL op with one task on a plane, one Ascend Hardware task, a step.
std::string npuTrace(const std::string& opKey, const json& opValue, const std::string& taskKey,
                     const json& taskValue, const json& deviceTaskType)
{
    json op = {{"alg_type", "MESH-RING"}, {"data_type", "FP32"}, {"count", 1024}};
    json task = {{"task type", "Memcpy"},    {"src rank", 0},       {"dst rank", 1},
                 {"transport type", "SDMA"}, {"link type", "HCCS"}, {"size(Byte)", 4096}};
    if (!opKey.empty()) op[opKey] = opValue;
    if (!taskKey.empty()) task[taskKey] = taskValue;
    json ev = json::array();
    ev.push_back(meta(1, "process_name", "HCCL"));
    ev.push_back(meta(1, "thread_name", "Group 0 Communication", 0));
    ev.push_back(meta(1, "thread_name", "Plane 0", 1));
    ev.push_back(meta(2, "process_name", "Ascend Hardware"));
    ev.push_back(meta(3, "process_name", "Python"));
    ev.push_back(slice(3, 3, "ProfilerStep#1", 0, 1000, json::object()));
    ev.push_back(slice(1, 0, "hcom_allReduce__1_0_1", 100, 200, op));
    ev.push_back(slice(1, 1, "Memcpy", 110, 50, task));
    ev.push_back(slice(2, 5, "MatMul_1", 400, 100, {{"Task Type", deviceTaskType}}));
    return ev.dump();
}

// A Kineto trace: nccl:all_reduce with record_param_comms, a launched NCCL kernel and a copy.
std::string kinetoTrace(const std::string& key, const json& value, bool onCopy)
{
    json rpc = {{"Collective name", "allreduce"},
                {"In msg nelems", 1024},
                {"dtype", "Float"},
                {"Group size", 2},
                {"Process Group Name", "0"}};
    json copy = {{"bytes", 4096}};
    json world = 2;
    if (onCopy)
        copy[key] = value;
    else if (key == "world_size")
        world = value;
    else
        rpc[key] = value;
    if (key == "world_size") rpc.erase("Group size");
    json ev = json::array();
    ev.push_back(slice(1, 1, "ProfilerStep#1", 0, 1000, json::object(), "user_annotation"));
    if (key == "Collective name") {
        // Read only when the host op's name says no kind: record_param_comms alone.
        ev.push_back(slice(1, 1, "record_param_comms", 100, 100, rpc, "cpu_op"));
    } else {
        ev.push_back(slice(1, 1, "nccl:all_reduce", 100, 100, json::object(), "cpu_op"));
        ev.push_back(slice(1, 1, "record_param_comms", 101, 90, rpc, "cpu_op"));
    }
    ev.push_back(slice(1, 1, "cudaMemcpyAsync", 102, 5, json::object(), "cuda_runtime"));
    ev.push_back(slice(1, 1, "cudaLaunchKernel", 110, 5, json::object(), "cuda_runtime"));
    ev.push_back(slice(0, 7, "Memcpy DtoD (Device -> Device)", 120, 10, copy, "gpu_memcpy"));
    ev.push_back(slice(0, 7, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", 140, 50,
                       json::object(), "kernel"));
    ev.push_back({{"ph", "s"},
                  {"id", 1},
                  {"pid", 1},
                  {"tid", 1},
                  {"ts", 102},
                  {"cat", "ac2g"},
                  {"name", "ac2g"}});
    ev.push_back({{"ph", "f"},
                  {"id", 1},
                  {"pid", 0},
                  {"tid", 7},
                  {"ts", 120},
                  {"cat", "ac2g"},
                  {"name", "ac2g"},
                  {"bp", "e"}});
    ev.push_back({{"ph", "s"},
                  {"id", 2},
                  {"pid", 1},
                  {"tid", 1},
                  {"ts", 110},
                  {"cat", "ac2g"},
                  {"name", "ac2g"}});
    ev.push_back({{"ph", "f"},
                  {"id", 2},
                  {"pid", 0},
                  {"tid", 7},
                  {"ts", 140},
                  {"cat", "ac2g"},
                  {"name", "ac2g"},
                  {"bp", "e"}});
    json doc = {{"schemaVersion", 1},
                {"distributedInfo", {{"rank", 0}, {"world_size", world}}},
                {"traceEvents", ev}};
    return doc.dump();
}

ReportPtr analyzeText(const std::string& text)
{
    LoadResult r = test::loadText(text);
    if (r.failed()) qWarning("load failed: %s in %s", r.message.c_str(), text.c_str());
    return !r.failed() ? analyze(r.trace) : nullptr;
}

void expectCounted(const ReportPtr& rep, bool ok, const std::string& key)
{
    QVERIFY(rep);
    const std::string what = key + (ok ? " read" : " counted as a bad field");
    if (ok) {
        QVERIFY2(rep->badFields == 0, what.c_str());
        QVERIFY(rep->warnings.empty());
    } else {
        QVERIFY2(rep->badFields >= 1, what.c_str());
        QVERIFY(!rep->warnings.empty());
        QVERIFY2(rep->warnings.front().find(key) != std::string::npos,
                 rep->warnings.front().c_str());
        // The report carries the count and the warning.
        const json j = reportToJson({{"x", rep}});
        QCOMPARE(j["inputs"][0]["bad_fields"].get<std::uint64_t>(), rep->badFields);
    }
}

} // namespace

class TestAnalysisBadFields : public QObject {
    Q_OBJECT

private slots:
    void hcclOpArgs_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<int>("value");
        const auto types = everyType();
        for (const char* key : {"alg_type", "data_type", "count"})
            for (int i = 0; i < int(types.size()); ++i)
                QTest::addRow("%s %s", key, types[std::size_t(i)].tag) << QString(key) << i;
    }

    void hcclOpArgs()
    {
        QFETCH(QString, key);
        QFETCH(int, value);
        const auto types = everyType();
        const Value& v = types[std::size_t(value)];
        const std::string k = key.toStdString();
        ReportPtr rep = analyzeText(npuTrace(k, v.v, "", nullptr, "AI_CORE"));
        QVERIFY(rep);
        QCOMPARE(int(rep->collectives.size()), 1);
        const bool ok = k == "count" ? v.okCount : v.okString;
        expectCounted(rep, ok, k);
        if (k == "count")
            QCOMPARE(rep->collectives[0].count,
                     ok && !(v.v.is_number() && v.v.get<double>() < 0) ? jsonCount(v.v) : 0);
    }

    void hcclTaskArgs_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<int>("value");
        const auto types = everyType();
        for (const char* key :
             {"task type", "transport type", "link type", "size(Byte)", "src rank", "dst rank"})
            for (int i = 0; i < int(types.size()); ++i)
                QTest::addRow("%s %s", key, types[std::size_t(i)].tag) << QString(key) << i;
    }

    void hcclTaskArgs()
    {
        QFETCH(QString, key);
        QFETCH(int, value);
        const auto types = everyType();
        const Value& v = types[std::size_t(value)];
        const std::string k = key.toStdString();
        ReportPtr rep = analyzeText(npuTrace("", nullptr, k, v.v, "AI_CORE"));
        QVERIFY(rep);
        QCOMPARE(int(rep->collectives.size()), 1);
        QCOMPARE(int(rep->collectives[0].tasks.size()), 1);
        const bool numeric = k == "size(Byte)" || k == "src rank" || k == "dst rank";
        expectCounted(rep, numeric ? v.okCount : v.okString, k);
    }

    void deviceTaskType_data()
    {
        QTest::addColumn<int>("value");
        const auto types = everyType();
        for (int i = 0; i < int(types.size()); ++i)
            QTest::addRow("%s", types[std::size_t(i)].tag) << i;
    }

    void deviceTaskType()
    {
        QFETCH(int, value);
        const auto types = everyType();
        const Value& v = types[std::size_t(value)];
        ReportPtr rep = analyzeText(npuTrace("", nullptr, "", nullptr, v.v));
        QVERIFY(rep);
        QCOMPARE(int(rep->steps.size()), 1);
        expectCounted(rep, v.okString, "Task Type");
    }

    void kinetoArgs_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<int>("value");
        QTest::addColumn<bool>("onCopy");
        const auto types = everyType();
        for (const char* key : {"Collective name", "In msg nelems", "dtype", "Group size",
                                "Process Group Name", "world_size"})
            for (int i = 0; i < int(types.size()); ++i)
                QTest::addRow("%s %s", key, types[std::size_t(i)].tag)
                    << QString(key) << i << false;
        for (int i = 0; i < int(types.size()); ++i)
            QTest::addRow("bytes %s", types[std::size_t(i)].tag) << QString("bytes") << i << true;
    }

    void kinetoArgs()
    {
        QFETCH(QString, key);
        QFETCH(int, value);
        QFETCH(bool, onCopy);
        const auto types = everyType();
        const Value& v = types[std::size_t(value)];
        const std::string k = key.toStdString();
        ReportPtr rep = analyzeText(kinetoTrace(k, v.v, onCopy));
        QVERIFY(rep);
        QCOMPARE(rep->trace->producer().id(), std::string_view("kineto"));
        QCOMPARE(int(rep->collectives.size()), 1);
        const bool numeric =
            k == "In msg nelems" || k == "Group size" || k == "world_size" || k == "bytes";
        expectCounted(rep, numeric ? v.okCount : v.okString, k);
        QCOMPARE(rep->collectives[0].memcpyCount, 1);
    }

    void argsNotAnObject()
    {
        // args that are not objects at all read as absent: nothing to count, nothing thrown.
        for (const json& a : {json(nullptr), json(3), json("x"), json::array({1})}) {
            json ev = json::array();
            ev.push_back(meta(1, "process_name", "HCCL"));
            ev.push_back(meta(1, "thread_name", "Group 0 Communication", 0));
            ev.push_back(meta(1, "thread_name", "Plane 0", 1));
            ev.push_back(slice(1, 0, "hcom_allReduce__1_0_1", 100, 200, a));
            ev.push_back(slice(1, 1, "Memcpy", 110, 50, a)); // read by ArgsMembers
            ReportPtr rep = analyzeText(ev.dump());
            QVERIFY(rep);
            QCOMPARE(int(rep->collectives.size()), 1);
            QCOMPARE(int(rep->collectives[0].tasks.size()), 1);
            QVERIFY2(rep->badFields == 0, a.dump().c_str());
        }
    }

    // Args the loader keeps although they are not JSON (it checks their structure only, as
    // simdjson's On-Demand API does): read empty by the analysis and counted, on every path
    // that reads args (a DOM parse, ArgsMembers for HCCL tasks).
    void argsNotJson()
    {
        auto broken = [](std::string text, const std::string& member) {
            const std::size_t at = text.find(member);
            if (at == std::string::npos) return std::string();
            return text.replace(at, member.size(), member + ".2.3"); // 1 -> 1.2.3
        };
        const std::vector<std::pair<const char*, std::string>> traces = {
            {"HCCL op", broken(npuTrace("mark", 1, "", nullptr, "AI_CORE"), "\"mark\":1")},
            {"HCCL task", broken(npuTrace("", nullptr, "mark", 1, "AI_CORE"), "\"mark\":1")},
            {"device task", broken(npuTrace("", nullptr, "", nullptr, 1), "\"Task Type\":1")},
            {"record_param_comms", broken(kinetoTrace("mark", 1, false), "\"mark\":1")},
            {"gpu_memcpy", broken(kinetoTrace("mark", 1, true), "\"mark\":1")}};
        for (const auto& [what, text] : traces) {
            QVERIFY2(!text.empty(), what);
            const LoadResult r = test::loadText(text);
            QVERIFY2(r.complete(), (what + (": " + r.message)).c_str());
            ReportPtr rep = analyze(r.trace);
            QCOMPARE(int(rep->collectives.size()), 1);
            expectCounted(rep, false, "args that are not JSON");
        }
    }

private:
    static std::uint64_t jsonCount(const json& v)
    {
        if (v.is_number()) return std::uint64_t(v.get<double>());
        return std::stoull(v.get<std::string>(), nullptr, 0);
    }
};

QTEST_GUILESS_MAIN(TestAnalysisBadFields)
#include "tst_analysis_badfields.moc"
