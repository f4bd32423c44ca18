// Merge benchmark: `ringscope merge --json` of N synthetic rank summaries with C collectives
// each (ringscope.ranksummary/1 files written by the real writer): writeMergedReportJson, the
// summaries read slim in parallel, matched across ranks, then read again as the job report is
// written (to a byte counter). Each N runs in a child process, so its wall time, CPU time and
// peak RSS (wait4's rusage) are its own. Checks the target:
//   4,096 ranks x 1,000 collectives <= 30 s and <= 4 GB peak; linear in ranks x collectives.
//   bench_merge [--ranks 256,1024,4096] [--collectives 1000] [--dir DIR]
#include "bench/benchutil.h"
#include "core/analysis/reportjson.h"
#include "core/job/ranksummary.h"
#include "core/workpool.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QDir>
#include <QFileInfo>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

namespace {

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
    facts->producer = "torch_npu";
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

// Counts what the report writer writes (the merge's output, as `merge --json > /dev/null`).
class CountingBuf : public std::streambuf {
public:
    std::uint64_t bytes = 0;

protected:
    int_type overflow(int_type c) override
    {
        if (c != traits_type::eof()) ++bytes;
        return c;
    }
    std::streamsize xsputn(const char*, std::streamsize n) override
    {
        bytes += static_cast<std::uint64_t>(n);
        return n;
    }
};

// The merge alone, in this (child) process: `ringscope merge DIR --json` to a counter.
int mergeOnce(const std::string& sub, int ranks)
{
    CountingBuf buf;
    std::ostream out(&buf);
    const auto t0 = Clock::now();
    const rs::MergeOutcome m = rs::writeMergedReportJson(out, {sub});
    const double sec = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!m.errors.empty() || m.ranks != std::size_t(ranks) || !m.job) {
        std::fprintf(stderr, "merge failed: %zu errors (%s), %zu ranks\n", m.errors.size(),
                     m.errors.empty() ? "" : m.errors.front().c_str(), m.ranks);
        return 2;
    }
    std::printf("%.3f %llu\n", sec, static_cast<unsigned long long>(buf.bytes));
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<int> rankCounts = {256, 1024, 4096};
    int collectives = 1000;
    std::string dir = "/tmp/ringscope-bench-merge";
    std::string one; // internal: --one DIR RANKS, the merge in a child process
    int oneRanks = 0;
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
        } else if (a == "--one" && i + 2 < argc) {
            one = argv[++i];
            oneRanks = std::atoi(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: bench_merge [--ranks 256,1024,4096] [--collectives N] "
                                 "[--dir DIR]\n");
            return 2;
        }
    }
    if (!one.empty()) return mergeOnce(one, oneRanks);

    std::printf("merge of synthetic rank summaries, %d collectives each, %d pool threads\n",
                collectives, rs::WorkPool::global().threadCount());
    std::printf("(each merge runs in its own process: wall time, CPU time and peak RSS from "
                "wait4's rusage)\n");
    std::printf("%8s %11s %11s %9s %9s %10s %12s %12s\n", "ranks", "summaries", "report", "wall",
                "CPU", "peak RSS", "us/rank-coll", "CPU-us/r-c");
    bool met = true;
    for (int ranks : rankCounts) {
        const std::string sub = ensureSummaries(dir, ranks, collectives);
        const std::uint64_t bytes = folderBytes(sub);
        int fds[2];
        if (pipe(fds) != 0) return 2;
        const std::string r = std::to_string(ranks);
        const auto t0 = Clock::now();
        const pid_t pid = fork();
        if (pid == 0) {
            dup2(fds[1], 1);
            close(fds[0]);
            close(fds[1]);
            execl("/proc/self/exe", argv[0], "--one", sub.c_str(), r.c_str(),
                  static_cast<char*>(nullptr));
            _exit(127);
        }
        close(fds[1]);
        std::string text;
        char buf[256];
        for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
            text.append(buf, static_cast<std::size_t>(n));
        close(fds[0]);
        int status = 0;
        struct rusage ru {};
        wait4(pid, &status, 0, &ru);
        const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            std::fprintf(stderr, "merge of %d ranks failed\n", ranks);
            return 2;
        }
        double mergeSec = 0;
        unsigned long long reportBytes = 0;
        std::sscanf(text.c_str(), "%lf %llu", &mergeSec, &reportBytes);
        const double cpu = double(ru.ru_utime.tv_sec) + double(ru.ru_stime.tv_sec) +
                           1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
        const std::uint64_t peak = static_cast<std::uint64_t>(ru.ru_maxrss) * 1024;
        const double units = double(ranks) * collectives;
        std::printf("%8d %7.0f MiB %7.0f MiB %8.2fs %8.2fs %6.0f MiB %12.2f %12.2f\n", ranks,
                    mib(bytes), mib(reportBytes), mergeSec, cpu, mib(peak), mergeSec * 1e6 / units,
                    cpu * 1e6 / units);
        (void)wall;
        std::fflush(stdout);
        if (ranks == 4096 && collectives == 1000) {
            const bool ok = mergeSec <= 30.0 && peak <= (4ull << 30);
            met = met && ok;
            std::printf("target 4,096 x 1,000: <= 30 s and <= 4 GB peak: %s\n",
                        ok ? "met" : "NOT met");
        }
    }
    return met ? 0 : 1;
}
