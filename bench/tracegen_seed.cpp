#include "bench/tracegen_seed.h"

#include "bench/tracegen_db.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace rs::gen {

namespace {

using Json = nlohmann::ordered_json;

// torch_npu writes ts as a string with nanosecond digits.
std::string npuTs(TimeNs ns)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000),
                  static_cast<long long>(ns % 1000));
    return buf;
}

double us(TimeNs ns)
{
    return double(ns) / 1000.0;
}

bool hasAllReduce(const SeedCaseOptions& o)
{
    return o.allReduceNs > 0;
}

bool isBad(const SeedCaseOptions& o, int step)
{
    return std::find(o.badSteps.begin(), o.badSteps.end(), step) != o.badSteps.end() ||
           o.badRanks.count(step);
}

// Host-side timing shared by both shapes: the step starts at hostStart, its device work at
// hostStart + 1 ms, and every rank's AllReduce of a bad step lasts allReduceNs + extraMemcpyNs.
struct StepTimes {
    TimeNs hostStart = 0, hostEnd = 0;
    TimeNs devStart = 0, arStart = 0, arDur = 0;
    bool bad = false;
};

std::vector<StepTimes> stepTimes(const SeedCaseOptions& o, TimeNs origin)
{
    std::vector<StepTimes> out;
    TimeNs t = origin;
    for (int i = 0; i < o.steps; ++i) {
        StepTimes s;
        s.bad = isBad(o, i) && hasAllReduce(o);
        s.hostStart = t;
        s.devStart = t + 1'000'000;
        s.arStart = s.devStart + o.computeNs;
        s.arDur = o.allReduceNs + (s.bad ? o.extraMemcpyNs : 0) + stepDelay(o, i);
        s.hostEnd = s.arStart + s.arDur + 1'000'000;
        out.push_back(s);
        t = s.hostEnd + 500'000;
    }
    return out;
}

// One rank's step under the planted causes: its kernels' starts and lengths, its host's
// launches and its AllReduce's span (late by lateBy, the others waiting stepDelay).
struct Planted {
    Planted(const SeedCaseOptions& o, int step, int rank, const StepTimes& st, TimeNs k)
    {
        if (o.slowKernel.in(step, rank)) slow = o.slowKernel.ns;
        if (o.lateLaunch.in(step, rank)) {
            // The host stalls: the third kernel's launch ends just before the device, idle since
            // the second kernel ended, runs it lateLaunch.ns late.
            const TimeNs freeAt = st.devStart + 2 * k + slow;
            hostLate = freeAt + o.lateLaunch.ns - 50'000 - (st.hostStart + 300'000);
            // What the host did meanwhile: after the forward frames, up to that launch.
            stallStart = st.hostStart + 910'000;
            stallDur = st.hostStart + 300'000 + hostLate - 10'000 - stallStart;
            late = o.lateLaunch.ns;
        }
        lateTotal = slow + late;
        othersWait = stepDelay(o, step) - lateTotal;
    }
    TimeNs host(int j, TimeNs at) const { return j >= 2 ? at + hostLate : at; }
    TimeNs dev(int j, TimeNs at) const { return at + (j >= 1 ? slow : 0) + (j >= 2 ? late : 0); }
    TimeNs dur(int j, TimeNs k) const { return j == 0 ? k + slow : k; }
    StepTimes ranked(StepTimes st) const
    {
        st.arStart += lateTotal;
        st.arDur -= lateTotal;
        return st;
    }

    TimeNs slow = 0, late = 0, lateTotal = 0, hostLate = 0, othersWait = 0;
    TimeNs stallStart = 0, stallDur = 0;
};

struct Kernel {
    const char* name;
    const char* type;
    const char* aten;
};

const Kernel kNpuKernels[] = {
    {"aclnnMatmul_MatMulCommon_MatMulV2", "AI_CORE", "aten::matmul"},
    {"aclnnEqTensor_BroadcastToAiCore_BroadcastTo", "AI_VECTOR_CORE", "aten::eq"},
    {"aclnnSoftmax_SoftmaxV2AiCore_SoftmaxV2", "AI_VECTOR_CORE", "aten::_softmax"},
    {"aclnnMul_MulAiCore_Mul", "MIX_AIV", "aten::mul"},
};

