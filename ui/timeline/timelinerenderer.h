#pragma once

#include "core/analysis/report.h"
#include "core/trace.h"
#include "ui/timeline/timelinelayout.h"

#include <QColor>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include <functional>
#include <memory>
#include <vector>

class QPainter;
class QPalette;

namespace rs {

// Colours of the timeline; follows the application palette (light or dark).
struct TimelineStyle {
    bool dark = false;
    QColor background, text, dimText, grid, header, headerText, labelBackground, ruler;
    QColor selection, cursor, collectiveOutline, anomaly, internalCopy, waiting, flow;
    // Inks of the marks, shared with the export legend so both draw one thing one way.
    QColor collective;    // a collective's fill (names hash over three shades of it)
    QColor copyHatch;     // hatching over an internal memcpy
    QColor waitHatch;     // hatching over a collective that only waited
    QColor unalignedEdge; // outline of the unaligned-transfer triangle

    static TimelineStyle fromPalette(const QPalette& palette);
    static TimelineStyle light();
};

// Where things are on screen for one frame: the time <-> x mapping, the rows and the rectangle
// of any event. Cheap to copy; valid as long as the renderer's trace is.
class TimelineGeometry {
public:
    static constexpr double kRulerHeight = 28;

    QSizeF size;
    double labelWidth = 200;
    double rulerHeight = kRulerHeight;
    TimeNs t0 = 0, t1 = 1; // visible range [t0, t1), absolute trace times
    double scrollY = 0;    // content pixels scrolled off the top
    TimeNs traceStart = 0; // ruler labels are relative to it
    std::shared_ptr<const TimelineLayout> layout;
    std::shared_ptr<const TimelineIndex> index;

    bool valid() const { return layout && index && size.width() > labelWidth; }
    // The area right of the labels and below the ruler.
    QRectF plotRect() const
    {
        return QRectF(labelWidth, rulerHeight, size.width() - labelWidth,
                      size.height() - rulerHeight);
    }
    double nsPerPixel() const;
    double xOf(TimeNs t) const;
    TimeNs timeAt(double x) const;
    // On-screen y of a content y.
    double screenY(double contentY) const { return rulerHeight + contentY - scrollY; }
    // Row index at a screen y below the ruler, or -1.
    int rowAtY(double y) const;
    // Full-width (labels + plot) on-screen band of a row.
    QRectF rowRect(int row) const;
    // On-screen band of a track across the plot; empty when hidden (collapsed or no such row).
    QRectF trackRect(TrackId t) const;
    // On-screen rectangle of a slice row (track, depth) across the plot; empty when hidden.
    QRectF depthRect(TrackId t, int depth) const;
    // On-screen rectangle of an event (may lie outside the plot when out of range); empty when
    // its track is hidden.
    QRectF eventRect(EventId e) const;
};

struct TimelineHit {
    enum Kind { None, Event, Folded, ProcessHeader, Counter, Ruler, Label };
    Kind kind = None;
    EventId event = kNone; // Event: the slice; Folded: the longest slice in the block
    ProcessId process = kNone;
    TrackId track = kNone;
    int depth = -1;
    int foldedCount = 0; // Folded: slices under the cursor's pixels
    TimeNs time = 0;     // time at the point
    double counterValue = 0;
};

// Paints the timeline (labels, ruler, tracks, highlights) for a given range, scroll and size
// into any QPainter: a widget, a QImage, a QSvgGenerator or a QPdfWriter. No widget needed.
// The cost of a frame grows with visible pixels, not events: rows are searched in O(log n)
// and slices narrower than kFoldPixels are merged into blocks.
class TimelineRenderer {
public:
    using Overlay = std::function<void(QPainter&, const TimelineGeometry&)>;
    static constexpr double kFoldPixels = 2.0;
    // Marks that make a collective "flagged" (N/P, flagged-only filter).
    static constexpr std::uint8_t kFlaggedMarks =
        kMarkAnomalous | kMarkExtraMemcpy | kMarkUnaligned | kMarkWaiting;

    TimelineRenderer();
    ~TimelineRenderer();

    // index: built for this trace elsewhere (off the GUI thread); else built here.
    void setTrace(TracePtr trace, std::shared_ptr<const TimelineIndex> index = {});
    const TracePtr& trace() const { return m_trace; }
    void setReport(ReportPtr report);
    const ReportPtr& report() const { return m_report; }

