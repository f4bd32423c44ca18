#include "core/producers/nsys/reader.h"

#include "core/producers/nsys/schema.h"
#include "core/producers/nsys/shared.h"
#include "core/producers/producer.h"
#include "core/tracebuilder.h"
#include "core/workpool.h"

#include <QFileInfo>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <tuple>

namespace rs {

const Producer& nsysProducer();

namespace nsys {

namespace {

constexpr std::int64_t kPieceRows = 1 << 16;
constexpr std::uint64_t kMaxPieces = 4096;
// Model bytes per row read, for the budget's projection up front: a slice (40) with its args
// text (a kernel's 150 bytes of JSON), names interned, a launch's two flow steps.
constexpr std::uint64_t kBytesPerRow = 240;
// Args text per slice to reserve up front, before any is measured (a CUDA call's ~30 bytes, a
// kernel's ~120 and its demangled name); each phase's first wave then measures its own
// (reserveText), so the text is copied at most once, while still small.
constexpr std::size_t kArgsBytesPerSlice = 48;

// NVTX event types (ENUM_NSYS_EVENT_TYPE) the reader shows, and those that name things.
constexpr std::int64_t kNvtxMark = 34, kNvtxPushPop = 59, kNvtxStartEnd = 60;
constexpr std::int64_t kNvtxCategory = 33, kNvtxDomainCreate = 75;

enum class Kind : std::uint8_t { Kernel, Memcpy, Memset, Osrt, Nvtx, Runtime };

const char* tableOf(Kind k)
{
    switch (k) {
    case Kind::Kernel:
        return "CUPTI_ACTIVITY_KIND_KERNEL";
    case Kind::Memcpy:
        return "CUPTI_ACTIVITY_KIND_MEMCPY";
    case Kind::Memset:
        return "CUPTI_ACTIVITY_KIND_MEMSET";
    case Kind::Osrt:
        return "OSRT_API";
    case Kind::Nvtx:
        return "NVTX_EVENTS";
    case Kind::Runtime:
        return "CUPTI_ACTIVITY_KIND_RUNTIME";
    }
    return "";
}

struct Piece {
    Kind kind = Kind::Kernel;
    std::int64_t lo = 0, hi = 0; // rowid range, inclusive
};

// A GPU op's launch key ((pid << 32) | correlationId: ids repeat across processes) and where
// its flow ends.
struct Launched {
    std::uint64_t key = 0;
    std::uint64_t pid = 0, tid = 0;
    std::int64_t start = 0;
    bool operator<(const Launched& o) const
    {
        return std::tie(key, start, tid) < std::tie(o.key, o.start, o.tid);
    }
};
std::uint64_t launchKey(std::uint32_t pid, std::int64_t correlation)
{
    return std::uint64_t(pid) << 32 | (std::uint64_t(correlation) & 0xffffffffu);
}

// What a piece produced besides its events; recycled from piece to piece.
struct PieceOut {
    TraceBuilder builder{true};
    TextArena arena;
    std::string error;
    bool cancelled = false;
    std::uint64_t rows = 0;
    std::vector<Launched> launched;
    std::set<std::pair<std::uint32_t, std::int64_t>> pidDevices; // every process's devices
    std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> streams; // device, ctx, stream
    std::set<std::int64_t> threads;                                         // globalTid
    std::set<std::pair<std::uint32_t, std::int64_t>> startEnd;              // (pid, domain)
    std::set<std::int64_t> cudaChains, osrtChains;
    std::map<std::string, std::uint64_t> missing, backwards, unshown;
    std::uint64_t flows = 0;
    bool sawStep = false;

    void reset()
    {
        sawStep = false;
        builder.recycle();
        arena.clear();
        error.clear();
        cancelled = false;
        rows = 0;
        flows = 0;
        launched.clear();
        pidDevices.clear();
        streams.clear();
        threads.clear();
        startEnd.clear();
        cudaChains.clear();
        osrtChains.clear();
        missing.clear();
        backwards.clear();
        unshown.clear();
    }
};

// Column positions of the reads below (the names asked, in this order).
enum KernelCol {
    kKStart,
    kKEnd,
    kKDevice,
    kKContext,
    kKStream,
    kKCorr,
    kKPid,
    kKShort,
    kKDemangled,
    kKGridX,
    kKGridY,
    kKGridZ,
    kKBlockX,
    kKBlockY,
    kKBlockZ,
    kKRegisters,
    kKStaticShared,
    kKDynamicShared,
    kKGraphNode
};
enum CopyCol {
    kCStart,
    kCEnd,
    kCDevice,
    kCContext,
    kCStream,
    kCCorr,
    kCPid,
    kCBytes,
    kCKind,
    kCSrcKind,
    kCDstKind,
    kCSrcDevice,
    kCDstDevice,
    kCValue,
    kCGraphNode
};
enum RuntimeCol { kRStart, kREnd, kRClass, kRTid, kRCorr, kRName, kRReturn, kRChain };
enum NvtxCol {
    kNStart,
    kNEnd,
    kNType,
    kNCategory,
    kNText,
    kNTid,
    kNEndTid,
    kNTextId,
    kNDomain,
    kNU64,
    kNI64,
    kNDouble,
    kNU32,
    kNI32,
    kNFloat,
    kNJson,
    kNBinary
};

class Reader {
public:
    Reader(std::string file, std::string shownAs, std::string part, const LoadOptions& options,
           LoadProgress* progress)
        : m_file(file), m_name(shownAs.empty() ? file : std::move(shownAs)),
          m_part(std::move(part)), m_options(options), m_progress(progress)
    {}

    using Open = std::function<bool(sqlite::Database&)>;
    using OpenPages = std::function<std::shared_ptr<const sqlite::PageFile>(std::string*)>;

