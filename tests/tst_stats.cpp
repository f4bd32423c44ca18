// Slice statistics (core/stats, `ringscope stats`): exact against a hand computation on a
// trace written here (whole and ranged with clipping, kernel vs memcpy, nested ops, a track
// set, a job of 2 ranks per rank), the CLI's formats and exit codes, and the ranged engine
// against a brute-force scan of a real trace.
#include "core/analysis/analyzer.h"
#include "core/stats/stats.h"
#include "tests/support/processrun.h"
#include "tests/testutil.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <map>
#include <random>

using namespace rs;

namespace {

constexpr TimeNs kBase = 1'000'000'000; // ts 1,000,000 us

// A Kineto-like rank: one host thread (a step, nested ops, a Python frame), two GPU streams
// (kernels, a memcpy, a memset, an NCCL kernel, a broadcast compute kernel). Times in us
// from the base; `scale` stretches rank 1's first gemm.
std::string kinetoRank(int rank, int gemmUs = 30)
{
    nlohmann::json ev = nlohmann::json::array();
    auto x = [&](const char* name, const char* cat, int pid, int tid, int ts, int dur) {
        ev.push_back({{"ph", "X"},
                      {"name", name},
                      {"cat", cat},
                      {"pid", pid},
                      {"tid", tid},
                      {"ts", 1000000 + ts},
                      {"dur", dur}});
    };
    x("ProfilerStep#1", "user_annotation", 1, 1, 0, 100);
    x("foo", "python_function", 1, 1, 5, 90);
    x("aten::linear", "cpu_op", 1, 1, 10, 40);
    x("aten::matmul", "cpu_op", 1, 1, 15, 20);
    x("aten::matmul", "cpu_op", 1, 1, 20, 5);
    x("aten::add", "cpu_op", 1, 1, 60, 10);
    x("gemm", "kernel", 0, 7, 20, gemmUs);
    x("Memcpy DtoD (Device -> Device)", "gpu_memcpy", 0, 7, 52, 4);
    x("Memset (Device)", "gpu_memset", 0, 7, 56, 2);
    x("gemm", "kernel", 0, 7, 60, 10);
    x("ncclKernel_AllReduce_RING_LL_Sum_float", "kernel", 0, 7, 80, 15);
    x("relu", "kernel", 0, 8, 25, 10);
    x("type_specialized_broadcast_kernel", "kernel", 0, 8, 40, 2);
    nlohmann::json doc = {
        {"schemaVersion", 1},
        {"distributedInfo", {{"backend", "nccl"}, {"rank", rank}, {"world_size", 2}}},
        {"traceEvents", ev}};
    return doc.dump();
}

TracePtr load(const std::string& text)
{
    LoadResult r = test::loadText(text);
    return r.trace;
}

const StatsRow* row(const StatsTable& t, const std::string& name, std::optional<int> rank = {})
{
    for (const StatsRow& r : t.rows)
        if (r.name == name && (!rank || r.rank == rank)) return &r;
    return nullptr;
}

StatsTable stats(const Trace& t, StatsGroup by, std::optional<std::pair<TimeNs, TimeNs>> range = {},
                 const AnalysisReport* report = nullptr)
{
    StatsOptions o;
    o.by = by;
    if (range) o.scope.range = std::pair{kBase + range->first, kBase + range->second};
    return computeStats(t, report, o);
}

void checkRow(const StatsTable& t, const std::string& name, std::uint64_t count, TimeNs total,
              TimeNs min, TimeNs max)
{
    const StatsRow* r = row(t, name);
    QVERIFY2(r, name.c_str());
    QCOMPARE(r->count, count);
    QCOMPARE(r->totalNs, total);
    QCOMPARE(r->minNs, min);
    QCOMPARE(r->maxNs, max);
    QCOMPARE(r->meanNs, double(total) / double(count));
    QCOMPARE(r->percent, 100.0 * double(total) / double(t.busyNs));
}

QString ringscope()
{
    return test::binaryDir() + "/app/ringscope";
}

} // namespace