    void setCollapsed(ProcessId p, bool collapsed);
    bool isCollapsed(ProcessId p) const;
    void setAllCollapsed(bool collapsed);
    // Tracks to show (per track; empty shows all): compact mode.
    void setTrackFilter(std::vector<bool> visible);

    void setSelectedEvent(EventId e) { m_selected = e; }
    EventId selectedEvent() const { return m_selected; }
    // A range picked on the ruler; begin == end clears it.
    void setRangeSelection(TimeNs begin, TimeNs end);
    bool hasRangeSelection() const { return m_rangeEnd > m_rangeBegin; }
    TimeNs rangeBegin() const { return m_rangeBegin; }
    TimeNs rangeEnd() const { return m_rangeEnd; }
    // Events to ring (search results); sorted copy kept.
    void setHighlights(std::vector<EventId> events);

    void setFlaggedOnly(bool on) { m_flaggedOnly = on; }
    bool flaggedOnly() const { return m_flaggedOnly; }
    // All flow arrows (else only the selected event's).
    void setShowFlows(bool on) { m_showFlows = on; }
    bool showFlows() const { return m_showFlows; }
    void setStyle(const TimelineStyle& style) { m_style = style; }
    const TimelineStyle& style() const { return m_style; }
    void setLabelWidth(double w) { m_labelWidth = w; }
    double labelWidth() const { return m_labelWidth; }
    // A job: the rank (block) of each process, for what is placed per rank (finding labels).
    void setProcessRanks(std::vector<int> ranks) { m_processRanks = std::move(ranks); }
    const std::vector<int>& processRanks() const { return m_processRanks; }
    // Drawn last, over everything (annotations, export decorations).
    void setOverlay(Overlay overlay) { m_overlay = std::move(overlay); }

    TimelineGeometry geometry(QSizeF size, TimeNs t0, TimeNs t1, double scrollY) const;
    double contentHeight() const { return m_layout ? m_layout->contentHeight() : 0; }
    const TimelineLayout* layout() const { return m_layout.get(); }
    const TimelineIndex* index() const { return m_index.get(); }

    void paint(QPainter& p, const TimelineGeometry& g) const;
    TimelineHit hitTest(const TimelineGeometry& g, QPointF pos) const;

    QColor colorOf(EventId e) const;
    // Whether an event is flagged or belongs to a flagged collective (flagged-only filter).
    bool isFlagged(EventId e) const;
    // Memory the view adds on top of the trace model.
    std::size_t viewBytes() const;

private:
    void rebuildLayout();
    void paintLabels(QPainter& p, const TimelineGeometry& g) const;
    void paintRuler(QPainter& p, const TimelineGeometry& g) const;
    void paintSliceTrack(QPainter& p, const TimelineGeometry& g, const TimelineRow& row) const;
    void paintCounterTrack(QPainter& p, const TimelineGeometry& g, const TimelineRow& row) const;
    void paintSlice(QPainter& p, const TimelineGeometry& g, EventId e, const QRectF& r) const;
    void paintMarks(QPainter& p, const TimelineGeometry& g) const;
    void paintFlows(QPainter& p, const TimelineGeometry& g) const;
    void paintSelection(QPainter& p, const TimelineGeometry& g) const;

    TracePtr m_trace;
    ReportPtr m_report;
    std::shared_ptr<const TimelineIndex> m_index;
    std::shared_ptr<const TimelineLayout> m_layout;
    std::vector<bool> m_collapsed;   // per process
    std::vector<bool> m_trackFilter; // per track, empty: all
    std::vector<QRgb> m_nameColor;   // per StrId
    std::vector<EventId> m_highlights;
    EventId m_selected = kNone;
    TimeNs m_rangeBegin = 0, m_rangeEnd = 0;
    bool m_flaggedOnly = false;
    bool m_showFlows = false; // all flows; the selected event's flows are always drawn
    double m_labelWidth = 220;
    TimelineStyle m_style = TimelineStyle::light();
    Overlay m_overlay;
    std::vector<int> m_processRanks; // per process, empty: one rank
};

// Tick step for a ruler: 1, 2 or 5 times a power of ten, at least minNs.
TimeNs niceTimeStep(double minNs);
// Ruler label of an offset from the trace start, precise enough for the step.
QString formatOffset(TimeNs offset, TimeNs step);

} // namespace rs
