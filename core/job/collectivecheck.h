#pragma once

// Profiled collectives checked across ranks (issue 44.5): the calls the ranks of one process
// group made must agree, n-th for n-th, or NCCL and HCCL hang or compute garbage. Numbered calls
// (the Flight Recorder's, NCCL's seq) are checked by collectivecalls.h; this checks the ones a
// profiler recorded without a number, matched by their order in the group:
// - collective-mismatch: at one place in a group's sequence (per step when every rank's
//   collectives of the group have one), the ranks that called another kind, element count or
//   data type than most members did. After a kind differs, the rest of that step's sequence is
//   shifted and not compared. All-to-all counts are per rank by design and are not compared.
// - collective-count-mismatch: ranks that issued another number of a group's collectives in a
//   step every member profiled (or in all, with no steps) than most members did. A warning:
//   profiler windows can differ.
// - collective-end-spread: an all-reduce, all-gather, reduce-scatter or barrier whose ends on
//   the job clock differ by more than a share of its shortest duration on a rank (every member
//   needs every other's data, so they finish together): either the ranks' clocks disagree or
//   the collective did not synchronise them. Rooted ops and all-to-all end when each rank's
//   own part is done, and are not judged.
// Send and receive are point-to-point, not collectives: never compared.

#include "core/analysis/report.h"

#include <cstddef>
#include <vector>

namespace rs {

struct JobRank;
struct JobReport;

struct SequenceCheckOptions {
    std::size_t maxFindings = 100; // per rule; the rest are counted in the last one kept
    double endSpreadShare = 0.1;   // of the instance's shortest duration on a rank
    TimeNs minEndSpreadNs = 0;     // spreads below this are never reported
};

// The findings of the three rules on the job's ranks; `job` gives the clock (offsets), the
// rank ids and the matched instances (for the end spread).
std::vector<Finding> checkCollectiveSequences(const std::vector<JobRank>& ranks,
                                              const JobReport& job,
                                              const SequenceCheckOptions& options = {});

} // namespace rs
