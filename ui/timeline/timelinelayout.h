#pragma once

#include "core/analysis/report.h"
#include "core/annotations/trackstate.h"
#include "core/trace.h"
#include "ui/timeline/timelinelod.h"

#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace rs {

// Per-trace index the timeline needs to draw and hit-test in O(log n) per row: each track's
// slices regrouped by depth (stable, so still sorted by start), 4 bytes per slice, and the
// fold level of detail (timelinelod.h), about 2 bytes per slice.
class TimelineIndex {
public:
    explicit TimelineIndex(TracePtr trace);

    const Trace& trace() const { return *m_trace; }
    const TracePtr& tracePtr() const { return m_trace; }
    // Slices of one (track, depth) row, sorted by start; same-depth slices do not nest.
    std::span<const EventId> row(TrackId t, int depth) const;
    int depthCount(TrackId t) const { return static_cast<int>(m_rowBegin[t + 1] - m_rowBegin[t]); }
    // First index in row whose slice ends after time (binary search on ends, which are
    // ordered because same-depth slices do not overlap).
    std::size_t firstEndingAfter(std::span<const EventId> row, TimeNs time) const;
    // First index in row whose slice starts at or after time.
    std::size_t firstStartingAt(std::span<const EventId> row, TimeNs time) const;
    // The same, for an answer known to be >= from and expected near `guess`: gallops out of
    // the guess both ways, so a good guess costs a few probes close together in memory.
    std::size_t firstStartingAtNear(std::span<const EventId> row, std::size_t from,
                                    std::size_t guess, TimeNs time) const;
    // End of the fold block starting at row[i] for a fold width of minNs: the first m in
    // (i, end) whose slice lasts >= minNs or starts >= minNs after row[m-1] ends, else `end`.
    // Reads the LOD bytes, and a slice only where its code ties with minNs's.
    std::size_t foldBlockEnd(std::span<const EventId> row, std::size_t i, std::size_t end,
                             TimeNs minNs) const;
    // Index in row of the first of the longest slices (to a quarter octave) in [from, to).
    std::size_t longestIn(std::span<const EventId> row, std::size_t from, std::size_t to) const;
    // Time the track's top-level (depth 0) slices cover in [a, b): two binary searches and at
    // most 2 x kBusyBlock slice reads, whatever the number of slices (density rows).
    TimeNs busyIn(TrackId t, TimeNs a, TimeNs b) const;
    // Busy time before each of `times` (nondecreasing) into out: a forward gallop from the last
    // answer, so a frame's column edges cost a few probes close together, not a search each.
    void busyBeforeEach(TrackId t, std::span<const TimeNs> times, std::span<TimeNs> out) const;
    static constexpr std::size_t kBusyBlock = 16;
    std::size_t bytes() const;
    // The trace's activityExtent() (core/analysis/activity.h), computed with the index (off the
    // GUI thread): the span the first view fits.
    const std::optional<std::pair<TimeNs, TimeNs>>& activity() const { return m_activity; }

private:
    std::size_t baseOf(std::span<const EventId> row) const
    {
        return row.empty() ? 0 : static_cast<std::size_t>(row.data() - m_order.data());
    }

    TracePtr m_trace;
    std::vector<EventId> m_order;           // by track, then depth, then start
    std::vector<std::uint32_t> m_rowBegin;  // per track: index of its first row in m_rowOffset
    std::vector<std::uint32_t> m_rowOffset; // per (track, depth) row: offset in m_order; +1 end
    MaxPyramid m_breakLod;                  // per m_order entry: lodCode(break key)
    MaxPyramid m_durLod;                    // per m_order entry: lodCode(duration)
    // Per track, busy time of its depth-0 row before every kBusyBlock-th slice (0.5 B/slice).
    std::vector<TimeNs> m_busyPrefix;
    std::vector<std::uint32_t> m_busyBegin; // per track: offset in m_busyPrefix; +1 end

    TimeNs busyBefore(TrackId t, TimeNs time) const;
    std::optional<std::pair<TimeNs, TimeNs>> m_activity;
};

enum class RowKind : std::uint8_t { ProcessHeader, Slices, Counter };

// What a row of the compact job layout shows of its rank.
enum class RowRole : std::uint8_t { None, Steps, Communication, Copies, Compute };

// One row of the compact job layout: a track of a rank, or only some of its depths (the
// ProfilerStep row of a Python thread).
struct CompactRow {
    int rank = 0; // job block (0 for one trace)
    TrackId track = kNone;
    int firstDepth = 0;
    int depths = 0; // 0: all of the track's depths
    RowRole role = RowRole::None;
};

