#pragma once

#include "core/traceloader.h"

#include <optional>
#include <string>

namespace rs {

// The fast path: the file is mapped (gzip: inflated whole into memory first), cut into
// chunks at event boundaries and tokenized on several threads by a strict hand-written
// tokenizer; one builder takes the events in file order. It produces exactly what the SAX
// path produces. Anything it does not handle the same way (a corrupt or truncated gzip
// stream, malformed or truncated JSON, an odd document shape, the memory budget) returns
// nullopt and the caller runs the SAX path,
// which then reports the error with its byte offset, line and column.
// Setting RINGSCOPE_LOADER=sax in the environment disables this path.
struct ParallelOptions {
    int threads = 0;                   // 0: up to 2, limited by the cores
    std::size_t chunkBytes = 1u << 20; // tokenized units; small values are for tests
};

std::optional<LoadResult> loadTraceParallel(const std::string& file, std::optional<int> rank,
                                            const LoadOptions& options, LoadProgress* progress,
                                            const ParallelOptions& parallel = {});
std::optional<LoadResult> loadTraceParallelFromMemory(const char* data, std::size_t size,
                                                      const std::string& name,
                                                      const LoadOptions& options = {},
                                                      const ParallelOptions& parallel = {});

// False when RINGSCOPE_LOADER=sax asks for the single-threaded SAX path.
bool parallelLoaderEnabled();

} // namespace rs
