#pragma once

// What a fix would gain (issue 44.2): a replay of each step's device work on its dependency
// graph, predicting the step's duration after a change. The model is in docs/analysis.md
// ("What if"): each device event waits for its stream's previous event, its host launch and the
// last event of its rank's other streams; a collective exchanges once its last member is ready
// (its start plus its extra internal memcpy). Each dependency keeps the gap it had where it was
// the one that held the event back, so the replay of no change is the measured trace.

#include "core/analysis/report.h"
#include "core/job/crossrank.h"
#include "core/job/jobtrace.h"

#include <optional>
#include <string>
#include <vector>

namespace rs {

struct WhatIfChange {
    bool removeInternalMemcpy = false; // every collective's extra internal memcpy gone
    struct Scale {
        std::string glob;   // a kernel, copy or collective name: * and ? as in a shell
        double factor = 1.; // its duration times this (0.8: 20% faster)
    };
    std::vector<Scale> scale;
    std::optional<int> rank; // only this rank changes
};

struct StepPrediction {
    int step = 0;
    TimeNs measuredNs = 0, predictedNs = 0;
};

struct WhatIfResult {
    std::vector<StepPrediction> steps; // sorted by step
    TimeNs totalMeasuredNs = 0, totalPredictedNs = 0;
};

// traces[i] and reports[i] are rank i of the job (its trace and its report); job is their
// cross-rank match (nullptr: each rank alone, as one rank is). Steps are replayed one by one
// from their measured start.
WhatIfResult whatIf(const std::vector<TracePtr>& traces, const std::vector<ReportPtr>& reports,
                    const JobReport* job, const WhatIfChange& change);

// The viewer's job, whose ranks are merged into one display trace (core/job/jobtrace.h):
// reports[i] is block i's report on it (merged ids, job clock: JobSession::perRank), job the
// cross-rank match of the blocks. Rank i's device work is read from its own tracks of the
// merged trace, so the rank traces need not be kept; the result is the same as above.
WhatIfResult whatIf(const JobTrace& merged, const std::vector<ReportPtr>& reports,
                    const JobReport* job, const WhatIfChange& change);

// `ringscope whatif --json`: {steps: [{step, measured_ns, predicted_ns}], total_measured_ns,
// total_predicted_ns}.
std::string whatIfJson(const WhatIfResult& r);
// The human table: step, measured, predicted, saving.
std::string whatIfText(const WhatIfResult& r);

} // namespace rs
