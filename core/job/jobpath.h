#pragma once

// The job's critical path (core/analysis/criticalpath.h) on the cross-rank match: at each
// collective the path goes to the rank that delayed the instance (its delaying rank ready
// last), else stays on the rank it is on.

#include "core/job/crossrank.h"

#include <vector>

namespace rs {

std::vector<StepPath> jobCriticalPath(const std::vector<JobRank>& ranks, const JobReport& job);

} // namespace rs
