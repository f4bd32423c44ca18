// Judging collectives: signature groups, duration modes, the memcpy baseline, which ops are
// anomalous (an extra internal memcpy explains their extra time) and which only waited.
// Thresholds are in docs/analysis.md.

#include "core/analysis/presentation.h"
#include "core/analysis/rules/rules.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace rs::analysis::rules {

namespace {

std::string namePattern(std::string_view n)
{
    // Kernel signatures carry their argument list; digits are op counters in HCCL names.
    std::string out;
    for (char ch : n.substr(0, n.find('('))) {
        if (std::isdigit(static_cast<unsigned char>(ch))) {
            if (out.empty() || out.back() != '#') out.push_back('#');
        } else {
            out.push_back(ch);
        }
    }
    return out;
}

// The trace records where the op's time went (HCCL's Notify_Wait tasks); Kineto kernels do not.
bool waitRecorded(const AnalysisContext& ctx, const Collective& c)
{
    return ctx.roles[ctx.trace.slice(c.event).track] == TrackRole::HcclGroup;
}

void markExtraCopies(Collective& c, TimeNs baseline, bool peers)
{
    std::vector<std::size_t> order(c.copies.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](auto a, auto b) { return c.copies[a].dur > c.copies[b].dur; });
    TimeNs rest = c.memcpyNs;
    for (std::size_t i : order) {
        // Largest first, until what is left is the baseline level (with some slack).
        if (peers && rest <= baseline + baseline / 10) break;
        c.copies[i].extra = true;
        if (!peers) break;
        std::vector<std::pair<TimeNs, TimeNs>> iv;
        for (const InternalCopy& cp : c.copies) {
            if (!cp.extra) iv.emplace_back(cp.start, cp.start + cp.dur);
        }
        rest = unionLength(std::move(iv));
    }
}

void judgeGroup(AnalysisReport& rep, const AnalysisContext& ctx, SignatureGroup& g)
{
    auto& cols = rep.collectives;
    std::vector<TimeNs> durs, copies;
    for (auto i : g.members) {
        durs.push_back(cols[i].dur);
        copies.push_back(cols[i].memcpyNs);
    }
    int nModes = 0, nLevels = 0;
    const auto mode = clusterLevels(durs, &nModes);
    const auto level = clusterLevels(copies, &nLevels);
    g.modes.assign(std::size_t(nModes), DurationMode{});
    TimeNs baseSum = 0;
    int baseN = 0;
    for (std::size_t k = 0; k < g.members.size(); ++k) {
        DurationMode& m = g.modes[std::size_t(mode[k])];
        const TimeNs d = durs[k];
        m.minNs = m.members ? std::min(m.minNs, d) : d;
        m.maxNs = m.members ? std::max(m.maxNs, d) : d;
        m.meanNs += d; // sum for now
        ++m.members;
        if (level[k] == 0) {
            baseSum += copies[k];
            ++baseN;
        }
    }
    for (DurationMode& m : g.modes)
        m.meanNs = m.members ? m.meanNs / m.members : 0;
    // The lowest memcpy level, not the median: the bad mode can be the majority.
    g.baselineMemcpyNs = baseN ? baseSum / baseN : 0;
    const TimeNs fast = g.modes.empty() ? 0 : g.modes[0].meanNs;
    const bool peers = g.members.size() >= 2;

    for (std::size_t k = 0; k < g.members.size(); ++k) {
        Collective& c = cols[g.members[k]];
        if (nModes > 1) c.mode = mode[k];
        c.extraMemcpyNs = std::max<TimeNs>(0, c.memcpyNs - g.baselineMemcpyNs);
        const TimeNs excess = c.dur - fast;
        const bool slow = c.mode && *c.mode > 0;
        const bool hccl = waitRecorded(ctx, c);
        if (peers) {
            c.anomalous =
                slow && level[k] > 0 && c.extraMemcpyNs > 0 && 2 * c.extraMemcpyNs >= excess;
            // A rank that waited for a slow peer: long, no extra copy. HCCL says where
            // the time went (Notify_Wait); Kineto kernels do not, so slow alone counts,
            // but only among ops of a known size (else unlike ops share a signature).
            const bool sized = c.count > 0 || c.bytes > 0;
            c.waiting =
                !c.anomalous && slow && level[k] == 0 && (hccl ? 2 * c.waitNs >= excess : sized);
        } else {
            // No peers to compare: judge by the memcpy share of its own duration.
            c.anomalous = c.dur > 0 && 2 * c.memcpyNs > c.dur;
            c.extraMemcpyNs = c.anomalous ? c.memcpyNs : 0;
        }
        if (c.anomalous) markExtraCopies(c, g.baselineMemcpyNs, peers);
        int extra = 0;
        for (const InternalCopy& cp : c.copies)
            extra += cp.extra;
        if (extra > 0 && !g.modes.empty()) ++g.modes[std::size_t(mode[k])].withExtraCopy;
    }
    g.summary = presentation::groupSummary(g, cols);
    for (auto i : g.members)
        cols[i].verdict = presentation::verdict(cols[i], g, peers, waitRecorded(ctx, cols[i]));
}

// Recorded calls (a flight recorder's): their spans run from the enqueue to when a watchdog
// saw them done, or to the dump, so no duration mode or copy says anything; one that had not
// completed was waiting for its peers (the job's collective-missing says for whom).
void judgeRecorded(AnalysisReport& rep, SignatureGroup& g)
{
    auto& cols = rep.collectives;
    std::size_t inFlight = 0;
    for (auto i : g.members) {
        Collective& c = cols[i];
        c.waiting = c.state != CallState::Completed;
        inFlight += c.waiting;
        c.verdict = presentation::recordedVerdict(c);
    }
    g.summary = presentation::recordedSummary(g.members.size(), inFlight);
}

} // namespace

void judgeCollectives(AnalysisReport& rep, const AnalysisContext& ctx)
{
    auto& cols = rep.collectives;
    std::map<std::string, std::uint32_t> sigIndex;
    for (std::uint32_t i = 0; i < cols.size(); ++i) {
        const Collective& c = cols[i];
        const std::string key = std::string(collectiveKindName(c.kind)) + '|' + c.group + '|' +
                                std::to_string(c.count) + '|' + std::to_string(c.bytes) + '|' +
                                c.algorithm + '|' + namePattern(c.name);
        auto [it, added] = sigIndex.emplace(key, std::uint32_t(rep.signatures.size()));
        if (added) {
            SignatureGroup g;
            g.label = collectiveKindName(c.kind);
            if (!c.group.empty()) g.label += " · group " + c.group;
            if (c.count)
                g.label += " · " + formatCount(c.count) + (c.dtype.empty() ? "" : " × ") + c.dtype;
            if (!c.algorithm.empty()) g.label += " · " + c.algorithm;
            rep.signatures.push_back(std::move(g));
        }
        cols[i].signature = it->second;
        rep.signatures[it->second].members.push_back(i);
    }
    for (SignatureGroup& g : rep.signatures) {
        // A signature holds one producer's collectives: recorded calls, or profiled ops.
        if (!g.members.empty() && cols[g.members.front()].recorded())
            judgeRecorded(rep, g);
        else
            judgeGroup(rep, ctx, g);
    }
}

} // namespace rs::analysis::rules
