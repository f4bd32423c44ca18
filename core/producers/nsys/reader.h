#pragma once

// Nsight Systems' SQLite export read into a trace: per process its threads (CUDA runtime and
// driver calls, NVTX ranges and marks, OS runtime calls), per GPU its streams (kernels, memcpy,
// memset), flows from each call to the GPU work it launched (by correlationId within its
// process), the call stacks of CUDA_CALLCHAINS / OSRT_CALLCHAINS as stack frames, and the run
// facts (the session's start as the clock base, the GPUs). The mapping is in
// docs/producers.md ("Nsight Systems"). The big tables are read through the direct page reader
// (core/sqlite/rawtable.h) in row ranges on the work pool, as the torch_npu database is.

#include "core/traceloader.h"

#include <cstddef>
#include <optional>
#include <string>

namespace rs::nsys {

// Reads an export. part: one process of a file that holds several ranks (schema.h,
// partOfProcess); empty: the whole file. rank: what the file's name says (rankInFileName).
// shownAs: the path the trace and its messages name (a report, for its converted export).
LoadResult readExport(const std::string& file, const std::string& part, std::optional<int> rank,
                      const LoadOptions& options, LoadProgress* progress,
                      const std::string& shownAs = {});
// The same from a database image in memory (tests, fuzzing).
LoadResult readExportBytes(const void* data, std::size_t size, const std::string& name,
                           const std::string& part = {}, const LoadOptions& options = {});

} // namespace rs::nsys
