#pragma once

// Kineto's analysis model (NCCL / RCCL collectives as host ops with the kernels and copies
// they launched). Its parts are also used by the generic model.

#include "core/analysis/producermodel.h"

namespace rs::analysis {

const ProducerModel& kinetoModel();

std::uint8_t kinetoNameClass(std::string_view name);
// NCCL kernels whose launch flow is missing: the runtime call with the same correlation id.
void addKinetoLaunches(AnalysisContext& ctx);
// Collective host ops with the kernels and copies they launched; lone NCCL kernels.
void findKinetoCollectives(AnalysisContext& ctx, std::vector<Collective>& out);
// The events inside collectives on GPU streams, for kinetoComputing.
void prepareKinetoComputing(AnalysisContext& ctx, const std::vector<Collective>& collectives);
// A GPU kernel that is not part of a collective.
bool kinetoComputing(AnalysisContext& ctx, EventId e);
int kinetoFlowRank(std::string_view category);
// The link each collective's bus bandwidth is compared with (Collective::link).
void kinetoFinishCommunication(AnalysisContext& ctx, AnalysisReport& rep);

} // namespace rs::analysis
