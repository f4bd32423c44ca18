// Statistics benchmark (core/stats): load a trace, then time computeStats for each --by over
// the whole trace, a 10 % range in the middle (binary search to the range) and one track.
//   bench_stats [FILE] [--gen SIZE] [--torchnpu] [--repeat N]
// Without FILE, --gen writes a synthetic trace of SIZE (default 100M, tracegen_large) to /tmp.
#include "bench/tracegen_large.h"
#include "core/analysis/analyzer.h"
#include "core/analysis/producermodel.h"
#include "core/stats/stats.h"
#include "core/traceloader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

} // namespace

int main(int argc, char** argv)
{
    std::string file, gen = "100M";
    bool torchNpu = false;
    int repeat = 3;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--gen") && i + 1 < argc)
            gen = argv[++i];
        else if (!std::strcmp(argv[i], "--torchnpu"))
            torchNpu = true;
        else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = std::max(1, std::atoi(argv[++i]));
        else
            file = argv[i];
    }
    if (file.empty()) {
        rs::tracegen::LargeTraceOptions o;
        o.shape = torchNpu ? rs::tracegen::Shape::TorchNpu : rs::tracegen::Shape::Kineto;
        o.targetBytes = rs::tracegen::parseSize(gen);
        file = std::string("/tmp/bench_stats_") + (torchNpu ? "npu_" : "kineto_") + gen + ".json";
        std::string error;
        rs::tracegen::LargeTraceStats st;
        if (!rs::tracegen::writeLargeTrace(file, o, &st, &error)) {
            std::fprintf(stderr, "bench_stats: %s\n", error.c_str());
            return 1;
        }
    }
    auto t0 = Clock::now();
    rs::LoadResult lr = rs::loadTrace(file);
    if (!lr.trace) {
        std::fprintf(stderr, "bench_stats: %s\n", lr.message.c_str());
        return 1;
    }
    const rs::Trace& t = *lr.trace;
    std::printf("%s: %zu slices, %zu tracks, loaded in %.0f ms\n", file.c_str(), t.slices().size(),
                t.tracks().size(), msSince(t0));
    t0 = Clock::now();
    const rs::ReportPtr report = rs::analyze(lr.trace);
    std::printf("analysis (for collectives): %.0f ms, %zu collectives\n", msSince(t0),
                report->collectives.size());
    const rs::TimeNs span = t.endNs() - t.startNs();
    const std::pair<rs::TimeNs, rs::TimeNs> mid{t.startNs() + span * 45 / 100,
                                                t.startNs() + span * 55 / 100};
    // The busiest device track and host thread: an area of one track.
    const auto roles = rs::analysis::trackRoles(t);
    rs::TrackId busiest[2] = {rs::kNone, rs::kNone}; // host, device
    for (rs::TrackId tr = 0; tr < t.tracks().size(); ++tr) {
        const bool device = rs::isDeviceRole(roles[tr]);
        if (!device && roles[tr] != rs::TrackRole::Host) continue;
        rs::TrackId& b = busiest[device];
        const auto n = [&](rs::TrackId x) { return t.tracks()[x].end - t.tracks()[x].begin; };
        if (b == rs::kNone || n(tr) > n(b)) b = tr;
    }
    std::printf("%-10s %12s %12s %12s %8s\n", "by", "whole ms", "10% range ms", "1 track ms",
                "rows");
    for (rs::StatsGroup by :
         {rs::StatsGroup::Kernel, rs::StatsGroup::Op, rs::StatsGroup::Collective,
          rs::StatsGroup::Step, rs::StatsGroup::Memcpy}) {
        double best[3] = {1e300, 1e300, 1e300};
        std::size_t rows = 0;
        for (int r = 0; r < repeat; ++r) {
            for (int scope = 0; scope < 3; ++scope) {
                rs::StatsOptions o;
                o.by = by;
                if (scope == 1) o.scope.range = mid;
                if (scope == 2)
                    o.scope.tracks = std::vector<rs::TrackId>{busiest[rs::statsGroupOnDevice(by)]};
                const auto s0 = Clock::now();
                const rs::StatsTable table = rs::computeStats(t, report.get(), o);
                best[scope] = std::min(best[scope], msSince(s0));
                if (scope == 0) rows = table.rows.size();
            }
        }
        std::printf("%-10s %12.1f %12.1f %12.1f %8zu\n", rs::statsGroupName(by), best[0], best[1],
                    best[2], rows);
    }
    return 0;
}
