#include "core/producers/torchnpudb/dbreader.h"
#include "core/producers/torchnpudb/dbevents.h"

#include "core/producers/producer.h"
#include "core/sqlite/dbfile.h"
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

namespace {

constexpr std::int64_t kU32None = 4294967295; // msprof's "none" for ids and ranks
constexpr std::uint64_t kRowsPerCheck = 1 << 14;
// Model bytes per row read, for the budget's projection up front: a slice (40) with its args
// text (about 150 bytes of JSON on a task), names interned, flow steps.
constexpr std::uint64_t kBytesPerRow = 240;
// Args text per slice to reserve up front: the generated 10M-row run averages 68 bytes (a
// task's about 120, a CANN call's 60), with room for longer call stacks.
constexpr std::size_t kArgsBytesPerSlice = 96;

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
    std::string error;               // a read that stopped (damage): what was read is kept
    std::vector<std::string> damage; // of the counter tables, each read to its own damage
    bool cancelled = false;          // the user cancelled
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
        damage.clear();
        cancelled = sawStep = false;
        rows = 0;
    }
};

constexpr std::int64_t kPieceRows = 1 << 16;
constexpr std::uint64_t kMaxPieces = 4096;

// A read that stopped on damage, and what it means for the rows after it.
std::string notRead(const std::string& error)
{
    return error + "; the rows after it are not read";
}

void addOnce(std::vector<std::string>& notes, std::string note)
{
    if (std::find(notes.begin(), notes.end(), note) == notes.end())
        notes.push_back(std::move(note));
}

class Reader {
public:
    Reader(std::shared_ptr<const sqlite::DbFile> file, const LoadOptions& options,
           LoadProgress* progress)
        : m_file(std::move(file)), m_name(m_file->name()), m_options(options), m_progress(progress)
    {}

