#pragma once

// What a job's Flight Recorder dumps say about a hang: pure functions over the dumps, no model,
// no threads. The definitions are PyTorch's (torch/distributed/flight_recorder/components:
// builder.py's build_groups_memberships and build_collectives, utils.py's
// check_current_entry_match and error_analysis, types.py's Op.match), with the refinements
// docs/trace-formats.md lists ("Flight Recorder dumps: the diagnosis"); the results are plain
// structs in the report's vocabulary (core/analysis/report.h: rule, severity, title,
// recommendation, ranks, start/end) for the producer to turn into findings.
//
// - A process group is its name and its members (PyTorch's pg_guid: split_group can reuse a
//   name). One call of a collective is (group, collective_seq_id): the same number on every
//   member. Point-to-point ops (send, recv) are not collectives and are not diagnosed here.
// - A member entered a call when its dump has that entry, or a later sequence number of that
//   group, or its pg_status for that group says it enqueued that far: a rank's dump holds only
//   what its ring buffer kept (or, dumped with only the active entries, what had not completed).
//   A call that completed on some member (its entry, or its pg_status's last completed number)
//   is not where the group stopped: no member is counted missing from it.
// - collective-missing: for each rank that a call's members waited for (they entered it and it
//   had not completed on them at the dump) and that did not enter it, the first such call by
//   creation time; ranks with the same first missing call are one finding. A member without a
//   dump is counted as missing, and said to be absent.
// - collective-mismatch: the members of one call that called another op, or other sizes or
//   dtypes, than most members did (Op.match's type, size and dtype rules; all_to_all by its
//   total input and output elements when every member's entry is there).

#include "core/analysis/report.h"
#include "core/producers/flightrecorder/dump.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rs::flightrecorder {

// An entry of one rank's dump: (rank, index into its Dump::entries).
struct EntryRef {
    int rank = -1;
    std::size_t index = 0;
};

// One rank of a job as `info` shows it.
struct RankInfo {
    int rank = -1;
    std::string path;    // "" when absent
    bool absent = false; // a member of the job's groups without a dump
    bool empty = false;  // a dump without entries
    RankSource rankSource = RankSource::None;
    std::string version;
    std::size_t entries = 0;
    std::map<std::string, std::size_t> states; // "scheduled" -> entries
    std::optional<TimeNs> firstCreatedNs, lastCreatedNs;
    std::vector<std::string> warnings; // the dump's
};

// One process group (name and members) as the job's dumps write it.
struct GroupInfo {
    std::string name, desc;
    std::vector<int> ranks;                        // members, sorted
    std::vector<int> ranksWithEntries;             // members whose dump has entries of it
    std::size_t entries = 0;                       // over every rank
    std::optional<std::int64_t> firstSeq, lastSeq; // collective_seq_id of its collectives
    std::string label() const; // "EXPERT_MODEL_PARALLEL_GROUP 72" ("group 72" with no desc)
};

struct JobInfo {
    std::vector<RankInfo> ranks;   // by rank, absent ones too
    std::vector<GroupInfo> groups; // by label
    std::size_t entries = 0;
    std::map<std::string, std::size_t> states;
    std::vector<std::string> versions; // distinct, as written
    std::vector<int> absentRanks, emptyRanks;
};

// A rank's last recorded collective, to say what a missing rank was doing.
struct LastCall {
    int rank = -1;
    EntryRef entry;
    std::string op, group, groupDesc; // profiling name, the group's name and description
    std::int64_t seq = 0;
    EntryState state = EntryState::Unknown;
    TimeNs createdNs = 0;
};

// rule collective-missing.
struct MissingCollective {
    static constexpr const char* kRule = "collective-missing";
    Severity severity = Severity::Error;
    std::string title;          // "Ranks 9, 14 never entered all_to_all #44791 of ..."
    std::string recommendation; // what to look at on the missing ranks
    std::string group;          // the group's name as the dump writes it ("72")
    std::string groupDesc;      // "EXPERT_MODEL_PARALLEL_GROUP"
    std::string op;             // profiling name ("nccl:all_to_all")
    std::int64_t seq = 0;       // collective_seq_id
    std::vector<std::vector<std::int64_t>> sizes; // input sizes (the lowest waiting rank's)
    std::vector<std::string> dtypes;              // its input dtypes
    std::vector<int> groupRanks;                  // the members
    std::vector<int> missingRanks;                // sorted
    std::vector<int> waitingRanks;                // entered, not completed at the dump; sorted
    std::vector<int> emptyDumpRanks;              // of the missing: a dump without entries
    std::vector<int> absentDumpRanks;             // of the missing: no dump at all
    TimeNs sinceNs = 0; // the first member entered (earliest time_created_ns)
    // How long the waiting members had waited when they dumped, at least: the dumps carry no
    // time of their own, so each waiting rank's latest record stands for its dump's time.
    TimeNs waitedNs = 0;
    std::optional<std::int64_t> timeoutMs; // the calls' watchdog timeout (the largest)
    std::vector<EntryRef> waiting;         // the waiting members' entries, by rank
    std::vector<LastCall> lastCalls;       // each missing rank's last entry (if it has one)
    std::vector<int> ranks() const;        // missing, then waiting (report's Finding::ranks)
};

// A member's call that differs from the others'.
struct MismatchedCall {
    int rank = -1;
    EntryRef entry;
    std::string op;
    std::vector<std::vector<std::int64_t>> inputSizes, outputSizes;
    std::vector<std::string> inputDtypes, outputDtypes;
    std::string detail; // PyTorch's words: "Expected input sizes: ... does not match ..."
};

// rule collective-mismatch.
struct MismatchedCollective {
    static constexpr const char* kRule = "collective-mismatch";
    Severity severity = Severity::Error;
    std::string title, recommendation;
    std::string group, groupDesc;
    std::int64_t seq = 0;
    std::string kind; // "op", "size" or "dtype"
    // What most members called (the reference every other call is matched against).
    std::string op;
    std::vector<std::vector<std::int64_t>> inputSizes, outputSizes;
    std::vector<std::string> inputDtypes, outputDtypes;
    std::vector<int> matchingRanks;    // sorted
    std::vector<MismatchedCall> calls; // by rank; every member for an all_to_all's totals
    std::vector<EntryRef> entries;     // every member's entry of the call, by rank
    TimeNs startNs = 0;                // earliest time_created_ns of the call
    std::vector<int> ranks() const;    // the mismatched members
};

struct Diagnosis {
    JobInfo info;
    std::vector<MissingCollective> missing;       // by sinceNs: the first is the root
    std::vector<MismatchedCollective> mismatches; // by startNs
    std::vector<std::string> warnings; // dumps left out (no rank, a rank twice), groups that
                                       // disagree, entries naming a group their rank lacks
};

struct DiagnosisOptions {
    std::size_t maxMismatches = 100; // findings of collective-mismatch kept (the rest counted)
};

// The job is `dumps` (a rank each: Dump::rank; dumps without one are left out with a warning)
// plus the members of their groups that have no dump (absent).
Diagnosis diagnose(const std::vector<Dump>& dumps, const DiagnosisOptions& options = {});

// The generic part of a report finding (rule, severity, title, recommendation, ranks, time);
// events are the producer's to fill once entries are slices.
Finding toFinding(const MissingCollective& m);
Finding toFinding(const MismatchedCollective& m);

} // namespace rs::flightrecorder
