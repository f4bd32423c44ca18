#pragma once

#include "ui/session/flagged.h"
#include "ui/timeline/timelinerenderer.h"

#include <QPixmap>
#include <QStringList>
#include <QWidget>

#include <optional>
#include <utility>
#include <vector>

class QMenu;
class QScrollBar;

namespace rs {

class Session;

// An area of the timeline (Shift+drag over the tracks, as in Perfetto): a time range and the
// tracks it crosses; a collapsed group crossed brings all its tracks.
struct TimelineArea {
    TimeNs t0 = 0, t1 = 0;
    std::vector<TrackId> tracks; // sorted
    bool valid() const { return t1 > t0 && !tracks.empty(); }
    bool operator==(const TimelineArea&) const = default;
};

// The interactive timeline: a TimelineRenderer plus input. The rendered frame is cached and
// reused while range, scroll, size and state are unchanged (hover only redraws the cursor).
class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(QWidget* parent = nullptr);
    // Follows the viewer's session (ui/session): fills in as what is open changes.
    void setSession(Session* session);
    ~TimelineView() override;

    // index: the trace's TimelineIndex built off the GUI thread (a job session), else built here.
    void setTrace(TracePtr trace, std::shared_ptr<const TimelineIndex> index = {});
    // Swaps in a trace of the same shape (a job on new rank offsets): keeps the visible range,
    // scroll, collapsed groups, selection and history; emits no selection change.
    void replaceTrace(TracePtr trace, std::shared_ptr<const TimelineIndex> index = {});
    // Compact mode: the compact job layout, rank after rank its steps, collectives, flagged
    // copies and compute rows with no group headers (TimelineLayout's compactRankRows).
    void setCompact(bool on);
    bool compact() const { return m_compact; }
    // The rank (job block) of each process; empty: one rank. Compact mode keeps rows per rank,
    // finding labels stay on their rank's rows, N / P go through a job's instances.
    void setProcessRanks(std::vector<int> rankOfProcess);
    const std::vector<int>& processRanks() const { return m_renderer.processRanks(); }
    // The rank of a track (0 when there are no ranks).
    int rankOfTrack(TrackId t) const;
    // N / P order of the flagged collectives in a job: one group per cross-rank instance in
    // time order, each the delaying rank's op first, then its waiting copies. Empty: every
    // flagged collective of the report in time order.
    void setFlaggedOrder(std::vector<std::vector<EventId>> groups);
    // N / P walk the causes (flagged::Role::Cause: the ops whose own copy or transfers are at
    // fault); Shift+N / Shift+P walk every flagged op, the waiters too.
    enum class FlaggedWalk { Causes, All };
    TracePtr trace() const { return m_renderer.trace(); }
    // Pinned tracks and the track filter (by key: TimelineRenderer::setTrackViewState). Set
    // from the sidecar; changed by the user through pin / unpin and the filter bar, which emit
    // trackViewChanged (a programmatic set does not).
    void setTrackViewState(const TrackViewState& state);
    const TrackViewState& trackViewState() const { return m_renderer.trackViewState(); }
    void setTrackFilterSpec(const TrackFilterSpec& filter);
    // Pins a track, or with t == kNone the group of p; pinned ones are unpinned.
    void togglePinned(ProcessId p, TrackId t);
    // T: the track under the mouse (a header: its group), else the selected event's track.
    bool togglePinnedAtCursor();
    // "Pin … to the top" / "Unpin …" for the track or group at a widget position; false when
    // there is no track there.
    bool addTrackMenuActions(QMenu* menu, QPoint pos);
    void setReport(ReportPtr report);
    ReportPtr report() const { return m_renderer.report(); }

    TimelineRenderer& renderer() { return m_renderer; }
    const TimelineRenderer& renderer() const { return m_renderer; }
    // Geometry of the frame currently shown (plot area = widget minus the scroll bar).
    TimelineGeometry timelineGeometry() const;

    TimeNs visibleStart() const { return m_t0; }
    TimeNs visibleEnd() const { return m_t1; }
    double scrollY() const { return m_scrollY; }
    EventId selectedEvent() const { return m_renderer.selectedEvent(); }
    // Centre of an event on screen (widget coordinates), after revealing it when asked.
    QPoint eventCenter(EventId e) const;

