#pragma once

// A rank summary (ringscope.ranksummary/1) shown as a rank of a job in the viewer, without its
// trace: a small trace of the events the summary names (each collective's op and host op,
// each finding's evidence, on tracks by role) and the summary's report with its ids moved onto
// that trace, so the job view (Ranks heatmap, findings, steps, the collectives on a timeline)
// works as on loaded ranks. The rank's own trace opens on demand from the recorded path.

#include "core/analysis/report.h"

#include <string>
#include <vector>

namespace rs {

struct SummaryRank {
    TracePtr trace;        // the named events only; path and rank of the summary's trace
    ReportPtr report;      // ids of `trace`
    std::string tracePath; // the rank's trace as the summary recorded it
    std::string error;     // why no trace could be made of it (then trace is null)
};

// report: as read from a summary (facts set, no trace).
SummaryRank summaryRankTrace(const ReportPtr& report);

} // namespace rs
