#include "core/analysis/presentation.h"

#include "core/analysis/criticalpath.h"
#include "core/analysis/reportjson.h"
#include "core/timeconv.h"
#include "core/workpool.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace rs {

std::string modeLetter(int mode)
{
    if (mode < 0) return "?";
    std::string s;
    for (int m = mode + 1; m > 0; m = (m - 1) / 26)
        s.insert(s.begin(), char('A' + (m - 1) % 26));
    return s;
}

namespace presentation {

std::string signatureLabel(const Collective& c)
{
    std::string label = collectiveKindName(c.kind);
    if (!c.group.empty()) label += " · group " + c.group;
    if (c.count) label += " · " + formatCount(c.count) + (c.dtype.empty() ? "" : " × ") + c.dtype;
    if (!c.algorithm.empty()) label += " · " + c.algorithm;
    return label;
}

std::string groupSummary(const SignatureGroup& g, const std::vector<Collective>& cols)
{
    if (g.modes.size() < 2) {
        return std::to_string(g.members.size()) + " op" + (g.members.size() == 1 ? "" : "s") +
               ", one duration mode (" + formatDuration(g.modes.empty() ? 0 : g.modes[0].meanNs) +
               ")";
    }
    std::string s;
    const TimeNs fast = g.modes[0].meanNs;
    for (std::size_t m = 1; m < g.modes.size(); ++m) {
        const DurationMode& dm = g.modes[m];
        char ratio[32];
        std::snprintf(ratio, sizeof ratio, "%.1fx", fast > 0 ? double(dm.meanNs) / fast : 0.0);
        if (!s.empty()) s += "; ";
        s += "mode " + modeLetter(int(m)) + " = " + ratio + " mode A (" +
             formatDuration(dm.meanNs) + " vs " + formatDuration(fast) + ")";
        // Describe the extra copies of this mode's members.
        int withExtra = 0, waiting = 0, extraCount = 0;
        TimeNs extraNs = 0;
        for (auto i : g.members) {
            const Collective& c = cols[i];
            if (!c.mode || std::size_t(*c.mode) != m) continue;
            int n = 0;
            for (const InternalCopy& cp : c.copies) {
                if (cp.extra) {
                    ++n;
                    extraNs += cp.dur;
                }
            }
            withExtra += n > 0;
            extraCount += n;
            waiting += c.waiting;
        }
        const std::string letter = modeLetter(int(m));
        if (withExtra == dm.members && withExtra > 0) {
            const int per = extraCount / withExtra;
            s += "; every mode-" + letter + " op has " +
                 (per == 1 ? std::string("one") : std::to_string(per)) + " extra Memcpy" + " of ~" +
                 formatDuration(extraNs / std::max(1, extraCount));
        } else if (withExtra > 0) {
            s += "; " + std::to_string(withExtra) + " of " + std::to_string(dm.members) + " mode-" +
                 letter + " ops have an extra Memcpy";
        } else if (waiting == dm.members) {
            s += "; mode-" + letter + " ops waited for a slower peer, no extra Memcpy";
        } else {
            s += "; mode-" + letter + " ops have no extra Memcpy";
        }
    }
    int slowerWithExtra = 0;
    for (std::size_t m = 1; m < g.modes.size(); ++m)
        slowerWithExtra += g.modes[m].withExtraCopy;
    if (slowerWithExtra > 0 && g.modes[0].withExtraCopy == 0) s += "; no mode-A op has it";
    return s;
}

std::string recordedVerdict(const Collective& c)
{
    const std::string seq = c.seq ? " #" + std::to_string(*c.seq) : std::string();
    if (c.state == CallState::Completed)
        return "Recorded call" + seq + ": completed " + formatDuration(c.dur) +
               " after it was enqueued.";
    return "Recorded call" + seq + ": " + callStateName(c.state) +
           ", not completed when the rank dumped, " + formatDuration(c.dur) +
           " after it was enqueued: it waited for its group's other members.";
}

std::string recordedSummary(std::size_t calls, std::size_t inFlight)
{
    return std::to_string(calls) + " recorded call" + (calls == 1 ? "" : "s") + ", " +
           std::to_string(inFlight) + " not completed at the dump";
}

std::string verdict(const Collective& c, const SignatureGroup& g, bool peers, bool waitRecorded)
{
    const std::string kind = collectiveKindName(c.kind);
    const TimeNs fast = g.modes.empty() ? c.dur : g.modes[0].meanNs;
    int extra = 0;
    TimeNs extraNs = 0;
    for (const InternalCopy& cp : c.copies) {
        if (cp.extra) {
            ++extra;
            extraNs += cp.dur;
        }
    }
    char buf[512];
    if (c.anomalous && peers) {
        std::snprintf(buf, sizeof buf,
                      "Anomalous: %s took %s, %.1fx its fast mode (%s); %d extra internal "
                      "Memcpy of %s explain%s the difference: its input was likely "
                      "misaligned or not contiguous.",
                      kind.c_str(), formatDuration(c.dur).c_str(),
                      fast > 0 ? double(c.dur) / fast : 0.0, formatDuration(fast).c_str(), extra,
                      formatDuration(extraNs).c_str(), extra == 1 ? "s" : "");
    } else if (c.anomalous) {
        std::snprintf(buf, sizeof buf,
                      "Anomalous: internal memcpy takes %s of its %s (%.0f%%); no peer op "
                      "to compare with.",
                      formatDuration(c.memcpyNs).c_str(), formatDuration(c.dur).c_str(),
                      c.dur > 0 ? 100.0 * double(c.memcpyNs) / double(c.dur) : 0.0);
    } else if (c.waiting) {
        std::snprintf(
            buf, sizeof buf,
            "Waiting: %s took %s, %.1fx its fast mode, with no extra memcpy%s; "
            "this rank waited for a slower peer, look at the other ranks.",
            kind.c_str(), formatDuration(c.dur).c_str(), fast > 0 ? double(c.dur) / fast : 0.0,
            waitRecorded ? (" (" + formatDuration(c.waitNs) + " in Notify_Wait)").c_str() : "");
    } else if (c.mode && *c.mode > 0) {
        std::snprintf(buf, sizeof buf,
                      "Slow: %s took %s, %.1fx the fast mode of its signature, not "
                      "explained by internal memcpy (%s) nor by waiting (the trace may not "
                      "give its size).",
                      kind.c_str(), formatDuration(c.dur).c_str(),
                      fast > 0 ? double(c.dur) / fast : 0.0, formatDuration(c.memcpyNs).c_str());
    } else {
        std::snprintf(buf, sizeof buf, "Normal: %s took %s with %d internal memcpy (%s).",
                      kind.c_str(), formatDuration(c.dur).c_str(), c.memcpyCount,
                      formatDuration(c.memcpyNs).c_str());
    }
    return buf;
}

FindingText extraMemcpy(const Collective& c, const AnalysisOptions& o, const std::string& src)
{
    const std::string kind = collectiveKindName(c.kind);
    FindingText t;
    t.title = kind + " " + c.name + " carries " + formatDuration(c.extraMemcpyNs) +
              " of extra internal memcpy (" + formatDuration(c.dur) + " in all)";
    t.recommendation =
        "The collective copied its input internally, the mark of an input whose address or size "
        "is not aligned (HCCL needs " +
        std::to_string(o.addrAlign) +
        "-byte aligned addresses) or that is not contiguous. Allocate the tensor aligned and "
        "contiguous before the " +
        kind + " (e.g. instead of a torch.empty / view / slice result)" +
        (src.empty() ? std::string(".") : " in " + src + ".");
    return t;
}

FindingText waiting(const Collective& c)
{
    FindingText t;
    t.title = std::string(collectiveKindName(c.kind)) + " " + c.name +
              " waited for a slower peer (" + formatDuration(c.dur) + ")";
    t.recommendation = "Not a problem of this rank: find the rank whose op of the same step is "
                       "anomalous or started late.";
    return t;
}

std::string misalignedAddress(std::uint64_t address, std::uint64_t boundary)
{
    char b[96];
    std::snprintf(b, sizeof b, "address 0x%llx, %llu B past a %llu B boundary",
                  static_cast<unsigned long long>(address),
                  static_cast<unsigned long long>(boundary ? address % boundary : 0),
                  static_cast<unsigned long long>(boundary));
    return b;
}

std::string misalignedAddress(const InternalCopy& copy, std::uint64_t boundary)
{
    if (!copy.unalignedAddress || copy.address == 0 || boundary == 0) return {};
    return misalignedAddress(copy.address, boundary);
}

FindingText unaligned(const Collective& c, const AnalysisOptions& o, std::size_t count,
                      bool address, const std::string& src)
{
    FindingText t;
    t.title = std::to_string(count) + " transfer" + (count == 1 ? "" : "s") + " in " +
              collectiveKindName(c.kind) + " " + c.name +
              (address ? " with an address not a multiple of " + std::to_string(o.addrAlign) + " B"
                       : " with a size not a multiple of " + std::to_string(o.sizeAlign) + " B");
    // The first misaligned address with its remainder, as a size's remainder is given.
    if (address)
        for (const InternalCopy& cp : c.copies)
            if (const std::string a = misalignedAddress(cp, o.addrAlign); !a.empty()) {
                t.title += " (" + a + ")";
                break;
            }
    t.recommendation = "Pad the communicated tensor to a multiple of " +
                       std::to_string(o.sizeAlign) + " bytes and allocate it " +
                       std::to_string(o.addrAlign) + "-byte aligned" +
                       (src.empty() ? std::string(".") : " in " + src + ".");
    return t;
}

namespace {

std::string pct(double f)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.0f%%", 100.0 * f);
    return b;
}

std::string gbpsText(double v)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.1f GB/s", v);
    return b;
}