const Kernel kCudaKernels[] = {
    {"ampere_sgemm_128x64_tn", "", "aten::matmul"},
    {"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<at::native::"
     "BinaryFunctor<float, float, bool, at::native::CompareEqFunctor<float> > >(at::"
     "TensorIteratorBase&, at::native::BinaryFunctor<float, float, bool, at::native::"
     "CompareEqFunctor<float> > const&)::{lambda(int)#1}>(int, at::native::"
     "type_specialized_broadcast_kernel_launcher)",
     "", "aten::eq"},
    {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
     "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
     "", "aten::_softmax"},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, "
     "float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2> >(int, "
     "at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<"
     "float> >, at::detail::Array<char*, 2>)",
     "", "aten::mul"},
};

// Python frames of the case: the AllReduce is issued from custom_attention_forward, whose
// buffer comes from torch.empty.
const char* kFrameModule = "<string>(1): <module>";
const char* kFrameTrain = "train.py(88): train_step";
const char* kFrameForward = "model/attention.py(41): forward";
const char* kFrameCustom = "model/attention.py(57): custom_attention_forward";
const char* kFrameAllReduce = "torch/distributed/distributed_c10d.py(2050): all_reduce";
const char* kFrameEmpty = "<built-in method empty of type object at 0x7f3a1c2b4e40>";

std::string callStack(std::initializer_list<const char*> frames)
{
    std::string s;
    for (const char* f : frames) {
        if (!s.empty()) s += ";\r\n";
        s += f;
    }
    return s;
}

// ---- torch_npu -------------------------------------------------------------------------------

class NpuWriter {
public:
    NpuWriter(const SeedCaseOptions& o, int rank) : m_o(o), m_rank(rank)
    {
        // Host pid small, device-side synthetic pids above 2^32 as torch_npu writes them.
        m_pyPid = 3096504 + std::uint64_t(rank) * 7919;
        const std::uint64_t base = 4'294'967'296ull + 3'170'820'320ull + std::uint64_t(rank) * 1024;
        m_cannPid = base;
        m_hwPid = base + 192;
        m_hcclPid = base + 256;
        m_mainTid = m_pyPid;
        m_queueTid = m_pyPid + 9198;
    }

    std::string run()
    {
        metadata();
        const TimeNs origin = 1'736'408'883'000'000'000 + TimeNs(m_rank) * 137;
        const auto steps = stepTimes(m_o, origin);
        if (m_o.withStack && !steps.empty()) {
            pyFunc(kFrameModule, steps.front().hostStart - 1'000'000,
                   steps.back().hostEnd + 1'000'000, 0, 0);
        }
        for (int i = 0; i < int(steps.size()); ++i)
            step(i, steps[std::size_t(i)]);
        return m_events.dump();
    }

private:
    void meta(const char* what, std::uint64_t pid, std::uint64_t tid, Json args)
    {
        Json e;
        e["name"] = what;
        e["pid"] = pid;
        e["tid"] = tid;
        e["args"] = std::move(args);
        e["ph"] = "M";
        m_events.push_back(std::move(e));
    }

    void metadata()
    {
        struct P {
            std::uint64_t pid;
            const char* name;
            const char* label;
            int sort;
        };
        const P procs[] = {{m_pyPid, "Python", "CPU", 0},
                           {m_cannPid, "CANN", "CPU", 1},
                           {m_hwPid, "Ascend Hardware", "NPU", 2},
                           {m_hcclPid, "HCCL", "NPU", 3}};
        for (const P& p : procs) {
            if (p.pid == m_hcclPid && !hasAllReduce(m_o)) continue; // a single card: no HCCL
            meta("process_name", p.pid, 0, {{"name", p.name}});
            meta("process_labels", p.pid, 0, {{"labels", p.label}});
            meta("process_sort_index", p.pid, 0, {{"sort_index", p.sort}});
        }
        for (std::uint64_t tid : {m_mainTid, m_queueTid}) {
            meta("thread_name", m_pyPid, tid, {{"name", "Thread " + std::to_string(tid)}});
            meta("thread_name", m_cannPid, tid, {{"name", "Thread " + std::to_string(tid)}});
        }
        meta("thread_name", m_hwPid, 2, {{"name", "Stream 2"}});
        if (!hasAllReduce(m_o)) return;
        meta("thread_name", m_hcclPid, 0, {{"name", "Group 0 Communication"}});
        meta("thread_sort_index", m_hcclPid, 0, {{"sort_index", 0}});
        for (int p = 0; p < m_o.ranks; ++p) {
            meta("thread_name", m_hcclPid, std::uint64_t(p + 1),
                 {{"name", "Plane " + std::to_string(p)}});
            meta("thread_sort_index", m_hcclPid, std::uint64_t(p + 1), {{"sort_index", p + 1}});
        }
    }