class TstStats : public QObject {
    Q_OBJECT
private slots:
    void wholeTrace()
    {
        const TracePtr t = load(kinetoRank(0));
        QVERIFY(t);
        // Host ops: nested matmul counted in full twice (inclusive time), the Python frame and
        // the step are not ops. Host busy: the step's 100 us.
        const StatsTable op = stats(*t, StatsGroup::Op);
        QCOMPARE(op.busyNs, TimeNs(100000));
        QCOMPARE(op.rows.size(), std::size_t(3));
        QCOMPARE(op.rows[0].name, std::string("aten::linear"));
        checkRow(op, "aten::linear", 1, 40000, 40000, 40000);
        checkRow(op, "aten::matmul", 2, 25000, 5000, 20000);
        checkRow(op, "aten::add", 1, 10000, 10000, 10000);
        QCOMPARE(row(op, "aten::linear")->percent, 40.0);

        const StatsTable step = stats(*t, StatsGroup::Step);
        QCOMPARE(step.rows.size(), std::size_t(1));
        checkRow(step, "ProfilerStep#1", 1, 100000, 100000, 100000);

        // Device: kernels without the copies; busy = union over both streams = 30 + 4 + 2 + 10
        // + 15 us (relu and the broadcast kernel run under the first gemm).
        const StatsTable k = stats(*t, StatsGroup::Kernel);
        QCOMPARE(k.busyNs, TimeNs(61000));
        QCOMPARE(k.rows.size(), std::size_t(4));
        QCOMPARE(k.rows[0].name, std::string("gemm"));
        checkRow(k, "gemm", 2, 40000, 10000, 30000);
        checkRow(k, "ncclKernel_AllReduce_RING_LL_Sum_float", 1, 15000, 15000, 15000);
        checkRow(k, "relu", 1, 10000, 10000, 10000);
        checkRow(k, "type_specialized_broadcast_kernel", 1, 2000, 2000, 2000);
        QVERIFY(!row(k, "Memcpy DtoD (Device -> Device)"));

        const StatsTable m = stats(*t, StatsGroup::Memcpy);
        QCOMPARE(m.rows.size(), std::size_t(2));
        checkRow(m, "Memcpy DtoD (Device -> Device)", 1, 4000, 4000, 4000);
        checkRow(m, "Memset (Device)", 1, 2000, 2000, 2000);

        // Collectives by name and from the analysis agree; the broadcast kernel is not one.
        const StatsTable byName = stats(*t, StatsGroup::Collective);
        const ReportPtr report = analyze(t);
        const StatsTable byReport = stats(*t, StatsGroup::Collective, {}, report.get());
        for (const StatsTable* c : {&byName, &byReport}) {
            QCOMPARE(c->rows.size(), std::size_t(1));
            checkRow(*c, "AllReduce ncclKernel_AllReduce_RING_LL_Sum_float", 1, 15000, 15000,
                     15000);
        }
    }

    void rangedIsClipped()
    {
        const TracePtr t = load(kinetoRank(0));
        const std::pair<TimeNs, TimeNs> range{30000, 65000};
        const StatsTable op = stats(*t, StatsGroup::Op, range);
        QCOMPARE(op.busyNs, TimeNs(35000));
        QCOMPARE(op.rows.size(), std::size_t(3));
        checkRow(op, "aten::linear", 1, 20000, 20000, 20000); // [30, 50)
        checkRow(op, "aten::matmul", 1, 5000, 5000, 5000);    // [30, 35); the inner one is out
        checkRow(op, "aten::add", 1, 5000, 5000, 5000);       // [60, 65)

        const StatsTable k = stats(*t, StatsGroup::Kernel, range);
        QCOMPARE(k.busyNs, TimeNs(31000)); // [30,50) + memcpy 4 + memset 2 + [60,65)
        QCOMPARE(k.rows.size(), std::size_t(3));
        checkRow(k, "gemm", 2, 25000, 5000, 20000);
        checkRow(k, "relu", 1, 5000, 5000, 5000);
        checkRow(k, "type_specialized_broadcast_kernel", 1, 2000, 2000, 2000);
        QVERIFY(!row(k, "ncclKernel_AllReduce_RING_LL_Sum_float"));

        // A range ending exactly where a slice starts leaves it out; one touching the end of a
        // slice too.
        const StatsTable edge =
            stats(*t, StatsGroup::Kernel, std::pair<TimeNs, TimeNs>{50000, 60000});
        QVERIFY(edge.rows.empty());
        QCOMPARE(edge.busyNs, TimeNs(6000));
    }

