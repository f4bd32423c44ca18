#pragma once

// The seed case (../shared/seeds/000_*.txt) as generated traces: steps of ~320 ms compute and an
// AllReduce of ~200 ms, where some steps' AllReduce input is misaligned, so on one rank HCCL
// (or NCCL) first copies it: one extra ~200 ms Memcpy inside the op, which then takes ~400 ms;
// the other ranks' op of that step is as long because it waits for that rank.

#include "core/timeconv.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rs::gen {

struct SeedCaseOptions {
    int ranks = 2;
    int steps = 6;
    std::vector<int> badSteps = {2, 4}; // steps (0-based) whose AllReduce input is misaligned
    int badRank = 0;                    // the rank that copies; the other ranks only wait
    // Per 0-based bad step, the ranks that copy instead of badRank (several ranks can be
    // misaligned in one step: allocation is random). Steps named here are bad steps.
    std::map<int, std::vector<int>> badRanks;
    TimeNs computeNs = 320'000'000;
    TimeNs allReduceNs = 200'000'000;
    TimeNs extraMemcpyNs = 200'000'000;
    std::uint64_t count = 67'108'864; // FP32 elements of the AllReduce
    bool kineto = false;   // false: torch_npu trace_view.json shape; true: Kineto/NCCL shape
    bool database = false; // torch_npu shape written as its database export (writeSeedCaseJob)
    bool withStack =
        true; // python_function + "Call stack" with custom_attention_forward / torch.empty
    std::uint64_t stepBase = 40; // ProfilerStep#(stepBase + i)
    // allReduceNs = 0: no collective at all (a single-card run). Steps then last computeNs.
    int writeRanks = 0; // ranks 0..writeRanks-1 written by writeSeedCaseJob (0: all); the
                        // traces still declare `ranks` as the world size
    // Planted causes (issue 44's oracles): in 0-based step `step`, `rank` reaches the AllReduce
    // `ns` late and every other rank waits that long inside it.
    struct Late {
        int rank = -1, step = -1;
        TimeNs ns = 0;
        bool in(int s, int r) const { return ns > 0 && s == step && r == rank; }
    };
    Late slowKernel; // its first compute kernel (the MatMul) runs ns longer
    Late lateLaunch; // its host launches the third kernel and everything after it ns late
    // In 0-based step `step`, `rank`'s AllReduce has half the elements of the others' (a
    // collective-mismatch: the group's calls differ).
    struct At {
        int rank = -1, step = -1;
        bool in(int s, int r) const { return s == step && r == rank; }
    };
    At countMismatch;
};

// Elements of rank's AllReduce in 0-based step i (the planted count mismatch).
std::uint64_t countOf(const SeedCaseOptions& o, int step, int rank);

// How late rank reaches the AllReduce of 0-based step i (the planted causes), and the most any
// rank is late there (what the others wait).
TimeNs lateBy(const SeedCaseOptions& o, int step, int rank);
TimeNs stepDelay(const SeedCaseOptions& o, int step);

// Whether rank copies (is misaligned) in 0-based step i, when step i is bad.
bool copiesInStep(const SeedCaseOptions& o, int step, int rank);

// JSON text of one rank's trace.
std::string seedCaseTrace(const SeedCaseOptions& o, int rank);
// dir/rank<N>_ascend_pt/... (torch_npu layout with profiler_info_N.json) or
// dir/rank<N>.pt.trace.json (kineto). Returns false when a file cannot be written.
bool writeSeedCaseJob(const std::string& dir, const SeedCaseOptions& o);

} // namespace rs::gen
