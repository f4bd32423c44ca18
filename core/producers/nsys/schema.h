#pragma once

// What an Nsight Systems SQLite export (`nsys export --type sqlite`) is, as the reader sees it:
// how it is recognised (its tables, never its file name), the tables and columns the reader
// reads, and the processes that ran GPU work (a file's ranks). The export's conventions are in
// docs/producers.md ("Nsight Systems") and ../shared/traces/public/SOURCES.md.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace rs::sqlite {
class Database;
}

namespace rs::nsys {

// The tables whose presence makes a database an export: StringIds together with the metadata
// table (META_DATA_EXPORT; nsys 2022 names it EXPORT_META_DATA) or an activity table
// (CUPTI_ACTIVITY_KIND_*). Tables exist only when they hold rows, so any one of them will do.
inline constexpr const char* kLookedFor =
    "tables StringIds and META_DATA_EXPORT, EXPORT_META_DATA or CUPTI_ACTIVITY_KIND_*";

// A table the reader reads: the columns it cannot do without (a present table that lacks one is
// of a schema this version does not know: skipped with a warning naming it), and those it reads
// when they are there (columns come and go between nsys versions).
struct TableSpec {
    const char* table;
    const char* required; // comma-separated
    const char* optional; // comma-separated
};
const std::vector<TableSpec>& tableSpecs();

// What the database's schema says, read once when a file is opened.
struct ExportSchema {
    std::set<std::string, std::less<>> tables;
    bool isExport = false;
    std::string productVersion, schemaVersion; // META_DATA_EXPORT, when it says
};
// Reads the schema (a few small queries); isExport false for a database of another kind.
ExportSchema readSchema(sqlite::Database& db);

// Whether the file at path is an export, asked without reading its events (cached by the
// file's identity: resolve() asks often).
bool isExportFile(const std::string& path);
// The SQLite magic at the start of a file.
bool isSqliteFile(const std::string& path);

// The processes that ran GPU work, sorted by pid: those with CUDA streams
// (TARGET_INFO_CUDA_STREAM, one small table), else those the activity tables name (a query over
// them, for exports without that table). Cached like isExportFile.
std::vector<std::uint32_t> gpuProcesses(const std::string& path);
std::vector<std::uint32_t> gpuProcesses(sqlite::Database& db, const ExportSchema& schema);

// The part selector of one process of a file that holds several ranks ("pid 144"), and back.
std::string partOfProcess(std::uint32_t pid);
std::optional<std::uint32_t> processOfPart(std::string_view part);

// The rank a file's name states: "report_3.sqlite", "job-3.sqlite", "rank3.nsys-rep" (nsys -o
// report_%q{RANK}); a bare number glued to a word ("report1", nsys's default name) or after a
// dot (a version: "nsight-2025.5.2.sqlite") says none.
std::optional<int> rankInFileName(const std::string& path);

// The packing of nsys's serialised ids: globalPid / globalTid hold the pid in bits 24-47 and a
// thread's tid in bits 0-23.
inline std::uint32_t pidOf(std::int64_t globalId)
{
    return std::uint32_t((std::uint64_t(globalId) >> 24) & 0xffffff);
}
inline std::uint32_t tidOf(std::int64_t globalId)
{
    return std::uint32_t(std::uint64_t(globalId) & 0xffffff);
}

} // namespace rs::nsys
