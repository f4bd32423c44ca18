#pragma once

// What a job's Flight Recorder dumps say about a hang: pure functions over the dumps, no model,
// no threads. The rules are the job's (core/job/collectivecalls.h: collective-missing,
// collective-mismatch, with PyTorch's definitions and this project's refinements), fed here from
// the dumps as the job's cross-rank match feeds them from the ranks' reports; both give the
// same findings (tests/tst_frproducer.cpp). Added here: `info` (ranks, groups, entries, states)
// and the rank rules of a dump (a dump without a rank is left out, a rank twice too).

#include "core/analysis/report.h"
#include "core/job/collectivecalls.h"
#include "core/producers/flightrecorder/dump.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rs::flightrecorder {

// An entry of one rank's dump: (rank, index into its Dump::entries).
using EntryRef = CallRef;

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

struct JobInfo {
    std::vector<RankInfo> ranks;   // by rank, absent ones too
    std::vector<GroupInfo> groups; // by description, then name
    std::size_t entries = 0;
    std::map<std::string, std::size_t> states;
    std::vector<std::string> versions; // distinct, as written
    std::vector<int> absentRanks, emptyRanks;
};

struct Diagnosis {
    JobInfo info;
    std::vector<MissingCollective> missing;       // by sinceNs: the first is the root
    std::vector<MismatchedCollective> mismatches; // by startNs
    std::vector<std::string> warnings; // dumps left out (no rank, a rank twice), groups that
                                       // disagree, entries naming a group their rank lacks
};

using DiagnosisOptions = CallCheckOptions;

// What the rules read of one dump (its rank set): its groups (pg_config, with pg_status where
// its entries map a pg_id to a group), its entries in order, and when it was written
// (dumpTime).
RankCalls rankCalls(const Dump& dump);

// The job is `dumps` (a rank each: Dump::rank; dumps without one are left out with a warning)
// plus the members of their groups that have no dump (absent).
Diagnosis diagnose(const std::vector<Dump>& dumps, const DiagnosisOptions& options = {});

} // namespace rs::flightrecorder
