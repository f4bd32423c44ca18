#pragma once

#include "core/traceloader.h"

#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace rs {

// One rank's trace as found on disk.
struct RankInput {
    std::string path; // as openable by loadTrace (file or torch_npu folder)
    std::optional<int> rank; // from profiler_info_N.json or the file name; else from the trace
};

// Expands what a user gave into one input per rank: trace files, torch_npu "*_ascend_pt"
// folders, or folders holding them (Kineto "rank*"/"worker*" files, "*.pt.trace.json[.gz]",
// one level of rank sub-folders). Sorted by rank when known, then by path.
std::vector<RankInput> discoverJob(const std::vector<std::string>& paths, std::string* error);

// Rank from a file or folder name: "rank3", "rank_3", "worker-3", "rank3_ascend_pt".
std::optional<int> rankFromName(const std::string& name);

struct JobProgress {
    std::atomic<std::uint64_t> done{0}; // file bytes read over all ranks
    std::atomic<std::uint64_t> total{0};
    std::atomic<int> ranksDone{0};
    std::atomic<bool> cancel{false};
};

struct JobLoadResult {
    std::vector<TracePtr> traces; // loaded ranks, sorted by rank
    std::vector<std::string> errors; // one line per rank that failed
    std::vector<std::string> warnings; // one line per rank loaded partially (cut, malformed)
    bool cancelled = false;
};

// Loads ranks in parallel (one worker per core) under one memory budget: a rank starts only
// when its projected model fits in what the loaded and loading ranks leave of the budget.
JobLoadResult loadJob(const std::vector<RankInput>& inputs, const LoadOptions& options = {},
                      JobProgress* progress = nullptr);

} // namespace rs
