#pragma once

// Cross-rank view of a job: the same collective instance on every rank, who arrived late,
// who waited, and job-level findings (the rank whose internal memcpy delays everyone).

#include "core/analysis/report.h"
#include "core/job/collectivecalls.h"
#include "core/job/collectivecheck.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rs {

// One rank's part in a collective instance. Times are on the job clock (rank offset applied).
struct RankOp {
    int rank = 0;
    std::size_t report = 0;       // index into JobReport::ranks
    std::uint32_t collective = 0; // index into that report's collectives
    TimeNs start = 0, end = 0;
    TimeNs ready = 0; // start plus the extra internal memcpy: when it could start exchanging
    TimeNs extraMemcpyNs = 0;
    TimeNs waitNs = 0; // Notify_Wait inside, when the trace records it
};

struct CrossRankCollective {
    CollectiveKind kind = CollectiveKind::Other;
    std::string group;
    // Order of this instance among the job's (kind, group) collectives; for calls matched by
    // sequence number, among the group's numbered calls.
    int index = 0;
    std::optional<std::int64_t> seq; // the calls' sequence number, when matched by it
    std::string name;
    std::optional<int> step;
    std::vector<RankOp> ops;                // one per rank that has it, by rank
    TimeNs startSkew = 0;                   // latest start minus earliest start
    int slowestRank = -1, fastestRank = -1; // by duration on the rank
    // Ranks ready more than the threshold (10% of the signature's fast mode) after the ranks
    // that were on time, sorted; empty when nobody delayed the instance.
    std::vector<int> delayingRanks;
    std::optional<int> delayingRank; // of those, the rank ready last
    TimeNs delayNs = 0;              // how much later it was ready than the latest rank on time
    TimeNs waitCausedNs = 0;         // wait it caused, summed over the ranks on time
    // "internal memcpy of 200 ms", "late arrival by 12 ms", "internal memcpy of ~200 ms each"
    std::string cause;
};

struct JobReport {
    std::vector<ReportPtr> ranks; // one per loaded trace, sorted by rank (null after a slim match)
    std::vector<int> rankIds;     // rank number of each report
    std::vector<TimeNs> offsets;  // per report, added to its times to reach the job clock
    std::vector<CrossRankCollective> collectives;
    std::vector<Finding> findings; // job level: rank empty, ranks set
    // The critical path of each job step, walked on the ranks' pieces (criticalpath.h).
    std::vector<StepPath> criticalPath;
};

struct JobOptions {
    TimeNs minDelayNs = 1'000'000;  // a delay below this is noise
    double minDelayShare = 0.1;     // ... or below this share of the signature's fast-mode duration
    CallCheckOptions calls;         // collective-missing, collective-mismatch
    SequenceCheckOptions sequences; // profiled collectives: mismatch, count, end spread
};

// What the cross-rank match reads of one collective of a rank: tens of bytes, no text of its
// own (a merge of thousands of rank summaries keeps only these until the report is written).
struct JobCollective {
    TimeNs start = 0, dur = 0, extraMemcpyNs = 0, waitNs = 0;
    TimeNs fastModeNs = 0; // its signature's fastest mode (modes.front().meanNs); 0: none
    EventId event = kNone;
    std::uint32_t group = 0;                    // index into JobRank::groups
    std::uint32_t nameAt = 0, nameLength = 0;   // in JobRank::names
    std::uint32_t dtypeAt = 0, dtypeLength = 0; // in JobRank::names ("" when unknown)
    std::uint64_t count = 0;                    // elements, 0 when unknown
    std::int32_t step = 0;
    bool hasStep = false;
    CollectiveKind kind = CollectiveKind::Other;
    bool hasSeq = false;   // matched by (group, seq), not by order
    bool recorded = false; // a recorded call: enqueue to completion, no device span to judge
    std::int64_t seq = 0;
};

// One rank as the cross-rank match sees it: its declared rank, its clock and its collectives in
// its own order (AnalysisReport::collectives' order; op.collective indexes them).
struct JobRank {
    std::optional<int> rank;          // reportRank: declared by the trace or the summary
    std::optional<TimeNs> baseTimeNs; // reportBaseTimeNs
    std::vector<JobCollective> collectives;
    std::vector<std::string> groups;   // distinct groups of this rank, interned
    std::string names;                 // the collectives' names and dtypes, one after the other
    std::vector<PathPiece> pathPieces; // the report's critical-path pieces
    // What the call rules read (collective-missing, collective-mismatch): the report's process
    // groups and its recorded or numbered calls, each with the index of its collective.
    std::vector<CommGroup> commGroups;
    std::vector<RankCall> calls;
    std::vector<std::uint32_t> callCollective;

    // Appends c (fastModeNs: its signature's fast mode, 0 when none).
    void add(const Collective& c, TimeNs fastModeNs);
    std::string_view name(const JobCollective& c) const
    {
        return std::string_view(names).substr(c.nameAt, c.nameLength);
    }
    std::string_view dtype(const JobCollective& c) const
    {
        return std::string_view(names).substr(c.dtypeAt, c.dtypeLength);
    }
};

// The slim form of a report (its collectives with their signatures' fast modes).
JobRank jobRankOf(const AnalysisReport& report);

// Offsets that put every rank on one clock: Kineto's baseTimeNanoseconds when ranks carry it
// (their ts are relative to it), else zero (torch_npu ts are absolute already).
std::vector<TimeNs> sharedClockOffsets(const std::vector<ReportPtr>& reports);
std::vector<TimeNs> sharedClockOffsets(const std::vector<JobRank>& ranks);
// Offsets that make one instance end at the same time on every rank (collectives complete
// together), keeping the first rank where it is.
std::vector<TimeNs> alignOnCollective(const JobReport& job, std::size_t instance);

// Matches collectives across ranks by order within (kind, group) -- or, for calls that carry
// their group's sequence number, by (group, seq) -- and judges each instance: the delays of
// profiled ones, and the numbered calls by the call rules (collectivecalls.h: the ranks a hung
// group waited for, mismatched calls). Linear in ranks x collectives: instances are found by a
// hash of (kind, group).
JobReport analyzeJob(const std::vector<ReportPtr>& reports, std::vector<TimeNs> offsets = {},
                     const JobOptions& options = {});
// The same on the slim ranks; the result's `ranks` are null (one per rank): the caller knows
// where the reports are (ringscope merge reads them again when it writes the report).
JobReport analyzeJob(const std::vector<JobRank>& ranks, std::vector<TimeNs> offsets = {},
                     const JobOptions& options = {});

} // namespace rs
