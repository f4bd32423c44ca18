#include "ui/timeline/timelineview.h"

#include "ui/session/flagged.h"
#include "ui/session/session.h"

#include "core/analysis/presentation.h"

#include <QApplication>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace rs {

namespace {
constexpr TimeNs kMinSpan = 100; // ns: deeper zoom shows nothing new
}

TimelineView::TimelineView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(300, 150);
    m_vbar = new QScrollBar(Qt::Vertical, this);
    m_vbar->setCursor(Qt::ArrowCursor);
    connect(m_vbar, &QScrollBar::valueChanged, this, [this](int v) {
        if (std::abs(v - m_scrollY) >= 1) {
            m_scrollY = v;
            invalidate();
        }
    });
    m_renderer.setStyle(TimelineStyle::fromPalette(palette()));
}

TimelineView::~TimelineView() = default;

void TimelineView::setTrace(TracePtr trace, std::shared_ptr<const TimelineIndex> index)
{
    m_renderer.setTrace(std::move(trace), std::move(index));
    fitLabelWidth();
    m_flaggedOrder.clear();
    applyCompact();
    m_history.clear();
    m_historyPos = -1;
    if (m_area.valid()) {
        m_area = {};
        emit areaSelected(m_area);
    }
    m_scrollY = 0;
    fitActivity();
    updateScrollBar();
    foldHostAboveDevices();
    m_announcePaint = m_renderer.trace() != nullptr;
    invalidate();
}

void TimelineView::foldHostAboveDevices()
{
    // Host threads come first (a Kineto trace's Python, autograd and dataloader threads, tens
    // of rows deep); when they push every device and communication track below the first
    // screen, the view opens at the top of the first process with those host groups folded
    // (their headers and busy rows stay), so the device tracks are on screen too. A click on
    // a header unfolds it.
    const TracePtr& tr = trace();
    if (!tr || m_compact) return;
    const double visible = height() - TimelineGeometry::kRulerHeight;
    for (int pass = 0; pass < 64; ++pass) {
        const TimelineLayout* layout = m_renderer.layout();
        if (!layout) return;
        const auto& rows = layout->rows();
        int firstDevice = -1;
        for (std::size_t i = 0; i < rows.size() && firstDevice < 0; ++i)
            if (rows[i].kind == RowKind::Slices && rows[i].track != kNone &&
                trackClass(*tr, rows[i].track) != TrackClass::Host)
                firstDevice = int(i);
        if (firstDevice < 0) return; // no device track: nothing to bring up
        if (rows[std::size_t(firstDevice)].y + TimelineLayout::kSliceRowHeight <= visible) break;
        // Fold the tallest host group above it that is still open.
        ProcessId fold = kNone;
        double tallest = 0;
        const ProcessId deviceProcess = rows[std::size_t(firstDevice)].process;
        // Rows of a group are consecutive: one pass measures each group above the device row.
        for (std::size_t i = 0; i < std::size_t(firstDevice);) {
            const ProcessId p = rows[i].process;
            std::size_t j = i;
            while (j < rows.size() && rows[j].process == p)
                ++j;
            const double h =
                (j < rows.size() ? rows[j].y : rows[j - 1].y + TimelineLayout::kSliceRowHeight) -
                rows[i].y;
            if (p != kNone && p != deviceProcess && !m_renderer.isCollapsed(p) &&
                layout->rowOfProcess(p) >= 0 && h > tallest) {
                tallest = h;
                fold = p;
            }
            i = j;
        }
        if (fold == kNone) break;
        m_renderer.setCollapsed(fold, true);
    }
    m_scrollY = 0;
    updateScrollBar();
}

void TimelineView::fitLabelWidth()
{
    if (m_labelWidthByUser || !m_renderer.trace()) return;
    m_renderer.setLabelWidth(
        m_renderer.fittedLabelWidth(font(), kDefaultLabelWidth, kMaxAutoLabelWidth));
}

void TimelineView::replaceTrace(TracePtr trace, std::shared_ptr<const TimelineIndex> index)
{
    const TracePtr old = m_renderer.trace();
    if (!old || !trace || old->processes().size() != trace->processes().size() ||
        old->slices().size() != trace->slices().size()) {
        setTrace(std::move(trace), std::move(index));
        return;
    }
    std::vector<bool> collapsed(old->processes().size());
    for (ProcessId p = 0; p < collapsed.size(); ++p)
        collapsed[p] = m_renderer.isCollapsed(p);
    const EventId selected = m_renderer.selectedEvent();
    const TimeNs t0 = m_t0, t1 = m_t1;
    const double scroll = m_scrollY;
    auto history = m_history;
    const int historyPos = m_historyPos;
    const bool flagged = m_renderer.flaggedOnly();
    const bool flows = m_renderer.showFlows();
    const TrackViewState tracks = m_renderer.trackViewState();
    m_renderer.setTrace(std::move(trace), std::move(index));
    m_renderer.setTrackViewState(tracks);
    applyCompact();
    for (ProcessId p = 0; p < collapsed.size(); ++p)
        if (collapsed[p]) m_renderer.setCollapsed(p, true);
    m_renderer.setSelectedEvent(selected);
    m_renderer.setFlaggedOnly(flagged);
    m_renderer.setShowFlows(flows);
    m_history = std::move(history);
    m_historyPos = historyPos;
    m_t0 = t0;
    m_t1 = t1;
    updateScrollBar();
    m_scrollY = scroll;
    clampScroll();
    m_vbar->setValue(static_cast<int>(m_scrollY));
    invalidate();
}

void TimelineView::setTrackViewState(const TrackViewState& state)
{
    m_renderer.setTrackViewState(state);
    fitLabelWidth(); // a track pinned alone is labelled with its group
    updateScrollBar();
    clampScroll();
    m_vbar->setValue(static_cast<int>(m_scrollY));
    invalidate();
    emit trackViewApplied();
}

void TimelineView::setTrackFilterSpec(const TrackFilterSpec& filter)
{
    TrackViewState s = m_renderer.trackViewState();
    if (s.filter == filter) return;
    s.filter = filter;
    setTrackViewState(s);
    emit trackViewChanged();
}

void TimelineView::togglePinned(ProcessId p, TrackId t)
{
    if (!trace()) return;
    const bool pinned = t != kNone ? m_renderer.isTrackPinned(t) : m_renderer.isProcessPinned(p);
    m_renderer.setPinned(p, t, !pinned);
    fitLabelWidth();
    updateScrollBar();
    clampScroll();
    m_vbar->setValue(static_cast<int>(m_scrollY));
    invalidate();
    emit trackViewApplied();
    emit trackViewChanged();
}

