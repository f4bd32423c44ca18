#pragma once

// The analysis contract between core (which fills it) and the viewer, the command line and
// the plots (which read it). Fields may be added; none is renamed or removed.

#include "core/trace.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rs {

enum class CollectiveKind : std::uint8_t {
    AllReduce,
    AllGather,
    ReduceScatter,
    Broadcast,
    Reduce,
    AllToAll,
    Send,
    Recv,
    Barrier,
    Other
};
const char* collectiveKindName(CollectiveKind k); // "AllReduce", ...

// One memcpy (or transfer task) that runs inside a collective.
struct InternalCopy {
    EventId event = kNone;
    TimeNs start = 0, dur = 0;
    std::uint64_t bytes = 0;       // 0 when unknown
    std::string transport;         // SDMA, RDMA, LOCAL... when given
    std::string link;              // HCCS, PCIE, ON_CHIP, ROCE... when given
    bool unalignedSize = false;    // size not a multiple of the size boundary (rule applies)
    bool unalignedAddress = false; // an address not a multiple of the address boundary
    std::uint64_t address = 0;     // the first such address (0 when aligned or unknown)
    bool extra = false;            // above the signature group's baseline: the anomaly's copy
    // Within the rank's own memory (source rank = destination rank: the communication
    // matrix's self link), not to a peer. Viewer only: not in the JSON nor the summaries.
    bool local = false;
};

// Bytes moved and time spent by a collective's transfers over one transport, as
// communication.json's "Communication Bandwidth Info" reports them: RDMA, HCCS, PCIE, SIO, and
// SDMA = the aggregate of HCCS + PCIE + SIO + other SDMA transfers (docs/analysis.md).
struct TransferStat {
    std::string name;
    std::uint64_t bytes = 0;
    TimeNs ns = 0; // sum of transfer durations
    int tasks = 0; // transfer records (for SDMA its own records only, as torch_npu counts)
    double gbps() const { return ns > 0 ? double(bytes) / double(ns) : NAN; }
    double largePacketRatio = NAN; // records above the transport's large-packet size; NaN: SDMA
    double peakGbps = NAN;         // the link's reference peak (AnalysisOptions::linkPeaks)
    double utilization = NAN;      // gbps() / peakGbps
};

// Where an HCCL op's time went, as communication.json's "Communication Time Info": computed on
// the op's master plane (docs/analysis.md). Ratios are fractions rounded to 4 decimals.
struct CommTimeInfo {
    TimeNs elapseNs = 0;          // the op's span
    TimeNs transitNs = 0;         // moving data (SDMA copies off the chip, RDMA transfers)
    TimeNs waitNs = 0;            // Notify_Wait
    TimeNs synchronizationNs = 0; // Notify_Wait before the first transfer
    TimeNs idleNs = 0;            // elapse - transit - wait
    // Of the idle time, the part an internal Memcpy of the op runs in (any plane): the
    // viewer's "internal memcpy" segment (docs/comm-health.md). Not in the report's JSON nor
    // the rank summaries (communication.json has no such figure): 0 in a report read back.
    TimeNs memcpyNs = 0;
    double waitRatio = 0; // wait / (wait + transit)
    double synchronizationRatio = 0;
    int masterPlane = -1; // the plane number the figures come from
};

// How far a collective call had got when a flight recorder (PyTorch's Flight Recorder) wrote it
// down; None for a profiled op, which ran (its span is what the device did).
enum class CallState : std::uint8_t { None, Scheduled, Started, Completed, Unknown };
// "", "scheduled", "started", "completed", "unknown" (as the Flight Recorder writes them).
const char* callStateName(CallState s);
CallState callStateFromName(const std::string& s); // "" -> None, an unknown name -> Unknown

// Tensor shapes, one per tensor ([[2048, 5120]]).
using Shapes = std::vector<std::vector<std::int64_t>>;

// A process group as a rank's trace describes it (the Flight Recorder's pg_config and
// pg_status): its members, and how far this rank had got in its collectives by sequence number
// where the trace says (none: not recorded).
struct CommGroup {
    std::string name;       // as the trace writes it ("72")
    std::string desc;       // "EXPERT_MODEL_PARALLEL_GROUP" ("" when not written)
    std::vector<int> ranks; // global ranks, sorted
    std::optional<std::int64_t> lastEnqueued, lastStarted, lastCompleted;
};

// The link a Kineto collective's bus bandwidth is compared with (no per-link tasks there).
struct LinkAssumption {
    std::string name;         // "NVLink", "xGMI", "PCIe", "InfiniBand/RoCE"
    double peakGbps = NAN;    // GB/s per direction per GPU
    double utilization = NAN; // busbw / peakGbps
    std::string basis;        // why this link: "intra-node: ranks 0-7 on one node of 8 GPUs"
};

