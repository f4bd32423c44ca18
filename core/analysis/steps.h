#pragma once

// Per-step figures with torch_npu's definitions (computing, communication, overlapped,
// communication not overlapped, free), computed from the device timeline.

#include "core/analysis/producermodel.h"
#include "core/analysis/report.h"

#include <vector>

namespace rs::analysis {

// Steps from ProfilerStep#N slices; sets Collective::step. Which device tasks are computing is
// the producer's call (ProducerModel::isComputing). Empty when the trace has no steps.
std::vector<StepStats> computeSteps(AnalysisContext& ctx, const ProducerModel& model,
                                    std::vector<Collective>& collectives);

} // namespace rs::analysis
