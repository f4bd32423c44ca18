#pragma once

// torch_npu's database export (export_type=db): ascend_pytorch_profiler_N.db, SQLite, read
// into the timeline its text export (trace_view.json) would show, so every analysis of the
// text export runs on it unchanged. The mapping of tables to processes, threads, slices, args,
// flows and counters is in docs/producers.md; it follows msprof's and torch_npu's own code.
// analysis.db beside it is never read.

#include "core/traceloader.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

namespace rs::sqlite {
class Database;
class DbFile;
} // namespace rs::sqlite

namespace rs::torchnpudb {

// Reads a database file as of now: its -wal's committed frames or its hot -journal applied
// (sqlite/dbfile.h), each connection of the load reading that one view. rank: what the run
// folder says (profiler_info_N.json); else the database's RANK_DEVICE_MAP, else the N of its
// file name. Damage gives a Partial load with the rows read before it, each table's damage a
// warning naming the file, the table and the page.
LoadResult readDatabase(const std::string& file, std::optional<int> rank,
                        const LoadOptions& options, LoadProgress* progress);
// The same from a database image in memory (tests, fuzzing).
LoadResult readDatabaseBytes(const void* data, std::size_t size, const std::string& name,
                             const LoadOptions& options = {});
// The same from a view already taken (an image with its -wal or -journal: tests, fuzzing).
LoadResult readDatabaseView(std::shared_ptr<const sqlite::DbFile> file,
                            const LoadOptions& options = {});

// The tables the reader reads, and the columns it needs of each (absent tables are skipped;
// a table that lacks a column is another schema, and the file is refused naming both).
struct TableColumns {
    const char* table;
    const char* columns; // comma-separated, in the order the reader selects them
};
extern const TableColumns kTables[];
extern const std::size_t kTableCount;
// Every table is optional, but one that is there must have the columns read of it: empty, or
// why not, naming the file (name), the table and the column. *hasType: whether PYTORCH_API
// has its type column (2024-08 on).
std::string checkSchema(sqlite::Database& db, const std::string& name, bool* hasType);

} // namespace rs::torchnpudb
