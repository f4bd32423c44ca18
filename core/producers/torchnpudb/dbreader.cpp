#include "core/producers/torchnpudb/dbreader.h"

#include "core/producers/producer.h"
#include "core/producers/torchnpudb/sqlitedb.h"
#include "core/tracebuilder.h"
#include "core/traceevent.h"
#include "core/workpool.h"

#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace rs {

const Producer& torchNpuDbProducer();

namespace torchnpudb {

const TableColumns kTables[] = {
    {"STRING_IDS", "id,value"},
    {"TASK", "startNs,endNs,deviceId,connectionId,globalTaskId,globalPid,taskType,contextId,"
             "streamId,taskId,modelId"},
    {"COMPUTE_TASK_INFO", "name,globalTaskId,taskType"},
    {"COMMUNICATION_TASK_INFO", "name,globalTaskId,taskType,planeId,groupName,notifyId,srcRank,"
                                "dstRank,transportType,size,dataType,linkType,opId"},
    {"COMMUNICATION_OP", "opName,startNs,endNs,connectionId,groupName,opId,dataType,algType,count"},
    {"CANN_API", "startNs,endNs,type,globalTid,connectionId,name"},
    {"PYTORCH_API", "startNs,endNs,globalTid,connectionId,name,sequenceNumber,fwdThreadId,"
                    "inputDtypes,inputShapes,callchainId"},
    {"PYTORCH_CALLCHAINS", "id,stack,stackDepth"},
    {"CONNECTION_IDS", "id,connectionId"},
    {"STEP_TIME", "id,startNs,endNs"},
    {"RANK_DEVICE_MAP", "rankId,deviceId"},
    {"ENUM_API_TYPE", "id,name"},
    {"ENUM_HCCL_DATA_TYPE", "id,name"},
    {"ENUM_HCCL_LINK_TYPE", "id,name"},
    {"ENUM_HCCL_TRANSPORT_TYPE", "id,name"},
    {"NPU_MEM", "type,ddr,hbm,timestampNs,deviceId"},
    {"HBM", "deviceId,timestampNs,bandwidth,hbmId,type"},
    {"AICORE_FREQ", "deviceId,timestampNs,freq"},
    {"LLC", "deviceId,llcId,timestampNs,hitRate,throughput,mode"},
};
const std::size_t kTableCount = std::size(kTables);

namespace {

constexpr std::int64_t kU32None = 4294967295; // msprof's "none" for ids and ranks
constexpr std::uint64_t kRowsPerCheck = 1 << 14;
// Model bytes per row read, for the budget's projection up front: a slice (40) with its args
// text (about 150 bytes of JSON on a task), names interned, flow steps.
constexpr std::uint64_t kBytesPerRow = 240;

// msprof's process sort indices (the public text exports' numbering) and its pid layout:
// (pid << 10) | (sort << 5) | device (json_assembler.cpp GetFormatPid). The pids are the
// reader's own; names and sort indices are what the text export shows.
enum Sort : int {
    kSortPython = 0,
    kSortCann = 7,
    kSortHardware = 13,
    kSortFreq = 14,
    kSortHccl = 15,
    kSortHbm = 17,
    kSortLlc = 18,
    kSortNpuMem = 19,
    kSortOverlap = 23,
};
std::uint64_t formatPid(std::uint64_t pid, int sort, std::int64_t device)
{
    return (pid << 10) | (std::uint64_t(sort) << 5) | (std::uint64_t(device) & 31);
}

// Blocks of text whose addresses stay put: a partial builder keeps args as views until absorb.
class TextArena {
public:
    TextRef add(std::string_view s)
    {
        if (s.empty()) return {};
        if (m_blocks.empty() || m_blocks.back().capacity() - m_blocks.back().size() < s.size()) {
            m_blocks.emplace_back();
            m_blocks.back().reserve(std::max<std::size_t>(s.size(), 1 << 20));
        }
        std::string& b = m_blocks.back();
        const std::size_t at = b.size();
        b.append(s);
        return {b.data() + at, static_cast<std::uint32_t>(s.size())};
    }

private:
    std::deque<std::string> m_blocks;
};

// A JSON object written field by field (args): keys are ours, values escaped.
class Args {
public:
    void clear() { m_s.assign(1, '{'); }
    Args& num(std::string_view key, std::int64_t v)
    {
        keyOf(key);
        char buf[24];
        auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_s.append(buf, r.ptr);
        return *this;
    }
    Args& real(std::string_view key, double v)
    {
        keyOf(key);
        if (!std::isfinite(v)) v = 0;
        char buf[32];
        auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_s.append(buf, r.ptr);
        return *this;
    }
    Args& str(std::string_view key, std::string_view v)
    {
        keyOf(key);
        quote(v);
        return *this;
    }
    const std::string& done()
    {
        m_s.push_back('}');
        return m_s;
    }

private:
    void keyOf(std::string_view key)
    {
        if (m_s.size() > 1) m_s.push_back(',');
        quote(key);
        m_s.push_back(':');
    }
    void quote(std::string_view v)
    {
        m_s.push_back('"');
        for (char c : v) {
            const auto u = static_cast<unsigned char>(c);
            if (c == '"' || c == '\\') {
                m_s.push_back('\\');
                m_s.push_back(c);
            } else if (c == '\n') {
                m_s.append("\\n");
            } else if (c == '\r') {
                m_s.append("\\r");
            } else if (c == '\t') {
                m_s.append("\\t");
            } else if (u < 0x20) {
                static const char hex[] = "0123456789abcdef";
                m_s.append("\\u00");
                m_s.push_back(hex[u >> 4]);
                m_s.push_back(hex[u & 15]);
            } else {
                m_s.push_back(c);
            }
        }
        m_s.push_back('"');
    }
    std::string m_s = "{";
};

// Trace events for a builder, times in integer ns (the database's own).
class Emitter {
public:
    Emitter(TraceBuilder& b, TextArena& arena) : m_b(b), m_arena(arena) {}

