#pragma once

// The torch_npu model's parts, for the generic model that combines every producer's
// conventions (generic.cpp). Use torchNpuModel() otherwise.

#include "core/analysis/producers/producer.h"

namespace rs::analysis {

// A process's torch_npu name ("HCCL"), also in a job's merged trace where it is written
// "Rank 3 · HCCL"; prefix receives the rank part ("Rank 3 · ", empty for one rank).
std::string_view torchNpuProcessName(const Trace& trace, ProcessId p,
                                     std::string_view* prefix = nullptr);
TrackRole torchNpuRole(const Trace& trace, TrackId t);
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
