#pragma once

#include "core/traceloader.h"

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace rs {

// One rank's trace as found on disk.
struct RankInput {
    std::string path;        // as openable by loadTrace (file or torch_npu folder)
    std::optional<int> rank; // from profiler_info_N.json or the file name; else from the trace
    // Which of the file's ranks (Producer::parts(): a file that holds several, as an Nsight
    // Systems export of a node's processes does); empty: the whole file. Loaded as
    // LoadOptions::part.
    std::string part = {};
};

// Expands what a user gave into one input per rank: trace files, torch_npu "*_ascend_pt"
// folders, or folders holding them (Kineto "rank*"/"worker*" files, "*.pt.trace.json[.gz]",
// one level of rank sub-folders), and a file that holds several ranks into one input per rank
// (Producer::parts()). Sorted by rank when known, then by path (a file's parts in its order).
std::vector<RankInput> discoverJob(const std::vector<std::string>& paths, std::string* error);

// Rank from a file or folder name: "rank3", "rank_3", "worker-3", "rank3_ascend_pt".
std::optional<int> rankFromName(const std::string& name);

// The one rank-id rule. A rank's number is what its trace says (profiler_info_N.json or
// distributedInfo, else the file or folder name the loader got as a hint); a trace that says
// nothing is numbered by its position among the loaded ranks.
int rankIdOf(const Trace& trace, std::size_t position);
// The one "is this one job" rule: at least two ranks, every one of them with a declared rank,
// all distinct. Unrelated traces given together (no rank, or the same rank) are not matched.
bool formsOneJob(const std::vector<std::optional<int>>& declaredRanks);
bool formsOneJob(const std::vector<TracePtr>& traces);

// Progress of a job load, shared with whoever shows it. Written by the pipeline's tasks.
struct JobProgress {
    std::atomic<std::uint64_t> done{0}; // file bytes of the ranks finished (all of them at the end)
    std::atomic<std::uint64_t> total{0};
    std::atomic<int> ranksDone{0};
    std::atomic<int> ranks{0};
    std::atomic<bool> cancel{false}; // checked before each rank; requestCancel() also stops loads
    // Called on a worker thread each time a rank ended or a loading rank read a chunk (set it
    // before the load starts; bytesDone() then moves between rank ends).
    std::function<void()> onChange;

    // Sets cancel and stops the ranks loading right now.
    void requestCancel();
    // done plus what the ranks loading now have read.
    std::uint64_t bytesDone() const;

    // The pipeline registers the ranks it is loading.
    void attach(LoadProgress* rank);
    void detach(LoadProgress* rank);

private:
    mutable std::mutex m_mutex;
    std::vector<LoadProgress*> m_loading;
};

struct JobLoadResult {
    std::vector<TracePtr> traces;      // loaded ranks, sorted by rank
    std::vector<std::string> errors;   // one line per rank that failed
    std::vector<std::string> warnings; // one line per rank loaded partially (cut, malformed)
    bool cancelled = false;
};

// Loads ranks in parallel on the WorkPool under one memory budget (a MemoryGate): a rank starts
// only when its projected model fits in what the loaded and loading ranks leave of the budget,
// and no more ranks load at once than maxParallel (0: the pool's threads). Sorted by rank.
JobLoadResult loadJob(const std::vector<RankInput>& inputs, const LoadOptions& options = {},
                      JobProgress* progress = nullptr, int maxParallel = 0);

// loadJob's engine: after is run on each rank that loaded (loaded.trace set), inside that
// rank's admission (the pipeline analyses it there, so its memory counts while it is
// analysed); it returns extra bytes the rank keeps. results[i] belongs to inputs[i] (not sorted).
using AfterRankLoad = std::function<std::uint64_t(std::size_t index, const LoadResult& loaded)>;
struct RankLoadStats {
    std::uint64_t budget = 0, peakHeld = 0; // bytes
    int peakRunning = 0;                    // ranks at once
};
// keepTraces false: each trace is let go right after `after` (results[i].trace is then null
// and the rank keeps only what `after` returned), so the budget admits the next ranks.
std::vector<LoadResult> loadRanks(const std::vector<RankInput>& inputs, const LoadOptions& options,
                                  JobProgress* progress, int maxParallel,
                                  const AfterRankLoad& after, bool* cancelled,
                                  RankLoadStats* stats = nullptr, bool keepTraces = true);

// Model bytes a rank is projected to need before it is loaded (file size, x12 for gzip).
std::uint64_t projectedRankBytes(const std::string& path);

} // namespace rs