    void slice(std::uint64_t pid, std::uint64_t tid, std::int64_t start, std::int64_t end,
               std::string_view name, std::string_view cat, std::string_view args,
               std::uint32_t bad = 0)
    {
        TraceEvent ev = base('X', pid, bad);
        setTid(ev, tid);
        ev.ts = integer(start, m_tsBuf);
        ev.dur = integer(end - start, m_durBuf);
        ev.name = view(name);
        ev.cat = view(cat);
        ev.args = m_arena.add(args);
        m_b.addEvent(ev);
    }
    void counter(std::uint64_t pid, std::string_view name, std::int64_t ts, std::string_view args)
    {
        TraceEvent ev = base('C', pid, 0);
        ev.ts = integer(ts, m_tsBuf);
        ev.name = view(name);
        ev.args = m_arena.add(args);
        m_b.addEvent(ev);
    }
    // A flow step: s binds to the slice enclosing ts, f (bp "e") likewise.
    void flow(char ph, std::uint64_t pid, std::uint64_t tid, std::int64_t ts, std::string_view cat,
              std::string_view name, std::int64_t id)
    {
        TraceEvent ev = base(ph, pid, 0);
        setTid(ev, tid);
        ev.ts = integer(ts, m_tsBuf);
        ev.cat = view(cat);
        ev.name = view(name);
        ev.id = integer(id, m_idBuf);
        if (ph == 'f') ev.bp = view("e");
        m_b.addEvent(ev);
    }
    void processMeta(std::uint64_t pid, std::string_view name, int sort, std::string_view label)
    {
        meta(pid, std::nullopt, "process_name", Args().str("name", name).done());
        meta(pid, std::nullopt, "process_sort_index", Args().num("sort_index", sort).done());
        if (!label.empty())
            meta(pid, std::nullopt, "process_labels", Args().str("labels", label).done());
    }
    void threadMeta(std::uint64_t pid, std::uint64_t tid, std::string_view name,
                    std::optional<std::int64_t> sort)
    {
        meta(pid, tid, "thread_name", Args().str("name", name).done());
        if (sort) meta(pid, tid, "thread_sort_index", Args().num("sort_index", *sort).done());
    }
    // A row that gave no event (a time that is no integer): counted as a bad field.
    void skipped(std::uint32_t bad) { m_b.addBadFields(bad); }

private:
    void meta(std::uint64_t pid, std::optional<std::uint64_t> tid, std::string_view what,
              const std::string& args)
    {
        TraceEvent ev = base('M', pid, 0);
        if (tid) setTid(ev, *tid);
        ev.name = view(what);
        ev.args = m_arena.add(args);
        m_b.addEvent(ev);
    }
    TraceEvent base(char ph, std::uint64_t pid, std::uint32_t bad)
    {
        TraceEvent ev;
        m_ph = ph;
        ev.ph = {&m_ph, 1};
        ev.pid = unsignedValue(pid, m_pidBuf);
        ev.badTypes = bad;
        ev.nsTimes = true;
        return ev;
    }
    void setTid(TraceEvent& ev, std::uint64_t tid) { ev.tid = unsignedValue(tid, m_tidBuf); }
    static TextRef view(std::string_view s)
    {
        return {s.data(), static_cast<std::uint32_t>(s.size())};
    }
    static JsonScalar unsignedValue(std::uint64_t v, char* buf)
    {
        JsonScalar s;
        s.kind = JsonScalar::UInt;
        s.bits = v;
        auto r = std::to_chars(buf, buf + 24, v);
        s.text = {buf, static_cast<std::uint32_t>(r.ptr - buf)};
        return s;
    }
    static JsonScalar integer(std::int64_t v, char* buf)
    {
        JsonScalar s;
        s.kind = v < 0 ? JsonScalar::Int : JsonScalar::UInt;
        s.bits = static_cast<std::uint64_t>(v);
        auto r = std::to_chars(buf, buf + 24, v);
        s.text = {buf, static_cast<std::uint32_t>(r.ptr - buf)};
        return s;
    }

    TraceBuilder& m_b;
    TextArena& m_arena;
    char m_ph = 'X';
    char m_pidBuf[24], m_tidBuf[24], m_tsBuf[24], m_durBuf[24], m_idBuf[24];
};

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// "Input Dims" text: digits, commas, separators and spaces only (torch_npu up to 6.0 wrote the
// dims into the inputDtypes column and the types into inputShapes).
bool looksLikeDims(std::string_view s)
{
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= '0' && c <= '9') || c == ',' || c == ';' || c == '\r' || c == '\n' ||
               c == ' ' || c == '-';
    });
}

// What every pass shares, read first (small tables).
struct Shared {
    std::unordered_map<std::int64_t, std::string> strings;
    std::map<std::int64_t, std::string> apiTypes, dataTypes, linkTypes, transportTypes;
    std::unordered_map<std::int64_t, std::string> callchains; // id -> "frame;\r\nframe..."
    // CONNECTION_IDS: row index -> its values; how many rows name each value.
    std::unordered_map<std::int64_t, std::vector<std::int64_t>> connections;
    std::unordered_map<std::int64_t, int> connectionUses;
    bool swappedInputs = false;
    std::uint64_t hostPid = 0;
    std::int64_t device = 0; // the rank's device (RANK_DEVICE_MAP), for the HCCL process
    // HCCL groups in the order of their first op: the group thread's tid; planes follow it.
    std::map<std::int64_t, std::int64_t> groupTid;
    std::vector<std::pair<std::int64_t, std::vector<std::int64_t>>> groupPlanes; // in order
    // FFTS+ sub-tasks: (device, stream, task id) -> their starts, to hide their parents.
    std::unordered_map<std::uint64_t, std::vector<std::int64_t>> subtasks;
    std::optional<int> rank;

    std::string_view str(std::optional<std::int64_t> id) const
    {
        if (!id) return {};
        auto it = strings.find(*id);
        return it == strings.end() ? std::string_view() : std::string_view(it->second);
    }
    static std::string_view name(const std::map<std::int64_t, std::string>& m,
                                 std::optional<std::int64_t> id)
    {
        if (!id) return {};
        auto it = m.find(*id);
        return it == m.end() ? std::string_view() : std::string_view(it->second);
    }
};

std::uint64_t subtaskKey(std::int64_t device, std::int64_t stream, std::int64_t task)
{
    return (std::uint64_t(device) << 48) ^ (std::uint64_t(stream) << 24) ^ std::uint64_t(task);
}

// One pass over a table into its own partial builder, on its own connection.
struct Pass {
    explicit Pass(std::string t) : table(std::move(t)) {}
    std::string table; // for messages
    TraceBuilder builder{true};
    TextArena arena;
    std::string error;      // a read that stopped (damaged file): what was read is kept
    bool cancelled = false; // the user cancelled
};

class Reader {
public:
    Reader(std::string name, const LoadOptions& options, LoadProgress* progress)
        : m_name(std::move(name)), m_options(options), m_progress(progress)
    {}

