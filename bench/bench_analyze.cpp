// Analysis benchmark: load a trace, then time analyze() on it and compare with the load time.
//   bench_analyze [FILE...] [--gen SIZE] [--torchnpu] [--repeat N] [--dump]
//                 [--seed-job DIR [--kineto]]
// Without FILE, --gen writes a synthetic trace of SIZE (default 100M, tracegen_large) to /tmp.
// --seed-job writes the seed case (tracegen_seed) as a job folder in DIR and analyses its ranks.
// --dump prints the collectives, steps and findings found (for eyeballing a real trace).
// Each run also times analyze() without the critical-path pieces, and the one-rank walk.
#include "bench/tracegen_large.h"
#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/analysis/criticalpath.h"
#include "core/traceloader.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

void dump(const rs::AnalysisReport& rep)
{
    const rs::Trace& t = *rep.trace;
    std::printf("collectives: %zu\n", rep.collectives.size());
    std::size_t shown = 0;
    for (const rs::Collective& c : rep.collectives) {
        if (++shown > 40) break;
        std::printf("  %-10s %-60.60s dur=%s memcpy=%d/%s host=%s mode=%d%s%s step=%d\n",
                    rs::collectiveKindName(c.kind), c.name.c_str(),
                    rs::formatDuration(c.dur).c_str(), c.memcpyCount,
                    rs::formatDuration(c.memcpyNs).c_str(),
                    c.hostEvent != rs::kNone ? t.str(t.slice(c.hostEvent).name).c_str() : "-",
                    c.mode ? *c.mode : -1, c.anomalous ? " ANOMALOUS" : "",
                    c.waiting ? " waiting" : "", c.step ? *c.step : -1);
    }
    for (const rs::SignatureGroup& g : rep.signatures)
        std::printf("  sig %s: %zu ops: %s\n", g.label.c_str(), g.members.size(),
                    g.summary.c_str());
    for (const rs::StepStats& s : rep.steps)
        std::printf("step %d: computing %s comm %s overlapped %s free %s\n", s.step,
                    rs::formatDuration(s.computing).c_str(),
                    rs::formatDuration(s.communication).c_str(),
                    rs::formatDuration(s.overlapped).c_str(), rs::formatDuration(s.free).c_str());
    for (const rs::Finding& f : rep.findings)
        std::printf("[%s] %s: %s\n", rs::severityName(f.severity), f.rule.c_str(), f.title.c_str());
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> files;
    std::string gen = "100M";
    bool torchNpu = false, doDump = false, kineto = false;
    std::string seedJob;
    int repeat = 3;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--gen") && i + 1 < argc)
            gen = argv[++i];
        else if (!std::strcmp(argv[i], "--torchnpu"))
            torchNpu = true;
        else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--seed-job") && i + 1 < argc)
            seedJob = argv[++i];
        else if (!std::strcmp(argv[i], "--kineto"))
            kineto = true;
        else if (!std::strcmp(argv[i], "--dump"))
            doDump = true;
        else
            files.emplace_back(argv[i]);
    }
    if (!seedJob.empty()) {
        rs::gen::SeedCaseOptions o;
        o.kineto = kineto;
        if (!rs::gen::writeSeedCaseJob(seedJob, o)) {
            std::fprintf(stderr, "cannot write %s\n", seedJob.c_str());
            return 2;
        }
        for (int r = 0; r < o.ranks; ++r)
            files.push_back(seedJob + "/rank" + std::to_string(r) +
                            (kineto ? ".pt.trace.json" : "_ascend_pt"));
    }
    if (files.empty()) {
        rs::tracegen::LargeTraceOptions o;
        o.shape = torchNpu ? rs::tracegen::Shape::TorchNpu : rs::tracegen::Shape::Kineto;
        o.targetBytes = rs::tracegen::parseSize(gen);
        const std::string path =
            std::string("/tmp/bench_analyze_") + (torchNpu ? "npu_" : "kineto_") + gen + ".json";
        rs::tracegen::LargeTraceStats st;
        std::string err;
        std::printf("generating %s ...\n", path.c_str());
        if (!rs::tracegen::writeLargeTrace(path, o, &st, &err)) {
            std::fprintf(stderr, "cannot write %s: %s\n", path.c_str(), err.c_str());
            return 2;
        }
        files.push_back(path);
    }
    for (const std::string& f : files) {
        auto t0 = Clock::now();
        rs::LoadResult r = rs::loadTrace(f);
        const double loadMs = msSince(t0);
        if (!r.complete()) {
            std::fprintf(stderr, "%s: %s\n", f.c_str(), r.message.c_str());
            return 2;
        }
        double best = 1e300, bestNoPath = 1e300, walk = 1e300;
        rs::ReportPtr rep;
        rs::AnalysisOptions noPath;
        noPath.criticalPath = false;
        std::size_t segments = 0;
        for (int k = 0; k < repeat; ++k) {
            t0 = Clock::now();
            rep = rs::analyze(r.trace);
            best = std::min(best, msSince(t0));
            t0 = Clock::now();
            const auto path = rs::rankCriticalPath(*rep);
            walk = std::min(walk, msSince(t0));
            segments = 0;
            for (const rs::StepPath& p : path)
                segments += p.segments.size();
            t0 = Clock::now();
            rs::analyze(r.trace, noPath);
            bestNoPath = std::min(bestNoPath, msSince(t0));
        }
        std::printf("%s: %zu slices, load %.1f ms, analyze %.1f ms (%.1f%% of load), "
                    "%zu collectives, %zu steps, %zu findings\n",
                    f.c_str(), r.trace->slices().size(), loadMs, best, 100.0 * best / loadMs,
                    rep->collectives.size(), rep->steps.size(), rep->findings.size());
        std::printf("  critical path: analyze without its pieces %.1f ms (the pieces %.1f%% of "
                    "analyze), %zu pieces, the walk %.2f ms for %zu segments\n",
                    bestNoPath, best > 0 ? 100.0 * (best - bestNoPath) / best : 0.0,
                    rep->pathPieces.size(), walk, segments);
        if (doDump) dump(*rep);
    }
    return 0;
}
