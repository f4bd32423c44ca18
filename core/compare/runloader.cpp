#include "core/compare/runloader.h"

#include "core/job/jobpipeline.h"

namespace rs {

std::optional<RunDigest> loadRunDigest(const std::string& path, const RunLoadOptions& options,
                                       std::vector<std::string>* errors, JobProgress* progress)
{
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

} // namespace rs