    LoadResult run(std::optional<int> rank, const std::function<bool(sqlite::Database&)>& open)
    {
        LoadResult r;
        r.resolvedPath = m_name;
        m_open = open;
        sqlite::Database db;
        if (!m_open(db))
            return failed(notDatabase(db.error()) ? LoadStop::Malformed : LoadStop::Unreadable,
                          db.error());
        if (std::string e = checkSchema(db); !e.empty()) return failed(LoadStop::Malformed, e);
        if (cancelled()) return failed(LoadStop::Cancelled, "loading was cancelled");

        // The budget, up front: rows to read times what a row costs in the model.
        std::uint64_t rows = 0;
        for (const char* t : {"TASK", "PYTORCH_API", "CANN_API", "COMMUNICATION_TASK_INFO",
                              "NPU_MEM", "HBM", "LLC", "AICORE_FREQ"})
            rows += rowEstimate(db, t);
        m_rowsTotal = std::max<std::uint64_t>(rows, 1);
        const std::uint64_t budget =
            m_options.maxMemoryBytes ? m_options.maxMemoryBytes : defaultMemoryBudget();
        const std::uint64_t projected = rows * kBytesPerRow;
        if (projected > budget)
            return failed(LoadStop::OverBudget, "loading would need about " + gib(projected) +
                                                    " (" + std::to_string(rows) +
                                                    " rows), more than the memory budget of " +
                                                    gib(budget) + "; raise it with --max-memory");
        if (m_progress) {
            m_progress->total.store(fileBytes());
            m_progress->done.store(0);
        }

        Shared shared;
        if (std::string e = readShared(db, shared); !e.empty())
            return failed(cancelled() ? LoadStop::Cancelled : LoadStop::Malformed, e);
        m_shared = &shared;

        TraceBuilder main;
        main.setPath(m_name);
        main.setProducer(torchNpuDbProducer());
        // The run folder's profiler_info_N.json, the database's RANK_DEVICE_MAP, the N of
        // ascend_pytorch_profiler_N.db (torch_npu's rank_id): each is what torch_npu declared.
        if (!rank) rank = shared.rank;
        if (!rank) rank = rankInName();
        if (rank)
            main.setRank(*rank);
        else
            main.setFallbackRank(m_options.rankHint);
        TextArena mainArena;
        Emitter meta(main, mainArena);
        writeLayout(db, meta);

        // The big tables at once, each on its own connection into its own partial builder;
        // absorbed in a fixed order so ids are the same whatever ran first.
        Pass python{"PYTORCH_API"}, cann{"CANN_API"}, device{"TASK"}, counters{"NPU_MEM"};
        std::atomic<bool> sawStep{false};
        {
            TaskGroup group;
            group.run(
                [&] { guarded(device, [&](sqlite::Database& d) { readDevice(d, device); }); });
            group.run([&] {
                guarded(python, [&](sqlite::Database& d) { readPython(d, python, sawStep); });
            });
            group.run([&] { guarded(cann, [&](sqlite::Database& d) { readCann(d, cann); }); });
            group.run([&] {
                guarded(counters, [&](sqlite::Database& d) { readCounters(d, counters); });
            });
            group.wait();
        }
        std::string error;
        bool stopped = false;
        for (Pass* p : {&python, &cann, &device, &counters}) {
            stopped |= p->cancelled;
            if (error.empty() && !p->error.empty()) error = p->error;
        }
        if (stopped || cancelled()) return failed(LoadStop::Cancelled, "loading was cancelled");
        for (Pass* p : {&python, &cann, &device, &counters})
            main.absorb(p->builder);
        if (!sawStep) writeSteps(db, meta);

        r.status = LoadStatus::Complete;
        if (!error.empty()) {
            if (main.eventCount() == 0) return failed(LoadStop::Malformed, error);
            r.status = LoadStatus::Partial;
            r.stop = LoadStop::Malformed;
            r.message = error;
            main.addWarning(error + "; the rows before it were loaded");
        }
        if (main.eventCount() == 0) main.addWarning("the database holds no events");
        main.setBytesRead(fileBytes());
        if (m_progress) {
            m_progress->done.store(fileBytes());
            if (m_progress->onAdvance) m_progress->onAdvance();
        }
        r.trace = main.finish();
        r.warnings = r.trace->warnings();
        return r;
    }

private:
    static bool notDatabase(const std::string& e)
    {
        return e.find("not a database") != std::string::npos ||
               e.find("damaged") != std::string::npos;
    }

    LoadResult failed(LoadStop why, std::string message) const
    {
        LoadResult r;
        r.resolvedPath = m_name;
        r.stop = why;
        r.message = std::move(message);
        return r;
    }

    static std::string gib(std::uint64_t b)
    {
        char buf[32];
        if (b < (1ull << 30))
            std::snprintf(buf, sizeof buf, "%.0f MiB", double(b) / double(1 << 20));
        else
            std::snprintf(buf, sizeof buf, "%.2f GiB", double(b) / double(1ull << 30));
        return buf;
    }

    std::optional<int> rankInName() const
    {
        static const QRegularExpression re("ascend_pytorch_profiler_(\\d+)\\.db$");
        const auto m = re.match(QString::fromStdString(m_name));
        if (m.hasMatch()) return m.captured(1).toInt();
        return std::nullopt;
    }

    std::uint64_t fileBytes() const
    {
        const QFileInfo f(QString::fromStdString(m_name));
        return f.exists() ? static_cast<std::uint64_t>(std::max<qint64>(f.size(), 0)) : 0;
    }

    bool cancelled() const
    {
        return m_progress && m_progress->cancel.load(std::memory_order_relaxed);
    }

    // Rows read so far move the progress (a share of the file's bytes).
    void advance(std::uint64_t rows)
    {
        const std::uint64_t done = m_rowsDone.fetch_add(rows) + rows;
        if (!m_progress) return;
        const double share = std::min(1.0, double(done) / double(m_rowsTotal));
        m_progress->done.store(static_cast<std::uint64_t>(share * double(fileBytes()) * 0.95));
        if (m_progress->onAdvance) m_progress->onAdvance();
    }

    static std::uint64_t rowEstimate(sqlite::Database& db, const char* table)
    {
        if (!db.hasTable(table)) return 0;
        // max(rowid) reads one page path; tables are written append-only.
        sqlite::Statement st = db.prepare(std::string("SELECT max(rowid) FROM ") + table, table);
        if (!st.valid() || !st.step()) return 0;
        return static_cast<std::uint64_t>(std::max<std::int64_t>(st.integer(0).value_or(0), 0));
    }

    // Every table read is optional, but a present table must have the columns read of it.
    std::string checkSchema(sqlite::Database& db)
    {
        bool any = false;
        for (const TableColumns& tc : kTables) {
            if (!db.hasTable(tc.table)) continue;
            const std::vector<std::string> have = db.columns(tc.table);
            std::string_view cols = tc.columns;
            while (!cols.empty()) {
                const std::size_t comma = cols.find(',');
                const std::string_view c = cols.substr(0, comma);
                if (std::find(have.begin(), have.end(), c) == have.end())
                    return m_name + ": table " + tc.table + " has no column " + std::string(c) +
                           " (not the torch_npu database schema this version reads)";
                cols =
                    comma == std::string_view::npos ? std::string_view() : cols.substr(comma + 1);
            }
            const std::string_view t = tc.table;
            any |= t == "TASK" || t == "PYTORCH_API" || t == "CANN_API" || t == "COMMUNICATION_OP";
        }
        if (!any)
            return m_name +
                   ": no table TASK, PYTORCH_API, CANN_API or COMMUNICATION_OP (not a torch_npu "
                   "profiler database: ascend_pytorch_profiler_N.db)";
        if (!db.hasTable("STRING_IDS"))
            return m_name + ": table STRING_IDS is missing (every name of the database is in it)";
        m_hasType = db.hasTable("PYTORCH_API") &&
                    std::ranges::count(db.columns("PYTORCH_API"), std::string("type")) > 0;
        return {};
    }

    // Runs a query to its end; false with *error set (naming the table) when it stopped.
    template <typename Row>
    bool query(sqlite::Database& db, std::string_view sql, const char* table, std::string* error,
               Row&& row)
    {
        if (!db.hasTable(table)) return true;
        sqlite::Statement st = db.prepare(sql, table);
        if (!st.valid()) {
            *error = db.error();
            return false;
        }
        std::uint64_t n = 0;
        while (st.step()) {
            row(st);
            if (++n % kRowsPerCheck == 0 && cancelled()) {
                *error = "loading was cancelled";
                return false;
            }
        }
        if (st.failed()) {
            *error = st.error();
            return false;
        }
        return true;
    }

