#include "core/job/jobpath.h"

#include "core/analysis/criticalpath.h"

#include <limits>

namespace rs {

std::vector<StepPath> jobCriticalPath(const std::vector<JobRank>& ranks, const JobReport& job)
{
    constexpr auto kNoInstance = std::numeric_limits<std::uint32_t>::max();
    std::vector<PathRank> path(ranks.size());
    std::vector<std::vector<std::uint32_t>> instance(ranks.size());
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        const JobRank& jr = ranks[r];
        path[r].rank = r < job.rankIds.size() ? std::optional<int>(job.rankIds[r]) : jr.rank;
        path[r].offset = r < job.offsets.size() ? job.offsets[r] : 0;
        path[r].pieces = &jr.pathPieces;
        path[r].collectives.reserve(jr.collectives.size());
        for (const JobCollective& c : jr.collectives)
            path[r].collectives.push_back({c.start, c.dur, c.extraMemcpyNs, c.event, jr.name(c)});
        instance[r].assign(jr.collectives.size(), kNoInstance);
    }
    for (std::size_t i = 0; i < job.collectives.size(); ++i)
        for (const RankOp& op : job.collectives[i].ops)
            if (op.report < ranks.size() && op.collective < instance[op.report].size())
                instance[op.report][op.collective] = static_cast<std::uint32_t>(i);
    const PathJumpTo jumpTo =
        [&](std::size_t r, std::size_t k) -> std::optional<std::pair<std::size_t, std::size_t>> {
        const std::uint32_t i = instance[r][k];
        if (i == kNoInstance || !job.collectives[i].delayingRank) return std::nullopt;
        for (const RankOp& op : job.collectives[i].ops)
            if (op.rank == *job.collectives[i].delayingRank)
                return std::make_pair(op.report, std::size_t(op.collective));
        return std::nullopt;
    };
    return walkCriticalPath(path, jumpTo);
}

} // namespace rs
