#include "core/compare/runloader.h"

#include "core/analysis/analyzer.h"
#include "core/job/crossrank.h"

#include <set>

namespace rs {

std::optional<RunDigest> loadRunDigest(const std::string& path, const RunLoadOptions& options,
                                       std::vector<std::string>* errors, JobProgress* progress)
{
    std::vector<std::string> problems;
    std::string discoverError;
    const std::vector<RankInput> inputs = discoverJob({path}, &discoverError);
    if (!discoverError.empty()) problems.push_back(discoverError);
    JobLoadResult loaded = loadJob(inputs, options.load, progress);
    problems.insert(problems.end(), loaded.errors.begin(), loaded.errors.end());
    if (loaded.traces.empty() || loaded.cancelled) {
        if (problems.empty())
            problems.push_back(path + (loaded.cancelled ? ": cancelled" : ": no trace found"));
        if (errors) errors->insert(errors->end(), problems.begin(), problems.end());
        return std::nullopt;
    }
    RunSide side;
    side.path = path;
    side.errors = problems;
    std::set<int> rankIds;
    for (const TracePtr& t : loaded.traces) {
        side.ranks.push_back(analyze(t, options.analysis));
        if (t->rank()) rankIds.insert(*t->rank());
    }
    // The rule of `analyze`: ranks of one job have distinct rank ids.
    std::optional<JobReport> job;
    if (side.ranks.size() > 1 && rankIds.size() == side.ranks.size()) job = analyzeJob(side.ranks);
    side.job = job ? &*job : nullptr;
    side.worldSize = worldSizeOf(loaded.traces);
    loaded.traces.clear();
    if (errors) errors->insert(errors->end(), problems.begin(), problems.end());
    return digestRun(side);
}

} // namespace rs