    std::string readShared(sqlite::Database& db, Shared& s)
    {
        std::string error;
        const bool ok =
            query(db, "SELECT id, value FROM STRING_IDS", "STRING_IDS", &error,
                  [&](sqlite::Statement& st) {
                      if (auto id = st.integer(0)) s.strings[*id] = std::string(st.text(1));
                  }) &&
            readEnum(db, "ENUM_API_TYPE", s.apiTypes, &error) &&
            readEnum(db, "ENUM_HCCL_DATA_TYPE", s.dataTypes, &error) &&
            readEnum(db, "ENUM_HCCL_LINK_TYPE", s.linkTypes, &error) &&
            readEnum(db, "ENUM_HCCL_TRANSPORT_TYPE", s.transportTypes, &error) &&
            readCallchains(db, s, &error) &&
            query(db, "SELECT id, connectionId FROM CONNECTION_IDS", "CONNECTION_IDS", &error,
                  [&](sqlite::Statement& st) {
                      auto id = st.integer(0), value = st.integer(1);
                      if (!id || !value) return;
                      s.connections[*id].push_back(*value);
                      ++s.connectionUses[*value];
                  }) &&
            query(db, "SELECT rankId, deviceId FROM RANK_DEVICE_MAP", "RANK_DEVICE_MAP", &error,
                  [&](sqlite::Statement& st) {
                      auto rank = st.integer(0), dev = st.integer(1);
                      if (rank && *rank >= 0 && *rank < (1 << 24) && !s.rank) s.rank = int(*rank);
                      if (dev && *dev >= 0 && *dev < 32) s.device = *dev;
                  }) &&
            readHostPid(db, s, &error) && readGroups(db, s, &error) &&
            query(db,
                  "SELECT deviceId, streamId, taskId, startNs FROM TASK WHERE contextId != "
                  "4294967295",
                  "TASK", &error,
                  [&](sqlite::Statement& st) {
                      auto d = st.integer(0), str = st.integer(1), t = st.integer(2),
                           ts = st.integer(3);
                      if (d && str && t && ts) s.subtasks[subtaskKey(*d, *str, *t)].push_back(*ts);
                  }) &&
            readInputsOrder(db, s, &error);
        return ok ? std::string() : error;
    }

    bool readEnum(sqlite::Database& db, const char* table, std::map<std::int64_t, std::string>& out,
                  std::string* error)
    {
        return query(db, std::string("SELECT id, name FROM ") + table, table, error,
                     [&](sqlite::Statement& st) {
                         if (auto id = st.integer(0)) out[*id] = std::string(st.text(1));
                     });
    }

    bool readCallchains(sqlite::Database& db, Shared& s, std::string* error)
    {
        // torch_npu's CallChainIdManager: frames by stackDepth, innermost first, joined with
        // ";\r\n" as the text export's "Call stack" arg.
        return query(db, "SELECT id, stack FROM PYTORCH_CALLCHAINS ORDER BY id, stackDepth",
                     "PYTORCH_CALLCHAINS", error, [&](sqlite::Statement& st) {
                         auto id = st.integer(0);
                         if (!id) return;
                         std::string& chain = s.callchains[*id];
                         if (!chain.empty()) chain += ";\r\n";
                         chain += s.str(st.integer(1));
                     });
    }

    bool readHostPid(sqlite::Database& db, Shared& s, std::string* error)
    {
        bool found = false;
        auto take = [&](std::optional<std::int64_t> v, bool globalTid) {
            if (found || !v || *v < 0) return;
            s.hostPid = globalTid ? std::uint64_t(*v) >> 32 : std::uint64_t(*v);
            found = true;
        };
        return query(db, "SELECT globalPid FROM TASK LIMIT 1", "TASK", error,
                     [&](sqlite::Statement& st) { take(st.integer(0), false); }) &&
               query(db, "SELECT globalTid FROM PYTORCH_API LIMIT 1", "PYTORCH_API", error,
                     [&](sqlite::Statement& st) { take(st.integer(0), true); }) &&
               query(db, "SELECT globalTid FROM CANN_API LIMIT 1", "CANN_API", error,
                     [&](sqlite::Statement& st) { take(st.integer(0), true); });
    }

    // msprof's HCCL thread layout (hccl_assembler.cpp InitHcclGroup): per group, in the order
    // of its first op, a "Group k Communication" thread and after it one "Plane p" thread per
    // plane (tid = group + p + 1); the next group starts past its last plane.
    bool readGroups(sqlite::Database& db, Shared& s, std::string* error)
    {
        std::vector<std::int64_t> order;
        std::set<std::int64_t> seen;
        std::map<std::int64_t, std::set<std::int64_t>> planes;
        auto addGroup = [&](std::int64_t g) {
            if (seen.insert(g).second) order.push_back(g);
        };
        const bool ok = query(db, "SELECT groupName FROM COMMUNICATION_OP ORDER BY startNs",
                              "COMMUNICATION_OP", error,
                              [&](sqlite::Statement& st) {
                                  if (auto g = st.integer(0)) addGroup(*g);
                              }) &&
                        query(db, "SELECT DISTINCT groupName, planeId FROM COMMUNICATION_TASK_INFO",
                              "COMMUNICATION_TASK_INFO", error, [&](sqlite::Statement& st) {
                                  auto g = st.integer(0), p = st.integer(1);
                                  if (!g) return;
                                  addGroup(*g);
                                  // Level0 stores no plane (4294967295): msprof still makes "Plane
                                  // 0".
                                  const std::int64_t plane =
                                      !p || *p < 0 || *p >= kU32None ? 0 : *p;
                                  if (plane < 4096) planes[*g].insert(plane);
                              });
        std::int64_t next = 0;
        for (std::int64_t g : order) {
            s.groupTid[g] = next;
            std::vector<std::int64_t> ps(planes[g].begin(), planes[g].end());
            next += (ps.empty() ? 0 : ps.back()) + 2;
            s.groupPlanes.emplace_back(g, std::move(ps));
        }
        return ok;
    }

    bool readInputsOrder(sqlite::Database& db, Shared& s, std::string* error)
    {
        int dimsInDtypes = 0, dimsInShapes = 0;
        const bool ok =
            query(db,
                  "SELECT inputDtypes, inputShapes FROM PYTORCH_API WHERE inputDtypes IS NOT NULL "
                  "AND inputShapes IS NOT NULL LIMIT 256",
                  "PYTORCH_API", error, [&](sqlite::Statement& st) {
                      const std::string_view a = s.str(st.integer(0)), b = s.str(st.integer(1));
                      dimsInDtypes += looksLikeDims(a) && !looksLikeDims(b);
                      dimsInShapes += looksLikeDims(b) && !looksLikeDims(a);
                  });
        s.swappedInputs = dimsInDtypes > dimsInShapes;
        return ok;
    }

