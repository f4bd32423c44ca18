#pragma once

#include "core/analysis/report.h"
#include "core/trace.h"
#include "ui/timeline/timelinelayout.h"

#include <QColor>
#include <QFont>
#include <QHash>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include <functional>
#include <memory>
#include <vector>

class QFont;
class QFontMetricsF;
class QPainter;
class QPalette;

namespace rs {

struct ThemePalette;

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
    QColor density;       // busy fraction in a collapsed group's row
    QColor searchRing;    // search results
    QColor rangeBand;     // a range picked on the ruler, across the tracks
    QColor rangeLabel;    // its band in the ruler and its duration label
    QColor counter;       // counter tracks' area

    QColor areaInk, areaFill; // the Shift+dragged area (range x tracks): outline, label; fill
    QColor inkOnMark;         // text on a filled mark: cursor time, range and area labels
    QColor overlay, overlayText, overlayKey; // the `?` keys overlay
    QColor noteLabel;                        // the box behind an annotation's text

    // From the theme's palette struct (ui/theme/theme.h): the only place colours are defined.
    static TimelineStyle of(const ThemePalette& palette);
    static TimelineStyle fromPalette(const QPalette& palette); // light or dark by its window
    static TimelineStyle light();
    static TimelineStyle darkStyle();
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
    double scrollY = 0;    // content pixels scrolled off the top (under the pinned band)
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
    // Height of the pinned band under the ruler (rows that do not scroll).
    double pinnedHeight() const { return layout ? layout->pinnedHeight() : 0; }
    // Top of the scrolling rows: the ruler, then the pinned band.
    double scrollTop() const { return rulerHeight + pinnedHeight(); }
    // On-screen y of a content y: pinned rows (content y < pinnedHeight) stay put, the others
    // move up by scrollY.
    double screenY(double contentY) const
    {
        return rulerHeight + contentY - (contentY < pinnedHeight() ? 0 : scrollY);
    }
    // Content y at a screen y below the ruler (the inverse of screenY).
    double contentYAt(double y) const
    {
        const double local = y - rulerHeight;
        return local < pinnedHeight() ? local : local + scrollY;
    }
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
    // Where a track row's label is drawn: at the row's top, or, when a tall row is scrolled
    // partly under the pinned band or the ruler, at the top of its visible part (sticky).
    QRectF labelRect(int row) const;
    // Whether a screen y of a scrolling row is hidden under the ruler or the pinned band.
    bool underBand(int row, double y) const;
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
    // Tracks to show (per track; empty shows all), with their groups' headers; clears the
    // compact rows.
    void setTrackFilter(std::vector<bool> visible);
    // Compact mode: the compact job layout's rows (compactRankRows), rank after rank with no
    // group headers; empty: the usual groups.
    void setCompactRows(std::vector<CompactRow> rows);
    const std::vector<CompactRow>& compactRows() const { return m_compactRows; }
    // Pinned tracks and groups, and the user's track filter (names, kinds), by key: resolved
    // on this trace; keys it has no track for are kept (another rank set may have them).
    void setTrackViewState(const TrackViewState& state);
    const TrackViewState& trackViewState() const { return m_viewState; }
    bool isTrackPinned(TrackId t) const { return t < m_pinTracks.size() && m_pinTracks[t]; }
    bool isProcessPinned(ProcessId p) const { return p < m_pinProcs.size() && m_pinProcs[p]; }
    // Pins or unpins a track (or with track kNone, the group of p); the state changes too.
    void setPinned(ProcessId p, TrackId t, bool pinned);
    // Why the filter's regex is not one (empty when it is, or when not a regex).
    const QString& filterError() const { return m_filterError; }
    // Tracks the user's filter hides (compact mode's choice of rows is not counted).
    int hiddenTrackCount() const { return m_userHidden; }
    // A row's label text: the track's name, with its group's when the row has no header above
    // it ("Rank 3 · HCCL › Plane 0", or in the compact job layout "HCCL · Plane 0").
    QString rowLabel(const TimelineRow& row) const;
    // The rank's name a compact row carries ("Rank 3", from its group's "Rank 3 · …").
    QString rankName(const TimelineRow& row) const;
    // The label column's width its rows need in a font (group names, tracks pinned alone, the
    // compact job layout's rows), between min and max; longer labels are elided.
    double fittedLabelWidth(const QFont& font, double min, double max) const;
    // Width of the rank names' column of the compact job layout's labels.
    static double rankColumnWidth(const QFontMetricsF& bold);

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
    // Drawn over the tracks, clipped to the plot, under the labels, ruler and overlay (the
    // critical path: ui/timeline/criticalpathlayer.h). Given the renderer that paints (its
    // style, its ranks), so an export's renderer draws it as the view's does (copyViewState).
    using PathOverlay =
        std::function<void(QPainter&, const TimelineGeometry&, const TimelineRenderer&)>;
    void setPathOverlay(PathOverlay overlay) { m_pathOverlay = std::move(overlay); }
    const PathOverlay& pathOverlay() const { return m_pathOverlay; }

    TimelineGeometry geometry(QSizeF size, TimeNs t0, TimeNs t1, double scrollY) const;
    double contentHeight() const { return m_layout ? m_layout->contentHeight() : 0; }
    const TimelineLayout* layout() const { return m_layout.get(); }
    const TimelineIndex* index() const { return m_index.get(); }

    void paint(QPainter& p, const TimelineGeometry& g) const;