// One horizontal band of the timeline in content coordinates (before vertical scroll).
struct TimelineRow {
    RowKind kind = RowKind::Slices;
    ProcessId process = kNone;
    TrackId track = kNone; // kNone for headers
    double y = 0;          // top, content coordinates
    double height = 0;
    int depths = 0;      // slice rows in a Slices track
    bool pinned = false; // in the pinned band at the top (does not scroll)
    bool alone = false;  // a pinned track shown without its group's header
    // The compact job layout: rows per rank with no group header; the first of a rank carries
    // its name. firstDepth: the first slice depth shown (the row shows depths from it on).
    int rank = -1;
    bool rankFirst = false;
    RowRole role = RowRole::None;
    int firstDepth = 0;
    // A header: its group's tracks (shown or, when collapsed, summarised in its density row)
    // are groupTracks()[firstTrack, firstTrack + trackCount).
    std::uint32_t firstTrack = 0, trackCount = 0;
};

struct LayoutOptions {
    std::vector<bool> collapsed;       // per process
    std::vector<bool> trackVisible;    // per track; empty or of another size: all
    std::vector<bool> pinnedTracks;    // per track: moved to the pinned band
    std::vector<bool> pinnedProcesses; // per process: the whole group in the pinned band
    // Non-empty: the compact job layout, these rows in this order (rank after rank), no group
    // headers; trackVisible still hides, pinned tracks and groups go to the band.
    std::vector<CompactRow> compactRows;
};

// Vertical layout: process groups ordered by sort index then pid, their tracks, collapse state.
class TimelineLayout {
public:
    static constexpr double kHeaderHeight = 22;
    static constexpr double kSliceRowHeight = 18;
    static constexpr double kCounterHeight = 34;
    static constexpr double kTrackGap = 4;

    TimelineLayout() = default;
    // trackVisible (per track; empty or of another size: all) hides tracks, e.g. compact mode.
    TimelineLayout(const TimelineIndex& index, const std::vector<bool>& collapsed,
                   const std::vector<bool>& trackVisible = {});
    // Pinned groups (then pinned tracks, in process order) come first, in a band of
    // pinnedHeight() that stays put while the rest scrolls under it. Pinned tracks and groups
    // are shown even when trackVisible hides them: pinning is the user asking for them.
    TimelineLayout(const TimelineIndex& index, const LayoutOptions& options);

    const std::vector<TimelineRow>& rows() const { return m_rows; }
    // Content y below which rows are pinned; 0 when nothing is pinned.
    double pinnedHeight() const { return m_pinnedHeight; }
    // Index of the first row that scrolls (rows before it are pinned).
    int firstScrollingRow() const { return m_firstScrolling; }
    // The tracks of a header row's group that the options let through.
    std::span<const TrackId> groupTracks(const TimelineRow& header) const
    {
        return std::span<const TrackId>(m_groupTracks)
            .subspan(header.firstTrack, header.trackCount);
    }
    // Tracks with slices or a counter that the filter (trackVisible) left out; pinned not.
    int hiddenTracks() const { return m_hidden; }
    const std::vector<ProcessId>& processOrder() const { return m_order; }
    double contentHeight() const { return m_height; }
    // Row index of a track, or -1 when hidden (collapsed group, empty track).
    int rowOfTrack(TrackId t) const { return t < m_trackRow.size() ? m_trackRow[t] : -1; }
    int rowOfProcess(ProcessId p) const { return p < m_processRow.size() ? m_processRow[p] : -1; }
    // Row at content y, or -1.
    int rowAt(double y) const;

private:
    std::vector<TimelineRow> m_rows;
    std::vector<ProcessId> m_order;
    std::vector<int> m_trackRow, m_processRow;
    std::vector<TrackId> m_groupTracks;
    double m_height = 0;
    double m_pinnedHeight = 0;
    int m_firstScrolling = 0;
    int m_hidden = 0;
};

// The kind of a track for the track filter, from the roles (Track::role) of its process's
// tracks: communication (a process of HCCL ops and their tasks), device (device streams, device
// counters, what a producer derived from them), else host.
enum class TrackClass : std::uint8_t { Host, Device, Communication };
TrackClass trackClass(const Trace& trace, TrackId t);
// Tracks the filter lets through: of a kind shown and, with a text, whose track or process
// label contains it (case-insensitive) or matches it as a regex. An invalid regex matches
// nothing (*regexError says why). Empty when the filter is not active (all shown).
std::vector<bool> trackFilterMask(const Trace& trace, const TrackFilterSpec& filter,
                                  QString* regexError = nullptr);

// Compact mode: at most three rows per rank: its communication row (the track with the most
// collectives, else its HCCL group thread, else a plane), its busiest device stream (Ascend
// Hardware, GPU) and, when it has flagged ops, the row of their extra internal memcpy.
// processGroup gives each process's rank (job block); empty: one rank.
std::vector<bool> compactTrackFilter(const Trace& trace, const AnalysisReport* report = nullptr,
                                     const std::vector<int>& processGroup = {});
// The compact job layout's rows: per rank (processGroup's blocks, in order) its steps (the
// depth of the Python thread that holds its ProfilerStep slices), its communication row, the
// row of its flagged ops' extra copies and its busiest compute row; the tracks of
// compactTrackFilter plus the steps.
std::vector<CompactRow> compactRankRows(const Trace& trace, const AnalysisReport* report = nullptr,
                                        const std::vector<int>& processGroup = {});

} // namespace rs
