#pragma once

// What a comparison needs of one run (a trace, a rank folder or a job), reduced to figures
// that outlive the traces: step times, collectives grouped by kind and name pattern, findings
// keyed by rule and subject, and total device time per op name. A digest holds no trace, so a
// command can digest one run, free it and load the next (peak memory: one run).
//
// Definitions (docs/compare.md):
// - step time: a step's device busy window (busyEnd - busyStart, which is computing +
//   communication not overlapped + free), one sample per rank and step with device work;
// - name pattern: the op name with its argument list cut and every run of digits made one '#'
//   ("hcom_allReduce__586_2_1" -> "hcom_allReduce__#_#_#"), so per-call counters group;
// - ops: device slices (Ascend Hardware tasks, Kineto kernel / gpu_memcpy / gpu_memset) and
//   the collectives' own ops (under their pattern), total duration over every rank.

#include "core/analysis/report.h"
#include "core/job/crossrank.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rs {

// One side of a comparison as the load pipeline hands it over.
struct RunSide {
    std::string path;                // as the user gave it
    std::vector<ReportPtr> ranks;    // one report per rank; their traces' events give the ops
    const JobReport* job = nullptr;  // the cross-rank analysis when the side is one job
    std::optional<int> worldSize;    // cards the run used when known (else from the traces)
    std::vector<std::string> errors; // ranks that could not be loaded or analysed
    // The ranks are rank summaries (ringscope.ranksummary/1), not traces: steps, collectives,
    // findings and ranks are theirs, but a summary holds no per-op device time (ops).
    bool fromSummaries = false;
};

struct StepDigest {
    int step = 0;
    int samples = 0;  // ranks with device work in this step
    TimeNs sumNs = 0; // busy windows summed over those ranks
    TimeNs meanNs() const { return samples > 0 ? sumNs / samples : 0; }
};

struct CollectiveDigest {
    CollectiveKind kind = CollectiveKind::Other;
    std::string pattern;
    int count = 0;            // instances over every rank
    TimeNs sumNs = 0;         // their durations summed
    TimeNs extraMemcpyNs = 0; // extra internal memcpy (above the group's baseline), summed
    int anomalous = 0;
    TimeNs meanNs() const { return count > 0 ? sumNs / count : 0; }
    // What the op does whatever the producer calls it, to match groups across producers
    // (HCCL's hcom_allReduce__#_#_# is NCCL's ncclKernel_AllReduce_...): the ranks in its
    // communication group and its payload, the most common among the instances (0: unknown),
    // and the position of its first instance in its rank's sequence of collectives.
    int groupSize = 0;
    std::uint64_t bytes = 0;
    int order = 0;
};

// Findings with the same key are the same problem; count says how many instances (one per
// anomalous op, per step...) the run has.
struct FindingDigest {
    std::string rule;
    Severity severity = Severity::Info;
    std::string title;       // of the first instance, for people; never matched on
    std::optional<int> rank; // the subject rank (for a job finding: the delaying / slow rank)
    std::vector<int> ranks;  // ranks involved (job findings)
    std::optional<CollectiveKind> kind; // the subject collective, when the finding has one
    std::string pattern;
    int count = 0;
    std::string key() const; // "rule|rank|kind|pattern"
};

struct OpDigest {
    std::string name; // as in the trace; a collective's op under its pattern
    TimeNs ns = 0;    // total device time over every rank
    std::uint64_t count = 0;
};

struct RunDigest {
    std::string path;
    std::string producer;             // "torch_npu", "kineto", "other", or "mixed"
    std::vector<int> rankIds;         // ranks found, sorted
    std::optional<int> worldSize;     // declared by the run (distributedInfo / profiler metadata)
    int cards = 0;                    // worldSize, else the ranks found
    std::vector<StepDigest> steps;    // by step number
    int stepSamples = 0;              // (rank, step) pairs with device work
    std::optional<TimeNs> stepMeanNs; // mean step time over them; none without steps
    std::vector<CollectiveDigest> collectives; // by kind, then pattern
    std::vector<FindingDigest> findings;       // by key
    std::vector<OpDigest> ops;                 // by name
    std::size_t collectiveCount = 0;
    std::size_t anomalousCount = 0;
    std::size_t findingCount = 0; // findings of every rank and the job (instances)
    TimeNs extraMemcpyNs = 0;
    TimeNs deviceNs = 0; // sum of ops
    std::vector<std::string> errors;
    bool fromSummaries = false; // digested from rank summaries: ops and deviceNs unknown
    bool opsAvailable() const { return !fromSummaries; }
    // Some collective carries HCCL's per-task time info (transit / wait / synchronization):
    // the rules built on it (sync-dominated, small-packets, unexpected-transport) can fire.
    bool commTimeInfo = false;
};

// The op name without its argument list and with digit runs as '#'.
std::string collectivePattern(std::string_view name);

// Cards a run declares: Kineto's distributedInfo.world_size in any rank's metadata, else
// torch_npu's profiler_metadata.json (or profiler_info_N.json) next to a rank's
// ASCEND_PROFILER_OUTPUT: "distributed_args": {"world_size"}, a top-level "world_size", or the
// highest global rank of "parallel_group_info" plus one. Reads a few small files per rank, and
// stops at the first rank that says.
std::optional<int> worldSizeOf(const std::vector<TracePtr>& rankTraces);

// Reduces a run to its digest. Reads the reports and, for ops, the events of their traces
// (each distinct trace once, so reports that share a merged job trace are fine; a shell trace
// without events contributes no ops). O(events + collectives + findings). A side of rank
// summaries (fromSummaries) has no ops: its rank, producer and world size come from the
// facts its summaries recorded, and a finding's collective from its evidence's time.
RunDigest digestRun(const RunSide& side);

} // namespace rs
