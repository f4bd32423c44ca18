#include "core/compare/rundigest.h"

#include "core/producers/registry.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>

namespace rs {

namespace {

int rankOf(const AnalysisReport& r, std::size_t index)
{
    if (!r.steps.empty() && r.steps.front().rank) return *r.steps.front().rank;
    if (!r.collectives.empty() && r.collectives.front().rank) return *r.collectives.front().rank;
    if (const auto declared = reportRank(r)) return *declared; // the trace's, or a summary's
    return int(index);
}

// Cards a run of rank summaries declares: torch_npu's metadata beside the trace each summary
// recorded, when that path is reachable here (a summary does not carry Kineto's metadata).
std::optional<int> worldSizeOfSummaries(const std::vector<ReportPtr>& ranks)
{
    for (const ReportPtr& r : ranks)
        if (r && r->facts && !r->facts->path.empty())
            if (auto n = producers::byName(r->facts->producer).worldSizeBeside(r->facts->path))
                return n;
    return std::nullopt;
}

// Total device time per name over one trace. collectiveEvents (sorted) are counted under
// their pattern; other slices count when they are device work.
void addOps(const Trace& t, const std::vector<EventId>& collectiveEvents,
            std::unordered_map<std::string, OpDigest>& out)
{
    const auto sl = t.slices();
    const auto kinds = t.kinds();
    const StringPool& sp = t.strings();
    std::vector<TimeNs> ns(sp.size(), 0);
    std::vector<std::uint64_t> count(sp.size(), 0);
    const auto& tracks = t.tracks();
    for (TrackId tr = 0; tr < tracks.size(); ++tr) {
        const Track& track = tracks[tr];
        // The work of device streams (kernels, copies, sets), as the producer classified it.
        if (track.kind == TrackKind::Counter || !isStreamRole(track.role)) continue;
        for (EventId e = track.begin; e < track.end; ++e) {
            const Slice& s = sl[e];
            if (s.dur <= 0 || !isDeviceWork(kinds[e])) continue;
            if (std::binary_search(collectiveEvents.begin(), collectiveEvents.end(), e)) continue;
            ns[s.name] += s.dur;
            ++count[s.name];
        }
    }
    for (StrId id = 0; id < ns.size(); ++id) {
        if (!count[id]) continue;
        OpDigest& d = out[sp.str(id)];
        d.name = sp.str(id);
        d.ns += ns[id];
        d.count += count[id];
    }
    for (EventId e : collectiveEvents) {
        if (e >= sl.size()) continue;
        // A collective seen only on the host (no device op found) is not device time.
        const Track& track = tracks[sl[e].track];
        const bool device = isDeviceRole(track.role) || isDeviceWork(kinds[e]);
        if (!device) continue;
        const std::string name = collectivePattern(t.str(sl[e].name));
        OpDigest& d = out[name];
        d.name = name;
        d.ns += sl[e].dur; // the op's own slice: a Kineto span may include a separate memcpy
        ++d.count;
    }
}

void addFinding(std::map<std::string, FindingDigest>& out, FindingDigest d)
{
    auto [it, inserted] = out.try_emplace(d.key(), d);
    if (!inserted) {
        it->second.count += d.count;
        it->second.severity = std::max(it->second.severity, d.severity);
        for (int r : d.ranks)
            if (std::find(it->second.ranks.begin(), it->second.ranks.end(), r) ==
                it->second.ranks.end())
                it->second.ranks.push_back(r);
        std::sort(it->second.ranks.begin(), it->second.ranks.end());
    }
}

// The collective event e belongs to. A report from a rank summary has no task lists, so an
// event that is no collective's op or host op (an unaligned transfer, an extra copy) is placed
// by its start: in the collective running then, the latest to start at or before it.
const Collective* collectiveOfEvent(const AnalysisReport& r, EventId e, bool summary)
{
    if (const Collective* c = r.collectiveOf(e)) return c;
    if (!summary || e == kNone) return nullptr;
    for (const Collective& c : r.collectives)
        if (c.event == e || c.hostEvent == e) return &c;
    std::optional<TimeNs> at;
    if (r.trace && e < r.trace->slices().size())
        at = r.trace->slice(e).start; // the viewer's small trace of a summary's events
    else if (!r.trace && r.facts)
        if (const EventFacts* f = r.facts->slice(e)) at = f->start;
    if (!at) return nullptr;
    const Collective* best = nullptr;
    for (const Collective& c : r.collectives)
        if (c.start <= *at && *at <= c.start + c.dur && (!best || c.start >= best->start))
            best = &c;
    return best;
}

void setSubjectCollective(FindingDigest& d, const Collective* c)
{
    if (!c) return;
    d.kind = c->kind;
    d.pattern = collectivePattern(c->name);
}

// The rank a job-level finding is about: the rank whose events it shows (the delaying rank),
// else a single involved rank, else for job-slow-rank the rank that delayed most instances.
std::optional<int> jobSubjectRank(const Finding& f, const JobReport& job)
{
    if (f.eventsRank) return f.eventsRank;
    if (f.ranks.size() == 1) return f.ranks.front();
    if (f.rule == "job-slow-rank") {
        std::map<int, int> delays;
        for (const CrossRankCollective& x : job.collectives)
            if (x.delayingRank) ++delays[*x.delayingRank];
        std::optional<int> best;
        int most = 0;
        for (const auto& [rank, n] : delays)
            if (n > most) best = rank, most = n;
        return best;
    }
    return std::nullopt;
}

} // namespace

std::string FindingDigest::key() const
{
    return rule + '|' + (rank ? std::to_string(*rank) : std::string("-")) + '|' +
           (kind ? collectiveKindName(*kind) : "-") + '|' + pattern;
}

std::string collectivePattern(std::string_view name)
{
    std::string out;
    for (char ch : name.substr(0, name.find('('))) {
        if (std::isdigit(static_cast<unsigned char>(ch))) {
            if (out.empty() || out.back() != '#') out.push_back('#');
        } else {
            out.push_back(ch);
        }
    }
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out;
}

std::optional<int> worldSizeOf(const std::vector<TracePtr>& rankTraces)
{
    for (const TracePtr& t : rankTraces)
        if (t && t->runFacts().worldSize) return t->runFacts().worldSize;
    for (const TracePtr& t : rankTraces)
        if (t && !t->path().empty())
            if (auto n = t->producer().worldSizeBeside(t->path())) return n;
    return std::nullopt;
}

RunDigest digestRun(const RunSide& side)
{
    RunDigest d;
    d.path = side.path;
    d.errors = side.errors;

    std::set<std::string> producers;
    std::set<int> rankIds;
    std::vector<TracePtr> traces;
    std::map<int, StepDigest> steps;
    std::map<std::pair<int, std::string>, CollectiveDigest> groups;
    // Per group: how often each (group size, payload) occurs, and its earliest position.
    std::map<std::pair<int, std::string>, std::map<std::pair<int, std::uint64_t>, int>> shapes;
    std::map<std::pair<int, std::string>, int> firstOrder;
    std::map<std::string, FindingDigest> findings;
    // Distinct traces and the collective events each holds (reports may share a merged trace).
    std::vector<std::pair<const Trace*, std::vector<EventId>>> traceCollectives;

    for (std::size_t i = 0; i < side.ranks.size(); ++i) {
        if (!side.ranks[i]) continue;
        const AnalysisReport& r = *side.ranks[i];
        const int rank = rankOf(r, i);
        rankIds.insert(rank);
        if (side.fromSummaries) {
            // The summary's facts: its trace (if any) is the viewer's small one of named events.
            if (r.facts) producers.insert(r.facts->producer);
        } else if (r.trace) {
            producers.insert(std::string(r.trace->producer().name()));
            traces.push_back(r.trace);
        } else if (r.facts) {
            producers.insert(r.facts->producer);
        }
        for (const StepStats& s : r.steps) {
            const TimeNs busy = s.busyEnd - s.busyStart;
            if (busy <= 0) continue; // no device work: nothing ran in that step on this rank
            StepDigest& sd = steps[s.step];
            sd.step = s.step;
            ++sd.samples;
            sd.sumNs += busy;
        }
        std::vector<EventId>* events = nullptr;
        if (r.trace && !side.fromSummaries) { // a summary holds no device ops
            auto it = std::find_if(traceCollectives.begin(), traceCollectives.end(),
                                   [&](const auto& p) { return p.first == r.trace.get(); });
            if (it == traceCollectives.end()) {
                traceCollectives.emplace_back(r.trace.get(), std::vector<EventId>{});
                it = traceCollectives.end() - 1;
            }
            events = &it->second;
        }
        for (std::size_t ci = 0; ci < r.collectives.size(); ++ci) {
            const Collective& c = r.collectives[ci];
            const std::string pattern = collectivePattern(c.name);
            const std::pair<int, std::string> key{int(c.kind), pattern};
            CollectiveDigest& g = groups[key];
            ++shapes[key][{c.groupSize, c.bytes}];
            if (auto [it, fresh] = firstOrder.try_emplace(key, int(ci)); !fresh)
                it->second = std::min(it->second, int(ci));
            g.kind = c.kind;
            g.pattern = pattern;
            ++g.count;
            g.sumNs += c.dur;
            g.extraMemcpyNs += c.extraMemcpyNs;
            g.anomalous += c.anomalous;
            ++d.collectiveCount;
            d.commTimeInfo = d.commTimeInfo || c.timeInfo.has_value();
            d.anomalousCount += c.anomalous;
            d.extraMemcpyNs += c.extraMemcpyNs;
            if (events && c.event != kNone) events->push_back(c.event);
        }
        for (const Finding& f : r.findings) {
            FindingDigest fd;
            fd.rule = f.rule;
            fd.severity = f.severity;
            fd.title = f.title;
            fd.rank = f.rank ? f.rank : std::optional<int>(rank);
            fd.ranks = f.ranks;
            fd.count = 1;
            if (!f.events.empty())
                setSubjectCollective(fd,
                                     collectiveOfEvent(r, f.events.front(), side.fromSummaries));
            addFinding(findings, std::move(fd));
            ++d.findingCount;
        }
    }
    if (side.job) {
        const JobReport& job = *side.job;
        for (const Finding& f : job.findings) {
            FindingDigest fd;
            fd.rule = f.rule;
            fd.severity = f.severity;
            fd.title = f.title;
            fd.rank = jobSubjectRank(f, job);
            fd.ranks = f.ranks;
            std::sort(fd.ranks.begin(), fd.ranks.end());
            fd.count = 1;
            if (f.eventsRank && !f.events.empty()) {
                for (std::size_t b = 0; b < job.ranks.size() && b < job.rankIds.size(); ++b)
                    if (job.rankIds[b] == *f.eventsRank && job.ranks[b])
                        setSubjectCollective(fd, collectiveOfEvent(*job.ranks[b], f.events.front(),
                                                                   side.fromSummaries));
            }
            addFinding(findings, std::move(fd));
            ++d.findingCount;
        }
    }

    d.producer = producers.empty() ? "other" : producers.size() == 1 ? *producers.begin() : "mixed";
    d.rankIds.assign(rankIds.begin(), rankIds.end());
    d.worldSize = side.worldSize ? side.worldSize : worldSizeOf(traces);
    if (!d.worldSize && side.fromSummaries) d.worldSize = worldSizeOfSummaries(side.ranks);
    d.fromSummaries = side.fromSummaries;
    d.cards = d.worldSize ? *d.worldSize : int(side.ranks.size());
    TimeNs stepSum = 0;
    for (auto& [n, s] : steps) {
        d.stepSamples += s.samples;
        stepSum += s.sumNs;
        d.steps.push_back(s);
    }
    if (d.stepSamples > 0) d.stepMeanNs = stepSum / d.stepSamples;
    for (auto& [k, g] : groups) {
        int most = 0;
        for (const auto& [shape, n] : shapes[k])
            if (n > most) {
                most = n;
                g.groupSize = shape.first;
                g.bytes = shape.second;
            }
        g.order = firstOrder[k];
        d.collectives.push_back(std::move(g));
    }
    for (auto& [k, f] : findings)
        d.findings.push_back(std::move(f));

    std::unordered_map<std::string, OpDigest> ops;
    for (auto& [trace, events] : traceCollectives) {
        std::sort(events.begin(), events.end());
        events.erase(std::unique(events.begin(), events.end()), events.end());
        addOps(*trace, events, ops);
    }
    d.ops.reserve(ops.size());
    for (auto& [name, op] : ops) {
        d.deviceNs += op.ns;
        d.ops.push_back(std::move(op));
    }
    std::sort(d.ops.begin(), d.ops.end(),
              [](const OpDigest& a, const OpDigest& b) { return a.name < b.name; });
    return d;
}

} // namespace rs