    Json& slice(const std::string& name, std::uint64_t pid, std::uint64_t tid, TimeNs start,
                TimeNs dur, const char* cat, Json args)
    {
        Json e;
        e["name"] = name;
        e["pid"] = pid;
        e["tid"] = tid;
        e["ts"] = npuTs(start);
        e["dur"] = us(dur);
        if (cat) e["cat"] = cat;
        if (!args.is_null()) e["args"] = std::move(args);
        e["ph"] = "X";
        m_events.push_back(std::move(e));
        return m_events.back();
    }

    void pyFunc(const char* name, TimeNs start, TimeNs end, int id, int parent)
    {
        slice(name, m_pyPid, m_mainTid, start, end - start, "python_function",
              {{"Python parent id", parent}, {"Python id", id}, {"Python thread", 0}});
    }

    void flow(const char* cat, const std::string& name, const Json& id, std::uint64_t fromPid,
              std::uint64_t fromTid, TimeNs fromTs, std::uint64_t toPid, std::uint64_t toTid,
              TimeNs toTs)
    {
        Json s;
        s["name"] = name;
        s["ph"] = "s";
        s["cat"] = cat;
        s["id"] = id;
        s["pid"] = fromPid;
        s["tid"] = fromTid;
        s["ts"] = npuTs(fromTs);
        m_events.push_back(std::move(s));
        Json f;
        f["name"] = name;
        f["ph"] = "f";
        f["id"] = id;
        f["ts"] = npuTs(toTs);
        f["cat"] = cat;
        f["pid"] = toPid;
        f["tid"] = toTid;
        f["bp"] = "e";
        m_events.push_back(std::move(f));
    }

