// Merge benchmark: `ringscope merge` of N synthetic rank summaries with C collectives each
// (ringscope.ranksummary/1 files written by the real writer), read in parallel, matched across
// ranks and printed as the job report (JSON, to /dev/null). Prints wall time and peak memory per
// N and the cost per rank x collective, and checks the target:
//   4,096 ranks x 1,000 collectives <= 30 s and <= 4 GB peak; linear in ranks x collectives.
//   bench_merge [--ranks 256,1024,4096] [--collectives 1000] [--dir DIR] [--no-json]
#include "bench/benchutil.h"
#include "core/analysis/reportjson.h"
#include "core/job/ranksummary.h"
#include "core/workpool.h"

#include <QDir>
#include <QFileInfo>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using rs::bench::resetPeak;
using rs::bench::statusBytes;
using Clock = std::chrono::steady_clock;

double mib(std::uint64_t b)
{
    return double(b) / (1024.0 * 1024.0);
}

std::uint64_t mix(std::uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb33fe63a53ceULL;
    return x ^ (x >> 33);
}

constexpr int kPerStep = 10; // collectives per training step

// One rank of a synthetic HCCL job: steps of 10 collectives (8 AllReduce, 2 AllGather) with the
// fields a torch_npu rank's report carries (transfers, time info, bandwidth, a step each); every
// 50th collective one rank copies its input (15 ms of extra internal memcpy) and the others
// wait for it; findings with 10-frame stacks for those.
rs::AnalysisReport syntheticRank(int rank, int ranks, int collectives)
{
    using namespace rs;
    AnalysisReport rep;
    auto facts = std::make_shared<TraceFacts>();
    facts->path = "/synthetic/job/rank" + std::to_string(rank) + "_ascend_pt";
    facts->rank = rank;
    facts->producer = Producer::TorchNpu;
    facts->events = 40ull * static_cast<std::uint64_t>(collectives) * 50;
    rep.signatures.resize(2);
    rep.signatures[0].label = "AllReduce · group hccl_world_group · 4,194,304 × FP32 · MESH-RING";
    rep.signatures[1].label = "AllGather · group hccl_world_group · 1,048,576 × FP16 · MESH";
    const TimeNs stepNs = 600'000'000;
    for (int i = 0; i < collectives; ++i) {
        const int step = i / kPerStep, k = i % kPerStep;
        Collective c;
        c.event = static_cast<EventId>(1000 + i * 50);
        c.hostEvent = c.event + 1;
        c.rank = rank;
        const bool gather = k >= 8;
        c.kind = gather ? CollectiveKind::AllGather : CollectiveKind::AllReduce;
        c.name =
            (gather ? "hcom_allGather__" : "hcom_allReduce__") + std::to_string(700 + i) + "_0_1";
        c.group = "hccl_world_group";
        c.algorithm = gather ? "MESH" : "MESH-RING";
        c.dtype = gather ? "FP16" : "FP32";
        c.count = gather ? 1'048'576 : 4'194'304;
        c.bytes = gather ? 2'097'152 : 16'777'216;
        c.groupSize = ranks;
        const std::uint64_t h = mix(static_cast<std::uint64_t>(rank) * 1'000'003 + i);
        const bool badHere = i % 50 == 7 && (i * 7) % ranks == rank;
        const bool badInstance = i % 50 == 7;
        c.start = 1'700'000'000'000'000'000LL + step * stepNs + k * 50'000'000 +
                  static_cast<TimeNs>(h % 200'000);
        c.dur = 20'000'000 + static_cast<TimeNs>(h % 1'000'000);
        c.memcpyCount = 1;
        c.memcpyNs = 400'000;
        c.memcpyBytes = c.bytes;
        if (badHere) {
            c.memcpyCount = 2;
            c.memcpyNs += 15'000'000;
            c.extraMemcpyNs = 15'000'000;
            c.dur += 15'000'000;
            c.unalignedCount = 1;
            c.anomalous = true;
            c.mode = 1;
            c.verdict = "Extra internal memcpy of 15.0 ms (misaligned input): the op takes "
                        "1.7x its fast mode";
        } else if (badInstance) {
            c.waitNs = 15'000'000;
            c.dur += 15'000'000;
            c.waiting = true;
            c.mode = 1;
            c.verdict = "Waits 15.0 ms for a peer (Notify_Wait); no extra copy here";
        } else {
            c.waitNs = static_cast<TimeNs>(h % 300'000);
            c.mode = 0;
        }
        c.signature = gather ? 1 : 0;
        c.step = step;
        c.algbwGbps = double(c.bytes) / double(c.dur);
        c.busbwGbps = c.algbwGbps * 2.0 * (ranks - 1) / ranks;
        c.transfers.push_back({"HCCS", c.bytes, c.dur / 2, 8, 0.95, 18.0, 0.5});
        c.transfers.push_back({"SDMA", c.bytes, c.dur / 2, 8, NAN, NAN, NAN});
        CommTimeInfo ti;
        ti.elapseNs = c.dur;
        ti.transitNs = c.dur / 2;
        ti.waitNs = c.waitNs;
        ti.idleNs = c.dur - ti.transitNs - ti.waitNs;
        ti.waitRatio = 0.1234;
        ti.masterPlane = 0;
        c.timeInfo = ti;
        rep.signatures[c.signature].members.push_back(static_cast<std::uint32_t>(i));
        facts->slices.push_back({c.event, c.name, c.start, c.dur});
        if (badHere) {
            Finding f;
            f.rule = "collective-internal-memcpy";
            f.severity = Severity::Error;
            f.title = c.name + " in step " + std::to_string(step) +
                      " copies its input inside HCCL: 15.0 ms of extra internal memcpy";
            f.rank = rank;
            f.events = {c.event};
            for (int d = 0; d < 10; ++d)
                f.stack.push_back(
                    {"frame_" + std::to_string(d) + " (model.py:" + std::to_string(100 + d) + ")",
                     rs::kNone, d == 0 ? "slice" : "python"});
            f.recommendation = "Allocate the input aligned or make it contiguous.";
            f.start = c.start;
            f.end = c.start + c.dur;
            rep.findings.push_back(std::move(f));
        }
        rep.collectives.push_back(std::move(c));
    }
    for (SignatureGroup& g : rep.signatures) {
        g.modes.push_back({20'500'000, 20'000'000, 21'000'000, int(g.members.size()) - 1, 0});
        g.modes.push_back({35'500'000, 35'000'000, 36'000'000, 1, 1});
        g.baselineMemcpyNs = 400'000;
        g.summary = "mode B = 1.7x mode A; every mode-B op has one extra Memcpy or waits";
    }
    const int steps = (collectives + kPerStep - 1) / kPerStep;
    for (int s = 0; s < steps; ++s) {
        StepStats st;
        st.step = s;
        st.rank = rank;
        st.event = static_cast<EventId>(500 + s);
        st.start = 1'700'000'000'000'000'000LL + s * stepNs;
        st.end = st.start + stepNs;
        st.computing = 300'000'000;
        st.communication = 250'000'000;
        st.overlapped = 50'000'000;
        st.communicationNotOverlapped = 200'000'000;
        st.free = 100'000'000;
        st.busyStart = st.start;
        st.busyEnd = st.end;
        st.internalMemcpy = 4'000'000;
        rep.steps.push_back(st);
    }
    std::sort(facts->slices.begin(), facts->slices.end(),
              [](const EventFacts& a, const EventFacts& b) { return a.id < b.id; });
    rep.facts = std::move(facts);
    return rep;
}

// dir/<ranks>x<collectives>/rank<N>.ranksummary.json, written once and reused.
std::string ensureSummaries(const std::string& dir, int ranks, int collectives)
{
    const std::string sub = dir + "/" + std::to_string(ranks) + "x" + std::to_string(collectives);
    const QString done = QString::fromStdString(sub + "/.complete");
    if (QFileInfo::exists(done)) return sub;
    QDir(QString::fromStdString(sub)).removeRecursively();
    QDir().mkpath(QString::fromStdString(sub));
    const auto t0 = Clock::now();
    rs::parallelFor(static_cast<std::size_t>(ranks), [&](std::size_t r) {
        rs::AnalysisReport rep = syntheticRank(static_cast<int>(r), ranks, collectives);
        std::string error;
        const auto shared = std::make_shared<rs::AnalysisReport>(std::move(rep));
        if (!rs::writeRankSummary({shared->facts->path, shared},
                                  sub + "/rank" + std::to_string(r) + ".ranksummary.json", &error))
            std::fprintf(stderr, "%s\n", error.c_str());
    });
    std::ofstream(done.toStdString()) << "ok\n";
    std::printf("  (wrote %d summaries in %.1f s)\n", ranks,
                std::chrono::duration<double>(Clock::now() - t0).count());
    return sub;
}

std::uint64_t folderBytes(const std::string& dir)
{
    std::uint64_t n = 0;
    for (const QFileInfo& f : QDir(QString::fromStdString(dir)).entryInfoList(QDir::Files))
        n += static_cast<std::uint64_t>(f.size());
    return n;
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<int> rankCounts = {256, 1024, 4096};
    int collectives = 1000;
    std::string dir = "/tmp/ringscope-bench-merge";
    bool json = true;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--ranks" && i + 1 < argc) {
            rankCounts.clear();
            std::stringstream s(argv[++i]);
            for (std::string x; std::getline(s, x, ',');)
                rankCounts.push_back(std::atoi(x.c_str()));
        } else if (a == "--collectives" && i + 1 < argc) {
            collectives = std::atoi(argv[++i]);
        } else if (a == "--dir" && i + 1 < argc) {
            dir = argv[++i];
        } else if (a == "--no-json") {
            json = false;
        } else {
            std::fprintf(stderr, "usage: bench_merge [--ranks 256,1024,4096] [--collectives N] "
                                 "[--dir DIR] [--no-json]\n");
            return 2;
        }
    }
    std::printf("merge of synthetic rank summaries, %d collectives each, %d pool threads\n",
                collectives, rs::WorkPool::global().threadCount());
    std::printf("%8s %12s %10s %10s %10s %10s %12s %14s\n", "ranks", "summaries", "read+job",
                "report", "total", "peak", "ns/rank-coll", "job findings");
    bool met = true;
    for (int ranks : rankCounts) {
        const std::string sub = ensureSummaries(dir, ranks, collectives);
        const std::uint64_t bytes = folderBytes(sub);
        resetPeak();
        const std::uint64_t base = statusBytes("VmRSS");
        const auto t0 = Clock::now();
        double reduceSec = 0, reportSec = 0;
        std::size_t findings = 0;
        {
            const rs::MergedJob merged = rs::mergeRankSummaries({sub});
            reduceSec = std::chrono::duration<double>(Clock::now() - t0).count();
            if (!merged.errors.empty() || merged.inputs.size() != std::size_t(ranks) ||
                !merged.job) {
                std::fprintf(stderr, "merge failed: %zu errors, %zu inputs\n", merged.errors.size(),
                             merged.inputs.size());
                return 2;
            }
            findings = merged.job->findings.size();
            const auto t1 = Clock::now();
            if (json) {
                std::ofstream out("/dev/null");
                rs::writeReportJson(out, merged.inputs, merged.jobReport());
            }
            reportSec = std::chrono::duration<double>(Clock::now() - t1).count();
        }
        const double total = std::chrono::duration<double>(Clock::now() - t0).count();
        const std::uint64_t peak = statusBytes("VmHWM") - base;
        const double perUnit = total * 1e9 / (double(ranks) * collectives);
        std::printf("%8d %9.0f MiB %9.2fs %9.2fs %9.2fs %6.0f MiB %12.0f %14zu\n", ranks,
                    mib(bytes), reduceSec, reportSec, total, mib(peak), perUnit, findings);
        std::fflush(stdout);
        if (ranks == 4096 && collectives == 1000) {
            const bool ok = total <= 30.0 && peak <= (4ull << 30);
            met = met && ok;
            std::printf("target 4,096 x 1,000: <= 30 s and <= 4 GB peak: %s\n",
                        ok ? "met" : "NOT met");
        }
    }
    return met ? 0 : 1;
}
