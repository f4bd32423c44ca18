#include "core/producers/torchnpudb/dbreader.h"
#include "core/producers/torchnpudb/dbevents.h"

#include "core/producers/producer.h"
#include "core/sqlite/rawtable.h"
#include "core/sqlite/sqlitedb.h"
#include "core/tracebuilder.h"
#include "core/traceevent.h"
#include "core/workpool.h"

#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
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
// Args text per slice to reserve up front: the generated 10M-row run averages 68 bytes (a
// task's about 120, a CANN call's 60), with room for longer call stacks.
constexpr std::size_t kArgsBytesPerSlice = 96;

// Tables come in their writer's order, mostly the order wanted: a check costs one pass where a
// sort of sorted millions costs n log n.
template <typename V> void sortIfNeeded(V& v)
{
    if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
}

std::uint64_t subtaskKey(std::int64_t device, std::int64_t stream, std::int64_t task)
{
    return (std::uint64_t(device) << 48) ^ (std::uint64_t(stream) << 24) ^ std::uint64_t(task);
}

// A row range of a big table, read on its own connection into its own partial model; pieces
// are absorbed in one fixed order, so ids are the same whatever ran first.
struct Piece {
    enum class Kind : std::uint8_t { Python, Cann, Task, Counters } kind = Kind::Task;
    const char* table = "";
    std::int64_t lo = 0, hi = 0; // rowid range, inclusive
};

// What a piece produced; recycled from piece to piece (the builder keeps its capacity).
struct PieceOut {
    TraceBuilder builder{true};
    TextArena arena;
    std::string error;      // a read that stopped (damaged file): what was read is kept
    bool cancelled = false; // the user cancelled
    bool sawStep = false;
    std::uint64_t rows = 0;
    // Compute tasks per device (the Overlap Analysis lanes) and the model ids of hidden FFTS+
    // parents by connection id (an HCCL op's "model id").
    std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> compute;
    std::vector<std::pair<std::int64_t, std::int64_t>> hidden;

    void reset()
    {
        builder.recycle();
        arena.clear();
        error.clear();
        cancelled = sawStep = false;
        rows = 0;
    }
};

// A row read by the raw reader, seen as a query's row: column i of the select is column
// cols[i].col of a cursor (a join's side reads as NULLs where it found no row).
struct RawRow {
    struct Col {
        const sqlite::TableCursor* cursor = nullptr;
        int col = -1;
        const bool* found = nullptr; // a joined table's row, when there is one
    };
    std::vector<Col> cols;

    // Inlined: a call returning an optional through memory stalled on its store (GCC 12).
    [[gnu::always_inline]] const Col* at(int i) const
    {
        const Col& c = cols[std::size_t(i)];
        return c.cursor && (!c.found || *c.found) ? &c : nullptr;
    }
    bool isNull(int i) const
    {
        const Col* c = at(i);
        return !c || c->cursor->isNull(c->col);
    }
    [[gnu::always_inline]] std::optional<std::int64_t> integer(int i) const
    {
        const Col* c = at(i);
        return c ? c->cursor->integer(c->col) : std::nullopt;
    }
    std::optional<double> real(int i) const
    {
        const Col* c = at(i);
        return c ? c->cursor->real(c->col) : std::nullopt;
    }
    std::string_view text(int i) const
    {
        const Col* c = at(i);
        return c ? c->cursor->text(c->col) : std::string_view();
    }
};

constexpr std::int64_t kPieceRows = 1 << 16;
constexpr std::uint64_t kMaxPieces = 4096;

class Reader {
public:
    Reader(std::string name, const LoadOptions& options, LoadProgress* progress)
        : m_name(std::move(name)), m_options(options), m_progress(progress)
    {}

    using OpenPages = std::function<std::shared_ptr<const sqlite::PageFile>(std::string*)>;

    LoadResult run(std::optional<int> rank, const std::function<bool(sqlite::Database&)>& open,
                   const OpenPages& openPages)
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
        if (!m_options.databaseViaSql) openRaw(db, openPages);

        // The budget, up front: rows to read times what a row costs in the model.
        const std::uint64_t budget =
            m_options.maxMemoryBytes ? m_options.maxMemoryBytes : defaultMemoryBudget();
        auto countRows = [&](bool exact) {
            std::uint64_t n = 0;
            for (const char* t : {"TASK", "PYTORCH_API", "CANN_API", "COMMUNICATION_TASK_INFO",
                                  "NPU_MEM", "HBM", "LLC", "AICORE_FREQ"})
                n = std::min<std::uint64_t>(n + rowEstimate(db, t, exact), UINT64_MAX / 1024);
            return n;
        };
        std::uint64_t rows = countRows(false);
        // Rowid spans overstate a table with gaps: count before refusing.
        if (rows * kBytesPerRow > budget) rows = countRows(true);
        m_rowsTotal = std::max<std::uint64_t>(rows, 1);
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
        if (std::string e = readNames(db, shared); !e.empty())
            return failed(cancelled() ? LoadStop::Cancelled : LoadStop::Malformed, e);
        m_shared = &shared;
        LinkRead links; // destroyed (its tasks waited for) before shared
        startLinks(db, shared, links);

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
        // The big arrays sized from the tables' row counts before the first piece, so that
        // neither they nor the args text are copied as they grow (a fresh page costs a fault;
        // the projection after the first wave below only adds to this): a slice per row, the
        // HCCL tasks twice (their plane), up to two lanes per compute task; room beyond what
        // is used is address space, not memory.
        {
            // (Spans capped: a sparse or damaged table's may be 2^63; the budget then refuses.)
            auto rows = [&](const char* t) {
                return std::size_t(std::min<std::uint64_t>(rowEstimate(db, t), 1ull << 40));
            };
            const std::size_t slices = rows("PYTORCH_API") + rows("CANN_API") + rows("TASK") +
                                       rows("COMMUNICATION_TASK_INFO") +
                                       rows("COMPUTE_TASK_INFO") * 2 + 4096;
            main.reserveFor({slices, slices * kArgsBytesPerSlice, slices,
                             rows("CONNECTION_IDS") + rows("TASK") * 2},
                            budget);
        }
        TextArena mainArena;
        Emitter meta(main, mainArena);
        writeLayout(db, meta);