    // Host op + CANN launch + device task, linked as torch_npu links them.
    void launch(const std::string& aten, const std::string& acl, TimeNs host, std::uint64_t devPid,
                std::uint64_t devTid, TimeNs devStart, const Json& callStackArg)
    {
        Json args = {{"Sequence number", -1}, {"Fwd thread id", 0}};
        if (!callStackArg.is_null()) args["Call stack"] = callStackArg;
        slice(aten, m_pyPid, m_mainTid, host, 40'000, "cpu_op", std::move(args));
        slice(acl, m_cannPid, m_mainTid, host + 10'000, 20'000, nullptr,
              {{"Thread Id", m_mainTid}, {"Mode", "ACL_OP"}, {"level", "acl"}});
        const std::string h2d = std::to_string(++m_flowId * 7 + std::uint64_t(m_rank));
        flow("HostToDevice", "HostToDevice" + h2d, h2d, m_cannPid, m_mainTid, host + 10'000, devPid,
             devTid, devStart);
        // async_npu ids are integers above 2^53.
        const std::uint64_t big = 1'736'408'883'000'000'000ull + ++m_flowId;
        flow("async_npu", "torch_to_npu", big, m_pyPid, m_mainTid, host, devPid, devTid, devStart);
    }

    void step(int i, const StepTimes& st)
    {
        const std::uint64_t n = m_o.stepBase + std::uint64_t(i);
        slice("ProfilerStep#" + std::to_string(n), m_pyPid, m_mainTid, st.hostStart,
              st.hostEnd - st.hostStart, "cpu_op", {{"Sequence number", -1}});
        const int base = 1 + i * 10;
        const Json cs =
            m_o.withStack
                ? Json(callStack({kFrameCustom, kFrameForward, kFrameTrain, kFrameModule}))
                : Json();
        if (m_o.withStack) {
            pyFunc(kFrameTrain, st.hostStart + 10'000, st.hostEnd - 10'000, base, 0);
            pyFunc(kFrameForward, st.hostStart + 20'000, st.hostStart + 900'000, base + 1, base);
            pyFunc(kFrameCustom, st.hostStart + 30'000, st.hostStart + 890'000, base + 2, base + 1);
            pyFunc(kFrameEmpty, st.hostStart + 40'000, st.hostStart + 90'000, base + 3, base + 2);
        }
        // The communication buffer: torch.empty inside custom_attention_forward.
        Json emptyArgs = {{"Sequence number", -1}, {"Input Dims", "[]"}};
        if (m_o.withStack)
            emptyArgs["Call stack"] =
                callStack({kFrameEmpty, kFrameCustom, kFrameForward, kFrameTrain, kFrameModule});
        slice("aten::empty", m_pyPid, m_mainTid, st.hostStart + 45'000, 30'000, "cpu_op",
              std::move(emptyArgs));

        // Compute on Stream 2: four kernels, one of them the BroadcastTo trap.
        const TimeNs k = m_o.computeNs / 4;
        const Planted pl(m_o, i, m_rank, st, k);
        if (pl.hostLate > 0)
            slice("host_stall", m_pyPid, m_mainTid, pl.stallStart, pl.stallDur, "cpu_op",
                  {{"Sequence number", -1}});
        for (int j = 0; j < 4; ++j) {
            const Kernel& kr = kNpuKernels[j];
            const TimeNs host = pl.host(j, st.hostStart + 100'000 + j * 100'000);
            const TimeNs dev = pl.dev(j, st.devStart + j * k);
            launch(kr.aten,
                   std::string("AscendCL@") +
                       std::string(kr.name).substr(0, std::string(kr.name).find('_')),
                   host, m_hwPid, 2, dev, cs);
            slice(kr.name, m_hwPid, 2, dev, pl.dur(j, k), nullptr,
                  {{"Model Id", 4294967295u},
                   {"Task Type", kr.type},
                   {"Physic Stream Id", 2},
                   {"Task Id", 100 + i * 10 + j},
                   {"Batch Id", 0},
                   {"Subtask Id", 4294967295u},
                   {"connection_id", 1000 + i * 10 + j}});
        }

        // The AllReduce: c10d::allreduce_ > HcclAllreduce, AscendCL@hcom_allReduce_ on CANN.
        if (!hasAllReduce(m_o)) return;
        const TimeNs host = pl.host(4, st.hostStart + 600'000);
        const StepTimes rt = pl.ranked(st);
        Json arStack;
        if (m_o.withStack)
            arStack = callStack(
                {kFrameAllReduce, kFrameCustom, kFrameForward, kFrameTrain, kFrameModule});
        Json c10dArgs = {{"Sequence number", -1}};
        if (!arStack.is_null()) c10dArgs["Call stack"] = arStack;
        slice("c10d::allreduce_", m_pyPid, m_mainTid, host - 20'000, 120'000, "cpu_op",
              std::move(c10dArgs));
        const std::string opName =
            "hcom_allReduce__" + std::to_string(586 + m_rank) + "_" + std::to_string(i) + "_1";
        launch("HcclAllreduce", "AscendCL@hcom_allReduce_", host, m_hcclPid, 0, rt.arStart, Json());
        slice(opName, m_hcclPid, 0, rt.arStart, rt.arDur, nullptr,
              {{"connection_id", 2000 + i},
               {"model id", 4294967295u},
               {"data_type", "FP32"},
               {"alg_type", m_o.ranks > 2 ? "MESH-RING" : "RING-RING"},
               {"count", countOf(m_o, i, m_rank)}});
        planeTasks(i, rt, pl.othersWait);
    }

    Json& task(const char* type, int plane, TimeNs start, TimeNs dur, int src, int dst,
               const char* transport, std::uint64_t size, const char* link, const char* dtype)
    {
        Json a = {{"notify_id", "18446744073709551615"},
                  {"duration estimated(us)", us(dur)},
                  {"stream id", 4},
                  {"task id", 800 + m_taskId},
                  {"context id", m_ctx++},
                  {"task type", type},
                  {"src rank", src},
                  {"dst rank", dst},
                  {"transport type", transport},
                  {"size(Byte)", size},
                  {"data type", dtype},
                  {"link type", link},
                  {"bandwidth(GB/s)", dur > 0 ? double(size) / double(dur) : 0.0},
                  {"model id", 4294967295u}};
        return slice(type, m_hcclPid, std::uint64_t(plane + 1), start, dur, nullptr, std::move(a));
    }

    // waitExtra: how long this rank waits in the handshake for a late peer (planted causes).
    void planeTasks(int i, const StepTimes& st, TimeNs waitExtra)
    {
        ++m_taskId;
        m_ctx = 0;
        const std::uint64_t bytes = countOf(m_o, i, m_rank) * 4;
        const int n = std::max(1, m_o.ranks);
        const std::uint64_t chunk = bytes / std::uint64_t(n);
        TimeNs t = st.arStart;
        // Task lengths scale down for AllReduces under 40 ms (1 ms at the default 200 ms).
        const TimeNs unit = std::min<TimeNs>(1'000'000, m_o.allReduceNs / 40);
        const bool badHere = st.bad && copiesInStep(m_o, i, m_rank);
        const bool waitHere = st.bad && !badHere;
        // Baseline: a tiny flag write and the local copy of the input into the CCL buffer.
        task("Reduce_Inline", 0, t, 600, m_rank, 4294967295, "SDMA", 4, "ON_CHIP", "INT32");
        if (badHere) {
            // The misaligned input: HCCL first copies it into an aligned buffer. The address
            // is 64 bytes past a 128-byte boundary and the size is not a multiple of 512.
            Json& e = task("Memcpy", 0, t + 1'000, m_o.extraMemcpyNs - 2'000, m_rank, m_rank,
                           "SDMA", bytes + 96, "HCCS", "INVALID_TYPE");
            e["args"]["src"] = "0x12c04000040";
            e["args"]["dst"] = "0x12c80000000";
            t += m_o.extraMemcpyNs;
        }
        const TimeNs local = 2 * unit;
        task("Memcpy", 0, t + 2'000, local, m_rank, m_rank, "SDMA", chunk, "ON_CHIP",
             "INVALID_TYPE");
        t += 2'000 + local;
        // Per peer: handshake (the wait absorbs a slow peer), reduce, copy back, handshake.
        const TimeNs rest = m_o.allReduceNs - (local + 2'000) - 4 * unit;
        const TimeNs half = rest / 2;
        int plane = 1;
        for (int p = 0; p < n; ++p) {
            if (p == m_rank && n > 1) continue;
            TimeNs pt = t;
            task("Notify_Record", plane, pt, 700, m_rank, p, "SDMA", 0, "INVALID_TYPE",
                 "INVALID_TYPE");
            const TimeNs wait = 20'000 + (waitHere ? m_o.extraMemcpyNs : 0) + waitExtra;
            task("Notify_Wait", plane, pt + 1'000, wait, m_rank, p, "LOCAL", 0, "INVALID_TYPE",
                 "INVALID_TYPE");
            pt += 1'000 + wait;
            task("Reduce_Inline", plane, pt, half - 20'000, m_rank, p, "SDMA", chunk, "HCCS",
                 "FP32");
            pt += half;
            task("Memcpy", plane, pt, half - unit, m_rank, p, "SDMA", chunk, "HCCS",
                 "INVALID_TYPE");
            pt += half - unit;
            task("Notify_Record", plane, pt, 700, m_rank, p, "SDMA", 0, "INVALID_TYPE",
                 "INVALID_TYPE");
            task("Notify_Wait", plane, pt + 1'000, 10'000, m_rank, p, "LOCAL", 0, "INVALID_TYPE",
                 "INVALID_TYPE");
            ++plane;
        }
        // Final copy out of the CCL buffer, ending with the op.
        const TimeNs end = st.arStart + st.arDur;
        task("Memcpy", 0, end - unit, unit - 1'000, m_rank, m_rank, "SDMA", 65536, "ON_CHIP",
             "INVALID_TYPE");
        (void)i;
    }

    const SeedCaseOptions& m_o;
    int m_rank;
    std::uint64_t m_pyPid = 0, m_cannPid = 0, m_hwPid = 0, m_hcclPid = 0;
    std::uint64_t m_mainTid = 0, m_queueTid = 0;
    std::uint64_t m_flowId = 0;
    int m_taskId = 0, m_ctx = 0;
    Json m_events = Json::array();
};

// ---- Kineto ----------------------------------------------------------------------------------

class KinetoWriter {
public:
    KinetoWriter(const SeedCaseOptions& o, int rank) : m_o(o), m_rank(rank)
    {
        m_cpuPid = 2'481'000 + std::uint64_t(rank) * 17;
        m_tid = m_cpuPid;
        m_gpuPid = std::uint64_t(rank);
    }

    std::string run()
    {
        Json root;
        root["schemaVersion"] = 1;
        root["deviceProperties"] = Json::array({{{"id", m_rank},
                                                 {"name", "NVIDIA A100-SXM4-80GB"},
                                                 {"totalGlobalMem", 85031714816ull}}});
        root["distributedInfo"] = {{"backend", "nccl"},
                                   {"rank", m_rank},
                                   {"world_size", m_o.ranks},
                                   {"pg_count", 1},
                                   {"nccl_version", "2.17.1"}};
        root["record_shapes"] = 1;
        root["with_stack"] = m_o.withStack ? 1 : 0;
        root["displayTimeUnit"] = "ms";
        root["baseTimeNanoseconds"] = 1'700'000'000'000'000'000ull;
        metadata();
        const TimeNs origin = 4'458'676'983'543'183 + TimeNs(m_rank) * 211;
        const auto steps = stepTimes(m_o, origin);
        if (m_o.withStack && !steps.empty())
            pyFunc(kFrameModule, steps.front().hostStart - 1'000'000,
                   steps.back().hostEnd + 1'000'000, 0, Json());
        for (int i = 0; i < int(steps.size()); ++i)
            step(i, steps[std::size_t(i)]);
        root["traceEvents"] = std::move(m_events);
        root["traceName"] = "rank" + std::to_string(m_rank) + ".pt.trace.json";
        return root.dump();
    }

private:
    void meta(const char* what, std::uint64_t pid, std::uint64_t tid, Json args)
    {
        m_events.push_back(
            {{"name", what}, {"ph", "M"}, {"ts", 0}, {"pid", pid}, {"tid", tid}, {"args", args}});
    }

    void metadata()
    {
        meta("process_name", m_cpuPid, 0, {{"name", "python3.10"}});
        meta("process_labels", m_cpuPid, 0, {{"labels", "CPU"}});
        meta("thread_name", m_cpuPid, m_tid,
             {{"name", "thread " + std::to_string(m_tid) + " (pt_main_thread)"}});
        meta("process_name", m_gpuPid, 0, {{"name", "python3.10"}});
        meta("process_labels", m_gpuPid, 0, {{"labels", "GPU " + std::to_string(m_rank)}});
        meta("thread_name", m_gpuPid, 7, {{"name", "stream 7 "}});
        meta("thread_name", m_gpuPid, 20, {{"name", "stream 20 "}});
    }

    Json& slice(const std::string& name, const char* cat, std::uint64_t pid, std::uint64_t tid,
                TimeNs start, TimeNs dur, Json args)
    {
        Json e = {{"ph", "X"},  {"cat", cat},      {"name", name},  {"pid", pid},
                  {"tid", tid}, {"ts", us(start)}, {"dur", us(dur)}};
        if (!args.is_null()) e["args"] = std::move(args);
        m_events.push_back(std::move(e));
        return m_events.back();
    }

    void pyFunc(const char* name, TimeNs start, TimeNs end, int id, Json parent)
    {
        slice(name, "python_function", m_cpuPid, m_tid, start, end - start,
              {{"Python parent id", parent}, {"Python id", id}, {"Python thread", 0}});
    }

    // cudaLaunchKernel / cudaMemcpyAsync and the ac2g flow to the device event.
    Json& runtime(const char* name, TimeNs host, TimeNs devStart, std::uint64_t stream,
                  std::uint64_t corr)
    {
        Json& r = slice(name, "cuda_runtime", m_cpuPid, m_tid, host, 8'000,
                        {{"cbid", 211}, {"correlation", corr}, {"External id", corr + 100000}});
        m_events.push_back({{"ph", "s"},
                            {"id", corr},
                            {"pid", m_cpuPid},
                            {"tid", m_tid},
                            {"ts", us(host)},
                            {"cat", "ac2g"},
                            {"name", "launch"}});
        m_events.push_back({{"ph", "f"},
                            {"id", corr},
                            {"pid", m_gpuPid},
                            {"tid", stream},
                            {"ts", us(devStart)},
                            {"cat", "ac2g"},
                            {"name", "launch"},
                            {"bp", "e"}});
        return r;
    }

    void step(int i, const StepTimes& st)
    {
        const std::uint64_t n = m_o.stepBase + std::uint64_t(i);
        slice("ProfilerStep#" + std::to_string(n), "user_annotation", m_cpuPid, m_tid, st.hostStart,
              st.hostEnd - st.hostStart, {{"External id", 10 * n}});
        const int base = 1 + i * 10;
        if (m_o.withStack) {
            pyFunc(kFrameTrain, st.hostStart + 10'000, st.hostEnd - 10'000, base, 0);
            pyFunc(kFrameForward, st.hostStart + 20'000, st.hostStart + 900'000, base + 1, base);
            pyFunc(kFrameCustom, st.hostStart + 30'000, st.hostStart + 890'000, base + 2, base + 1);
            pyFunc(kFrameEmpty, st.hostStart + 40'000, st.hostStart + 90'000, base + 3, base + 2);
        }
        slice("aten::empty", "cpu_op", m_cpuPid, m_tid, st.hostStart + 45'000, 30'000,
              {{"External id", base}, {"Input Dims", Json::array()}});

        const TimeNs k = m_o.computeNs / 4;
        const Planted pl(m_o, i, m_rank, st, k);
        if (pl.hostLate > 0)
            slice("host_stall", "cpu_op", m_cpuPid, m_tid, pl.stallStart, pl.stallDur,
                  {{"External id", 900000 + i}});
        for (int j = 0; j < 4; ++j) {
            const Kernel& kr = kCudaKernels[j];
            const TimeNs host = pl.host(j, st.hostStart + 100'000 + j * 100'000);
            const TimeNs dev = pl.dev(j, st.devStart + j * k);
            const std::uint64_t corr = ++m_corr;
            slice(kr.aten, "cpu_op", m_cpuPid, m_tid, host, 40'000,
                  {{"External id", corr + 100000}});
            runtime("cudaLaunchKernel", host + 10'000, dev, 7, corr);
            slice(kr.name, "kernel", m_gpuPid, 7, dev, pl.dur(j, k),
                  {{"queued", 0},
                   {"device", m_rank},
                   {"context", 1},
                   {"stream", 7},
                   {"correlation", corr},
                   {"registers per thread", 64},
                   {"grid", Json::array({1024, 1, 1})},
                   {"block", Json::array({256, 1, 1})}});
        }

        // c10d::allreduce_ > record_param_comms > nccl:all_reduce > (cudaMemcpyAsync) +
        // cudaLaunchKernel; NCCL runs on stream 20.
        if (!hasAllReduce(m_o)) return;
        const TimeNs host = pl.host(4, st.hostStart + 600'000);
        const StepTimes rt = pl.ranked(st);
        const std::uint64_t elems = countOf(m_o, i, m_rank);
        slice("c10d::allreduce_", "cpu_op", m_cpuPid, m_tid, host - 30'000, 150'000,
              {{"External id", 5000 + i}});
        slice("record_param_comms", "cpu_op", m_cpuPid, m_tid, host - 20'000, 130'000,
              {{"External id", 5100 + i},
               {"Collective name", "allreduce"},
               {"dtype", "Float"},
               {"In msg nelems", elems},
               {"Out msg nelems", elems},
               {"Group size", m_o.ranks},
               {"Process Group Name", "0"},
               {"Process Group Description", "default_pg"},
               {"Rank", m_rank}});
        slice("nccl:all_reduce", "user_annotation", m_cpuPid, m_tid, host - 10'000, 110'000,
              {{"External id", 5200 + i}});
        const bool badHere = st.bad && copiesInStep(m_o, i, m_rank);
        TimeNs kernelStart = rt.arStart;
        if (badHere) {
            const std::uint64_t corr = ++m_corr;
            Json& r = runtime("cudaMemcpyAsync", host, rt.arStart, 20, corr);
            // The misaligned input: 64 bytes past a 128-byte boundary, odd size.
            r["args"]["src"] = "0x7f2c04000040";
            r["args"]["dst"] = "0x7f2c80000000";
            r["args"]["bytes"] = elems * 4 + 96;
            slice(
                "Memcpy DtoD (Device -> Device)", "gpu_memcpy", m_gpuPid, 20, rt.arStart,
                m_o.extraMemcpyNs - 2'000,
                {{"device", m_rank},
                 {"context", 1},
                 {"stream", 20},
                 {"correlation", corr},
                 {"bytes", elems * 4 + 96},
                 {"memory bandwidth (GB/s)", double(elems * 4 + 96) / double(m_o.extraMemcpyNs)}});
            kernelStart += m_o.extraMemcpyNs;
        }
        const std::uint64_t corr = ++m_corr;
        runtime("cudaLaunchKernel", host + 20'000, kernelStart, 20, corr);
        const TimeNs kdur = rt.arStart + rt.arDur - kernelStart;
        slice("nccl:all_reduce", "gpu_user_annotation", m_gpuPid, 20, kernelStart, kdur,
              {{"External id", 5200 + i}});
        slice("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
              "kernel", m_gpuPid, 20, kernelStart, kdur,
              {{"queued", 0},
               {"device", m_rank},
               {"context", 1},
               {"stream", 20},
               {"correlation", corr},
               {"Collective name", "allreduce"},
               {"In msg nelems", elems},
               {"Out msg nelems", elems},
               {"Group size", m_o.ranks},
               {"dtype", "Float"},
               {"Process Group Name", "0"}});
    }

    const SeedCaseOptions& m_o;
    int m_rank;
    std::uint64_t m_cpuPid = 0, m_tid = 0, m_gpuPid = 0;
    std::uint64_t m_corr = 0;
    Json m_events = Json::array();
};

bool writeFile(const std::filesystem::path& p, const std::string& text)
{
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
    std::ofstream f(p, std::ios::binary);
    if (!f) return false;
    f << text;
    return bool(f);
}

} // namespace

TimeNs lateBy(const SeedCaseOptions& o, int step, int rank)
{
    return (o.slowKernel.in(step, rank) ? o.slowKernel.ns : 0) +
           (o.lateLaunch.in(step, rank) ? o.lateLaunch.ns : 0);
}

std::uint64_t countOf(const SeedCaseOptions& o, int step, int rank)
{
    return o.countMismatch.in(step, rank) ? o.count / 2 : o.count;
}

TimeNs stepDelay(const SeedCaseOptions& o, int step)
{
    TimeNs most = 0;
    for (int r = 0; r < o.ranks; ++r)
        most = std::max(most, lateBy(o, step, r));
    return most;
}

bool copiesInStep(const SeedCaseOptions& o, int step, int rank)
{
    const auto it = o.badRanks.find(step);
    if (it == o.badRanks.end()) return rank == o.badRank;
    return std::find(it->second.begin(), it->second.end(), rank) != it->second.end();
}

std::string seedCaseTrace(const SeedCaseOptions& o, int rank)
{
    if (o.kineto) return KinetoWriter(o, rank).run();
    return NpuWriter(o, rank).run();
}

bool writeSeedCaseJob(const std::string& dir, const SeedCaseOptions& o)
{
    namespace fs = std::filesystem;
    const int written = o.writeRanks > 0 ? std::min(o.writeRanks, o.ranks) : o.ranks;
    for (int r = 0; r < written; ++r) {
        const std::string text = seedCaseTrace(o, r);
        if (o.kineto) {
            if (!writeFile(fs::path(dir) / ("rank" + std::to_string(r) + ".pt.trace.json"), text))
                return false;
            continue;
        }
        const fs::path run = fs::path(dir) / ("rank" + std::to_string(r) + "_ascend_pt");
        nlohmann::ordered_json info = {
            {"config",
             {{"common_config",
               {{"activities", {"ProfilerActivity.CPU", "ProfilerActivity.NPU"}},
                {"with_stack", o.withStack}}},
              {"experimental_config", {{"_profiler_level", "Level1"}}}}},
            {"rank_id", r}};
        nlohmann::ordered_json meta = {{"distributed_backend", "hccl"}, {"world_size", o.ranks}};
        if (!writeFile(run / ("profiler_info_" + std::to_string(r) + ".json"), info.dump(1)) ||
            !writeFile(run / "profiler_metadata.json", meta.dump(1)))
            return false;
        if (o.database) {
            const fs::path db = run / "ASCEND_PROFILER_OUTPUT" /
                                ("ascend_pytorch_profiler_" + std::to_string(r) + ".db");
            if (!tracegen::writeDatabaseOfText(text, db.string(), r, nullptr)) return false;
        } else if (!writeFile(run / "ASCEND_PROFILER_OUTPUT" / "trace_view.json", text)) {
            return false;
        }
    }
    return true;
}

} // namespace rs::gen