std::string mbText(std::uint64_t bytes)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.1f MB", double(bytes) / 1e6);
    return b;
}

} // namespace

FindingText linkUnderutilized(const LinkUse& u)
{
    FindingText t;
    if (u.busbw) {
        const double mean = u.transfers ? u.sumUtilization / u.transfers : 0.0;
        t.title = std::to_string(u.slow) + " of " + std::to_string(u.transfers) +
                  " large collectives reach under " + pct(0.6) + " of " + u.link + "'s " +
                  gbpsText(u.peakGbps) + " in bus bandwidth (mean " + pct(mean) + ", lowest " +
                  pct(u.worst) + "; " + u.basis + ")";
        t.recommendation =
            "These collectives are large enough to be bandwidth-bound, yet their bus bandwidth is "
            "far below the link's peak. Check that the group really runs over " +
            u.link +
            " (NCCL_DEBUG=INFO names the transport; NCCL_P2P / NCCL_NET settings, GPU-NIC "
            "affinity), that nothing else shares the link, and that the peak fits this system "
            "(--link-peak " +
            u.link + "=GBPS).";
        return t;
    }
    const double gbps = u.ns > 0 ? double(u.bytes) / double(u.ns) : 0.0;
    t.title = u.link + " ran under " + pct(0.6) + " of its " + gbpsText(u.peakGbps) + " peak on " +
              std::to_string(u.slow) + " of " + std::to_string(u.transfers) +
              " ops' large transfers (" + gbpsText(gbps) + " over " + mbText(u.bytes) +
              ", lowest " + pct(u.worst) + ")";
    t.recommendation =
        "The transfers are large enough to be bandwidth-bound, so the link itself was slow: "
        "check its health and contention (other traffic on the same " +
        u.link +
        " link, e.g. overlapping collectives of another group), the NPUs' placement, and that "
        "the peak fits this chip (--link-peak " +
        u.link + "=28 on newer Ascend chips).";
    return t;
}

