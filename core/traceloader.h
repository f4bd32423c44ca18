#pragma once

#include "core/trace.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rs {

class Producer;
class ModelCache;

struct LoadOptions {
    // Refuse traces whose model is projected to need more than this; 0 = 75% of physical memory.
    std::uint64_t maxMemoryBytes = 0;
    // Rank to use when neither the folder (profiler_info_N.json) nor the trace
    // (distributedInfo) says, e.g. from a file name "rank3.json".
    std::optional<int> rankHint;
    // Where built models are kept (core/cache/modelcache.h): a complete load is written there
    // after it returns, a later load of the same unchanged file maps it instead of parsing.
    // Null: the one the application installed (ModelCache::processCache(); none in tests and
    // with --no-cache), so every way to a load (CLI, viewer, compare) shares it.
    std::shared_ptr<ModelCache> cache;
    // Which of a file's ranks to read, for a file that holds several (Producer::parts(), job
    // discovery's RankInput::part); empty: the file as its producer reads it whole.
    std::string part;
    // A torch_npu database's rows through SQLite's queries only, not its pages read directly
    // (core/sqlite/rawtable.h): tests compare the two.
    bool databaseViaSql = false;
};

struct LoadProgress {
    std::atomic<std::uint64_t> done{0};  // file bytes read
    std::atomic<std::uint64_t> total{0}; // file size
    std::atomic<bool> cancel{false};
    // Called on the loading thread each time done grows (once per chunk, not per event), so
    // a viewer can show progress without polling. Set it before the load starts.
    std::function<void()> onAdvance;
};

// How a load ended.
enum class LoadStatus : std::uint8_t {
    Complete, // every event of the document was read
    Partial,  // a trace of the events before the load stopped (LoadResult::stop says why)
    Failed,   // no trace (LoadResult::message says why)
};

// Why a load is Partial or Failed; None exactly when it is Complete.
enum class LoadStop : std::uint8_t {
    None,
    Truncated,  // the text ends inside the document (a cut file or gzip stream)
    Malformed,  // not JSON (at the byte, line and column the message names), or not a trace
    Cancelled,  // LoadProgress::cancel was set
    OverBudget, // it would need more memory than LoadOptions::maxMemoryBytes
    Unreadable, // no such file, not a regular file, no permission, a read error
};

struct LoadResult {
    LoadStatus status = LoadStatus::Failed;
    LoadStop stop = LoadStop::None;
    TracePtr trace;      // set unless Failed; Partial: the events before the stop
    std::string message; // for the user, why it is Partial or Failed (names the file); else empty
    std::vector<std::string> warnings; // the trace's warnings (what was odd, counted)
    std::string resolvedPath;          // the JSON file actually read

    bool complete() const { return status == LoadStatus::Complete; }
    bool failed() const { return status == LoadStatus::Failed; }
    bool cancelled() const { return stop == LoadStop::Cancelled; }
};

// A path as given by a user: a .json/.json.gz file, a torch_npu "*_ascend_pt" folder or its
// ASCEND_PROFILER_OUTPUT folder (text or database export), an ascend_pytorch_profiler_N.db.
// Returns the file to read, the rank when the layout says, and the producer that reads it
// (core/producers/registry.h).
struct ResolvedPath {
    std::string file;
    std::optional<int> rank;
    std::string error;
    const Producer* reader = nullptr; // set unless error
};
ResolvedPath resolveTracePath(const std::string& path);

std::uint64_t defaultMemoryBudget();

// Loads a trace, streaming: call from a worker thread; progress and cancel are optional.
LoadResult loadTrace(const std::string& path, const LoadOptions& options = {},
                     LoadProgress* progress = nullptr);
// The same from bytes in memory (tests, fuzzing).
LoadResult loadTraceFromMemory(const char* data, std::size_t size, const LoadOptions& options = {},
                               const std::string& name = "<memory>");

} // namespace rs
