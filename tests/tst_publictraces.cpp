// Every real trace under ../shared/traces/public loads with the counts and names that its
// SOURCES.md states.
#include "core/producers/producer.h"
#include "core/traceinfo.h"
#include "core/traceloader.h"
#include "tests/testutil.h"

#include <QtTest>

#include <set>

using namespace rs;

namespace {

std::uint64_t phase(const Trace& t, const char* ph)
{
    auto it = t.stats().phases.find(ph);
    return it == t.stats().phases.end() ? 0 : it->second;
}

std::set<std::string> processNames(const Trace& t)
{
    std::set<std::string> names;
    for (const Process& p : t.processes())
        if (p.name) names.insert(t.str(p.name));
    return names;
}

std::set<std::string> threadLabels(const Trace& t, const std::string& process)
{
    std::set<std::string> names;
    for (ProcessId p = 0; p < t.processes().size(); ++p)
        if (t.str(t.processes()[p].name) == process)
            for (TrackId tr : t.processes()[p].tracks)
                if (t.tracks()[tr].kind == TrackKind::Thread) names.insert(t.trackLabel(tr));
    return names;
}

std::size_t countNamed(const Trace& t, const std::string& name)
{
    const StrId id = t.strings().find(name);
    std::size_t n = 0;
    for (const Slice& s : t.slices())
        n += s.name == id;
    return n;
}

TracePtr load(const QString& relative)
{
    const QString path = test::publicTrace(relative);
    LoadResult r = loadTrace(path.toStdString());
    if (!r.complete()) qWarning("%s", r.message.c_str());
    return r.complete() ? r.trace : nullptr;
}

} // namespace

class TstPublicTraces : public QObject {
    Q_OBJECT
private slots:
    void init() { RS_REQUIRE_PUBLIC_TRACES(); }

    void ascendLevel1()
    {
        TracePtr t0 = load("ascend_torchnpu_level1_2rank/rank0_ascend_pt");
        QVERIFY(t0);
        const Trace& t = *t0;
        QCOMPARE(t.stats().events, 10112u);
        QCOMPARE(phase(t, "X"), 4384u);
        QCOMPARE(phase(t, "C"), 4431u);
        QCOMPARE(phase(t, "s"), 606u);
        QCOMPARE(phase(t, "f"), 611u);
        QCOMPARE(phase(t, "M"), 80u);
        QCOMPARE(t.producer().id(), std::string_view("torch_npu"));
        QCOMPARE(*t.rank(), 0);
        const std::set<std::string> expected{
            "Python", "CANN",        "Ascend Hardware", "HCCL",           "Overlap Analysis",
            "HBM",    "LLC",         "NPU MEM",         "Stars Soc Info", "Acc PMU",
            "QoS",    "AI Core Freq"};
        QCOMPARE(processNames(t), expected);
        const auto hccl = threadLabels(t, "HCCL");
        QVERIFY(hccl.count("Group 0 Communication"));
        for (int i = 0; i < 8; ++i)
            QVERIFY(hccl.count("Plane " + std::to_string(i)));
        const auto hw = threadLabels(t, "Ascend Hardware");
        QCOMPARE(hw, (std::set<std::string>{"Stream 0", "Stream 2", "Stream 3", "Stream 4"}));
        QCOMPARE(threadLabels(t, "Overlap Analysis"),
                 (std::set<std::string>{"Computing", "Communication",
                                        "Communication(Not Overlapped)", "Free"}));
        for (const char* op : {"hcom_allReduce__586_0_1", "hcom_allReduce__586_1_1",
                               "hcom_allReduce__586_2_1", "hcom_allReduce__586_3_1"})
            QCOMPARE(countNamed(t, op), size_t(1));
        QCOMPARE(countNamed(t, "Memcpy"), size_t(36));
        QCOMPARE(countNamed(t, "ProfilerStep#50"), size_t(1));
        QCOMPARE(countNamed(t, "python_function") + 0, size_t(0)); // cat, not name
        // The first op starts at a string ts with nanosecond digits, kept exactly.
        bool exact = false;
        for (const Slice& s : t.slices())
            if (t.str(s.name) == "hcom_allReduce__586_0_1") exact = s.start % 1000 != 0;
        QVERIFY(exact);
        // Big pids stay exact (above 2^32).
        bool bigPid = false;
        for (const Process& p : t.processes())
            bigPid = bigPid || p.pid == "3170820576";
        QVERIFY(bigPid);
        // Flows with ids above 2^53 bind: 4 async_npu flows end on the hcom ops.
        std::size_t toHcom = 0;
        for (const Flow& f : t.flows())
            if (t.str(t.slice(f.to).name).rfind("hcom_allReduce", 0) == 0) ++toHcom;
        QVERIFY2(toHcom >= 8, std::to_string(toHcom).c_str()); // HostToDevice + async_npu
        std::size_t bigId = 0;
        for (const Flow& f : t.flows())
            bigId += f.id > (1ull << 53);
        QVERIFY(bigId > 100);

        TracePtr t1 = load("ascend_torchnpu_level1_2rank/rank1_ascend_pt");
        QVERIFY(t1);
        QCOMPARE(t1->stats().events, 9969u);
        QCOMPARE(*t1->rank(), 1);
    }

