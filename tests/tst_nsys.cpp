// Nsight Systems' SQLite export (core/producers/nsys): the four shared runs (nsys 2024.5 to
// 2026.2, schema 3.13 to 3.25) against SQL over their own tables: `stats --by kernel` and
// `--by memcpy` are GROUP BY sums over the CUPTI tables (counts and total ns exact); kernel,
// memcpy, memset, CUDA call, NVTX and OS runtime counts are the tables' row counts (NVTX's
// naming rows, eventType 33 and 75, give no slice: docs/producers.md); the launch flows are the
// correlation joins. The 2-GPU run is a 2-rank job with its SendRecv kernels as collectives;
// a folder of per-rank exports is a job; a job mixes producers; one file's ranks are cached
// apart. Hostile exports (a missing StringIds row, a kernel ending before it starts, a table of
// another schema, a damaged page, a database of another tool) give warnings naming the table.
// Reports (.nsys-rep): without nsys on the PATH the message names the command; with a stand-in
// `nsys` (a script that copies a shared export where `nsys export` would write it: NVIDIA's nsys
// is not in Debian) the report is converted once and opens like its export.

#include "core/analysis/analyzer.h"
#include "core/cache/modelcache.h"
#include "core/job/jobloader.h"
#include "core/job/jobpipeline.h"
#include "core/producers/registry.h"
#include "core/sqlite/sqlitedb.h"
#include "core/stats/stats.h"
#include "tests/support/sqlitefixture.h"
#include "tests/testutil.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>

using namespace rs;

namespace {

struct Run {
    const char* tag;
    const char* path; // under the public traces
};
const Run kRuns[] = {
    {"2gpu_nccl", "nsys_2gpu_nccl_nsysai/mfu_2gpu_before.sqlite"},
    {"cloverleaf", "nsys_cloverleaf_2024_pipit/perlmutter-cloverleaf-cuda.sqlite"},
    {"graphs_2025", "nsys_graphs_2025_flameox/nsight-2025.5.2.sqlite"},
    {"h200_nvtx", "nsys_h200_nvtx_fuser/report1.sqlite"},
};

bool contains(const std::string& s, const std::string& part)
{
    return s.find(part) != std::string::npos;
}

std::string joined(const std::vector<std::string>& v)
{
    std::string out;
    for (const std::string& s : v)
        out += s + "\n";
    return out;
}

// One SQL answer: rows of (text, integer, integer).
struct Sql {
    sqlite::Database db;
    explicit Sql(const QString& path) { db.open(path.toStdString()); }
    bool has(const char* table) { return db.hasTable(table); }
    std::int64_t one(const std::string& sql, const char* table)
    {
        if (!db.hasTable(table)) return 0;
        sqlite::Statement st = db.prepare(sql, table);
        return st.valid() && st.step() ? st.integer(0).value_or(0) : -1;
    }
    std::map<std::string, std::pair<std::uint64_t, std::int64_t>> groups(const std::string& sql,
                                                                         const char* table)
    {
        std::map<std::string, std::pair<std::uint64_t, std::int64_t>> out;
        if (!db.hasTable(table)) return out;
        sqlite::Statement st = db.prepare(sql, table);
        while (st.valid() && st.step()) {
            auto& g = out[std::string(st.text(0))];
            g.first += std::uint64_t(st.integer(1).value_or(0));
            g.second += st.integer(2).value_or(0);
        }
        return out;
    }
};

// The process filter of one rank of a file (its pid), or none.
std::string pidFilter(const char* column, std::optional<std::uint32_t> pid)
{
    if (!pid) return "1";
    return "((" + std::string(column) + " >> 24) & 16777215) = " + std::to_string(*pid);
}

std::optional<std::uint32_t> processOf(const std::string& part)
{
    if (part.empty()) return std::nullopt;
    return std::uint32_t(std::stoul(part.substr(4))); // "pid N"
}

std::map<std::string, std::pair<std::uint64_t, std::int64_t>> statsRows(const Trace& t,
                                                                        StatsGroup by)
{
    StatsOptions o;
    o.by = by;
    std::map<std::string, std::pair<std::uint64_t, std::int64_t>> out;
    for (const StatsRow& r : computeStats(t, nullptr, o).rows)
        out[r.name] = {r.count, r.totalNs};
    return out;
}

std::size_t slicesOf(const Trace& t, const char* cat)
{
    const StrId c = t.strings().find(cat);
    std::size_t n = 0;
    for (const Slice& s : t.slices())
        n += s.cat == c;
    return n;
}

// A copy of a shared run to change.
QString copyOf(const QTemporaryDir& dir, const QString& from, const QString& name)
{
    const QString to = dir.filePath(name);
    QFile::remove(to);
    if (!QFile::copy(from, to)) return {};
    QFile(to).setPermissions(QFile::ReadOwner | QFile::WriteOwner);
    return to;
}

LoadResult load(const QString& path, const std::string& part = {})
{
    LoadOptions o;
    o.part = part;
    return loadTrace(path.toStdString(), o);
}

} // namespace

