#pragma once

#include "core/trace.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

namespace rs {

struct LoadOptions {
    // Refuse traces whose model is projected to need more than this; 0 = 75% of physical memory.
    std::uint64_t maxMemoryBytes = 0;
    // Rank to use when neither the folder (profiler_info_N.json) nor the trace
    // (distributedInfo) says, e.g. from a file name "rank3.json".
    std::optional<int> rankHint;
};

struct LoadProgress {
    std::atomic<std::uint64_t> done{0}; // file bytes read
    std::atomic<std::uint64_t> total{0}; // file size
    std::atomic<bool> cancel{false};
};

struct LoadResult {
    // The trace, also when !ok where a partial trace could be built (events before an error).
    TracePtr trace;
    bool ok = false;
    bool cancelled = false;
    std::string error; // why it failed, for the user
    std::string resolvedPath; // the JSON file actually read
};

// A path as given by a user: a .json/.json.gz file, a torch_npu "*_ascend_pt" folder or its
// ASCEND_PROFILER_OUTPUT folder. Returns the trace file, and the rank when the folder says.
struct ResolvedPath {
    std::string file;
    std::optional<int> rank;
    std::string error;
};
ResolvedPath resolveTracePath(const std::string& path);

// Rank from a torch_npu "profiler_info_N.json" in a folder (rank_id, else N), if any.
std::optional<int> rankFromProfilerInfo(const std::string& folder);

std::uint64_t defaultMemoryBudget();

// Loads a trace, streaming: call from a worker thread; progress and cancel are optional.
LoadResult loadTrace(const std::string& path, const LoadOptions& options = {},
                     LoadProgress* progress = nullptr);
// The same from bytes in memory (tests, fuzzing).
LoadResult loadTraceFromMemory(const char* data, std::size_t size, const LoadOptions& options = {},
                               const std::string& name = "<memory>");

} // namespace rs