// One link of communication_matrix.json (per rank, step, op group and src-dst pair).
struct MatrixEntry {
    std::optional<int> rank;
    std::optional<int> step;
    std::string opGroup;   // "allreduce-top1" ... "allreduce-total"
    std::string group;     // the op's communication group as the trace names it
    int src = 0, dst = 0;  // ranks within the group
    std::string transport; // HCCS, PCIE, RDMA, SIO, LOCAL
    std::uint64_t bytes = 0;
    TimeNs ns = 0;
    double gbps = NAN;
    std::optional<std::string> opName; // none for *-total
    std::vector<EventId> tasks;        // the transfer tasks behind it (not in the JSON)
};

struct Collective {
    EventId event = kNone;     // the op: HCCL hcom op, or the Kineto device kernel (else host op)
    EventId hostEvent = kNone; // launching / enclosing host op when known
    std::optional<int> rank;
    CollectiveKind kind = CollectiveKind::Other;
    std::string name;      // as in the trace
    std::string group;     // process group / HCCL group when known
    std::string algorithm; // alg_type, or from the kernel name (RING_LL...)
    std::string dtype;
    std::uint64_t count = 0;          // elements, 0 when unknown
    std::uint64_t bytes = 0;          // payload bytes, 0 when unknown
    int groupSize = 0;                // ranks in the group, 0 when unknown
    TimeNs start = 0, dur = 0;        // device span, ns
    std::vector<EventId> tasks;       // internal device tasks (HCCL Plane tasks), time-contained
    std::vector<InternalCopy> copies; // internal memcpy
    int memcpyCount = 0;
    TimeNs memcpyNs = 0;
    std::uint64_t memcpyBytes = 0;
    int unalignedCount = 0;
    TimeNs waitNs = 0;           // Notify_Wait time inside
    std::uint32_t signature = 0; // index into AnalysisReport::signatures
    std::optional<int> mode;     // duration mode within the signature, 0 = fastest; none with one
    bool anomalous = false;      // extra internal memcpy explains at least half of the extra time
    bool waiting = false;   // slow because it waited for a peer (long Notify_Wait, no extra copy)
    std::string verdict;    // one sentence a training engineer can paste into a ticket
    double algbwGbps = NAN; // NaN when bytes unknown
    double busbwGbps = NAN;
    std::optional<int> step;              // ProfilerStep number it belongs to
    std::vector<TransferStat> transfers;  // per link / transport (HCCL tasks)
    TimeNs extraMemcpyNs = 0;             // internal memcpy above the signature's baseline
    std::optional<CommTimeInfo> timeInfo; // HCCL ops with tasks
    std::optional<LinkAssumption> link;   // Kineto collectives with a bus bandwidth
    // A call as recorded with its group's sequence number (the Flight Recorder's entries; a
    // profiled op whose trace carries NCCL's number): the job matches calls across ranks by
    // (group, seq) and checks them (collective-missing, collective-mismatch). A recorded call's
    // span is from when the host enqueued it to when it was seen completed (or to the dump).
    std::optional<std::int64_t> seq; // the same on every member: one call (send/recv: its p2p seq)
    CallState state = CallState::None; // None: a profiled op
    std::string groupDesc;             // the group's description ("EXPERT_MODEL_PARALLEL_GROUP")
    std::vector<int> groupRanks;       // the group's members (global ranks), sorted
    Shapes inputSizes, outputSizes;
    std::vector<std::string> inputDtypes, outputDtypes; // "BFloat16"
    std::optional<std::int64_t> timeoutMs;              // the watchdog's timeout of the call
    bool recorded() const { return state != CallState::None; }
};

struct DurationMode {
    TimeNs meanNs = 0;
    TimeNs minNs = 0, maxNs = 0;
    int members = 0;
    int withExtraCopy = 0;
};

// Collectives of one signature: kind, group, size, algorithm, name pattern.
struct SignatureGroup {
    std::string label;                  // "AllReduce · group 0 · 4,194,304 × FP32 · MESH-RING"
    std::vector<std::uint32_t> members; // indices into AnalysisReport::collectives
    std::vector<DurationMode> modes;    // sorted fastest first
    TimeNs baselineMemcpyNs = 0;        // lowest memcpy level in the group
    std::string summary; // "mode B = 2.0x mode A; every mode-B op has one extra Memcpy..."
};

struct StepStats {
    int step = 0; // N of ProfilerStep#N
    std::optional<int> rank;
    EventId event = kNone;     // the ProfilerStep slice
    TimeNs start = 0, end = 0; // host span of the step
    TimeNs computing = 0;
    TimeNs communication = 0;
    TimeNs overlapped = 0;
    TimeNs communicationNotOverlapped = 0;
    TimeNs free = 0;
    TimeNs busyStart = 0, busyEnd = 0; // device busy window
    TimeNs internalMemcpy = 0;         // time in internal memcpy of collectives in this step
};

