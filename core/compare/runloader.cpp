#include "core/compare/runloader.h"

#include "core/job/jobpipeline.h"
#include "core/job/ranksummary.h"

namespace rs {

std::optional<RunDigest> loadRunDigest(const std::string& path, const RunLoadOptions& options,
                                       std::vector<std::string>* errors, JobProgress* progress)
{
    if (isRankSummaryPath(path)) return loadSummaryRunDigest({path}, path, errors);
    // The pipeline of `analyze`: the same ranks, the same rule for one job.
    PipelineOptions pipeline;
    pipeline.load = options.load;
    pipeline.analysis = options.analysis;
    PipelineResult result = runPipeline(std::vector<std::string>{path}, pipeline, progress);
    std::vector<std::string> problems = result.errors;
    if (result.traces.empty() || result.cancelled) {
        if (problems.empty())
            problems.push_back(path + (result.cancelled ? ": cancelled" : ": no trace found"));
        if (errors) errors->insert(errors->end(), problems.begin(), problems.end());
        return std::nullopt;
    }
    RunSide side;
    side.path = path;
    side.errors = problems;
    side.ranks = result.reports;
    side.job = result.jobReport();
    side.worldSize = worldSizeOf(result.traces);
    result.traces.clear();
    if (errors) errors->insert(errors->end(), problems.begin(), problems.end());
    return digestRun(side);
}

std::optional<RunDigest> loadSummaryRunDigest(const std::vector<std::string>& summaries,
                                              const std::string& name,
                                              std::vector<std::string>* errors)
{
    // What `ringscope merge` makes of them: the ranks' reports and the job's analysis.
    const MergedJob merged = mergeRankSummaries(summaries);
    std::vector<std::string> problems = merged.errors;
    if (merged.inputs.empty()) {
        if (problems.empty()) problems.push_back(name + ": no rank summary found");
        if (errors) errors->insert(errors->end(), problems.begin(), problems.end());
        return std::nullopt;
    }
    RunSide side;
    side.path = name;
    side.errors = problems;
    side.fromSummaries = true;
    for (const ReportInput& in : merged.inputs)
        side.ranks.push_back(in.report); // with the job's note on the delaying ranks
    side.job = merged.jobReport();
    if (errors) errors->insert(errors->end(), problems.begin(), problems.end());
    return digestRun(side);
}

} // namespace rs
