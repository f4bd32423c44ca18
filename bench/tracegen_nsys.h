#pragma once

// The Nsight Systems shape: one synthetic training process written as an nsys SQLite export
// (the tables and columns nsys 2026.2 writes, schema 3.25): per step a ProfilerStep#N NVTX range,
// PyTorch's op ranges (emit_nvtx names), a CUDA runtime call per kernel, memcpy and memset,
// and an NCCL all-reduce (ncclAllReduce in NCCL's NVTX domain, its ncclDevKernel) per step, so
// bench_load can time the nsys reader per event against the torch_npu database's.

#include <cstdint>
#include <string>

namespace rs::tracegen {

struct NsysRunOptions {
    std::uint64_t targetRows = 1'000'000; // stops at the first step past this many rows
    std::uint64_t seed = 1;
    int rank = 0;
};

struct NsysRunStats {
    std::uint64_t rows = 0; // rows of the event tables (kernel, memcpy, memset, runtime, NVTX)
    std::uint64_t kernels = 0, copies = 0, sets = 0, calls = 0, ranges = 0;
    std::uint64_t steps = 0, collectives = 0;
    std::string path; // the file written
};

// Writes OUT/report_<rank>.sqlite (nsys -o report_%q{RANK}). Deterministic for a given options
// value. False with *error on a write error.
bool writeNsysRun(const std::string& outDir, const NsysRunOptions& options, NsysRunStats* stats,
                  std::string* error);

} // namespace rs::tracegen
