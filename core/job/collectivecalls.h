#pragma once

// Collective calls matched across a job's ranks by their process group's sequence number, and
// the two rules that read them: collective-missing (the ranks everyone waited for) and
// collective-mismatch (members that called another op, size or dtype at the same number).
// Pure functions over what each rank recorded (RankCalls), no model, no threads: the job's
// cross-rank match (crossrank.cpp) feeds them from the ranks' reports (Collective::seq, state,
// sizes, dtypes, AnalysisReport::groups), so they run alike from traces and rank summaries, and
// the Flight Recorder's diagnosis (core/producers/flightrecorder/diagnosis.h) from its dumps.
//
// The definitions are PyTorch's (torch/distributed/flight_recorder/components: builder.py's
// build_groups_memberships and build_collectives, utils.py's check_current_entry_match and
// error_analysis, types.py's Op.match), with the refinements docs/trace-formats.md lists
// ("Flight Recorder dumps: the diagnosis"):
// - A process group is its name and its members (PyTorch's pg_guid: split_group can reuse a
//   name). One call of a collective is (group, seq): the same number on every member.
//   Point-to-point ops (send, recv) are not collectives and are not checked.
// - A member entered a call when it recorded it, or a later number of that group, or its
//   group's status says it enqueued that far (a rank's record holds only what its ring buffer
//   kept). A call that completed on some member (its record, or a status's last completed
//   number) is not where the group stopped: no member is counted missing from it.
// - collective-missing: for each rank that a call's members waited for (they entered it and it
//   had not completed on them) and that did not enter it, the first such call by creation time;
//   ranks with the same first missing call are one finding. A member without a record (no dump)
//   is counted as missing, and said to be absent.
// - collective-mismatch: the members of one call that called another op, or other sizes or
//   dtypes, than most members did (Op.match's type, size and dtype rules; all_to_all by its
//   total input and output elements when every member's call is there).

#include "core/analysis/report.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rs {

// One call as a rank recorded it.
struct RankCall {
    std::string group;           // the process group's name as written ("72")
    std::string groupDesc;       // "EXPERT_MODEL_PARALLEL_GROUP" ("" when not written)
    std::vector<int> groupRanks; // its members; empty: the rank's group of that name says
    std::int64_t seq = 0;        // the group's sequence number (send/recv: their own)
    bool p2p = false;            // send, recv: not matched
    std::string op;              // as recorded ("nccl:all_to_all")
    CallState state = CallState::Unknown;
    bool completed = false; // seen completed
    TimeNs createdNs = 0;   // when the host enqueued it
    TimeNs lastNs = 0;      // the latest time it records (seen completed, started, created)
    Shapes inputSizes, outputSizes;
    std::vector<std::string> inputDtypes, outputDtypes;
    std::optional<std::int64_t> timeoutMs;
};

// What one rank recorded: its process groups (with how far it got in each) and its calls.
struct RankCalls {
    int rank = -1;
    std::string name;              // for messages (its file)
    std::vector<CommGroup> groups; // the groups it is a member of
    std::vector<RankCall> calls;
    // When it wrote its record (a dump's time, estimated by its reader); none: its latest
    // record stands for it.
    std::optional<TimeNs> dumpNs;
    bool empty() const { return calls.empty(); }
};

// A call of one rank: (rank, index into its RankCalls::calls).
struct CallRef {
    int rank = -1;
    std::size_t index = 0;
};

// A process group (name and members) as the job's ranks describe it.
struct GroupInfo {
    std::string name, desc;
    std::vector<int> ranks;                        // members, sorted
    std::vector<int> ranksWithEntries;             // members that recorded calls of it
    std::size_t entries = 0;                       // calls recorded, over every rank
    std::optional<std::int64_t> firstSeq, lastSeq; // sequence numbers of its collectives
    std::string label() const; // "EXPERT_MODEL_PARALLEL_GROUP 72" ("group 72" with no desc)
};

