#pragma once

// A job shown as one trace: the ranks' traces merged into one display Trace, so every pane of
// the viewer (timeline, details, call stack, search, findings) works across ranks unchanged.
//
// Layout of the merged trace: rank r's slices, tracks, processes, counters, flows and stack
// frames each form one contiguous block, in rank order, so a rank-local id maps to the merged
// one by adding the rank's base. Times are shifted by the rank's offset (job clock). Processes
// are renamed "Rank 3 · HCCL" and sorted by rank, then by their order within the rank.
//
// Memory: the merged trace owns its data (slices, strings, args text are copied; a Trace cannot
// share buffers with another). mergeRanks() releases each input trace right after copying it
// when it holds the only reference, so the peak is the job plus one rank, not two jobs. Per-rank
// reports keep a rankShell() (rank, path, metadata; no events) instead of the rank's model.

#include "core/analysis/report.h"
#include "core/job/crossrank.h"

#include <string>
#include <vector>

namespace rs {

struct JobTrace {
    TracePtr trace;                 // the merged display trace
    std::vector<int> rankIds;       // rank number of each block
    std::vector<TimeNs> offsets;    // per block, added to its times
    std::vector<EventId> eventBase; // per block, plus the total at the end
    std::vector<TrackId> trackBase; // idem
    std::vector<ProcessId> processBase;
    std::vector<TracePtr> shells; // per block: rankShell of the rank's trace

    std::size_t rankCount() const { return rankIds.size(); }
    // Block (index into rankIds) of a merged event / process / track, or -1.
    int blockOfEvent(EventId e) const;
    int blockOfProcess(ProcessId p) const;
    int blockOfTrack(TrackId t) const;
    // Block of a rank number, or -1.
    int blockOfRank(int rank) const;
    EventId toMerged(std::size_t block, EventId local) const
    {
        return local == kNone ? kNone : eventBase[block] + local;
    }
    EventId toLocal(std::size_t block, EventId merged) const
    {
        return merged == kNone ? kNone : merged - eventBase[block];
    }
};

// A Trace holding only a rank's identity: rank, path, producer, metadata, span and warnings.
TracePtr rankShell(const Trace& trace);

// Merges rank traces (sorted by rank) into one display trace; offsets per trace (empty: zeros).
// Traces whose pointer is the only owner are freed as soon as they are copied.
JobTrace mergeRanks(std::vector<TracePtr> traces, std::vector<TimeNs> offsets,
                    const std::string& path = {});
// The same job on other offsets: a new merged trace with each rank's block shifted.
JobTrace reoffsetJob(const JobTrace& job, const std::vector<TimeNs>& offsets);

// The same job with a flow joining the members of every call matched by its sequence number
// (a Flight Recorder's entries of one (group, seq): CrossRankCollective::seq), in rank order:
// a rank's own trace cannot hold a flow to another rank's. Flows of category "collective call"
// named "<group> #<seq>". The job as it is when no call is matched so, or when its trace has
// them already (the flows move with it: reoffsetJob).
JobTrace withCallFlows(const JobTrace& job, const JobReport& report,
                       const std::vector<ReportPtr>& rankReports);

// A rank's report (rank-local ids and times) in the merged id space and on the job clock.
AnalysisReport remapReport(const AnalysisReport& report, const JobTrace& job, std::size_t block);
// A job-level finding (events of its eventsRank) in the merged id space.
Finding remapJobFinding(const Finding& finding, const JobTrace& job);

// The report the viewer shows for a job: every rank's report remapped and combined
// (collectives sorted by start, signatures labelled by rank, steps of every rank) plus the
// job-level findings, most severe first. perRank receives the remapped per-rank reports (for
// plots that compare ranks).
ReportPtr combineReports(const JobTrace& job, const std::vector<ReportPtr>& rankReports,
                         const JobReport* jobReport, std::vector<ReportPtr>* perRank = nullptr);

} // namespace rs
