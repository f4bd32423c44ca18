#pragma once

// The critical path over the timeline (issue 44.3): each step's path (core/analysis/
// criticalpath.h) on the shown trace's ids and clock, drawn as a band on the row of each
// segment's event (its PathKind's ink) with connectors where the path changes rows, bolder
// where it jumps to another rank. A segment whose row is hidden (the compact job layout, a
// collapsed group) is drawn on its rank's row of the same role, else on its group's header.
// The view and the exports paint it through TimelineRenderer::setPathOverlay.
//
// A frame's cost grows with pixels, not segments: steps outside the range are skipped, the
// first segment in view is found by binary search, and a run of segments inside one pixel
// column is drawn as one piece (the segment at the column's middle) after a binary search
// for the column's end.

#include "core/analysis/report.h"
#include "core/trace.h"

#include <QColor>
#include <QRectF>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QPainter;

namespace rs {

struct JobSession;
struct ThemePalette;
class TimelineGeometry;
class TimelineRenderer;

// A segment as the timeline places it.
struct PathBand {
    TimeNs start = 0, end = 0;
    PathKind kind = PathKind::Idle;
    int block = 0;         // the job block of its rank (0 for one trace)
    TrackId track = kNone; // its event's row, else its neighbour's on its rank, else the steps'
    int depth = 0;
};

class CriticalPathLayer {
public:
    struct Step {
        int step = 0;
        TimeNs start = 0, end = 0;
        std::vector<PathBand> bands; // contiguous, ascending
    };
    // What the last paint did, for the tests and the benchmark: segments looked at, pieces
    // drawn (bands, merged runs), connectors drawn.
    struct Stats {
        std::size_t visited = 0, pieces = 0, connectors = 0, rankJumps = 0;
    };

    CriticalPathLayer() = default;
    // paths on display's ids and clock (segments' events already mapped, kNone when not on
    // it); blockOf: a segment's rank -> its block (none: 0, one trace); anchors: per block a
    // slice of its steps' row, where a segment with no event and no neighbour goes.
    CriticalPathLayer(TracePtr display, std::vector<StepPath> paths,
                      const std::function<int(std::optional<int>)>& blockOf = {},
                      const std::vector<EventId>& anchors = {});

    // One trace: its report's own path (HTA's single-rank case).
    static std::shared_ptr<const CriticalPathLayer> forReport(const AnalysisReport& report);
    // A job: JobReport::criticalPath on the merged trace (events mapped per block).
    static std::shared_ptr<const CriticalPathLayer> forJob(const JobSession& session);

    const TracePtr& trace() const { return m_trace; }
    // The paths on the shown trace's ids, by step.
    const std::vector<StepPath>& paths() const { return m_paths; }
    const std::vector<Step>& steps() const { return m_steps; }
    const StepPath* path(int step) const;
    bool empty() const { return m_paths.empty(); }

    // Draws the bands and connectors in [g.t0, g.t1) over the rows of g, in the palette of
    // the renderer's style; the renderer's processRanks places a job's ranks.
    void paint(QPainter& p, const TimelineGeometry& g, const TimelineRenderer& r) const;
    const Stats& lastStats() const { return m_stats; }

    // The ink of a kind in a palette (the pane's bar and the legend use it too).
    static QColor kindColor(PathKind k, const ThemePalette& palette);
    // The kind's name as a user reads it: "compute", "internal memcpy", ...
    static QString kindLabel(PathKind k);

private:
    TracePtr m_trace;
    std::vector<StepPath> m_paths;
    std::vector<Step> m_steps;
    mutable Stats m_stats;
};

} // namespace rs
