#include "bench/tracegen_db.h"

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

namespace rs::tracegen {

namespace {

using TimeNs = std::int64_t;
constexpr std::int64_t kNone32 = 4294967295;
// torch_npu >= 7.2 stores its queue and forward/backward links above this (5 << 28).
constexpr std::int64_t kFwkConnectionBase = 1342177280;

// The tables the reader reads, as torch_npu 6.0 / msprof schema 1.0.0 create them.
constexpr const char* kSchema = R"(
PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE META_DATA (name TEXT, value TEXT);
CREATE TABLE RANK_DEVICE_MAP (rankId INTEGER, deviceId INTEGER);
CREATE TABLE ENUM_API_TYPE (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE ENUM_HCCL_DATA_TYPE (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE ENUM_HCCL_LINK_TYPE (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE ENUM_HCCL_TRANSPORT_TYPE (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER,
  globalTaskId INTEGER, globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER,
  taskId INTEGER, modelId INTEGER);
CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockDim INTEGER,
  mixBlockDim INTEGER, taskType INTEGER, opType INTEGER, inputFormats INTEGER,
  inputDataTypes INTEGER, inputShapes INTEGER, outputFormats INTEGER, outputDataTypes INTEGER,
  outputShapes INTEGER, attrInfo INTEGER);
CREATE TABLE COMMUNICATION_TASK_INFO (name INTEGER, globalTaskId INTEGER, taskType INTEGER,
  planeId INTEGER, groupName INTEGER, notifyId INTEGER, rdmaType INTEGER, srcRank INTEGER,
  dstRank INTEGER, transportType INTEGER, size INTEGER, dataType INTEGER, linkType INTEGER,
  opId INTEGER);
CREATE TABLE COMMUNICATION_OP (opName INTEGER, startNs INTEGER, endNs INTEGER,
  connectionId INTEGER, groupName INTEGER, opId INTEGER PRIMARY KEY, relay INTEGER,
  retry INTEGER, dataType INTEGER, algType INTEGER, count NUMERIC, opType INTEGER);
CREATE TABLE CANN_API (startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER,
  connectionId INTEGER PRIMARY KEY, name INTEGER);
CREATE INDEX TaskIndex ON TASK (startNs, globalTaskId);
CREATE INDEX CommunicationTaskIndex ON COMMUNICATION_TASK_INFO (globalTaskId);
CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER,
  name INTEGER, sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER,
  inputShapes INTEGER, callchainId INTEGER, type INTEGER);
CREATE TABLE PYTORCH_CALLCHAINS (id INTEGER, stack INTEGER, stackDepth INTEGER);
CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER);
CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);
CREATE TABLE NPU_MEM (type INTEGER, ddr NUMERIC, hbm NUMERIC, timestampNs INTEGER, deviceId INTEGER);
CREATE TABLE AICORE_FREQ (deviceId INTEGER, timestampNs NUMERIC, freq INTEGER);
INSERT INTO META_DATA VALUES ('SCHEMA_VERSION','1.0.0');
INSERT INTO ENUM_API_TYPE VALUES (5000,'runtime'),(5500,'hccl'),(10000,'node'),(15000,'model'),
  (20000,'acl'),(50001,'op'),(50002,'queue'),(50003,'trace'),(50004,'mstx');
INSERT INTO ENUM_HCCL_DATA_TYPE VALUES (0,'INT8'),(1,'INT16'),(2,'INT32'),(3,'FP16'),(4,'FP32'),
  (5,'INT64'),(6,'UINT64'),(7,'UINT8'),(8,'UINT16'),(9,'UINT32'),(10,'FP64'),(11,'BFP16'),
  (12,'INT128'),(65534,'N/A'),(65535,'INVALID_TYPE');
INSERT INTO ENUM_HCCL_LINK_TYPE VALUES (0,'ON_CHIP'),(1,'HCCS'),(2,'PCIE'),(3,'ROCE'),(4,'SIO'),
  (5,'HCCS_SW'),(6,'STANDARD_ROCE'),(7,'RESERVED'),(65534,'N/A'),(65535,'INVALID_TYPE');
INSERT INTO ENUM_HCCL_TRANSPORT_TYPE VALUES (0,'SDMA'),(1,'RDMA'),(2,'LOCAL'),(65534,'N/A');
BEGIN;
)";

constexpr const char* kHostOps[] = {
    "aten::linear", "aten::addmm", "aten::relu", "aten::layer_norm", "aten::add_",
    "aten::mul",    "aten::copy_", "aten::view", "aten::softmax",    "aten::matmul"};
constexpr const char* kKernels[] = {"MatMulV2", "Add",  "Mul",       "LayerNorm",
                                    "Relu",     "Cast", "TransData", "SoftmaxV2"};
constexpr const char* kFrames[] = {
    "/home/user/.local/lib/python3.9/site-packages/torch/nn/modules/linear.py(114): forward",
    "/home/user/.local/lib/python3.9/site-packages/torch/nn/modules/module.py(1501): _call_impl",
    "/home/user/model/blocks.py(88): forward",
    "/home/user/train.py(212): train_step",
    "/home/user/train.py(301): main",
    "<string>(1): <module>"};

class Rng { // splitmix64, as tracegen_large
public:
    explicit Rng(std::uint64_t seed) : m_state(seed) {}
    std::int64_t range(std::int64_t lo, std::int64_t hi)
    {
        std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        return lo + static_cast<std::int64_t>(z % static_cast<std::uint64_t>(hi - lo + 1));
    }

private:
    std::uint64_t m_state;
};