    void setVisibleRange(TimeNs t0, TimeNs t1);
    void zoomToRange(TimeNs t0, TimeNs t1);
    void zoomBy(double factor, double anchorX); // factor < 1 zooms in
    void panByPixels(double dx);
    void showAll();
    // The first view of a trace: its activity (TimelineIndex::activity()), not the span that
    // counters or a lone marker stretch.
    void fitActivity();
    // While the view is the first view and the activity is less than the trace's span, what
    // the ruler's corner says: "activity 87.0 ms of 110 ms · 0: all"; empty otherwise.
    QString activityNote() const;
    // The first view of a trace: at the top of the first process; when host threads above the
    // device and communication tracks fill the first screen (a Kineto trace's Python threads),
    // their groups are folded (header and busy row stay) until a device track is on screen.
    void foldHostAboveDevices();
    void fitSelection();
    // The one step navigator: zooms to ProfilerStep #step (of that rank in a job; rank < 0 or
    // a single trace: the first with the number) and selects its slice. False when none.
    bool showStep(int rank, int step);
    // Selects an event (kNone clears), records it in the history, scrolls it into view.
    void selectEvent(EventId e, bool reveal = true);
    // Makes an event visible: expands its group, pans/zooms and scrolls vertically.
    void revealEvent(EventId e);
    // +1 next, -1 previous; causes only falls back to every flagged op when none is a cause.
    bool selectNextFlagged(int direction, FlaggedWalk walk = FlaggedWalk::All);
    // The flagged collectives in N / P order (the job's instances, or the report's flagged
    // collectives in time order), and where an event is in it: (k, n) with k from 1.
    std::vector<EventId> flaggedSequence(FlaggedWalk walk = FlaggedWalk::All) const;
    std::optional<std::pair<int, int>> flaggedPosition(EventId e) const;
    // Where an event is among the flagged ops of its role: "cause 1 of 2", "waiting 3 of 14".
    struct FlaggedPlace {
        flagged::Role role = flagged::Role::None;
        int k = 0, n = 0;
    };
    std::optional<FlaggedPlace> flaggedPlace(EventId e) const;
    // The "k of n" chip N / P show at the top right of the tracks (empty when the selection is
    // no flagged collective); text set by the window (it knows the ranks).
    void setFlaggedChip(const QString& text);
    QString flaggedChip() const { return m_flaggedChip; }
    QRectF flaggedChipRect() const;
    bool historyBack();
    bool historyForward();
    void setRangeSelection(TimeNs a, TimeNs b);
    void setHighlights(std::vector<EventId> events);
    // The area selection (an invalid one clears it); a new area is recorded in the history.
    void setArea(const TimelineArea& area);
    const TimelineArea& area() const { return m_area; }
    // Tracks whose rows cross content y in [y0, y1] (collapsed groups: all their tracks).
    std::vector<TrackId> tracksBetween(double contentY0, double contentY1) const;
    // On-screen rectangle of an area (its tracks' rows over its range); empty when none shows.
    QRectF areaRect(const TimelineArea& area) const;
    // The area's "duration · N tracks" box: in the ruler over it, never over the tracks.
    QRectF areaLabelRect(const TimelineArea& area) const;
    QString areaLabelText(const TimelineArea& area) const;
    void setFlaggedOnly(bool on);
    void setShowFlows(bool on);
    void setHelpVisible(bool on);
    // The plain wheel zooms (the old default) instead of scrolling the tracks; Ctrl+wheel
    // zooms and Shift+wheel pans either way.
    void setWheelZooms(bool on) { m_wheelZooms = on; }
    bool wheelZooms() const { return m_wheelZooms; }
    bool helpVisible() const { return m_helpVisible; }
    // Frames painted (cache misses); tests use it to check the cache.
    int renderCount() const { return m_renderCount; }