FindingText smallPackets(const PacketUse& u)
{
    FindingText t;
    const double mean = u.records ? double(u.bytes) / u.records / 1e6 : 0.0;
    char b[64];
    std::snprintf(b, sizeof b, "%.2f MB", mean);
    t.title = std::to_string(u.ops) + " op" + (u.ops == 1 ? "" : "s") + " move " + u.transport +
              " traffic in small packets: " + std::to_string(u.records) +
              " transfers, none or few above the large-packet size, " + b + " on average";
    t.recommendation =
        "Small transfers cannot fill the link. Fuse small collectives into larger ones (bucket "
        "the gradients: a larger DDP bucket_cap_mb, fewer and larger AllReduce calls) and keep "
        "HCCL_BUFFSIZE large enough for one transfer per chunk.";
    return t;
}

FindingText syncDominated(int ops, int withInfo, TimeNs syncNs, TimeNs transitNs)
{
    FindingText t;
    const double r = syncNs + transitNs > 0 ? double(syncNs) / double(syncNs + transitNs) : 0.0;
    t.title = std::to_string(ops) + " of " + std::to_string(withInfo) +
              " HCCL ops spent most of their time waiting for peers before any data moved " +
              "(synchronization " + formatDuration(syncNs) + " vs transit " +
              formatDuration(transitNs) + ", ratio " + pct(r) + ")";
    t.recommendation =
        "Not a bandwidth problem: the other ranks reached the collective later (skew) or one "
        "rank is a straggler. Open the whole job: the rank the others wait for is named in the "
        "job's cross-rank view (cross_rank[].delaying_ranks, the Ranks heatmap); look there for "
        "extra compute, an internal memcpy or a late launch.";
    return t;
}

