// Communication-health rules: links under-utilised on bandwidth-bound transfers, small
// packets, synchronization-dominated ops, unexpected transports. They read the figures the
// producers computed (Collective::timeInfo, transfers, link; AnalysisReport::matrix) and never
// a trace arg. Thresholds: rules.h, documented in docs/analysis.md.

#include "core/analysis/presentation.h"
#include "core/analysis/rules/rules.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace rs::analysis::rules {

namespace {

Finding base(const char* rule, Severity sev, const AnalysisReport& rep,
             std::vector<const Collective*> ops)
{
    Finding f;
    f.rule = rule;
    f.severity = sev;
    f.rank = rep.trace ? rep.trace->rank() : std::nullopt;
    std::sort(ops.begin(), ops.end(),
              [](const Collective* a, const Collective* b) { return a->start < b->start; });
    for (std::size_t i = 0; i < ops.size() && i < kMaxEvidenceOps; ++i)
        f.events.push_back(ops[i]->event);
    f.start = ops.front()->start;
    f.end = ops.front()->start + ops.front()->dur;
    return f;
}

void linkUnderutilized(AnalysisReport& rep, std::vector<Finding>& out)
{
    // Per link name: the ops and the figures of their bandwidth-bound transfers.
    std::map<std::string, presentation::LinkUse> uses;
    std::map<std::string, std::vector<const Collective*>> ops;
    std::map<std::string, std::uint64_t> busbwBytes; // Kineto: payload of the judged collectives
    for (const Collective& c : rep.collectives) {
        for (const TransferStat& t : c.transfers) {
            if (!std::isfinite(t.utilization) || t.name == "SDMA" || t.tasks <= 0) continue;
            if (t.bytes / std::uint64_t(t.tasks) < kBandwidthBoundRecordBytes) continue;
            presentation::LinkUse& u = uses[t.name];
            u.link = t.name;
            u.peakGbps = t.peakGbps;
            u.bytes += t.bytes;
            u.ns += t.ns;
            ++u.transfers;
            if (t.utilization < kUnderUtilized) {
                ++u.slow;
                u.worst = std::min(u.worst, t.utilization);
                ops[t.name].push_back(&c);
            }
        }
        if (c.link && std::isfinite(c.link->utilization) &&
            c.bytes >= kBandwidthBoundCollectiveBytes) {
            presentation::LinkUse& u = uses[c.link->name];
            u.link = c.link->name;
            u.peakGbps = c.link->peakGbps;
            u.basis = c.link->basis;
            u.busbw = true;
            ++u.transfers;
            busbwBytes[c.link->name] += c.bytes;
            u.sumUtilization += c.link->utilization;
            if (c.link->utilization < kUnderUtilized) {
                ++u.slow;
                u.worst = std::min(u.worst, c.link->utilization);
                ops[c.link->name].push_back(&c);
            }
        }
    }
    for (auto& [name, u] : uses) {
        if (u.slow == 0) continue;
        // No traffic worth the name (HCCL: the bandwidth-bound bytes; Kineto: each judged
        // collective's payload): nothing to warn about.
        const std::uint64_t carried = u.busbw ? busbwBytes[name] : u.bytes;
        if (carried < kLinkMinBytes) continue;
        Finding f = base("link-underutilized", Severity::Warning, rep, ops[name]);
        auto text = presentation::linkUnderutilized(u);
        f.title = std::move(text.title);
        f.recommendation = std::move(text.recommendation);
        out.push_back(std::move(f));
    }
}

void smallPackets(AnalysisReport& rep, std::vector<Finding>& out)
{
    std::map<std::string, std::vector<const Collective*>> ops;
    std::map<std::string, presentation::PacketUse> uses;
    for (const Collective& c : rep.collectives) {
        if (!c.timeInfo || c.timeInfo->elapseNs <= 0) continue;
        for (const TransferStat& t : c.transfers) {
            if (!std::isfinite(t.largePacketRatio) || t.tasks < kSmallPacketMinRecords) continue;
            if (t.largePacketRatio >= kSmallPacketRatio) continue;
            // Small packets matter when they keep the link from its peak.
            if (std::isfinite(t.utilization) && t.utilization >= kUnderUtilized) continue;
            if (double(t.ns) < kSmallPacketTransitShare * double(c.timeInfo->elapseNs)) continue;
            presentation::PacketUse& u = uses[t.name];
            u.transport = t.name;
            u.records += t.tasks;
            u.bytes += t.bytes;
            u.ns += t.ns;
            ops[t.name].push_back(&c);
        }
    }
    for (auto& [name, u] : uses) {
        u.ops = int(ops[name].size());
        Finding f = base("small-packets", Severity::Info, rep, ops[name]);
        auto text = presentation::smallPackets(u);
        f.title = std::move(text.title);
        f.recommendation = std::move(text.recommendation);
        out.push_back(std::move(f));
    }
}

void synchronizationDominated(AnalysisReport& rep, std::vector<Finding>& out)
{
    std::vector<const Collective*> ops;
    int withInfo = 0;
    TimeNs sync = 0, transit = 0;
    for (const Collective& c : rep.collectives) {
        if (!c.timeInfo) continue;
        ++withInfo;
        const CommTimeInfo& ti = *c.timeInfo;
        if (ti.elapseNs < kSyncMinElapse || ti.synchronizationRatio < kSyncDominated) continue;
        ops.push_back(&c);
        sync += ti.synchronizationNs;
        transit += ti.transitNs;
    }
    if (ops.empty()) return;
    Finding f = base("sync-dominated", Severity::Warning, rep, ops);
    auto text = presentation::syncDominated(int(ops.size()), withInfo, sync, transit);
    f.title = std::move(text.title);
    f.recommendation = std::move(text.recommendation);
    out.push_back(std::move(f));
}

void unexpectedTransport(AnalysisReport& rep, std::vector<Finding>& out)
{
    // An op whose transfers go over HCCS and also over PCIe: the PCIe part should have stayed
    // on the chip-to-chip link. And one src-dst link carried over different transports.
    std::vector<const Collective*> ops;
    std::uint64_t pcieBytes = 0;
    for (const Collective& c : rep.collectives) {
        std::uint64_t hccs = 0, pcie = 0;
        for (const TransferStat& t : c.transfers) {
            if (t.name == "HCCS") hccs = t.bytes;
            if (t.name == "PCIE") pcie = t.bytes;
        }
        if (hccs > 0 && pcie > 0) {
            ops.push_back(&c);
            pcieBytes += pcie;
        }
    }
    std::map<std::pair<int, int>, std::set<std::string>> linkTransports;
    for (const MatrixEntry& m : rep.matrix) {
        if (m.opName && m.transport != "LOCAL") linkTransports[{m.src, m.dst}].insert(m.transport);
    }
    std::vector<std::string> mixed;
    for (const auto& [sd, ts] : linkTransports) {
        if (ts.size() < 2) continue;
        std::string s = std::to_string(sd.first) + "-" + std::to_string(sd.second) + " (";
        for (const std::string& t : ts)
            s += (s.back() == '(' ? "" : ", ") + t;
        mixed.push_back(s + ")");
    }
    if (ops.empty() && mixed.empty()) return;
    if (ops.empty()) {
        for (const Collective& c : rep.collectives)
            if (c.timeInfo) ops.push_back(&c);
    }
    if (ops.empty()) return;
    Finding f = base("unexpected-transport", Severity::Warning, rep, ops);
    auto text = presentation::unexpectedTransport(int(ops.size()), pcieBytes, mixed);
    f.title = std::move(text.title);
    f.recommendation = std::move(text.recommendation);
    out.push_back(std::move(f));
}

} // namespace

void communicationFindings(AnalysisReport& rep)
{
    std::vector<Finding> found;
    linkUnderutilized(rep, found);
    smallPackets(rep, found);
    synchronizationDominated(rep, found);
    unexpectedTransport(rep, found);
    for (Finding& f : found)
        rep.findings.push_back(std::move(f));
}

} // namespace rs::analysis::rules