// One insert statement per table, bound and stepped per row.
class Table {
public:
    Table(sqlite3* db, const char* name, int columns, std::uint64_t* rows) : m_rows(rows)
    {
        std::string sql = std::string("INSERT INTO ") + name + " VALUES (";
        for (int i = 0; i < columns; ++i)
            sql += i ? ",?" : "?";
        sql += ")";
        sqlite3_prepare_v2(db, sql.c_str(), -1, &m_st, nullptr);
    }
    ~Table() { sqlite3_finalize(m_st); }
    Table& i(std::int64_t v)
    {
        sqlite3_bind_int64(m_st, ++m_col, v);
        return *this;
    }
    Table& t(const std::string& v) // TEXT (PYTORCH_API's times)
    {
        sqlite3_bind_text(m_st, ++m_col, v.data(), int(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    Table& null()
    {
        sqlite3_bind_null(m_st, ++m_col);
        return *this;
    }
    bool row()
    {
        const int rc = sqlite3_step(m_st);
        sqlite3_reset(m_st);
        sqlite3_clear_bindings(m_st);
        m_col = 0;
        ++*m_rows;
        return rc == SQLITE_DONE;
    }

private:
    sqlite3_stmt* m_st = nullptr;
    int m_col = 0;
    std::uint64_t* m_rows;
};

// The text export of the same events, as torch_npu writes trace_view.json (one line).
class Text {
public:
    explicit Text(const std::string& path)
    {
        if (!path.empty()) m_file = std::fopen(path.c_str(), "wb");
        m_buf.reserve(1 << 21);
        put("[");
    }
    ~Text() { close(); }
    bool enabled() const { return m_file != nullptr; }
    bool close()
    {
        if (!m_file) return true;
        put("]");
        flush();
        const bool ok = std::fclose(m_file) == 0 && !m_failed;
        m_file = nullptr;
        return ok;
    }
    std::uint64_t events = 0;

    void x(std::string_view name, std::int64_t pid, std::int64_t tid, TimeNs ts, TimeNs dur,
           std::string_view cat, std::string_view args)
    {
        if (!begin()) return;
        put("{\"ph\": \"X\", \"name\": \"").put(name).put("\", \"pid\": ").num(pid);
        put(", \"tid\": ").num(tid).put(", \"ts\": ").us(ts).put(", \"dur\": ");
        num(dur / 1000).put(".");
        char frac[3] = {char('0' + dur % 1000 / 100), char('0' + dur % 100 / 10),
                        char('0' + dur % 10)};
        m_buf.append(frac, 3);
        if (!cat.empty()) put(", \"cat\": \"").put(cat).put("\"");
        if (!args.empty()) put(", \"args\": {").put(args).put("}");
        put("}");
    }
    void flow(char ph, std::string_view name, std::string_view cat, std::string_view id,
              std::int64_t pid, std::int64_t tid, TimeNs ts)
    {
        if (!begin()) return;
        put("{\"ph\": \"").put(std::string_view(&ph, 1)).put("\", \"bp\": \"e\", \"name\": \"");
        put(name).put("\", \"id\": ").put(id).put(", \"pid\": ").num(pid).put(", \"tid\": ");
        num(tid).put(", \"ts\": ").us(ts).put(", \"cat\": \"").put(cat).put("\"}");
    }
    void meta(const char* what, std::int64_t pid, std::int64_t tid, std::string_view args)
    {
        if (!begin()) return;
        put("{\"name\": \"").put(what).put("\", \"pid\": ").num(pid).put(", \"tid\": ").num(tid);
        put(", \"args\": {").put(args).put("}, \"ph\": \"M\"}");
    }
    void counter(std::string_view name, std::int64_t pid, TimeNs ts, std::string_view args)
    {
        if (!begin()) return;
        put("{\"name\": \"").put(name).put("\", \"ts\": ").us(ts).put(", \"pid\": ").num(pid);
        put(", \"tid\": 0, \"args\": {").put(args).put("}, \"ph\": \"C\"}");
    }

private:
    bool begin()
    {
        if (!m_file) return false;
        if (m_buf.size() > (1 << 20)) flush();
        if (events++) put(", ");
        return true;
    }
    Text& put(std::string_view s)
    {
        m_buf.append(s);
        return *this;
    }
    Text& num(std::int64_t v)
    {
        char tmp[24];
        auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
        m_buf.append(tmp, r.ptr);
        return *this;
    }
    Text& us(TimeNs ns) // "1736408883688177.930": µs with the ns digits, as a string
    {
        put("\"").num(ns / 1000).put(".");
        char frac[3] = {char('0' + ns % 1000 / 100), char('0' + ns % 100 / 10),
                        char('0' + ns % 10)};
        m_buf.append(frac, 3);
        return put("\"");
    }
    void flush()
    {
        if (m_file && !m_buf.empty() &&
            std::fwrite(m_buf.data(), 1, m_buf.size(), m_file) != m_buf.size())
            m_failed = true;
        m_buf.clear();
    }
    std::FILE* m_file = nullptr;
    std::string m_buf;
    bool m_failed = false;
};

class Generator {
public:
    Generator(sqlite3* db, const DbRunOptions& o, DbRunStats* st, const std::string& textPath)
        : m_db(db), m_opt(o), m_stats(st), m_rng(o.seed * 0x100000001b3ull + std::uint64_t(o.rank)),
          m_text(textPath), m_task(db, "TASK", 11, &st->rows),
          m_compute(db, "COMPUTE_TASK_INFO", 13, &st->rows),
          m_commTask(db, "COMMUNICATION_TASK_INFO", 14, &st->rows),
          m_commOp(db, "COMMUNICATION_OP", 12, &st->rows), m_cann(db, "CANN_API", 6, &st->rows),
          m_torch(db, "PYTORCH_API", 11, &st->rows),
          m_chains(db, "PYTORCH_CALLCHAINS", 3, &st->rows),
          m_links(db, "CONNECTION_IDS", 2, &st->rows), m_steps(db, "STEP_TIME", 3, &st->rows),
          m_mem(db, "NPU_MEM", 5, &st->rows), m_freq(db, "AICORE_FREQ", 3, &st->rows)
    {}

    bool run()
    {
        layout();
        TimeNs t = 1736408883688177930 + m_opt.rank * 1231;
        TimeNs dev = t;
        int hcom = 0;
        for (std::int64_t step = 1; m_stats->rows < m_opt.targetRows; ++step) {
            const TimeNs stepStart = t;
            t += 3000;
            for (int op = 0; op < 160; ++op) {
                if (op % 20 == 0) counters(t);
                if (op % 40 == 39)
                    collective(t, dev, hcom++);
                else
                    kernelOp(t, dev, op);
            }
            t = std::max(t, dev) + 5000;
            torchOp(stepStart, t, m_main, "ProfilerStep#" + std::to_string(step), -1, {});
            m_steps.i(step).i(stepStart).i(t).row();
            ++m_stats->steps;
            t += 10000;
        }
        m_stats->events = m_text.events;
        return sqlite3_exec(m_db, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK &&
               m_text.close();
    }

private:
    std::int64_t sid(const std::string& s)
    {
        auto [it, fresh] = m_ids.try_emplace(s, std::int64_t(m_ids.size()));
        if (fresh) {
            sqlite3_stmt* st = nullptr; // Table binds ints only: names go in here
            sqlite3_prepare_v2(m_db, "INSERT INTO STRING_IDS VALUES (?, ?)", -1, &st, nullptr);
            sqlite3_bind_int64(st, 1, it->second);
            sqlite3_bind_text(st, 2, s.data(), int(s.size()), SQLITE_TRANSIENT);
            sqlite3_step(st);
            sqlite3_finalize(st);
            ++m_stats->rows;
        }
        return it->second;
    }
    std::int64_t pid() const { return 3096504 + m_opt.rank * 1000; }
    std::int64_t gtid(std::int64_t tid) const { return (pid() << 32) | tid; }
    std::int64_t fmt(int sort) const { return (pid() << 10) | (sort << 5); }

    void layout()
    {
        m_main = pid();
        m_deq = pid() + 3198;
        sqlite3_exec(
            m_db,
            ("INSERT INTO RANK_DEVICE_MAP VALUES (" + std::to_string(m_opt.rank) + ",0)").c_str(),
            nullptr, nullptr, nullptr);
        ++m_stats->rows;
        // Call chain 1: the Python frames of a forward op, innermost first.
        for (std::size_t d = 0; d < std::size(kFrames); ++d)
            m_chains.i(1).i(sid(kFrames[d])).i(std::int64_t(d)).row();
        if (!m_text.enabled()) return;
        auto proc = [&](std::int64_t p, const char* name, int sort, const char* label) {
            m_text.meta("process_name", p, 0, std::string("\"name\": \"") + name + "\"");
            m_text.meta("process_labels", p, 0, std::string("\"labels\": \"") + label + "\"");
            m_text.meta("process_sort_index", p, 0, "\"sort_index\": " + std::to_string(sort));
        };
        proc(pid(), "Python", 0, "CPU");
        proc(fmt(7), "CANN", 7, "CPU");
        proc(fmt(13), "Ascend Hardware", 13, "NPU");
        proc(fmt(15), "HCCL", 15, "NPU");
        proc(fmt(14), "AI Core Freq", 14, "NPU");
        proc(fmt(19), "NPU MEM", 19, "NPU");
        proc(fmt(23), "Overlap Analysis", 23, "NPU");
        const char* lanes[] = {"Computing", "Communication", "Communication(Not Overlapped)",
                               "Free"};
        for (int i = 0; i < 4; ++i)
            m_text.meta("thread_name", fmt(23), i, std::string("\"name\": \"") + lanes[i] + "\"");
        for (std::int64_t tid : {m_main, m_deq})
            m_text.meta("thread_name", pid(), tid,
                        "\"name\": \"Thread " + std::to_string(tid) + "\"");
        m_text.meta("thread_name", fmt(15), 0, "\"name\": \"Group 0 Communication\"");
        for (int p = 0; p < 8; ++p)
            m_text.meta("thread_name", fmt(15), p + 1,
                        "\"name\": \"Plane " + std::to_string(p) + "\"");
    }

    void counters(TimeNs t)
    {
        m_freq.i(0).i(t).i(1800).row();
        const std::int64_t hbm = m_rng.range(1000, 900000) * 1024;
        m_mem.i(sid("app")).i(0).i(hbm).i(t).i(0).row();
        m_text.counter("AI Core Freq", fmt(14), t, "\"MHz\": 1800");
        // msprof writes DDR, HBM and their sum per NPU_MEM row (KB).
        const std::string kb = "\"KB\": " + std::to_string(hbm / 1024);
        m_text.counter("APP/DDR", fmt(19), t, "\"KB\": 0");
        m_text.counter("APP/HBM", fmt(19), t, kb);
        m_text.counter("APP/Memory", fmt(19), t, kb);
    }

    // The text export's Overlap Analysis lanes, which the database leaves to the reader. The
    // device here runs one task at a time, in order: computing is each kernel, communication
    // each HCCL op (never overlapped), free the gap before each busy span.
    void busy(TimeNs start, TimeNs dur, bool compute)
    {
        if (!m_text.enabled()) return;
        if (m_busyEnd && start > m_busyEnd)
            m_text.x("Free", fmt(23), 3, m_busyEnd, start - m_busyEnd, "", {});
        m_busyEnd = std::max(m_busyEnd, start + dur);
        if (compute) {
            m_text.x("Computing", fmt(23), 0, start, dur, "", {});
            return;
        }
        m_text.x("Communication", fmt(23), 1, start, dur, "", {});
        m_text.x("Communication(Not Overlapped)", fmt(23), 2, start, dur, "", {});
    }

    // A torch op (PYTORCH_API, type op) with the CONNECTION_IDS values it links.
    void torchOp(TimeNs start, TimeNs end, std::int64_t tid, const std::string& name,
                 std::int64_t seq, const std::vector<std::int64_t>& links, bool stack = false)
    {
        m_torch.t(std::to_string(start)).t(std::to_string(end)).i(gtid(tid));
        link(links).i(sid(name)).i(seq).i(0).null().null();
        if (stack)
            m_torch.i(1);
        else
            m_torch.null();
        m_torch.i(50001).row();
        std::string args = "\"Sequence number\": " + std::to_string(seq) + ", \"Fwd thread id\": 0";
        if (stack) {
            args += ", \"Call stack\": \"";
            for (std::size_t d = 0; d < std::size(kFrames); ++d)
                args += std::string(d ? ";\\r\\n" : "") + kFrames[d];
            args += "\"";
        }
        m_text.x(name, pid(), tid, start, end - start, "cpu_op", args);
    }
    Table& link(const std::vector<std::int64_t>& values)
    {
        if (values.empty()) return m_torch.null();
        const std::int64_t id = m_nextLink++;
        for (std::int64_t v : values)
            m_links.i(id).i(v).row();
        return m_torch.i(id);
    }

    // A node-level launch on the dequeue thread and its HostToDevice flow's start.
    void launch(std::int64_t conn, TimeNs t, TimeNs dur)
    {
        m_cann.i(t).i(t + dur).i(10000).i(gtid(m_deq)).i(conn).i(sid("launch")).row();
        m_text.x("Node@launch", fmt(7), m_deq, t, dur, "",
                 "\"Thread Id\": " + std::to_string(m_deq) +
                     ", \"level\": \"node\", \"connection_id\": " + std::to_string(conn));
        m_text.flow('s', "HostToDevice", "HostToDevice", "\"" + std::to_string(conn) + "\"", fmt(7),
                    m_deq, t);
    }

    void taskRow(TimeNs start, TimeNs dur, std::int64_t conn, std::int64_t g,
                 const std::string& type, std::int64_t context, std::int64_t stream,
                 std::int64_t task)
    {
        m_task.i(start).i(start + dur).i(0).i(conn).i(g).i(pid()).i(sid(type)).i(context);
        m_task.i(stream).i(task).i(kNone32).row();
    }

    void kernelOp(TimeNs& t, TimeNs& dev, int op)
    {
        const TimeNs opStart = t;
        const std::string kernel = kKernels[m_rng.range(0, std::size(kKernels) - 1)];
        t += m_rng.range(3000, 12000);
        const std::int64_t corr = m_corr++;
        const std::int64_t queue = corr + kFwkConnectionBase;
        // Enqueue on the main thread, dequeue and launch on the dequeue thread.
        queueRow(t, 11300, m_main, "Enqueue", queue, corr, 's');
        const TimeNs dq = t + 23000;
        queueRow(dq, 56100, m_deq, "Dequeue@aclnn" + kernel, queue, corr, 'f');
        const std::int64_t conn = m_conn++;
        launch(conn, dq + 2000, m_rng.range(5000, 30000));
        const TimeNs dStart = std::max(dev, dq + 40000), dDur = m_rng.range(2000, 150000);
        const std::int64_t g = m_gtask++, taskId = m_taskId++ % 65535;
        taskRow(dStart, dDur, conn, g, "KERNEL_AIVEC", kNone32, 2, taskId);
        m_compute.i(sid(kernel)).i(g).i(48).i(0).i(sid("AI_VECTOR_CORE")).i(sid(kernel));
        for (int k = 0; k < 7; ++k)
            m_compute.null();
        m_compute.row();
        m_text.x(
            kernel, fmt(13), 2, dStart, dDur, "",
            "\"Model Id\": 4294967295, \"Task Type\": \"AI_VECTOR_CORE\", \"Physic Stream Id\": 2, "
            "\"Task Id\": " +
                std::to_string(taskId) +
                ", \"Subtask Id\": 4294967295, "
                "\"connection_id\": " +
                std::to_string(conn));
        m_text.flow('f', "HostToDevice", "HostToDevice", "\"" + std::to_string(conn) + "\"",
                    fmt(13), 2, dStart);
        m_text.flow('s', "torch_to_npu", "async_npu", std::to_string(dStart), pid(), m_main,
                    opStart);
        m_text.flow('f', "torch_to_npu", "async_npu", std::to_string(dStart), fmt(13), 2, dStart);
        busy(dStart, dDur, true);
        dev = dStart + dDur + 1000;
        t += 14000;
        torchOp(opStart, t, m_main, kHostOps[m_rng.range(0, std::size(kHostOps) - 1)], corr, {conn},
                op % 8 == 0);
        t += m_rng.range(1000, 5000);
    }

    void queueRow(TimeNs start, TimeNs dur, std::int64_t tid, const std::string& name,
                  std::int64_t value, std::int64_t corr, char ph)
    {
        m_torch.t(std::to_string(start)).t(std::to_string(start + dur)).i(gtid(tid));
        link({value}).i(sid(name)).null().null().null().null().null().i(50002).row();
        m_text.x(name, pid(), tid, start, dur, ph == 's' ? "enqueue" : "dequeue",
                 "\"correlation_id\": " + std::to_string(corr));
        m_text.flow(ph, "enqueue_to_dequeue", "async_task_queue", std::to_string(corr), pid(), tid,
                    start);
    }

    // c10d::allreduce_ > HcclAllreduce on the host; the HCCL op, its hidden FFTS+ parent task
    // and its plane tasks (one more Memcpy when the input is misaligned).
    void collective(TimeNs& t, TimeNs& dev, int n)
    {
        const TimeNs opStart = t;
        t += 5000;
        const TimeNs inner = t;
        const TimeNs start = std::max(dev, t + 60000);
        const bool extra = n % 3 == 0;
        const TimeNs dur = m_rng.range(900000, 1100000) + (extra ? 500000 : 0);
        const std::string op = "hcom_allReduce__586_" + std::to_string(n) + "_1";
        // One size: the ops whose input is misaligned carry the extra copy (mode B).
        const std::int64_t conn = m_conn++, count = 4194304;
        launch(conn, t + 20000, 15000);
        m_commOp.i(sid(op)).i(start).i(start + dur).i(conn).i(sid("group0")).i(n + 1).i(0).i(0);
        m_commOp.i(4).i(sid("MESH-RING")).i(count).i(sid("hcom_allReduce_")).row();
        m_text.x(
            op, fmt(15), 0, start, dur, "",
            "\"connection_id\": " + std::to_string(conn) +
                ", \"model id\": 4294967295, \"data_type\": \"FP32\", \"alg_type\": \"MESH-RING\", "
                "\"count\": " +
                std::to_string(count));
        m_text.flow('f', "HostToDevice", "HostToDevice", "\"" + std::to_string(conn) + "\"",
                    fmt(15), 0, start);
        m_text.flow('s', "torch_to_npu", "async_npu", std::to_string(start), pid(), m_main, inner);
        m_text.flow('f', "torch_to_npu", "async_npu", std::to_string(start), fmt(15), 0, start);
        const std::int64_t taskId = m_taskId++ % 65535;
        taskRow(start - 1000, dur + 2000, conn, m_gtask++, "AI_CORE", kNone32, 4, taskId);
        TimeNs pt = start + 2000;
        const int copies = extra ? 10 : 9;
        std::int64_t context = 0;
        for (int k = 0; k < copies; ++k) {
            const std::int64_t plane = k % 8;
            const TimeNs cd = (dur - 40000) / copies - 1000;
            planeTask(op, "Notify_Wait", "Notify Wait", plane, pt, 800, conn, taskId, context++, 0,
                      n);
            planeTask(op, "Memcpy", "SDMA", plane, pt + 1000, cd - 2000, conn, taskId, context++,
                      4194304, n);
            planeTask(op, "Reduce_Inline", "SDMA", plane, pt + cd - 900, 600, conn, taskId,
                      context++, 0, n);
            pt += cd + 1000;
        }
        ++m_stats->collectives;
        busy(start, dur, false);
        dev = start + dur + 2000;
        t += 70000;
        torchOp(inner, t, m_main, "HcclAllreduce", -1, {conn});
        t += 3000;
        torchOp(opStart, t, m_main, "c10d::allreduce_", -1, {});
        t += 2000;
    }

    void planeTask(const std::string& op, const char* type, const char* hostType,
                   std::int64_t plane, TimeNs start, TimeNs dur, std::int64_t conn,
                   std::int64_t taskId, std::int64_t context, std::int64_t size, int n)
    {
        const std::int64_t g = m_gtask++, dst = (m_opt.rank + plane + 1) % 8;
        taskRow(start, dur, conn, g, hostType, context, 4, taskId);
        m_commTask.i(sid(op)).i(g).i(sid(type)).i(plane).i(sid("group0")).i(0).i(65535);
        m_commTask.i(m_opt.rank).i(dst).i(0).i(size).i(size ? 4 : 65535).i(1).i(n + 1).row();
        if (!m_text.enabled()) return;
        const std::string task = "\"stream id\": 4, \"task id\": " + std::to_string(taskId) +
                                 ", \"context id\": " + std::to_string(context);
        m_text.x(hostType, fmt(13), 4, start, dur, "",
                 "\"Model Id\": 4294967295, \"Task Type\": \"" + std::string(hostType) +
                     "\", \"Physic Stream Id\": 4, \"Task Id\": " + std::to_string(taskId) +
                     ", \"Subtask Id\": " + std::to_string(context) +
                     ", \"connection_id\": " + std::to_string(conn));
        m_text.x(type, fmt(15), plane + 1, start, dur, "",
                 "\"notify_id\": \"0\", " + task + ", \"task type\": \"" + type +
                     "\", \"src rank\": " + std::to_string(m_opt.rank) +
                     ", \"dst rank\": " + std::to_string(dst) +
                     ", \"transport type\": \"SDMA\", \"size(Byte)\": " + std::to_string(size) +
                     ", \"data type\": \"" + (size ? "FP32" : "INVALID_TYPE") +
                     "\", \"link type\": \"HCCS\", \"bandwidth(GB/s)\": " +
                     std::to_string(dur > 0 ? double(size) / double(dur) : 0.0) +
                     ", \"model id\": 4294967295");
    }

    sqlite3* m_db;
    DbRunOptions m_opt;
    DbRunStats* m_stats;
    Rng m_rng;
    Text m_text;
    std::map<std::string, std::int64_t> m_ids;
    Table m_task, m_compute, m_commTask, m_commOp, m_cann, m_torch, m_chains, m_links, m_steps,
        m_mem, m_freq;
    std::int64_t m_main = 0, m_deq = 0;
    TimeNs m_busyEnd = 0; // the Overlap Analysis lanes: where the device was last busy
    std::int64_t m_corr = 1000, m_conn = 57000, m_gtask = 0, m_taskId = 1, m_nextLink = 0;
};

// --- The text export of a run written as its database export --------------------------------

using Json = nlohmann::json;

// µs text or number as written by torch_npu -> ns.
std::int64_t nsOf(const Json& v)
{
    if (v.is_number_integer()) return v.get<std::int64_t>() * 1000;
    if (v.is_number()) return static_cast<std::int64_t>(v.get<double>() * 1000.0 + 0.5);
    if (!v.is_string()) return 0;
    const std::string t = v.get<std::string>();
    const std::size_t dot = t.find('.');
    std::int64_t whole = std::stoll(t.substr(0, dot)) * 1000;
    if (dot != std::string::npos) {
        std::string frac = t.substr(dot + 1, 3);
        while (frac.size() < 3)
            frac.push_back('0');
        whole += std::stoll(frac);
    }
    return whole;
}

std::int64_t enumId(const std::map<std::string, std::int64_t>& m, const std::string& name)
{
    auto it = m.find(name);
    return it == m.end() ? 65535 : it->second;
}

class TextToDb {
public:
    TextToDb(sqlite3* db, int rank)
        : m_db(db), m_rank(rank), m_task(db, "TASK", 11, &m_rows),
          m_compute(db, "COMPUTE_TASK_INFO", 13, &m_rows),
          m_commTask(db, "COMMUNICATION_TASK_INFO", 14, &m_rows),
          m_commOp(db, "COMMUNICATION_OP", 12, &m_rows), m_cann(db, "CANN_API", 6, &m_rows),
          m_torch(db, "PYTORCH_API", 11, &m_rows), m_chains(db, "PYTORCH_CALLCHAINS", 3, &m_rows),
          m_links(db, "CONNECTION_IDS", 2, &m_rows), m_steps(db, "STEP_TIME", 3, &m_rows)
    {}

    bool run(const Json& events)
    {
        struct Ev {
            const Json* j;
            std::string proc, thread;
            std::int64_t pid, tid, start, end;
        };
        std::map<std::int64_t, std::string> procs;
        std::map<std::pair<std::int64_t, std::int64_t>, std::string> threads;
        for (const Json& e : events) {
            if (e.value("ph", "") != "M" || !e.contains("args")) continue;
            const std::string what = e.value("name", "");
            const std::string name = e["args"].value("name", "");
            if (what == "process_name") procs[e.value("pid", std::int64_t(0))] = name;
            if (what == "thread_name")
                threads[{e.value("pid", std::int64_t(0)), e.value("tid", std::int64_t(0))}] = name;
        }
        // Slices by track and start, to bind the flows' ends as the reader binds them.
        std::vector<Ev> slices;
        for (const Json& e : events) {
            if (e.value("ph", "") != "X") continue;
            const std::int64_t pid = e.value("pid", std::int64_t(0)),
                               tid = e.value("tid", std::int64_t(0));
            const std::int64_t start = nsOf(e["ts"]);
            slices.push_back({&e, procs[pid], threads[{pid, tid}], pid, tid, start,
                              start + nsOf(e.value("dur", Json(0)))});
            if (procs[pid] == "Python" && !m_hostPid) m_hostPid = pid;
        }
        auto at = [&](std::int64_t pid, std::int64_t tid, std::int64_t ts) -> Ev* {
            Ev* best = nullptr; // the innermost slice holding ts
            for (Ev& s : slices)
                if (s.pid == pid && s.tid == tid && s.start <= ts && ts <= s.end &&
                    (!best || s.start >= best->start))
                    best = &s;
            return best;
        };
        auto connOf = [](const Ev* e) -> std::optional<std::int64_t> {
            if (!e || !(*e->j).contains("args")) return std::nullopt;
            const Json& a = (*e->j)["args"];
            if (a.contains("connection_id") && a["connection_id"].is_number_integer())
                return a["connection_id"].get<std::int64_t>();
            return std::nullopt;
        };
        // Flows: a launch gives its CANN call the device task's connection id; a torch op
        // links to it through CONNECTION_IDS.
        std::map<std::string, std::pair<Ev*, std::vector<Ev*>>> flows; // cat+id -> s, f...
        for (const Json& e : events) {
            const std::string ph = e.value("ph", "");
            if (ph != "s" && ph != "f") continue;
            const std::string key = e.value("cat", "") + "/" + e["id"].dump();
            Ev* where =
                at(e.value("pid", std::int64_t(0)), e.value("tid", std::int64_t(0)), nsOf(e["ts"]));
            if (ph == "s")
                flows[key].first = where;
            else
                flows[key].second.push_back(where);
        }
        for (auto& [key, ends] : flows) {
            if (!ends.first) continue;
            for (Ev* to : ends.second) {
                const auto conn = connOf(to);
                if (!conn) continue;
                if (key.rfind("HostToDevice/", 0) == 0) m_cannConn[ends.first] = *conn;
                if (key.rfind("async_npu/", 0) == 0) m_opLinks[ends.first].push_back(*conn);
            }
        }
        for (Ev& e : slices) {
            const Json& a = e.j->contains("args") ? (*e.j)["args"] : Json::object();
            const std::string name = e.j->value("name", "");
            if (e.proc == "Python") {
                python(e.start, e.end, e.tid, name, e.j->value("cat", ""), a, &e);
            } else if (e.proc == "CANN") {
                const std::size_t at = name.find('@');
                const std::string level = at == std::string::npos ? "" : name.substr(0, at);
                const std::int64_t type = level == "AscendCL"  ? 20000
                                          : level == "Node"    ? 10000
                                          : level == "Runtime" ? 5000
                                          : level == "Model"   ? 15000
                                                               : 5500;
                auto c = m_cannConn.find(&e);
                const std::int64_t conn = c != m_cannConn.end() ? c->second : m_freeConn++;
                m_cann.i(e.start).i(e.end).i(type).i((m_hostPid << 32) | e.tid).i(conn);
                m_cann.i(sid(at == std::string::npos ? name : name.substr(at + 1))).row();
            } else if (e.proc == "Ascend Hardware") {
                const std::string type = a.value("Task Type", "");
                const std::int64_t g = m_gtask++;
                const bool op = !name.empty() && name != type;
                task(e, a, g, op ? "KERNEL_AICORE" : name, a.value("Subtask Id", kNone32), e.tid,
                     a.value("Task Id", std::int64_t(0)), connOf(&e).value_or(0));
                if (op) {
                    m_compute.i(sid(name)).i(g).i(32).i(0).i(sid(type)).i(sid(name));
                    for (int k = 0; k < 7; ++k)
                        m_compute.null();
                    m_compute.row();
                }
            } else if (e.proc == "HCCL") {
                hccl(e, a, name);
            }
        }
        m_rowsOk =
            sqlite3_exec(
                m_db,
                ("INSERT INTO RANK_DEVICE_MAP VALUES (" + std::to_string(m_rank) + ",0)").c_str(),
                nullptr, nullptr, nullptr) == SQLITE_OK;
        return m_rowsOk && sqlite3_exec(m_db, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK;
    }

private:
    template <typename E>
    void python(std::int64_t start, std::int64_t end, std::int64_t tid, const std::string& name,
                const std::string& cat, const Json& a, E* e)
    {
        const std::int64_t type = cat == "python_function"               ? 50003
                                  : cat == "enqueue" || cat == "dequeue" ? 50002
                                                                         : 50001;
        m_torch.t(std::to_string(start)).t(std::to_string(end)).i((m_hostPid << 32) | tid);
        auto links = m_opLinks.find(e);
        if (links != m_opLinks.end() && type == 50001) {
            const std::int64_t id = m_nextLink++;
            for (std::int64_t v : links->second)
                m_links.i(id).i(v).row();
            m_torch.i(id);
        } else {
            m_torch.null();
        }
        m_torch.i(sid(name));
        if (type == 50001) {
            m_torch.i(a.value("Sequence number", std::int64_t(-1)))
                .i(a.value("Fwd thread id", std::int64_t(0)));
            if (a.contains("Input type"))
                m_torch.i(sid(a["Input type"].get<std::string>()));
            else
                m_torch.null();
            if (a.contains("Input Dims"))
                m_torch.i(sid(a["Input Dims"].get<std::string>()));
            else
                m_torch.null();
            if (a.contains("Call stack") && a["Call stack"].is_string())
                m_torch.i(chain(a["Call stack"].get<std::string>()));
            else
                m_torch.null();
        } else {
            m_torch.null().null().null().null().null();
        }
        m_torch.i(type).row();
        if (type == 50001 && name.rfind("ProfilerStep#", 0) == 0)
            m_steps.i(std::stoll(name.substr(13))).i(start).i(end).row();
    }

    // A call stack as torch_npu's CallChainIdManager stores it: frames innermost first.
    std::int64_t chain(const std::string& stack)
    {
        auto [it, fresh] = m_chainIds.try_emplace(stack, std::int64_t(m_chainIds.size()));
        if (!fresh) return it->second;
        std::size_t from = 0;
        for (std::int64_t depth = 0; from <= stack.size(); ++depth) {
            const std::size_t sep = std::min(stack.find(";\r\n", from), stack.size());
            m_chains.i(it->second).i(sid(stack.substr(from, sep - from))).i(depth).row();
            from = sep + 3;
        }
        return it->second;
    }

    template <typename E>
    void task(const E& e, const Json& a, std::int64_t g, const std::string& hostType,
              std::int64_t context, std::int64_t stream, std::int64_t taskId, std::int64_t conn)
    {
        m_task.i(e.start).i(e.end).i(0).i(conn).i(g).i(m_hostPid).i(sid(hostType)).i(context);
        m_task.i(stream).i(taskId).i(a.value("Model Id", a.value("model id", kNone32))).row();
    }

    template <typename E> void hccl(const E& e, const Json& a, const std::string& name)
    {
        if (e.thread.find("Communication") != std::string::npos) {
            const std::int64_t op = ++m_ops;
            m_opOf[e.tid].push_back({e.start, e.end, op, sid(name)});
            m_commOp.i(sid(name)).i(e.start).i(e.end).i(a.value("connection_id", m_freeConn++));
            m_commOp.i(sid("group" + std::to_string(e.tid))).i(op).i(0).i(0);
            m_commOp.i(enumId(kDataTypes, a.value("data_type", "")));
            m_commOp.i(sid(a.value("alg_type", ""))).i(a.value("count", std::int64_t(0)));
            m_commOp
                .i(sid(name.substr(0, name.find("__") == std::string::npos ? name.size()
                                                                           : name.find("__") + 1)))
                .row();
            return;
        }
        if (e.thread.rfind("Plane ", 0) != 0) return;
        // The op of the group thread below the plane whose span holds the task.
        std::int64_t group = -1, opId = 0, opName = 0;
        for (const auto& [tid, ops] : m_opOf)
            if (tid < e.tid && tid > group)
                for (const Op& o : ops)
                    if (o.start <= e.start && e.start <= o.end) {
                        group = tid;
                        opId = o.id;
                        opName = o.name;
                    }
        if (group < 0) return;
        const std::string type = a.value("task type", name);
        static const std::map<std::string, std::string> kHost = {{"Memcpy", "SDMA"},
                                                                 {"Reduce_Inline", "SDMA"},
                                                                 {"Notify_Wait", "Notify Wait"},
                                                                 {"Notify_Record", "Write Value"}};
        const auto host = kHost.find(type);
        const std::int64_t g = m_gtask++;
        task(e, a, g, host != kHost.end() ? host->second : type,
             a.value("context id", std::int64_t(0)), a.value("stream id", std::int64_t(0)),
             a.value("task id", std::int64_t(0)), 0);
        const std::string notify = a.value("notify_id", "");
        m_commTask.i(opName)
            .i(g)
            .i(sid(type))
            .i(e.tid - group - 1)
            .i(sid("group" + std::to_string(group)));
        m_commTask.i(notify.empty() || notify == "18446744073709551615" ? INT64_MAX
                                                                        : std::stoll(notify));
        m_commTask.i(65535).i(a.value("src rank", kNone32)).i(a.value("dst rank", kNone32));
        m_commTask.i(enumId(kTransports, a.value("transport type", "")));
        m_commTask.i(a.value("size(Byte)", std::int64_t(0)));
        m_commTask.i(enumId(kDataTypes, a.value("data type", "")));
        m_commTask.i(enumId(kLinks, a.value("link type", ""))).i(opId).row();
    }

    std::int64_t sid(const std::string& s)
    {
        auto [it, fresh] = m_ids.try_emplace(s, std::int64_t(m_ids.size()));
        if (fresh) {
            sqlite3_stmt* st = nullptr;
            sqlite3_prepare_v2(m_db, "INSERT INTO STRING_IDS VALUES (?, ?)", -1, &st, nullptr);
            sqlite3_bind_int64(st, 1, it->second);
            sqlite3_bind_text(st, 2, s.data(), int(s.size()), SQLITE_TRANSIENT);
            sqlite3_step(st);
            sqlite3_finalize(st);
        }
        return it->second;
    }

    struct Op {
        std::int64_t start, end, id, name;
    };
    const std::map<std::string, std::int64_t> kDataTypes = {
        {"INT8", 0},   {"INT16", 1}, {"INT32", 2},  {"FP16", 3},   {"FP32", 4},  {"INT64", 5},
        {"UINT64", 6}, {"UINT8", 7}, {"UINT16", 8}, {"UINT32", 9}, {"FP64", 10}, {"BFP16", 11}};
    const std::map<std::string, std::int64_t> kLinks = {
        {"ON_CHIP", 0}, {"HCCS", 1}, {"PCIE", 2}, {"ROCE", 3}};
    const std::map<std::string, std::int64_t> kTransports = {
        {"SDMA", 0}, {"RDMA", 1}, {"LOCAL", 2}};

    sqlite3* m_db;
    int m_rank;
    std::uint64_t m_rows = 0;
    bool m_rowsOk = true;
    Table m_task, m_compute, m_commTask, m_commOp, m_cann, m_torch, m_chains, m_links, m_steps;
    std::map<std::string, std::int64_t> m_ids, m_chainIds;
    std::map<const void*, std::int64_t> m_cannConn;
    std::map<const void*, std::vector<std::int64_t>> m_opLinks;
    std::map<std::int64_t, std::vector<Op>> m_opOf; // group thread -> its ops
    std::int64_t m_hostPid = 0, m_gtask = 0, m_ops = 0, m_nextLink = 0;
    std::int64_t m_freeConn = 1 << 30; // CANN calls that launched nothing
};

} // namespace

bool writeDatabaseOfText(const std::string& traceViewText, const std::string& dbPath, int rank,
                         std::string* error)
{
    const Json doc = Json::parse(traceViewText, nullptr, false);
    const Json& events = doc.is_array() ? doc : doc.value("traceEvents", Json::array());
    if (doc.is_discarded() || !events.is_array()) {
        if (error) *error = "not a trace_view.json";
        return false;
    }
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(dbPath).parent_path(), ec);
    std::filesystem::remove(dbPath, ec);
    sqlite3* db = nullptr;
    bool ok = sqlite3_open(dbPath.c_str(), &db) == SQLITE_OK &&
              sqlite3_exec(db, kSchema, nullptr, nullptr, nullptr) == SQLITE_OK;
    if (ok) {
        TextToDb conv(db, rank);
        ok = conv.run(events);
    }
    if (!ok && error) *error = dbPath + ": " + (db ? sqlite3_errmsg(db) : "cannot create");
    sqlite3_close(db);
    return ok;
}

bool writeDbRun(const std::string& outDir, const DbRunOptions& options, DbRunStats* stats,
                std::string* error)
{
    namespace fs = std::filesystem;
    DbRunStats local;
    DbRunStats& st = stats ? *stats : local;
    st = {};
    const std::string rankDir = "rank" + std::to_string(options.rank) + "_ascend_pt";
    const fs::path dbRun = fs::path(outDir) / "db" / rankDir;
    std::error_code ec;
    fs::create_directories(dbRun / "ASCEND_PROFILER_OUTPUT", ec);
    const std::string info = "{\"rank_id\": " + std::to_string(options.rank) +
                             ", \"config\": {\"experimental_config\": {\"_export_type\": \"db\"}}}";
    std::ofstream(dbRun / ("profiler_info_" + std::to_string(options.rank) + ".json")) << info;
    st.dbPath = (dbRun / "ASCEND_PROFILER_OUTPUT" /
                 ("ascend_pytorch_profiler_" + std::to_string(options.rank) + ".db"))
                    .string();
    fs::remove(st.dbPath, ec);
    if (options.text) {
        const fs::path textRun = fs::path(outDir) / "text" / rankDir;
        fs::create_directories(textRun / "ASCEND_PROFILER_OUTPUT", ec);
        std::ofstream(textRun / ("profiler_info_" + std::to_string(options.rank) + ".json"))
            << info;
        st.textPath = (textRun / "ASCEND_PROFILER_OUTPUT" / "trace_view.json").string();
    }
    sqlite3* db = nullptr;
    if (sqlite3_open(st.dbPath.c_str(), &db) != SQLITE_OK ||
        sqlite3_exec(db, kSchema, nullptr, nullptr, nullptr) != SQLITE_OK) {
        if (error) *error = st.dbPath + ": " + (db ? sqlite3_errmsg(db) : "cannot create");
        sqlite3_close(db);
        return false;
    }
    bool ok = false;
    {
        Generator g(db, options, &st, st.textPath);
        ok = g.run();
    }
    sqlite3_close(db);
    if (!ok && error)
        *error = "cannot write " + st.dbPath + (options.text ? " or " + st.textPath : "");
    return ok;
}

} // namespace rs::tracegen
