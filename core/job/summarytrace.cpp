#include "core/job/summarytrace.h"

#include "core/traceloader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

namespace rs {

namespace {

// ns as the µs text the loader reads exactly ("-12.345"): no double in between.
std::string micros(TimeNs ns)
{
    const bool neg = ns < 0;
    const auto v = neg ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
    std::string frac = std::to_string(v % 1000);
    frac.insert(0, 3 - frac.size(), '0');
    return (neg ? "-" : "") + std::to_string(v / 1000) + "." + frac;
}

enum Role { kCollective = 1, kHost = 2, kEvidence = 3 };

} // namespace

SummaryRank summaryRankTrace(const ReportPtr& report)
{
    SummaryRank out;
    if (!report || !report->facts) {
        out.error = "not a report read from a rank summary";
        return out;
    }
    const TraceFacts& facts = *report->facts;
    out.tracePath = facts.path;
    // Each named event on the track of its role: the collectives' ops (a device stream, one at
    // a time), their host ops, the findings' other evidence.
    std::map<EventId, int> role;
    for (const Collective& c : report->collectives) {
        if (c.event != kNone) role.emplace(c.event, kCollective);
        if (c.hostEvent != kNone) role.emplace(c.hostEvent, kHost);
    }
    for (const Finding& f : report->findings)
        for (EventId e : f.events)
            role.emplace(e, kEvidence);
    std::string text = "{\"traceEvents\":[";
    auto meta = [&](const char* what, int tid, const std::string& name) {
        text += "{\"ph\":\"M\",\"pid\":0,\"tid\":" + std::to_string(tid) + ",\"name\":\"" + what +
                "\",\"args\":{\"name\":" + nlohmann::json(name).dump() + "}},";
    };
    meta("process_name", 0, "Summary (no trace)");
    meta("thread_name", kCollective, "Collectives");
    meta("thread_name", kHost, "Host ops");
    meta("thread_name", kEvidence, "Findings' events");
    bool first = true;
    for (const EventFacts& e : facts.slices) {
        const auto it = role.find(e.id);
        if (it == role.end()) continue;
        if (!first) text += ',';
        first = false;
        text +=
            "{\"ph\":\"X\",\"pid\":0,\"tid\":" + std::to_string(it->second) + ",\"name\":" +
            nlohmann::json(e.name).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
            ",\"ts\":" + micros(e.start) + ",\"dur\":" + micros(std::max<TimeNs>(0, e.dur)) +
            ",\"args\":{\"summary_event\":" + std::to_string(e.id) + "}}";
    }
    if (text.back() == ',') text.pop_back();
    text += "]";
    if (facts.baseTimeNs) text += ",\"baseTimeNanoseconds\":" + std::to_string(*facts.baseTimeNs);
    text += "}\n";
    LoadOptions options;
    options.rankHint = facts.rank;
    LoadResult loaded = loadTraceFromMemory(text.data(), text.size(), options, facts.path);
    if (!loaded.trace) {
        out.error = facts.path + ": " + loaded.message;
        return out;
    }
    const Trace& t = *loaded.trace;
    std::map<EventId, EventId> toNew;
    for (EventId e = 0; e < t.slices().size(); ++e) {
        const nlohmann::json a = t.args(e);
        const auto it = a.is_object() ? a.find("summary_event") : a.end();
        if (a.is_object() && it != a.end() && it->is_number_unsigned())
            toNew[it->get<EventId>()] = e;
    }
    auto id = [&](EventId old) {
        const auto it = toNew.find(old);
        return it == toNew.end() ? kNone : it->second;
    };

    auto rep = std::make_shared<AnalysisReport>(*report);
    rep->trace = loaded.trace;
    rep->markIndex.clear();
    rep->collectiveIndex.clear();
    for (std::uint32_t i = 0; i < rep->collectives.size(); ++i) {
        Collective& c = rep->collectives[i];
        c.event = id(c.event);
        c.hostEvent = id(c.hostEvent);
        c.tasks.clear();
        c.copies.clear();
        std::uint8_t m = kMarkCollective;
        if (c.memcpyCount > 0) m |= kMarkHasInternalMemcpy;
        if (c.anomalous) m |= kMarkAnomalous;
        if (c.waiting) m |= kMarkWaiting;
        for (EventId e : {c.event, c.hostEvent}) {
            if (e == kNone) continue;
            rep->markIndex.emplace_back(e, m);
            rep->collectiveIndex.emplace_back(e, i);
        }
    }
    std::sort(rep->markIndex.begin(), rep->markIndex.end());
    rep->markIndex.erase(
        std::unique(rep->markIndex.begin(), rep->markIndex.end(),
                    [](const auto& a, const auto& b) { return a.first == b.first; }),
        rep->markIndex.end());
    std::stable_sort(rep->collectiveIndex.begin(), rep->collectiveIndex.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    rep->collectiveIndex.erase(
        std::unique(rep->collectiveIndex.begin(), rep->collectiveIndex.end(),
                    [](const auto& a, const auto& b) { return a.first == b.first; }),
        rep->collectiveIndex.end());
    for (StepStats& s : rep->steps)
        s.event = id(s.event);
    for (Finding& f : rep->findings) {
        std::vector<EventId> events;
        for (EventId e : f.events)
            if (id(e) != kNone) events.push_back(id(e));
        f.events = std::move(events);
        for (StackEntry& s : f.stack)
            s.event = id(s.event);
    }
    for (MatrixEntry& m : rep->matrix)
        m.tasks.clear();
    out.trace = loaded.trace;
    out.report = std::move(rep);
    return out;
}

} // namespace rs
