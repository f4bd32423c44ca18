#pragma once

// The folder layout torch_npu writes per rank, shared by its text and database exports:
//   <name>_ascend_pt/                      the run (profiler_info_N.json, profiler_metadata.json)
//     ASCEND_PROFILER_OUTPUT/              trace_view.json ... or ascend_pytorch_profiler_N.db

#include "core/trace.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

class QDir;

namespace rs::torchnpu {

inline constexpr const char* kOutputFolder = "ASCEND_PROFILER_OUTPUT";

// Rank from a "profiler_info_N.json" in a run folder (its rank_id, else N), if any.
std::optional<int> rankFromProfilerInfo(const std::string& runFolder);
// The run folder of a file in it or in its ASCEND_PROFILER_OUTPUT; empty when the file is
// not in such a layout.
std::string runFolderOf(const std::string& file);
// The run's metadata files beside a trace file (profiler_metadata.json, profiler_info_*.json).
std::vector<std::string> runMetadataFiles(const std::string& file);

// A process's torch_npu name ("HCCL"), also in a job's merged trace where it is written
// "Rank 3 · HCCL"; prefix receives the rank part ("Rank 3 · ", empty for one rank).
std::string_view processName(const Trace& trace, ProcessId p, std::string_view* prefix = nullptr);
// The role of a thread track of torch_npu's processes; Kineto's categories for any other.
TrackRole threadRole(const Trace& trace, TrackId t);
// The roles of every track: threadRole for threads, counters of the device's processes
// (HBM, LLC, NPU MEM, AI Core Freq...) are device metrics.
std::vector<TrackRole> roles(const Trace& trace);

} // namespace rs::torchnpu