    LoadResult run(std::optional<int> rank, const Open& open, const OpenPages& openPages)
    {
        m_open = open;
        sqlite::Database db;
        if (!m_open(db)) return failed(LoadStop::Malformed, db.error());
        const ExportSchema schema = readSchema(db);
        if (!schema.isExport)
            return failed(LoadStop::Malformed,
                          m_name + ": an SQLite database, but not an Nsight Systems export (no " +
                              kLookedFor + ")");
        m_schema = &schema;
        Shared shared;
        shared.file = m_name;
        if (!m_part.empty()) {
            shared.partPid = processOfPart(m_part);
            if (!shared.partPid)
                return failed(LoadStop::Malformed,
                              m_name + ": no process '" + m_part + "' (a part is \"pid N\")");
        }
        checkColumns(db);
        if (cancelled()) return failed(LoadStop::Cancelled, "loading was cancelled");
        std::string why;
        if (!m_options.databaseViaSql) m_pages = openPages(&why);
        resolveTables(db);

        // The budget, up front: rows to read times what a row costs in the model.
        const std::uint64_t budget =
            m_options.maxMemoryBytes ? m_options.maxMemoryBytes : defaultMemoryBudget();
        std::uint64_t rows = 0;
        for (Kind k :
             {Kind::Kernel, Kind::Memcpy, Kind::Memset, Kind::Osrt, Kind::Nvtx, Kind::Runtime})
            rows = std::min<std::uint64_t>(rows + rowSpan(db, k), UINT64_MAX / 1024);
        m_rowsTotal = std::max<std::uint64_t>(rows, 1);
        if (rows * kBytesPerRow > budget)
            return failed(LoadStop::OverBudget,
                          "loading would need about " + gib(rows * kBytesPerRow) + " (" +
                              std::to_string(rows) + " rows), more than the memory budget of " +
                              gib(budget) + "; raise it with --max-memory");
        if (m_progress) {
            m_progress->total.store(fileBytes());
            m_progress->done.store(0);
        }

        if (std::string e = readShared(db, shared); !e.empty())
            return failed(cancelled() ? LoadStop::Cancelled : LoadStop::Malformed, e);
        m_shared = &shared;

        TraceBuilder main;
        main.setPath(m_name);
        main.setProducer(nsysProducer());
        {
            const std::size_t slices = std::size_t(std::min<std::uint64_t>(rows, 1ull << 40));
            std::size_t launches = 0;
            for (Kind k : {Kind::Kernel, Kind::Memcpy, Kind::Memset})
                launches += std::size_t(std::min<std::uint64_t>(rowSpan(db, k), 1ull << 40));
            main.reserveFor(
                {slices + 4096, slices * kArgsBytesPerSlice, slices + 4096, launches * 2}, budget);
            // Bounded: the rows passed the budget's check above.
            m_launched.reserve(launches);
        }
        TextArena mainArena;

        // NVTX's names and NCCL's ranks on the pool, while the GPU tables are read.
        NvtxNames names;
        std::string namesError;
        auto namesTask = std::make_unique<TaskGroup>(WorkPool::global());
        if (m_tables[int(Kind::Nvtx)].present)
            namesTask->run([&] {
                sqlite::Database own;
                if (!m_open(own)) {
                    namesError = own.error();
                    return;
                }
                readNvtxNames(own, m_pages, shared, !m_options.databaseViaSql, cancelFlag(), names,
                              &namesError);
            });

        // The GPU work first (the launches the CUDA calls' flows end at), with the OS runtime
        // calls; then NVTX and the CUDA calls.
        std::string error;
        bool stopped = false;
        const std::vector<Piece> first =
            pieces(db, {Kind::Kernel, Kind::Memcpy, Kind::Memset, Kind::Osrt});
        std::uint64_t laterRows = 0;
        for (Kind k : {Kind::Nvtx, Kind::Runtime})
            laterRows += rowSpan(db, k);
        runPieces(first, main, &error, &stopped, rows - std::min(rows, laterRows), laterRows,
                  budget);
        namesTask->wait();
        namesTask.reset();
        if (error.empty() && !namesError.empty() && namesError != "loading was cancelled")
            error = namesError;
        shared.domains = std::move(names.domains);
        shared.categories = std::move(names.categories);
        shared.ncclRanks = std::move(names.ncclRanks);
        mergeLaunched();
        if (!stopped && error.empty())
            runPieces(pieces(db, {Kind::Nvtx, Kind::Runtime}), main, &error, &stopped, laterRows, 0,
                      budget);
        if (stopped || cancelled()) return failed(LoadStop::Cancelled, "loading was cancelled");

        Emitter meta(main, mainArena);
        writeLayout(meta);
        writeFrames(main);
        const RankChoice choice = chooseRank(db, schema, rank);
        if (choice.rank)
            main.setRank(*choice.rank);
        else
            main.setFallbackRank(m_options.rankHint);
        main.addMetadata("nsys", facts(schema, choice));
        warn(main);

        LoadResult r;
        r.resolvedPath = m_name;
        r.status = LoadStatus::Complete;
        if (!error.empty()) {
            if (main.eventCount() == 0) return failed(LoadStop::Malformed, error);
            r.status = LoadStatus::Partial;
            r.stop = LoadStop::Malformed;
            r.message = error;
            main.addWarning(error + "; the rows before it were loaded");
        }
        if (main.eventCount() == 0)
            main.addWarning(m_part.empty() ? "the export holds no events"
                                           : "process " + m_part + " has no events");
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

    std::uint64_t fileBytes() const
    {
        const QFileInfo f(QString::fromStdString(m_file));
        return f.exists() ? static_cast<std::uint64_t>(std::max<qint64>(f.size(), 0)) : 0;
    }

    const std::atomic<bool>* cancelFlag() const
    {
        return m_progress ? &m_progress->cancel : nullptr;
    }
    bool cancelled() const
    {
        return m_progress && m_progress->cancel.load(std::memory_order_relaxed);
    }

    void advance(std::uint64_t rows)
    {
        const std::uint64_t done = m_rowsDone.fetch_add(rows) + rows;
        if (!m_progress) return;
        const double share = std::min(1.0, double(done) / double(m_rowsTotal));
        m_progress->done.store(static_cast<std::uint64_t>(share * double(fileBytes()) * 0.97));
        if (m_progress->onAdvance) m_progress->onAdvance();
    }

    // A present table must have the columns the reader cannot do without; one that lacks any
    // is of a schema this version does not know: not read, with a warning naming both.
    void checkColumns(sqlite::Database& db)
    {
        for (const TableSpec& spec : tableSpecs()) {
            if (!m_schema->tables.count(spec.table)) continue;
            const std::vector<std::string> have = db.columns(spec.table);
            std::string_view cols = spec.required;
            while (!cols.empty()) {
                const std::size_t comma = cols.find(',');
                const std::string c(cols.substr(0, comma));
                if (std::find(have.begin(), have.end(), c) == have.end()) {
                    m_unusable.insert(spec.table);
                    m_warnings.push_back("table " + std::string(spec.table) + " has no column " +
                                         c + " (a schema this version does not read): not read");
                    break;
                }
                cols =
                    comma == std::string_view::npos ? std::string_view() : cols.substr(comma + 1);
            }
        }
    }

    bool usable(const std::string& table) const
    {
        return m_schema->tables.count(table) && !m_unusable.count(table);
    }

    TableRead table(sqlite::Database& db, const std::string& name,
                    std::initializer_list<const char*> cols)
    {
        if (!usable(name)) {
            TableRead t;
            t.table = name;
            return t;
        }
        return resolveTable(db, name, cols, !m_options.databaseViaSql && m_pages);
    }

    void resolveTables(sqlite::Database& db)
    {
        m_tables[int(Kind::Kernel)] = table(
            db, tableOf(Kind::Kernel),
            {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid",
             "shortName", "demangledName", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
             "registersPerThread", "staticSharedMemory", "dynamicSharedMemory", "graphNodeId"});
        for (Kind k : {Kind::Memcpy, Kind::Memset})
            m_tables[int(k)] =
                table(db, tableOf(k),
                      {"start", "end", "deviceId", "contextId", "streamId", "correlationId",
                       "globalPid", "bytes", "copyKind", "srcKind", "dstKind", "srcDeviceId",
                       "dstDeviceId", "value", "graphNodeId"});
        m_tables[int(Kind::Runtime)] =
            table(db, tableOf(Kind::Runtime),
                  {"start", "end", "eventClass", "globalTid", "correlationId", "nameId",
                   "returnValue", "callchainId"});
        m_tables[int(Kind::Osrt)] =
            table(db, tableOf(Kind::Osrt),
                  {"start", "end", "eventClass", "globalTid", "correlationId", "nameId",
                   "returnValue", "callchainId"});
        m_tables[int(Kind::Nvtx)] =
            table(db, tableOf(Kind::Nvtx),
                  {"start", "end", "eventType", "category", "text", "globalTid", "endGlobalTid",
                   "textId", "domainId", "uint64Value", "int64Value", "doubleValue", "uint32Value",
                   "int32Value", "floatValue", "jsonText", "binaryData"});
    }

    std::uint64_t rowSpan(sqlite::Database& db, Kind k) const
    {
        if (!m_tables[int(k)].present) return 0;
        const auto [lo, hi] = rowidRange(db, tableOf(k));
        return lo > hi ? 0 : std::uint64_t(hi) - std::uint64_t(lo) + 1;
    }

    // The tables' row ranges, interleaved by their share of each table (the first wave holds
    // some of every table).
    std::vector<Piece> pieces(sqlite::Database& db, std::initializer_list<Kind> kinds) const
    {
        std::vector<std::pair<double, Piece>> order;
        for (Kind k : kinds) {
            if (!m_tables[int(k)].present) continue;
            const auto [lo, hi] = rowidRange(db, tableOf(k));
            if (lo > hi) continue;
            // Sparse rowids still give at most kMaxPieces ranges (computed unsigned: the ends
            // may be int64's).
            const std::uint64_t span = std::uint64_t(hi) - std::uint64_t(lo);
            const std::uint64_t count = std::min<std::uint64_t>(span / kPieceRows + 1, kMaxPieces);
            const std::uint64_t step = span / count + 1;
            for (std::uint64_t i = 0; i < count; ++i) {
                const std::uint64_t a = std::uint64_t(lo) + i * step;
                const std::uint64_t b = i + 1 == count ? std::uint64_t(hi) : a + step - 1;
                order.push_back({double(i) / double(count), {k, std::int64_t(a), std::int64_t(b)}});
            }
        }
        std::stable_sort(order.begin(), order.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        std::vector<Piece> out;
        for (auto& [share, p] : order)
            out.push_back(p);
        return out;
    }

    // Reads pieces in waves on the pool, each into its own partial builder, absorbed in order
    // (the next wave is read while this thread absorbs the one before).
    // phaseRows: the rows of these pieces' tables, laterRows: those read after them; the first
    // wave's args text per row projects the text of the rest (reserveText).
    void runPieces(const std::vector<Piece>& pieces, TraceBuilder& main, std::string* error,
                   bool* stopped, std::uint64_t phaseRows, std::uint64_t laterRows,
                   std::uint64_t budget)
    {
        const std::size_t textBefore = main.sizes().text;
        std::uint64_t rowsRead = 0;
        WorkPool& pool = WorkPool::global();
        const std::size_t wave = std::size_t(std::max(2, pool.threadCount())) * 2;
        struct Wave {
            std::vector<std::unique_ptr<PieceOut>> outs;
            std::unique_ptr<TaskGroup> group;
            std::size_t first = 0, n = 0;
        };
        Wave waves[2];
        for (Wave& w : waves)
            for (std::size_t i = 0; i < wave; ++i)
                w.outs.push_back(std::make_unique<PieceOut>());
        auto start = [&](Wave& w, std::size_t first) {
            w.first = first;
            w.n = std::min(wave, pieces.size() - first);
            w.group = std::make_unique<TaskGroup>(pool);
            for (std::size_t k = 0; k < w.n; ++k)
                w.group->run([&, k] { readPiece(pieces[w.first + k], *w.outs[k]); });
        };
        if (pieces.empty()) return;
        start(waves[0], 0);
        for (int cur = 0;; cur ^= 1) {
            Wave& w = waves[cur];
            w.group->wait();
            const std::size_t next = w.first + w.n;
            const bool more = !*stopped && error->empty() && next < pieces.size();
            if (more) start(waves[cur ^ 1], next);
            for (std::size_t k = 0; k < w.n; ++k) {
                PieceOut& o = *w.outs[k];
                *stopped |= o.cancelled;
                if (error->empty() && !o.error.empty()) *error = o.error;
                main.absorb(o.builder);
                merge(o);
                advance(o.rows);
                rowsRead += o.rows;
                o.reset();
            }
            if (w.first == 0 && more)
                reserveText(main, main.sizes().text - textBefore, rowsRead,
                            phaseRows - std::min(phaseRows, rowsRead), laterRows, budget);
            if (!more) break;
        }
        // A wave started before an error was seen has ended (its group waited) by now.
        for (Wave& w : waves)
            if (w.group) w.group->wait();
    }

    // The args text's capacity for the rows still to come: this phase's at the text per row its
    // first wave measured, a later phase's at the estimate; 10% more. Reserved once it is
    // known, while the text is small (a doubling of a gigabyte of text was 13% of a load).
    static void reserveText(TraceBuilder& main, std::size_t text, std::uint64_t rows,
                            std::uint64_t phaseLeft, std::uint64_t laterRows, std::uint64_t budget)
    {
        if (rows == 0) return;
        const double perRow = double(text) / double(rows);
        const double more =
            (perRow * double(phaseLeft) + double(kArgsBytesPerSlice) * double(laterRows)) * 1.1;
        TraceBuilder::Sizes want = main.sizes();
        want.text += std::size_t(std::min(more, 0x1p40));
        want.slices = want.offsets = want.flows = 0; // reserved up front
        main.reserveFor(want, budget);
    }

    // The launches, each piece's sorted run merged pairwise (a sort of millions of them on
    // this thread was 2.6% of a load).
    void mergeLaunched()
    {
        std::vector<std::size_t> runs = std::move(m_runs);
        runs.push_back(m_launched.size());
        while (runs.size() > 2) {
            std::vector<std::size_t> next;
            for (std::size_t i = 0; i + 1 < runs.size(); i += 2) {
                next.push_back(runs[i]);
                if (i + 2 < runs.size())
                    std::inplace_merge(m_launched.begin() + std::ptrdiff_t(runs[i]),
                                       m_launched.begin() + std::ptrdiff_t(runs[i + 1]),
                                       m_launched.begin() + std::ptrdiff_t(runs[i + 2]));
                else
                    next.push_back(runs[i + 1]); // an odd run waits for the next pass
            }
            if (runs.size() % 2 == 1) next.push_back(runs.back());
            runs = std::move(next);
        }
    }

    void merge(PieceOut& o)
    {
        if (!o.launched.empty()) m_runs.push_back(m_launched.size());
        m_launched.insert(m_launched.end(), o.launched.begin(), o.launched.end());
        m_pidDevices.insert(o.pidDevices.begin(), o.pidDevices.end());
        m_streams.insert(o.streams.begin(), o.streams.end());
        m_threads.insert(o.threads.begin(), o.threads.end());
        m_startEnd.insert(o.startEnd.begin(), o.startEnd.end());
        m_cudaChains.insert(o.cudaChains.begin(), o.cudaChains.end());
        m_osrtChains.insert(o.osrtChains.begin(), o.osrtChains.end());
        for (auto& [t, n] : o.missing)
            m_missing[t] += n;
        for (auto& [t, n] : o.backwards)
            m_backwards[t] += n;
        for (auto& [t, n] : o.unshown)
            m_unshown[t] += n;
        m_flows += o.flows;
        m_sawStep |= o.sawStep;
    }

    void readPiece(const Piece& piece, PieceOut& out)
    {
        sqlite::Database db;
        if (!m_open(db)) {
            out.error = db.error();
            return;
        }
        const TableRead& t = m_tables[int(piece.kind)];
        Emitter e(out.builder, out.arena);
        Args a;
        const std::pair<std::int64_t, std::int64_t> range{piece.lo, piece.hi};
        RowState st;
        try {
            scan(db, m_pages, t, range, cancelFlag(), &out.error, [&](const RowView& r) {
                ++out.rows;
                switch (piece.kind) {
                case Kind::Kernel:
                    kernelRow(r, out, e, a, st);
                    break;
                case Kind::Memcpy:
                case Kind::Memset:
                    copyRow(r, piece.kind == Kind::Memset, out, e, a, st);
                    break;
                case Kind::Runtime:
                case Kind::Osrt:
                    callRow(r, piece.kind == Kind::Osrt, out, e, a, st);
                    break;
                case Kind::Nvtx:
                    nvtxRow(r, out, e, a, st);
                    break;
                }
            });
        } catch (const std::bad_alloc&) {
            out.error = m_name + ": table " + t.table + ": out of memory";
        }
        // Sorted here, on the pool: the main thread merges the pieces' runs (mergeLaunched).
        if (!std::is_sorted(out.launched.begin(), out.launched.end()))
            std::sort(out.launched.begin(), out.launched.end());
        if (out.error == "loading was cancelled") {
            out.cancelled = true;
            out.error.clear();
        }
    }

    // Per piece: the last values seen, so the sets are asked only when they change.
    struct RowState {
        std::optional<std::pair<std::uint32_t, std::int64_t>> pidDevice;
        std::optional<std::tuple<std::int64_t, std::int64_t, std::int64_t>> stream;
        std::optional<std::int64_t> thread;
        std::size_t launchHint = SIZE_MAX;
    };

    // A name by its StringIds id; a missing row is counted for the table and shown by its id.
    std::string_view str(std::optional<std::int64_t> id, const std::string& table, PieceOut& out)
    {
        if (!id) return {};
        if (auto s = m_shared->strings.find(*id)) return *s;
        ++out.missing[table];
        const std::string text = "StringIds " + std::to_string(*id);
        const TextRef ref = out.arena.add(text);
        return ref.view();
    }

    // The columns every GPU row has; false for a row that gives no event.
    bool deviceRow(const RowView& r, int start, int end, int device, int stream, int pidCol,
                   const std::string& table, PieceOut& out, Emitter& e, RowState& st,
                   std::int64_t* s, std::int64_t* en, std::int64_t* dev, std::int64_t* str,
                   std::uint32_t* pid)
    {
        const auto a = r.integer(start), b = r.integer(end), d = r.integer(device),
                   q = r.integer(stream), g = r.integer(pidCol);
        if (!a || !b || !d || !q || !g) {
            e.skipped(1);
            return false;
        }
        *pid = pidOf(*g);
        if (st.pidDevice != std::pair{*pid, *d}) {
            st.pidDevice = std::pair{*pid, *d};
            out.pidDevices.insert(*st.pidDevice);
        }
        if (!m_shared->wantsProcess(*pid)) return false;
        if (*b < *a) {
            ++out.backwards[table];
            e.skipped(1);
            return false;
        }
        *s = *a;
        *en = *b;
        *dev = *d;
        *str = *q;
        return true;
    }

    void noteStream(PieceOut& out, RowState& st, std::int64_t dev, std::int64_t ctx,
                    std::int64_t stream)
    {
        const auto key = std::tuple{dev, ctx, stream};
        if (st.stream != key) {
            st.stream = key;
            out.streams.insert(key);
        }
    }

    void kernelRow(const RowView& r, PieceOut& out, Emitter& e, Args& a, RowState& st)
    {
        const TableRead& t = m_tables[int(Kind::Kernel)];
        std::int64_t start, end, dev, stream;
        std::uint32_t pid;
        if (!deviceRow(r, kKStart, kKEnd, kKDevice, kKStream, kKPid, t.table, out, e, st, &start,
                       &end, &dev, &stream, &pid))
            return;
        const std::int64_t ctx = r.integer(kKContext).value_or(0);
        noteStream(out, st, dev, ctx, stream);
        const std::string_view name = str(r.integer(kKShort), t.table, out);
        const auto corr = r.integer(kKCorr);
        a.clear();
        if (!r.isNull(kKDemangled)) a.str("demangled", str(r.integer(kKDemangled), t.table, out));
        if (corr) a.num("correlation", *corr);
        a.num("device", dev).num("context", ctx).num("stream", stream);
        if (!r.isNull(kKGridX))
            a.triple("grid", r.integer(kKGridX).value_or(0), r.integer(kKGridY).value_or(0),
                     r.integer(kKGridZ).value_or(0));
        if (!r.isNull(kKBlockX))
            a.triple("block", r.integer(kKBlockX).value_or(0), r.integer(kKBlockY).value_or(0),
                     r.integer(kKBlockZ).value_or(0));
        if (auto v = r.integer(kKRegisters)) a.num("registers per thread", *v);
        if (!r.isNull(kKStaticShared) || !r.isNull(kKDynamicShared))
            a.num("shared memory",
                  r.integer(kKStaticShared).value_or(0) + r.integer(kKDynamicShared).value_or(0));
        if (auto v = r.integer(kKGraphNode)) a.num("graph node", *v);
        const std::uint64_t gpu = gpuPid(dev), tid = streamTid(ctx, stream);
        e.slice(gpu, tid, start, end, name, kCatKernel, a.done());
        if (corr) out.launched.push_back({launchKey(pid, *corr), gpu, tid, start});
    }

    std::string_view label(const std::map<std::int64_t, std::string>& m,
                           std::optional<std::int64_t> id) const
    {
        if (!id) return {};
        auto it = m.find(*id);
        return it == m.end() ? std::string_view() : std::string_view(it->second);
    }

    void copyRow(const RowView& r, bool memset, PieceOut& out, Emitter& e, Args& a, RowState& st)
    {
        const TableRead& t = m_tables[int(memset ? Kind::Memset : Kind::Memcpy)];
        std::int64_t start, end, dev, stream;
        std::uint32_t pid;
        if (!deviceRow(r, kCStart, kCEnd, kCDevice, kCStream, kCPid, t.table, out, e, st, &start,
                       &end, &dev, &stream, &pid))
            return;
        const std::int64_t ctx = r.integer(kCContext).value_or(0);
        noteStream(out, st, dev, ctx, stream);
        const auto corr = r.integer(kCCorr);
        a.clear();
        a.num("bytes", r.integer(kCBytes).value_or(0));
        std::string_view name = "[CUDA memset]";
        if (!memset) {
            const auto kind = r.integer(kCKind);
            const std::string_view k = label(m_shared->memcpyKinds, kind);
            // nsys's own names: "[CUDA memcpy Host-to-Device]".
            name = k.empty() ? std::string_view("[CUDA memcpy]") : k;
            a.str("kind", kindLabel(kind));
            if (auto s = r.integer(kCSrcKind)) a.str("src kind", memKind(*s));
            if (auto d = r.integer(kCDstKind)) a.str("dst kind", memKind(*d));
            if (auto s = r.integer(kCSrcDevice)) a.num("src device", *s);
            if (auto d = r.integer(kCDstDevice)) a.num("dst device", *d);
        } else if (auto v = r.integer(kCValue)) {
            a.num("value", *v);
        }
        if (corr) a.num("correlation", *corr);
        a.num("device", dev).num("context", ctx).num("stream", stream);
        if (auto v = r.integer(kCGraphNode)) a.num("graph node", *v);
        const std::uint64_t gpu = gpuPid(dev), tid = streamTid(ctx, stream);
        e.slice(gpu, tid, start, end, name, memset ? kCatMemset : kCatMemcpy, a.done());
        if (corr) out.launched.push_back({launchKey(pid, *corr), gpu, tid, start});
    }

    std::string_view kindLabel(std::optional<std::int64_t> kind) const
    {
        auto it = kind ? m_kindLabels.find(*kind) : m_kindLabels.end();
        return it == m_kindLabels.end() ? std::string_view("Unknown")
                                        : std::string_view(it->second);
    }
    std::string_view memKind(std::int64_t id) const
    {
        const std::string_view l = label(m_shared->memKinds, id);
        return l.empty() ? std::string_view("Unknown") : l;
    }

    // A CUDA API call (CUPTI_ACTIVITY_KIND_RUNTIME: the runtime's and the driver's) or an OS
    // runtime call, on its thread; a CUDA call starts the flows to the GPU work it launched.
    void callRow(const RowView& r, bool osrt, PieceOut& out, Emitter& e, Args& a, RowState& st)
    {
        const TableRead& t = m_tables[int(osrt ? Kind::Osrt : Kind::Runtime)];
        const auto start = r.integer(kRStart), end = r.integer(kREnd), gtid = r.integer(kRTid);
        if (!start || !end || !gtid) {
            e.skipped(1);
            return;
        }
        const std::uint32_t pid = pidOf(*gtid), tid = tidOf(*gtid);
        if (!m_shared->wantsProcess(pid)) return;
        if (*end < *start) {
            ++out.backwards[t.table];
            e.skipped(1);
            return;
        }
        noteThread(out, st, *gtid);
        std::string_view name = str(r.integer(kRName), t.table, out);
        std::string_view cat = kCatOsrt;
        if (!osrt) {
            name = apiName(name);
            cat = r.integer(kRClass).value_or(0) == 1 ? kCatDriver : kCatRuntime;
        }
        const auto corr = osrt ? std::nullopt : r.integer(kRCorr);
        a.clear();
        if (corr) a.num("correlation", *corr);
        if (auto v = r.integer(kRReturn)) a.num("return", *v);
        std::string_view sf;
        char frame[32];
        if (auto chain = r.integer(kRChain)) {
            const auto& chains = osrt ? m_shared->osrtChains : m_shared->cudaChains;
            if (chains.count(*chain)) {
                const int n = std::snprintf(frame, sizeof frame, "%c%lld:0", osrt ? 'o' : 'c',
                                            static_cast<long long>(*chain));
                sf = std::string_view(frame, std::size_t(n));
                (osrt ? out.osrtChains : out.cudaChains).insert(*chain);
            }
        }
        e.slice(pid, tid, *start, *end, name, cat, a.done(), sf);
        if (!corr) return;
        // The GPU work of this call: a flow to each (a graph launch has many).
        const std::uint64_t key = launchKey(pid, *corr);
        const std::size_t at = lowerBound(key, st.launchHint);
        for (std::size_t i = at; i < m_launched.size() && m_launched[i].key == key; ++i) {
            if (i == at) e.flow('s', pid, tid, *start, kFlowLaunch, key);
            e.flow('f', m_launched[i].pid, m_launched[i].tid, m_launched[i].start, kFlowLaunch,
                   key);
            ++out.flows;
        }
    }

    // std::lower_bound of key in the launches, galloping from where the last search ended
    // (a thread's calls come in correlation order).
    std::size_t lowerBound(std::uint64_t key, std::size_t& hint) const
    {
        const auto& v = m_launched;
        std::size_t lo = 0, hi = v.size();
        if (hint < v.size()) {
            if (v[hint].key < key) {
                lo = hint + 1;
                for (std::size_t step = 1; lo < hi; step *= 2) {
                    const std::size_t p = std::min(lo + step - 1, hi - 1);
                    if (!(v[p].key < key)) {
                        hi = p;
                        break;
                    }
                    lo = p + 1;
                }
            } else {
                hi = hint;
            }
        }
        const auto it =
            std::lower_bound(v.begin() + std::ptrdiff_t(lo), v.begin() + std::ptrdiff_t(hi), key,
                             [](const Launched& l, std::uint64_t k) { return l.key < k; });
        hint = std::size_t(it - v.begin());
        return hint;
    }

    void nvtxRow(const RowView& r, PieceOut& out, Emitter& e, Args& a, RowState& st)
    {
        const TableRead& t = m_tables[int(Kind::Nvtx)];
        const auto type = r.integer(kNType), start = r.integer(kNStart);
        if (!type || !start) {
            e.skipped(1);
            return;
        }
        if (*type == kNvtxCategory || *type == kNvtxDomainCreate) return; // names (nvtxnames)
        const auto gtid = r.integer(kNTid);
        if (!gtid) {
            e.skipped(1);
            return;
        }
        const std::uint32_t pid = pidOf(*gtid), tid = tidOf(*gtid);
        if (!m_shared->wantsProcess(pid)) return;
        if (*type != kNvtxMark && *type != kNvtxPushPop && *type != kNvtxStartEnd) {
            ++out.unshown[t.table];
            return;
        }
        const auto end = r.integer(kNEnd);
        if (end && *end < *start) {
            ++out.backwards[t.table];
            e.skipped(1);
            return;
        }
        std::string_view text = r.text(kNText);
        if (r.isNull(kNText)) text = str(r.integer(kNTextId), t.table, out);
        const std::int64_t domain = r.integer(kNDomain).value_or(0);
        a.clear();
        std::string_view cat = kCatNvtx;
        std::string_view name = text;
        if (auto op = splitTorchOpName(text)) {
            cat = kCatTorchOp;
            name = op->name;
            for (const auto& [k, v] : op->fields) {
                std::int64_t n = 0;
                const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
                if (ec == std::errc() && p == v.data() + v.size())
                    a.numKey(k, n);
                else
                    a.strKey(k, v);
            }
        }
        if (domain != 0) {
            auto it = m_shared->domains.find(domain);
            if (it != m_shared->domains.end())
                a.str("domain", it->second);
            else
                a.num("domain", domain);
        }
        if (auto c = r.integer(kNCategory); c && *c != 0) {
            auto it = m_shared->categories.find({domain, *c});
            if (it != m_shared->categories.end())
                a.str("category", it->second);
            else
                a.num("category", *c);
        }
        payload(r, domain, a);
        noteThread(out, st, *gtid);
        if (!out.sawStep && stepOf(name)) out.sawStep = true;
        const std::string_view args = a.done();
        if (*type == kNvtxMark) {
            e.instant(pid, tid, *start, name, cat, args);
        } else if (*type == kNvtxStartEnd) {
            const std::uint64_t track = kStartEndTid + (std::uint64_t(domain) & 0xffffffffu);
            out.startEnd.insert({pid, domain});
            if (end)
                e.slice(pid, track, *start, *end, name, cat, args);
            else
                e.begin(pid, track, *start, name, cat, args);
            return;
        } else if (end) {
            e.slice(pid, tid, *start, *end, name, cat, args);
        } else {
            e.begin(pid, tid, *start, name, cat, args);
        }
    }

    // A host thread that holds events (named at the end).
    static void noteThread(PieceOut& out, RowState& st, std::int64_t gtid)
    {
        if (st.thread != gtid) {
            st.thread = gtid;
            out.threads.insert(gtid);
        }
    }

    // NVTX's payload union (one of the value columns) or its binary payload, by its schema.
    void payload(const RowView& r, std::int64_t domain, Args& a)
    {
        if (auto v = r.integer(kNU64)) {
            a.unum("payload", std::uint64_t(*v));
        } else if (auto v = r.integer(kNI64)) {
            a.num("payload", *v);
        } else if (auto v = r.integer(kNU32)) {
            a.num("payload", *v);
        } else if (auto v = r.integer(kNI32)) {
            a.num("payload", *v);
        } else if (!r.isNull(kNDouble)) {
            a.real("payload", r.real(kNDouble).value_or(0));
        } else if (!r.isNull(kNFloat)) {
            a.real("payload", r.real(kNFloat).value_or(0));
        } else if (!r.isNull(kNJson)) {
            a.str("payload", r.text(kNJson));
        } else if (!r.isNull(kNBinary)) {
            const std::string_view blob = r.text(kNBinary);
            if (!m_shared->decodePayload(domain, blob, a))
                a.num("payload bytes", std::int64_t(blob.size()));
        }
    }

    // What every piece needs, read first on this thread: names, enums, call chains, payload
    // schemas, and the small tables the layout names things by.
    std::string readShared(sqlite::Database& db, Shared& s)
    {
        std::string error;
        const std::atomic<bool>* cancel = cancelFlag();
        const TableRead ids = table(db, "StringIds", {"id", "value"});
        if (ids.present) {
            const auto [lo, hi] = rowidRange(db, "StringIds");
            if (lo <= hi)
                s.strings.reserve(std::size_t(
                    std::min<std::uint64_t>(std::uint64_t(hi) - std::uint64_t(lo) + 1, 1u << 24)));
        }
        if (!scan(db, m_pages, ids, std::nullopt, cancel, &error, [&](const RowView& r) {
                if (auto id = r.integer(0)) s.strings.add(*id, r.text(1));
            }))
            return error;
        s.strings.finish();

        // The enums' labels; nsys's own where the export leaves a table out.
        static const char* const kCopyKinds[] = {"Unknown",
                                                 "Host-to-Device",
                                                 "Device-to-Host",
                                                 "Host-to-Array",
                                                 "Array-to-Host",
                                                 "Array-to-Array",
                                                 "Array-to-Device",
                                                 "Device-to-Array",
                                                 "Device-to-Device",
                                                 "Host-to-Host",
                                                 "Peer-to-Peer",
                                                 "Unified Host-to-Device",
                                                 "Unified Device-to-Host",
                                                 "Unified Device-to-Device"};
        static const char* const kMemKinds[] = {"Pageable",       "Pinned",  "Device",
                                                "Array",          "Managed", "Device Static",
                                                "Managed Static", "Unknown"};
        for (std::size_t i = 0; i < std::size(kCopyKinds); ++i)
            m_kindLabels[std::int64_t(i)] = kCopyKinds[i];
        for (std::size_t i = 0; i < std::size(kMemKinds); ++i)
            s.memKinds[std::int64_t(i)] = kMemKinds[i];
        auto labels = [&](const char* name, std::map<std::int64_t, std::string>& into) {
            const TableRead t = table(db, name, {"id", "label"});
            return scan(db, m_pages, t, std::nullopt, cancel, &error, [&](const RowView& r) {
                if (auto id = r.integer(0); id && !r.isNull(1)) into[*id] = std::string(r.text(1));
            });
        };
        if (!labels("ENUM_CUDA_MEMCPY_OPER", m_kindLabels) ||
            !labels("ENUM_CUDA_MEM_KIND", s.memKinds))
            return error;
        for (const auto& [id, l] : m_kindLabels)
            s.memcpyKinds[id] = "[CUDA memcpy " + l + "]";

        // NVTX payload schemas (each may be listed more than once: one entry per index kept).
        const TableRead schemas =
            table(db, "NVTX_PAYLOAD_SCHEMAS", {"domainId", "schemaId", "payloadSize"});
        if (!scan(db, m_pages, schemas, std::nullopt, cancel, &error, [&](const RowView& r) {
                if (auto id = r.integer(1))
                    s.schemas[{r.integer(0).value_or(0), *id}].size =
                        std::uint64_t(std::max<std::int64_t>(r.integer(2).value_or(0), 0));
            }))
            return error;
        std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, PayloadEntry> entries;
        const TableRead entryTable =
            table(db, "NVTX_PAYLOAD_SCHEMA_ENTRIES",
                  {"domainId", "schemaId", "idx", "type", "name", "offset"});
        if (!scan(db, m_pages, entryTable, std::nullopt, cancel, &error, [&](const RowView& r) {
                const auto id = r.integer(1), idx = r.integer(2), type = r.integer(3);
                if (!id || !idx || !type) return;
                // The first entry's offset is stored as NULL: 0.
                entries[{r.integer(0).value_or(0), *id, *idx}] = {std::string(r.text(4)), *type,
                                                                  r.integer(5).value_or(0)};
            }))
            return error;
        for (auto& [key, e] : entries)
            s.schemas[{std::get<0>(key), std::get<1>(key)}].entries.push_back(std::move(e));

        // Call chains, innermost frame (stackDepth 0) first.
        for (auto [name, into] : {std::pair{"CUDA_CALLCHAINS", &s.cudaChains},
                                  std::pair{"OSRT_CALLCHAINS", &s.osrtChains}}) {
            std::unordered_map<std::int64_t,
                               std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>>>
                frames;
            const TableRead t = table(db, name, {"id", "symbol", "module", "stackDepth"});
            if (!scan(db, m_pages, t, std::nullopt, cancel, &error, [&](const RowView& r) {
                    const auto id = r.integer(0), depth = r.integer(3);
                    if (id && depth && *depth >= 0 && *depth < 4096)
                        frames[*id].emplace_back(*depth, r.integer(1).value_or(-1),
                                                 r.integer(2).value_or(-1));
                }))
                return error;
            for (auto& [id, f] : frames) {
                std::sort(f.begin(), f.end());
                auto& chain = (*into)[id];
                for (const auto& [depth, symbol, module] : f)
                    chain.emplace_back(symbol, module);
            }
        }

        const TableRead processes = table(db, "PROCESSES", {"globalPid", "pid", "name"});
        if (!scan(db, m_pages, processes, std::nullopt, cancel, &error, [&](const RowView& r) {
                if (auto g = r.integer(0)) m_processNames[pidOf(*g)] = std::string(r.text(2));
            }))
            return error;
        const TableRead threads = table(db, "ThreadNames", {"nameId", "globalTid"});
        if (!scan(db, m_pages, threads, std::nullopt, cancel, &error, [&](const RowView& r) {
                const auto g = r.integer(1), n = r.integer(0);
                if (!g || !n) return;
                if (auto name = s.strings.find(*n)) m_threadNames[*g] = std::string(*name);
            }))
            return error;
        const TableRead gpus = table(db, "TARGET_INFO_GPU", {"id", "name", "busLocation"});
        if (!scan(db, m_pages, gpus, std::nullopt, cancel, &error, [&](const RowView& r) {
                if (auto id = r.integer(0)) {
                    m_gpuNames[*id] = std::string(r.text(1));
                    m_gpuBus[*id] = std::string(r.text(2));
                }
            }))
            return error;
        const TableRead session = table(db, "TARGET_INFO_SESSION_START_TIME", {"utcEpochNs"});
        if (!scan(db, m_pages, session, std::nullopt, cancel, &error, [&](const RowView& r) {
                if (auto t = r.integer(0); t && !m_sessionStart) m_sessionStart = *t;
            }))
            return error;
        return {};
    }

    // Processes, threads, GPUs and streams, named and sorted: the processes that hold events
    // (the threads and streams the pieces saw), not every one the capture listed.
    void writeLayout(Emitter& e)
    {
        std::set<std::uint32_t> pids;
        for (std::int64_t g : m_threads)
            pids.insert(pidOf(g));
        for (const auto& [pid, domain] : m_startEnd)
            pids.insert(pid);
        int sort = 0;
        for (std::uint32_t pid : pids) {
            auto it = m_processNames.find(pid);
            const std::string name = it != m_processNames.end() && !it->second.empty()
                                         ? it->second + " [" + std::to_string(pid) + "]"
                                         : "Process " + std::to_string(pid);
            e.processMeta(pid, name, sort++, "CPU");
        }
        for (std::int64_t g : m_threads) {
            const std::uint32_t pid = pidOf(g), tid = tidOf(g);
            auto it = m_threadNames.find(g);
            // The main thread first, as nsys lists it; tid 0 holds what belongs to the whole
            // process (OS runtime tracing's start and end marks).
            const std::string_view name = it != m_threadNames.end() ? std::string_view(it->second)
                                          : tid == 0 ? std::string_view("Process-wide")
                                                     : std::string_view();
            e.threadMeta(pid, tid, name, tid == pid ? 0 : std::int64_t(tid));
        }
        for (const auto& [pid, domain] : m_startEnd) {
            std::string name = "NVTX start/end ranges";
            if (domain != 0) {
                auto it = m_shared->domains.find(domain);
                name += " (" +
                        (it != m_shared->domains.end() ? it->second
                                                       : "domain " + std::to_string(domain)) +
                        ")";
            }
            e.threadMeta(pid, kStartEndTid + (std::uint64_t(domain) & 0xffffffffu), name,
                         std::int64_t(1) << 30 | (domain & 0xffff));
        }
        std::map<std::int64_t, std::set<std::int64_t>> contexts;
        for (const auto& [dev, ctx, stream] : m_streams)
            contexts[dev].insert(ctx);
        for (const auto& [dev, ctxs] : contexts) {
            std::string name = "GPU " + std::to_string(dev);
            if (auto it = m_gpuNames.find(dev); it != m_gpuNames.end() && !it->second.empty())
                name += ": " + it->second;
            e.processMeta(gpuPid(dev), name, 1000 + int(std::clamp<std::int64_t>(dev, 0, 1 << 20)),
                          "GPU");
        }
        for (const auto& [dev, ctx, stream] : m_streams) {
            std::string name = "Stream " + std::to_string(stream);
            if (contexts[dev].size() > 1) name += " (context " + std::to_string(ctx) + ")";
            e.threadMeta(gpuPid(dev), streamTid(ctx, stream), name, stream);
        }
    }

    // The call chains the calls named, as stack frames: "c<id>:<depth>" (CUDA) and
    // "o<id>:<depth>" (OS runtime), each frame's parent the one outside it.
    void writeFrames(TraceBuilder& b)
    {
        if (m_cudaChains.empty() && m_osrtChains.empty()) return;
        nlohmann::json frames = nlohmann::json::object();
        auto add = [&](char prefix, const std::set<std::int64_t>& used, const auto& chains) {
            for (std::int64_t id : used) {
                auto it = chains.find(id);
                if (it == chains.end()) continue;
                const auto& chain = it->second;
                const std::string base = prefix + std::to_string(id) + ":";
                for (std::size_t d = 0; d < chain.size(); ++d) {
                    nlohmann::json f = nlohmann::json::object();
                    f["name"] = std::string(m_shared->strings.find(chain[d].first).value_or("?"));
                    f["category"] =
                        std::string(m_shared->strings.find(chain[d].second).value_or(""));
                    if (d + 1 < chain.size()) f["parent"] = base + std::to_string(d + 1);
                    frames[base + std::to_string(d)] = std::move(f);
                }
            }
        };
        add('c', m_cudaChains, m_shared->cudaChains);
        add('o', m_osrtChains, m_shared->osrtChains);
        b.addMetadata("stackFrames", std::move(frames));
    }

    struct RankChoice {
        std::optional<int> rank;
        std::string basis; // how it was found: "NCCL", "device", "process order", "file name"
        std::optional<int> worldSize;
    };

    // The rank of what was read (docs/producers.md): for one process of a file that holds
    // several, NCCL's rank when NCCL's NVTX gives every such process one, else its GPU when
    // each runs on a GPU of its own, else its place in pid order; for a whole file, NCCL's
    // rank, else its name's number.
    RankChoice chooseRank(sqlite::Database& db, const ExportSchema& schema,
                          std::optional<int> nameRank)
    {
        RankChoice c;
        const Shared& s = *m_shared;
        for (const auto& [pid, n] : s.ncclRanks)
            if (n.ranks > 0) c.worldSize = std::max(c.worldSize.value_or(0), n.ranks);
        std::vector<std::uint32_t> procs = gpuProcesses(db, schema);
        if (s.partPid && std::find(procs.begin(), procs.end(), *s.partPid) == procs.end()) {
            procs.push_back(*s.partPid);
            std::sort(procs.begin(), procs.end());
        }
        auto nccl = [&](std::uint32_t pid) -> std::optional<int> {
            auto it = s.ncclRanks.find(pid);
            if (it == s.ncclRanks.end() || it->second.rank < 0) return std::nullopt;
            return it->second.rank;
        };
        if (!s.partPid) {
            if (procs.size() == 1)
                if (auto r = nccl(procs.front())) return {r, "NCCL", c.worldSize};
            if (nameRank) return {nameRank, "file name", c.worldSize};
            return c;
        }
        std::set<int> seen;
        bool allNccl = true;
        for (std::uint32_t pid : procs) {
            const auto r = nccl(pid);
            allNccl &= r && seen.insert(*r).second;
        }
        if (allNccl) return {nccl(*s.partPid), "NCCL", c.worldSize};
        std::map<std::uint32_t, std::set<std::int64_t>> devices;
        for (const auto& [pid, dev] : m_pidDevices)
            devices[pid].insert(dev);
        std::set<std::int64_t> used;
        bool oneEach = true;
        for (std::uint32_t pid : procs) {
            const auto& d = devices[pid];
            oneEach &= d.size() == 1 && *d.begin() >= 0 && *d.begin() < (1 << 20) &&
                       used.insert(*d.begin()).second;
        }
        if (oneEach) return {int(*devices[*s.partPid].begin()), "device", c.worldSize};
        const auto at = std::find(procs.begin(), procs.end(), *s.partPid) - procs.begin();
        return {int(at), "process order", c.worldSize};
    }

    // What the run states (read back by the producer's runFacts) and what the reader left out.
    nlohmann::json facts(const ExportSchema& schema, const RankChoice& rank)
    {
        nlohmann::json j = nlohmann::json::object();
        if (!schema.productVersion.empty()) j["product_version"] = schema.productVersion;
        if (!schema.schemaVersion.empty()) j["schema_version"] = schema.schemaVersion;
        if (m_sessionStart) j["session_start_utc_ns"] = *m_sessionStart;
        nlohmann::json gpus = nlohmann::json::array();
        for (const auto& [id, name] : m_gpuNames)
            gpus.push_back({{"id", id}, {"name", name}, {"bus", m_gpuBus[id]}});
        j["gpus"] = std::move(gpus);
        if (m_shared->partPid) j["process"] = *m_shared->partPid;
        if (rank.rank) j["rank_from"] = rank.basis;
        if (rank.worldSize) j["world_size"] = *rank.worldSize;
        j["launch_flows"] = m_flows;
        nlohmann::json unshown = nlohmann::json::object();
        for (const auto& [t, n] : m_unshown)
            unshown[t] = n;
        j["rows_not_shown"] = std::move(unshown);
        return j;
    }

    void warn(TraceBuilder& b)
    {
        for (const std::string& w : m_warnings)
            b.addWarning(w);
        for (const auto& [t, n] : m_missing)
            b.addWarning("table " + t + ": " + std::to_string(n) +
                         " names StringIds does not hold (shown as \"StringIds <id>\")");
        for (const auto& [t, n] : m_backwards)
            b.addWarning("table " + t + ": " + std::to_string(n) +
                         " rows end before they start: not shown");
        // The analysis counts steps only where the run marked them (docs/producers.md).
        if (!m_sawStep && !m_threads.empty())
            b.addWarning("no step marks (ProfilerStep#N, or an NVTX range named \"step N\" or "
                         "\"iteration N\"): no per-step figures");
    }

    std::string m_file; // what is opened
    std::string m_name; // what the trace and the messages name
    std::string m_part;
    const LoadOptions& m_options;
    LoadProgress* m_progress;
    Open m_open;
    const ExportSchema* m_schema = nullptr;
    Shared* m_shared = nullptr;
    std::shared_ptr<const sqlite::PageFile> m_pages;
    std::set<std::string, std::less<>> m_unusable;
    TableRead m_tables[6];
    std::map<std::int64_t, std::string> m_kindLabels; // copyKind -> "Host-to-Device"
    std::vector<std::string> m_warnings;
    std::uint64_t m_rowsTotal = 1;
    std::atomic<std::uint64_t> m_rowsDone{0};
    // Merged from the pieces.
    std::vector<Launched> m_launched;
    std::vector<std::size_t> m_runs; // where each piece's launches start in m_launched
    std::set<std::pair<std::uint32_t, std::int64_t>> m_pidDevices;
    std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> m_streams;
    std::set<std::int64_t> m_threads;
    std::set<std::pair<std::uint32_t, std::int64_t>> m_startEnd;
    std::set<std::int64_t> m_cudaChains, m_osrtChains;
    std::map<std::string, std::uint64_t> m_missing, m_backwards, m_unshown;
    std::uint64_t m_flows = 0;
    bool m_sawStep = false;
    // Small tables read in readShared.
    std::map<std::uint32_t, std::string> m_processNames; // pid -> PROCESSES.name
    std::map<std::int64_t, std::string> m_threadNames;   // globalTid -> name
    std::map<std::int64_t, std::string> m_gpuNames;      // device id -> name
    std::map<std::int64_t, std::string> m_gpuBus;
    std::optional<std::int64_t> m_sessionStart;
};

} // namespace

LoadResult readExport(const std::string& file, const std::string& part, std::optional<int> rank,
                      const LoadOptions& options, LoadProgress* progress,
                      const std::string& shownAs)
{
    Reader reader(file, shownAs, part, options, progress);
    const std::atomic<bool>* cancel = progress ? &progress->cancel : nullptr;
    return reader.run(
        rank, [&](sqlite::Database& db) { return db.open(file, cancel); },
        [&](std::string* why) { return sqlite::PageFile::openPath(file, why); });
}

LoadResult readExportBytes(const void* data, std::size_t size, const std::string& name,
                           const std::string& part, const LoadOptions& options)
{
    Reader reader(name, {}, part, options, nullptr);
    return reader.run(
        std::nullopt, [&](sqlite::Database& db) { return db.openBytes(name, data, size); },
        [&](std::string* why) { return sqlite::PageFile::openBytes(data, size, why); });
}

} // namespace nsys
} // namespace rs
