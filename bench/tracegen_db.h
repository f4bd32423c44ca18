#pragma once

// The database shape: one synthetic torch_npu rank written as its database export
// (ascend_pytorch_profiler_N.db, the tables and string ids torch_npu and msprof write) and,
// when asked, as the text export of the same run (trace_view.json with the same events), so
// bench_load can compare the two readers per event.

#include <cstdint>
#include <string>

namespace rs::tracegen {

struct DbRunOptions {
    std::uint64_t targetRows = 1'000'000; // stops at the first step past this many rows
    std::uint64_t seed = 1;
    int rank = 0;
    bool text = false; // also the text export of the same run
};

struct DbRunStats {
    std::uint64_t rows = 0;   // database rows written, all tables
    std::uint64_t events = 0; // events of the text export of the same run (metadata included)
    std::uint64_t steps = 0, collectives = 0;
    std::string dbPath, textPath; // the files written
};

// Writes OUT/db/rankN_ascend_pt/ (profiler_info_N.json and ASCEND_PROFILER_OUTPUT/
// ascend_pytorch_profiler_N.db) and, with text, OUT/text/rankN_ascend_pt/.../trace_view.json.
// Deterministic for a given options value. False with *error on a write error.
bool writeDbRun(const std::string& outDir, const DbRunOptions& options, DbRunStats* stats,
                std::string* error);

} // namespace rs::tracegen
