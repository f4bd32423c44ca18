#pragma once

// The analysis contract between core (which fills it) and the viewer, the command line and
// the plots (which read it). Fields may be added; none is renamed or removed.

#include "core/trace.h"

#include <cmath>
#include <cstdint>
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
    bool extra = false;            // above the signature group's baseline: the anomaly's copy
};

// Bytes moved and time spent by a collective's transfer tasks over one link or transport
// (HCCS, PCIE, SIO, RDMA; SDMA sums the SDMA transport), as communication.json reports them.
struct TransferStat {
    std::string name;
    std::uint64_t bytes = 0;
    TimeNs ns = 0; // sum of task durations
    int tasks = 0;
    double gbps() const { return ns > 0 ? double(bytes) / double(ns) : NAN; }
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
    std::optional<int> step;             // ProfilerStep number it belongs to
    std::vector<TransferStat> transfers; // per link / transport (HCCL tasks)
    TimeNs extraMemcpyNs = 0;            // internal memcpy above the signature's baseline
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

enum class Severity : std::uint8_t { Info, Warning, Error };
const char* severityName(Severity s); // "info", "warning", "error"

// One line of a call-stack chain, innermost first.
struct StackEntry {
    std::string text;      // frame or event name
    EventId event = kNone; // the slice it stands for, when it is one
    std::string kind;      // "slice", "host op", "python", "call stack", "stack frame", "flow"
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
};

struct AnalysisReport {
    TracePtr trace;
    AnalysisOptions options;
    std::vector<Collective> collectives; // sorted by start
    std::vector<SignatureGroup> signatures;
    std::vector<StepStats> steps;  // sorted by step
    std::vector<Finding> findings; // most severe first

    // Marks of an event (0 when none); sorted lookup.
    std::uint8_t marks(EventId e) const;
    // Collective whose op is e, or which contains task e; nullptr when none.
    const Collective* collectiveOf(EventId e) const;
    std::vector<std::pair<EventId, std::uint8_t>> markIndex;        // sorted by EventId
    std::vector<std::pair<EventId, std::uint32_t>> collectiveIndex; // op or task -> collective
};

using ReportPtr = std::shared_ptr<const AnalysisReport>;

} // namespace rs