    void trackSetAndOccurrences()
    {
        const TracePtr t = load(kinetoRank(0));
        // Stream 8 only (the area of one track).
        TrackId stream8 = kNone;
        for (TrackId tr = 0; tr < t->tracks().size(); ++tr)
            if (t->tracks()[tr].tid == "8") stream8 = tr;
        QVERIFY(stream8 != kNone);
        StatsOptions o;
        o.by = StatsGroup::Kernel;
        o.scope.tracks = std::vector<TrackId>{stream8};
        const StatsTable k = computeStats(*t, nullptr, o);
        QCOMPARE(k.busyNs, TimeNs(12000)); // relu and the broadcast kernel
        QCOMPARE(k.rows.size(), std::size_t(2));
        checkRow(k, "relu", 1, 10000, 10000, 10000);

        // The gemm occurrences in a range, clipped, in time order.
        StatsSource src{t.get(), nullptr, 0};
        StatsOptions ro;
        ro.by = StatsGroup::Kernel;
        ro.scope.range = std::pair{kBase + 30000, kBase + 65000};
        const auto occ = statsOccurrences(std::span(&src, 1), ro, "gemm");
        QCOMPARE(occ.size(), std::size_t(2));
        QCOMPARE(occ[0].start, kBase + 30000);
        QCOMPARE(occ[0].dur, TimeNs(20000));
        QCOMPARE(t->str(t->slice(occ[1].event).name), std::string("gemm"));
        QCOMPARE(occ[1].dur, TimeNs(5000));
    }

    void jobPerRank()
    {
        const TracePtr r0 = load(kinetoRank(0));
        const TracePtr r1 = load(kinetoRank(1, 50)); // first gemm 50 us on rank 1
        QVERIFY(r0 && r1);
        StatsSource s[2] = {{r0.get(), nullptr, 0}, {r1.get(), nullptr, 1}};
        StatsOptions o;
        o.by = StatsGroup::Kernel;
        const StatsTable job = computeStats(std::span(s, 2), o);
        // Rank 1's device busy: [20,70) + [80,95) = 65 us (its gemm covers the copies).
        QCOMPARE(job.busyNs, TimeNs(61000 + 65000));
        checkRow(job, "gemm", 4, 40000 + 60000, 10000, 50000);
        o.perRank = true;
        const StatsTable per = computeStats(std::span(s, 2), o);
        const StatsRow* g1 = row(per, "gemm", 1);
        QVERIFY(g1);
        QCOMPARE(g1->totalNs, TimeNs(60000));
        QCOMPARE(g1->percent, 100.0 * 60000 / 65000);
        QCOMPARE(row(per, "gemm", 0)->totalNs, TimeNs(40000));
        QCOMPARE(per.rows.front().rank, std::optional<int>(1)); // largest first
    }

    void cliFormats()
    {
        if (!QFileInfo(ringscope()).isExecutable())
            QSKIP("the ringscope binary is not built in this tree");
        QTemporaryDir dir;
        for (int r = 0; r < 2; ++r) {
            QFile f(dir.filePath(QString("rank%1.pt.trace.json").arg(r)));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(kinetoRank(r, r ? 50 : 30)));
        }
        const QString one = dir.filePath("rank0.pt.trace.json");
        // JSON: exactly the row fields.
        test::ProcessRun run =
            test::runProcess(ringscope(), {"stats", one, "--by", "kernel", "--json"});
        QVERIFY2(run.code == 0, qPrintable(run.describe()));
        const auto j = nlohmann::json::parse(run.out.toStdString());
        QVERIFY(j["rows"].is_array());
        QCOMPARE(j["rows"].size(), std::size_t(4));
        const auto& first = j["rows"][0];
        QCOMPARE(first.size(), std::size_t(7));
        for (const char* k :
             {"name", "count", "total_ns", "mean_ns", "min_ns", "max_ns", "percent"})
            QVERIFY2(first.contains(k), k);
        QCOMPARE(first["name"].get<std::string>(), std::string("gemm"));
        QCOMPARE(first["total_ns"].get<TimeNs>(), TimeNs(40000));

        // The range in trace ns, clipped as the engine does.
        run =
            test::runProcess(ringscope(), {"stats", one, "--by", "op", "--json", "--range",
                                           QString("%1:%2").arg(kBase + 30000).arg(kBase + 65000)});
        QVERIFY2(run.code == 0, qPrintable(run.describe()));
        const auto jr = nlohmann::json::parse(run.out.toStdString());
        QCOMPARE(jr["rows"][0]["name"].get<std::string>(), std::string("aten::linear"));
        QCOMPARE(jr["rows"][0]["total_ns"].get<TimeNs>(), TimeNs(20000));
        QCOMPARE(jr["busy_ns"].get<TimeNs>(), TimeNs(35000));

