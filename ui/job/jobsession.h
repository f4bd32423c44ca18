#pragma once

// Everything the viewer holds for an open job, built on a worker thread: the merged display
// trace, each rank's report (rank-local, kept to redo the cross-rank analysis on new offsets),
// the cross-rank report, and the combined report the panes show.

#include "core/job/crossrank.h"
#include "core/job/jobloader.h"
#include "core/job/jobpipeline.h"
#include "core/job/jobtrace.h"
#include "ui/timeline/timelinelayout.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rs {

struct JobSession {
    JobTrace job;
    std::vector<ReportPtr> localReports; // per block, rank-local ids; trace = the rank's shell
    std::optional<JobReport> jobReport;  // when the ranks are distinct (one job, not a pile)
    std::vector<ReportPtr> perRank;      // per block, merged ids (plots)
    ReportPtr combined;                  // merged ids: what the panes show
    // The timeline's index of job.trace, built with the session (off the GUI thread).
    std::shared_ptr<const TimelineIndex> timelineIndex;
    // Opened from rank summaries (no traces): per block, the rank's trace as its summary
    // recorded it (empty for a job of loaded ranks). The ranks' timelines hold only the
    // events the summaries name.
    std::vector<std::string> rankTracePaths;
    bool fromSummaries() const { return !rankTracePaths.empty(); }
    std::vector<std::string> errors;   // one line per rank that failed to load or analyse
    std::vector<std::string> warnings; // one line per rank read partially
    bool cancelled = false;
    // An early session (buildJobSession's onMerged): the rank traces merged, in block order,
    // so the final session can tell it merges the same ones. Empty otherwise.
    std::vector<TracePtr> mergedFrom;
    bool early() const { return !mergedFrom.empty(); }

    // The combined-report collective of a merged event, as (block, index in localReports).
    std::optional<std::pair<std::size_t, std::uint32_t>> localCollective(EventId e) const;
    // The cross-rank instance a merged event's collective belongs to.
    std::optional<std::size_t> instanceOf(EventId e) const;
};
using JobSessionPtr = std::shared_ptr<const JobSession>;

// The timeline's job navigation: per process of the merged trace its rank's block, and the
// flagged collectives in N / P order (per cross-rank instance the delaying rank's op first,
// then the ranks that waited for it; flagged ops of no instance on their own; by start).
std::vector<int> blockOfProcesses(const JobSession& s);
std::vector<std::vector<EventId>> flaggedOrder(const JobSession& s);

// The job's timeline before its analysis ends: a session with the merged trace and its index
// and no report yet (localReports and perRank empty, combined null), called on a worker
// thread.
using JobMergedEarly = std::function<void(JobSessionPtr early)>;

// Loads and analyses through the pipeline (ranks in parallel), merges and matches across
// ranks. Runs on a worker thread; progress carries the bytes read and the cancel flag. path
// names the job (title, recent list). analysis: what each rank is analysed with (the viewer's
// link peaks). When every rank came from the model cache (mapped: a reopen, the ranks cost
// no memory of their own), they are merged as soon as the last one has loaded, while the
// others are still analysed, and onMerged is given that session: the final one reuses its
// merged trace and index (same ranks, same offsets), so nothing is done twice.
JobSessionPtr buildJobSession(const std::vector<RankInput>& inputs, const std::string& path,
                              JobProgress* progress, const AnalysisOptions& analysis = {},
                              JobMergedEarly onMerged = {});
// The same from a pipeline's result (consumed: its traces are freed as they merge). early:
// a session merged from the same traces before (onMerged's), reused when its ranks and
// offsets are the result's.
JobSessionPtr buildJobSession(PipelineResult&& result, const std::string& path,
                              std::vector<std::string> rankTracePaths = {},
                              JobSessionPtr early = nullptr);
// A job of rank summaries (*.ranksummary.json[.gz], `ringscope analyze RANK --summary-out`):
// each rank a small trace of the events its summary names (summaryRankTrace), so the job view
// works without the traces. Runs on a worker thread.
JobSessionPtr buildSummaryJobSession(const std::vector<std::string>& summaries,
                                     const std::string& path);
// The same job on new offsets (µs edits, align on a collective): new merged trace, new
// cross-rank report; ids do not change.
JobSessionPtr reoffsetJobSession(const JobSession& session, const std::vector<TimeNs>& offsets);

} // namespace rs
