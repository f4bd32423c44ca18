#include "ui/job/jobsession.h"

#include "core/job/jobnotes.h"
#include "core/job/ranksummary.h"
#include "core/job/summarytrace.h"

#include <algorithm>
#include <mutex>
#include <set>

namespace rs {

std::optional<std::pair<std::size_t, std::uint32_t>> JobSession::localCollective(EventId e) const
{
    const int b = job.blockOfEvent(e);
    if (b < 0 || static_cast<std::size_t>(b) >= localReports.size()) return std::nullopt;
    const AnalysisReport& r = *localReports[static_cast<std::size_t>(b)];
    const Collective* c = r.collectiveOf(job.toLocal(static_cast<std::size_t>(b), e));
    if (!c) return std::nullopt;
    return std::make_pair(static_cast<std::size_t>(b),
                          static_cast<std::uint32_t>(c - r.collectives.data()));
}

std::optional<std::size_t> JobSession::instanceOf(EventId e) const
{
    const auto local = localCollective(e);
    if (!local || !jobReport) return std::nullopt;
    for (std::size_t i = 0; i < jobReport->collectives.size(); ++i)
        for (const RankOp& op : jobReport->collectives[i].ops)
            if (op.report == local->first && op.collective == local->second) return i;
    return std::nullopt;
}

std::vector<int> blockOfProcesses(const JobSession& s)
{
    std::vector<int> ranks(s.job.trace ? s.job.trace->processes().size() : 0, 0);
    for (ProcessId p = 0; p < ranks.size(); ++p)
        ranks[p] = std::max(0, s.job.blockOfProcess(p));
    return ranks;
}

std::vector<std::vector<EventId>> flaggedOrder(const JobSession& s)
{
    const AnalysisReport* report = s.combined.get();
    auto flagged = [&](EventId e) {
        const Collective* c = report ? report->collectiveOf(e) : nullptr;
        return c && c->event == e && (c->anomalous || c->waiting || c->unalignedCount > 0);
    };
    std::vector<std::vector<EventId>> groups;
    std::set<EventId> grouped;
    if (s.jobReport) {
        for (const CrossRankCollective& x : s.jobReport->collectives) {
            std::vector<EventId> first, rest;
            for (const RankOp& op : x.ops) {
                if (op.report >= s.localReports.size()) continue;
                const auto& local = s.localReports[op.report]->collectives;
                if (op.collective >= local.size()) continue;
                const EventId e = s.job.toMerged(op.report, local[op.collective].event);
                if (!flagged(e)) continue;
                const bool delaying = std::find(x.delayingRanks.begin(), x.delayingRanks.end(),
                                                op.rank) != x.delayingRanks.end();
                (delaying ? first : rest).push_back(e);
            }
            first.insert(first.end(), rest.begin(), rest.end());
            grouped.insert(first.begin(), first.end());
            if (!first.empty()) groups.push_back(std::move(first));
        }
    }
    if (report)
        for (const Collective& c : report->collectives)
            if (flagged(c.event) && !grouped.count(c.event)) groups.push_back({c.event});
    if (!s.job.trace) return groups;
    const Trace& t = *s.job.trace;
    auto startOf = [&](const std::vector<EventId>& g) {
        TimeNs start = t.slice(g.front()).start;
        for (EventId e : g)
            start = std::min(start, t.slice(e).start);
        return start;
    };
    std::stable_sort(groups.begin(), groups.end(),
                     [&](const auto& a, const auto& b) { return startOf(a) < startOf(b); });
    return groups;
}

namespace {

void finish(JobSession& s)
{
    // The rule and the matching of the pipeline (the command line gets the same job report).
    s.jobReport = matchJob(s.localReports, s.job.offsets);
    if (s.jobReport) nameDelayingRanks(s.localReports, *s.jobReport);
    // Calls matched by sequence number (Flight Recorder dumps) joined across ranks by flows.
    if (s.jobReport) {
        JobTrace linked = withCallFlows(s.job, *s.jobReport, s.localReports);
        if (linked.trace != s.job.trace) {
            s.job = std::move(linked);
            s.timelineIndex.reset();
        }
    }
    s.perRank.clear();
    s.combined =
        combineReports(s.job, s.localReports, s.jobReport ? &*s.jobReport : nullptr, &s.perRank);
    // The timeline's index too: built here, on the pool, not when the window shows the job
    // (unless the early merge built it already).
    if (s.job.trace && !s.timelineIndex)
        s.timelineIndex = std::make_shared<TimelineIndex>(s.job.trace);
}

// The ranks in the order the pipeline's result has them (by rank id, stable).
std::vector<TracePtr> inRankOrder(const std::vector<TracePtr>& loaded)
{
    std::vector<std::size_t> order(loaded.size());
    std::vector<int> ids(loaded.size());
    for (std::size_t i = 0; i < loaded.size(); ++i) {
        order[i] = i;
        ids[i] = rankIdOf(*loaded[i], i);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return ids[a] < ids[b]; });
    std::vector<TracePtr> out;
    for (std::size_t i : order)
        out.push_back(loaded[i]);
    return out;
}

// Offsets as buildJobSession takes them (from the ranks' reports: their traces' clocks).
std::vector<TimeNs> clockOffsetsOf(const std::vector<TracePtr>& traces)
{
    std::vector<ReportPtr> shells;
    for (const TracePtr& t : traces) {
        auto r = std::make_shared<AnalysisReport>();
        r->trace = t;
        shells.push_back(std::move(r));
    }
    return sharedClockOffsets(shells);
}

} // namespace

