#include "bench/tracegen_large.h"

#include <charconv>
#include <cstring>
#include <string_view>

namespace rs::tracegen {

namespace {

using TimeNs = std::int64_t;

// splitmix64: tiny, fast and the same on every platform, so a seed names one trace.
class Rng {
public:
    explicit Rng(std::uint64_t seed) : m_state(seed) {}
    std::uint64_t next()
    {
        std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    // Uniform in [lo, hi].
    std::int64_t range(std::int64_t lo, std::int64_t hi)
    {
        return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
    }

private:
    std::uint64_t m_state;
};

// Buffered output with the few formatters the generators need; flushes every megabyte.
class Out {
public:
    explicit Out(std::FILE* f) : m_file(f) { m_buf.reserve(kFlush + 4096); }
    ~Out() { flush(); }
    Out& raw(std::string_view s)
    {
        m_buf.append(s);
        return *this;
    }
    Out& num(std::int64_t v)
    {
        char tmp[24];
        auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
        m_buf.append(tmp, r.ptr);
        return *this;
    }
    Out& unum(std::uint64_t v)
    {
        char tmp[24];
        auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
        m_buf.append(tmp, r.ptr);
        return *this;
    }
    // Nanoseconds as microseconds with 3 decimals ("4458676983543.183").
    Out& us(TimeNs ns)
    {
        num(ns / 1000);
        char frac[4] = {'0', '0', '0', '.'};
        std::int64_t r = ns % 1000;
        for (int i = 2; i >= 0; --i, r /= 10)
            frac[i] = static_cast<char>('0' + r % 10);
        m_buf.push_back('.');
        m_buf.append(frac, 3);
        return *this;
    }
    Out& qus(TimeNs ns) // as a JSON string, torch_npu style
    {
        m_buf.push_back('"');
        us(ns);
        m_buf.push_back('"');
        return *this;
    }
    Out& str(std::string_view s) // s is already valid JSON string content
    {
        m_buf.push_back('"');
        m_buf.append(s);
        m_buf.push_back('"');
        return *this;
    }
    void endEvent()
    {
        if (m_buf.size() >= kFlush) flush();
    }
    void flush()
    {
        if (!m_buf.empty() && std::fwrite(m_buf.data(), 1, m_buf.size(), m_file) != m_buf.size())
            m_failed = true;
        m_written += m_buf.size();
        m_buf.clear();
    }
    std::uint64_t bytes() const { return m_written + m_buf.size(); }
    bool failed() const { return m_failed; }

private:
    static constexpr std::size_t kFlush = 1u << 20;
    std::FILE* m_file;
    std::string m_buf;
    std::uint64_t m_written = 0;
    bool m_failed = false;
};

constexpr const char* kHostOps[] = {
    "aten::linear", "aten::addmm", "aten::relu", "aten::layer_norm", "aten::add_",
    "aten::mul",    "aten::copy_", "aten::view", "aten::softmax",    "aten::matmul",
};
constexpr const char* kKernels[] = {
    "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, "
    "float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2> >(int, "
    "at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> "
    ">, at::detail::Array<char*, 2>)",
    "ampere_sgemm_128x64_tn",
    "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 32, true, 1>(float, float, float, "
    "float, cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, cudnnTensorStruct, "
    "float*, float const*, float*, float*, float const*, float const*, float)",
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, "
    "float, float const*, float const*, float const*, float*, float*, float*)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
    "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >",
};
constexpr const char* kNpuKernels[] = {"MatMulV2", "Add",  "Mul",       "LayerNorm",
                                       "Relu",     "Cast", "TransData", "SoftmaxV2"};
constexpr const char* kTaskTypes[] = {"AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV"};

// A python call stack as torch_npu writes it: one string, frames separated by ;\r\n.
constexpr const char* kCallStack =
    "/home/user/.local/lib/python3.9/site-packages/torch/nn/modules/linear.py(114): forward;\\r\\n"
    "/home/user/.local/lib/python3.9/site-packages/torch/nn/modules/module.py(1501): "
    "_call_impl;\\r\\n/home/user/model/blocks.py(88): forward;\\r\\n"
    "/home/user/.local/lib/python3.9/site-packages/torch/nn/modules/module.py(1501): "
    "_call_impl;\\r\\n/home/user/train.py(212): train_step;\\r\\n/home/user/train.py(301): "
    "main;\\r\\n<string>(1): <module>";

class Generator {
public:
    Generator(std::FILE* f, const LargeTraceOptions& o, LargeTraceStats* st)
        : m_out(f), m_opt(o), m_stats(st), m_rng(o.seed * 0x100000001b3ull + o.rank)
    {}