    // Processes and threads, named and sorted as the text export has them.
    void writeLayout(sqlite::Database& db, Emitter& e)
    {
        const Shared& s = *m_shared;
        const std::uint64_t pid = s.hostPid;
        if (db.hasTable("PYTORCH_API")) e.processMeta(pid, "Python", kSortPython, "CPU");
        if (db.hasTable("CANN_API"))
            e.processMeta(formatPid(pid, kSortCann, 0), "CANN", kSortCann, "CPU");
        if (db.hasTable("TASK"))
            e.processMeta(formatPid(pid, kSortHardware, s.device), "Ascend Hardware", kSortHardware,
                          "NPU");
        if (!s.groupPlanes.empty()) {
            const std::uint64_t hccl = formatPid(pid, kSortHccl, s.device);
            e.processMeta(hccl, "HCCL", kSortHccl, "NPU");
            for (std::size_t k = 0; k < s.groupPlanes.size(); ++k) {
                const std::int64_t start = s.groupTid.at(s.groupPlanes[k].first);
                e.threadMeta(hccl, std::uint64_t(start),
                             "Group " + std::to_string(k) + " Communication", start);
                for (std::int64_t p : s.groupPlanes[k].second)
                    e.threadMeta(hccl, std::uint64_t(start + p + 1), "Plane " + std::to_string(p),
                                 start + p + 1);
            }
        }
        if (db.hasTable("TASK")) {
            const std::uint64_t overlap = formatPid(pid, kSortOverlap, s.device);
            e.processMeta(overlap, "Overlap Analysis", kSortOverlap, "NPU");
            const char* lanes[] = {"Computing", "Communication", "Communication(Not Overlapped)",
                                   "Free"};
            for (int i = 0; i < 4; ++i)
                e.threadMeta(overlap, std::uint64_t(i), lanes[i], i);
        }
    }

    // Runs a pass on its own connection; a failure keeps what the pass read.
    void guarded(Pass& pass, const std::function<void(sqlite::Database&)>& body)
    {
        sqlite::Database db;
        if (!m_open(db)) {
            pass.error = db.error();
            return;
        }
        try {
            body(db);
        } catch (const std::bad_alloc&) {
            pass.error = m_name + ": table " + pass.table + ": out of memory";
        }
        if (pass.error == "loading was cancelled") {
            pass.cancelled = true;
            pass.error.clear();
        }
    }

    void readPython(sqlite::Database& db, Pass& pass, std::atomic<bool>& sawStep)
    {
        const Shared& s = *m_shared;
        Emitter e(pass.builder, pass.arena);
        Args a;
        std::set<std::uint64_t> threads, processes{s.hostPid};
        const std::string sql =
            std::string("SELECT startNs, endNs, globalTid, connectionId, name, "
                        "sequenceNumber, fwdThreadId, inputDtypes, inputShapes, "
                        "callchainId, ") +
            (m_hasType ? "type" : "NULL") + " FROM PYTORCH_API";
        std::uint64_t rows = 0;
        query(db, sql, "PYTORCH_API", &pass.error, [&](sqlite::Statement& st) {
            if (++rows % kRowsPerCheck == 0) advance(kRowsPerCheck);
            // torch_npu stores these two times as TEXT: read exactly as integers.
            const auto start = st.integer(0), end = st.integer(1), gtid = st.integer(2);
            if (!start || !end || !gtid) {
                e.skipped(1);
                return;
            }
            const std::uint64_t pid = std::uint64_t(*gtid) >> 32,
                                tid = std::uint64_t(*gtid) & kU32None;
            if (processes.insert(pid).second) e.processMeta(pid, "Python", kSortPython, "CPU");
            if (threads.insert(*gtid).second)
                e.threadMeta(pid, tid, "Thread " + std::to_string(tid), std::int64_t(tid));
            const std::string_view name = s.str(st.integer(4));
            const auto seq = st.integer(5);
            std::int64_t type = st.integer(10).value_or(0);
            if (!m_hasType) // before the type column (2024-08): told apart as torch_npu did
                type = seq                                                            ? 50001
                       : (name.starts_with("Enqueue") || name.starts_with("Dequeue")) ? 50002
                                                                                      : 50003;
            std::string_view cat = "cpu_op";
            a.clear();
            if (type == 50002) {
                cat = name.starts_with("Dequeue") ? "dequeue" : "enqueue";
            } else if (type == 50003) {
                cat = "python_function";
            } else {
                a.num("Sequence number", seq.value_or(-1));
                a.num("Fwd thread id", st.integer(6).value_or(0));
                std::string_view dims = s.str(st.integer(7)), types = s.str(st.integer(8));
                if (s.swappedInputs) std::swap(dims, types);
                if (!st.isNull(7) || !st.isNull(8))
                    a.str("Input Dims", dims).str("Input type", types);
                if (auto cc = st.integer(9)) {
                    auto it = s.callchains.find(*cc);
                    if (it != s.callchains.end()) a.str("Call stack", it->second);
                }
            }
            if (name.starts_with("ProfilerStep#")) sawStep = true;
            const std::string& args = a.done();
            e.slice(pid, tid, *start, *end, name, cat,
                    args.size() > 2 ? std::string_view(args) : std::string_view());
            // Flows by CONNECTION_IDS: a value two rows share joins an enqueue to its dequeue or
            // a forward op to its backward; a value on one op is its launch (torch_to_npu).
            const auto conn = st.integer(3);
            if (!conn) return;
            auto it = s.connections.find(*conn);
            if (it == s.connections.end()) return;
            for (std::int64_t v : it->second) {
                const int uses = s.connectionUses.at(v);
                if (type == 50002)
                    e.flow(cat == "enqueue" ? 's' : 'f', pid, tid, *start, "async_task_queue",
                           "enqueue_to_dequeue", v);
                else if (uses >= 2)
                    e.flow(st.integer(6).value_or(0) == 0 ? 's' : 'f', pid, tid, *start, "fwdbwd",
                           "fwdbwd", v);
                else
                    e.flow('s', pid, tid, *start, "async_npu", "torch_to_npu", v);
            }
        });
        advance(rows % kRowsPerCheck);
    }