    void ascendLevel0()
    {
        TracePtr t0 = load("ascend_torchnpu_level0_rank0/rank0_ascend_pt");
        QVERIFY(t0);
        const Trace& t = *t0;
        QCOMPARE(t.stats().events, 8375u);
        QCOMPARE(phase(t, "X"), 3379u);
        QCOMPARE(phase(t, "C"), 3716u);
        QCOMPARE(phase(t, "s"), 606u);
        QCOMPARE(phase(t, "f"), 611u);
        QCOMPARE(phase(t, "M"), 63u);
        QCOMPARE(countNamed(t, "Memcpy"), size_t(0));
        QCOMPARE(threadLabels(t, "HCCL"),
                 (std::set<std::string>{"Group 0 Communication", "Plane 0"}));
        // The CANN pid has thread names and flow starts but no process name and no X events.
        const ProcessId cann = t.findProcess("3089232096");
        QVERIFY(cann != kNone);
        QCOMPARE(t.processes()[cann].name, StrId(0));
        QVERIFY(t.processes()[cann].events > 210);
    }

    void ascendSingleNpu()
    {
        TracePtr t0 = load("ascend_torchnpu_single_npu_mstt_advisor/trace_view.json");
        QVERIFY(t0);
        const Trace& t = *t0;
        QCOMPARE(t.stats().events, 3670u);
        QCOMPARE(phase(t, "X"), 2212u);
        QCOMPARE(phase(t, "s"), 713u);
        QCOMPARE(phase(t, "f"), 713u);
        QCOMPARE(phase(t, "M"), 32u);
        QCOMPARE(processNames(t),
                 (std::set<std::string>{"Python", "CANN", "Ascend Hardware", "Overlap Analysis"}));
        QCOMPARE(threadLabels(t, "Ascend Hardware"), (std::set<std::string>{"Stream 3"}));
        QCOMPARE(countNamed(t, "ProfilerStep#1"), size_t(1));
    }

    void kinetoTwoRank()
    {
        TracePtr t0 = load("kineto_nccl_a100_2rank_hta/nccl_data.json.gz");
        QVERIFY(t0);
        const Trace& t = *t0;
        QCOMPARE(t.stats().events, 40573u);
        QCOMPARE(phase(t, "X"), 26933u);
        QCOMPARE(phase(t, "s"), 4405u);
        QCOMPARE(phase(t, "f"), 9195u);
        QCOMPARE(phase(t, "M"), 38u);
        QCOMPARE(phase(t, "i"), 2u);
        QCOMPARE(t.producer().id(), std::string_view("kineto"));
        QCOMPARE(*t.rank(), 0);
        QCOMPARE(t.metadata()["displayTimeUnit"].get<std::string>(), std::string("ms"));
        QCOMPARE(processNames(t), (std::set<std::string>{"python3.10"}));
        bool stream40 = false;
        for (TrackId tr = 0; tr < t.tracks().size(); ++tr)
            stream40 = stream40 || t.trackLabel(tr) == "stream 40"; // trailing space trimmed
        QVERIFY(stream40);
        QVERIFY(
            countNamed(
                t,
                "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)") >
            0);
        QCOMPARE(countNamed(t, "Memcpy DtoD (Device -> Device)"), size_t(960));
        QCOMPARE(countNamed(t, "cudaMemcpyAsync"), size_t(960));
        for (int s = 4; s <= 6; ++s)
            QCOMPARE(countNamed(t, "ProfilerStep#" + std::to_string(s)) > 0, true);
    }