FindingText unexpectedTransport(int ops, std::uint64_t pcieBytes,
                                const std::vector<std::string>& mixedLinks)
{
    FindingText t;
    if (pcieBytes > 0) {
        t.title = std::to_string(ops) + " op" + (ops == 1 ? "" : "s") + " sent " +
                  mbText(pcieBytes) + " over PCIe while their other transfers use HCCS";
    } else {
        t.title = "links carried over more than one transport:";
    }
    for (std::size_t i = 0; i < mixedLinks.size() && i < 4; ++i)
        t.title += (i == 0 ? (pcieBytes > 0 ? "; mixed links " : " ") : ", ") + mixedLinks[i];
    if (mixedLinks.size() > 4) t.title += ", ...";
    t.recommendation =
        "Traffic between NPUs of one server should stay on HCCS. A PCIe path means the ranks "
        "are not where HCCL expects them (device mapping, ASCEND_RT_VISIBLE_DEVICES, a rank "
        "table that crosses HCCS domains) or a link is down: check the topology (npu-smi info "
        "-t topo) and the rank placement.";
    return t;
}

std::string badFields(const std::map<std::string, std::uint64_t, std::less<>>& byKey)
{
    std::uint64_t total = 0;
    std::string keys;
    for (const auto& [k, n] : byKey) {
        total += n;
        if (!keys.empty()) keys += ", ";
        keys += k + " (" + std::to_string(n) + ")";
    }
    return "analysis: " + std::to_string(total) + " arg" + (total == 1 ? "" : "s") +
           " of the wrong JSON type ignored: " + keys;
}

} // namespace presentation