    LoadResult run(std::optional<int> rank)
    {
        LoadResult r;
        r.resolvedPath = m_name;
        sqlite::Database db;
        if (!open(db))
            return failed(notDatabase(db.error()) ? LoadStop::Malformed : LoadStop::Unreadable,
                          db.error());
        if (std::string e = checkSchema(db, m_name, &m_hasType); !e.empty())
            return failed(LoadStop::Malformed, e);
        if (cancelled()) return failed(LoadStop::Cancelled, "loading was cancelled");
        std::string why;
        m_view = sqlite::PageFile::open(m_file, &why); // also names the pages of SQL's damage
        if (!m_options.databaseViaSql) openRaw(db);

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
        readNames(db, shared);
        if (cancelled()) return failed(LoadStop::Cancelled, "loading was cancelled");
        m_shared = &shared;
        LinkRead links; // destroyed (its tasks waited for) before shared
        startLinks(db, shared, links);

        TraceBuilder main;
        main.setPath(m_name);
        main.setProducer(torchNpuDbProducer());
        // What the -wal or -journal said (a hot journal played back, a damaged log ignored).
        for (const std::string& w : m_file->warnings())
            main.addWarning(w);
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
        bool reserved = false;        // the model sized ahead (or not to be)
        std::uint64_t linkedRows = 0; // rows of the pieces that need the links
        for (auto [kind, table] : {std::pair{Piece::Kind::Cann, "CANN_API"},
                                   std::pair{Piece::Kind::Python, "PYTORCH_API"},
                                   std::pair{Piece::Kind::Task, "TASK"}}) {
            std::string rangeError;
            auto [lo, hi] = rowidRange(db, table, &rangeError);
            if (!rangeError.empty()) m_rangeDamage.emplace_back(table, rangeError);
            if (lo > hi) continue;
            // Ends SQLite could not find (a damaged edge of the b-tree): the whole table as one
            // piece, read to its damage; its size unknown, the model is not sized ahead.
            if (lo == INT64_MIN && hi == INT64_MAX) reserved = true;
            // Rowids are dense in a profiler's tables; sparse ones still give at most
            // kMaxPieces ranges (computed unsigned: the ends may be int64's).
            const std::uint64_t span = std::uint64_t(hi) - std::uint64_t(lo);
            const std::uint64_t count = std::min<std::uint64_t>(span / kPieceRows + 1, kMaxPieces);
            const std::uint64_t step = span / count + 1;
            if (kind != Piece::Kind::Cann && !reserved)
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
        // Damage: each table is read up to its first damage, the other tables on; the notes
        // are kept in a fixed order (links, then pieces in their order) whatever the waves.
        std::vector<std::string> linkDamage, pieceDamage;
        std::set<std::string, std::less<>> damaged; // tables whose later pieces are dropped
        auto start = [&](Wave& w, std::size_t first) {
            w.first = first;
            w.n = std::min(wave, pieces.size() - first);
            // The torch ops' and the tasks' pieces look the links up: read by now.
            if (first + w.n > firstLinked && !links.done) linkDamage = finishLinks(shared, links);
            w.group = std::make_unique<TaskGroup>(pool);
            for (std::size_t k = 0; k < w.n; ++k)
                w.group->run([&, k] { readPiece(pieces[w.first + k], *w.outs[k]); });
        };
        bool sawStep = false, stopped = false;
        std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> compute;
        std::unordered_map<std::int64_t, std::int64_t> modelOf;
        TraceBuilder::Sizes beforeLinked; // the model when the first linked piece comes
        std::uint64_t linkedRowsDone = 0;
        start(waves[0], 0);
        for (int cur = 0;; cur ^= 1) {
            Wave& w = waves[cur];
            w.group->wait();
            const std::size_t next = w.first + w.n;
            const bool more = !stopped && next < pieces.size();
            if (more) start(waves[cur ^ 1], next);
            for (std::size_t k = 0; k < w.n; ++k) {
                PieceOut& o = *w.outs[k];
                const Piece& piece = pieces[w.first + k];
                stopped |= o.cancelled;
                if (damaged.count(piece.table)) { // after its table's damage: not read
                    o.compute.clear();
                    o.hidden.clear();
                    o.reset();
                    continue;
                }
                for (std::string& d : o.damage)
                    addOnce(pieceDamage, notRead(d));
                if (!o.error.empty()) {
                    addOnce(pieceDamage, notRead(o.error));
                    damaged.insert(piece.table);
                }
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
        if (!links.done) linkDamage = finishLinks(shared, links);
        if (stopped || cancelled()) return failed(LoadStop::Cancelled, "loading was cancelled");
        // The HCCL ops, their flows and the Overlap Analysis lanes (small), on this thread.
        Lanes lanes;
        lanes.compute = std::move(compute);
        std::vector<std::string> lastDamage;
        if (std::string e; !readOps(db, meta, modelOf, lanes, &e)) addOnce(lastDamage, notRead(e));
        lanes.write(meta, shared.hostPid, shared.device);
        if (!sawStep) writeSteps(db, meta, lastDamage);
        if (cancelled()) return failed(LoadStop::Cancelled, "loading was cancelled");

        r.status = LoadStatus::Complete;
        for (auto* notes : {&linkDamage, &pieceDamage, &lastDamage})
            for (std::string& note : *notes)
                addOnce(m_damage, std::move(note));
        // An end of a table SQLite could not reach: said unless its read named the damage.
        for (const auto& [table, e] : m_rangeDamage) {
            const std::string named = ": table " + table;
            if (std::none_of(m_damage.begin(), m_damage.end(), [&](const std::string& d) {
                    const std::size_t at = d.find(named);
                    return at != std::string::npos &&
                           (d[at + named.size()] == ',' || d[at + named.size()] == ':');
                }))
                addOnce(m_damage, notRead(e));
        }
        if (!m_damage.empty()) {
            // Damage: the rows read before it, each table's damage a warning (the first is the
            // load's message), as a cut text trace keeps its complete events.
            if (main.eventCount() == 0) return failed(LoadStop::Malformed, m_damage.front());
            r.status = LoadStatus::Partial;
            r.stop = LoadStop::Malformed;
            r.message = m_damage.front();
            if (m_damage.size() > 1)
                r.message += " (and " + std::to_string(m_damage.size() - 1) +
                             " more damage: see the warnings)";
            for (const std::string& note : m_damage)
                main.addWarning(note);
        }
        // A view read while a writer changed what it reads.
        if (m_file->changed())
            main.addWarning(m_name +
                            ": the file changed while it was read (a job still writing it?): "
                            "its rows may mix two moments; load it again once the job has ended");
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
    // A connection to the view.
    bool open(sqlite::Database& db) const
    {
        return db.open(m_file, m_progress ? &m_progress->cancel : nullptr);
    }

    // The connections of the pieces and link reads, reused (each opening parses the schema
    // again: a table of sparse rowids made thousands of pieces, and as many openings).
    std::unique_ptr<sqlite::Database> take()
    {
        {
            std::lock_guard lock(m_poolMutex);
            if (!m_pool.empty()) {
                auto db = std::move(m_pool.back());
                m_pool.pop_back();
                return db;
            }
        }
        auto db = std::make_unique<sqlite::Database>();
        open(*db);
        return db;
    }

    void give(std::unique_ptr<sqlite::Database> db)
    {
        std::lock_guard lock(m_poolMutex);
        m_pool.push_back(std::move(db));
    }

    // SQLite's damage of a table named by its page: the page reader walks the table and names
    // the first damage it meets. SQLite's message as it is when it finds none (an index, a
    // check only SQLite makes).
    std::string locate(sqlite::Database& db, const char* table, const std::string& error)
    {
        if (!m_view || error.find("damaged") == std::string::npos) return error;
        {
            std::lock_guard lock(m_poolMutex);
            if (auto it = m_located.find(table); it != m_located.end())
                return it->second.empty() ? error : it->second;
        }
        std::string named;
        if (const auto info = sqlite::rawTable(db, table)) {
            sqlite::TableCursor c(m_view, *info, table);
            for (bool ok = c.seek(INT64_MIN); ok; ok = c.next()) {
            }
            if (c.failed()) named = c.error() + " (SQLite: database disk image is malformed)";
        }
        std::lock_guard lock(m_poolMutex);
        m_located.emplace(table, named); // once per table (every piece of it may fail)
        return named.empty() ? error : named;
    }

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

    // The big tables read by the raw reader (rawtable.h) where the file allows; SQL otherwise.
    void openRaw(sqlite::Database& db)
    {
        m_pages = m_view;
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
    static void bind(sqlite::RawRow& row, sqlite::TableCursor& c, const sqlite::RawTableInfo& t,
                     std::initializer_list<const char*> columns, const bool* found = nullptr)
    {
        for (const char* name : columns)
            row.cols.push_back({&c, std::string_view(name) == "NULL" ? -1 : t.column(name), found});
        // Each row's record decoded only as far as its last column read here.
        int last = -1;
        for (const sqlite::RawRow::Col& col : row.cols)
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
            sqlite::RawRow r;
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
            *error = locate(db, table, st.error());
            return false;
        }
        return true;
    }

    // What every piece needs, read first on this thread: names, enums, call chains, the
    // layout's groups. A damaged table is read to its damage (noted), the others on.
    void readNames(sqlite::Database& d, Shared& s)
    {
        std::string e;
        auto note = [&](bool ok) {
            if (!ok && e != "loading was cancelled") addOnce(m_damage, notRead(e));
            e.clear();
        };
        note(query(d, "SELECT id, value FROM STRING_IDS", "STRING_IDS", &e,
                   [&](sqlite::Statement& st) {
                       if (auto id = st.integer(0)) s.addString(*id, st.text(1));
                   }));
        note(readEnum(d, "ENUM_API_TYPE", s.apiTypes, &e));
        note(readEnum(d, "ENUM_HCCL_DATA_TYPE", s.dataTypes, &e));
        note(readEnum(d, "ENUM_HCCL_LINK_TYPE", s.linkTypes, &e));
        note(readEnum(d, "ENUM_HCCL_TRANSPORT_TYPE", s.transportTypes, &e));
        note(readCallchains(d, s, &e));
        note(query(d, "SELECT rankId, deviceId FROM RANK_DEVICE_MAP", "RANK_DEVICE_MAP", &e,
                   [&](sqlite::Statement& st) {
                       auto rank = st.integer(0), dev = st.integer(1);
                       if (rank && *rank >= 0 && *rank < (1 << 24) && !s.rank) s.rank = int(*rank);
                       if (dev && *dev >= 0 && *dev < 32) s.device = *dev;
                   }));
        note(readHostPid(d, s, &e));
        note(readGroups(d, s, &e));
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
        std::string rangeError;
        const auto rows = rowidRange(db, "CONNECTION_IDS", &rangeError);
        if (!rangeError.empty()) m_rangeDamage.emplace_back("CONNECTION_IDS", rangeError);
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
                auto own = take();
                if (!own->isOpen()) {
                    out->errors[k] = own->error();
                    return;
                }
                if (k == 2)
                    hccl(*own, &out->errors[k]);
                else
                    links(*own, k, &out->errors[k]);
                give(std::move(own));
            });
    }

    // Waits for startLinks' reads and files them in s; the damage they met.
    std::vector<std::string> finishLinks(Shared& s, LinkRead& lr)
    {
        if (lr.done) return {};
        lr.done = true;
        lr.group->wait();
        // CONNECTION_IDS read to its damage: the half after a damaged one is not taken.
        if (!lr.errors[0].empty()) lr.halves[1] = {};
        s.connections = std::move(lr.halves[0].connections);
        s.connections.insert(s.connections.end(), lr.halves[1].connections.begin(),
                             lr.halves[1].connections.end());
        s.linkedValues = std::move(lr.halves[0].values);
        s.linkedValues.insert(s.linkedValues.end(), lr.halves[1].values.begin(),
                              lr.halves[1].values.end());
        sortIfNeeded(s.connections);
        sortIfNeeded(s.linkedValues);
        std::vector<std::string> notes;
        for (const std::string& e : lr.errors)
            if (!e.empty() && e != "loading was cancelled") addOnce(notes, notRead(e));
        return notes;
    }

    bool readCommTasks(sqlite::Database& db, Shared& s, std::string* error)
    {
        // Held in memory and looked up by the tasks, whichever reader reads them: the rows of
        // the table itself, never an index that might disagree with them.
        if (!db.hasTable("COMMUNICATION_TASK_INFO")) return true;
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
        // Each asked (a damaged one does not keep the next from answering); the first error.
        std::string e[3];
        const bool ok[3] = {query(db, "SELECT globalPid FROM TASK LIMIT 1", "TASK", &e[0],
                                  [&](sqlite::Statement& st) { take(st.integer(0), false); }),
                            query(db, "SELECT globalTid FROM PYTORCH_API LIMIT 1", "PYTORCH_API",
                                  &e[1], [&](sqlite::Statement& st) { take(st.integer(0), true); }),
                            query(db, "SELECT globalTid FROM CANN_API LIMIT 1", "CANN_API", &e[2],
                                  [&](sqlite::Statement& st) { take(st.integer(0), true); })};
        for (int i = 0; i < 3; ++i)
            if (!ok[i]) {
                *error = e[i];
                return false;
            }
        return true;
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
        std::string planeError;
        const bool opsRead = query(db, "SELECT groupName FROM COMMUNICATION_OP ORDER BY startNs",
                                   "COMMUNICATION_OP", error, [&](sqlite::Statement& st) {
                                       if (auto g = st.integer(0)) addGroup(*g);
                                   });
        const bool ok = query(db, "SELECT DISTINCT groupName, planeId FROM COMMUNICATION_TASK_INFO",
                              "COMMUNICATION_TASK_INFO", &planeError, [&](sqlite::Statement& st) {
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
        if (opsRead && !ok) *error = planeError;
        return opsRead && ok;
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

    // The ends of a table's rowids ({1, 0} when it is empty or absent). When SQLite cannot
    // reach an end (a damaged edge of its b-tree) and error is given: SQLite's message, and
    // every rowid, so the table is read as far as its damage.
    static std::pair<std::int64_t, std::int64_t> rowidRange(sqlite::Database& db, const char* table,
                                                            std::string* error = nullptr)
    {
        if (!db.hasTable(table)) return {1, 0};
        // Each end of the table's b-tree on its own: one min() or max() per query is what
        // SQLite answers from the b-tree's edge instead of a scan.
        std::string failure;
        auto end = [&](const char* fn) -> std::optional<std::int64_t> {
            sqlite::Statement st =
                db.prepare(std::string("SELECT ") + fn + "(rowid) FROM " + table, table);
            if (!st.valid()) {
                failure = db.error();
                return std::nullopt;
            }
            if (!st.step()) {
                if (st.failed()) failure = st.error();
                return std::nullopt;
            }
            return st.integer(0);
        };
        const auto lo = end("min"), hi = end("max");
        if (!failure.empty() && error) {
            *error = failure;
            return {INT64_MIN, INT64_MAX};
        }
        if (!lo || !hi) return {1, 0};
        return {*lo, *hi};
    }

    // Rows of a rowid range to reserve room for: its span, capped (a damaged or sparse table
    // may span 2^63 rowids; past the cap the vector grows as usual); none for every rowid.
    static std::size_t reserveRows(std::int64_t lo, std::int64_t hi)
    {
        if (lo > hi || (lo == INT64_MIN && hi == INT64_MAX)) return 0;
        return std::size_t(std::min<std::uint64_t>(std::uint64_t(hi) - std::uint64_t(lo) + 1,
                                                   std::uint64_t(1) << 24));
    }

    // Reads a piece on its own connection; a failure keeps what the piece read.
    void readPiece(const Piece& piece, PieceOut& out)
    {
        auto connection = take();
        if (!connection->isOpen()) {
            out.error = connection->error();
            return;
        }
        sqlite::Database& db = *connection;
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
        give(std::move(connection));
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
        sqlite::RawRow r;
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
            // A LEFT JOIN's side: the row with that key (as SQLite makes a rowid of the value),
            // or NULLs. A damaged side stops the read where SQL's join would.
            if (compute) {
                const auto key = task.rowidKey(globalTaskId);
                computeFound = key && compute->find(*key);
                if (compute->failed()) break;
            }
            if (cann) {
                const auto key = task.rowidKey(connection);
                cannFound = key && cann->find(*key);
                if (cann->failed()) break;
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

    // The CANN call that launched a connection id: the start of its HostToDevice flow.
    static void hostLaunchFlow(Emitter& e, std::int64_t conn, std::int64_t gtid, std::int64_t ts)
    {
        const std::uint64_t pid = formatPid(std::uint64_t(gtid) >> 32, kSortCann, 0);
        e.flow('s', pid, std::uint64_t(gtid) & kU32None, ts, "HostToDevice", "HostToDevice", conn);
    }

    // The HCCL ops (a few per step), with their launch flows; their spans are the lanes'
    // communication.
    bool readOps(sqlite::Database& db, Emitter& e,
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
        return query(db, sql, "COMMUNICATION_OP", error, [&](sqlite::Statement& st) {
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
        // Each counter table read to its own damage, the next one on; a cancel stops them all.
        auto next = [&] {
            if (out.error.empty() || out.error == "loading was cancelled") return out.error.empty();
            out.damage.push_back(std::move(out.error));
            out.error.clear();
            return true;
        };
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
        if (!next()) return;
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
        if (!next()) return;
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
        if (!next()) return;
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
        next();
    }

    // STEP_TIME's steps when PYTORCH_API has no ProfilerStep#N slice (no CPU activity).
    void writeSteps(sqlite::Database& db, Emitter& e, std::vector<std::string>& damage)
    {
        std::string error;
        bool first = true;
        if (!query(db, "SELECT id, startNs, endNs FROM STEP_TIME", "STEP_TIME", &error,
                   [&](sqlite::Statement& st) {
                       const auto id = st.integer(0), start = st.integer(1), end = st.integer(2);
                       if (!id || !start || !end) return;
                       if (first) e.threadMeta(m_shared->hostPid, 0, "Steps", 0);
                       first = false;
                       e.slice(m_shared->hostPid, 0, *start, *end,
                               "ProfilerStep#" + std::to_string(*id), "cpu_op", {});
                   }))
            addOnce(damage, notRead(error));
    }

    std::shared_ptr<const sqlite::DbFile> m_file; // the view every connection reads
    std::string m_name;
    const LoadOptions& m_options;
    LoadProgress* m_progress;
    std::shared_ptr<const sqlite::PageFile> m_view; // its pages (null: not SQLite's format)
    std::mutex m_poolMutex;
    std::vector<std::unique_ptr<sqlite::Database>> m_pool;
    std::map<std::string, std::string, std::less<>> m_located; // table -> its damage named
    std::vector<std::string> m_damage; // notes of this thread's reads, in order
    std::vector<std::pair<std::string, std::string>> m_rangeDamage; // table, SQLite's error
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
    std::string why;
    auto view = sqlite::DbFile::open(file, &why);
    if (!view) {
        LoadResult r;
        r.resolvedPath = file;
        r.stop = LoadStop::Unreadable;
        r.message = file + ": cannot open as a database (" + why + ")";
        return r;
    }
    return Reader(std::move(view), options, progress).run(rank);
}

LoadResult readDatabaseBytes(const void* data, std::size_t size, const std::string& name,
                             const LoadOptions& options)
{
    const std::string_view bytes(static_cast<const char*>(data), data ? size : 0);
    return readDatabaseView(sqlite::DbFile::fromBytes(name, bytes), options);
}

LoadResult readDatabaseView(std::shared_ptr<const sqlite::DbFile> file, const LoadOptions& options)
{
    return Reader(std::move(file), options, nullptr).run(std::nullopt);
}

} // namespace torchnpudb
} // namespace rs
