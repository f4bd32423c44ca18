#pragma once

// torch_npu's analysis model (HCCL ops on "Group N Communication" threads with their tasks on
// "Plane N" threads, Ascend Hardware tasks), shared by its text and database exports. Its parts
// are also used by the generic model that combines every producer's conventions.

#include "core/analysis/producermodel.h"
#include "core/producers/torchnpu/hcclcomm.h"

namespace rs::analysis {

const ProducerModel& torchNpuModel();
std::uint8_t torchNpuNameClass(std::string_view name);
// HCCL ops on HcclGroup tracks with their Plane tasks, copies and transfers.
void findHcclCollectives(AnalysisContext& ctx, std::vector<Collective>& out);
// An Ascend Hardware task that is computing (ctx.computeByName sized by prepareComputing).
bool ascendTaskComputing(AnalysisContext& ctx, EventId e);
int torchNpuFlowRank(std::string_view category);
// communication_matrix.json from the HCCL tasks kept in ctx.
void hcclFinishCommunication(AnalysisContext& ctx, AnalysisReport& rep);
EventId torchNpuStackContinuation(const Trace& trace, const std::vector<TrackRole>& roles,
                                  EventId e, const std::unordered_set<EventId>& visited,
                                  const char** kind);

} // namespace rs::analysis