    // The cursor's time box in the ruler (widget coordinates; empty when the mouse is not
    // over the tracks) and its text; the tick labels it would cut are not drawn.
    QRectF cursorTimeRect() const;
    QString cursorTimeText() const;
    // The label column's width follows the widest group label (a summaries-only job's "Rank 7 ·
    // Summary (no trace)") at each new trace, up to kMaxAutoLabelWidth, until the user drags
    // its edge.
    static constexpr double kDefaultLabelWidth = 220, kMaxAutoLabelWidth = 340;
    double labelWidth() const { return m_renderer.labelWidth(); }

    static QString helpText();
    // Where the `?` overlay puts its box and each line (widget coordinates), from the font's
    // metrics: every key and description fits its rectangle, the box holds them all.
    struct HelpLayout {
        QRectF box, titleRect;
        QString title;
        QStringList keys, descriptions;
        std::vector<QRectF> keyRects, descriptionRects;
    };
    HelpLayout helpLayout() const;

signals:
    void eventSelected(rs::EventId e);
    // N or P moved the selection (after eventSelected).
    void flaggedStepped(rs::EventId e);
    // Compact mode was turned off to show an event it left out.
    void compactChanged(bool on);
    void visibleRangeChanged(rs::TimeNs t0, rs::TimeNs t1);
    void rangeSelected(rs::TimeNs t0, rs::TimeNs t1);
    // A new area, or an invalid one when it is cleared (Esc, a Shift+click, another trace).
    void areaSelected(const rs::TimelineArea& area);
    // The user pinned, unpinned or changed the filter (the sidecar's state is dirty).
    void trackViewChanged();
    // The shown tracks changed for any reason (a state set, a new trace, compact mode).
    void trackViewApplied();
    // The first frame of a trace just set is on screen (once per setTrace with a trace).
    void tracePainted();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    enum class Drag { None, Pan, Scroll, Range, Labels, Area };
    // Back / forward go through selections: an event, an area, or both.
    struct HistoryEntry {
        EventId event = kNone;
        TimelineArea area;
        bool operator==(const HistoryEntry&) const = default;
    };
    void pushHistory(const HistoryEntry& entry);
    // A flagged op in N / P order and the start of its instance (the key to go past a time).
    struct FlaggedStop {
        EventId event = kNone;
        TimeNs key = 0;
    };
    std::vector<FlaggedStop> flaggedStops(FlaggedWalk walk) const;
    bool stepFlagged(int direction, FlaggedWalk walk);
    void fitLabelWidth();
    void restoreHistory(const HistoryEntry& entry);
    void paintArea(QPainter& p, const TimelineGeometry& g, const TimelineArea& area) const;
    void invalidate();
    void updateScrollBar();
    void clampScroll();
    QString tooltipAt(QPointF pos) const;
    QSizeF plotSize() const;
    void paintHelp(QPainter& p) const;
    void applyCompact();

    TimelineRenderer m_renderer;
    QScrollBar* m_vbar = nullptr;
    TimeNs m_t0 = 0, m_t1 = 1;
    double m_scrollY = 0;
    QPixmap m_cache;
    bool m_cacheValid = false;
    int m_renderCount = 0;
    bool m_announcePaint = false; // tracePainted() after the next frame
    double m_cursorX = -1;
    bool m_labelWidthByUser = false; // dragged: new traces keep it
    double m_cursorY = -1;
    Drag m_drag = Drag::None;
    QPointF m_pressPos;
    TimeNs m_pressT0 = 0, m_pressT1 = 0;
    double m_pressScroll = 0;
    TimeNs m_rangeAnchor = 0;
    bool m_moved = false;
    bool m_helpVisible = false;
    bool m_wheelZooms = false;
    bool m_compact = false;
    std::vector<std::vector<EventId>> m_flaggedOrder;
    std::vector<HistoryEntry> m_history;
    TimelineArea m_area, m_areaDraft; // the selected area, the one being dragged
    TimeNs m_areaAnchorT = 0;
    double m_areaAnchorY = 0; // content y
    int m_historyPos = -1;
    QString m_flaggedChip;
    std::optional<std::pair<TimeNs, TimeNs>> m_activityView; // the first view's range
    QString m_activityNote;
};

} // namespace rs
