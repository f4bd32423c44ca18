#pragma once

// Per-step figures with torch_npu's definitions (computing, communication, overlapped,
// communication not overlapped, free), computed from the device timeline.

#include "core/analysis/analysisutil.h"
#include "core/analysis/report.h"

#include <utility>
#include <vector>

namespace rs::analysis {

struct StepInput {
    const Trace& trace;
    const std::vector<TrackRole>& roles;
    // (device event, launching host slice), sorted by device event.
    const std::vector<std::pair<EventId, EventId>>& launch;
};

// Steps from ProfilerStep#N slices; sets Collective::step. Empty when the trace has no steps.
std::vector<StepStats> computeSteps(const StepInput& in, std::vector<Collective>& collectives);

} // namespace rs::analysis