        // CSV: a header line, names with commas quoted.
        run = test::runProcess(ringscope(), {"stats", dir.path(), "--by", "memcpy", "--csv"});
        QVERIFY2(run.code == 0, qPrintable(run.describe()));
        QStringList lines = run.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.value(0),
                 QString("name,count,total_ns,mean_ns,min_ns,max_ns,percent,internal"));
        QCOMPARE(lines.size(), 3);
        QVERIFY2(lines[1].startsWith("Memcpy DtoD (Device -> Device),2,8000,"),
                 qPrintable(lines[1]));

        // The job folder per rank: a rank field on every row, rank 1's gemm first.
        run = test::runProcess(ringscope(),
                               {"stats", dir.path(), "--by", "kernel", "--json", "--per-rank"});
        QVERIFY2(run.code == 0, qPrintable(run.describe()));
        const auto jp = nlohmann::json::parse(run.out.toStdString());
        QCOMPARE(jp["rows"].size(), std::size_t(8));
        for (const auto& r : jp["rows"])
            QVERIFY(r.contains("rank") && r["rank"].is_number_integer());
        QCOMPARE(jp["rows"][0]["rank"].get<int>(), 1);
        QCOMPARE(jp["rows"][0]["total_ns"].get<TimeNs>(), TimeNs(60000));
        run = test::runProcess(ringscope(),
                               {"stats", dir.path(), "--by", "kernel", "--rank", "1", "--csv"});
        QVERIFY2(run.code == 0, qPrintable(run.describe()));
        QVERIFY2(run.out.contains("\ngemm,2,60000,30000.0,10000,50000,"), qPrintable(run.out));

        // The text table: aligned, human units.
        run = test::runProcess(ringscope(), {"stats", one, "--by", "collective"});
        QVERIFY2(run.code == 0, qPrintable(run.describe()));
        QVERIFY2(run.out.contains("AllReduce ncclKernel_AllReduce_RING_LL_Sum_float"),
                 qPrintable(run.out));
        QVERIFY2(run.out.contains("15.0 µs"), qPrintable(run.out));

        // Bad usage exits 2.
        for (const QStringList& bad :
             {QStringList{"stats", one, "--by", "kernels"}, QStringList{"stats", one, "--bogus"},
              QStringList{"stats", one, "--range", "5:3"},
              QStringList{"stats", one, "--csv", "--json"}, QStringList{"stats"},
              QStringList{"stats", dir.path(), "--rank", "7"}}) {
            run = test::runProcess(ringscope(), bad);
            QVERIFY2(run.code == 2, qPrintable(bad.join(' ') + ": " + run.describe()));
            QVERIFY(!run.err.isEmpty());
        }
        run = test::runProcess(ringscope(), {"--help"});
        QVERIFY(run.out.contains("ringscope stats PATH"));
    }

    // Issue 43.4: by memcpy, a collective's own copies (HCCL's Memcpy tasks on the Plane
    // threads) are listed, apart from the ordinary copies; every count is the Plane tasks'.
    void memcpySplitsCollectiveCopies()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        LoadResult lr = loadTrace(
            test::publicTrace("ascend_torchnpu_level1_2rank/rank0_ascend_pt").toStdString());
        QVERIFY(lr.trace);
        const Trace& t = *lr.trace;
        const ReportPtr report = analyze(lr.trace);
        StatsOptions o;
        o.by = StatsGroup::Memcpy;
        const StatsTable copies = computeStats(t, report.get(), o);
        const StatsRow *internal = nullptr, *ordinary = nullptr;
        for (const StatsRow& r : copies.rows) {
            QVERIFY(r.internal.has_value());
            if (r.name == "Memcpy" && *r.internal) internal = &r;
            if (r.name == "MEMCPY_ASYNC" && !*r.internal) ordinary = &r;
        }
        QVERIFY(internal && ordinary);
        // SOURCES.md: 36 Memcpy tasks on the Plane threads, 9 in each of the 4 hcom ops; the
        // report's internal copies are the same tasks.
        QCOMPARE(internal->count, std::uint64_t(36));
        std::uint64_t inReport = 0;
        TimeNs reportNs = 0;
        for (const Collective& c : report->collectives) {
            inReport += c.copies.size();
            for (const InternalCopy& ic : c.copies)
                reportNs += ic.dur;
        }
        QCOMPARE(internal->count, inReport);
        QCOMPARE(internal->totalNs, reportNs);
        QCOMPARE(statsOccurrences(std::span<const StatsSource>(), o, "Memcpy").size(),
                 std::size_t(0));
        StatsSource src;
        src.trace = &t;
        src.report = report.get();
        QCOMPARE(
            statsOccurrences(std::span<const StatsSource>(&src, 1), o, "Memcpy", {}, true).size(),
            std::size_t(36));
        QCOMPARE(
            statsOccurrences(std::span<const StatsSource>(&src, 1), o, "Memcpy", {}, false).size(),
            std::size_t(0));
        // The outputs say which rows are inside collectives; other groups keep their columns.
        QVERIFY(statsJson(copies).find("\"internal\": true") != std::string::npos);
        QVERIFY(statsToCsv(copies).starts_with(
            "name,count,total_ns,mean_ns,min_ns,max_ns,percent,internal\n"));
        QVERIFY(statsToText(copies).find("in collective") != std::string::npos);
        o.by = StatsGroup::Kernel;
        const StatsTable kernels = computeStats(t, report.get(), o);
        QVERIFY(statsJson(kernels).find("internal") == std::string::npos);
        QVERIFY(
            statsToCsv(kernels).starts_with("name,count,total_ns,mean_ns,min_ns,max_ns,percent\n"));
    }

    // The ranged engine against a brute-force scan over every slice of a real trace.
    void realTraceAgainstBruteForce()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        const QString path = test::publicTrace(
            "ascend_torchnpu_level1_2rank/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json");
        if (path.isEmpty() || !QFileInfo::exists(path)) QSKIP("the level1 trace is absent");
        LoadResult lr = loadTrace(path.toStdString());
        QVERIFY(lr.trace);
        const Trace& t = *lr.trace;
        const ReportPtr report = analyze(lr.trace);
        StatsOptions o;
        o.by = StatsGroup::Kernel;
        const StatsTable whole = computeStats(t, report.get(), o);
        QVERIFY(!whole.rows.empty());
        QVERIFY(whole.busyNs > 0);
        o.by = StatsGroup::Memcpy;
        const StatsTable copies = computeStats(t, report.get(), o);
        QVERIFY(row(copies, "MEMCPY_ASYNC"));
        o.by = StatsGroup::Collective;
        const StatsTable coll = computeStats(t, report.get(), o);
        std::uint64_t n = 0;
        for (const StatsRow& r : coll.rows) {
            n += r.count;
            QVERIFY2(r.name.find("AllReduce") == 0 || r.name.find("Broadcast") == 0 ||
                         r.name.find("hcom") != std::string::npos,
                     r.name.c_str());
        }
        QCOMPARE(n, std::uint64_t(report->collectives.size()));

        // Random ranges: every Ascend Hardware task (but the runtime's copies) overlapping the
        // range, clipped, summed by name.
        std::mt19937_64 rng(16);
        const TimeNs span = t.endNs() - t.startNs();
        for (int i = 0; i < 20; ++i) {
            TimeNs a = t.startNs() + TimeNs(rng() % std::uint64_t(span));
            TimeNs b = t.startNs() + TimeNs(rng() % std::uint64_t(span));
            if (a > b) std::swap(a, b);
            if (a == b) ++b;
            std::map<std::string, std::pair<std::uint64_t, TimeNs>> expect;
            for (const Slice& s : t.slices()) {
                const Track& tr = t.tracks()[s.track];
                if (tr.kind == TrackKind::Counter ||
                    !t.processLabel(tr.process).ends_with("Ascend Hardware"))
                    continue;
                const std::string& name = t.str(s.name);
                if (name.starts_with("MEMCPY") || name.starts_with("MEMSET") ||
                    (s.flags & kSliceInstant))
                    continue;
                if (s.start >= b || (s.dur > 0 ? s.end() <= a : s.start < a)) continue;
                auto& e = expect[name];
                ++e.first;
                e.second += std::min(s.end(), b) - std::max(s.start, a);
            }
            StatsOptions ro;
            ro.by = StatsGroup::Kernel;
            ro.scope.range = std::pair{a, b};
            const StatsTable got = computeStats(t, nullptr, ro);
            QCOMPARE(got.rows.size(), expect.size());
            for (const StatsRow& r : got.rows) {
                const auto it = expect.find(r.name);
                QVERIFY2(it != expect.end(), r.name.c_str());
                QCOMPARE(r.count, it->second.first);
                QCOMPARE(r.totalNs, it->second.second);
            }
        }
    }
};

QTEST_GUILESS_MAIN(TstStats)
#include "tst_stats.moc"
