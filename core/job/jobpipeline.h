#pragma once

// The one way from paths to a result, for the command line, the viewer, export and compare:
// resolve the ranks (discoverJob, rankIdOf, formsOneJob), load them in parallel under the
// memory budget and analyse each as soon as it is loaded (loadRanks on the WorkPool), then
// match them across ranks when they form one job (analyzeJob). One rank is a job of one.
//
// Concurrency: every task runs on WorkPool::global(); at most maxParallel ranks are loaded or
// analysed at once, fewer when their projected models do not fit in the budget together.
// Progress and cancel go through JobProgress (onChange as ranks read chunks
// and end, requestCancel()).

#include "core/analysis/report.h"
#include "core/analysis/reportjson.h"
#include "core/job/crossrank.h"
#include "core/job/jobloader.h"
#include "core/traceloader.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rs {

struct PipelineOptions {
    LoadOptions load; // maxMemoryBytes: the budget of the whole job (0: 75% of RAM)
    AnalysisOptions analysis;
    JobOptions job;
    int maxParallel = 0;   // ranks at once; 0: the pool's threads
    bool crossRank = true; // match the ranks of one job (the viewer redoes it on its offsets)
    bool analyse = true;   // false: load only (info); reports are then empty but for the trace
    // false (commands that print reports: analyze): each rank's trace is let go as soon as it
    // is analysed, its report keeping the trace's facts (AnalysisReport::facts, what the
    // reports print), so the memory budget admits the next ranks instead of refusing them.
    // PipelineResult::traces then holds nulls. The viewer, export and info keep them.
    bool keepTraces = true;
    // Called on the worker thread as each rank has loaded, before it is analysed (also with
    // analyse false): the viewer shows a single trace, then analyses it once it is painted.
    std::function<void(std::size_t index, const LoadResult& loaded)> onRankLoaded;
};

struct PipelineResult {
    std::vector<RankInput> inputs;     // what the paths resolved to
    std::vector<TracePtr> traces;      // loaded ranks, sorted by rank id (null: let go)
    std::vector<std::string> paths;    // the input each trace was loaded from
    std::vector<ReportPtr> reports;    // traces[i]'s report (its trace is traces[i])
    std::vector<int> rankIds;          // rankIdOf each trace
    std::optional<JobReport> job;      // when the ranks form one job
    std::vector<std::string> errors;   // a path with no trace, a rank that failed
    std::vector<std::string> warnings; // a rank read partially (cut, malformed)
    bool cancelled = false;
    std::uint64_t budget = 0;   // the memory budget the ranks were admitted under
    std::uint64_t peakHeld = 0; // most bytes reserved or kept at once (<= budget)
    int peakRunning = 0;        // most ranks loading or analysing at once

    const JobReport* jobReport() const { return job ? &*job : nullptr; }
    // Per rank, for writeReportJson / reportToText.
    std::vector<ReportInput> reportInputs() const;
};

// The ranks of one job matched across, or nullopt when they do not form one job
// (formsOneJob). offsets empty: the shared clock (sharedClockOffsets).
std::optional<JobReport> matchJob(const std::vector<ReportPtr>& reports,
                                  std::vector<TimeNs> offsets = {}, const JobOptions& options = {});
// The same on the slim ranks (rank summaries read slim: ringscope merge); the job's `ranks`
// are null.
std::optional<JobReport> matchJob(const std::vector<JobRank>& ranks,
                                  std::vector<TimeNs> offsets = {}, const JobOptions& options = {});

PipelineResult runPipeline(const std::vector<std::string>& paths, const PipelineOptions& options,
                           JobProgress* progress = nullptr);
PipelineResult runPipeline(const std::vector<RankInput>& inputs, const PipelineOptions& options,
                           JobProgress* progress = nullptr);

} // namespace rs