namespace {

std::string fmtGbps(double v)
{
    if (!std::isfinite(v)) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f GB/s", v);
    return buf;
}

std::string ms(TimeNs ns)
{
    return formatDuration(ns);
}

std::string utilText(double u)
{
    if (!std::isfinite(u)) return "";
    char b[32];
    std::snprintf(b, sizeof b, "%.0f%%", 100.0 * u);
    return b;
}

// Per rank: where the slowest ops' time went and how busy their links were.
void communicationText(std::ostringstream& o, const AnalysisReport& rep)
{
    std::vector<const Collective*> ops;
    for (const Collective& c : rep.collectives)
        if (c.timeInfo || c.link) ops.push_back(&c);
    if (ops.empty()) return;
    std::stable_sort(ops.begin(), ops.end(),
                     [](const Collective* a, const Collective* b) { return a->dur > b->dur; });
    o << "  communication (slowest ops):\n";
    for (std::size_t i = 0; i < ops.size() && i < 3; ++i) {
        const Collective& c = *ops[i];
        o << "    " << c.name << (c.step ? " step " + std::to_string(*c.step) : "") << ": "
          << ms(c.dur);
        if (c.timeInfo) {
            const CommTimeInfo& t = *c.timeInfo;
            o << " = transit " << ms(t.transitNs) << " + wait " << ms(t.waitNs) << " (sync "
              << ms(t.synchronizationNs) << ") + idle " << ms(t.idleNs) << "; wait ratio "
              << utilText(t.waitRatio);
            for (const TransferStat& ts : c.transfers) {
                if (ts.name == "SDMA" && c.transfers.size() > 1) continue;
                o << "; " << ts.name << " " << fmtGbps(ts.gbps());
                if (std::isfinite(ts.utilization))
                    o << " (" << utilText(ts.utilization) << " of " << fmtGbps(ts.peakGbps) << ")";
            }
        }
        if (c.link) {
            o << "; busbw " << fmtGbps(c.busbwGbps) << " = " << utilText(c.link->utilization)
              << " of " << c.link->name << " " << fmtGbps(c.link->peakGbps) << " (" << c.link->basis
              << ")";
        }
        o << "\n";
    }
}

// For a job: the matrix's totals per op group, over every rank's links, summed as the ranks
// pass (a merge of thousands of ranks never holds their reports together).
struct MatrixSum {
    int links = 0;
    std::uint64_t bytes = 0;
    TimeNs ns = 0;
    double lo = INFINITY, hi = 0;
    std::string slowest; // the first link at the lowest GB/s, in rank order
};
using MatrixSums = std::map<std::string, MatrixSum>;

void addMatrix(MatrixSums& groups, const AnalysisReport& rep)
{
    for (const MatrixEntry& m : rep.matrix) {
        if (m.opName || m.transport == "LOCAL") continue; // the totals, between ranks
        MatrixSum& s = groups[m.opGroup];
        ++s.links;
        s.bytes += m.bytes;
        s.ns += m.ns;
        if (std::isfinite(m.gbps) && m.gbps < s.lo) {
            s.lo = m.gbps;
            s.slowest = (m.rank ? "rank " + std::to_string(*m.rank) + " " : std::string()) +
                        std::to_string(m.src) + "-" + std::to_string(m.dst) + " " + m.transport;
        }
        if (std::isfinite(m.gbps)) s.hi = std::max(s.hi, m.gbps);
    }
}

// A later rank's sums into the earlier ranks': an equal low keeps the earlier link, as one
// pass over the ranks in order does.
void mergeMatrix(MatrixSums& into, MatrixSums&& later)
{
    for (auto& [g, x] : later) {
        MatrixSum& s = into[g];
        s.links += x.links;
        s.bytes += x.bytes;
        s.ns += x.ns;
        if (x.lo < s.lo) {
            s.lo = x.lo;
            s.slowest = std::move(x.slowest);
        }
        s.hi = std::max(s.hi, x.hi);
    }
}

void matrixText(std::ostringstream& o, const MatrixSums& groups)
{
    if (groups.empty()) return;
    o << "  communication matrix (links between ranks, all steps):\n";
    for (const auto& [g, s] : groups) {
        char line[256];
        std::snprintf(line, sizeof line, "    %-22s %3d links, %.1f MB, %s-%s; slowest %s\n",
                      g.c_str(), s.links, double(s.bytes) / 1e6, fmtGbps(s.lo).c_str(),
                      fmtGbps(s.hi).c_str(), s.slowest.c_str());
        o << line;
    }
}

// The ranks of a report's sync-dominated findings, in order.
void addSyncWaiting(std::vector<int>& waiting, const AnalysisReport& rep)
{
    for (const Finding& f : rep.findings)
        if (f.rule == "sync-dominated" && f.rank) waiting.push_back(*f.rank);
}

// For a job: the ranks whose ops are sync-dominated, and the rank the job says they wait for.
void syncText(std::ostringstream& o, const std::vector<int>& waiting, const JobReport& job)
{
    if (waiting.empty()) return;
    std::map<int, int> delaying; // rank -> instances it delayed (alone or with others)
    for (const CrossRankCollective& c : job.collectives)
        for (int r : c.delayingRanks)
            ++delaying[r];
    o << "  sync-dominated ops on rank" << (waiting.size() == 1 ? " " : "s ");
    for (std::size_t i = 0; i < waiting.size(); ++i)
        o << (i ? ", " : "") << waiting[i];
    if (delaying.empty()) {
        o << ": no single rank delays the collectives (skew across ranks)\n";
        return;
    }
    o << ": they wait for ";
    bool first = true;
    for (const auto& [r, n] : delaying) {
        o << (first ? "" : ", ") << "rank " << r << " (" << n << " collective"
          << (n == 1 ? "" : "s") << ")";
        first = false;
    }
    o << "\n";
}

std::string rankText(const std::optional<int>& r)
{
    return r ? "rank " + std::to_string(*r) : std::string("rank ?");
}

// The critical path of each step: its length and where it went, largest kinds first, and the
// longest segment (what to look at first).
void criticalPathText(std::ostringstream& o, const std::vector<StepPath>& paths)
{
    if (paths.empty()) return;
    o << "  critical path (what each step waited on):\n";
    for (const StepPath& p : paths) {
        const TimeNs len = p.end - p.start;
        std::vector<std::pair<TimeNs, int>> kinds;
        // Kinds of at least 1% of the step (the rest is in the JSON).
        for (int k = 0; k < kPathKinds; ++k)
            if (p.byKind[std::size_t(k)] * 100 >= len && p.byKind[std::size_t(k)] > 0)
                kinds.emplace_back(p.byKind[std::size_t(k)], k);
        std::sort(kinds.rbegin(), kinds.rend());
        o << "    step " << p.step << " " << formatDuration(len) << ":";
        for (const auto& [ns, k] : kinds) {
            char pct[32];
            std::snprintf(pct, sizeof pct, " %.0f%%",
                          len > 0 ? 100.0 * double(ns) / double(len) : 0.0);
            o << " " << pathKindName(static_cast<PathKind>(k)) << pct;
        }
        const PathSegment* top = nullptr;
        for (const PathSegment& s : p.segments)
            if (s.event != kNone && (!top || s.end - s.start > top->end - top->start)) top = &s;
        if (top)
            o << "; longest: " << top->name << " (" << pathKindName(top->kind) << ", "
              << formatDuration(top->end - top->start)
              << (top->rank ? ", rank " + std::to_string(*top->rank) : "") << ")";
        o << "\n";
    }
}

// One input's part of the text: its collectives, signatures, steps, bandwidth, communication
// and findings.
void inputText(std::ostringstream& o, const ReportInput& in, bool ownPath)
{
    const AnalysisReport& rep = *in.report;
    const bool known = rep.trace || rep.facts;
    int anomalous = 0, waiting = 0, withCopy = 0;
    for (const Collective& c : rep.collectives) {
        anomalous += c.anomalous;
        waiting += c.waiting;
        withCopy += c.memcpyCount > 0;
    }
    o << in.path << " (" << (known ? rankText(reportRank(rep)) : "rank ?") << ", "
      << (known ? reportProducerName(rep) : "?") << ")\n";
    o << "  collectives: " << rep.collectives.size() << ", with internal memcpy: " << withCopy
      << ", anomalous: " << anomalous << ", waiting: " << waiting << "\n";
    for (const SignatureGroup& g : rep.signatures) {
        o << "  " << g.label << ": " << g.summary;
        if (g.baselineMemcpyNs > 0) o << "; memcpy baseline " << formatDuration(g.baselineMemcpyNs);
        o << "\n";
    }
    for (const Collective& c : rep.collectives) {
        if (!c.anomalous && !c.waiting) continue;
        o << "    " << c.name << (c.step ? " step " + std::to_string(*c.step) : "") << ": "
          << c.verdict << "\n";
    }
    if (!rep.steps.empty()) {
        o << "  step      computing   communication   overlapped   comm not overlapped   "
             "free\n";
        for (const StepStats& s : rep.steps) {
            char line[256];
            std::snprintf(line, sizeof line, "  %-8d  %-10s  %-14s  %-11s  %-20s  %s\n", s.step,
                          formatDuration(s.computing).c_str(),
                          formatDuration(s.communication).c_str(),
                          formatDuration(s.overlapped).c_str(),
                          formatDuration(s.communicationNotOverlapped).c_str(),
                          formatDuration(s.free).c_str());
            o << line;
        }
    }
    // Bandwidth of the first ops of each signature, where bytes are known.
    int shown = 0;
    for (const Collective& c : rep.collectives) {
        if (!std::isfinite(c.algbwGbps) || shown >= 8) continue;
        if (shown++ == 0) o << "  bandwidth:\n";
        o << "    " << c.name << ": " << formatDuration(c.dur) << ", algbw " << fmtGbps(c.algbwGbps)
          << ", busbw " << fmtGbps(c.busbwGbps);
        for (const TransferStat& ts : c.transfers)
            o << ", " << ts.name << " " << fmtGbps(ts.gbps());
        o << "\n";
    }
    communicationText(o, rep);
    if (ownPath) criticalPathText(o, rankCriticalPath(rep));
    if (rep.findings.empty()) o << "  no findings\n";
    for (const Finding& f : rep.findings) {
        o << "  [" << severityName(f.severity) << "] " << f.rule << ": " << f.title << "\n";
        std::size_t n = 0;
        for (const StackEntry& s : f.stack) {
            if (++n > 8) {
                o << "      ... " << (f.stack.size() - 8) << " more\n";
                break;
            }
            o << "      " << (n == 1 ? "at " : "in ") << s.text << " (" << s.kind << ")\n";
        }
        if (!f.recommendation.empty()) o << "      -> " << f.recommendation << "\n";
    }
    o << "\n";
}

} // namespace

