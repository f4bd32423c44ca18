#pragma once

// One PyTorch Flight Recorder dump: what a rank's NCCL process groups had enqueued when the
// watchdog fired (TORCH_NCCL_TRACE_BUFFER_SIZE, TORCH_NCCL_DUMP_ON_TIMEOUT=1: one file per rank,
// `<TORCH_NCCL_DEBUG_INFO_TEMP_FILE><rank>`). PyTorch writes it as a pickle (read data-only by
// pickle.h) or, from its JSON handler, as JSON; both give the same Dump.
//
// Tolerant of other versions of the format (1.x to 2.10 are written by PyTorch's
// torch/csrc/distributed/c10d/FlightRecorder): keys it does not know are ignored, optional keys
// may be missing, `seq_id` (1.x) stands for `collective_seq_id`, `comm_lib_version` (2.10) for
// `nccl_version`, 1.x's `pg_config` ({pg_id: [ranks]}) names each group by its pg_id. A value of
// the wrong type says which key: at the top level the dump is refused, in an entry the entry is
// skipped (or, for an optional key, the key) with a warning.

#include "core/analysis/report.h"
#include "core/producers/flightrecorder/pickle.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rs::flightrecorder {

struct Frame {
    std::string name, filename;
    std::int64_t line = 0;
};

// An entry's state: scheduled, started, completed (unknown: not one of them).
using EntryState = CallState;
const char* entryStateName(EntryState s); // "scheduled", "started", "completed", "unknown"

// One collective (or point-to-point op) the rank enqueued.
struct Entry {
    std::int64_t recordId = -1;       // place in this rank's ring buffer (per process, not global)
    std::int64_t pgId = -1;           // ProcessGroupNCCL's uid on this rank (keys pg_status)
    std::string groupName;            // process_group[0]: the pg_config key ("72")
    std::string groupDesc;            // process_group[1]: "EXPERT_MODEL_PARALLEL_GROUP"
    std::int64_t collectiveSeqId = 0; // per group: the same number on every member is one call
    std::int64_t p2pSeqId = 0;
    std::int64_t opId = -1;
    std::string profilingName; // "nccl:all_to_all", "nccl:send 0->1"
    std::int64_t timeCreatedNs = 0;
    std::vector<std::vector<std::int64_t>> inputSizes, outputSizes; // one shape per tensor
    std::vector<std::string> inputDtypes, outputDtypes;             // "BFloat16"
    EntryState state = EntryState::Unknown;
    std::optional<std::int64_t> timeDiscoveredStartedNs, timeDiscoveredCompletedNs;
    std::optional<bool> retired;
    std::optional<std::int64_t> timeoutMs;
    std::optional<bool> isP2p; // absent before 2.x: then read from the name (send, recv)
    std::optional<double> durationMs;
    std::string threadId, threadName;
    std::vector<Frame> frames; // the Python stack of the call, innermost first, where dumped

    // The op without the backend and the peers: "all_to_all", "send".
    std::string op() const;
    bool p2p() const; // is_p2p, else a send or recv by name
    // Seen completed: its state, or a completion time.
    bool completed() const
    {
        return state == EntryState::Completed || timeDiscoveredCompletedNs.has_value();
    }
    // The latest time it records (created, seen started, seen completed).
    std::int64_t lastRecord() const;
};

// The op of a profiling name without the backend and the peers: "nccl:send 0->1" -> "send".
std::string opName(std::string_view profilingName);

// A process group as one rank's pg_config writes it.
struct GroupConfig {
    std::string name;       // the key ("72"; 1.x: the pg_id)
    std::string desc;       // "EXPERT_MODEL_PARALLEL_GROUP" ("" when not written)
    std::vector<int> ranks; // global ranks, as written
};

// pg_status: the last sequence numbers of one group on this rank (-1: none).
struct GroupStatus {
    std::int64_t lastEnqueued = -1, lastStarted = -1, lastCompleted = -1;
};

enum class RankSource : std::uint8_t { None, FileName, Membership };
const char* rankSourceName(RankSource s); // "none", "file name", "process groups"

struct Dump {
    std::string path;
    std::string format;                         // "pickle" or "json"
    std::string version;                        // "2.9" ("" when not written)
    std::string ncclVersion;                    // nccl_version, or comm_lib_version (2.10)
    std::map<std::string, GroupConfig> groups;  // pg_config, by name
    std::map<std::int64_t, GroupStatus> status; // pg_status, by pg_id
    std::vector<Entry> entries;                 // in the order dumped (record order)
    std::optional<int> rank;
    RankSource rankSource = RankSource::None;
    std::vector<std::string> warnings; // what was skipped or contradicts itself, with the key

    bool empty() const { return entries.empty(); }
    // The rank the process groups' membership names: the one rank every group of this dump
    // holds (each rank's pg_config lists the groups it is a member of); none when not one.
    std::optional<int> rankFromMembership() const;
};

// When a dump was written, estimated: it records no time of its own. A dump written on a
// timeout (TORCH_NCCL_DUMP_ON_TIMEOUT) is written when the watchdog finds the first of its
// calls in flight past its timeout (time_created_ns + timeout_ms, as ProcessGroupNCCL's
// WorkNCCL::checkTimeout measures it from when the work was made), so: the earliest such
// deadline of its entries not completed, and never before its latest record. Without a
// timeout, its latest record. None for a dump without entries.
std::optional<std::int64_t> dumpTime(const Dump& dump);

// Whether a dump of this version records all_to_all's sizes (2.4 and later; PyTorch's analyzer
// does not check them before).
bool recordsAllToAllSizes(std::string_view version);

// The rank PyTorch put in the file name: the prefix is TORCH_NCCL_DEBUG_INFO_TEMP_FILE and the
// rank follows it ("_dump_3", "nccl_trace_rank_12"), so the digits that end the name (after
// a `.json`, `.pkl` or `.pickle` suffix is set aside). None when the name does not end in one.
std::optional<int> rankFromFileName(std::string_view path);

struct DumpOptions {
    PickleLimits pickle;
    std::uint64_t maxBytes = 256ull << 20; // a file (or its inflated gzip) larger is refused
    int maxJsonDepth = 64;
};

enum class DumpFormat : std::uint8_t { None, Pickle, Json };
// What the first bytes say the file could be: a pickle (PROTO 2-5) or a JSON object. A cheap
// first look; only parseDump tells a dump (a top-level dict with `pg_config` and `entries` or
// `pg_status`: PyTorch's JSON leaves `entries` out when there are none).
DumpFormat sniffDump(const char* data, std::size_t size);

struct DumpResult {
    std::optional<Dump> dump;
    bool notADump = false; // read, but not a Flight Recorder dump (another pickle or JSON)
    std::string error;     // why there is no dump, naming the file
    bool ok() const { return dump.has_value(); }
};

// Reads a dump from memory; `path` names it in messages and gives the rank by its name.
DumpResult parseDump(const char* data, std::size_t size, const std::string& path,
                     const DumpOptions& options = {});
// Reads a dump file (plain or gzip).
DumpResult readDump(const std::string& path, const DumpOptions& options = {});

} // namespace rs::flightrecorder