bool TimelineView::togglePinnedAtCursor()
{
    const TracePtr& tr = trace();
    if (!tr) return false;
    if (m_cursorY >= 0) {
        const TimelineHit hit =
            m_renderer.hitTest(timelineGeometry(), QPointF(std::max(0.0, m_cursorX), m_cursorY));
        if (hit.process != kNone) {
            togglePinned(hit.process, hit.kind == TimelineHit::ProcessHeader ? kNone : hit.track);
            return true;
        }
    }
    const EventId e = selectedEvent();
    if (e == kNone || e >= tr->slices().size()) return false;
    const TrackId t = tr->slice(e).track;
    togglePinned(tr->tracks()[t].process, t);
    return true;
}

bool TimelineView::addTrackMenuActions(QMenu* menu, QPoint pos)
{
    const TracePtr& trc = trace();
    if (!trc) return false;
    const TimelineHit hit = m_renderer.hitTest(timelineGeometry(), pos);
    if (hit.process == kNone) return false;
    const ProcessId p = hit.process;
    const QString group = QString::fromStdString(trc->processLabel(p));
    auto shortened = [](QString s) { return s.size() > 48 ? s.left(46) + QStringLiteral("…") : s; };
    if (hit.kind != TimelineHit::ProcessHeader && hit.track != kNone) {
        const TrackId t = hit.track;
        const QString name = QString::fromStdString(trc->trackLabel(t));
        const bool pinned = m_renderer.isTrackPinned(t);
        menu->addAction(pinned ? tr("Unpin %1").arg(shortened(name))
                               : tr("Pin %1 to the top  (T)").arg(shortened(name)),
                        this, [this, p, t] { togglePinned(p, t); });
    }
    const bool groupPinned = m_renderer.isProcessPinned(p);
    menu->addAction(groupPinned ? tr("Unpin group %1").arg(shortened(group))
                                : tr("Pin group %1 to the top").arg(shortened(group)),
                    this, [this, p] { togglePinned(p, kNone); });
    if (!m_renderer.trackViewState().pinned.empty())
        menu->addAction(tr("Unpin all"), this, [this] {
            TrackViewState s = m_renderer.trackViewState();
            s.pinned.clear();
            setTrackViewState(s);
            emit trackViewChanged();
        });
    return true;
}

void TimelineView::applyCompact()
{
    const TracePtr& tr = m_renderer.trace();
    const ReportPtr& rep = m_renderer.report();
    m_renderer.setTrackFilter({});
    // Rank after rank: its steps, collectives, flagged copies and compute, no group headers.
    m_renderer.setCompactRows(m_compact && tr ? compactRankRows(*tr, rep.get(), processRanks())
                                              : std::vector<CompactRow>{});
    fitLabelWidth();
    emit trackViewApplied();
}

void TimelineView::setCompact(bool on)
{
    m_compact = on;
    applyCompact();
    updateScrollBar();
    clampScroll();
    invalidate();
}

void TimelineView::setProcessRanks(std::vector<int> rankOfProcess)
{
    m_renderer.setProcessRanks(std::move(rankOfProcess));
    if (m_compact) setCompact(true);
    invalidate();
}

int TimelineView::rankOfTrack(TrackId t) const
{
    const TracePtr& tr = m_renderer.trace();
    if (!tr || t >= tr->tracks().size()) return 0;
    const ProcessId p = tr->tracks()[t].process;
    const std::vector<int>& ranks = processRanks();
    return p != kNone && p < ranks.size() ? ranks[p] : 0;
}

void TimelineView::setFlaggedOrder(std::vector<std::vector<EventId>> groups)
{
    m_flaggedOrder = std::move(groups);
    m_flaggedOrder.erase(std::remove_if(m_flaggedOrder.begin(), m_flaggedOrder.end(),
                                        [](const auto& g) { return g.empty(); }),
                         m_flaggedOrder.end());
}

void TimelineView::setReport(ReportPtr report)
{
    m_renderer.setReport(std::move(report));
    // The compact rows depend on where the report's collectives and flagged copies are.
    if (m_compact) {
        applyCompact();
        updateScrollBar();
        clampScroll();
    }
    invalidate();
}

QSizeF TimelineView::plotSize() const
{
    const int bar = m_vbar->isVisible() ? m_vbar->width() : 0;
    return QSizeF(std::max(1, width() - bar), height());
}

TimelineGeometry TimelineView::timelineGeometry() const
{
    return m_renderer.geometry(plotSize(), m_t0, m_t1, m_scrollY);
}

QPoint TimelineView::eventCenter(EventId e) const
{
    const QRectF r = timelineGeometry().eventRect(e);
    return r.isNull() ? QPoint(-1, -1) : r.center().toPoint();
}

void TimelineView::invalidate()
{
    m_cacheValid = false;
    update();
}

void TimelineView::setVisibleRange(TimeNs t0, TimeNs t1)
{
    const TracePtr& tr = m_renderer.trace();
    if (t1 - t0 < kMinSpan) {
        const TimeNs mid = t0 / 2 + t1 / 2;
        t0 = mid - kMinSpan / 2;
        t1 = t0 + kMinSpan;
    }
    if (tr) {
        // Keep the view on the trace: at most a sliver (2% of the view) before its start or
        // after its end, so panning never goes far before 0 s.
        const TimeNs view = std::max<TimeNs>(t1 - t0, kMinSpan);
        const TimeNs lo = tr->startNs() - view / 50;
        const TimeNs hi = tr->endNs() + view / 50;
        if (t1 - t0 > hi - lo) {
            t0 = lo;
            t1 = hi;
        } else if (t0 < lo) {
            t1 += lo - t0;
            t0 = lo;
        } else if (t1 > hi) {
            t0 -= t1 - hi;
            t1 = hi;
        }
    }
    if (t0 == m_t0 && t1 == m_t1) return;
    m_t0 = t0;
    m_t1 = t1;
    invalidate();
    emit visibleRangeChanged(m_t0, m_t1);
}

void TimelineView::zoomToRange(TimeNs t0, TimeNs t1)
{
    if (t1 < t0) std::swap(t0, t1);
    setVisibleRange(t0, t1);
}

void TimelineView::zoomBy(double factor, double anchorX)
{
    const TimelineGeometry g = timelineGeometry();
    const double plotW = std::max(1.0, g.plotRect().width());
    const double frac = std::clamp((anchorX - g.labelWidth) / plotW, 0.0, 1.0);
    const double span = static_cast<double>(m_t1 - m_t0);
    const double newSpan = std::max(static_cast<double>(kMinSpan), span * factor);
    const double anchorT = static_cast<double>(m_t0) + frac * span;
    const TimeNs t0 = static_cast<TimeNs>(std::llround(anchorT - frac * newSpan));
    setVisibleRange(t0, t0 + static_cast<TimeNs>(std::llround(newSpan)));
}

