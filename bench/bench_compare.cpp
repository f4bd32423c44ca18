// Compare benchmark: two generated runs of N ranks (before and after: other seeds) loaded and
// analysed as `ringscope compare` does, then the parts compare adds timed alone: the digest
// of each run (one pass over its slices plus its reports), the comparison and its JSON.
//   bench_compare [--ranks N] [--size 50M] [--shape kineto|torch_npu] [--dir DIR] [--reps N]
#include "bench/benchutil.h"
#include "bench/tracegen_large.h"
#include "core/analysis/analyzer.h"
#include "core/compare/comparereport.h"
#include "core/job/crossrank.h"
#include "core/job/jobloader.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Run {
    std::vector<rs::TracePtr> traces;
    std::vector<rs::ReportPtr> reports;
    std::optional<rs::JobReport> job;
    std::uint64_t bytes = 0, events = 0;
    double loadSec = 0, analyzeSec = 0;
};

bool prepare(const std::string& dir, const std::string& shape, int ranks, std::uint64_t size,
             std::uint64_t seed, Run& run)
{
    QDir().mkpath(QString::fromStdString(dir));
    std::vector<rs::RankInput> inputs;
    for (int r = 0; r < ranks; ++r) {
        const std::string path = dir + "/rank" + std::to_string(r) + "." + shape + "." +
                                 std::to_string(size >> 20) + "M.json";
        if (!QFileInfo::exists(QString::fromStdString(path))) {
            rs::tracegen::LargeTraceOptions o;
            o.shape =
                shape == "torch_npu" ? rs::tracegen::Shape::TorchNpu : rs::tracegen::Shape::Kineto;
            o.targetBytes = size;
            o.seed = seed + static_cast<std::uint64_t>(r);
            o.rank = r;
            std::string error;
            if (!rs::tracegen::writeLargeTrace(path, o, nullptr, &error)) {
                std::fprintf(stderr, "cannot write %s: %s\n", path.c_str(), error.c_str());
                return false;
            }
        }
        run.bytes += static_cast<std::uint64_t>(QFileInfo(QString::fromStdString(path)).size());
        inputs.push_back({path, r});
    }
    auto t0 = Clock::now();
    rs::JobLoadResult loaded = rs::loadJob(inputs);
    run.loadSec = since(t0);
    if (!loaded.errors.empty() || loaded.traces.size() != inputs.size()) {
        std::fprintf(stderr, "load failed: %s\n",
                     loaded.errors.empty() ? "?" : loaded.errors.front().c_str());
        return false;
    }
    run.traces = std::move(loaded.traces);
    t0 = Clock::now();
    for (const rs::TracePtr& t : run.traces) {
        run.reports.push_back(rs::analyze(t));
        run.events += t->slices().size();
    }
    if (run.reports.size() > 1) run.job = rs::analyzeJob(run.reports);
    run.analyzeSec = since(t0);
    return true;
}

rs::RunSide sideOf(const Run& run, const std::string& path)
{
    rs::RunSide s;
    s.path = path;
    s.ranks = run.reports;
    s.job = run.job ? &*run.job : nullptr;
    return s;
}

} // namespace

int main(int argc, char** argv)
{
    int ranks = 4, reps = 5;
    std::uint64_t size = 50ull << 20;
    std::string shape = "kineto";
    std::string dir = "/tmp/ringscope-bench-compare";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--ranks")
            ranks = std::max(1, std::atoi(argv[i + 1]));
        else if (a == "--size")
            size = rs::tracegen::parseSize(argv[i + 1]);
        else if (a == "--shape")
            shape = argv[i + 1];
        else if (a == "--dir")
            dir = argv[i + 1];
        else if (a == "--reps")
            reps = std::max(1, std::atoi(argv[i + 1]));
    }
    Run before, after;
    if (!prepare(dir + "/before", shape, ranks, size, 1000, before) ||
        !prepare(dir + "/after", shape, ranks, size, 5000, after))
        return 2;
    const rs::RunSide sb = sideOf(before, "before"), sa = sideOf(after, "after");

    // Each part alone, best of reps (the first run warms caches and allocations).
    double digestBest = 1e9, compareBest = 1e9, jsonBest = 1e9;
    std::size_t ops = 0, jsonBytes = 0;
    for (int r = 0; r < reps; ++r) {
        auto t0 = Clock::now();
        rs::RunDigest db = rs::digestRun(sb);
        const double d = since(t0);
        rs::RunDigest da = rs::digestRun(sa);
        digestBest = std::min(digestBest, d);
        ops = db.ops.size();
        t0 = Clock::now();
        const rs::RunComparison c = rs::compareRuns(std::move(db), std::move(da));
        compareBest = std::min(compareBest, since(t0));
        t0 = Clock::now();
        jsonBytes = rs::compareJson(c).size();
        jsonBest = std::min(jsonBest, since(t0));
    }
    const double mb = double(before.bytes) / 1e6;
    std::printf("runs: %d ranks x %.0f MB (%s), %.1f M slices per run\n", ranks, mb / ranks,
                shape.c_str(), double(before.events) / 1e6);
    std::printf("load (before):     %.2f s (%.0f MB/s)\n", before.loadSec, mb / before.loadSec);
    std::printf("analyse (before):  %.3f s (ranks one after another, plus the job)\n",
                before.analyzeSec);
    std::printf("digest (one run):  %.1f ms, %.0f M slices/s, %zu op names\n", digestBest * 1e3,
                double(before.events) / digestBest / 1e6, ops);
    std::printf("compare:           %.3f ms\n", compareBest * 1e3);
    std::printf("JSON:              %.3f ms (%zu bytes)\n", jsonBest * 1e3, jsonBytes);
    std::printf("digest / analyse = %.3f, digest / load = %.3f\n", digestBest / before.analyzeSec,
                digestBest / before.loadSec);
    return 0;
}