        // The big tables in row ranges, read at once on the pool's threads in waves, each
        // piece into its own partial model, absorbed in order: what one builder would build.
        // First the pieces that need no links (the counters, CANN), read while the links are;
        // then the torch ops' and the tasks' pieces interleaved by their share of each table, so
        // their first wave is like the rest and projects the model's size (reserveAhead below).
        std::vector<Piece> pieces{{Piece::Kind::Counters, "NPU_MEM", 0, 0}};
        std::vector<std::pair<double, Piece>> order;
        std::uint64_t linkedRows = 0; // rows of the pieces that need the links
        for (auto [kind, table] : {std::pair{Piece::Kind::Cann, "CANN_API"},
                                   std::pair{Piece::Kind::Python, "PYTORCH_API"},
                                   std::pair{Piece::Kind::Task, "TASK"}}) {
            const auto [lo, hi] = rowidRange(db, table);
            if (lo > hi) continue;
            // Rowids are dense in a profiler's tables; sparse ones still give at most
            // kMaxPieces ranges (computed unsigned: the ends may be int64's).
            const std::uint64_t span = std::uint64_t(hi) - std::uint64_t(lo);
            const std::uint64_t count = std::min<std::uint64_t>(span / kPieceRows + 1, kMaxPieces);
            const std::uint64_t step = span / count + 1;
            if (kind != Piece::Kind::Cann)
                linkedRows += std::min<std::uint64_t>(span, UINT64_MAX - 1) + 1;
            for (std::uint64_t k = 0; k < count; ++k) {
                const std::uint64_t a = std::uint64_t(lo) + k * step;
                const std::uint64_t b = k + 1 == count ? std::uint64_t(hi) : a + step - 1;
                const Piece piece{kind, table, std::int64_t(a), std::int64_t(b)};
                if (kind == Piece::Kind::Cann)
                    pieces.push_back(piece);
                else
                    order.push_back({double(k) / double(count), piece});
            }
        }
        std::stable_sort(order.begin(), order.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        const std::size_t firstLinked = pieces.size();
        for (auto& [share, piece] : order)
            pieces.push_back(piece);
        WorkPool& pool = WorkPool::global();
        const std::size_t wave = std::size_t(std::max(2, pool.threadCount())) * 2;
        // Two waves: the next is read while this thread absorbs the one before (as the text
        // loader does); their groups wait for their tasks on every return.
        struct Wave {
            std::vector<std::unique_ptr<PieceOut>> outs;
            std::unique_ptr<TaskGroup> group;
            std::size_t first = 0, n = 0;
        };
        Wave waves[2];
        for (Wave& w : waves)
            for (std::size_t i = 0; i < wave; ++i)
                w.outs.push_back(std::make_unique<PieceOut>());
        std::string error;
        auto start = [&](Wave& w, std::size_t first) {
            w.first = first;
            w.n = std::min(wave, pieces.size() - first);
            // The torch ops' and the tasks' pieces look the links up: read by now.
            if (first + w.n > firstLinked && !links.done) {
                if (std::string e = finishLinks(shared, links); !e.empty()) {
                    error = e;
                    w.n = std::min(w.n, firstLinked - std::min(first, firstLinked));
                }
            }
            w.group = std::make_unique<TaskGroup>(pool);
            for (std::size_t k = 0; k < w.n; ++k)
                w.group->run([&, k] { readPiece(pieces[w.first + k], *w.outs[k]); });
        };
        bool sawStep = false, stopped = false, reserved = false;
        std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> compute;
        std::unordered_map<std::int64_t, std::int64_t> modelOf;
        TraceBuilder::Sizes beforeLinked; // the model when the first linked piece comes
        std::uint64_t linkedRowsDone = 0;
        start(waves[0], 0);
        for (int cur = 0;; cur ^= 1) {
            Wave& w = waves[cur];
            w.group->wait();
            const std::size_t next = w.first + w.n;
            const bool more = !stopped && error.empty() && next < pieces.size();
            if (more) start(waves[cur ^ 1], next);
            for (std::size_t k = 0; k < w.n; ++k) {
                PieceOut& o = *w.outs[k];
                stopped |= o.cancelled;
                if (error.empty() && !o.error.empty()) error = o.error;
                if (w.first + k == firstLinked) beforeLinked = main.sizes();
                if (w.first + k >= firstLinked) linkedRowsDone += o.rows;
                main.absorb(o.builder);
                sawStep |= o.sawStep;
                for (auto& [dev, iv] : o.compute) {
                    auto& all = compute[dev];
                    all.insert(all.end(), iv.begin(), iv.end());
                }
                for (auto [conn, model] : o.hidden)
                    modelOf.emplace(conn, model);
                o.compute.clear();
                o.hidden.clear();
                advance(o.rows);
                o.reset();
            }
            // The big arrays sized once for the whole database, so they are not copied as they
            // double: the linked pieces' first wave projects the rest of their tables.
            if (!reserved && linkedRowsDone > 0) {
                reserved = true;
                const double scale = double(linkedRows) / double(linkedRowsDone);
                // The Overlap Analysis lanes come last: up to two slices per compute task
                // (Computing, Free), reserved too (a doubling there copied the whole array).
                std::size_t tasks = 0;
                for (const auto& [dev, iv] : compute)
                    tasks += iv.size();
                const double lanes = std::clamp(double(tasks) * scale * 2.2, 0.0, 0x1p40);
                main.reserveAhead(beforeLinked, scale, budget, std::size_t(lanes));
            }
            if (!more) break;
        }
        // Links not needed by any piece (no torch ops, no tasks) still end here, read or not.
        if (!links.done) finishLinks(shared, links);
        if (stopped || cancelled()) return failed(LoadStop::Cancelled, "loading was cancelled");
        // The HCCL ops, their flows and the Overlap Analysis lanes (small), on this thread.
        Lanes lanes;
        lanes.compute = std::move(compute);
        if (error.empty()) readOps(db, meta, modelOf, lanes, &error);
        lanes.write(meta, shared.hostPid, shared.device);
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

    // Rows of a table: its rowid span (two page paths); exact (a count) when asked.
    static std::uint64_t rowEstimate(sqlite::Database& db, const char* table, bool exact = false)
    {
        if (!db.hasTable(table)) return 0;
        if (exact) {
            sqlite::Statement st = db.prepare(std::string("SELECT count(*) FROM ") + table, table);
            return st.valid() && st.step()
                       ? std::uint64_t(std::max<std::int64_t>(st.integer(0).value_or(0), 0))
                       : 0;
        }
        const auto [lo, hi] = rowidRange(db, table);
        return lo > hi ? 0 : std::uint64_t(hi) - std::uint64_t(lo) + 1;
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

    // The big tables read by the raw reader (rawtable.h) where the file allows; SQL otherwise.
    void openRaw(sqlite::Database& db, const OpenPages& openPages)
    {
        std::string why;
        m_pages = openPages(&why);
        if (!m_pages) return;
        for (const char* t : {"TASK", "COMPUTE_TASK_INFO", "COMMUNICATION_TASK_INFO", "CANN_API",
                              "PYTORCH_API", "CONNECTION_IDS"})
            if (db.hasTable(t))
                if (auto info = sqlite::rawTable(db, t)) m_rawTables.emplace(t, std::move(*info));
        // The tasks' joins become lookups by rowid: COMPUTE_TASK_INFO's globalTaskId and
        // CANN_API's connectionId must be their tables' rowids; the HCCL task info is then
        // held in memory.
        auto keyed = [&](const char* table, const char* column) {
            if (!db.hasTable(table)) return true;
            const sqlite::RawTableInfo* t = raw(table);
            return t && t->rowidColumn >= 0 && t->rowidColumn == t->column(column);
        };
        m_rawTasks = raw("TASK") && keyed("COMPUTE_TASK_INFO", "globalTaskId") &&
                     keyed("CANN_API", "connectionId") &&
                     (!db.hasTable("COMMUNICATION_TASK_INFO") || raw("COMMUNICATION_TASK_INFO"));
    }

    const sqlite::RawTableInfo* raw(const char* table) const
    {
        auto it = m_rawTables.find(table);
        return it == m_rawTables.end() ? nullptr : &it->second;
    }

    // A cursor's columns as a row of the given column names ("NULL" reads as NULL).
    static void bind(RawRow& row, sqlite::TableCursor& c, const sqlite::RawTableInfo& t,
                     std::initializer_list<const char*> columns, const bool* found = nullptr)
    {
        for (const char* name : columns)
            row.cols.push_back({&c, std::string_view(name) == "NULL" ? -1 : t.column(name), found});
        // Each row's record decoded only as far as its last column read here.
        int last = -1;
        for (const RawRow::Col& col : row.cols)
            if (col.cursor == &c) last = std::max(last, col.col);
        c.limitColumns(std::size_t(last + 1));
    }

    // Reads the columns of a table's rows (rowids lo..hi when given) in rowid order: by the raw
    // reader where it reads the table, else as a query. row(r) sees sqlite::Statement's calls.
    template <typename Row>
    bool scan(sqlite::Database& db, const char* table, std::initializer_list<const char*> columns,
              std::optional<std::pair<std::int64_t, std::int64_t>> range, std::string* error,
              Row&& row)
    {
        if (!db.hasTable(table)) return true;
        if (const sqlite::RawTableInfo* t = raw(table)) {
            sqlite::TableCursor c(m_pages, *t, table);
            RawRow r;
            bind(r, c, *t, columns);
            std::uint64_t n = 0;
            for (bool ok = c.seek(range ? range->first : INT64_MIN);
                 ok && (!range || c.rowid() <= range->second); ok = c.next()) {
                row(std::as_const(r));
                if (++n % kRowsPerCheck == 0 && cancelled()) {
                    *error = "loading was cancelled";
                    return false;
                }
            }
            if (c.failed()) *error = c.error();
            return !c.failed();
        }
        std::string sql = "SELECT ";
        for (const char* c : columns) {
            if (sql.size() > 7) sql += ", ";
            sql += c;
        }
        sql += std::string(" FROM ") + table;
        if (range)
            sql += " WHERE rowid BETWEEN " + std::to_string(range->first) + " AND " +
                   std::to_string(range->second);
        return query(db, sql, table, error, row);
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

    // What every piece needs, read first on this thread: names, enums, call chains, the
    // layout's groups.
    std::string readNames(sqlite::Database& d, Shared& s)
    {
        std::string err;
        std::string* error = &err;
        const bool ok =
            query(d, "SELECT id, value FROM STRING_IDS", "STRING_IDS", error,
                  [&](sqlite::Statement& st) {
                      if (auto id = st.integer(0)) s.addString(*id, st.text(1));
                  }) &&
            readEnum(d, "ENUM_API_TYPE", s.apiTypes, error) &&
            readEnum(d, "ENUM_HCCL_DATA_TYPE", s.dataTypes, error) &&
            readEnum(d, "ENUM_HCCL_LINK_TYPE", s.linkTypes, error) &&
            readEnum(d, "ENUM_HCCL_TRANSPORT_TYPE", s.transportTypes, error) &&
            readCallchains(d, s, error) &&
            query(d, "SELECT rankId, deviceId FROM RANK_DEVICE_MAP", "RANK_DEVICE_MAP", error,
                  [&](sqlite::Statement& st) {
                      auto rank = st.integer(0), dev = st.integer(1);
                      if (rank && *rank >= 0 && *rank < (1 << 24) && !s.rank) s.rank = int(*rank);
                      if (dev && *dev >= 0 && *dev < 32) s.device = *dev;
                  }) &&
            readHostPid(d, s, error) && readGroups(d, s, error);
        return ok ? std::string() : err;
    }

    // The lookups the torch ops and the tasks need (CONNECTION_IDS, FFTS+ sub-tasks, HCCL task
    // info): millions of rows in a big run, read on their own connections while the pieces that
    // need none of them (CANN, counters) are read.
    struct LinkRead {
        struct Half {
            std::vector<std::pair<std::int64_t, std::int64_t>> connections;
            std::vector<std::int64_t> values;
        } halves[2];
        std::string errors[3];
        std::unique_ptr<TaskGroup> group;
        bool done = false;
    };

    void startLinks(sqlite::Database& db, Shared& s, LinkRead& lr)
    {
        // CONNECTION_IDS has as many rows as the torch ops: read in two rowid halves at once.
        // Plain variables, not a structured binding: clang 14 cannot capture those.
        const auto rows = rowidRange(db, "CONNECTION_IDS");
        const std::int64_t lo = rows.first, hi = rows.second;
        const std::int64_t mid =
            lo > hi ? 0
                    : std::int64_t(std::uint64_t(lo) + (std::uint64_t(hi) - std::uint64_t(lo)) / 2);
        // The tasks outlive this call: what they use is captured by value or by pointer.
        LinkRead* out = &lr;
        Shared* sp = &s;
        auto links = [this, out, lo, hi, mid](sqlite::Database& d, int half, std::string* error) {
            const Piece range{Piece::Kind::Python, "CONNECTION_IDS", half ? mid + 1 : lo,
                              half ? hi : mid};
            if (lo > hi || range.lo > range.hi) return true;
            LinkRead::Half& h = out->halves[half];
            // Sized up front (a doubling vector touches twice its pages, and each fresh page
            // costs a fault); the first half with room for the second, appended to it later.
            const std::size_t rows = half ? reserveRows(range.lo, range.hi) : reserveRows(lo, hi);
            h.connections.reserve(rows);
            h.values.reserve(rows);
            return scan(d, "CONNECTION_IDS", {"id", "connectionId"}, std::pair{range.lo, range.hi},
                        error, [&](const auto& st) {
                            auto id = st.integer(0), value = st.integer(1);
                            if (!id || !value) return;
                            h.connections.emplace_back(*id, *value);
                            h.values.push_back(*value);
                        });
        };
        auto hccl = [sp, this](sqlite::Database& d, std::string* error) {
            Shared& s = *sp;
            if (const auto [tlo, thi] = rowidRange(d, "TASK"); tlo <= thi)
                s.subtasks.reserve(reserveRows(tlo, thi));
            const bool ok =
                scan(d, "TASK", {"deviceId", "streamId", "taskId", "startNs", "contextId"},
                     std::nullopt, error,
                     [&](const auto& st) {
                         // SQL's contextId != 4294967295: NULL is neither.
                         const auto ctx = st.real(4);
                         if (st.isNull(4) || (ctx && *ctx == double(kU32None))) return;
                         auto dv = st.integer(0), str = st.integer(1), t = st.integer(2),
                              ts = st.integer(3);
                         if (dv && str && t && ts)
                             s.subtasks.emplace_back(subtaskKey(*dv, *str, *t), *ts);
                     }) &&
                readCommTasks(d, s, error);
            sortIfNeeded(s.subtasks);
            return ok;
        };
        lr.group = std::make_unique<TaskGroup>(WorkPool::global());
        for (int k = 0; k < 3; ++k)
            lr.group->run([this, out, k, links, hccl] {
                sqlite::Database own;
                if (!m_open(own)) {
                    out->errors[k] = own.error();
                    return;
                }
                if (k == 2)
                    hccl(own, &out->errors[k]);
                else
                    links(own, k, &out->errors[k]);
            });
    }

    // Waits for startLinks' reads and files them in s; the first error, or empty.
    std::string finishLinks(Shared& s, LinkRead& lr)
    {
        if (lr.done) return {};
        lr.done = true;
        lr.group->wait();
        s.connections = std::move(lr.halves[0].connections);
        s.connections.insert(s.connections.end(), lr.halves[1].connections.begin(),
                             lr.halves[1].connections.end());
        s.linkedValues = std::move(lr.halves[0].values);
        s.linkedValues.insert(s.linkedValues.end(), lr.halves[1].values.begin(),
                              lr.halves[1].values.end());
        sortIfNeeded(s.connections);
        sortIfNeeded(s.linkedValues);
        for (const std::string& e : lr.errors)
            if (!e.empty()) return e;
        return {};
    }

    bool readCommTasks(sqlite::Database& db, Shared& s, std::string* error)
    {
        // Joined through its index by SQL; in memory without one, or when the tasks are
        // read raw (their joins are then lookups).
        if (!db.hasTable("COMMUNICATION_TASK_INFO") ||
            (!m_rawTasks && db.hasIndexOn("COMMUNICATION_TASK_INFO", "globalTaskId")))
            return true;
        s.commInMemory = true;
        if (const auto [lo, hi] = rowidRange(db, "COMMUNICATION_TASK_INFO"); lo <= hi)
            s.commTasks.reserve(reserveRows(lo, hi));
        const bool ok =
            scan(db, "COMMUNICATION_TASK_INFO",
                 {"globalTaskId", "taskType", "planeId", "groupName", "notifyId", "srcRank",
                  "dstRank", "transportType", "size", "dataType", "linkType"},
                 std::nullopt, error, [&](const auto& st) {
                     if (auto g = st.integer(0)) s.commTasks.push_back(commTask(st, 0, *g));
                 });
        sortIfNeeded(s.commTasks);
        return ok;
    }

    // A CommTask from the 11 columns at col: globalTaskId, taskType, planeId, groupName,
    // notifyId, srcRank, dstRank, transportType, size, dataType, linkType.
    template <typename Row>
    static CommTask commTask(const Row& st, int col, std::int64_t globalTaskId)
    {
        CommTask c;
        c.globalTaskId = globalTaskId;
        std::int64_t* fields[] = {&c.type, &c.plane,     &c.group, &c.notify,   &c.src,
                                  &c.dst,  &c.transport, &c.size,  &c.dataType, &c.link};
        for (int i = 0; i < 10; ++i)
            if (auto v = st.integer(col + 1 + i)) *fields[i] = *v;
        return c;
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
        const bool ok =
            query(db, "SELECT id, stack FROM PYTORCH_CALLCHAINS ORDER BY id, stackDepth",
                  "PYTORCH_CALLCHAINS", error, [&](sqlite::Statement& st) {
                      auto id = st.integer(0);
                      if (!id) return;
                      std::string& chain = s.callchains[*id];
                      if (!chain.empty()) chain += ";\r\n";
                      chain += s.str(st.integer(1));
                  });
        // Quoted once here, not per op (the ops' args take them as written).
        for (auto& [id, chain] : s.callchains)
            chain = Args::quoted(chain);
        return ok;
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

    static std::pair<std::int64_t, std::int64_t> rowidRange(sqlite::Database& db, const char* table)
    {
        if (!db.hasTable(table)) return {1, 0};
        // Each end of the table's b-tree on its own: one min() or max() per query is what
        // SQLite answers from the b-tree's edge instead of a scan.
        auto end = [&](const char* fn) -> std::optional<std::int64_t> {
            sqlite::Statement st =
                db.prepare(std::string("SELECT ") + fn + "(rowid) FROM " + table, table);
            if (!st.valid() || !st.step()) return std::nullopt;
            return st.integer(0);
        };
        const auto lo = end("min"), hi = end("max");
        if (!lo || !hi) return {1, 0};
        return {*lo, *hi};
    }

    // Rows of a rowid range to reserve room for: its span, capped (a damaged or sparse table
    // may span 2^63 rowids; past the cap the vector grows as usual).
    static std::size_t reserveRows(std::int64_t lo, std::int64_t hi)
    {
        if (lo > hi) return 0;
        return std::size_t(std::min<std::uint64_t>(std::uint64_t(hi) - std::uint64_t(lo) + 1,
                                                   std::uint64_t(1) << 24));
    }

    // Reads a piece on its own connection; a failure keeps what the piece read.
    void readPiece(const Piece& piece, PieceOut& out)
    {
        sqlite::Database db;
        if (!m_open(db)) {
            out.error = db.error();
            return;
        }
        try {
            switch (piece.kind) {
            case Piece::Kind::Python:
                readPython(db, piece, out);
                break;
            case Piece::Kind::Cann:
                readCann(db, piece, out);
                break;
            case Piece::Kind::Task:
                readTasks(db, piece, out);
                break;
            case Piece::Kind::Counters:
                readCounters(db, out);
                break;
            }
        } catch (const std::bad_alloc&) {
            out.error = m_name + ": table " + piece.table + ": out of memory";
        }
        if (out.error == "loading was cancelled") {
            out.cancelled = true;
            out.error.clear();
        }
    }

    // " WHERE rowid BETWEEN lo AND hi" of a piece.
    static std::string range(const Piece& p, const char* column = "rowid")
    {
        return std::string(" WHERE ") + column + " BETWEEN " + std::to_string(p.lo) + " AND " +
               std::to_string(p.hi);
    }

    void readPython(sqlite::Database& db, const Piece& piece, PieceOut& out)
    {
        const Shared& s = *m_shared;
        Emitter e(out.builder, out.arena);
        Args a;
        std::set<std::uint64_t> threads, processes{s.hostPid};
        std::optional<std::int64_t> lastGtid;
        std::size_t indexHint = SIZE_MAX, valueHint = SIZE_MAX; // rows come in id order
        scan(db, "PYTORCH_API",
             {"startNs", "endNs", "globalTid", "connectionId", "name", "sequenceNumber",
              "fwdThreadId", "inputDtypes", "inputShapes", "callchainId",
              m_hasType ? "type" : "NULL"},
             std::pair{piece.lo, piece.hi}, &out.error, [&](const auto& st) {
                 ++out.rows;
                 // torch_npu stores these two times as TEXT: read exactly as integers.
                 const auto start = st.integer(0), end = st.integer(1), gtid = st.integer(2);
                 if (!start || !end || !gtid) {
                     e.skipped(1);
                     return;
                 }
                 const std::uint64_t pid = std::uint64_t(*gtid) >> 32,
                                     tid = std::uint64_t(*gtid) & kU32None;
                 // Rows come in runs of one thread: the sets are asked only when it changes.
                 if (lastGtid != *gtid && processes.insert(pid).second)
                     e.processMeta(pid, "Python", kSortPython, "CPU");
                 if (lastGtid != *gtid && threads.insert(*gtid).second)
                     e.threadMeta(pid, tid, "Thread " + std::to_string(tid), std::int64_t(tid));
                 lastGtid = *gtid;
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
                     // torch_npu up to 6.0 wrote the dims into inputDtypes and the types into
                     // inputShapes: told apart by content.
                     if (looksLikeDims(types) && !looksLikeDims(dims)) std::swap(dims, types);
                     if (!st.isNull(7) || !st.isNull(8))
                         a.str("Input Dims", dims).str("Input type", types);
                     if (auto cc = st.integer(9)) {
                         auto it = s.callchains.find(*cc);
                         if (it != s.callchains.end()) a.json("Call stack", it->second);
                     }
                 }
                 if (name.starts_with("ProfilerStep#")) out.sawStep = true;
                 const std::string& args = a.done();
                 e.slice(pid, tid, *start, *end, name, cat,
                         args.size() > 2 ? std::string_view(args) : std::string_view());
                 // Flows by CONNECTION_IDS: a value two rows share joins an enqueue to its dequeue
                 // or a forward op to its backward; a value on one op is its launch (torch_to_npu).
                 const auto conn = st.integer(3);
                 if (!conn) return;
                 for (const auto& [index, v] : s.valuesOf(*conn, indexHint)) {
                     const std::size_t uses = s.uses(v, valueHint);
                     if (type == 50002)
                         e.flow(cat == "enqueue" ? 's' : 'f', pid, tid, *start, "async_task_queue",
                                "enqueue_to_dequeue", v);
                     else if (uses >= 2)
                         e.flow(st.integer(6).value_or(0) == 0 ? 's' : 'f', pid, tid, *start,
                                "fwdbwd", "fwdbwd", v);
                     else
                         e.flow('s', pid, tid, *start, "async_npu", "torch_to_npu", v);
                 }
             });
    }

    void readCann(sqlite::Database& db, const Piece& piece, PieceOut& out)
    {
        const Shared& s = *m_shared;
        Emitter e(out.builder, out.arena);
        Args a;
        std::set<std::int64_t> threads;
        std::set<std::uint64_t> processes{formatPid(s.hostPid, kSortCann, 0)};
        std::unordered_map<std::int64_t, std::string> prefix; // api type -> "AscendCL@"
        std::string name;
        std::optional<std::int64_t> lastGtid;
        scan(db, "CANN_API", {"startNs", "endNs", "type", "globalTid", "connectionId", "name"},
             std::pair{piece.lo, piece.hi}, &out.error, [&](const auto& st) {
                 ++out.rows;
                 const auto start = st.integer(0), end = st.integer(1), gtid = st.integer(3);
                 if (!start || !end || !gtid) {
                     e.skipped(1);
                     return;
                 }
                 const std::uint64_t pid = formatPid(std::uint64_t(*gtid) >> 32, kSortCann, 0);
                 const std::uint64_t tid = std::uint64_t(*gtid) & kU32None;
                 if (lastGtid != *gtid && processes.insert(pid).second)
                     e.processMeta(pid, "CANN", kSortCann, "CPU");
                 if (lastGtid != *gtid && threads.insert(*gtid).second)
                     e.threadMeta(pid, tid, "Thread " + std::to_string(tid), std::int64_t(tid));
                 lastGtid = *gtid;
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
    }

    // TASK rows with their compute and communication info and the CANN call that launched
    // them (its HostToDevice flow starts there).
    void readTasks(sqlite::Database& db, const Piece& piece, PieceOut& out)
    {
        const Shared& s = *m_shared;
        Emitter e(out.builder, out.arena);
        Args a;
        std::set<std::pair<std::int64_t, std::int64_t>> streams;
        std::size_t commHint = SIZE_MAX, valueHint = SIZE_MAX;
        const bool hasCompute = db.hasTable("COMPUTE_TASK_INFO");
        const bool hasComm = db.hasTable("COMMUNICATION_TASK_INFO") && !s.commInMemory;
        const bool hasCann = db.hasTable("CANN_API");
        std::string sql =
            "SELECT t.startNs, t.endNs, t.deviceId, t.connectionId, t.taskType, t.contextId, "
            "t.streamId, t.taskId, t.modelId, ";
        sql += hasCompute ? "c.name, c.taskType, " : "NULL, NULL, ";
        sql += hasComm ? "m.globalTaskId, m.taskType, m.planeId, m.groupName, m.notifyId, "
                         "m.srcRank, m.dstRank, m.transportType, m.size, m.dataType, m.linkType, "
                       : "t.globalTaskId, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
                         "NULL, ";
        sql += hasCann ? "h.globalTid, h.startNs " : "NULL, NULL ";
        sql += "FROM TASK t ";
        if (hasCompute) sql += "LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId ";
        if (hasComm)
            sql += "LEFT JOIN COMMUNICATION_TASK_INFO m ON m.globalTaskId = t.globalTaskId ";
        if (hasCann) sql += "LEFT JOIN CANN_API h ON h.connectionId = t.connectionId ";
        sql += range(piece, "t.rowid");
        const std::uint64_t hccl = formatPid(s.hostPid, kSortHccl, s.device);
        std::string name;
        auto row = [&](const auto& st) {
            ++out.rows;
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
                const std::uint64_t key = subtaskKey(dev, stream, task);
                auto it = std::lower_bound(s.subtasks.begin(), s.subtasks.end(),
                                           std::make_pair(key, *start));
                if (it != s.subtasks.end() && it->first == key && it->second <= *end) {
                    if (conn) out.hidden.emplace_back(*conn, model);
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
            // Its HCCL task info: joined (columns 11-21), or looked up in memory.
            std::optional<CommTask> comm;
            if (!s.commInMemory) {
                if (!st.isNull(11)) comm = commTask(st, 11, st.integer(11).value_or(0));
            } else if (auto g = st.integer(11)) {
                // Tasks come in globalTaskId order: searched from the last one found.
                const std::size_t at = lowerBoundNear(
                    s.commTasks, commHint, *g,
                    [](const CommTask& c, std::int64_t k) { return c.globalTaskId < k; });
                auto it = s.commTasks.begin() + std::ptrdiff_t(at);
                if (it != s.commTasks.end() && it->globalTaskId == *g) comm = *it;
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
            if (compute && *end > *start) out.compute[dev].emplace_back(*start, *end);

            // The launch's flow (msprof's HostToDevice: compute tasks, copies, events) and the
            // torch op's (torch_to_npu). A launch with several tasks starts one arrow to each
            // (its start step written once per task: the builder binds both to one slice).
            if (conn && !st.isNull(22) &&
                (compute || hostType == "MEMCPY_ASYNC" || hostType == "EVENT_RECORD" ||
                 hostType == "EVENT_WAIT")) {
                hostLaunchFlow(e, *conn, st.integer(22).value_or(0), st.integer(23).value_or(0));
                e.flow('f', pid, std::uint64_t(stream), *start, "HostToDevice", "HostToDevice",
                       *conn);
            }
            // (An HCCL task shares its op's id: the op takes that flow, in readOps.)
            if (conn && !comm && s.uses(*conn, valueHint))
                e.flow('f', pid, std::uint64_t(stream), *start, "async_npu", "torch_to_npu", *conn);

            // An HCCL task is also shown on its plane of its group's thread block.
            if (!comm) return;
            const std::int64_t plane = comm->plane;
            if (plane < 0 || plane >= kU32None) return;
            auto g = s.groupTid.find(comm->group);
            if (g == s.groupTid.end()) return;
            const std::string_view hcclType = s.str(comm->type);
            a.clear();
            // notify_id as the text writes it: a string, none as 2^64-1 (1.0.0 stores
            // INT64_MAX, 1.2.0 -1).
            const std::int64_t notify = comm->notify;
            a.str("notify_id", notify < 0 || notify == INT64_MAX
                                   ? std::string("18446744073709551615")
                                   : std::to_string(notify));
            a.num("stream id", stream).num("task id", task).num("context id", context);
            a.str("task type", hcclType);
            a.num("src rank", comm->src < 0 ? kU32None : comm->src);
            a.num("dst rank", comm->dst < 0 ? kU32None : comm->dst);
            a.str("transport type", Shared::name(s.transportTypes, comm->transport));
            const std::int64_t size = comm->size;
            a.num("size(Byte)", size);
            a.str("data type", Shared::name(s.dataTypes, comm->dataType));
            a.str("link type", Shared::name(s.linkTypes, comm->link));
            // bytes / ns = GB/s (10^9), msprof's hccl_calculator.
            const double dur = double(*end) - double(*start);
            a.real("bandwidth(GB/s)", dur > 0 && size > 0 ? double(size) / dur : 0.0);
            a.num("model id", model);
            e.slice(hccl, std::uint64_t(g->second + plane + 1), *start, *end, hcclType, "",
                    a.done());
        };
        if (m_rawTasks)
            readTasksRaw(piece, out, row);
        else
            query(db, sql, "TASK", &out.error, row);
    }

    // The tasks' query without SQL: TASK's rows in rowid order, their compute info and their
    // CANN launch looked up by rowid (both tables are keyed by the joined column), the HCCL
    // task info from memory; row() sees the query's columns.
    template <typename Row> void readTasksRaw(const Piece& piece, PieceOut& out, Row&& row)
    {
        const sqlite::RawTableInfo& t = *raw("TASK");
        sqlite::TableCursor task(m_pages, t, "TASK");
        std::optional<sqlite::TableCursor> compute, cann;
        bool computeFound = false, cannFound = false;
        RawRow r;
        bind(r, task, t,
             {"startNs", "endNs", "deviceId", "connectionId", "taskType", "contextId", "streamId",
              "taskId", "modelId"});
        if (const sqlite::RawTableInfo* c = raw("COMPUTE_TASK_INFO")) {
            compute.emplace(m_pages, *c, "COMPUTE_TASK_INFO");
            bind(r, *compute, *c, {"name", "taskType"}, &computeFound);
        } else {
            bind(r, task, t, {"NULL", "NULL"});
        }
        bind(r, task, t, {"globalTaskId"});
        for (int k = 0; k < 10; ++k)
            bind(r, task, t, {"NULL"});
        if (const sqlite::RawTableInfo* h = raw("CANN_API")) {
            cann.emplace(m_pages, *h, "CANN_API");
            bind(r, *cann, *h, {"globalTid", "startNs"}, &cannFound);
        } else {
            bind(r, task, t, {"NULL", "NULL"});
        }
        const int globalTaskId = t.column("globalTaskId"), connection = t.column("connectionId");
        std::uint64_t n = 0;
        for (bool ok = task.seek(piece.lo); ok && task.rowid() <= piece.hi; ok = task.next()) {
            // A LEFT JOIN's side: the row with that key, or NULLs.
            if (compute) {
                const auto key = task.integer(globalTaskId);
                computeFound = key && compute->find(*key);
            }
            if (cann) {
                const auto key = task.integer(connection);
                cannFound = key && cann->find(*key);
            }
            row(std::as_const(r));
            if (++n % kRowsPerCheck == 0 && cancelled()) {
                out.error = "loading was cancelled";
                return;
            }
        }
        for (const sqlite::TableCursor* c :
             {&task, compute ? &*compute : nullptr, cann ? &*cann : nullptr})
            if (c && c->failed() && out.error.empty()) out.error = c->error();
    }

    // The Overlap Analysis lanes (msprof pipeline_overlap_viewer.py): computing = the union of
    // the tasks with compute info, communication = the union of the HCCL ops; not overlapped =
    // communication - computing; free = the gaps between busy sections. Per device.
    struct Lanes {
        using Intervals = std::vector<std::pair<std::int64_t, std::int64_t>>;
        std::map<std::int64_t, Intervals> compute, comm;

        static Intervals merged(Intervals v)
        {
            sortIfNeeded(v);
            Intervals out;
            for (auto [a, b] : v) {
                if (b <= a) continue;
                if (!out.empty() && a <= out.back().second)
                    out.back().second = std::max(out.back().second, b);
                else
                    out.emplace_back(a, b);
            }
            return out;
        }
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
                const Intervals cu = merged(std::move(compute[d]));
                const Intervals mu = merged(std::move(comm[d]));
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
                Intervals all = cu;
                all.insert(all.end(), mu.begin(), mu.end());
                const Intervals busy = merged(std::move(all));
                for (std::size_t i = 1; i < busy.size(); ++i)
                    e.slice(pid, 3, busy[i - 1].second, busy[i].first, "Free", "", {});
            }
        }
    };

    // The CANN call that launched a connection id: the start of its HostToDevice flow.
    static void hostLaunchFlow(Emitter& e, std::int64_t conn, std::int64_t gtid, std::int64_t ts)
    {
        const std::uint64_t pid = formatPid(std::uint64_t(gtid) >> 32, kSortCann, 0);
        e.flow('s', pid, std::uint64_t(gtid) & kU32None, ts, "HostToDevice", "HostToDevice", conn);
    }

    // The HCCL ops (a few per step), with their launch flows; their spans are the lanes'
    // communication.
    void readOps(sqlite::Database& db, Emitter& e,
                 const std::unordered_map<std::int64_t, std::int64_t>& modelOf, Lanes& lanes,
                 std::string* error)
    {
        const Shared& s = *m_shared;
        std::size_t valueHint = SIZE_MAX;
        Args a;
        const bool hasCann = db.hasTable("CANN_API");
        std::string sql = "SELECT o.opName, o.startNs, o.endNs, o.connectionId, o.groupName, "
                          "o.dataType, o.algType, o.count, ";
        sql += hasCann ? "h.globalTid, h.startNs FROM COMMUNICATION_OP o LEFT JOIN CANN_API h ON "
                         "h.connectionId = o.connectionId"
                       : "NULL, NULL FROM COMMUNICATION_OP o";
        const std::uint64_t hccl = formatPid(s.hostPid, kSortHccl, s.device);
        query(db, sql, "COMMUNICATION_OP", error, [&](sqlite::Statement& st) {
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
            lanes.comm[s.device].emplace_back(*start, *end);
            if (conn && !st.isNull(8)) {
                hostLaunchFlow(e, *conn, st.integer(8).value_or(0), st.integer(9).value_or(0));
                e.flow('f', hccl, tid, *start, "HostToDevice", "HostToDevice", *conn);
            }
            if (conn && s.uses(*conn, valueHint))
                e.flow('f', hccl, tid, *start, "async_npu", "torch_to_npu", *conn);
        });
    }

    // msprof's counters: NPU MEM (KB), HBM bandwidth (MB/s), AI Core Freq (MHz), LLC.
    void readCounters(sqlite::Database& db, PieceOut& out)
    {
        const Shared& s = *m_shared;
        Emitter e(out.builder, out.arena);
        Args a;
        const std::uint64_t host = s.hostPid;
        std::set<std::pair<int, std::int64_t>> named; // (sort, device) with a process_name
        auto process = [&](int sort, const char* name, std::int64_t dev) {
            const std::uint64_t pid = formatPid(host, sort, dev);
            if (named.insert({sort, dev}).second) e.processMeta(pid, name, sort, "NPU");
            return pid;
        };
        constexpr double kMiB = 1024.0 * 1024.0;
        auto tick = [&] { ++out.rows; };
        query(db, "SELECT type, ddr, hbm, timestampNs, deviceId FROM NPU_MEM", "NPU_MEM",
              &out.error, [&](sqlite::Statement& st) {
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
        if (!out.error.empty()) return;
        query(db, "SELECT deviceId, timestampNs, bandwidth, hbmId, type FROM HBM", "HBM",
              &out.error, [&](sqlite::Statement& st) {
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
        if (!out.error.empty()) return;
        query(db, "SELECT deviceId, timestampNs, freq FROM AICORE_FREQ", "AICORE_FREQ", &out.error,
              [&](sqlite::Statement& st) {
                  tick();
                  const auto ts = st.integer(1);
                  if (!ts) return e.skipped(1);
                  const std::uint64_t pid =
                      process(kSortFreq, "AI Core Freq", st.integer(0).value_or(0));
                  a.clear();
                  e.counter(pid, "AI Core Freq", *ts, a.real("MHz", st.real(2).value_or(0)).done());
              });
        if (!out.error.empty()) return;
        query(db, "SELECT deviceId, llcId, timestampNs, hitRate, throughput, mode FROM LLC", "LLC",
              &out.error, [&](sqlite::Statement& st) {
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
    std::shared_ptr<const sqlite::PageFile> m_pages;
    std::map<std::string, sqlite::RawTableInfo, std::less<>> m_rawTables;
    bool m_rawTasks = false; // TASK with its joins read raw
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
    return reader.run(
        rank, [&](sqlite::Database& db) { return db.open(file, cancel); },
        [&](std::string* why) { return sqlite::PageFile::openPath(file, why); });
}

LoadResult readDatabaseBytes(const void* data, std::size_t size, const std::string& name,
                             const LoadOptions& options)
{
    Reader reader(name, options, nullptr);
    return reader.run(
        std::nullopt, [&](sqlite::Database& db) { return db.openBytes(name, data, size); },
        [&](std::string* why) { return sqlite::PageFile::openBytes(data, size, why); });
}

} // namespace torchnpudb
} // namespace rs