void TimelineView::panByPixels(double dx)
{
    const TimeNs dt = static_cast<TimeNs>(std::llround(dx * timelineGeometry().nsPerPixel()));
    setVisibleRange(m_t0 + dt, m_t1 + dt);
}

void TimelineView::showAll()
{
    const TracePtr& tr = m_renderer.trace();
    if (!tr) {
        m_t0 = 0;
        m_t1 = 1;
        invalidate();
        return;
    }
    const TimeNs span = std::max<TimeNs>(tr->endNs() - tr->startNs(), kMinSpan);
    setVisibleRange(tr->startNs() - span / 100, tr->endNs() + span / 100);
}

void TimelineView::fitActivity()
{
    m_activityView.reset();
    m_activityNote.clear();
    const TimelineIndex* index = m_renderer.index();
    if (!trace() || !index || !index->activity()) {
        showAll();
        return;
    }
    // The same margin as showAll(): a trace without outliers opens as before.
    const auto [a, b] = *index->activity();
    const TimeNs span = std::max<TimeNs>(b - a, kMinSpan);
    setVisibleRange(a - span / 100, b + span / 100);
    // Less than the trace's span: the ruler's corner says so while this view lasts.
    const TimeNs whole = trace()->endNs() - trace()->startNs();
    if (whole > (b - a) + (b - a) / 20) {
        m_activityView = {m_t0, m_t1};
        m_activityNote = QStringLiteral("activity %1 of %2 · 0: all")
                             .arg(QString::fromStdString(formatDuration(b - a)),
                                  QString::fromStdString(formatDuration(whole)));
    }
}

QString TimelineView::activityNote() const
{
    return m_activityView && m_activityView->first == m_t0 && m_activityView->second == m_t1
               ? m_activityNote
               : QString();
}

void TimelineView::fitSelection()
{
    const EventId e = m_renderer.selectedEvent();
    if (!trace() || e == kNone) return;
    const Slice& s = trace()->slice(e);
    const TimeNs pad = std::max<TimeNs>(s.dur / 10, 50);
    zoomToRange(s.start - pad, s.end() + pad);
    revealEvent(e);
}

void TimelineView::revealEvent(EventId e)
{
    const TracePtr& tr = trace();
    if (!tr || e >= tr->slices().size()) return;
    const Slice& s = tr->slice(e);
    const ProcessId p = tr->tracks()[s.track].process;
    if (m_renderer.isCollapsed(p)) {
        m_renderer.setCollapsed(p, false);
        updateScrollBar();
        invalidate();
    }
    // Horizontal: keep the zoom when the event fits, else fit it.
    const TimeNs span = m_t1 - m_t0;
    if (s.dur > span * 9 / 10) {
        const TimeNs pad = std::max<TimeNs>(s.dur / 10, 50);
        zoomToRange(s.start - pad, s.end() + pad);
    } else if (s.start < m_t0 || s.end() > m_t1) {
        const TimeNs mid = s.start + s.dur / 2;
        setVisibleRange(mid - span / 2, mid - span / 2 + span);
    }
    // Compact mode leaves the event's row out (a Python frame clicked in the call stack):
    // show every row again rather than select something the user cannot see.
    if (m_compact && timelineGeometry().eventRect(e).isNull()) {
        setCompact(false);
        emit compactChanged(false);
    }
    // Vertical: bring the slice row into the plot with some context.
    const TimelineGeometry g = timelineGeometry();
    const int row = g.layout ? g.layout->rowOfTrack(s.track) : -1;
    // Pinned rows are always in view; the others scroll in the area under the pinned band.
    if (row >= 0 && !g.layout->rows()[static_cast<std::size_t>(row)].pinned) {
        const double band = g.layout->pinnedHeight();
        const TimelineRow& r = g.layout->rows()[static_cast<std::size_t>(row)];
        const double y =
            r.y - band + std::max(0, int(s.depth) - r.firstDepth) * TimelineLayout::kSliceRowHeight;
        const double visibleH = height() - g.rulerHeight - band;
        if (y < m_scrollY || y + TimelineLayout::kSliceRowHeight > m_scrollY + visibleH) {
            m_scrollY = std::max(0.0, y - visibleH / 3);
            clampScroll();
            m_vbar->setValue(static_cast<int>(m_scrollY));
            invalidate();
        }
    }
}

void TimelineView::selectEvent(EventId e, bool reveal)
{
    const TracePtr& tr = trace();
    if (!tr || (e != kNone && e >= tr->slices().size())) return;
    if (e != kNone) pushHistory({e, m_area});
    const bool changed = m_renderer.selectedEvent() != e;
    m_renderer.setSelectedEvent(e);
    if (reveal && e != kNone) revealEvent(e);
    invalidate();
    if (changed) emit eventSelected(e);
}

bool TimelineView::historyBack()
{
    if (m_historyPos <= 0) return false;
    --m_historyPos;
    restoreHistory(m_history[static_cast<std::size_t>(m_historyPos)]);
    return true;
}

bool TimelineView::historyForward()
{
    if (m_historyPos + 1 >= static_cast<int>(m_history.size())) return false;
    ++m_historyPos;
    restoreHistory(m_history[static_cast<std::size_t>(m_historyPos)]);
    return true;
}

void TimelineView::pushHistory(const HistoryEntry& entry)
{
    if (m_historyPos >= 0 && m_history[static_cast<std::size_t>(m_historyPos)] == entry) return;
    m_history.resize(m_historyPos < 0 ? 0 : static_cast<std::size_t>(m_historyPos) + 1);
    m_history.push_back(entry);
    m_historyPos = static_cast<int>(m_history.size()) - 1;
}

void TimelineView::restoreHistory(const HistoryEntry& entry)
{
    const bool areaChanged = !(entry.area == m_area);
    m_area = entry.area;
    m_renderer.setSelectedEvent(entry.event);
    if (entry.event != kNone) {
        revealEvent(entry.event);
    } else if (m_area.valid()) {
        const TimeNs pad = std::max<TimeNs>((m_area.t1 - m_area.t0) / 10, 1);
        zoomToRange(m_area.t0 - pad, m_area.t1 + pad);
    }
    invalidate();
    if (areaChanged) emit areaSelected(m_area);
    emit eventSelected(entry.event);
}

std::vector<TimelineView::FlaggedStop> TimelineView::flaggedStops(FlaggedWalk walk) const
{
    std::vector<FlaggedStop> out;
    const ReportPtr& rep = report();
    auto keep = [&](EventId e) {
        return walk == FlaggedWalk::All ||
               (rep && flagged::roleOf(*rep, e) == flagged::Role::Cause);
    };
    if (!m_flaggedOrder.empty() && trace()) {
        // A job: per cross-rank instance (its start the key), the delaying rank's op first.
        const Trace& t = *trace();
        for (const auto& group : m_flaggedOrder) {
            TimeNs key = t.slice(group.front()).start;
            for (EventId e : group)
                key = std::min(key, t.slice(e).start);
            for (EventId e : group)
                if (keep(e)) out.push_back({e, key});
        }
        return out;
    }
    if (rep)
        for (const Collective& c : rep->collectives)
            if (c.event != kNone && flagged::roleOf(c) != flagged::Role::None && keep(c.event))
                out.push_back({c.event, c.start});
    return out;
}

