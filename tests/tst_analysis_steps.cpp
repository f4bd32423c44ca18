// Step figures on small hand-written traces: device work belongs to the step whose host op
// launched it, even when it runs after that step's host span; the torch_npu column definitions.

#include "core/analysis/analysisutil.h"
#include "core/analysis/analyzer.h"
#include "core/analysis/presentation.h"
#include "tests/testutil.h"

#include <QtTest>

using namespace rs;

namespace {

// Kineto: step 1 host [0, 100) µs launches a kernel (100 µs at 150 µs, after step 1 ended) and an
// NCCL all-reduce (at 200 µs, 100 µs); step 2 host [100, 400) launches nothing; a kernel with no
// launch flow at 320 µs (50 µs) falls in step 2 by time.
// clang-format off
const char* kKineto = R"J({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":300},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":20},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":12,"dur":5,"args":{"correlation":7}},
 {"ph":"X","cat":"cpu_op","name":"c10d::allreduce_","pid":1,"tid":1,"ts":40,"dur":30},
 {"ph":"X","cat":"cpu_op","name":"record_param_comms","pid":1,"tid":1,"ts":41,"dur":28,
  "args":{"Collective name":"allreduce","In msg nelems":1000,"dtype":"Float","Group size":4}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":50,"dur":5,"args":{"correlation":8}},
 {"ph":"X","cat":"kernel","name":"sgemm","pid":0,"tid":7,"ts":150,"dur":100,"args":{"correlation":7}},
 {"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce_RING_LL_Sum_float(x)","pid":0,"tid":20,"ts":200,"dur":100,"args":{"correlation":8}},
 {"ph":"X","cat":"kernel","name":"void at::native::elementwise_kernel<broadcast_kernel>","pid":0,"tid":7,"ts":320,"dur":50},
 {"ph":"s","id":7,"pid":1,"tid":1,"ts":12,"cat":"ac2g","name":"ac2g"},
 {"ph":"f","id":7,"pid":0,"tid":7,"ts":150,"cat":"ac2g","name":"ac2g","bp":"e"},
 {"ph":"s","id":8,"pid":1,"tid":1,"ts":50,"cat":"ac2g","name":"ac2g"},
 {"ph":"f","id":8,"pid":0,"tid":20,"ts":200,"cat":"ac2g","name":"ac2g","bp":"e"}
]})J";
// clang-format on

} // namespace