// ---- The critical path (docs/analysis.md "Critical path"): what a step waited on, from its
// first to its last nanosecond, across ranks.

enum class PathKind : std::uint8_t {
    Compute,        // a kernel
    Collective,     // a collective's exchange once every rank is ready
    InternalMemcpy, // a collective's extra internal copy before it could exchange
    Copy,           // a copy or set on a device stream
    Launch,         // the host's launch call, and the time until its work started
    Host,           // the host had not launched the next work yet
    Idle            // nothing explains the gap
};
inline constexpr int kPathKinds = 7;
const char* pathKindName(PathKind k);            // "compute", "collective", "internal_memcpy", ...
PathKind pathKindFromName(const std::string& s); // an unknown name reads as Idle

struct PathSegment {
    std::optional<int> rank; // the rank whose trace `event` is in (set by the walk)
    PathKind kind = PathKind::Idle;
    std::string name;
    TimeNs start = 0, end = 0;
    EventId event = kNone; // kNone for a gap
};

// One rank's walk back from a point to the first collective it meets or to its floor: the
// pieces the job's walk joins (rank summaries carry them, so `merge` walks the same path).
struct PathPiece {
    int step = 0;                      // from the end of this step (when collective < 0)
    std::int64_t collective = -1;      // ... or from the start of this collective (its index)
    TimeNs from = 0;                   // where the walk started
    TimeNs to = 0;                     // where it stopped (to <= from)
    TimeNs floor = 0;                  // how far it could go: the step's start
    std::int64_t reaches = -1;         // the collective whose span holds `to`; -1: stopped at floor
    std::vector<PathSegment> segments; // ascending, covering [to, from]
};

// The critical path of one step: contiguous segments covering [start, end].
struct StepPath {
    int step = 0;
    TimeNs start = 0, end = 0;
    std::vector<PathSegment> segments;
    std::array<TimeNs, kPathKinds> byKind{}; // ns per PathKind, summing to end - start
};

enum class Severity : std::uint8_t { Info, Warning, Error };
const char* severityName(Severity s); // "info", "warning", "error"

// One line of a call-stack chain, innermost first.
struct StackEntry {
    std::string text;      // frame or event name
    EventId event = kNone; // the slice it stands for, when it is one
    std::string kind;      // "slice", "host op", "python", "call stack", "stack frame", "flow"
};

// A value the members of one collective disagree on, and the ranks that had it
// (collective-mismatch on profiled collectives).
struct SeenValue {
    std::string value;      // "AllReduce", "33554432", "FP32"
    std::vector<int> ranks; // sorted
};

struct Finding {
    std::string rule; // stable id, e.g. "collective-internal-memcpy"
    Severity severity = Severity::Warning;
    std::string title;
    std::optional<int> rank;
    std::vector<EventId> events;   // evidence; first is the main one
    std::vector<StackEntry> stack; // chain of the main event (of its collective for a task)
    std::string recommendation;
    TimeNs start = 0, end = 0; // evidence span, for zooming
    // Job-level findings (several ranks): rank stays empty, ranks lists those involved and
    // eventsRank says whose trace `events` refer to.
    std::vector<int> ranks;
    std::optional<int> eventsRank;
    std::optional<int> step; // job findings about one collective: its step
    // Job findings about one collective call matched by sequence number (collective-missing,
    // collective-mismatch): its process group, op, sizes and who entered it.
    std::string group, groupDesc;    // the group's name as the trace writes it, its description
    std::string op;                  // as recorded ("nccl:all_to_all"; mismatch: most members')
    std::optional<std::int64_t> seq; // the call's sequence number in its group
    Shapes sizes;                    // input sizes (of the lowest waiting or matching rank)
    std::vector<std::string> dtypes;
    std::vector<int> missingRanks;  // members that did not enter it (sorted)
    std::vector<int> waitingRanks;  // members that entered it and waited (sorted)
    std::vector<int> emptyRanks;    // of the missing: a record with no calls (an empty dump)
    std::vector<int> absentRanks;   // of the missing: no record at all (no dump)
    std::optional<TimeNs> waitedNs; // how long the waiting members had waited at the dump
    std::string mismatch;           // collective-mismatch: "op", "size", "count" or "dtype"
    std::vector<int> matchingRanks; // collective-mismatch: members that called what most did
    // Profiled collectives matched by order (collective-mismatch, collective-end-spread): the
    // collective's place among its group's collectives of the step, and each value seen.
    std::optional<int> index;
    std::vector<SeenValue> seen;
    // Internal-memcpy findings: the step time saved if that copy were gone, read off the step's
    // critical path (criticalpath.h, copyGain); none when the step has no path.
    std::optional<TimeNs> gainNs;
};

