#pragma once

// Run facts (core/slicekind.h: clock base, world size, devices) as PyTorch's profilers write
// them, shared by the producers that read their Chrome traces and run folders.

#include "core/trace.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rs::producers {

// The job's size in a JSON document of run metadata: Kineto's distributedInfo.world_size,
// torch_npu's "distributed_args": {"world_size"}, a top-level "world_size", or the highest
// global rank of "parallel_group_info" plus one.
std::optional<int> worldSizeInMetadata(const nlohmann::json& md);
// The same in the first of these small JSON files that says (files over 4 MiB are skipped).
std::optional<int> worldSizeInFiles(const std::vector<std::string>& files);
// A Chrome trace's top-level keys: baseTimeNanoseconds, the world size above, and
// deviceProperties' device names.
RunFacts chromeTraceFacts(const Trace& trace);

} // namespace rs::producers