JobSessionPtr buildJobSession(PipelineResult&& result, const std::string& path,
                              std::vector<std::string> rankTracePaths, JobSessionPtr early)
{
    auto s = std::make_shared<JobSession>();
    s->rankTracePaths = std::move(rankTracePaths);
    s->errors = std::move(result.errors);
    s->warnings = std::move(result.warnings);
    if (result.cancelled) {
        s->cancelled = true;
        return s;
    }
    // Each report keeps a shell instead of its rank's model, so merging can free the rank
    // traces one by one.
    std::vector<TracePtr> traces = std::move(result.traces);
    for (std::size_t i = 0; i < traces.size(); ++i) {
        auto local = std::make_shared<AnalysisReport>(*result.reports[i]);
        local->trace = rankShell(*traces[i]);
        s->localReports.push_back(std::move(local));
        result.reports[i].reset();
    }
    result = PipelineResult();
    // Ranks whose clocks differ by a base time (Kineto) are shifted onto one clock.
    const std::vector<TimeNs> offsets = sharedClockOffsets(s->localReports);
    if (early && early->job.trace && early->job.offsets == offsets && early->mergedFrom == traces) {
        // Merged already while the ranks were analysed: the same trace, the same index.
        s->job = early->job;
        s->timelineIndex = early->timelineIndex;
        traces.clear();
    } else {
        s->job = mergeRanks(std::move(traces), offsets, path);
    }
    finish(*s);
    return s;
}

JobSessionPtr buildJobSession(const std::vector<RankInput>& inputs, const std::string& path,
                              JobProgress* progress, const AnalysisOptions& analysis,
                              JobMergedEarly onMerged)
{
    PipelineOptions options;
    options.analysis = analysis;
    options.crossRank = false; // finish() matches on the merged job's offsets
    struct Early {
        std::mutex mutex;
        std::vector<TracePtr> loaded; // by input
        std::size_t count = 0;
        JobSessionPtr session;
    };
    const auto early = std::make_shared<Early>();
    early->loaded.resize(inputs.size());
    if (onMerged && inputs.size() >= 2)
        options.onRankLoaded = [early, path, onMerged](std::size_t i, const LoadResult& loaded) {
            std::vector<TracePtr> all;
            {
                std::lock_guard lock(early->mutex);
                if (i >= early->loaded.size() || !loaded.trace) return;
                early->loaded[i] = loaded.trace;
                if (++early->count < early->loaded.size()) return;
                all = early->loaded;
            }
            // Parsed ranks are held until analysed: a merged copy next to them would double
            // the job's memory. Mapped ones live in the page cache.
            if (!std::all_of(all.begin(), all.end(),
                             [](const TracePtr& t) { return t && t->mapped(); }))
                return;
            auto s = std::make_shared<JobSession>();
            s->mergedFrom = inRankOrder(all);
            s->job = mergeRanks(s->mergedFrom, clockOffsetsOf(s->mergedFrom), path);
            if (s->job.trace) s->timelineIndex = std::make_shared<TimelineIndex>(s->job.trace);
            {
                std::lock_guard lock(early->mutex);
                early->session = s;
            }
            onMerged(s);
        };
    PipelineResult result = runPipeline(inputs, options, progress);
    JobSessionPtr merged;
    {
        std::lock_guard lock(early->mutex);
        merged = std::move(early->session);
        early->loaded.clear();
    }
    return buildJobSession(std::move(result), path, {}, std::move(merged));
}

JobSessionPtr buildSummaryJobSession(const std::vector<std::string>& summaries,
                                     const std::string& path)
{
    MergedJob merged = mergeRankSummaries(summaries);
    PipelineResult r;
    r.errors = std::move(merged.errors);
    r.warnings = std::move(merged.warnings);
    std::vector<std::string> tracePaths;
    for (std::size_t i = 0; i < merged.ranks.size(); ++i) {
        SummaryRank s = summaryRankTrace(merged.ranks[i].report);
        if (!s.trace) {
            r.errors.push_back(merged.ranks[i].file + ": " + s.error);
            continue;
        }
        r.rankIds.push_back(rankIdOf(*s.trace, i));
        r.paths.push_back(merged.ranks[i].file);
        r.traces.push_back(std::move(s.trace));
        r.reports.push_back(std::move(s.report));
        tracePaths.push_back(s.tracePath.empty() ? std::string(" ") : s.tracePath);
    }
    merged = MergedJob();
    if (tracePaths.empty()) tracePaths.push_back(" "); // still a summary job, with no rank
    return buildJobSession(std::move(r), path, std::move(tracePaths));
}

JobSessionPtr reoffsetJobSession(const JobSession& session, const std::vector<TimeNs>& offsets)
{
    auto s = std::make_shared<JobSession>();
    s->job = reoffsetJob(session.job, offsets);
    s->localReports = session.localReports;
    s->rankTracePaths = session.rankTracePaths;
    s->errors = session.errors;
    finish(*s);
    return s;
}

} // namespace rs