std::vector<EventId> TimelineView::flaggedSequence(FlaggedWalk walk) const
{
    std::vector<EventId> out;
    for (const FlaggedStop& s : flaggedStops(walk))
        out.push_back(s.event);
    return out;
}

std::optional<std::pair<int, int>> TimelineView::flaggedPosition(EventId e) const
{
    if (e == kNone) return std::nullopt;
    const std::vector<EventId> seq = flaggedSequence();
    const auto it = std::find(seq.begin(), seq.end(), e);
    if (it == seq.end()) return std::nullopt;
    return std::make_pair(int(it - seq.begin()) + 1, int(seq.size()));
}

std::optional<TimelineView::FlaggedPlace> TimelineView::flaggedPlace(EventId e) const
{
    const ReportPtr& rep = report();
    if (e == kNone || !rep) return std::nullopt;
    const flagged::Role role = flagged::roleOf(*rep, e);
    if (role == flagged::Role::None) return std::nullopt;
    FlaggedPlace place;
    place.role = role;
    for (EventId x : flaggedSequence()) {
        if (flagged::roleOf(*rep, x) != role) continue;
        ++place.n;
        if (x == e) place.k = place.n;
    }
    if (place.k == 0) return std::nullopt;
    return place;
}

void TimelineView::setFlaggedChip(const QString& text)
{
    if (text == m_flaggedChip) return;
    m_flaggedChip = text;
    update();
}

QRectF TimelineView::flaggedChipRect() const
{
    if (m_flaggedChip.isEmpty() || !trace()) return {};
    const TimelineGeometry g = timelineGeometry();
    // In the ruler's cell over the labels ("from trace start"): it covers no track.
    const double h = std::min(g.rulerHeight - 6, QFontMetricsF(font()).height() + 6);
    return QRectF(4, (g.rulerHeight - h) / 2, std::max(20.0, g.labelWidth - 8), h);
}

bool TimelineView::selectNextFlagged(int direction, FlaggedWalk walk)
{
    const bool moved = stepFlagged(direction, walk);
    if (moved) emit flaggedStepped(selectedEvent());
    return moved;
}

bool TimelineView::stepFlagged(int direction, FlaggedWalk walk)
{
    std::vector<FlaggedStop> stops = flaggedStops(walk);
    // Nothing caused anything here (only waits, say): N walks what there is.
    if (stops.empty() && walk == FlaggedWalk::Causes) stops = flaggedStops(FlaggedWalk::All);
    if (stops.empty() || !trace()) return false;
    const auto n = static_cast<long>(stops.size());
    const EventId current = m_renderer.selectedEvent();
    // On a stop: the next (previous) one, wrapping around.
    for (long i = 0; i < n; ++i)
        if (stops[std::size_t(i)].event == current) {
            selectEvent(stops[std::size_t(((i + direction) % n + n) % n)].event);
            return true;
        }
    // Elsewhere: the first stop after it (N) or the last before it (P).
    const TimeNs ref = current != kNone && current < trace()->slices().size()
                           ? trace()->slice(current).start
                           : (direction > 0 ? m_t0 - 1 : m_t1);
    if (direction > 0) {
        for (const FlaggedStop& s : stops)
            if (s.key > ref) {
                selectEvent(s.event);
                return true;
            }
        selectEvent(stops.front().event);
    } else {
        for (auto it = stops.rbegin(); it != stops.rend(); ++it)
            if (it->key < ref) {
                selectEvent(it->event);
                return true;
            }
        selectEvent(stops.back().event);
    }
    return true;
}

void TimelineView::setRangeSelection(TimeNs a, TimeNs b)
{
    m_renderer.setRangeSelection(a, b);
    invalidate();
    if (b != a) emit rangeSelected(std::min(a, b), std::max(a, b));
}

void TimelineView::setHighlights(std::vector<EventId> events)
{
    m_renderer.setHighlights(std::move(events));
    invalidate();
}

void TimelineView::setFlaggedOnly(bool on)
{
    m_renderer.setFlaggedOnly(on);
    invalidate();
}

void TimelineView::setShowFlows(bool on)
{
    m_renderer.setShowFlows(on);
    invalidate();
}

void TimelineView::setHelpVisible(bool on)
{
    m_helpVisible = on;
    update();
}

void TimelineView::updateScrollBar()
{
    const double content = m_renderer.contentHeight();
    const double visible = height() - TimelineGeometry::kRulerHeight;
    const int max = static_cast<int>(std::max(0.0, content - visible + 20));
    m_vbar->setRange(0, max);
    m_vbar->setPageStep(static_cast<int>(std::max(1.0, visible)));
    m_vbar->setSingleStep(static_cast<int>(TimelineLayout::kSliceRowHeight));
    m_vbar->setVisible(max > 0);
    m_vbar->setGeometry(width() - m_vbar->sizeHint().width(), 0, m_vbar->sizeHint().width(),
                        height());
    clampScroll();
}

void TimelineView::clampScroll()
{
    m_scrollY = std::clamp(m_scrollY, 0.0, static_cast<double>(m_vbar->maximum()));
}

void TimelineView::resizeEvent(QResizeEvent*)
{
    updateScrollBar();
    invalidate();
}

void TimelineView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        m_renderer.setStyle(TimelineStyle::fromPalette(palette()));
        invalidate();
    }
    QWidget::changeEvent(event);
}

