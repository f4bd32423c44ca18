#pragma once

// torch_npu's database export (export_type=db): ascend_pytorch_profiler_N.db, SQLite, read
// into the timeline its text export (trace_view.json) would show, so every analysis of the
// text export runs on it unchanged. The mapping of tables to processes, threads, slices, args,
// flows and counters is in docs/producers.md; it follows msprof's and torch_npu's own code.
// analysis.db beside it is never read.

#include "core/traceloader.h"

#include <cstddef>
#include <optional>
#include <string>

namespace rs::torchnpudb {

// Reads a database file. rank: what the run folder says (profiler_info_N.json); else the
// database's RANK_DEVICE_MAP, else the N of its file name.
LoadResult readDatabase(const std::string& file, std::optional<int> rank,
                        const LoadOptions& options, LoadProgress* progress);
// The same from a database image in memory (tests, fuzzing).
LoadResult readDatabaseBytes(const void* data, std::size_t size, const std::string& name,
                             const LoadOptions& options = {});

// The tables the reader reads, and the columns it needs of each (absent tables are skipped;
// a table that lacks a column is another schema, and the file is refused naming both).
struct TableColumns {
    const char* table;
    const char* columns; // comma-separated, in the order the reader selects them
};
extern const TableColumns kTables[];
extern const std::size_t kTableCount;

} // namespace rs::torchnpudb