    // The ruler's text in a frame painted with font: each major tick's label (hidden where the
    // range selection's duration box sits, so they never overprint) and that box.
    struct RulerTick {
        double x = 0;
        QString text;
        QRectF rect; // where the label's glyphs are
        bool hidden = false;
    };
    struct RulerText {
        std::vector<RulerTick> ticks;
        QRectF rangeRect; // null without a range selection
        QString rangeText;
    };
    RulerText rulerText(const TimelineGeometry& g, const QFont& font) const;
    TimelineHit hitTest(const TimelineGeometry& g, QPointF pos) const;

    QColor colorOf(EventId e) const;
    // Busy fraction (0..1) of a collapsed group per pixel column of the plot, from its left
    // edge: for each column the largest share of it any of the group's slice tracks spends in
    // top-level slices. One forward pass per track over the column edges (busyBeforeEach).
    std::vector<float> densityColumns(const TimelineGeometry& g, const TimelineRow& header) const;
    // Where a slice's name is written in a frame painted with font (empty when it has none
    // there: too narrow, hidden, dimmed): labels placed over the timeline keep off it.
    QRectF sliceTextRect(const TimelineGeometry& g, EventId e, const QFont& font) const;
    // Where the frame draws something a label must not cover: runs of slices (neighbours
    // closer than a few pixels merged), counters' areas and collapsed groups' density rows,
    // clipped to the plot. Bounded by pixels, not events (folded runs are one rectangle).
    std::vector<QRectF> occupiedRects(const TimelineGeometry& g) const;
    // Whether an event is flagged or belongs to a flagged collective (flagged-only filter).
    bool isFlagged(EventId e) const;
    // Memory the view adds on top of the trace model.
    std::size_t viewBytes() const;

private:
    void rebuildLayout();
    void paintLabels(QPainter& p, const TimelineGeometry& g) const;
    QColor rankRule() const; // the rule between ranks in the compact job layout
    void paintRuler(QPainter& p, const TimelineGeometry& g) const;
    void paintSliceTrack(QPainter& p, const TimelineGeometry& g, const TimelineRow& row) const;
    void paintCounterTrack(QPainter& p, const TimelineGeometry& g, const TimelineRow& row) const;
    void paintDensity(QPainter& p, const TimelineGeometry& g, const TimelineRow& row) const;
    void paintRows(QPainter& p, const TimelineGeometry& g, bool pinned) const;
    void paintLabelRows(QPainter& p, const TimelineGeometry& g, bool pinned) const;
    // Whether an event is drawn in this pass (its row is pinned / scrolls).
    bool inPass(const TimelineGeometry& g, EventId e, bool pinned) const;
    // folded: r stands for several slices (marks joined at this zoom): darker, no label.
    void paintSlice(QPainter& p, const TimelineGeometry& g, EventId e, const QRectF& r,
                    bool folded = false) const;
    QString sliceText(const QFontMetricsF& fm, EventId e, double width) const;
    void paintMarks(QPainter& p, const TimelineGeometry& g, bool pinned) const;
    void paintReportMarks(QPainter& p, const TimelineGeometry& g, bool pinned,
                          const std::function<bool(const QRectF&)>& visible,
                          const std::function<QRectF(QRectF)>& widened) const;
    void paintFlows(QPainter& p, const TimelineGeometry& g) const;
    void paintSelection(QPainter& p, const TimelineGeometry& g) const;

    TracePtr m_trace;
    ReportPtr m_report;
    std::shared_ptr<const TimelineIndex> m_index;
    std::shared_ptr<const TimelineLayout> m_layout;
    std::vector<bool> m_collapsed;   // per process
    std::vector<bool> m_trackFilter; // per track, empty: all (compact mode)
    std::vector<CompactRow> m_compactRows;
    int m_userHidden = 0;
    std::vector<bool> m_userFilter; // per track, empty: all (the user's filter)
    std::vector<bool> m_pinTracks;  // per track
    std::vector<bool> m_pinProcs;   // per process
    TrackViewState m_viewState;
    QString m_filterError;
    std::vector<QRgb> m_nameColor; // per StrId
    // Label advances by text, in the font they were measured in (and its bold): a job's
    // arrival fits the label column four or five times (trace, view state, report, compact
    // rows), each shaping every rank's labels again without them.
    mutable QFont m_advanceFont;
    mutable QHash<QString, double> m_advance, m_boldAdvance;
    std::vector<EventId> m_highlights;
    EventId m_selected = kNone;
    TimeNs m_rangeBegin = 0, m_rangeEnd = 0;
    bool m_flaggedOnly = false;
    bool m_showFlows = false; // all flows; the selected event's flows are always drawn
    double m_labelWidth = 220;
    TimelineStyle m_style = TimelineStyle::light();
    Overlay m_overlay;
    PathOverlay m_pathOverlay;
    std::vector<int> m_processRanks; // per process, empty: one rank
};

// The unit of a counter track, from how the producer named its value ("Read(MB/s)" -> MB/s,
// "Hit Rate(%)" -> %, a key "KB" or "MHz"); empty when it says none.
QString counterUnit(const Trace& trace, TrackId t);
// A counter value as the timeline shows it: grouped digits, no exponent, and its unit
// ("27,430 MB/s").
QString counterValueText(const Trace& trace, TrackId t, double v);

// Tick step for a ruler: 1, 2 or 5 times a power of ten, at least minNs.
TimeNs niceTimeStep(double minNs);
// Ruler label of an offset from the trace start, precise enough for the step.
QString formatOffset(TimeNs offset, TimeNs step);

} // namespace rs