    void kinetoEightRankAllToAll()
    {
        TracePtr t0 = load("kineto_nccl_a100_8rank_alltoall_hta/control.json.gz");
        QVERIFY(t0);
        const Trace& t = *t0;
        QCOMPARE(t.stats().events, 109123u);
        QCOMPARE(phase(t, "X"), 74937u);
        QCOMPARE(phase(t, "s"), 9450u);
        QCOMPARE(phase(t, "f"), 24692u);
        QCOMPARE(phase(t, "M"), 42u);
        QCOMPARE(*t.rank(), 3);
        QCOMPARE(countNamed(t, "nccl:all_to_all"), size_t(42));
        QCOMPARE(countNamed(t, "nccl:all_reduce"), size_t(18));
        QCOMPARE(countNamed(t, "record_param_comms"), size_t(102));
        const ProcessId gpu = t.findProcess("3");
        QVERIFY(gpu != kNone);
        std::set<std::string> streams;
        for (TrackId tr : t.processes()[gpu].tracks)
            if (t.tracks()[tr].kind == TrackKind::Thread &&
                t.tracks()[tr].end > t.tracks()[tr].begin)
                streams.insert(t.tracks()[tr].tid);
        QCOMPARE(streams, (std::set<std::string>{"7", "20", "21", "22"}));
    }

    void kinetoTorchRec()
    {
        TracePtr t0 = load("kineto_nccl_a100_16rank_torchrec_hta/rank0.json.gz");
        QVERIFY(t0);
        const Trace& t = *t0;
        QCOMPARE(t.stats().events, 108936u);
        QVERIFY(processNames(t).count("pyper:trainer:0:0"));
        QCOMPARE(countNamed(t, "Memcpy DtoD (Device -> Device)"), size_t(1280));
        QCOMPARE(countNamed(t, "cudaMemcpyAsync"), size_t(1250));
        QCOMPARE(countNamed(t, "nccl:all_to_all"), size_t(55));
        QCOMPARE(countNamed(t, "record_param_comms"), size_t(150));
        for (int s = 550; s <= 554; ++s)
            QVERIFY(countNamed(t, "ProfilerStep#" + std::to_string(s)) > 0);
    }

    void kinetoMi300x()
    {
        TracePtr t0 =
            load("kineto_rccl_mi300x_ddp_with_stack_tracelens/resnet_act_checkpoint.json.gz");
        QVERIFY(t0);
        const Trace& t = *t0;
        QCOMPARE(t.stats().events, 56451u);
        QCOMPARE(*t.rank(), 0);
        QVERIFY(countNamed(t, "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)") > 0);
        std::size_t py = 0;
        const StrId cat = t.strings().find("python_function");
        for (const Slice& s : t.slices())
            py += s.cat == cat;
        QCOMPARE(py, size_t(34405));
    }

    void kinetoNoMetadata()
    {
        TracePtr t0 = load("kineto_nccl_b200_vllm_tp8_no_metadata_tracelens/eager_trace.json.gz");
        QVERIFY(t0);
        const Trace& t = *t0;
        QCOMPARE(t.stats().events, 24656u);
        QCOMPARE(phase(t, "X"), 22355u);
        QCOMPARE(phase(t, "s"), 931u);
        QCOMPARE(phase(t, "f"), 1370u);
        QCOMPARE(phase(t, "M"), 0u);
        QVERIFY(t.findProcess("6583") != kNone);
        const ProcessId gpu = t.findProcess("0");
        QVERIFY(gpu != kNone);
        QVERIFY(t.findTrack(gpu, "7") != kNone);
        QCOMPARE(t.trackLabel(t.findTrack(gpu, "7")), std::string("Thread 7"));
        QCOMPARE(countNamed(t, "vllm::all_reduce"), size_t(73));
        QCOMPARE(countNamed(t, "cudaMemcpyAsync") >= 146, true);
    }

    void infoJsonShape()
    {
        TracePtr t = load("ascend_torchnpu_level1_2rank/rank0_ascend_pt");
        QVERIFY(t);
        const auto j = traceInfoJson(*t, "rank0_ascend_pt");
        for (const char* k : {"path", "producer", "rank", "events", "phases", "start_ns", "end_ns",
                              "processes", "warnings"})
            QVERIFY2(j.contains(k), k);
        QCOMPARE(j["producer"].get<std::string>(), std::string("torch_npu"));
        QCOMPARE(j["events"].get<std::uint64_t>(), 10112u);
        QVERIFY(j["start_ns"].is_number_integer());
        QVERIFY(j["processes"][0].contains("threads"));
        QVERIFY(j["processes"][0]["threads"][0].contains("tid"));
        QVERIFY(j["processes"][0]["threads"][0].contains("events"));
    }
};

QTEST_GUILESS_MAIN(TstPublicTraces)
#include "tst_publictraces.moc"
