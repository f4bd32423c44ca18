#pragma once

// The critical path of each step (issue 44; the model is in docs/analysis.md, "Critical
// path"). A rank's part is computed once from its trace as pieces (PathPiece: a walk back from
// each step's end and from each collective's start to the first collective it meets); the path
// of a step is then walked on the pieces alone, jumping at every collective to the rank that
// was ready last. The same walk serves one rank (its own report), a job of traces and a merge
// of rank summaries, so all three give the same path.

#include "core/analysis/report.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rs {

namespace analysis {

struct AnalysisContext;

// The rank's pieces: one from the end of each step (floor: its start) and one from the start
// of each collective (floor: its step's start, else the trace's start). Reads the device
// streams (kernels, copies, sets by SliceKind), the collectives and the launches of ctx.
// O(n log n) in the device slices.
std::vector<PathPiece> pathPieces(const AnalysisContext& ctx, const AnalysisReport& rep);

} // namespace analysis

// What the walk reads of one collective of a rank.
struct PathCollective {
    TimeNs start = 0, dur = 0, extraMemcpyNs = 0;
    EventId event = kNone;
    std::string_view name;
};

// What the walk reads of one rank: its pieces and collectives, and the offset that puts its
// times on the job clock.
struct PathRank {
    std::optional<int> rank;
    TimeNs offset = 0;
    const std::vector<PathPiece>* pieces = nullptr;
    std::vector<PathCollective> collectives;
};

// Where the path goes at collective `k` of rank `r`: the member of its instance that delayed
// it (the delaying rank ready last, as (rank index, collective index)), or none to stay on r
// (nobody delayed it, or a one-rank walk).
using PathJumpTo =
    std::function<std::optional<std::pair<std::size_t, std::size_t>>(std::size_t r, std::size_t k)>;

// The path of every step any rank has, sorted by step: the job's step N runs from the
// earliest rank's start of it to the latest rank's end, walked back from that end.
std::vector<StepPath> walkCriticalPath(const std::vector<PathRank>& ranks,
                                       const PathJumpTo& jumpTo);

// One rank alone (HTA's single-rank case): its report's pieces, no jumps.
std::vector<StepPath> rankCriticalPath(const AnalysisReport& rep);

// A copy on the path: the collective `event` of `rank` (none: any rank).
struct PathCopy {
    std::optional<int> rank;
    EventId event = kNone;
};
// The step time saved if these collectives' extra internal memcpy were gone, read off the
// step's path: their internal-memcpy segments on it, at most `bound` (how much earlier the
// exchange could start without them). None when `paths` has no path of `step`.
std::optional<TimeNs> copyGain(const std::vector<StepPath>& paths, int step,
                               const std::vector<PathCopy>& copies, TimeNs bound);
// Sets gainNs (and says it in the recommendation) of the report's collective-extra-memcpy
// findings: the rank alone, on its own path (its pieces must be computed).
void addCopyGains(AnalysisReport& rep);

// Whether a path covers its step: contiguous, ascending segments from start to end, and
// byKind summing to its length. Empty when it does, else what is wrong (tests, fuzzing).
std::string checkStepPath(const StepPath& p);

} // namespace rs
