#include "core/analysis/report.h"
#include "core/producers/producer.h"

#include <algorithm>
#include <cctype>

namespace rs {

const char* collectiveKindName(CollectiveKind k)
{
    switch (k) {
    case CollectiveKind::AllReduce:
        return "AllReduce";
    case CollectiveKind::AllGather:
        return "AllGather";
    case CollectiveKind::ReduceScatter:
        return "ReduceScatter";
    case CollectiveKind::Broadcast:
        return "Broadcast";
    case CollectiveKind::Reduce:
        return "Reduce";
    case CollectiveKind::AllToAll:
        return "AllToAll";
    case CollectiveKind::Send:
        return "Send";
    case CollectiveKind::Recv:
        return "Recv";
    case CollectiveKind::Barrier:
        return "Barrier";
    case CollectiveKind::Other:
        break;
    }
    return "Other";
}

const char* pathKindName(PathKind k)
{
    switch (k) {
    case PathKind::Compute:
        return "compute";
    case PathKind::Collective:
        return "collective";
    case PathKind::InternalMemcpy:
        return "internal_memcpy";
    case PathKind::Copy:
        return "copy";
    case PathKind::Launch:
        return "launch";
    case PathKind::Host:
        return "host";
    case PathKind::Idle:
        return "idle";
    }
    return "idle";
}

PathKind pathKindFromName(const std::string& s)
{
    for (int k = 0; k < kPathKinds; ++k)
        if (s == pathKindName(static_cast<PathKind>(k))) return static_cast<PathKind>(k);
    return PathKind::Idle;
}

const char* severityName(Severity s)
{
    switch (s) {
    case Severity::Info:
        return "info";
    case Severity::Warning:
        return "warning";
    case Severity::Error:
        return "error";
    }
    return "info";
}

const char* callStateName(CallState s)
{
    switch (s) {
    case CallState::None:
        return "";
    case CallState::Scheduled:
        return "scheduled";
    case CallState::Started:
        return "started";
    case CallState::Completed:
        return "completed";
    case CallState::Unknown:
        break;
    }
    return "unknown";
}

CallState callStateFromName(const std::string& s)
{
    for (CallState c :
         {CallState::None, CallState::Scheduled, CallState::Started, CallState::Completed})
        if (s == callStateName(c)) return c;
    return CallState::Unknown;
}

double linkPeak(const AnalysisOptions& o, const std::string& name)
{
    if (auto it = o.linkPeaks.find(name); it != o.linkPeaks.end()) return it->second;
    // Names as a user types them: "hccs", "nvlink", "infiniband/roce".
    auto same = [](const std::string& a, const std::string& b) {
        return a.size() == b.size() &&
               std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
                   return std::tolower(static_cast<unsigned char>(x)) ==
                          std::tolower(static_cast<unsigned char>(y));
               });
    };
    for (const auto& [k, v] : o.linkPeaks)
        if (same(k, name)) return v;
    // msprof's standard bandwidths of chip v2.1.0 (HcclAnalysisTool.StandardBandWidth).
    if (name == "HCCS") return 18.0;
    if (name == "RDMA") return 12.5;
    if (name == "PCIE") return 20.0;
    return NAN;
}

std::uint8_t AnalysisReport::marks(EventId e) const
{
    auto it = std::lower_bound(markIndex.begin(), markIndex.end(), e,
                               [](const auto& p, EventId v) { return p.first < v; });
    return it != markIndex.end() && it->first == e ? it->second : 0;
}

const Collective* AnalysisReport::collectiveOf(EventId e) const
{
    auto it = std::lower_bound(collectiveIndex.begin(), collectiveIndex.end(), e,
                               [](const auto& p, EventId v) { return p.first < v; });
    if (it == collectiveIndex.end() || it->first != e || it->second >= collectives.size())
        return nullptr;
    return &collectives[it->second];
}

const EventFacts* TraceFacts::slice(EventId id) const
{
    auto it = std::lower_bound(slices.begin(), slices.end(), id,
                               [](const EventFacts& e, EventId v) { return e.id < v; });
    return it != slices.end() && it->id == id ? &*it : nullptr;
}

TraceFacts traceFacts(const AnalysisReport& r)
{
    if (!r.trace) return r.facts ? *r.facts : TraceFacts{};
    const Trace& t = *r.trace;
    TraceFacts f;
    f.path = t.path();
    f.rank = t.rank();
    f.producer = t.producer().name();
    f.events = t.stats().events;
    f.warnings = t.warnings();
    f.baseTimeNs = t.runFacts().clockBaseNs;
    f.startNs = t.startNs();
    f.endNs = t.endNs();
    std::vector<EventId> ids;
    for (const Collective& c : r.collectives) {
        ids.push_back(c.event);
        ids.push_back(c.hostEvent);
    }
    for (const Finding& x : r.findings) {
        ids.insert(ids.end(), x.events.begin(), x.events.end());
        for (const StackEntry& s : x.stack)
            ids.push_back(s.event);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    for (EventId e : ids) {
        if (e == kNone || e >= t.slices().size()) continue;
        const Slice& s = t.slice(e);
        f.slices.push_back({e, t.str(s.name), s.start, s.dur});
    }
    return f;
}

std::optional<int> reportRank(const AnalysisReport& r)
{
    if (r.trace) return r.trace->rank();
    return r.facts ? r.facts->rank : std::nullopt;
}

std::optional<TimeNs> reportBaseTimeNs(const AnalysisReport& r)
{
    if (r.trace) return r.trace->runFacts().clockBaseNs;
    return r.facts ? r.facts->baseTimeNs : std::nullopt;
}

std::string reportProducerName(const AnalysisReport& r)
{
    if (r.trace) return std::string(r.trace->producer().name());
    return r.facts ? r.facts->producer : std::string("other");
}

} // namespace rs