class TestAnalysisSteps : public QObject {
    Q_OBJECT

private slots:
    void launchDecidesStep()
    {
        LoadResult r = test::loadText(kKineto);
        QVERIFY2(r.complete(), r.message.c_str());
        ReportPtr rep = analyze(r.trace);
        QCOMPARE(int(rep->collectives.size()), 1);
        const Collective& c = rep->collectives.front();
        QCOMPARE(c.kind, CollectiveKind::AllReduce);
        QCOMPARE(c.step, std::optional<int>(1));
        QCOMPARE(c.count, std::uint64_t(1000));
        QCOMPARE(c.bytes, std::uint64_t(4000));
        QCOMPARE(c.groupSize, 4);
        // 4000 B in 100 µs = 0.04 GB/s; bus = x 2*3/4.
        QVERIFY(std::abs(c.algbwGbps - 0.04) < 1e-9);
        QVERIFY(std::abs(c.busbwGbps - 0.06) < 1e-9);
        QCOMPARE(int(rep->steps.size()), 2);
        const StepStats& s1 = rep->steps[0];
        const StepStats& s2 = rep->steps[1];
        QCOMPARE(s1.step, 1);
        // Step 1: sgemm [150, 250) computing, all-reduce [200, 300) communication.
        QCOMPARE(s1.computing, TimeNs(100'000));
        QCOMPARE(s1.communication, TimeNs(100'000));
        QCOMPARE(s1.overlapped, TimeNs(50'000));
        QCOMPARE(s1.communicationNotOverlapped, TimeNs(50'000));
        QCOMPARE(s1.free, TimeNs(0));
        QCOMPARE(s1.busyStart, TimeNs(150'000));
        QCOMPARE(s1.busyEnd, TimeNs(300'000));
        // Step 2: the unlinked broadcast_kernel (compute, not a collective) by time.
        QCOMPARE(s2.step, 2);
        QCOMPARE(s2.computing, TimeNs(50'000));
        QCOMPARE(s2.communication, TimeNs(0));
        QCOMPARE(s2.free, TimeNs(0));
    }

    void freeIsGapInBusyWindow()
    {
        // torch_npu: two compute tasks with a gap, a HCCL op overlapping the second one.
        const std::string json = R"([
 {"name":"process_name","pid":10,"tid":0,"args":{"name":"Python"},"ph":"M"},
 {"name":"process_name","pid":20,"tid":0,"args":{"name":"Ascend Hardware"},"ph":"M"},
 {"name":"process_name","pid":30,"tid":0,"args":{"name":"HCCL"},"ph":"M"},
 {"name":"thread_name","pid":30,"tid":0,"args":{"name":"Group 0 Communication"},"ph":"M"},
 {"name":"process_name","pid":40,"tid":0,"args":{"name":"Overlap Analysis"},"ph":"M"},
 {"ph":"X","name":"ProfilerStep#5","pid":10,"tid":10,"ts":"1000.000","dur":1000,"cat":"cpu_op"},
 {"ph":"X","name":"MatMul","pid":20,"tid":2,"ts":"1100.000","dur":100,"args":{"Task Type":"AI_CORE"}},
 {"ph":"X","name":"MEMCPY_ASYNC","pid":20,"tid":2,"ts":"1250.000","dur":10,"args":{"Task Type":"SDMA_SQE"}},
 {"ph":"X","name":"aclnnEqTensor_BroadcastToAiCore_BroadcastTo","pid":20,"tid":2,"ts":"1300.000","dur":100,"args":{"Task Type":"AI_VECTOR_CORE"}},
 {"ph":"X","name":"hcom_allReduce__1_0_1","pid":30,"tid":0,"ts":"1350.000","dur":150,"args":{"count":256,"data_type":"FP16"}},
 {"ph":"X","name":"Computing","pid":40,"tid":1,"ts":"1000.000","dur":999}
])";
        LoadResult r = test::loadText(json);
        QVERIFY2(r.complete(), r.message.c_str());
        ReportPtr rep = analyze(r.trace);
        QCOMPARE(int(rep->collectives.size()), 1);
        QCOMPARE(rep->collectives[0].bytes, std::uint64_t(512));
        QCOMPARE(int(rep->steps.size()), 1);
        const StepStats& s = rep->steps[0];
        QCOMPARE(s.step, 5);
        QCOMPARE(s.computing, TimeNs(200'000)); // the memcpy and Overlap Analysis do not count
        QCOMPARE(s.communication, TimeNs(150'000));
        QCOMPARE(s.overlapped, TimeNs(50'000));
        QCOMPARE(s.communicationNotOverlapped, TimeNs(100'000));
        // Busy window [1100, 1500) = 400 µs, busy 300 µs.
        QCOMPARE(s.free, TimeNs(100'000));
    }

    void intervalHelpers()
    {
        using analysis::clusterLevels;
        int n = 0;
        auto lv = clusterLevels({200, 400, 199, 401, 205}, &n);
        QCOMPARE(n, 1); // below 1 µs nothing is a mode
        lv = clusterLevels({200'000'000, 400'000'000, 199'000'000, 401'000'000, 205'000'000}, &n);
        QCOMPARE(n, 2);
        QCOMPARE(lv, (std::vector<int>{0, 1, 0, 1, 0}));
        QCOMPARE(analysis::unionLength({{0, 10}, {5, 15}, {20, 30}}), TimeNs(25));
        QCOMPARE(analysis::intersectionLength({{0, 10}, {20, 30}}, {{5, 25}}), TimeNs(10));
        QCOMPARE(analysis::kindFromName("hcom_reduceScatter__1_2_1"),
                 CollectiveKind::ReduceScatter);
        QCOMPARE(analysis::kindFromName("nccl:_all_gather_base"), CollectiveKind::AllGather);
        QCOMPARE(analysis::kindFromName("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t"),
                 CollectiveKind::Send);
        QCOMPARE(analysis::dtypeBytes("c10::BFloat16"), 2);
        QCOMPARE(analysis::dtypeBytes("FP32"), 4);
        QCOMPARE(analysis::jsonU64(nlohmann::json("0x80")), std::optional<std::uint64_t>(128));
        QVERIFY(!analysis::jsonU64(nlohmann::json(1e30)));
        const analysis::ArgsMembers fa(
            " {\"task type\": \"Memcpy\", \"size(Byte)\": 2064384, "
            "\"nested\": {\"a\": [1, \"x,}\"]}, \"esc\\\"k\": \"v\\\"w\", "
            "\"src\": \"0x40\", \"bw\": 1.5 }");
        QCOMPARE(fa.str("task type"), std::string("Memcpy"));
        QCOMPARE(fa.u64("size(Byte)"), std::optional<std::uint64_t>(2064384));
        // A nested value is kept as text but is no string: read as one it is a bad field.
        QCOMPARE(fa.get("nested").value_or(""), std::string_view("{\"a\": [1, \"x,}\"]}"));
        analysis::FieldErrors err;
        QCOMPARE(fa.str("nested", &err), std::string());
        QCOMPARE(err.total(), std::uint64_t(1));
        QCOMPARE(fa.u64("src"), std::optional<std::uint64_t>(64));
        QCOMPARE(fa.str("bw"), std::string("1.5"));
        QCOMPARE(fa.u64("bw"), std::optional<std::uint64_t>(1)); // as jsonU64 reads 1.5
        QVERIFY(!fa.get("missing"));
        QVERIFY(!analysis::ArgsMembers("not json").get("x"));
        QVERIFY(!analysis::ArgsMembers(R"({"a": )").get("b"));
        // Read whole or not (args the loader kept that are not JSON). JSON that is no object
        // has no members, and nothing to count.
        QVERIFY(fa.complete());
        QVERIFY(analysis::ArgsMembers(std::string_view()).complete()); // no args: no pointer
        for (const char* whole :
             {"", "{}", " { } ", "{\"a\": 1}", "{\"a\": [1, {}], \"b\": \"}\"}", "[1]", " 3 "})
            QVERIFY2(analysis::ArgsMembers(whole).complete(), whole);
        for (const char* cut : {"not json", "{", "{\"a\": 1.2.3}", "{\"a\": 1,}", "{\"a\": 1} x",
                                "{\"a\" 1}", "[1,]", "{\"a\": tru}"})
            QVERIFY2(!analysis::ArgsMembers(cut).complete(), cut);
        QVERIFY(!analysis::jsonU64(nlohmann::json(-1)));
        // One mode-letter definition for the report, the viewer, exports and annotations.
        QCOMPARE(modeLetter(0), std::string("A"));
        QCOMPARE(modeLetter(25), std::string("Z"));
        QCOMPARE(modeLetter(26), std::string("AA"));
        QCOMPARE(modeLetter(27), std::string("AB"));
        QCOMPARE(modeLetter(701), std::string("ZZ"));
        QCOMPARE(modeLetter(702), std::string("AAA"));
        QCOMPARE(modeLetter(-1), std::string("?"));
    }
};

QTEST_GUILESS_MAIN(TestAnalysisSteps)
#include "tst_analysis_steps.moc"