void TimelineView::paintEvent(QPaintEvent*)
{
    const TimelineGeometry g = timelineGeometry();
    const qreal dpr = devicePixelRatioF();
    const QSize px = (g.size * dpr).toSize();
    if (!m_cacheValid || m_cache.size() != px) {
        m_cache = QPixmap(px);
        m_cache.setDevicePixelRatio(dpr);
        QPainter cp(&m_cache);
        cp.setFont(font());
        m_renderer.paint(cp, g);
        m_cacheValid = true;
        ++m_renderCount;
    }
    QPainter p(this);
    p.drawPixmap(0, 0, m_cache);
    if (!trace()) return;
    paintArea(p, g, m_drag == Drag::Area ? m_areaDraft : m_area);
    const QRectF plot = g.plotRect();
    if (const QRectF box = cursorTimeRect(); !box.isEmpty()) {
        // The cursor's time (relative to trace start) sits in the row of the ruler's labels;
        // the tick labels it would cut give way to it, as to a range's duration (covered in
        // the ruler's colour over the cached frame, which stays).
        const TimelineStyle& st = m_renderer.style();
        const QRectF ruler(plot.left(), 0, plot.width(), g.rulerHeight);
        for (const TimelineRenderer::RulerTick& t : m_renderer.rulerText(g, font()).ticks)
            if (!t.hidden && t.rect.adjusted(-2, 0, 2, 0).intersects(box))
                p.fillRect(t.rect.adjusted(-1, -1, 1, 1) & ruler, st.ruler);
        p.setPen(QPen(st.cursor, 1));
        p.drawLine(QPointF(m_cursorX, 0), QPointF(m_cursorX, height()));
        p.fillRect(box, st.cursor);
        p.setPen(st.inkOnMark);
        p.drawText(box, Qt::AlignCenter, cursorTimeText());
    }
    if (const QRectF chip = flaggedChipRect(); !chip.isEmpty()) {
        // Where N / P are: "3 of 16 flagged · rank 2".
        const TimelineStyle& st = m_renderer.style();
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(Qt::NoPen);
        p.setBrush(st.anomaly);
        p.drawRoundedRect(chip, 4, 4);
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.setPen(st.inkOnMark);
        p.drawText(
            chip, Qt::AlignCenter,
            QFontMetricsF(bold).elidedText(m_flaggedChip, Qt::ElideRight, chip.width() - 10));
        p.setFont(font());
        p.setRenderHint(QPainter::Antialiasing, false);
    }
    if (const QString note = activityNote(); !note.isEmpty() && flaggedChipRect().isEmpty()) {
        // Over "from trace start" in the ruler's corner: the first view is the activity, not
        // the trace's whole span (far-off events left out).
        const TimelineStyle& st = m_renderer.style();
        const QRectF cell(1, 1, g.labelWidth - 2, g.rulerHeight - 2);
        p.fillRect(cell, st.ruler);
        p.setPen(st.dimText);
        p.drawText(cell.adjusted(8, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetricsF(font()).elidedText(note, Qt::ElideRight, cell.width() - 12));
    }
    if (m_helpVisible) paintHelp(p);
    if (m_announcePaint) {
        m_announcePaint = false;
        emit tracePainted();
    }
}

QString TimelineView::cursorTimeText() const
{
    const TimelineGeometry g = timelineGeometry();
    return QString::fromStdString(formatDuration(g.timeAt(m_cursorX) - g.traceStart));
}

QRectF TimelineView::cursorTimeRect() const
{
    const TimelineGeometry g = timelineGeometry();
    const QRectF plot = g.plotRect();
    if (!trace() || m_cursorX < plot.left() || m_cursorX > plot.right()) return {};
    const QFontMetricsF fm(font());
    const double w = fm.horizontalAdvance(cursorTimeText()) + 10;
    const double x = std::max(plot.left(), std::min(m_cursorX + 2, plot.right() - w));
    // The tick labels' band: their baseline is 12 px above the ruler's bottom.
    const double baseline = g.rulerHeight - 12;
    return QRectF(x, baseline - fm.ascent() - 1, w, fm.ascent() + fm.descent() + 2);
}

QString TimelineView::helpText()
{
    return QStringLiteral("W / S, Ctrl+wheel\tzoom in / out around the cursor\n"
                          "A / D, middle-drag, Shift+wheel\tpan left / right\n"
                          "wheel, drag over the labels\tscroll tracks up / down\n"
                          "click\tselect an event (details, call stack)\n"
                          "drag on the ruler\tselect a time range (duration shown)\n"
                          "drag over the tracks\tselect an area: time range x tracks (statistics)\n"
                          "Enter\tzoom to the selected range\n"
                          "F\tfit the selected event\n"
                          "0\tshow the whole trace\n"
                          "N / P\tnext / previous cause (op that made others wait)\n"
                          "Shift+N / Shift+P\tnext / previous flagged op, waiters too\n"
                          "Alt+Left / Alt+Right\tback / forward in selection history\n"
                          "click a group header\tcollapse / expand it\n"
                          "T, right-click a label\tpin / unpin the track (group) to the top\n"
                          "Ctrl+F\tsearch event names (Enter next, Shift+Enter previous)\n"
                          "Esc\tclear the range selection, close this help\n"
                          "?\tshow / hide this help");
}

TimelineView::HelpLayout TimelineView::helpLayout() const
{
    // Sized from the text: the widest key and description of each column, wrapped into more
    // columns when the lines would not fit the height.
    HelpLayout l;
    const QStringList lines = helpText().split('\n');
    QFont bold = font();
    bold.setBold(true);
    const QFontMetricsF fm(font()), bfm(bold);
    const double lh = fm.height() + 4, pad = 16, gap = 16, colGap = 28;
    l.title = QStringLiteral("Keys and mouse");
    const double titleH = lh * 1.3;
    const double availH = std::max(lh * 3, height() - 20.0);
    const int fit = std::max(1, static_cast<int>((availH - 16 - titleH) / lh));
    const int columns = std::max(1, (static_cast<int>(lines.size()) + fit - 1) / fit);
    const int perColumn = (static_cast<int>(lines.size()) + columns - 1) / columns;
    std::vector<double> keyW(static_cast<std::size_t>(columns), 0),
        descW(static_cast<std::size_t>(columns), 0);
    for (int i = 0; i < lines.size(); ++i) {
        const QStringList parts = lines[i].split('\t');
        const auto c = static_cast<std::size_t>(i / perColumn);
        keyW[c] = std::max(keyW[c], std::ceil(bfm.horizontalAdvance(parts.value(0))) + 2);
        descW[c] = std::max(descW[c], std::ceil(fm.horizontalAdvance(parts.value(1))) + 2);
    }
    double w = 2 * pad;
    std::vector<double> colX;
    for (int c = 0; c < columns; ++c) {
        if (c > 0) w += colGap;
        colX.push_back(w - pad);
        w += keyW[static_cast<std::size_t>(c)] + gap + descW[static_cast<std::size_t>(c)];
    }
    w = std::max(w, std::ceil(bfm.horizontalAdvance(l.title)) + 2 * pad);
    const double h = 8 + titleH + lh * perColumn + 8;
    l.box = QRectF(std::max(0.0, (width() - w) / 2), std::max(0.0, (height() - h) / 2), w, h);
    l.titleRect = QRectF(l.box.left() + pad, l.box.top() + 8, w - 2 * pad, lh);
    for (int i = 0; i < lines.size(); ++i) {
        const QStringList parts = lines[i].split('\t');
        const auto c = static_cast<std::size_t>(i / perColumn);
        const double x = l.box.left() + pad + colX[c];
        const double y = l.box.top() + 8 + titleH + lh * (i % perColumn);
        l.keys.push_back(parts.value(0));
        l.descriptions.push_back(parts.value(1));
        l.keyRects.emplace_back(x, y, keyW[c], lh);
        l.descriptionRects.emplace_back(x + keyW[c] + gap, y, descW[c], lh);
    }
    return l;
}

void TimelineView::paintHelp(QPainter& p) const
{
    const HelpLayout l = helpLayout();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(Qt::NoPen);
    const TimelineStyle& st = m_renderer.style();
    p.setBrush(st.overlay);
    p.drawRoundedRect(l.box, 8, 8);
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(st.overlayText);
    p.drawText(l.titleRect, Qt::AlignLeft, l.title);
    for (qsizetype i = 0; i < l.keys.size(); ++i) {
        p.setFont(bold);
        p.setPen(st.overlayKey);
        p.drawText(l.keyRects[std::size_t(i)], Qt::AlignLeft, l.keys[i]);
        p.setFont(font());
        p.setPen(st.overlayText);
        p.drawText(l.descriptionRects[std::size_t(i)], Qt::AlignLeft, l.descriptions[i]);
    }
}

void TimelineView::mousePressEvent(QMouseEvent* event)
{
    setFocus(Qt::MouseFocusReason);
    m_pressPos = event->position();
    m_pressT0 = m_t0;
    m_pressT1 = m_t1;
    m_pressScroll = m_scrollY;
    m_moved = false;
    const TimelineGeometry g = timelineGeometry();
    // The middle button pans (both ways), wherever it is pressed.
    if (event->button() == Qt::MiddleButton) {
        m_drag = Drag::Pan;
        setCursor(Qt::ClosedHandCursor);
        return;
    }
    if (event->button() != Qt::LeftButton) return;
    if (std::abs(event->position().x() - g.labelWidth) <= 3) {
        m_drag = Drag::Labels;
        return;
    }
    const TimelineHit hit = m_renderer.hitTest(g, event->position());
    if (hit.kind == TimelineHit::Ruler) {
        m_drag = Drag::Range;
        m_rangeAnchor = hit.time;
        return;
    }
    if (hit.kind == TimelineHit::ProcessHeader) {
        m_renderer.setCollapsed(hit.process, !m_renderer.isCollapsed(hit.process));
        updateScrollBar();
        invalidate();
        m_drag = Drag::None;
        return;
    }
    // Over the labels a drag scrolls the tracks up and down.
    if (event->position().x() < g.labelWidth) {
        m_drag = Drag::Scroll;
        return;
    }
    // Over the tracks a drag selects an area: a time range x the tracks it crosses (as in
    // Perfetto; Shift+drag too). A press without a move is a click.
    if (event->position().y() > g.rulerHeight) {
        m_drag = Drag::Area;
        m_areaAnchorT = g.timeAt(event->position().x());
        m_areaAnchorY = g.contentYAt(event->position().y());
        m_areaDraft = {};
        return;
    }
    m_drag = Drag::None;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event)
{
    const QPointF pos = event->position();
    m_cursorX = pos.x();
    m_cursorY = pos.y();
    const TimelineGeometry g = timelineGeometry();
    if (m_drag == Drag::None) {
        setCursor(std::abs(pos.x() - g.labelWidth) <= 3 ? Qt::SplitHCursor : Qt::ArrowCursor);
        update();
        return;
    }
    if ((pos - m_pressPos).manhattanLength() > 3) m_moved = true;
    if (m_drag == Drag::Labels) {
        m_renderer.setLabelWidth(std::clamp(pos.x(), 80.0, width() * 0.6));
        m_labelWidthByUser = true;
        invalidate();
    } else if (m_drag == Drag::Range) {
        m_renderer.setRangeSelection(m_rangeAnchor, g.timeAt(pos.x()));
        invalidate();
    } else if (m_drag == Drag::Area) {
        const TimeNs t = g.timeAt(std::clamp(pos.x(), g.plotRect().left(), g.plotRect().right()));
        const double y = g.contentYAt(std::max(pos.y(), g.rulerHeight)); // pinned rows stay
        m_areaDraft.t0 = std::min(t, m_areaAnchorT);
        m_areaDraft.t1 = std::max(t, m_areaAnchorT);
        m_areaDraft.tracks = tracksBetween(std::min(y, m_areaAnchorY), std::max(y, m_areaAnchorY));
    } else if ((m_drag == Drag::Pan || m_drag == Drag::Scroll) && m_moved) {
        if (m_drag == Drag::Pan) {
            const double nsPx =
                static_cast<double>(m_pressT1 - m_pressT0) / std::max(1.0, g.plotRect().width());
            const TimeNs dt = static_cast<TimeNs>(std::llround((pos.x() - m_pressPos.x()) * nsPx));
            setVisibleRange(m_pressT0 - dt, m_pressT1 - dt);
        }
        const double newScroll = std::clamp(m_pressScroll - (pos.y() - m_pressPos.y()), 0.0,
                                            static_cast<double>(m_vbar->maximum()));
        if (newScroll != m_scrollY) {
            m_scrollY = newScroll;
            m_vbar->setValue(static_cast<int>(m_scrollY));
            invalidate();
        }
    }
    update();
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event)
{
    const Drag drag = m_drag;
    m_drag = Drag::None;
    if (drag == Drag::Pan) setCursor(Qt::ArrowCursor);
    if (event->button() != Qt::LeftButton) return;
    const TimelineGeometry g = timelineGeometry();
    if (drag == Drag::Area) {
        if (m_moved && m_areaDraft.valid()) {
            setArea(m_areaDraft);
            return;
        }
        // A click: it clears the area and selects what is under it (or nothing).
        m_areaDraft = {};
        if (m_area.valid()) setArea({});
        const TimelineHit hit = m_renderer.hitTest(g, event->position());
        if (hit.kind == TimelineHit::Event || hit.kind == TimelineHit::Folded)
            selectEvent(hit.event, false);
        else if (hit.kind == TimelineHit::None && !(event->modifiers() & Qt::ShiftModifier))
            selectEvent(kNone, false);
        update();
        return;
    }
    if (drag == Drag::Range) {
        if (!m_moved)
            setRangeSelection(0, 0);
        else
            setRangeSelection(m_rangeAnchor, g.timeAt(event->position().x()));
        return;
    }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* event)
{
    const TimelineHit hit = m_renderer.hitTest(timelineGeometry(), event->position());
    if (hit.kind == TimelineHit::Event || hit.kind == TimelineHit::Folded) {
        selectEvent(hit.event, false);
        fitSelection();
    }
}

void TimelineView::wheelEvent(QWheelEvent* event)
{
    // As in Perfetto and Nsight Systems: the wheel scrolls the tracks, Ctrl+wheel zooms about
    // the cursor, Shift+wheel (and a touchpad's sideways swipe) pans. setWheelZooms(true) gives
    // the plain wheel the zoom instead (View > Wheel zooms).
    const QPointF pos = event->position();
    const TimelineGeometry g = timelineGeometry();
    const QPoint delta = event->angleDelta();
    const Qt::KeyboardModifiers mods = event->modifiers();
    // X11 and some mice turn a Shift+wheel into a horizontal one: either axis pans.
    if (mods & Qt::ShiftModifier) {
        const int d = delta.y() != 0 ? delta.y() : delta.x();
        panByPixels(-d / 120.0 * g.plotRect().width() * 0.1);
        return;
    }
    const bool zoom = (mods & Qt::ControlModifier) || (m_wheelZooms && pos.x() >= g.labelWidth);
    if (zoom) {
        const int d = delta.y() != 0 ? delta.y() : delta.x();
        const double anchor = pos.x() >= g.labelWidth ? pos.x() : g.plotRect().center().x();
        if (d != 0) zoomBy(std::pow(0.8, d / 120.0), anchor);
        return;
    }
    if (delta.x() != 0 && delta.y() == 0) { // horizontal scrolling on touchpads
        panByPixels(-delta.x() / 120.0 * g.plotRect().width() * 0.1);
        return;
    }
    // A notch (120) scrolls three slice rows, as a text view scrolls three lines.
    if (delta.y() != 0)
        m_vbar->setValue(m_vbar->value() -
                         int(std::lround(delta.y() / 120.0 * 3 * TimelineLayout::kSliceRowHeight)));
}

void TimelineView::keyPressEvent(QKeyEvent* event)
{
    const TimelineGeometry g = timelineGeometry();
    const double anchor = m_cursorX >= g.labelWidth ? m_cursorX : g.plotRect().center().x();
    const bool alt = event->modifiers() & Qt::AltModifier;
    switch (event->key()) {
    case Qt::Key_W:
        zoomBy(0.7, anchor);
        return;
    case Qt::Key_S:
        zoomBy(1 / 0.7, anchor);
        return;
    case Qt::Key_A:
        panByPixels(-g.plotRect().width() * 0.2);
        return;
    case Qt::Key_D:
        panByPixels(g.plotRect().width() * 0.2);
        return;
    case Qt::Key_F:
        fitSelection();
        return;
    case Qt::Key_0:
        showAll();
        return;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        if (m_renderer.hasRangeSelection())
            zoomToRange(m_renderer.rangeBegin(), m_renderer.rangeEnd());
        return;
    // N / P walk the causes (the ops that made the others wait); Shift+N / Shift+P every
    // flagged op, waiters included.
    case Qt::Key_N:
        selectNextFlagged(+1, event->modifiers() & Qt::ShiftModifier ? FlaggedWalk::All
                                                                     : FlaggedWalk::Causes);
        return;
    case Qt::Key_P:
        selectNextFlagged(-1, event->modifiers() & Qt::ShiftModifier ? FlaggedWalk::All
                                                                     : FlaggedWalk::Causes);
        return;
    case Qt::Key_Left:
        if (alt) {
            historyBack();
            return;
        }
        panByPixels(-g.plotRect().width() * 0.1);
        return;
    case Qt::Key_Right:
        if (alt) {
            historyForward();
            return;
        }
        panByPixels(g.plotRect().width() * 0.1);
        return;
    case Qt::Key_Question:
        setHelpVisible(!m_helpVisible);
        return;
    case Qt::Key_T:
        if (!(event->modifiers() & (Qt::ControlModifier | Qt::AltModifier))) {
            togglePinnedAtCursor();
            return;
        }
        break;
    case Qt::Key_Escape:
        if (m_helpVisible) {
            setHelpVisible(false);
        } else {
            setRangeSelection(0, 0);
            if (m_area.valid()) setArea({});
        }
        return;
    default:
        break;
    }
    if (event->text() == QLatin1String("?")) {
        setHelpVisible(!m_helpVisible);
        return;
    }
    QWidget::keyPressEvent(event);
}

void TimelineView::leaveEvent(QEvent*)
{
    m_cursorX = -1;
    m_cursorY = -1;
    update();
}

QString TimelineView::tooltipAt(QPointF pos) const
{
    const TimelineGeometry g = timelineGeometry();
    const TimelineHit hit = m_renderer.hitTest(g, pos);
    const TracePtr& tr = trace();
    if (!tr) return {};
    auto rel = [&](TimeNs t) { return QString::fromStdString(formatDuration(t - tr->startNs())); };
    if (hit.kind == TimelineHit::Folded) {
        return QStringLiteral("%1 events folded here\nzoom in to see them").arg(hit.foldedCount);
    }
    if (hit.kind == TimelineHit::Counter) {
        return QStringLiteral("%1\n%2 at %3")
            .arg(QString::fromStdString(tr->trackLabel(hit.track)))
            .arg(counterValueText(*tr, hit.track, hit.counterValue))
            .arg(rel(hit.time));
    }
    if (hit.kind != TimelineHit::Event) return {};
    const Slice& s = tr->slice(hit.event);
    QString text = QStringLiteral("<b>%1</b><br>start %2<br>duration %3")
                       .arg(QString::fromStdString(tr->str(s.name)).toHtmlEscaped(), rel(s.start),
                            QString::fromStdString(formatDuration(s.dur)));
    if (const ReportPtr& rep = report()) {
        const std::uint8_t marks = rep->marks(hit.event);
        if (const Collective* c = rep->collectiveOf(hit.event)) {
            if (c->event == hit.event && !c->verdict.empty())
                text += QStringLiteral("<br>") + QString::fromStdString(c->verdict).toHtmlEscaped();
            for (const InternalCopy& cp : c->copies)
                if (cp.event == hit.event && (cp.unalignedSize || cp.unalignedAddress)) {
                    const std::uint64_t b = rep->options.sizeAlign;
                    if (cp.unalignedSize)
                        text += QStringLiteral(
                                    "<br>unaligned: size %1 B, boundary %2 B, remainder %3 B")
                                    .arg(cp.bytes)
                                    .arg(b)
                                    .arg(b ? cp.bytes % b : 0);
                    if (const std::string a =
                            presentation::misalignedAddress(cp, rep->options.addrAlign);
                        !a.empty())
                        text += QStringLiteral("<br>unaligned: ") + QString::fromStdString(a);
                }
        }
        if (marks & kMarkInternalMemcpy)
            text += QStringLiteral("<br>internal memcpy of a collective");
        if (marks & kMarkExtraMemcpy) text += QStringLiteral(" (extra: above the baseline)");
    }
    return text;
}

bool TimelineView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = tooltipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void TimelineView::setArea(const TimelineArea& area)
{
    m_area = area.valid() ? area : TimelineArea{};
    if (m_area.valid()) pushHistory({m_renderer.selectedEvent(), m_area});
    update();
    emit areaSelected(m_area);
}

std::vector<TrackId> TimelineView::tracksBetween(double contentY0, double contentY1) const
{
    std::vector<TrackId> out;
    const TimelineLayout* layout = m_renderer.layout();
    const TracePtr& tr = trace();
    if (!layout || !tr) return out;
    for (const TimelineRow& row : layout->rows()) {
        if (row.y + row.height <= contentY0 || row.y > contentY1) continue;
        if (row.kind != RowKind::ProcessHeader) {
            if (row.track != kNone) out.push_back(row.track);
        } else if (row.process != kNone && m_renderer.isCollapsed(row.process)) {
            const auto tracks = layout->groupTracks(row); // those the track filter shows
            out.insert(out.end(), tracks.begin(), tracks.end());
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

QRectF TimelineView::areaRect(const TimelineArea& area) const
{
    const TimelineGeometry g = timelineGeometry();
    const TracePtr& tr = trace();
    if (!area.valid() || !g.valid() || !tr) return {};
    double top = 0, bottom = 0;
    bool any = false;
    auto take = [&](QRectF r, int row) {
        // A scrolling row's part under the pinned band is hidden: the area stops at the band.
        if (row >= 0 && !g.layout->rows()[std::size_t(row)].pinned)
            r.setTop(std::max(r.top(), g.scrollTop()));
        if (r.isEmpty() || r.height() <= 0) return;
        top = any ? std::min(top, r.top()) : r.top();
        bottom = any ? std::max(bottom, r.bottom()) : r.bottom();
        any = true;
    };
    for (TrackId t : area.tracks) {
        if (t >= tr->tracks().size()) continue;
        const ProcessId p = tr->tracks()[t].process;
        if (p != kNone && m_renderer.isCollapsed(p)) {
            const int row = m_renderer.layout() ? m_renderer.layout()->rowOfProcess(p) : -1;
            if (row >= 0) take(g.rowRect(row), row);
        } else {
            take(g.trackRect(t), g.layout->rowOfTrack(t));
        }
    }
    if (!any) return {};
    const QRectF plot = g.plotRect();
    const double x0 = std::clamp(g.xOf(area.t0), plot.left(), plot.right());
    const double x1 = std::clamp(g.xOf(area.t1), plot.left(), plot.right());
    return QRectF(QPointF(x0, std::max(top, plot.top())),
                  QPointF(std::max(x1, x0 + 1), std::min(bottom, plot.bottom())));
}

QString TimelineView::areaLabelText(const TimelineArea& area) const
{
    const int n = int(area.tracks.size());
    return QStringLiteral("%1 · %2 %3")
        .arg(QString::fromStdString(formatDuration(area.t1 - area.t0)))
        .arg(n)
        .arg(n == 1 ? tr("track") : tr("tracks"));
}

QRectF TimelineView::areaLabelRect(const TimelineArea& area) const
{
    const QRectF r = areaRect(area);
    if (r.isEmpty() || r.height() <= 0) return {};
    const TimelineGeometry g = timelineGeometry();
    const QRectF plot = g.plotRect();
    const QFontMetricsF fm(font());
    const double w = fm.horizontalAdvance(areaLabelText(area)) + 10, h = fm.height() + 2;
    const double cx = std::clamp(r.center().x(), plot.left() + w / 2,
                                 std::max(plot.left() + w / 2, plot.right() - w / 2));
    // The row of the tick labels (their baseline is 12 px above the ruler's bottom).
    const double baseline = g.rulerHeight - 12;
    return QRectF(cx - w / 2, std::max(0.0, baseline - fm.ascent() - 1), w, h);
}

void TimelineView::paintArea(QPainter& p, const TimelineGeometry& g, const TimelineArea& area) const
{
    const QRectF r = areaRect(area);
    if (r.isEmpty() || r.height() <= 0) return;
    p.save();
    // Blue like Perfetto's area selection, apart from the event selection's outline.
    const QColor ink = m_renderer.style().areaInk;
    p.fillRect(r, m_renderer.style().areaFill);
    p.setPen(QPen(ink, 1.5, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawRect(r);
    // Duration and track count in the ruler over the area (like a range's duration), where no
    // finding label or slice is: the tick labels under it give way.
    const QRectF box = areaLabelRect(area);
    if (!box.isEmpty()) {
        const TimelineStyle& st = m_renderer.style();
        const QRectF ruler(g.labelWidth, 0, g.size.width() - g.labelWidth, g.rulerHeight);
        for (const TimelineRenderer::RulerTick& t : m_renderer.rulerText(g, font()).ticks)
            if (!t.hidden && t.rect.adjusted(-2, 0, 2, 0).intersects(box))
                p.fillRect(t.rect.adjusted(-1, -1, 1, 1) & ruler, st.ruler);
        QColor band = ink;
        band.setAlpha(60);
        p.fillRect(QRectF(r.left(), 0, r.width(), g.rulerHeight) & ruler, band);
        p.fillRect(box, ink);
        p.setPen(st.inkOnMark);
        p.drawText(box, Qt::AlignCenter, areaLabelText(area));
    }
    p.restore();
}

void TimelineView::setSession(Session* session)
{
    // The window's slot runs first (compact mode before the trace is laid out).
    connect(
        session, &Session::traceLoaded, this,
        [this, session](const TracePtr& trace, const std::shared_ptr<const TimelineIndex>& index) {
            if (!session->isJob()) setProcessRanks({});
            setTrace(trace, index);
        });
    connect(session, &Session::traceReplaced, this,
            [this](const TracePtr& trace, const std::shared_ptr<const TimelineIndex>& index) {
                replaceTrace(trace, index);
            });
    session->followReport(this, [this, session] {
        setReport(session->report());
        if (const JobSessionPtr job = session->job()) {
            setProcessRanks(blockOfProcesses(*job));
            setFlaggedOrder(flaggedOrder(*job));
        }
    });
    // The window's one selection: the timeline owns it (history, reveal), the session tells it.
    connect(this, &TimelineView::eventSelected, session, &Session::setSelection);
    connect(session, &Session::selectionRequested, this, [this](EventId e) { selectEvent(e); });
    connect(session, &Session::stepRequested, this, &TimelineView::showStep);
}

bool TimelineView::showStep(int rank, int step)
{
    const ReportPtr& rep = report();
    if (!rep) return false;
    // The rank's own step in a job; the first that has the number otherwise.
    const StepStats* pick = nullptr;
    for (const StepStats& st : rep->steps) {
        if (st.step != step) continue;
        if (!pick) pick = &st;
        if (rank >= 0 && st.rank == rank) {
            pick = &st;
            break;
        }
    }
    if (!pick) return false;
    const TimeNs pad = std::max<TimeNs>((pick->end - pick->start) / 20, 100);
    zoomToRange(pick->start - pad, pick->end + pad);
    if (pick->event != kNone) selectEvent(pick->event, true);
    return true;
}

} // namespace rs
