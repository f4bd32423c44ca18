#pragma once

// Communication analysis of a loaded trace: collectives, their internal memcpy, duration
// modes and the anomaly, alignment, steps, bandwidth, findings. Pure core code.

#include "core/analysis/report.h"
#include "core/trace.h"

#include <cstddef>
#include <vector>

namespace rs {

// Analyses one trace (one rank). Thread-safe: reads the immutable trace only. The report is
// the caller's alone (a ReportPtr once shared); the job pipeline slims it in place.
std::shared_ptr<AnalysisReport> analyze(TracePtr trace, const AnalysisOptions& options = {});

// Call-stack chain of an event, innermost first: the event and its enclosing slices, the host
// op that launched a device event (flows, correlation), the host thread of a CANN call in the
// Python process (same tid), task-queue flows, "Call stack" args and stackFrames. Bounded by
// maxDepth entries and safe against cycles.
std::vector<StackEntry> callStack(const Trace& trace, EventId e, std::size_t maxDepth = 256);

// The first frame of a chain that looks like user code (not torch / python internals), or
// empty: what a recommendation should name.
std::string sourceFrame(const std::vector<StackEntry>& chain);

} // namespace rs
