#pragma once

#include "core/traceloader.h"

#include <optional>
#include <string>

namespace rs {

class WorkPool;

// The one JSON reader. A chunk feeder hands out the text in pieces that end at a guessed
// event boundary: views into the mapped file, or blocks of a gzip stream inflated as they
// are needed (an event cut by a block's end is carried into the next block, so gzip never
// holds the whole text). The pieces are tokenized on the work pool's threads
// (core/jsontokenizer.h); one builder takes the events in text order. Errors carry their byte
// offset, line and column; truncation, the memory budget and cancelling are decided here.
struct ParallelOptions {
    WorkPool* pool = nullptr;          // nullptr: WorkPool::global()
    std::size_t chunkBytes = 1u << 20; // tokenized units; small values are for tests
};

LoadResult loadTraceFile(const std::string& file, std::optional<int> rank,
                         const LoadOptions& options, LoadProgress* progress,
                         const ParallelOptions& parallel = {});
// Plain or gzip bytes in memory (tests, fuzzing).
LoadResult loadTraceBytes(const char* data, std::size_t size, const std::string& name,
                          const LoadOptions& options = {}, const ParallelOptions& parallel = {});

} // namespace rs