    void readCann(sqlite::Database& db, Pass& pass)
    {
        const Shared& s = *m_shared;
        Emitter e(pass.builder, pass.arena);
        Args a;
        std::set<std::int64_t> threads;
        std::set<std::uint64_t> processes{formatPid(s.hostPid, kSortCann, 0)};
        std::unordered_map<std::int64_t, std::string> prefix; // api type -> "AscendCL@"
        std::string name;
        std::uint64_t rows = 0;
        query(db, "SELECT startNs, endNs, type, globalTid, connectionId, name FROM CANN_API",
              "CANN_API", &pass.error, [&](sqlite::Statement& st) {
                  if (++rows % kRowsPerCheck == 0) advance(kRowsPerCheck);
                  const auto start = st.integer(0), end = st.integer(1), gtid = st.integer(3);
                  if (!start || !end || !gtid) {
                      e.skipped(1);
                      return;
                  }
                  const std::uint64_t pid = formatPid(std::uint64_t(*gtid) >> 32, kSortCann, 0);
                  const std::uint64_t tid = std::uint64_t(*gtid) & kU32None;
                  if (processes.insert(pid).second) e.processMeta(pid, "CANN", kSortCann, "CPU");
                  if (threads.insert(*gtid).second)
                      e.threadMeta(pid, tid, "Thread " + std::to_string(tid), std::int64_t(tid));
                  const std::int64_t type = st.integer(2).value_or(-1);
                  auto pit = prefix.find(type);
                  if (pit == prefix.end()) {
                      // msprof's LEVEL_MAP, else the level capitalised (hccl -> Hccl).
                      std::string level(Shared::name(s.apiTypes, type));
                      static const std::map<std::string, std::string> kLevels = {
                          {"acl", "AscendCL"},
                          {"runtime", "Runtime"},
                          {"model", "Model"},
                          {"node", "Node"}};
                      auto k = kLevels.find(level);
                      std::string p = k != kLevels.end() ? k->second : level;
                      if (k == kLevels.end() && !p.empty())
                          p[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(p[0])));
                      pit = prefix.emplace(type, p.empty() ? std::string() : p + "@").first;
                  }
                  name = pit->second;
                  name += s.str(st.integer(5));
                  a.clear();
                  a.num("Thread Id", std::int64_t(tid));
                  a.str("level", Shared::name(s.apiTypes, type));
                  if (auto c = st.integer(4)) a.num("connection_id", *c);
                  e.slice(pid, tid, *start, *end, name, "", a.done());
              });
        advance(rows % kRowsPerCheck);
    }

    // TASK with its compute and communication info, the HCCL ops, their flows from the CANN
    // launches, and the Overlap Analysis lanes.
    void readDevice(sqlite::Database& db, Pass& pass)
    {
        if (!db.hasTable("TASK")) return readOps(db, pass, {});
        const Shared& s = *m_shared;
        Emitter e(pass.builder, pass.arena);
        Args a;
        std::set<std::pair<std::int64_t, std::int64_t>> streams;
        std::unordered_set<std::int64_t> hostFlow, npuFlow;     // connection ids given their flow
        std::unordered_map<std::int64_t, std::int64_t> modelOf; // connection id -> model id
        Lanes lanes;
        const bool hasCompute = db.hasTable("COMPUTE_TASK_INFO");
        const bool hasComm = db.hasTable("COMMUNICATION_TASK_INFO");
        const bool hasCann = db.hasTable("CANN_API");
        std::string sql =
            "SELECT t.startNs, t.endNs, t.deviceId, t.connectionId, t.taskType, t.contextId, "
            "t.streamId, t.taskId, t.modelId, ";
        sql += hasCompute ? "c.name, c.taskType, " : "NULL, NULL, ";
        sql += hasComm ? "m.taskType, m.planeId, m.groupName, m.notifyId, m.srcRank, m.dstRank, "
                         "m.transportType, m.size, m.dataType, m.linkType, "
                       : "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ";
        sql += hasCann ? "h.globalTid, h.startNs " : "NULL, NULL ";
        sql += "FROM TASK t ";
        if (hasCompute) sql += "LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId ";
        if (hasComm)
            sql += "LEFT JOIN COMMUNICATION_TASK_INFO m ON m.globalTaskId = t.globalTaskId ";
        if (hasCann) sql += "LEFT JOIN CANN_API h ON h.connectionId = t.connectionId ";
        sql += "ORDER BY t.startNs";
        const std::uint64_t hccl = formatPid(s.hostPid, kSortHccl, s.device);
        std::string name;
        std::uint64_t rows = 0;
        query(db, sql, "TASK", &pass.error, [&](sqlite::Statement& st) {
            if (++rows % kRowsPerCheck == 0) advance(kRowsPerCheck);
            const auto start = st.integer(0), end = st.integer(1);
            if (!start || !end) {
                e.skipped(1);
                return;
            }
            const std::int64_t dev = st.integer(2).value_or(s.device);
            const std::int64_t context = st.integer(5).value_or(kU32None);
            const std::int64_t stream = st.integer(6).value_or(0), task = st.integer(7).value_or(0);
            const auto conn = st.integer(3);
            const std::int64_t model = st.integer(8).value_or(kU32None);
            // An FFTS+ parent task is hidden behind its sub-tasks, as msprof shows it
            // (ascend_hardware_assembler.cpp); the HCCL op's parent gives the op its model id.
            if (context == kU32None) {
                auto it = s.subtasks.find(subtaskKey(dev, stream, task));
                if (it != s.subtasks.end() &&
                    std::any_of(it->second.begin(), it->second.end(),
                                [&](std::int64_t t) { return t >= *start && t <= *end; })) {
                    if (conn) modelOf.emplace(*conn, model);
                    return;
                }
            }
            const std::uint64_t pid = formatPid(s.hostPid, kSortHardware, dev);
            if (streams.insert({dev, stream}).second) {
                if (dev != s.device)
                    e.processMeta(pid, "Ascend Hardware", kSortHardware,
                                  "NPU " + std::to_string(dev));
                e.threadMeta(pid, std::uint64_t(stream), "Stream " + std::to_string(stream),
                             stream);
            }
            const std::string_view hostType = s.str(st.integer(4));
            const bool compute = !st.isNull(9);
            name.assign(compute ? s.str(st.integer(9)) : hostType);
            std::string_view taskType = compute ? s.str(st.integer(10)) : std::string_view();
            if (taskType.empty() || taskType == "N/A") taskType = hostType;
            a.clear();
            a.num("Model Id", model).str("Task Type", taskType).num("Physic Stream Id", stream);
            a.num("Task Id", task).num("Subtask Id", context);
            if (conn) a.num("connection_id", *conn);
            e.slice(pid, std::uint64_t(stream), *start, *end, name, "", a.done());
            lanes.task(dev, *start, *end, compute, hostType);

            // The launch's flow (msprof's HostToDevice: compute tasks, copies, events) and the
            // torch op's (torch_to_npu: its first task).
            if (conn && !st.isNull(21) &&
                (compute || hostType == "MEMCPY_ASYNC" || hostType == "EVENT_RECORD" ||
                 hostType == "EVENT_WAIT")) {
                hostLaunchFlow(e, *conn, st.integer(21).value_or(0), st.integer(22).value_or(0),
                               hostFlow);
                e.flow('f', pid, std::uint64_t(stream), *start, "HostToDevice", "HostToDevice",
                       *conn);
            }
            // (An HCCL task shares its op's id: the op takes that flow, in readOps.)
            if (conn && st.isNull(11) && s.connectionUses.count(*conn) &&
                npuFlow.insert(*conn).second)
                e.flow('f', pid, std::uint64_t(stream), *start, "async_npu", "torch_to_npu", *conn);

            // An HCCL task is also shown on its plane of its group's thread block.
            if (st.isNull(11)) return;
            const auto plane = st.integer(12), group = st.integer(13);
            if (!plane || *plane < 0 || *plane >= kU32None || !group) return;
            auto g = s.groupTid.find(*group);
            if (g == s.groupTid.end()) return;
            const std::string_view hcclType = s.str(st.integer(11));
            a.clear();
            // notify_id as the text writes it: a string, none as 2^64-1 (1.0.0 stores
            // INT64_MAX, 1.2.0 -1).
            const std::int64_t notify = st.integer(14).value_or(-1);
            a.str("notify_id", notify < 0 || notify == INT64_MAX
                                   ? std::string("18446744073709551615")
                                   : std::to_string(notify));
            a.num("stream id", stream).num("task id", task).num("context id", context);
            a.str("task type", hcclType);
            a.num("src rank", st.integer(15).value_or(kU32None));
            a.num("dst rank", st.integer(16).value_or(kU32None));
            a.str("transport type", Shared::name(s.transportTypes, st.integer(17)));
            const std::int64_t size = st.integer(18).value_or(0);
            a.num("size(Byte)", size);
            a.str("data type", Shared::name(s.dataTypes, st.integer(19)));
            a.str("link type", Shared::name(s.linkTypes, st.integer(20)));
            // bytes / ns = GB/s (10^9), msprof's hccl_calculator.
            const std::int64_t dur = *end - *start;
            a.real("bandwidth(GB/s)", dur > 0 && size > 0 ? double(size) / double(dur) : 0.0);
            a.num("model id", model);
            e.slice(hccl, std::uint64_t(g->second + *plane + 1), *start, *end, hcclType, "",
                    a.done());
        });
        advance(rows % kRowsPerCheck);
        if (pass.error.empty()) readOps(db, pass, modelOf, &hostFlow, &npuFlow, &lanes);
        if (pass.error.empty()) lanes.write(e, s.hostPid, s.device);
    }

    // Streamed unions of the Overlap Analysis lanes (msprof pipeline_overlap_viewer.py):
    // computing = tasks with compute info, communication = HCCL ops; not overlapped =
    // communication - computing; free = the gaps between busy sections.
    struct Lanes {
        struct Union {
            std::vector<std::pair<std::int64_t, std::int64_t>> merged;
            void add(std::int64_t a, std::int64_t b)
            {
                if (b <= a) return;
                if (!merged.empty() && a <= merged.back().second)
                    merged.back().second = std::max(merged.back().second, b);
                else
                    merged.emplace_back(a, b);
            }
        };
        std::map<std::int64_t, Union> compute, comm; // per device; input sorted by start
        void task(std::int64_t dev, std::int64_t a, std::int64_t b, bool isCompute,
                  std::string_view)
        {
            if (isCompute) compute[dev].add(a, b);
        }
        void op(std::int64_t dev, std::int64_t a, std::int64_t b) { comm[dev].add(a, b); }
        void write(Emitter& e, std::uint64_t hostPid, std::int64_t mainDevice)
        {
            std::set<std::int64_t> devices;
            for (auto& [d, u] : compute)
                devices.insert(d);
            for (auto& [d, u] : comm)
                devices.insert(d);
            for (std::int64_t d : devices) {
                const std::uint64_t pid = formatPid(hostPid, kSortOverlap, d);
                if (d != mainDevice) {
                    e.processMeta(pid, "Overlap Analysis", kSortOverlap,
                                  "NPU " + std::to_string(d));
                    const char* names[] = {"Computing", "Communication",
                                           "Communication(Not Overlapped)", "Free"};
                    for (int i = 0; i < 4; ++i)
                        e.threadMeta(pid, std::uint64_t(i), names[i], i);
                }
                const auto& cu = compute[d].merged;
                const auto& mu = comm[d].merged;
                for (const auto& [a, b] : cu)
                    e.slice(pid, 0, a, b, "Computing", "", {});
                for (const auto& [a, b] : mu)
                    e.slice(pid, 1, a, b, "Communication", "", {});
                // comm minus compute, both sorted and disjoint.
                std::size_t k = 0;
                for (auto [a, b] : mu) {
                    while (k < cu.size() && cu[k].second <= a)
                        ++k;
                    std::int64_t at = a;
                    for (std::size_t j = k; j < cu.size() && cu[j].first < b; ++j) {
                        if (cu[j].first > at)
                            e.slice(pid, 2, at, cu[j].first, "Communication(Not Overlapped)", "",
                                    {});
                        at = std::max(at, cu[j].second);
                    }
                    if (at < b) e.slice(pid, 2, at, b, "Communication(Not Overlapped)", "", {});
                }
                Union busy;
                std::vector<std::pair<std::int64_t, std::int64_t>> all = cu;
                all.insert(all.end(), mu.begin(), mu.end());
                std::sort(all.begin(), all.end());
                for (auto [a, b] : all)
                    busy.add(a, b);
                for (std::size_t i = 1; i < busy.merged.size(); ++i)
                    e.slice(pid, 3, busy.merged[i - 1].second, busy.merged[i].first, "Free", "",
                            {});
            }
        }
    };

    // The CANN call that launched a connection id: the start of its HostToDevice flow (once).
    void hostLaunchFlow(Emitter& e, std::int64_t conn, std::int64_t gtid, std::int64_t ts,
                        std::unordered_set<std::int64_t>& given)
    {
        if (!given.insert(conn).second) return;
        const std::uint64_t pid = formatPid(std::uint64_t(gtid) >> 32, kSortCann, 0);
        e.flow('s', pid, std::uint64_t(gtid) & kU32None, ts, "HostToDevice", "HostToDevice", conn);
    }

    void readOps(sqlite::Database& db, Pass& pass,
                 const std::unordered_map<std::int64_t, std::int64_t>& modelOf,
                 std::unordered_set<std::int64_t>* hostFlow = nullptr,
                 std::unordered_set<std::int64_t>* npuFlow = nullptr, Lanes* lanes = nullptr)
    {
        const Shared& s = *m_shared;
        Emitter e(pass.builder, pass.arena);
        Args a;
        std::unordered_set<std::int64_t> ownHost, ownNpu;
        if (!hostFlow) hostFlow = &ownHost;
        if (!npuFlow) npuFlow = &ownNpu;
        const bool hasCann = db.hasTable("CANN_API");
        std::string sql = "SELECT o.opName, o.startNs, o.endNs, o.connectionId, o.groupName, "
                          "o.dataType, o.algType, o.count, ";
        sql += hasCann ? "h.globalTid, h.startNs FROM COMMUNICATION_OP o LEFT JOIN CANN_API h ON "
                         "h.connectionId = o.connectionId "
                       : "NULL, NULL FROM COMMUNICATION_OP o ";
        sql += "ORDER BY o.startNs";
        const std::uint64_t hccl = formatPid(s.hostPid, kSortHccl, s.device);
        query(db, sql, "COMMUNICATION_OP", &pass.error, [&](sqlite::Statement& st) {
            const auto start = st.integer(1), end = st.integer(2), group = st.integer(4);
            if (!start || !end || !group || !s.groupTid.count(*group)) {
                e.skipped(1);
                return;
            }
            const std::uint64_t tid = std::uint64_t(s.groupTid.at(*group));
            const auto conn = st.integer(3);
            a.clear();
            if (conn) a.num("connection_id", *conn);
            if (conn && modelOf.count(*conn)) a.num("model id", modelOf.at(*conn));
            a.str("data_type", Shared::name(s.dataTypes, st.integer(5)));
            a.str("alg_type", s.str(st.integer(6)));
            // NUMERIC: an integer, or a real holding one.
            if (auto c = st.integer(7))
                a.num("count", *c);
            else if (auto r = st.real(7); r && *r >= 0 && *r < 9.2e18)
                a.num("count", std::int64_t(std::llround(*r)));
            e.slice(hccl, tid, *start, *end, s.str(st.integer(0)), "", a.done());
            if (lanes) lanes->op(s.device, *start, *end);
            if (conn && !st.isNull(8)) {
                hostLaunchFlow(e, *conn, st.integer(8).value_or(0), st.integer(9).value_or(0),
                               *hostFlow);
                e.flow('f', hccl, tid, *start, "HostToDevice", "HostToDevice", *conn);
            }
            if (conn && s.connectionUses.count(*conn) && npuFlow->insert(*conn).second)
                e.flow('f', hccl, tid, *start, "async_npu", "torch_to_npu", *conn);
        });
    }

    // msprof's counters: NPU MEM (KB), HBM bandwidth (MB/s), AI Core Freq (MHz), LLC.
    void readCounters(sqlite::Database& db, Pass& pass)
    {
        const Shared& s = *m_shared;
        Emitter e(pass.builder, pass.arena);
        Args a;
        const std::uint64_t host = s.hostPid;
        std::set<std::pair<int, std::int64_t>> named; // (sort, device) with a process_name
        auto process = [&](int sort, const char* name, std::int64_t dev) {
            const std::uint64_t pid = formatPid(host, sort, dev);
            if (named.insert({sort, dev}).second) e.processMeta(pid, name, sort, "NPU");
            return pid;
        };
        constexpr double kMiB = 1024.0 * 1024.0;
        std::uint64_t rows = 0;
        auto tick = [&] {
            if (++rows % kRowsPerCheck == 0) advance(kRowsPerCheck);
        };
        query(db, "SELECT type, ddr, hbm, timestampNs, deviceId FROM NPU_MEM", "NPU_MEM",
              &pass.error, [&](sqlite::Statement& st) {
                  tick();
                  const auto ts = st.integer(3);
                  if (!ts) return e.skipped(1);
                  const std::uint64_t pid =
                      process(kSortNpuMem, "NPU MEM", st.integer(4).value_or(0));
                  std::string kind = lower(s.str(st.integer(0)));
                  kind = kind == "device" ? "Device" : "APP";
                  const double ddr = st.real(1).value_or(0) / 1024,
                               hbm = st.real(2).value_or(0) / 1024;
                  a.clear();
                  e.counter(pid, kind + "/DDR", *ts, a.real("KB", ddr).done());
                  a.clear();
                  e.counter(pid, kind + "/HBM", *ts, a.real("KB", hbm).done());
                  a.clear();
                  e.counter(pid, kind + "/Memory", *ts, a.real("KB", ddr + hbm).done());
              });
        if (!pass.error.empty()) return;
        query(db, "SELECT deviceId, timestampNs, bandwidth, hbmId, type FROM HBM", "HBM",
              &pass.error, [&](sqlite::Statement& st) {
                  tick();
                  const auto ts = st.integer(1);
                  if (!ts) return e.skipped(1);
                  const std::uint64_t pid = process(kSortHbm, "HBM", st.integer(0).value_or(0));
                  const bool write = lower(s.str(st.integer(4))) == "write";
                  a.clear();
                  a.real(write ? "Write(MB/s)" : "Read(MB/s)", st.real(2).value_or(0) / kMiB);
                  e.counter(pid,
                            "HBM " + std::to_string(st.integer(3).value_or(0)) +
                                (write ? "/Write" : "/Read"),
                            *ts, a.done());
              });
        if (!pass.error.empty()) return;
        query(db, "SELECT deviceId, timestampNs, freq FROM AICORE_FREQ", "AICORE_FREQ", &pass.error,
              [&](sqlite::Statement& st) {
                  tick();
                  const auto ts = st.integer(1);
                  if (!ts) return e.skipped(1);
                  const std::uint64_t pid =
                      process(kSortFreq, "AI Core Freq", st.integer(0).value_or(0));
                  a.clear();
                  e.counter(pid, "AI Core Freq", *ts, a.real("MHz", st.real(2).value_or(0)).done());
              });
        if (!pass.error.empty()) return;
        query(db, "SELECT deviceId, llcId, timestampNs, hitRate, throughput, mode FROM LLC", "LLC",
              &pass.error, [&](sqlite::Statement& st) {
                  tick();
                  const auto ts = st.integer(2);
                  if (!ts) return e.skipped(1);
                  const std::uint64_t pid = process(kSortLlc, "LLC", st.integer(0).value_or(0));
                  const std::string base =
                      "LLC " + std::to_string(st.integer(1).value_or(0)) +
                      (lower(s.str(st.integer(5))) == "write" ? " Write" : " Read");
                  a.clear();
                  e.counter(pid, base + "/Hit Rate", *ts,
                            a.real("Hit Rate(%)", st.real(3).value_or(0) / 100).done());
                  a.clear();
                  e.counter(pid, base + "/Throughput", *ts,
                            a.real("Throughput(MB/s)", st.real(4).value_or(0) / kMiB).done());
              });
        advance(rows % kRowsPerCheck);
    }

    // STEP_TIME's steps when PYTORCH_API has no ProfilerStep#N slice (no CPU activity).
    void writeSteps(sqlite::Database& db, Emitter& e)
    {
        std::string error;
        bool first = true;
        query(db, "SELECT id, startNs, endNs FROM STEP_TIME", "STEP_TIME", &error,
              [&](sqlite::Statement& st) {
                  const auto id = st.integer(0), start = st.integer(1), end = st.integer(2);
                  if (!id || !start || !end) return;
                  if (first) e.threadMeta(m_shared->hostPid, 0, "Steps", 0);
                  first = false;
                  e.slice(m_shared->hostPid, 0, *start, *end, "ProfilerStep#" + std::to_string(*id),
                          "cpu_op", {});
              });
    }

    std::string m_name;
    const LoadOptions& m_options;
    LoadProgress* m_progress;
    std::function<bool(sqlite::Database&)> m_open;
    const Shared* m_shared = nullptr;
    bool m_hasType = true;
    std::uint64_t m_rowsTotal = 1;
    std::atomic<std::uint64_t> m_rowsDone{0};
};

} // namespace

LoadResult readDatabase(const std::string& file, std::optional<int> rank,
                        const LoadOptions& options, LoadProgress* progress)
{
    Reader reader(file, options, progress);
    const std::atomic<bool>* cancel = progress ? &progress->cancel : nullptr;
    return reader.run(rank, [&](sqlite::Database& db) { return db.open(file, cancel); });
}

LoadResult readDatabaseBytes(const void* data, std::size_t size, const std::string& name,
                             const LoadOptions& options)
{
    Reader reader(name, options, nullptr);
    return reader.run(std::nullopt,
                      [&](sqlite::Database& db) { return db.openBytes(name, data, size); });
}

} // namespace torchnpudb
} // namespace rs
