#pragma once

// Slice statistics: the summary tables of `ringscope stats` and the viewer's Statistics pane.
// Rows are `name, count, total_ns, mean_ns, min_ns, max_ns, percent`, grouped by what the slices
// are (device kernels, host ops, collectives, steps, device memcpy), over a trace or a job, the
// whole time or a range (slices overlapping it are clipped to it), every track or a set of
// tracks (an area of the timeline). Definitions in docs/stats.md:
// - total: a slice's inclusive (wall) duration, as Perfetto's slice aggregation counts it; a
//   slice nested in another of the same group counts in both (host ops in ops);
// - percent: total / busy time in scope, busy = the union of the intervals of every slice on
//   the scope's device tracks (kernel, memcpy, collective) or host threads (op, step), summed
//   over ranks (per rank with perRank).
// Cost: linear in the slices in scope; each track's range is found by binary search.

#include "core/analysis/report.h"
#include "core/trace.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rs {

enum class StatsGroup { Kernel, Op, Collective, Step, Memcpy };
const char* statsGroupName(StatsGroup g); // "kernel", "op", "collective", "step", "memcpy"
std::optional<StatsGroup> parseStatsGroup(std::string_view name);
// Device groups take device busy time as the percent's base, host groups host busy time.
bool statsGroupOnDevice(StatsGroup g);

// One trace to aggregate, or one rank's block of a merged job trace.
struct StatsSource {
    const Trace* trace = nullptr;
    // Its collectives (event ids of `trace`); null: collectives are found by name (HCCL ops on
    // the Group threads, NCCL / RCCL kernels).
    const AnalysisReport* report = nullptr;
    std::optional<int> rank;
    TrackId trackBegin = 0, trackEnd = kNone; // tracks of this source in `trace`
};

struct StatsScope {
    std::optional<std::pair<TimeNs, TimeNs>> range; // [start, end); none: the whole trace
    // Tracks to aggregate (ids of the sources' trace, any order); none: every track.
    std::optional<std::vector<TrackId>> tracks;
};

struct StatsOptions {
    StatsGroup by = StatsGroup::Kernel;
    StatsScope scope;
    bool perRank = false; // one row per (rank, name); percent of that rank's busy time
};

struct StatsRow {
    std::string name;        // a collective: "AllReduce hcom_allReduce__#_#_#" (kind, name pattern)
    std::optional<int> rank; // with perRank
    // By memcpy: a copy inside a collective (a collective's own copy task, or one the analysis
    // found in it), listed apart from the ordinary copies of the same name.
    std::optional<bool> internal;
    std::uint64_t count = 0;
    TimeNs totalNs = 0, minNs = 0, maxNs = 0;
    double meanNs = 0;
    double percent = 0; // of busyNs (of the row's rank with perRank), 0..100 for most groups
};

struct StatsTable {
    StatsGroup by = StatsGroup::Kernel;
    bool perRank = false;
    std::optional<std::pair<TimeNs, TimeNs>> range;
    TimeNs busyNs = 0;                              // the percent's base, over every rank
    std::vector<std::pair<int, TimeNs>> rankBusyNs; // per rank (source index when it has none)
    std::vector<StatsRow> rows;                     // total_ns descending, ties by name (then rank)
};

StatsTable computeStats(std::span<const StatsSource> sources, const StatsOptions& options);
StatsTable computeStats(const Trace& trace, const AnalysisReport* report,
                        const StatsOptions& options);

// The slices behind a row (its name; with a rank, that rank's only), in time order: what the
// pane steps through. Clipped to the scope's range like the row.
struct StatsOccurrence {
    std::size_t source = 0;
    EventId event = kNone;
    TimeNs start = 0, dur = 0; // clipped
};
std::vector<StatsOccurrence> statsOccurrences(std::span<const StatsSource> sources,
                                              const StatsOptions& options, const std::string& name,
                                              std::optional<int> rank = std::nullopt,
                                              std::optional<bool> internal = std::nullopt);

// Output of `ringscope stats`: {"by", "busy_ns", "range", "rows": [{name, count, total_ns,
// mean_ns, min_ns, max_ns, percent[, rank]}]} in this order, two spaces of indent, without a
// final newline (a field table, core/fieldtable.h); CSV with a header line; an aligned text
// table in human units.
std::string statsJson(const StatsTable& table);
std::string statsToCsv(const StatsTable& table);
std::string statsToText(const StatsTable& table);
// One CSV field, quoted when it holds a comma, quote or line break (kernel names do).
std::string csvField(std::string_view s);

} // namespace rs