    bool run()
    {
        if (m_opt.shape == Shape::Kineto)
            kineto();
        else
            torchNpu();
        m_out.flush();
        m_stats->bytes = m_out.bytes();
        return !m_out.failed();
    }

private:
    // --- common -------------------------------------------------------------------------
    void begin(const char* ph)
    {
        if (m_first)
            m_first = false;
        else
            m_out.raw(m_opt.shape == Shape::Kineto ? ",\n" : ", ");
        ++m_stats->events;
        ++m_stats->phases[ph];
    }
    bool full() const { return m_out.bytes() >= m_opt.targetBytes; }

    // --- Kineto ---------------------------------------------------------------------------
    void kHead(const char* ph, const char* cat, std::string_view name, std::int64_t pid,
               std::int64_t tid, TimeNs ts)
    {
        begin(ph);
        m_out.raw("  {\n    \"ph\": \"").raw(ph).raw("\", \"cat\": \"").raw(cat);
        m_out.raw("\", \"name\": ").str(name).raw(", \"pid\": ").num(pid).raw(", \"tid\": ");
        m_out.num(tid).raw(",\n    \"ts\": ").us(ts);
    }
    void kX(const char* cat, std::string_view name, std::int64_t pid, std::int64_t tid, TimeNs ts,
            TimeNs dur, std::string_view args)
    {
        kHead("X", cat, name, pid, tid, ts);
        m_out.raw(", \"dur\": ").us(dur).raw(",\n    \"args\": {\n      ").raw(args);
        m_out.raw("\n    }\n  }");
        m_out.endEvent();
    }
    void kFlow(const char* ph, std::uint64_t id, std::int64_t pid, std::int64_t tid, TimeNs ts)
    {
        begin(ph);
        m_out.raw("  {\n    \"ph\": \"").raw(ph).raw("\", \"id\": ").unum(id);
        m_out.raw(", \"pid\": ").num(pid).raw(", \"tid\": ").num(tid).raw(", \"ts\": ").us(ts);
        m_out.raw(",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"");
        if (ph[0] == 'f') m_out.raw(", \"bp\": \"e\"");
        m_out.raw("\n  }");
        m_out.endEvent();
    }
    void kMeta(const char* name, std::int64_t pid, std::int64_t tid, std::string_view args)
    {
        begin("M");
        m_out.raw("  {\n    \"name\": \"").raw(name).raw("\", \"ph\": \"M\", \"ts\": 0, \"pid\": ");
        m_out.num(pid).raw(", \"tid\": ").num(tid).raw(",\n    \"args\": {\n      ").raw(args);
        m_out.raw("\n    }\n  }");
    }
    // A runtime call on the host with its device event and the ac2g flow between them.
    void kLaunch(const char* api, int cbid, TimeNs t, TimeNs gpuStart, TimeNs gpuDur,
                 const char* gpuCat, std::string_view gpuName, int stream, std::string& args)
    {
        const std::uint64_t corr = m_corr++;
        const std::int64_t ext = m_ext;
        args.assign("\"External id\": ").append(std::to_string(ext));
        args.append(",      \"cbid\": ").append(std::to_string(cbid));
        args.append(", \"correlation\": ").append(std::to_string(corr));
        kX("cuda_runtime", api, m_hostPid, m_hostTid, t, m_rng.range(3000, 15000), args);
        kFlow("s", corr, m_hostPid, m_hostTid, t);
        args.assign("\"External id\": ").append(std::to_string(ext));
        args.append(",      \"queued\": 0, \"device\": ").append(std::to_string(m_opt.rank));
        args.append(", \"context\": 1,      \"stream\": ").append(std::to_string(stream));
        args.append(", \"correlation\": ").append(std::to_string(corr));
        if (gpuCat[0] == 'k') {
            args.append(",      \"registers per thread\": 40,      \"shared memory\": 400,      "
                        "\"blocks per SM\": 4.740741,      \"warps per SM\": 75.851852,      "
                        "\"grid\": [512, 1, 1],      \"block\": [512, 1, 1],      \"est. "
                        "achieved occupancy %\": 75");
        } else {
            args.append(",      \"bytes\": ").append(std::to_string(m_rng.range(1, 64) << 20));
            args.append(", \"memory bandwidth (GB/s)\": 1234.5");
        }
        kX(gpuCat, gpuName, m_opt.rank, stream, gpuStart, gpuDur, args);
        kFlow("f", corr, m_opt.rank, stream, gpuStart);
    }

    void kineto()
    {
        m_hostPid = 2910249 + m_opt.rank * 17;
        m_hostTid = 2919752 + m_opt.rank * 17;
        const std::int64_t bwdTid = m_hostTid + 3;
        m_out.raw("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n");
        for (int d = 0; d < 8; ++d) {
            m_out.raw(d ? ",\n" : "").raw("    {\n      \"id\": ").num(d);
            m_out.raw(", \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85198045184,\n"
                      "      \"computeMajor\": 8, \"computeMinor\": 0, \"numSms\": 108\n    }");
        }
        m_out.raw("\n  ],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ");
        m_out.num(m_opt.rank).raw(", \"world_size\": 8},\n  \"traceEvents\": [\n");
        kMeta("process_name", m_hostPid, 0, "\"name\": \"python3\"");
        kMeta("process_labels", m_hostPid, 0, "\"labels\": \"CPU\"");
        kMeta("thread_name", m_hostPid, m_hostTid, "\"name\": \"thread 1 (python3)\"");
        kMeta("thread_name", m_hostPid, bwdTid, "\"name\": \"thread 4 (python3)\"");
        kMeta("process_name", m_opt.rank, 0, "\"name\": \"python3\"");
        kMeta("process_labels", m_opt.rank, 0,
              "\"labels\": \"GPU " + std::to_string(m_opt.rank) + "\"");
        kMeta("process_sort_index", m_opt.rank, 0,
              "\"sort_index\": " + std::to_string(16777216 + m_opt.rank));
        for (int s : {7, 20, 24})
            kMeta("thread_name", m_opt.rank, s, "\"name\": \"stream " + std::to_string(s) + "\"");

        std::string args;
        args.reserve(1024);
        TimeNs t = 4458676000000000 + m_opt.rank * 1337; // ns
        TimeNs gpu = t;
        const TimeNs first = t;
        int collectiveNo = 0;
        for (std::uint64_t step = 1; !full(); ++step) {
            const TimeNs stepStart = t;
            t += 2000;
            for (int op = 0; op < 200; ++op) {
                ++m_ext;
                const std::int64_t tid = op < 120 ? m_hostTid : bwdTid;
                if (op % 50 == 49) {
                    // A collective: record_param_comms > nccl:all_reduce > launch > NCCL kernel.
                    const TimeNs opStart = t;
                    const std::int64_t nelems = m_rng.range(1, 64) * 262144;
                    t += 4000;
                    const TimeNs annStart = t;
                    t += 3000;
                    const bool extraMemcpy = collectiveNo++ % 3 == 0;
                    const TimeNs kStart = std::max(gpu, t + 8000);
                    const TimeNs kDur = m_rng.range(900000, 1200000) + (extraMemcpy ? 600000 : 0);
                    kLaunch("cudaLaunchKernel", 211, t, kStart, kDur, "kernel",
                            "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, "
                            "ncclWork*)",
                            20, args);
                    if (extraMemcpy) { // the misaligned input copy, inside the collective
                        t += 16000;
                        kLaunch("cudaMemcpyAsync", 41, t, kStart + 50000, 550000, "gpu_memcpy",
                                "Memcpy DtoD (Device -> Device)", 24, args);
                    }
                    ++m_stats->collectives;
                    gpu = kStart + kDur + 2000;
                    t += 20000;
                    args.assign("\"External id\": ").append(std::to_string(m_ext));
                    args.append(",\"Record function id\": 0, \"Ev Idx\": 51");
                    kX("user_annotation", "nccl:all_reduce", m_hostPid, tid, annStart, t - annStart,
                       args);
                    t += 2000;
                    args.assign("\"External id\": ").append(std::to_string(m_ext));
                    args.append(", \"Process Group Name\": \"0\", \"Out msg nelems\": ");
                    args.append(std::to_string(nelems)).append(", \"Process Group Ranks\": ");
                    args.append("\"[0, 1, 2, 3, 4, 5, 6, 7]\", \"Group size\": 8, ");
                    args.append("\"In msg nelems\": ").append(std::to_string(nelems));
                    args.append(", \"dtype\": \"Float\", \"Collective name\": \"allreduce\"");
                    kX("cpu_op", "record_param_comms", m_hostPid, tid, opStart, t - opStart, args);
                    t += 5000;
                    continue;
                }
                const TimeNs opStart = t;
                t += m_rng.range(2000, 9000);
                const bool memcpy = op % 10 == 3;
                const TimeNs gStart = std::max(gpu, t + 5000);
                const TimeNs gDur = m_rng.range(2000, memcpy ? 60000 : 180000);
                if (memcpy)
                    kLaunch("cudaMemcpyAsync", 41, t, gStart, gDur, "gpu_memcpy",
                            "Memcpy DtoD (Device -> Device)", 7, args);
                else
                    kLaunch("cudaLaunchKernel", 211, t, gStart, gDur, "kernel",
                            kKernels[m_rng.next() % std::size(kKernels)], 7, args);
                gpu = gStart + gDur + 1000;
                t += 18000;
                args.assign("\"External id\": ").append(std::to_string(m_ext));
                args.append(",\"Record function id\": 0, \"Sequence number\": ");
                args.append(std::to_string(m_ext / 3)).append(", \"Fwd thread id\": 0");
                kX("cpu_op", kHostOps[m_rng.next() % std::size(kHostOps)], m_hostPid, tid, opStart,
                   t - opStart, args);
                t += m_rng.range(1000, 6000);
            }
            t = std::max(t, gpu) + 5000;
            args.assign("\"External id\": ").append(std::to_string(++m_ext));
            args.append(",\"Record function id\": 0");
            kX("user_annotation", "ProfilerStep#" + std::to_string(step), m_hostPid, m_hostTid,
               stepStart, t - stepStart, args);
            ++m_stats->steps;
            t += 10000;
        }
        // Kineto ends with a global instant whose pid and tid are empty strings.
        begin("i");
        m_out.raw("  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n"
                  "    \"pid\": \"\", \"tid\": \"\", \"ts\": ");
        m_out.us(t).raw("\n  }\n],\n  \"traceName\": \"rank").num(m_opt.rank);
        m_out.raw(".pt.trace.json\",\n  \"displayTimeUnit\": \"ms\",\n");
        m_out.raw("  \"baseTimeNanoseconds\": ").num(1700000000000000000 - first).raw("\n}\n");
    }

    // --- torch_npu ------------------------------------------------------------------------
    static constexpr std::int64_t kCann = 3170820320, kHw = 3170820512, kHccl = 3170820576,
                                  kFreq = 3170820544, kMem = 3170820704;

    void nHead(const char* ph, std::string_view name, std::int64_t pid, std::int64_t tid, TimeNs ts)
    {
        begin(ph);
        m_out.raw("{\"ph\": \"").raw(ph).raw("\", \"name\": ").str(name).raw(", \"pid\": ");
        m_out.num(pid).raw(", \"tid\": ").num(tid).raw(", \"ts\": ").qus(ts);
    }
    void nX(std::string_view name, const char* cat, std::int64_t pid, std::int64_t tid, TimeNs ts,
            TimeNs dur, std::string_view args)
    {
        nHead("X", name, pid, tid, ts);
        m_out.raw(", \"dur\": ").us(dur);
        if (cat) m_out.raw(", \"cat\": \"").raw(cat).raw("\"");
        if (!args.empty()) m_out.raw(", \"args\": {").raw(args).raw("}");
        m_out.raw("}");
        m_out.endEvent();
    }
    // Flow step; a string id when idText is quoted.
    void nFlow(const char* ph, std::string_view name, const char* cat, std::string_view id,
               std::int64_t pid, std::int64_t tid, TimeNs ts)
    {
        begin(ph);
        m_out.raw("{\"ph\": \"").raw(ph).raw("\", \"bp\": \"e\", \"name\": ").str(name);
        m_out.raw(", \"id\": ").raw(id).raw(", \"pid\": ").num(pid).raw(", \"tid\": ").num(tid);
        m_out.raw(", \"ts\": ").qus(ts).raw(", \"cat\": \"").raw(cat).raw("\"}");
        m_out.endEvent();
    }
    void nMeta(const char* name, std::int64_t pid, std::int64_t tid, std::string_view args)
    {
        begin("M");
        m_out.raw("{\"name\": \"").raw(name).raw("\", \"pid\": ").num(pid).raw(", \"tid\": ");
        m_out.num(tid).raw(", \"args\": {").raw(args).raw("}, \"ph\": \"M\"}");
    }
    void nCounter(const char* name, std::int64_t pid, TimeNs ts, std::string_view args)
    {
        begin("C");
        m_out.raw("{\"name\": \"").raw(name).raw("\", \"ts\": ").qus(ts).raw(", \"pid\": ");
        m_out.num(pid).raw(", \"tid\": 0, \"args\": {").raw(args).raw("}, \"ph\": \"C\"}");
        m_out.endEvent();
    }
    // A host launch (CANN) with its device task and the HostToDevice flow (string id).
    void nLaunch(std::string_view api, std::int64_t tid, TimeNs t, std::int64_t devPid,
                 std::int64_t devTid, std::string_view devName, TimeNs devStart, TimeNs devDur,
                 std::string_view devArgsPrefix, std::string& args)
    {
        const std::uint64_t conn = m_corr++;
        const std::string connText = std::to_string(conn);
        args.assign("\"Thread Id\": ").append(std::to_string(tid));
        args.append(", \"Mode\": \"ACL_RTS\", \"level\": \"acl\", \"connection_id\": ");
        args.append(connText);
        nX(api, nullptr, kCann, tid, t, m_rng.range(5000, 30000), args);
        const std::string flowName = "HostToDevice" + connText;
        const std::string idText = "\"" + connText + "\"";
        nFlow("s", flowName, "HostToDevice", idText, kCann, tid, t);
        args.assign(devArgsPrefix).append(", \"connection_id\": ").append(connText);
        nX(devName, nullptr, devPid, devTid, devStart, devDur, args);
        nFlow("f", flowName, "HostToDevice", idText, devPid, devTid, devStart);
    }

    void torchNpu()
    {
        const std::int64_t py = 3096504 + m_opt.rank * 1000;
        const std::int64_t deq = py + 3198;
        m_out.raw("[");
        nMeta("process_name", py, 0, "\"name\": \"Python\"");
        nMeta("process_labels", py, 0, "\"labels\": \"CPU\"");
        nMeta("process_sort_index", py, 0, "\"sort_index\": 0");
        nMeta("thread_name", py, py, "\"name\": \"Thread " + std::to_string(py) + "\"");
        nMeta("thread_name", py, deq, "\"name\": \"Thread " + std::to_string(deq) + "\"");
        nMeta("process_name", kCann, 0, "\"name\": \"CANN\"");
        nMeta("process_sort_index", kCann, 0, "\"sort_index\": 1");
        nMeta("process_name", kHw, 0, "\"name\": \"Ascend Hardware\"");
        nMeta("process_labels", kHw, 0, "\"labels\": \"NPU\"");
        nMeta("process_sort_index", kHw, 0, "\"sort_index\": 2");
        nMeta("thread_name", kHw, 2, "\"name\": \"Stream 2\"");
        nMeta("process_name", kHccl, 0, "\"name\": \"HCCL\"");
        nMeta("process_sort_index", kHccl, 0, "\"sort_index\": 3");
        nMeta("thread_name", kHccl, 0, "\"name\": \"Group 0 Communication\"");
        for (int p = 1; p <= 8; ++p)
            nMeta("thread_name", kHccl, p, "\"name\": \"Plane " + std::to_string(p - 1) + "\"");
        nMeta("process_name", kFreq, 0, "\"name\": \"AI Core Freq\"");
        nMeta("process_name", kMem, 0, "\"name\": \"NPU MEM\"");

        std::string args;
        args.reserve(2048);
        TimeNs t = 1736408883688177930 + m_opt.rank * 1231; // ns
        TimeNs dev = t;
        int hcom = 0;
        for (std::uint64_t step = 1; !full(); ++step) {
            const TimeNs stepStart = t;
            t += 3000;
            for (int op = 0; op < 160; ++op) {
                if (op % 20 == 0) nCounter("AI Core Freq", kFreq, t, "\"MHz\": 1800");
                if (op % 20 == 10) {
                    args.assign("\"KB\": ").append(std::to_string(m_rng.range(1000, 900000)));
                    nCounter("APP/DDR", kMem, t, args);
                }
                if (op % 40 == 39) {
                    nCollective(py, deq, t, dev, hcom++, args);
                    continue;
                }
                const TimeNs opStart = t;
                const char* kernel = kNpuKernels[m_rng.next() % std::size(kNpuKernels)];
                // Enqueue on the main thread, the launch on the dequeue thread.
                t += m_rng.range(3000, 12000);
                const std::uint64_t corr = m_ext++;
                args.assign("\"correlation_id\": ").append(std::to_string(corr));
                nX("Enqueue", "enqueue", py, py, t, 11300, args);
                nFlow("s", "enqueue_to_dequeue", "async_task_queue", std::to_string(corr), py, py,
                      t);
                const TimeNs dq = t + 23000;
                nX(std::string("Dequeue@aclnn") + kernel, "dequeue", py, deq, dq, 56100, args);
                nFlow("f", "enqueue_to_dequeue", "async_task_queue", std::to_string(corr), py, deq,
                      dq);
                const TimeNs dStart = std::max(dev, dq + 40000);
                const TimeNs dDur = m_rng.range(2000, 150000);
                args.assign("\"Model Id\": 4294967295, \"Task Type\": \"");
                args.append(kTaskTypes[m_rng.next() % std::size(kTaskTypes)]);
                args.append("\", \"Physic Stream Id\": 2, \"Task Id\": ");
                args.append(std::to_string(m_rng.range(1, 60000)));
                const std::string devArgs = args;
                nLaunch(std::string("AscendCL@aclnn") + kernel, deq, dq + 2000, kHw, 2, kernel,
                        dStart, dDur, devArgs, args);
                // torch_to_npu: integer ids around 1.7e18, above 2^53.
                const std::string bigId = std::to_string(static_cast<std::uint64_t>(dStart));
                nFlow("s", "torch_to_npu", "async_npu", bigId, py, py, opStart);
                nFlow("f", "torch_to_npu", "async_npu", bigId, kHw, 2, dStart);
                dev = dStart + dDur + 1000;
                t += 14000;
                args.assign("\"Sequence number\": ").append(std::to_string(corr));
                args.append(", \"Fwd thread id\": 0");
                if (op % 8 == 0)
                    args.append(", \"Input Dims\": \"4,1024;\\r\\n1024,1024\", \"Call stack\": \"")
                        .append(kCallStack)
                        .append("\"");
                nX(kHostOps[m_rng.next() % std::size(kHostOps)], "cpu_op", py, py, opStart,
                   t - opStart, args);
                t += m_rng.range(1000, 5000);
            }
            t = std::max(t, dev) + 5000;
            nX("ProfilerStep#" + std::to_string(step), "cpu_op", py, py, stepStart, t - stepStart,
               "\"Sequence number\": -1, \"Fwd thread id\": 0");
            ++m_stats->steps;
            t += 10000;
        }
        m_out.raw("]");
    }

    // c10d::allreduce_ > HcclAllreduce on the host, hcom_allReduce_ on HCCL with plane tasks.
    void nCollective(std::int64_t py, std::int64_t deq, TimeNs& t, TimeNs& dev, int n,
                     std::string& args)
    {
        const TimeNs opStart = t;
        t += 5000;
        const TimeNs innerStart = t;
        const TimeNs start = std::max(dev, t + 60000);
        const bool extraMemcpy = n % 3 == 0; // misaligned input: an extra copy inside
        const TimeNs dur = m_rng.range(900000, 1100000) + (extraMemcpy ? 500000 : 0);
        const std::string opName = "hcom_allReduce__586_" + std::to_string(n) + "_1";
        args.assign("\"alg_type\": \"MESH-RING\", \"data_type\": \"FP32\", \"count\": ");
        args.append(std::to_string(m_rng.range(1, 64) * 262144));
        args.append(", \"model id\": 4294967295");
        const std::string opArgs = args;
        nLaunch("AscendCL@hcom_allReduce_", deq, t + 20000, kHccl, 0, opName, start, dur, opArgs,
                args);
        // Plane tasks: notify, copies in, reduce, notify; one more copy when misaligned.
        TimeNs pt = start + 2000;
        const int copies = extraMemcpy ? 10 : 9;
        for (int k = 0; k < copies; ++k) {
            const std::int64_t plane = 1 + k % 8;
            const TimeNs cd = (dur - 40000) / copies - 1000;
            args.assign("\"notify_id\": \"0\", \"stream id\": 4, \"task id\": ");
            args.append(std::to_string(800 + k)).append(", \"task type\": \"Memcpy\", ");
            args.append("\"src rank\": ").append(std::to_string(m_opt.rank));
            args.append(", \"dst rank\": ").append(std::to_string((m_opt.rank + k + 1) % 8));
            args.append(", \"transport type\": \"SDMA\", \"size(Byte)\": 4194304, ");
            args.append("\"data type\": \"FP32\", \"link type\": \"HCCS\", ");
            args.append("\"bandwidth(GB/s)\": 17.5");
            nX("Notify_Wait", nullptr, kHccl, plane, pt, 800, "\"task type\": \"Notify_Wait\"");
            nX("Memcpy", nullptr, kHccl, plane, pt + 1000, cd - 2000, args);
            nX("Reduce_Inline", nullptr, kHccl, plane, pt + cd - 900, 600,
               "\"task type\": \"Reduce_Inline\"");
            pt += cd + 1000;
        }
        ++m_stats->collectives;
        dev = start + dur + 2000;
        t += 70000;
        nX("HcclAllreduce", "cpu_op", py, py, innerStart, t - innerStart,
           "\"Sequence number\": -1, \"Fwd thread id\": 0");
        t += 3000;
        nX("c10d::allreduce_", "cpu_op", py, py, opStart, t - opStart,
           "\"Sequence number\": -1, \"Fwd thread id\": 0");
        t += 2000;
    }

    Out m_out;
    LargeTraceOptions m_opt;
    LargeTraceStats* m_stats;
    Rng m_rng;
    bool m_first = true;
    std::int64_t m_hostPid = 0, m_hostTid = 0;
    std::uint64_t m_corr = 57000;
    std::int64_t m_ext = 1000;
};

} // namespace

bool writeLargeTrace(std::FILE* out, const LargeTraceOptions& options, LargeTraceStats* stats)
{
    LargeTraceStats local;
    LargeTraceStats* st = stats ? stats : &local;
    *st = {};
    Generator g(out, options, st);
    return g.run();
}

bool writeLargeTrace(const std::string& path, const LargeTraceOptions& options,
                     LargeTraceStats* stats, std::string* error)
{
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) {
        if (error) *error = path + ": " + std::strerror(errno);
        return false;
    }
    const bool ok = writeLargeTrace(f, options, stats);
    const bool closed = std::fclose(f) == 0;
    if ((!ok || !closed) && error) *error = path + ": write failed";
    return ok && closed;
}

std::uint64_t parseSize(const std::string& text)
{
    std::uint64_t v = 0;
    const char* b = text.data();
    const char* e = b + text.size();
    auto r = std::from_chars(b, e, v);
    if (r.ec != std::errc() || r.ptr == b) return 0;
    std::string_view unit(r.ptr, static_cast<std::size_t>(e - r.ptr));
    if (unit.empty() || unit == "B") return v;
    const char u = static_cast<char>(unit[0] | 0x20);
    if (unit.size() > 3 || (unit.size() >= 2 && (unit.back() | 0x20) != 'b' && unit[1] != 'i'))
        return 0;
    switch (u) {
    case 'k':
        return v << 10;
    case 'm':
        return v << 20;
    case 'g':
        return v << 30;
    default:
        return 0;
    }
}

} // namespace rs::tracegen