// A rank's last recorded call, to say what a missing rank was doing.
struct LastCall {
    int rank = -1;
    CallRef entry;
    std::string op, group, groupDesc; // as recorded; the group's name and description
    std::int64_t seq = 0;
    CallState state = CallState::Unknown;
    TimeNs createdNs = 0;
};

// rule collective-missing.
struct MissingCollective {
    static constexpr const char* kRule = "collective-missing";
    Severity severity = Severity::Error;
    std::string title;          // "Ranks 9 and 14 never entered all_to_all #44791 of ..."
    std::string recommendation; // what to look at on the missing ranks
    std::string group;          // the group's name as written ("72")
    std::string groupDesc;      // "EXPERT_MODEL_PARALLEL_GROUP"
    std::string op;             // as recorded ("nccl:all_to_all")
    std::int64_t seq = 0;
    Shapes sizes;                     // input sizes (the lowest waiting rank's)
    std::vector<std::string> dtypes;  // its input dtypes
    std::vector<int> groupRanks;      // the members
    std::vector<int> missingRanks;    // sorted
    std::vector<int> waitingRanks;    // entered, not completed at the dump; sorted
    std::vector<int> emptyDumpRanks;  // of the missing: a record without calls
    std::vector<int> absentDumpRanks; // of the missing: no record at all
    TimeNs sinceNs = 0;               // the first member entered (earliest creation)
    // How long the waiting members had waited when they dumped: from sinceNs to the earliest
    // dump of a waiting member (RankCalls::dumpNs).
    TimeNs waitedNs = 0;
    std::optional<std::int64_t> timeoutMs; // the calls' watchdog timeout (the largest)
    std::vector<CallRef> waiting;          // the waiting members' calls, by rank
    std::vector<LastCall> lastCalls;       // each missing rank's last call (if it has one)
    std::vector<int> ranks() const;        // missing, then waiting (report's Finding::ranks)
};

// A member's call that differs from the others'.
struct MismatchedCall {
    int rank = -1;
    CallRef entry;
    std::string op;
    Shapes inputSizes, outputSizes;
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
    Shapes inputSizes, outputSizes;
    std::vector<std::string> inputDtypes, outputDtypes;
    std::vector<int> matchingRanks;    // sorted
    std::vector<MismatchedCall> calls; // by rank; every member for an all_to_all's totals
    std::vector<CallRef> entries;      // every member's call, by rank
    TimeNs startNs = 0;                // earliest creation of the call
    std::vector<int> ranks() const;    // the mismatched members
};

struct CallCheck {
    std::vector<GroupInfo> groups;                // every group of the job, unsorted
    std::vector<MissingCollective> missing;       // by sinceNs: the first is the root
    std::vector<MismatchedCollective> mismatches; // by startNs
    // Ranks left out (a rank twice), groups that disagree, calls naming a group their rank
    // lacks, findings left out past the limit.
    std::vector<std::string> warnings;
};

struct CallCheckOptions {
    std::size_t maxMismatches = 100; // findings of collective-mismatch kept (the rest counted)
};

// Ranks for a title, with ranges: {1, 2, 3, 5} -> "1-3, 5".
std::string rankList(const std::vector<int>& ranks);

// The op of a call as recorded, without the backend and the peers: "nccl:send 0->1" -> "send".
std::string callOpName(std::string_view recorded);

// The job is `ranks` plus the members of their groups that have no record (absent).
CallCheck checkCalls(const std::vector<RankCalls>& ranks, const CallCheckOptions& options = {});

// The report's findings (rule, severity, title, recommendation, ranks, time and the fields of
// the call: group, op, seq, sizes, dtypes, missing and waiting ranks...); their events are the
// caller's to fill (the calls' slices).
Finding toFinding(const MissingCollective& m);
Finding toFinding(const MismatchedCollective& m);

} // namespace rs