void writeReportText(std::ostream& out, std::size_t count, const ReportInputSource& input,
                     const JobReport* job)
{
    // In batches whose inputs are worded in parallel and written in order; of each input the
    // job's part keeps only its matrix sums and its sync-dominated ranks.
    const std::size_t batch =
        std::max<std::size_t>(16, 8 * static_cast<std::size_t>(WorkPool::global().threadCount()));
    MatrixSums matrix;
    std::vector<int> waiting;
    std::vector<std::string> texts(std::min(batch, count));
    std::vector<MatrixSums> sums(texts.size());
    std::vector<std::vector<int>> waits(texts.size());
    for (std::size_t b = 0; b < count; b += batch) {
        const std::size_t n = std::min(batch, count - b);
        parallelFor(n, [&](std::size_t k) {
            const ReportInput in = input(b + k);
            std::ostringstream o;
            inputText(o, in, !job);
            texts[k] = o.str();
            sums[k].clear();
            waits[k].clear();
            addMatrix(sums[k], *in.report);
            addSyncWaiting(waits[k], *in.report);
        });
        for (std::size_t k = 0; k < n; ++k) {
            out << texts[k];
            mergeMatrix(matrix, std::move(sums[k]));
            waiting.insert(waiting.end(), waits[k].begin(), waits[k].end());
        }
    }
    if (job && job->ranks.size() > 1) {
        std::ostringstream o;
        int delayed = 0;
        for (const CrossRankCollective& c : job->collectives)
            delayed += c.delayingRank.has_value();
        o << "job: " << job->ranks.size() << " ranks, " << job->collectives.size()
          << " collectives matched across ranks, " << delayed << " delayed by one rank\n";
        matrixText(o, matrix);
        syncText(o, waiting, *job);
        criticalPathText(o, job->criticalPath);
        if (job->findings.empty()) o << "  no job findings\n";
        for (const Finding& f : job->findings) {
            o << "  [" << severityName(f.severity) << "] " << f.rule << ": " << f.title << "\n";
            if (!f.recommendation.empty()) o << "      -> " << f.recommendation << "\n";
        }
        out << o.str();
    }
}

std::string reportToText(const std::vector<ReportInput>& inputs, const JobReport* job)
{
    std::ostringstream o;
    writeReportText(
        o, inputs.size(), [&](std::size_t i) { return inputs[i]; }, job);
    return o.str();
}

} // namespace rs
