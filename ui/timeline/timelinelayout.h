#pragma once

#include "core/analysis/report.h"
#include "core/trace.h"
#include "ui/timeline/timelinelod.h"

#include <cstdint>
#include <memory>
#include <span>
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
    std::size_t bytes() const;

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
};

enum class RowKind : std::uint8_t { ProcessHeader, Slices, Counter };

// One horizontal band of the timeline in content coordinates (before vertical scroll).
struct TimelineRow {
    RowKind kind = RowKind::Slices;
    ProcessId process = kNone;
    TrackId track = kNone; // kNone for headers
    double y = 0;          // top, content coordinates
    double height = 0;
    int depths = 0; // slice rows in a Slices track
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

    const std::vector<TimelineRow>& rows() const { return m_rows; }
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
    double m_height = 0;
};

// Compact mode: at most three rows per rank: its communication row (the track with the most
// collectives, else an HCCL / hcom / NCCL / Communication one), its busiest compute row (Ascend
// Hardware stream, GPU kernel stream) and, when it has flagged ops, the row of their extra
// internal memcpy. processGroup gives each process's rank (job block); empty: one rank.
enum class TrackRole : std::uint8_t { Other, Communication, Compute };
TrackRole trackRole(const Trace& trace, TrackId t);
std::vector<bool> compactTrackFilter(const Trace& trace, const AnalysisReport* report = nullptr,
                                     const std::vector<int>& processGroup = {});

} // namespace rs
