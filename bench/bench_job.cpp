// Job load benchmark: N ranks of generated traces through the job pipeline (runPipeline: load
// and analyse each rank under the memory budget, match across ranks; or --load-only, loadJob)
// against one rank loaded alone. Prints throughput, peak memory against the budget, ranks and
// tasks at once and the process's thread count, and checks the targets:
//   job peak RSS <= 1.3 x the sum of single-rank peaks and <= the budget; job MB/s >= single.
//   bench_job [--ranks N] [--size 50M] [--shape kineto|torch_npu] [--dir DIR]
//             [--max-memory MiB] [--parallel N] [--load-only] [--no-path]
// --no-path: without the critical path (AnalysisOptions::criticalPath; no pieces, no job walk,
// no gains), to time what the path adds to the job's analysis.
#include "bench/benchutil.h"
#include "bench/tracegen_large.h"
#include "core/job/jobloader.h"
#include "core/job/jobpipeline.h"
#include "core/workpool.h"

#include <QDir>
#include <QFileInfo>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

using rs::bench::resetPeak;
using rs::bench::statusBytes;

double mib(std::uint64_t b)
{
    return double(b) / (1024.0 * 1024.0);
}

} // namespace

int main(int argc, char** argv)
{
    int ranks = 8;
    std::uint64_t size = 50ull << 20;
    std::string shape = "kineto";
    std::string dir = "/tmp/ringscope-bench-job";
    std::uint64_t budget = 0;
    int parallel = 0;
    bool loadOnly = false, noPath = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--load-only" || a == "--no-path") {
            (a == "--load-only" ? loadOnly : noPath) = true;
            continue;
        }
        if (i + 1 >= argc) break;
        if (a == "--max-memory")
            budget = std::strtoull(argv[i + 1], nullptr, 10) << 20;
        else if (a == "--parallel")
            parallel = std::atoi(argv[i + 1]);
        else if (a == "--ranks")
            ranks = std::atoi(argv[i + 1]);
        else if (a == "--size")
            size = rs::tracegen::parseSize(argv[i + 1]);
        else if (a == "--shape")
            shape = argv[i + 1];
        else if (a == "--dir")
            dir = argv[i + 1];
        ++i;
    }
    QDir().mkpath(QString::fromStdString(dir));
    std::vector<rs::RankInput> inputs;
    std::uint64_t total = 0;
    for (int r = 0; r < ranks; ++r) {
        const std::string path = dir + "/rank" + std::to_string(r) + "." + shape + "." +
                                 std::to_string(size >> 20) + "M.json";
        if (!QFileInfo::exists(QString::fromStdString(path))) {
            rs::tracegen::LargeTraceOptions o;
            o.shape =
                shape == "torch_npu" ? rs::tracegen::Shape::TorchNpu : rs::tracegen::Shape::Kineto;
            o.targetBytes = size;
            o.seed = 1000 + static_cast<std::uint64_t>(r);
            o.rank = r;
            std::string error;
            if (!rs::tracegen::writeLargeTrace(path, o, nullptr, &error)) {
                std::fprintf(stderr, "cannot write %s: %s\n", path.c_str(), error.c_str());
                return 2;
            }
        }
        total += static_cast<std::uint64_t>(QFileInfo(QString::fromStdString(path)).size());
        inputs.push_back({path, r});
    }
    using Clock = std::chrono::steady_clock;

    // One rank alone: its throughput and the memory it adds.
    resetPeak();
    const std::uint64_t base = statusBytes("VmRSS");
    auto t0 = Clock::now();
    {
        rs::LoadResult one = rs::loadTrace(inputs[0].path);
        if (!one.complete()) {
            std::fprintf(stderr, "%s\n", one.message.c_str());
            return 2;
        }
    }
    const double oneSec = std::chrono::duration<double>(Clock::now() - t0).count();
    const std::uint64_t onePeak = statusBytes("VmHWM") - base;
    const double oneSize =
        mib(static_cast<std::uint64_t>(QFileInfo(QString::fromStdString(inputs[0].path)).size()));

    resetPeak();
    const std::uint64_t base2 = statusBytes("VmRSS");
    t0 = Clock::now();
    rs::JobProgress progress;
    rs::WorkPool::global().resetPeakRunning();
    rs::PipelineOptions options;
    options.load.maxMemoryBytes = budget;
    options.maxParallel = parallel;
    options.analysis.criticalPath = !noPath;
    std::size_t loaded = 0, errors = 0, collectives = 0;
    std::uint64_t peakHeld = 0, usedBudget = 0;
    int peakRanks = 0;
    std::size_t pathSteps = 0;
    if (loadOnly) {
        rs::JobLoadResult job = rs::loadJob(inputs, options.load, &progress, parallel);
        loaded = job.traces.size();
        errors = job.errors.size();
        usedBudget = budget ? budget : rs::defaultMemoryBudget();
    } else {
        rs::PipelineResult job = rs::runPipeline(inputs, options, &progress);
        loaded = job.traces.size();
        errors = job.errors.size();
        collectives = job.job ? job.job->collectives.size() : 0;
        pathSteps = job.job ? job.job->criticalPath.size() : 0;
        peakHeld = job.peakHeld;
        peakRanks = job.peakRunning;
        usedBudget = job.budget;
    }
    const double jobSec = std::chrono::duration<double>(Clock::now() - t0).count();
    const std::uint64_t jobPeak = statusBytes("VmHWM") - base2;
    const std::uint64_t jobResident = statusBytes("VmRSS") - base2;

    std::printf("ranks %d x %.0f MiB (%s), %.0f MiB in all, %zu loaded, %zu errors, %s\n", ranks,
                oneSize, shape.c_str(), mib(total), loaded, errors,
                loadOnly ? "load only" : "pipeline: load + analyse + cross-rank");
    std::printf("single rank: %.2f s, %.1f MB/s, peak +%.0f MiB\n", oneSec,
                oneSize * 1.048576 / oneSec, mib(onePeak));
    std::printf("job:         %.2f s, %.1f MB/s, peak +%.0f MiB, resident +%.0f MiB\n", jobSec,
                mib(total) * 1.048576 / jobSec, mib(jobPeak), mib(jobResident));
    if (!loadOnly)
        std::printf("pipeline: budget %.0f MiB, peak admitted %.0f MiB, %d ranks at most at once, "
                    "%zu matched collectives, critical path of %zu steps%s\n",
                    mib(usedBudget), mib(peakHeld), peakRanks, collectives, pathSteps,
                    noPath ? " (--no-path)" : "");
    std::printf("threads: %d in the process (pool of %d), %d tasks at most at once\n",
                int(statusBytes("Threads") / 1024), rs::WorkPool::global().threadCount(),
                rs::WorkPool::global().peakRunning());
    std::printf("memory: job peak %.0f MiB vs budget %.0f MiB: %s\n", mib(jobPeak), mib(usedBudget),
                jobPeak <= usedBudget ? "met" : "NOT met");
    const double ratio = double(jobPeak) / (double(onePeak) * ranks);
    std::printf("memory: job peak / (ranks x single peak) = %.2f (target <= 1.30): %s\n", ratio,
                ratio <= 1.3 ? "met" : "NOT met");
    const double speed = (mib(total) / jobSec) / (oneSize / oneSec);
    std::printf("throughput: job / single = %.2f (target >= 1.00): %s\n", speed,
                speed >= 1.0 ? "met" : "NOT met");
    return 0;
}
