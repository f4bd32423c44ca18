#pragma once

// Cross-rank view of a job: the same collective instance on every rank, who arrived late,
// who waited, and job-level findings (the rank whose internal memcpy delays everyone).

#include "core/analysis/report.h"

#include <optional>
#include <string>
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
    int index = 0; // order of this instance among the job's (kind, group) collectives
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
    std::vector<ReportPtr> ranks; // one per loaded trace, sorted by rank
    std::vector<int> rankIds;     // rank number of each report
    std::vector<TimeNs> offsets;  // per report, added to its times to reach the job clock
    std::vector<CrossRankCollective> collectives;
    std::vector<Finding> findings; // job level: rank empty, ranks set
};

struct JobOptions {
    TimeNs minDelayNs = 1'000'000; // a delay below this is noise
    double minDelayShare = 0.1;    // ... or below this share of the signature's fast-mode duration
};

// Offsets that put every rank on one clock: Kineto's baseTimeNanoseconds when ranks carry it
// (their ts are relative to it), else zero (torch_npu ts are absolute already).
std::vector<TimeNs> sharedClockOffsets(const std::vector<ReportPtr>& reports);
// Offsets that make one instance end at the same time on every rank (collectives complete
// together), keeping the first rank where it is.
std::vector<TimeNs> alignOnCollective(const JobReport& job, std::size_t instance);

// Matches collectives across ranks by order within (kind, group) and judges each instance.
JobReport analyzeJob(const std::vector<ReportPtr>& reports, std::vector<TimeNs> offsets = {},
                     const JobOptions& options = {});

} // namespace rs