// Marks the viewer draws per event.
enum EventMark : std::uint8_t {
    kMarkCollective = 1 << 0,
    kMarkHasInternalMemcpy = 1 << 1, // collective with internal memcpy
    kMarkAnomalous = 1 << 2,         // collective whose extra memcpy explains its extra time
    kMarkInternalMemcpy = 1 << 3,    // a memcpy task inside a collective
    kMarkExtraMemcpy = 1 << 4,       // the internal memcpy above the baseline
    kMarkUnaligned = 1 << 5,         // transfer size or address not aligned
    kMarkWaiting = 1 << 6,           // long wait for a slow peer
};

struct AnalysisOptions {
    std::uint64_t sizeAlign = 512; // bytes, msprof-analyze's byte-alignment rule
    std::uint64_t addrAlign = 128; // bytes, HCCL's address requirement from the case
    // Link peaks in GB/s by name (HCCS, RDMA, PCIE, SIO, NVLink, xGMI, PCIe, InfiniBand/RoCE),
    // over the defaults (defaultLinkPeak): `--link-peak NAME=GBPS`, the viewer's settings.
    std::map<std::string, double> linkPeaks;
    // Compute the critical-path pieces (not in the report's options: bench_analyze measures
    // what they cost by turning them off).
    bool criticalPath = true;
};

// The reference peak of a link in GB/s: the options' value, else Ascend's defaults (HCCS 18,
// RDMA 12.5, PCIE 20: msprof's chip v2.1.0 standard bandwidths), else NaN.
double linkPeak(const AnalysisOptions& o, const std::string& name);

// One event a report names (a collective's op, a finding's evidence), as the JSON report
// prints it.
struct EventFacts {
    EventId id = kNone;
    std::string name;
    TimeNs start = 0, dur = 0;
};

// What the reports and the job analysis read of a trace. A report read back from a rank summary
// (ringscope.ranksummary/1, core/job/ranksummary.h) has no trace and carries these instead, so
// the job report is the same with or without the traces.
struct TraceFacts {
    std::string path;
    std::optional<int> rank;
    std::string producer = "other";    // Producer::name() of who wrote it ("torch_npu")
    std::uint64_t events = 0;          // LoadStats::events
    std::vector<std::string> warnings; // the load's warnings
    std::optional<TimeNs> baseTimeNs;  // Kineto's baseTimeNanoseconds: the job's shared clock
    TimeNs startNs = 0, endNs = 0;
    std::vector<EventFacts> slices;            // sorted by id: the events the report names
    const EventFacts* slice(EventId id) const; // nullptr when not named
};

struct AnalysisReport {
    TracePtr trace;
    std::shared_ptr<const TraceFacts> facts; // set instead of trace for a report from a summary
    AnalysisOptions options;
    std::vector<Collective> collectives; // sorted by start
    std::vector<SignatureGroup> signatures;
    std::vector<StepStats> steps;  // sorted by step
    std::vector<Finding> findings; // most severe first
    // Args the analysis read that had a JSON type that cannot mean the value (a "count" that is
    // an object): counted and skipped, never thrown. warnings says which keys.
    std::uint64_t badFields = 0;
    std::vector<std::string> warnings;
    std::vector<MatrixEntry> matrix; // communication_matrix.json flattened (HCCL)
    // The rank's critical-path pieces: one from each step's end, one from each collective's
    // start (core/analysis/criticalpath.h); the report's path and the job's are walked on them.
    std::vector<PathPiece> pathPieces;
    std::vector<CommGroup> groups; // the process groups the trace describes (Flight Recorder)

    // Marks of an event (0 when none); sorted lookup.
    std::uint8_t marks(EventId e) const;
    // Collective whose op is e, or which contains task e; nullptr when none.
    const Collective* collectiveOf(EventId e) const;
    std::vector<std::pair<EventId, std::uint8_t>> markIndex;        // sorted by EventId
    std::vector<std::pair<EventId, std::uint32_t>> collectiveIndex; // op or task -> collective
};

using ReportPtr = std::shared_ptr<const AnalysisReport>;

// The facts of a report's trace: from the trace when it is loaded (slices: every event its
// collectives and findings name), else those it was read with; empty when it has neither.
TraceFacts traceFacts(const AnalysisReport& r);
// The cheap ones, without building the event table.
std::optional<int> reportRank(const AnalysisReport& r);
std::optional<TimeNs> reportBaseTimeNs(const AnalysisReport& r);
std::string reportProducerName(const AnalysisReport& r);

} // namespace rs