class TestNsys : public QObject {
    Q_OBJECT

private slots:
    void detectedByContent_data()
    {
        QTest::addColumn<QString>("path");
        for (const Run& r : kRuns)
            QTest::newRow(r.tag) << QString::fromUtf8(r.path);
    }
    void detectedByContent()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        QFETCH(QString, path);
        const QString file = test::publicTrace(path);
        const producers::Resolved r = producers::resolve(file.toStdString());
        QVERIFY2(r.producer, r.error.c_str());
        QCOMPARE(std::string(r.producer->id()), std::string("nsys"));
        // Not by its name: the same bytes named .db are still an export.
        QTemporaryDir dir;
        const QString renamed = copyOf(dir, file, "profile.db");
        const producers::Resolved again = producers::resolve(renamed.toStdString());
        QVERIFY2(again.producer, again.error.c_str());
        QCOMPARE(std::string(again.producer->id()), std::string("nsys"));
    }

    // The oracle: every rank of every shared run against SQL over its tables.
    void oracle_data()
    {
        QTest::addColumn<QString>("path");
        for (const Run& r : kRuns)
            QTest::newRow(r.tag) << QString::fromUtf8(r.path);
    }
    void oracle()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        QFETCH(QString, path);
        const QString file = test::publicTrace(path);
        std::string error;
        const std::vector<RankInput> ranks = discoverJob({file.toStdString()}, &error);
        QVERIFY2(!ranks.empty(), error.c_str());
        Sql sql(file);
        std::set<std::uint32_t> seen;
        for (const RankInput& in : ranks) {
            const LoadResult r = load(file, in.part);
            QVERIFY2(r.complete(), r.message.c_str());
            const Trace& t = *r.trace;
            const auto pid = processOf(in.part);
            if (pid) seen.insert(*pid);
            const std::string dev = pidFilter("globalPid", pid), host = pidFilter("globalTid", pid);

            // stats --by kernel: GROUP BY the short name (the name on the bar).
            const auto kernels = sql.groups(
                "SELECT s.value, count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                "JOIN StringIds s ON s.id = k.shortName WHERE " +
                    dev + " GROUP BY s.value",
                "CUPTI_ACTIVITY_KIND_KERNEL");
            QVERIFY(!kernels.empty());
            QCOMPARE(statsRows(t, StatsGroup::Kernel), kernels);

            // stats --by memcpy: GROUP BY the copy's kind, the sets as one row.
            auto copies = sql.groups(
                "SELECT '[CUDA memcpy ' || e.label || ']', count(*), sum(m.end - m.start) FROM "
                "CUPTI_ACTIVITY_KIND_MEMCPY m JOIN ENUM_CUDA_MEMCPY_OPER e ON e.id = m.copyKind "
                "WHERE " +
                    dev + " GROUP BY m.copyKind",
                "CUPTI_ACTIVITY_KIND_MEMCPY");
            for (const auto& [n, g] : sql.groups("SELECT '[CUDA memset]', count(*), "
                                                 "sum(end - start) FROM CUPTI_ACTIVITY_KIND_MEMSET "
                                                 "WHERE " +
                                                     dev,
                                                 "CUPTI_ACTIVITY_KIND_MEMSET"))
                if (g.first) copies[n] = g;
            QCOMPARE(statsRows(t, StatsGroup::Memcpy), copies);

            // Counts: each table's rows (of this rank's process) are its slices.
            auto count = [&](const std::string& q, const char* table) {
                return std::size_t(std::max<std::int64_t>(sql.one(q, table), 0));
            };
            QCOMPARE(slicesOf(t, "kernel"), count("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL "
                                                  "WHERE " +
                                                      dev,
                                                  "CUPTI_ACTIVITY_KIND_KERNEL"));
            QCOMPARE(slicesOf(t, "gpu_memcpy"),
                     count("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE " + dev,
                           "CUPTI_ACTIVITY_KIND_MEMCPY"));
            QCOMPARE(slicesOf(t, "gpu_memset"),
                     count("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE " + dev,
                           "CUPTI_ACTIVITY_KIND_MEMSET"));
            QCOMPARE(slicesOf(t, "cuda_runtime") + slicesOf(t, "cuda_driver"),
                     count("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE " + host,
                           "CUPTI_ACTIVITY_KIND_RUNTIME"));
            QCOMPARE(slicesOf(t, "cuda_driver"),
                     count("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 1 "
                           "AND " +
                               host,
                           "CUPTI_ACTIVITY_KIND_RUNTIME"));
            QCOMPARE(slicesOf(t, "osrt"),
                     count("SELECT count(*) FROM OSRT_API WHERE " + host, "OSRT_API"));
            // NVTX: its ranges and marks; the rows that name domains and categories are names.
            QCOMPARE(slicesOf(t, "nvtx") + slicesOf(t, "nvtx_op"),
                     count("SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (34, 59, 60) AND " +
                               host,
                           "NVTX_EVENTS"));

            // Flows: the correlation joins within the process.
            std::int64_t joins = 0;
            for (const char* table : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                      "CUPTI_ACTIVITY_KIND_MEMSET"})
                joins += std::max<std::int64_t>(
                    0, sql.one("SELECT count(*) FROM " + std::string(table) +
                                   " d JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = "
                                   "d.correlationId AND (r.globalTid >> 24) = (d.globalPid >> 24) "
                                   "WHERE " +
                                   pidFilter("d.globalPid", pid),
                               table));
            const StrId launch = t.strings().find("cuda_launch");
            std::int64_t flows = 0;
            for (const Flow& f : t.flows())
                flows += f.cat == launch;
            QCOMPARE(flows, joins);
            // Each flow leaves the CUDA call and ends at GPU work with its correlationId.
            for (const Flow& f : t.flows()) {
                if (f.cat != launch) continue;
                const nlohmann::json from = t.args(f.from), to = t.args(f.to);
                QCOMPARE(from.value("correlation", -1), to.value("correlation", -2));
            }

            // The run's facts: the session's start, the GPUs.
            const std::int64_t start =
                sql.one("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME",
                        "TARGET_INFO_SESSION_START_TIME");
            QCOMPARE(t.runFacts().clockBaseNs.value_or(-1), start);
            QCOMPARE(std::int64_t(t.runFacts().devices.size()),
                     std::max<std::int64_t>(
                         0, sql.one("SELECT count(*) FROM TARGET_INFO_GPU", "TARGET_INFO_GPU")));
        }
        if (ranks.size() > 1) QCOMPARE(seen.size(), ranks.size());
    }

    // The 2-GPU run: one file, two processes, a 2-rank job whose SendRecv kernels are
    // collectives, its ranks numbered by their GPUs (NCCL's set-up is not in the window).
    void twoGpuJob()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        const QString file = test::publicTrace("nsys_2gpu_nccl_nsysai/mfu_2gpu_before.sqlite");
        std::string error;
        const auto inputs = discoverJob({file.toStdString()}, &error);
        QCOMPARE(inputs.size(), std::size_t(2));
        QCOMPARE(inputs[0].part, std::string("pid 144"));
        QCOMPARE(inputs[1].part, std::string("pid 145"));
        PipelineOptions o;
        const PipelineResult r = runPipeline({file.toStdString()}, o);
        QVERIFY2(r.errors.empty(), joined(r.errors).c_str());
        QCOMPARE(r.rankIds, (std::vector<int>{0, 1}));
        QVERIFY(r.job.has_value());
        std::size_t sendRecv = 0, lone = 0;
        for (const ReportPtr& rep : r.reports) {
            QVERIFY(!rep->collectives.empty());
            for (const Collective& c : rep->collectives) {
                QVERIFY2(contains(c.name, "ncclDevKernel_SendRecv"), c.name.c_str());
                ++sendRecv;
                // A kernel whose launch is before the cut window has no host range: the kind its
                // name says.
                if (rep->trace->flowsTo(c.event).empty()) {
                    QCOMPARE(c.kind, CollectiveKind::Send);
                    ++lone;
                    continue;
                }
                // Launched inside PyTorch's nccl:all_to_all range.
                QCOMPARE(c.kind, CollectiveKind::AllToAll);
                QVERIFY(c.hostEvent != kNone);
                QCOMPARE(rep->trace->str(rep->trace->slice(c.hostEvent).name),
                         std::string("c10d::alltoall_base_"));
            }
            const nlohmann::json& md = rep->trace->metadata();
            QCOMPARE(md["nsys"].value("rank_from", std::string()), std::string("device"));
        }
        QCOMPARE(sendRecv, std::size_t(66));
        QVERIFY2(lone <= 2, std::to_string(lone).c_str());

        // NVTX as nsys shows it: NCCL's ranges with their domain, PyTorch's op ranges named by
        // the op with emit_nvtx's fields in the args.
        const Trace& t = *r.traces[0];
        bool nccl = false, op = false;
        for (EventId e = 0; e < t.slices().size(); ++e) {
            const std::string& n = t.str(t.slice(e).name);
            if (n == "ncclSend") {
                nccl = true;
                QCOMPARE(t.kind(e), SliceKind::Annotation);
                QCOMPARE(t.args(e).value("domain", nlohmann::json()).dump(), std::string("1"));
            }
            if (n == "c10d::alltoall_base_") {
                op = true;
                QCOMPARE(t.str(t.slice(e).cat), std::string("nvtx_op"));
                QCOMPARE(t.kind(e), SliceKind::HostOp);
                QVERIFY(t.args(e).contains("op_id"));
            }
        }
        QVERIFY(nccl && op);
        // No steps in this window: a note, no invented steps.
        QVERIFY(t.steps().empty());
        QVERIFY2(contains(joined(t.warnings()), "no step marks"), joined(t.warnings()).c_str());
    }

    // OS runtime calls carry their backtraces (OSRT_CALLCHAINS) as stack frames, innermost
    // first, as deep as the chain.
    void callStacks()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        const QString file =
            test::publicTrace("nsys_cloverleaf_2024_pipit/perlmutter-cloverleaf-cuda.sqlite");
        const LoadResult r = load(file);
        QVERIFY2(r.complete(), r.message.c_str());
        const Trace& t = *r.trace;
        Sql sql(file);
        const StrId osrt = t.strings().find("osrt");
        std::size_t withFrames = 0;
        for (EventId e = 0; e < t.slices().size() && withFrames < 50; ++e) {
            if (t.slice(e).cat != osrt) continue;
            const std::uint32_t f = t.eventStackFrame(e);
            if (f == kNone) continue;
            ++withFrames;
            std::size_t depth = 0;
            for (std::uint32_t g = f; g != kNone; g = t.stackFrames()[g].parent)
                ++depth;
            QVERIFY(depth > 1);
            const auto entries = callStack(t, e);
            std::size_t frames = 0;
            for (const StackEntry& s : entries)
                frames += s.kind == "stack frame";
            QCOMPARE(frames, depth);
        }
        QCOMPARE(withFrames, std::size_t(50));
        // The innermost frame of the first call is its chain's depth 0.
        QVERIFY(!t.stackFrames().empty());
    }

    // One file's ranks are cached apart, each under a key with its part.
    void partsCachedApart()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        const QString file = test::publicTrace("nsys_2gpu_nccl_nsysai/mfu_2gpu_before.sqlite");
        QTemporaryDir dir;
        auto cache = std::make_shared<ModelCache>(dir.filePath("cache"));
        auto key = [&](const std::string& part) {
            return ModelCache::keyOf(file.toStdString(), std::nullopt, std::nullopt, "nsys", part);
        };
        QVERIFY(key("")->text != key("pid 144")->text);
        QVERIFY(key("pid 144")->text != key("pid 145")->text);
        // No part: the key is what it always was.
        QVERIFY(!contains(key("")->text, "part="));
        for (const char* part : {"pid 144", "pid 145"}) {
            LoadOptions o;
            o.cache = cache;
            o.part = part;
            QVERIFY(loadTrace(file.toStdString(), o).complete());
        }
        cache->waitForWrites();
        QCOMPARE(QDir(dir.filePath("cache")).entryList({"*.rsmodel"}).size(), 2);
        LoadOptions o;
        o.cache = cache;
        o.part = "pid 145";
        const LoadResult again = loadTrace(file.toStdString(), o);
        QVERIFY(again.trace->mapped());
        QCOMPARE(again.trace->rank(), std::optional<int>(1));
    }

    // A folder of per-rank exports (nsys -o report_%q{RANK}) is a job, numbered by the names;
    // and a job may mix producers (a Kineto trace of rank 0 beside an export of rank 1).
    void folderJobs()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        const QString run =
            test::publicTrace("nsys_cloverleaf_2024_pipit/perlmutter-cloverleaf-cuda.sqlite");
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath("ranks"));
        QVERIFY(!copyOf(dir, run, "ranks/report_0.sqlite").isEmpty());
        QVERIFY(!copyOf(dir, run, "ranks/report_1.sqlite").isEmpty());
        PipelineOptions o;
        PipelineResult r = runPipeline({dir.filePath("ranks").toStdString()}, o);
        QVERIFY2(r.errors.empty(), joined(r.errors).c_str());
        QCOMPARE(r.rankIds, (std::vector<int>{0, 1}));
        QVERIFY(r.job.has_value());

        QVERIFY(QDir(dir.path()).mkpath("mixed"));
        QVERIFY(!copyOf(dir, run, "mixed/report_1.sqlite").isEmpty());
        QVERIFY(QFile::copy(test::publicTrace("kineto_nccl_a100_2rank_hta/nccl_data.json.gz"),
                            dir.filePath("mixed/rank0.pt.trace.json.gz")));
        r = runPipeline({dir.filePath("mixed").toStdString()}, o);
        QVERIFY2(r.errors.empty(), joined(r.errors).c_str());
        QCOMPARE(r.rankIds, (std::vector<int>{0, 1}));
        QVERIFY(r.job.has_value());
        QCOMPARE(std::string(r.traces[0]->producer().id()), std::string("kineto"));
        QCOMPARE(std::string(r.traces[1]->producer().id()), std::string("nsys"));
    }

    void hostile()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        const QString run = test::publicTrace("nsys_h200_nvtx_fuser/report1.sqlite");
        QTemporaryDir dir;

        // A StringIds row missing: the kernel is named by the id, the table named.
        QString f = copyOf(dir, run, "missing.sqlite");
        QCOMPARE(test::execSql(f, "DELETE FROM StringIds WHERE id = (SELECT shortName FROM "
                                  "CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1)"),
                 std::string());
        LoadResult r = load(f);
        QVERIFY2(r.complete(), r.message.c_str());
        QVERIFY2(contains(joined(r.warnings), "table CUPTI_ACTIVITY_KIND_KERNEL: ") &&
                     contains(joined(r.warnings), "StringIds does not hold"),
                 joined(r.warnings).c_str());

        // A kernel that ends before it starts: not shown, counted.
        f = copyOf(dir, run, "backwards.sqlite");
        QCOMPARE(test::execSql(f, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 5 WHERE "
                                  "rowid = (SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)"),
                 std::string());
        r = load(f);
        QVERIFY2(r.complete(), r.message.c_str());
        QCOMPARE(slicesOf(*r.trace, "kernel"), std::size_t(17));
        QVERIFY2(contains(joined(r.warnings),
                          "table CUPTI_ACTIVITY_KIND_KERNEL: 1 rows end before they start"),
                 joined(r.warnings).c_str());

        // A table of a schema this version does not read: skipped, named; the rest loads.
        f = copyOf(dir, run, "schema.sqlite");
        QCOMPARE(test::execSql(f, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN shortName"),
                 std::string());
        r = load(f);
        QVERIFY2(r.complete(), r.message.c_str());
        QCOMPARE(slicesOf(*r.trace, "kernel"), std::size_t(0));
        QVERIFY(slicesOf(*r.trace, "cuda_runtime") + slicesOf(*r.trace, "cuda_driver") > 0);
        QVERIFY2(contains(joined(r.warnings),
                          "table CUPTI_ACTIVITY_KIND_KERNEL has no column shortName"),
                 joined(r.warnings).c_str());

        // A damaged page of a big table: the rows before it, the table named; never a crash.
        f = copyOf(dir, run, "damaged.sqlite");
        {
            Sql sql(f);
            const std::int64_t root = sql.one(
                "SELECT rootpage FROM sqlite_master WHERE name = 'NVTX_EVENTS'", "NVTX_EVENTS");
            const std::int64_t pageSize = sql.one("PRAGMA page_size", "NVTX_EVENTS");
            QVERIFY(root > 1 && pageSize >= 512);
            QFile bytes(f);
            QVERIFY(bytes.open(QIODevice::ReadWrite));
            // The root page's type byte made invalid.
            QVERIFY(bytes.seek((root - 1) * pageSize));
            bytes.write(QByteArray(1, char(0x7f)));
        }
        r = load(f);
        QVERIFY2(contains(r.message, "NVTX_EVENTS") || contains(joined(r.warnings), "NVTX_EVENTS"),
                 (r.message + "\n" + joined(r.warnings)).c_str());

        // A database of another tool, whatever its name: no producer's, the tables named.
        for (const char* name : {"other.sqlite", "other.db"}) {
            const QString other = dir.filePath(name);
            QCOMPARE(test::execSql(other, "CREATE TABLE notes (id INTEGER, text TEXT)"),
                     std::string());
            r = load(other);
            QVERIFY(r.failed());
            QVERIFY2(contains(r.message, name) && contains(r.message, "SQLite database") &&
                         contains(r.message, "StringIds") && contains(r.message, "TASK"),
                     r.message.c_str());
        }
        // An export's bytes with a part no process has.
        r = load(run, "pid 1");
        QVERIFY2(r.complete(), r.message.c_str());
        QVERIFY2(contains(joined(r.warnings), "process pid 1 has no events"),
                 joined(r.warnings).c_str());
        r = load(run, "nonsense");
        QVERIFY(r.failed());
    }

    // Without nsys on the PATH a report is refused naming the command; with a stand-in nsys it
    // is converted once into the model cache's folder.
    void reports()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        QTemporaryDir dir;
        const QByteArray oldPath = qgetenv("PATH");
        const QString report = dir.filePath("job_node0.nsys-rep");
        {
            QFile f(report);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("not a real report: the stand-in ignores its bytes");
        }
        QVERIFY(QDir(dir.path()).mkpath("empty-bin"));
        qputenv("PATH", dir.filePath("empty-bin").toLocal8Bit());
        LoadResult r = load(report);
        QVERIFY(r.failed());
        QVERIFY2(contains(r.message, "nsys export --type sqlite") &&
                     contains(r.message, "job_node0.nsys-rep") && contains(r.message, "PATH"),
                 r.message.c_str());

        // The stand-in: NVIDIA's nsys is not in Debian, so a script plays `nsys export`,
        // copying the shared 2-GPU export where it is asked to write, and counting its runs.
        QVERIFY(QDir(dir.path()).mkpath("bin"));
        const QString script = dir.filePath("bin/nsys");
        {
            QFile f(script);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QStringLiteral("#!/bin/sh\n"
                                   "out=\n"
                                   "while [ $# -gt 1 ]; do\n"
                                   "  if [ \"$1\" = --output ]; then out=$2; fi\n"
                                   "  shift\n"
                                   "done\n"
                                   "echo run >> '%1'\n"
                                   "/bin/cp '%2' \"$out\"\n")
                        .arg(dir.filePath("runs"),
                             test::publicTrace("nsys_2gpu_nccl_nsysai/mfu_2gpu_before.sqlite"))
                        .toUtf8());
        }
        QVERIFY(
            QFile(script).setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        qputenv("PATH", dir.filePath("bin").toLocal8Bit());
        // The application's cache: discovery converts the report to find its ranks, the loads
        // find the conversion there.
        auto cache = std::make_shared<ModelCache>(dir.filePath("cache"));
        ModelCache::setProcessCache(cache);
        PipelineOptions o;
        const PipelineResult p = runPipeline({report.toStdString()}, o);
        ModelCache::setProcessCache(nullptr);
        qputenv("PATH", oldPath);
        QVERIFY2(p.errors.empty(), joined(p.errors).c_str());
        QCOMPARE(p.traces.size(), std::size_t(2));
        QVERIFY(p.job.has_value());
        QCOMPARE(p.traces[0]->path(), report.toStdString());
        QCOMPARE(QDir(dir.filePath("cache/nsys")).entryList({"*.sqlite"}).size(), 1);
        QFile runs(dir.filePath("runs"));
        QVERIFY(runs.open(QIODevice::ReadOnly));
        QCOMPARE(runs.readAll().count("run"), 1); // converted once, for discovery and both ranks
    }
};

QTEST_GUILESS_MAIN(TestNsys)
#include "tst_nsys.moc"
