#include "ui/timeline/timelinerenderer.h"

#include "ui/theme/hatch.h"

#include <QFontMetricsF>
#include <QHash>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <QPalette>
#include <QRegularExpression>

#include "ui/theme/theme.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace rs {

namespace {

// Mid-light hues readable with black text on light and dark backgrounds. Blues (collectives)
// and oranges (internal memcpy) are left out so those marks stay unambiguous.
constexpr QRgb kSlicePalette[] = {
    0x8fbc5a, 0x5fae8a, 0x4fb0b0, 0x9d8ad1, 0xc084c9, 0xd27aa2, 0xc9a94f, 0xa3b84a,
    0x6cc07a, 0xb59b7c, 0x8e9fb8, 0xd0c05a, 0x7db0a0, 0xb98bbf, 0xa0a05a, 0x77b8c8,
};
constexpr QRgb kCollectivePalette[] = {0x4a86e8, 0x3b78d8, 0x6a9cf0};

std::uint32_t hashName(const std::string& s)
{
    std::uint32_t h = 2166136261u; // FNV-1a: stable across runs and platforms
    for (unsigned char c : s) {
        h ^= c;
        h *= 16777619u;
    }
    return h;
}

QColor mix(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - t) + b.redF() * t),
                            static_cast<float>(a.greenF() * (1 - t) + b.greenF() * t),
                            static_cast<float>(a.blueF() * (1 - t) + b.blueF() * t));
}

QColor textOn(const QColor& fill)
{
    const double l = 0.299 * fill.redF() + 0.587 * fill.greenF() + 0.114 * fill.blueF();
    return l > 0.5 ? QColor(20, 20, 20) : QColor(250, 250, 250);
}

} // namespace

TimelineStyle TimelineStyle::of(const ThemePalette& t)
{
    TimelineStyle s;
    s.dark = t.isDark;
    s.background = t.background;
    s.text = t.text;
    s.dimText = t.dimText;
    s.grid = t.grid;
    s.header = t.header;
    s.headerText = t.headerText;
    s.labelBackground = t.labelBackground;
    s.ruler = t.ruler;
    s.selection = t.selection;
    s.cursor = t.cursor;
    s.collectiveOutline = t.collectiveOutline;
    s.anomaly = t.anomaly;
    s.internalCopy = t.internalCopy;
    s.waiting = t.waiting;
    s.flow = t.flow;
    s.collective = t.collective;
    s.copyHatch = t.copyHatch;
    s.waitHatch = t.waitHatch;
    s.unalignedEdge = t.unalignedEdge;
    s.density = t.density;
    s.searchRing = t.searchRing;
    s.rangeBand = t.rangeBand;
    s.rangeLabel = t.rangeLabel;
    s.counter = t.counter;
    s.areaInk = t.areaInk;
    s.areaFill = t.areaFill;
    s.inkOnMark = t.inkOnMark;
    s.overlay = t.overlay;
    s.overlayText = t.overlayText;
    s.overlayKey = t.overlayKey;
    s.noteLabel = t.noteLabel;
    return s;
}

TimelineStyle TimelineStyle::light()
{
    return of(ThemePalette::light());
}

TimelineStyle TimelineStyle::darkStyle()
{
    return of(ThemePalette::dark());
}

TimelineStyle TimelineStyle::fromPalette(const QPalette& palette)
{
    return of(ThemePalette::of(paletteIsDark(palette)));
}

// ---- geometry -------------------------------------------------------------------------------

double TimelineGeometry::nsPerPixel() const
{
    const double w = std::max(1.0, size.width() - labelWidth);
    return std::max(1e-6, static_cast<double>(t1 - t0) / w);
}

double TimelineGeometry::xOf(TimeNs t) const
{
    return labelWidth + static_cast<double>(t - t0) / nsPerPixel();
}

TimeNs TimelineGeometry::timeAt(double x) const
{
    return t0 + static_cast<TimeNs>(std::llround((x - labelWidth) * nsPerPixel()));
}

int TimelineGeometry::rowAtY(double y) const
{
    if (!layout || y < rulerHeight) return -1;
    const double local = y - rulerHeight;
    return layout->rowAt(local < pinnedHeight() ? local : local + scrollY);
}

QRectF TimelineGeometry::rowRect(int row) const
{
    if (!layout || row < 0 || row >= static_cast<int>(layout->rows().size())) return {};
    const TimelineRow& r = layout->rows()[static_cast<std::size_t>(row)];
    return QRectF(0, screenY(r.y), size.width(), r.height);
}

QRectF TimelineGeometry::trackRect(TrackId t) const
{
    if (!layout) return {};
    const QRectF r = rowRect(layout->rowOfTrack(t));
    return r.isNull() ? r : QRectF(labelWidth, r.top(), size.width() - labelWidth, r.height());
}

QRectF TimelineGeometry::depthRect(TrackId t, int depth) const
{
    const QRectF r = trackRect(t);
    if (r.isNull()) return r;
    // A row that shows only some depths (the compact layout's steps row) hides the others.
    const TimelineRow& row = layout->rows()[std::size_t(layout->rowOfTrack(t))];
    if (row.kind == RowKind::Slices &&
        (depth < row.firstDepth || depth >= row.firstDepth + std::max(1, row.depths)))
        return {};
    return QRectF(r.left(), r.top() + (depth - row.firstDepth) * TimelineLayout::kSliceRowHeight,
                  r.width(), TimelineLayout::kSliceRowHeight);
}

QRectF TimelineGeometry::eventRect(EventId e) const
{
    if (!index || e >= index->trace().slices().size()) return {};
    const Slice& s = index->trace().slice(e);
    const QRectF row = depthRect(s.track, s.depth);
    if (row.isNull()) return row;
    const double x0 = xOf(s.start);
    const double x1 = xOf(s.end());
    return QRectF(x0, row.top() + 1, std::max(0.0, x1 - x0), row.height() - 2);
}

QRectF TimelineGeometry::labelRect(int row) const
{
    if (!layout || row < 0 || row >= static_cast<int>(layout->rows().size())) return {};
    const TimelineRow& r = layout->rows()[static_cast<std::size_t>(row)];
    const double h = r.kind == RowKind::ProcessHeader
                         ? r.height
                         : std::min(r.height, TimelineLayout::kSliceRowHeight + 2);
    double top = screenY(r.y);
    if (!r.pinned && r.kind != RowKind::ProcessHeader && top < scrollTop())
        top = std::min(scrollTop(), top + r.height - h); // slides up with the row's end
    return QRectF(0, top, labelWidth, h);
}

bool TimelineGeometry::underBand(int row, double y) const
{
    if (!layout || row < 0 || row >= static_cast<int>(layout->rows().size())) return false;
    return !layout->rows()[static_cast<std::size_t>(row)].pinned && y < scrollTop();
}

// ---- ruler helpers --------------------------------------------------------------------------

TimeNs niceTimeStep(double minNs)
{
    TimeNs base = 1;
    while (true) {
        for (TimeNs m : {1, 2, 5})
            if (static_cast<double>(base * m) >= minNs) return base * m;
        if (base > (TimeNs(1) << 58)) return base;
        base *= 10;
    }
}

QString formatOffset(TimeNs offset, TimeNs step)
{
    struct Unit {
        TimeNs ns;
        const char* name;
    };
    static const Unit units[] = {{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "µs"}, {1, "ns"}};
    // The largest unit the label reaches; as many decimals as the step needs in it.
    const TimeNs mag = std::max<TimeNs>(std::llabs(offset), step);
    const Unit* u = &units[3];
    for (const Unit& c : units)
        if (mag >= c.ns) {
            u = &c;
            break;
        }
    int decimals = 0;
    for (TimeNs q = u->ns; q > 1 && step % q != 0; q /= 10)
        ++decimals;
    const double v = static_cast<double>(offset) / static_cast<double>(u->ns);
    return QString::number(v, 'f', decimals) + QLatin1Char(' ') + QString::fromUtf8(u->name);
}

// ---- counters -------------------------------------------------------------------------------

QString counterUnit(const Trace& trace, TrackId t)
{
    if (t >= trace.tracks().size()) return {};
    const Track& track = trace.tracks()[t];
    if (track.kind != TrackKind::Counter || track.counter >= trace.counters().size()) return {};
    const CounterSeries& cs = trace.counters()[track.counter];
    // torch_npu writes the unit into the args key: "Read(MB/s)", "Hit Rate(%)", or the key is
    // the unit itself: "KB", "MHz".
    for (const StrId id : {cs.key, cs.name}) {
        const QString text = QString::fromStdString(trace.str(id)).trimmed();
        static const QRegularExpression inParens(QStringLiteral("\\(([^()]{1,12})\\)\\s*$"));
        if (const auto m = inParens.match(text); m.hasMatch()) return m.captured(1).trimmed();
        static const QStringList units = {
            QStringLiteral("B"),    QStringLiteral("KB"),    QStringLiteral("MB"),
            QStringLiteral("GB"),   QStringLiteral("KiB"),   QStringLiteral("MiB"),
            QStringLiteral("GiB"),  QStringLiteral("bytes"), QStringLiteral("MHz"),
            QStringLiteral("GHz"),  QStringLiteral("%"),     QStringLiteral("W"),
            QStringLiteral("MB/s"), QStringLiteral("GB/s")};
        for (const QString& u : units)
            if (text.compare(u, Qt::CaseInsensitive) == 0) return u;
    }
    return {};
}

QString counterValueText(const Trace& trace, TrackId t, double v)
{
    // Plain numbers a reader takes in at a glance (27,430 MB/s, 12.5 %), no exponents.
    QString number;
    const double a = std::abs(v);
    if (a >= 1e15)
        number = QString::number(v, 'g', 4);
    else if (a >= 100 || v == std::floor(v))
        number = QLocale(QLocale::English).toString(v, 'f', 0);
    else
        number = QLocale(QLocale::English).toString(v, 'f', a >= 10 ? 1 : a >= 1 ? 2 : 3);
    const QString unit = counterUnit(trace, t);
    return unit.isEmpty() ? number : number + QLatin1Char(' ') + unit;
}

// ---- renderer -------------------------------------------------------------------------------

TimelineRenderer::TimelineRenderer() = default;
TimelineRenderer::~TimelineRenderer() = default;

void TimelineRenderer::setTrace(TracePtr trace, std::shared_ptr<const TimelineIndex> index)
{
    m_trace = std::move(trace);
    m_report.reset();
    m_selected = kNone;
    m_rangeBegin = m_rangeEnd = 0;
    m_highlights.clear();
    m_nameColor.clear();
    m_advance.clear(); // the new trace's names only
    m_boldAdvance.clear();
    m_collapsed.clear();
    m_userFilter.clear();
    m_pinTracks.clear();
    m_pinProcs.clear();
    m_viewState = {};
    m_filterError.clear();
    if (!m_trace) {
        m_index.reset();
        m_layout.reset();
        return;
    }
    m_index = index && index->tracePtr() == m_trace ? std::move(index)
                                                    : std::make_shared<TimelineIndex>(m_trace);
    const StringPool& pool = m_trace->strings();
    m_nameColor.resize(pool.size());
    for (StrId i = 0; i < pool.size(); ++i)
        m_nameColor[i] =
            kSlicePalette[hashName(pool.str(i)) % (sizeof kSlicePalette / sizeof(QRgb))];
    m_collapsed.assign(m_trace->processes().size(), false);
    rebuildLayout();
}

void TimelineRenderer::setReport(ReportPtr report)
{
    // A report of another trace (a superseded job) is ignored.
    if (report && report->trace && report->trace != m_trace) return;
    m_report = std::move(report);
}

void TimelineRenderer::rebuildLayout()
{
    if (!m_index) {
        m_layout.reset();
        return;
    }
    LayoutOptions o;
    o.collapsed = m_collapsed;
    o.pinnedTracks = m_pinTracks;
    o.pinnedProcesses = m_pinProcs;
    // Compact mode and the user's filter both hide: a track shows when both let it through.
    const std::size_t n = m_trace->tracks().size();
    const bool compact = m_trackFilter.size() == n, user = m_userFilter.size() == n;
    if (compact && user) {
        o.trackVisible.resize(n);
        for (std::size_t t = 0; t < n; ++t)
            o.trackVisible[t] = m_trackFilter[t] && m_userFilter[t];
    } else {
        o.trackVisible = compact ? m_trackFilter : user ? m_userFilter : std::vector<bool>{};
    }
    if (!m_compactRows.empty()) {
        o.compactRows = m_compactRows;
        o.trackVisible = user ? m_userFilter : std::vector<bool>{};
    }
    m_layout = std::make_shared<TimelineLayout>(*m_index, o);
    // What the user's filter hides (the toolbar's count), not what compact mode leaves out.
    m_userHidden = 0;
    if (user)
        for (TrackId t = 0; t < n; ++t) {
            const Track& tr = m_trace->tracks()[t];
            const bool content =
                tr.kind == TrackKind::Counter ? tr.counter != kNone : tr.end > tr.begin;
            if (content && !m_userFilter[t] && !isTrackPinned(t) && !isProcessPinned(tr.process))
                ++m_userHidden;
        }
}

void TimelineRenderer::setTrackViewState(const TrackViewState& state)
{
    m_viewState = state;
    m_pinTracks.clear();
    m_pinProcs.clear();
    m_userFilter.clear();
    m_filterError.clear();
    if (!m_trace) return;
    m_pinTracks.assign(m_trace->tracks().size(), false);
    m_pinProcs.assign(m_trace->processes().size(), false);
    for (const TrackKey& k : state.pinned) {
        if (k.isGroup()) {
            if (const ProcessId p = resolveProcess(*m_trace, k); p != kNone) m_pinProcs[p] = true;
        } else if (const TrackId t = resolveTrack(*m_trace, k); t != kNone) {
            m_pinTracks[t] = true;
        }
    }
    m_userFilter = trackFilterMask(*m_trace, state.filter, &m_filterError);
    rebuildLayout();
}

void TimelineRenderer::setPinned(ProcessId p, TrackId t, bool pinned)
{
    if (!m_trace) return;
    TrackKey key;
    if (t != kNone && t < m_trace->tracks().size())
        key = trackKey(*m_trace, t);
    else if (p != kNone && p < m_trace->processes().size())
        key = processKey(*m_trace, p);
    else
        return;
    TrackViewState s = m_viewState;
    auto it = std::find(s.pinned.begin(), s.pinned.end(), key);
    if (pinned == (it != s.pinned.end())) return;
    if (pinned)
        s.pinned.push_back(key);
    else
        s.pinned.erase(it);
    setTrackViewState(s);
}

void TimelineRenderer::setTrackFilter(std::vector<bool> visible)
{
    m_trackFilter = std::move(visible);
    m_compactRows.clear();
    rebuildLayout();
}

void TimelineRenderer::setCompactRows(std::vector<CompactRow> rows)
{
    m_compactRows = std::move(rows);
    if (!m_compactRows.empty()) m_trackFilter.clear();
    rebuildLayout();
}

QString TimelineRenderer::rankName(const TimelineRow& row) const
{
    if (!m_trace || row.process == kNone) return {};
    const QString proc = QString::fromStdString(m_trace->processLabel(row.process));
    const qsizetype dot = proc.indexOf(QStringLiteral(" \u00b7 "));
    if (proc.startsWith(QLatin1String("Rank ")) && dot > 0) return proc.left(dot);
    return m_trace->rank() ? QStringLiteral("Rank %1").arg(*m_trace->rank()) : QString();
}

QString TimelineRenderer::rowLabel(const TimelineRow& row) const
{
    if (!m_trace || row.track == kNone) return {};
    const QString track = QString::fromStdString(m_trace->trackLabel(row.track));
    QString proc = QString::fromStdString(m_trace->processLabel(row.process));
    if (row.rank >= 0) {
        if (row.role == RowRole::Steps) return QStringLiteral("Steps");
        // The rank is named in the rank's first row: "HCCL · Plane 0".
        const qsizetype dot = proc.indexOf(QStringLiteral(" \u00b7 "));
        if (proc.startsWith(QLatin1String("Rank ")) && dot > 0) proc = proc.mid(dot + 3);
        return proc + QStringLiteral(" \u00b7 ") + track;
    }
    // A track pinned without its group says whose it is: "Rank 3 · HCCL › Plane 0".
    return row.alone ? proc + QStringLiteral(" \u203a ") + track : track;
}

void TimelineRenderer::setCollapsed(ProcessId p, bool collapsed)
{
    if (p >= m_collapsed.size() || m_collapsed[p] == collapsed) return;
    m_collapsed[p] = collapsed;
    rebuildLayout();
}

bool TimelineRenderer::isCollapsed(ProcessId p) const
{
    return p < m_collapsed.size() && m_collapsed[p];
}

void TimelineRenderer::setAllCollapsed(bool collapsed)
{
    std::fill(m_collapsed.begin(), m_collapsed.end(), collapsed);
    rebuildLayout();
}

void TimelineRenderer::setRangeSelection(TimeNs begin, TimeNs end)
{
    m_rangeBegin = std::min(begin, end);
    m_rangeEnd = std::max(begin, end);
}

void TimelineRenderer::setHighlights(std::vector<EventId> events)
{
    std::sort(events.begin(), events.end());
    m_highlights = std::move(events);
}

TimelineGeometry TimelineRenderer::geometry(QSizeF size, TimeNs t0, TimeNs t1, double scrollY) const
{
    TimelineGeometry g;
    g.size = size;
    g.labelWidth = std::min(m_labelWidth, std::max(40.0, size.width() * 0.5));
    g.t0 = t0;
    g.t1 = std::max(t1, t0 + 1);
    g.scrollY = scrollY;
    g.traceStart = m_trace ? m_trace->startNs() : 0;
    g.layout = m_layout;
    g.index = m_index;
    return g;
}

QColor TimelineRenderer::colorOf(EventId e) const
{
    const Slice& s = m_trace->slice(e);
    const std::uint8_t marks = m_report ? m_report->marks(e) : 0;
    const std::uint32_t h = s.name < m_nameColor.size() ? m_nameColor[s.name] : 0x999999;
    if (marks & (kMarkInternalMemcpy | kMarkExtraMemcpy)) return m_style.internalCopy;
    if (marks & kMarkWaiting) return m_style.waiting;
    if (marks & kMarkCollective)
        return QColor(kCollectivePalette[hashName(m_trace->str(s.name)) % 3]);
    return QColor(QRgb(h));
}

bool TimelineRenderer::isFlagged(EventId e) const
{
    if (!m_report) return false;
    if (m_report->marks(e) & kFlaggedMarks) return true;
    const Collective* c = m_report->collectiveOf(e);
    return c && (c->anomalous || c->waiting || c->unalignedCount > 0);
}

std::size_t TimelineRenderer::viewBytes() const
{
    std::size_t b = m_index ? m_index->bytes() : 0;
    b += m_nameColor.capacity() * sizeof(QRgb);
    if (m_layout)
        b += m_layout->rows().capacity() * sizeof(TimelineRow) +
             m_trace->tracks().size() * sizeof(int) + m_trace->processes().size() * 8;
    return b;
}

void TimelineRenderer::paint(QPainter& p, const TimelineGeometry& g) const
{
    p.save();
    p.fillRect(QRectF(QPointF(0, 0), g.size), m_style.background);
    if (!g.valid() || !m_trace) {
        p.setPen(m_style.dimText);
        p.drawText(QRectF(QPointF(0, 0), g.size), Qt::AlignCenter,
                   QStringLiteral("Open a trace: File > Open, or drop a file here"));
        p.restore();
        return;
    }
    const QRectF plot = g.plotRect();
    // The scrolling rows first, then the pinned band over them: each clipped to its own part.
    const double band = std::min(g.pinnedHeight(), plot.height());
    for (const bool pinned : {false, true}) {
        const QRectF clip =
            pinned ? QRectF(plot.left(), plot.top(), plot.width(), band)
                   : QRectF(plot.left(), plot.top() + band, plot.width(), plot.height() - band);
        if (clip.height() <= 0) continue;
        p.save();
        p.setClipRect(clip);
        paintSelection(p, g);
        paintRows(p, g, pinned);
        paintFlows(p, g);
        paintMarks(p, g, pinned);
        p.restore();
    }
    if (m_pathOverlay) {
        p.save();
        p.setClipRect(plot);
        m_pathOverlay(p, g, *this);
        p.restore();
    }
    paintLabels(p, g);
    if (band > 0) { // the band's lower edge: what is under it scrolls
        p.fillRect(QRectF(0, plot.top() + band - 1, g.size.width(), 2), m_style.grid.darker(140));
    }
    paintRuler(p, g);
    if (m_overlay) m_overlay(p, g);
    p.restore();
}

void TimelineRenderer::paintRows(QPainter& p, const TimelineGeometry& g, bool pinned) const
{
    const QRectF plot = g.plotRect();
    const auto& rows = g.layout->rows();
    std::size_t begin = 0, end = static_cast<std::size_t>(g.layout->firstScrollingRow());
    if (!pinned) {
        const int first = g.layout->rowAt(g.layout->pinnedHeight() + g.scrollY);
        begin = std::max(end, first < 0 ? end : static_cast<std::size_t>(first));
        end = rows.size();
    }
    // Row tops are increasing: start at the first visible row, stop below the plot.
    for (std::size_t i = begin; i < end; ++i) {
        const TimelineRow& row = rows[i];
        const double top = g.screenY(row.y);
        if (top > plot.bottom()) break;
        if (top + row.height < plot.top()) continue;
        if (row.kind == RowKind::ProcessHeader) {
            p.fillRect(QRectF(plot.left(), top, plot.width(), row.height),
                       mix(m_style.header, m_style.background, 0.5));
            if (isCollapsed(row.process)) paintDensity(p, g, row);
        } else if (row.kind == RowKind::Slices) {
            paintSliceTrack(p, g, row);
        } else {
            paintCounterTrack(p, g, row);
        }
        p.setPen(m_style.grid);
        p.drawLine(QPointF(plot.left(), top + row.height - 0.5),
                   QPointF(plot.right(), top + row.height - 0.5));
        // The compact job layout has no group headers: a rule sets each rank apart.
        if (row.rankFirst && i > std::size_t(g.layout->firstScrollingRow()))
            p.fillRect(QRectF(plot.left(), top, plot.width(), 1.5), rankRule());
    }
}

std::vector<float> TimelineRenderer::densityColumns(const TimelineGeometry& g,
                                                    const TimelineRow& header) const
{
    std::vector<float> out;
    if (!g.layout || !m_index || header.kind != RowKind::ProcessHeader) return out;
    const QRectF plot = g.plotRect();
    const int x0 = static_cast<int>(std::floor(plot.left()));
    const int x1 = static_cast<int>(std::ceil(plot.right()));
    if (x1 <= x0) return out;
    const std::size_t n = static_cast<std::size_t>(x1 - x0);
    out.assign(n, 0.f);
    std::vector<TimeNs> edge(n + 1);
    for (std::size_t i = 0; i <= n; ++i)
        edge[i] = g.timeAt(x0 + static_cast<double>(i));
    std::vector<TimeNs> busy(n + 1);
    for (TrackId t : g.layout->groupTracks(header)) {
        const auto top = m_index->row(t, 0);
        if (m_trace->tracks()[t].kind == TrackKind::Counter || top.empty()) continue;
        // Busy time before every column edge in one forward pass (edges only grow).
        m_index->busyBeforeEach(t, edge, busy);
        for (std::size_t i = 0; i < n; ++i) {
            const TimeNs w = edge[i + 1] - edge[i];
            if (w <= 0) continue;
            const double f = static_cast<double>(busy[i + 1] - busy[i]) / static_cast<double>(w);
            out[i] = std::max(out[i], static_cast<float>(std::min(1.0, f)));
        }
    }
    return out;
}

void TimelineRenderer::paintDensity(QPainter& p, const TimelineGeometry& g,
                                    const TimelineRow& row) const
{
    const std::vector<float> cols = densityColumns(g, row);
    if (cols.empty()) return;
    const double x0 = std::floor(g.plotRect().left());
    const double bottom = g.screenY(row.y) + row.height - 2;
    const double h = row.height - 5;
    QColor c = m_style.density;
    if (m_flaggedOnly && m_report) c = mix(c, m_style.background, 0.6);
    // Runs of columns of one height are one rectangle: a few hundred fills, not one per column.
    std::size_t i = 0;
    while (i < cols.size()) {
        const double hi = std::round(cols[i] * h);
        std::size_t j = i + 1;
        while (j < cols.size() && std::round(cols[j] * h) == hi)
            ++j;
        // Anything busy shows at least one pixel.
        const double bar = cols[i] > 0 ? std::max(1.0, hi) : 0;
        if (bar > 0)
            p.fillRect(
                QRectF(x0 + static_cast<double>(i), bottom - bar, static_cast<double>(j - i), bar),
                c);
        i = j;
    }
}

bool TimelineRenderer::inPass(const TimelineGeometry& g, EventId e, bool pinned) const
{
    const int row = g.layout->rowOfTrack(m_trace->slice(e).track);
    return row >= 0 && g.layout->rows()[static_cast<std::size_t>(row)].pinned == pinned;
}

void TimelineRenderer::paintSelection(QPainter& p, const TimelineGeometry& g) const
{
    const QRectF plot = g.plotRect();
    if (hasRangeSelection()) {
        const double x0 = std::max(plot.left(), g.xOf(m_rangeBegin));
        const double x1 = std::min(plot.right(), g.xOf(m_rangeEnd));
        const QColor band = m_style.rangeBand;
        if (x1 > x0)
            p.fillRect(QRectF(x0, plot.top(), std::max(1.0, x1 - x0), plot.height()), band);
    }
    if (m_selected != kNone && m_selected < m_trace->slices().size()) {
        const Slice& s = m_trace->slice(m_selected);
        const double x0 = std::max(plot.left() - 2, g.xOf(s.start));
        const double x1 = std::min(plot.right() + 2, g.xOf(s.end()));
        QColor band = m_style.selection;
        band.setAlpha(m_style.dark ? 28 : 18);
        if (x1 >= x0)
            p.fillRect(QRectF(x0, plot.top(), std::max(1.0, x1 - x0), plot.height()), band);
    }
}

void TimelineRenderer::paintSlice(QPainter& p, const TimelineGeometry& /*g*/, EventId e,
                                  const QRectF& r, bool folded) const
{
    const Slice& s = m_trace->slice(e);
    const std::uint8_t marks = m_report ? m_report->marks(e) : 0;
    QColor fill = folded ? colorOf(e).darker(115) : colorOf(e);
    const bool dimmed = m_flaggedOnly && m_report && !isFlagged(e);
    if (dimmed) fill = mix(fill, m_style.background, 0.78);
    p.fillRect(r, fill);
    if (!dimmed && (marks & (kMarkInternalMemcpy | kMarkExtraMemcpy | kMarkWaiting))) {
        // Hatching sets internal copies and waits apart from ordinary memcpy at any zoom.
        const QColor ink = (marks & kMarkWaiting) && !(marks & kMarkInternalMemcpy)
                               ? m_style.waitHatch
                               : m_style.copyHatch;
        fillHatch(p, r, ink);
    }
    if (r.width() >= 4) {
        // Darker right and bottom edges separate neighbours; fillRect is much cheaper than a
        // pen outline, and thousands of these are drawn per frame.
        const QColor edge = fill.darker(dimmed ? 110 : 135);
        p.fillRect(QRectF(r.right() - 1, r.top(), 1, r.height()), edge);
        p.fillRect(QRectF(r.left(), r.bottom() - 1, r.width(), 1), edge);
    }
    if (s.flags & kSliceInstant) {
        // Instants have no width: a small diamond at their time.
        const QPointF c(r.left(), r.center().y());
        QPolygonF d;
        d << c + QPointF(0, -5) << c + QPointF(4, 0) << c + QPointF(0, 5) << c + QPointF(-4, 0);
        p.setPen(QPen(fill.darker(160), 1));
        p.setBrush(fill);
        p.drawPolygon(d);
        return;
    }
    if (r.width() < 24 || dimmed || folded) return;
    const QString text = sliceText(QFontMetricsF(p.font()), e, r.width());
    if (text.isEmpty()) return;
    p.setPen(textOn(fill));
    p.drawText(r.adjusted(4, 0, -4, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
}

QString TimelineRenderer::sliceText(const QFontMetricsF& fm, EventId e, double width) const
{
    const Slice& s = m_trace->slice(e);
    QString text = QString::fromStdString(m_trace->str(s.name));
    const QString dur = QString::fromStdString(formatDuration(s.dur));
    const double avail = width - 8;
    if (fm.horizontalAdvance(text + QStringLiteral("  ") + dur) <= avail)
        text += QStringLiteral("  ") + dur;
    text = fm.elidedText(text, Qt::ElideRight, avail);
    return text.size() <= 1 ? QString() : text;
}

QRectF TimelineRenderer::sliceTextRect(const TimelineGeometry& g, EventId e,
                                       const QFont& font) const
{
    if (!m_trace || e >= m_trace->slices().size() || (m_trace->slice(e).flags & kSliceInstant))
        return {};
    const QRectF raw = g.eventRect(e);
    const QRectF plot = g.plotRect();
    if (raw.isNull()) return {};
    // As paintSliceTrack clips it, then paintSlice's text inset.
    const double x0 = std::max(raw.left(), plot.left() - 2);
    const double x1 = std::min(raw.right(), plot.right() + 2);
    if (x1 - x0 < 24 || (m_flaggedOnly && m_report && !isFlagged(e))) return {};
    const QFontMetricsF fm(font);
    const QString text = sliceText(fm, e, x1 - x0);
    if (text.isEmpty()) return {};
    return QRectF(x0 + 4, raw.top(), std::min(fm.horizontalAdvance(text), x1 - x0 - 8),
                  raw.height())
        .intersected(plot);
}

void TimelineRenderer::paintSliceTrack(QPainter& p, const TimelineGeometry& g,
                                       const TimelineRow& row) const
{
    const QRectF plot = g.plotRect();
    const TimeNs t0 = g.timeAt(plot.left() - 1);
    const TimeNs t1 = g.timeAt(plot.right() + 1);
    // Slices shorter than the fold width, with gaps shorter than it, merge into blocks. Times
    // are whole ns, so dur >= kFoldPixels * nsPerPixel exactly when dur >= foldNs.
    const TimeNs foldNs =
        std::max<TimeNs>(1, static_cast<TimeNs>(std::ceil(kFoldPixels * g.nsPerPixel())));
    for (int d = 0; d < row.depths; ++d) {
        const double top = g.screenY(row.y) + d * TimelineLayout::kSliceRowHeight;
        if (top > plot.bottom() || top + TimelineLayout::kSliceRowHeight < plot.top()) continue;
        const auto ids = m_index->row(row.track, row.firstDepth + d);
        std::size_t i = m_index->firstEndingAfter(ids, t0);
        const std::size_t end = m_index->firstStartingAt(ids, t1);
        while (i < end) {
            const Slice& s = m_trace->slice(ids[i]);
            const double x0 = g.xOf(s.start);
            if (s.dur >= foldNs || (s.flags & kSliceInstant)) {
                const double x1 = g.xOf(s.end());
                const QRectF r(std::max(x0, plot.left() - 2), top + 1,
                               std::min(x1, plot.right() + 2) - std::max(x0, plot.left() - 2),
                               TimelineLayout::kSliceRowHeight - 2);
                paintSlice(p, g, ids[i], r);
                ++i;
                continue;
            }
            // A block of narrow slices: its end and colour come from the index's LOD bytes,
            // so a block of a million slices reads a few of them, not the million.
            const std::size_t j = m_index->foldBlockEnd(ids, i, end, foldNs);
            QColor c = j - i == 1 ? colorOf(ids[i])
                                  : colorOf(ids[m_index->longestIn(ids, i, j)]).darker(115);
            if (m_flaggedOnly && m_report) c = mix(c, m_style.background, 0.78);
            const double bx1 = std::max(g.xOf(m_trace->slice(ids[j - 1]).end()), x0 + 1);
            p.fillRect(QRectF(x0, top + 1, bx1 - x0, TimelineLayout::kSliceRowHeight - 2), c);
            i = j;
        }
    }
}

std::vector<QRectF> TimelineRenderer::occupiedRects(const TimelineGeometry& g) const
{
    std::vector<QRectF> out;
    if (!g.valid() || !m_trace || !m_index) return out;
    const QRectF plot = g.plotRect();
    const TimeNs t0 = g.timeAt(plot.left() - 1), t1 = g.timeAt(plot.right() + 1);
    // Slices closer than this (in pixels) are one run: a label between them would not read.
    constexpr double kMergePx = 6;
    const TimeNs mergeNs =
        std::max<TimeNs>(1, static_cast<TimeNs>(std::ceil(kMergePx * g.nsPerPixel())));
    const auto& rows = g.layout->rows();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const TimelineRow& row = rows[i];
        const double top = g.screenY(row.y);
        if (top > plot.bottom() || top + row.height < plot.top()) continue;
        if (row.kind == RowKind::ProcessHeader) {
            if (isCollapsed(row.process))
                out.push_back(QRectF(plot.left(), top, plot.width(), row.height) & plot);
            continue;
        }
        if (row.kind == RowKind::Counter) {
            out.push_back(QRectF(plot.left(), top, plot.width(), row.height) & plot);
            continue;
        }
        for (int d = 0; d < row.depths; ++d) {
            const double y = top + d * TimelineLayout::kSliceRowHeight;
            const auto ids = m_index->row(row.track, row.firstDepth + d);
            std::size_t k = m_index->firstEndingAfter(ids, t0);
            const std::size_t end = m_index->firstStartingAt(ids, t1);
            while (k < end) {
                // A run: slices whose gaps are under mergeNs (foldBlockEnd jumps through them).
                const TimeNs a = m_trace->slice(ids[k]).start;
                TimeNs b = m_trace->slice(ids[k]).end();
                std::size_t j = k + 1;
                while (j < end) {
                    // Within a fold block gaps are under mergeNs; same-depth slices do not
                    // overlap, so its last slice ends it.
                    const std::size_t block = m_index->foldBlockEnd(ids, j - 1, end, mergeNs);
                    if (block > j) b = std::max(b, m_trace->slice(ids[block - 1]).end());
                    j = block;
                    if (j >= end || m_trace->slice(ids[j]).start - b >= mergeNs) break;
                    b = std::max(b, m_trace->slice(ids[j]).end());
                    ++j;
                }
                const double x0 = std::max(plot.left(), g.xOf(a));
                const double x1 = std::min(plot.right(), std::max(g.xOf(b), x0 + 2));
                out.push_back(QRectF(x0, y, x1 - x0, TimelineLayout::kSliceRowHeight) & plot);
                k = j;
            }
        }
    }
    out.erase(std::remove_if(out.begin(), out.end(), [](const QRectF& r) { return r.isEmpty(); }),
              out.end());
    return out;
}

void TimelineRenderer::paintCounterTrack(QPainter& p, const TimelineGeometry& g,
                                         const TimelineRow& row) const
{
    const Track& track = m_trace->tracks()[row.track];
    if (track.counter == kNone || track.counter >= m_trace->counters().size()) return;
    const CounterSeries& cs = m_trace->counters()[track.counter];
    if (cs.ts.empty()) return;
    const QRectF plot = g.plotRect();
    const double top = g.screenY(row.y) + 3;
    const double h = row.height - 6;
    // One value per pixel column (its maximum), found by binary search: O(width log n).
    const int x0 = static_cast<int>(std::floor(plot.left()));
    const int x1 = static_cast<int>(std::ceil(plot.right()));
    std::vector<double> col;
    col.reserve(static_cast<std::size_t>(std::max(0, x1 - x0)) + 1);
    double vmax = 0, vmin = 0;
    bool any = false;
    for (int x = x0; x <= x1; ++x) {
        const TimeNs ta = g.timeAt(x);
        const TimeNs tb = g.timeAt(x + 1);
        auto a = std::lower_bound(cs.ts.begin(), cs.ts.end(), ta);
        auto b = std::lower_bound(a, cs.ts.end(), tb);
        double v = NAN;
        if (a != b) {
            v = cs.values[static_cast<std::size_t>(a - cs.ts.begin())];
            // Cap the scan: a column with very many samples takes a stride through them.
            const std::size_t n = static_cast<std::size_t>(b - a);
            const std::size_t stride = std::max<std::size_t>(1, n / 64);
            for (auto it = a; it < b; it += static_cast<std::ptrdiff_t>(stride))
                v = std::max(v, cs.values[static_cast<std::size_t>(it - cs.ts.begin())]);
        } else if (a != cs.ts.begin() && ta <= cs.ts.back()) {
            v = cs.values[static_cast<std::size_t>(a - cs.ts.begin()) - 1];
        }
        if (!std::isnan(v)) {
            vmax = any ? std::max(vmax, v) : v;
            vmin = any ? std::min(vmin, v) : std::min(0.0, v);
            any = true;
        }
        col.push_back(v);
    }
    if (!any) return;
    const double span = vmax > vmin ? vmax - vmin : 1;
    QPainterPath path;
    bool open = false;
    double lastX = x0;
    for (std::size_t i = 0; i < col.size(); ++i) {
        const double x = x0 + static_cast<double>(i);
        if (std::isnan(col[i])) {
            if (open) {
                path.lineTo(lastX, top + h);
                path.closeSubpath();
                open = false;
            }
            continue;
        }
        const double y = top + h - (col[i] - vmin) / span * h;
        if (!open) {
            path.moveTo(x, top + h);
            open = true;
        }
        path.lineTo(x, y);
        path.lineTo(x + 1, y);
        lastX = x + 1;
    }
    if (open) {
        path.lineTo(lastX, top + h);
        path.closeSubpath();
    }
    QColor c = m_style.counter;
    if (m_flaggedOnly && m_report) c = mix(c, m_style.background, 0.78);
    QColor fill = c;
    fill.setAlpha(110);
    p.setPen(QPen(c, 1));
    p.setBrush(fill);
    p.drawPath(path);
    p.setPen(m_style.dimText);
    QFont f = p.font();
    f.setPointSizeF(f.pointSizeF() * 0.85);
    p.save();
    p.setFont(f);
    p.drawText(QRectF(plot.left() + 4, top - 2, 300, 12), Qt::AlignLeft | Qt::AlignTop,
               QStringLiteral("max %1").arg(counterValueText(*m_trace, row.track, vmax)));
    p.restore();
}

void TimelineRenderer::paintFlows(QPainter& p, const TimelineGeometry& g) const
{
    const QRectF plot = g.plotRect();
    // All flows when asked; otherwise only those of the selected event, as hundreds of
    // launch arrows would bury the slices.
    std::vector<std::uint32_t> selected;
    if (!m_showFlows) {
        if (m_selected == kNone || m_selected >= m_trace->slices().size()) return;
        selected = m_trace->flowsFrom(m_selected);
        const auto in = m_trace->flowsTo(m_selected);
        selected.insert(selected.end(), in.begin(), in.end());
        if (selected.empty()) return;
    }
    const std::size_t count = m_showFlows ? m_trace->flows().size() : selected.size();
    p.setRenderHint(QPainter::Antialiasing, true);
    const QPen pen(m_style.flow, 1.2);
    for (std::size_t fi = 0; fi < count; ++fi) {
        const Flow& f = m_trace->flows()[m_showFlows ? fi : selected[fi]];
        if (f.from == kNone || f.to == kNone) continue;
        const Slice& a = m_trace->slice(f.from);
        const Slice& b = m_trace->slice(f.to);
        if (std::max(a.end(), b.start) < g.t0 || std::min(a.end(), b.start) > g.t1) continue;
        const QRectF ra = g.eventRect(f.from);
        const QRectF rb = g.eventRect(f.to);
        if (ra.isNull() || rb.isNull()) continue;
        // An end scrolled under the pinned band is hidden: no arrow into the band.
        if (g.underBand(g.layout->rowOfTrack(a.track), ra.center().y()) ||
            g.underBand(g.layout->rowOfTrack(b.track), rb.center().y()))
            continue;
        const QPointF s(ra.right(), ra.center().y());
        const QPointF e(rb.left(), rb.center().y());
        if ((s.y() < plot.top() && e.y() < plot.top()) ||
            (s.y() > plot.bottom() && e.y() > plot.bottom()))
            continue;
        QPainterPath path(s);
        const double dx = std::max(12.0, std::abs(e.x() - s.x()) * 0.4);
        path.cubicTo(s + QPointF(dx, 0), e - QPointF(dx, 0), e);
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        QPolygonF head;
        head << e << e + QPointF(-6, -3) << e + QPointF(-6, 3);
        p.setBrush(m_style.flow);
        p.drawPolygon(head);
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}

void TimelineRenderer::paintMarks(QPainter& p, const TimelineGeometry& g, bool pinned) const
{
    const QRectF plot = g.plotRect();
    auto visible = [&](const QRectF& r) {
        return !r.isNull() && r.right() >= plot.left() - 8 && r.left() <= plot.right() + 8 &&
               r.bottom() >= plot.top() && r.top() <= plot.bottom();
    };
    auto widened = [&](QRectF r) {
        // Marked events stay visible when sub-pixel: at least 3 px wide.
        if (r.width() < 3) r = QRectF(r.center().x() - 1.5, r.top(), 3, r.height());
        return r.intersected(plot.adjusted(-3, 0, 3, 0));
    };
    p.setRenderHint(QPainter::Antialiasing, true);
    if (m_report) paintReportMarks(p, g, pinned, visible, widened);
    for (EventId e : m_highlights) {
        if (e >= m_trace->slices().size() || !inPass(g, e, pinned)) continue;
        const QRectF r = g.eventRect(e);
        if (!visible(r)) continue;
        p.setPen(QPen(m_style.searchRing, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(widened(r).adjusted(-1, -1, 1, 1));
    }
    if (m_selected != kNone && m_selected < m_trace->slices().size() &&
        inPass(g, m_selected, pinned)) {
        const QRectF r = g.eventRect(m_selected);
        if (visible(r)) {
            // Outside the anomaly outline, so a selected flagged op keeps its red ring.
            const bool flagged = m_report && (m_report->marks(m_selected) & kMarkAnomalous);
            const double o = flagged ? 4.0 : 1.5;
            p.setPen(QPen(m_style.selection, 3));
            p.setBrush(Qt::NoBrush);
            p.drawRect(widened(r).adjusted(-o, -o, o, o));
        }
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}

// The analysis' marks in view, as runs: marks of one kind whose widened rectangles touch (or
// nearly: kMarkJoinPixels) on one slice row are drawn once as their union (tracy's folded zones),
// so a zoomed-out 1 GB trace with a mark on every collective paints at most a few hundred per row,
// not one per mark. Only the visible part of each track is walked: a track off screen, or the marks
// before and after the visible time range, are skipped with a binary search.
void TimelineRenderer::paintReportMarks(QPainter& p, const TimelineGeometry& g, bool pinned,
                                        const std::function<bool(const QRectF&)>& visible,
                                        const std::function<QRectF(QRectF)>& widened) const
{
    const QRectF plot = g.plotRect();
    // Marks this close on a row read as one at this zoom: drawn as one.
    constexpr double kMarkJoinPixels = 4;
    QFont bold = p.font();
    bold.setBold(true);
    const auto& marks = m_report->markIndex;
    const std::size_t count = m_trace->slices().size();
    struct Run {
        EventId first = kNone;
        std::uint8_t marks = 0;
        int count = 0;    // marks joined in it
        QRectF rect, raw; // union of the widened rectangles; the first mark's own
    };
    // One open run per (depth, kind of mark) of the current track: marks of several depths
    // and kinds interleave in start order.
    std::map<std::uint32_t, Run> runs;
    auto flush = [&](Run& run) {
        if (run.first == kNone) return;
        const QRectF r = run.rect;
        // A narrow mark's slice is widened to be seen; several joined are a folded block, as
        // the slices' own (no label: one slice's name and duration would claim the whole run).
        if (run.raw.width() < TimelineRenderer::kFoldPixels)
            paintSlice(p, g, run.first, r, run.count > 1);
        if (run.marks & kMarkAnomalous) {
            p.setPen(QPen(m_style.anomaly, 2.5));
            p.setBrush(Qt::NoBrush);
            p.drawRect(r.adjusted(-1, -1, 1, 1));
            // "!" badge at the right end, outside the slice when it is narrow.
            const double bx = std::min(r.right() + 1, plot.right() - 7);
            const QRectF badge(bx - (r.width() > 20 ? 14 : 0), r.top() - 1, 13, 13);
            p.setPen(Qt::NoPen);
            p.setBrush(m_style.anomaly);
            p.drawEllipse(badge);
            p.setPen(m_style.inkOnMark);
            p.setFont(bold);
            p.drawText(badge, Qt::AlignCenter, QStringLiteral("!"));
        } else if (run.marks & kMarkHasInternalMemcpy) {
            p.setPen(QPen(m_style.collectiveOutline, 1.5));
            p.setBrush(Qt::NoBrush);
            p.drawRect(r.adjusted(-0.5, -0.5, 0.5, 0.5));
        }
        if (run.marks & kMarkExtraMemcpy) {
            p.setPen(QPen(m_style.anomaly, 1.5, Qt::DashLine));
            p.setBrush(Qt::NoBrush);
            p.drawRect(r.adjusted(-0.5, -0.5, 0.5, 0.5));
        }
        if (run.marks & kMarkUnaligned) {
            // Small triangle at the (first) transfer's start.
            const QPointF a(run.raw.left(), r.top());
            QPolygonF tri;
            tri << a << a + QPointF(7, 0) << a + QPointF(0, 7);
            p.setPen(QPen(m_style.unalignedEdge, 0.8));
            p.setBrush(m_style.anomaly);
            p.drawPolygon(tri);
        }
        run = Run{};
    };
    auto flushAll = [&] {
        for (auto& [key, run] : runs)
            flush(run);
        runs.clear();
    };
    auto skipTo = [&](std::size_t from, EventId e) {
        return std::size_t(std::lower_bound(marks.begin() + std::ptrdiff_t(from), marks.end(),
                                            std::make_pair(e, std::uint8_t(0))) -
                           marks.begin());
    };
    // Marks of a time range a little wider than the view: the widened rectangles reach 3 px out.
    const TimeNs margin = static_cast<TimeNs>(std::min(g.nsPerPixel() * 12, 0x1p60)) + 1;
    constexpr TimeNs kMin = std::numeric_limits<TimeNs>::min(),
                     kMax = std::numeric_limits<TimeNs>::max();
    const TimeNs from = g.t0 > kMin + margin ? g.t0 - margin : kMin;
    const TimeNs until = g.t1 < kMax - margin ? g.t1 + margin : kMax;
    TrackId current = kNone;
    EventId firstInView = kNone; // of the current track
    std::size_t i = 0;
    while (i < marks.size()) {
        const EventId e = marks[i].first;
        if (e >= count) break;
        const TrackId t = m_trace->slice(e).track;
        const Track& track = m_trace->tracks()[t];
        if (t != current) {
            flushAll();
            current = t;
            const QRectF band = g.trackRect(t);
            if (!inPass(g, e, pinned) || band.isNull() || band.bottom() < plot.top() ||
                band.top() > plot.bottom()) {
                i = skipTo(i, track.end); // the whole track is out of this pass or view
                continue;
            }
            firstInView = m_trace->firstSliceEndingAfter(t, from);
            if (firstInView == kNone) {
                i = skipTo(i, track.end);
                continue;
            }
            if (e < firstInView) {
                i = skipTo(i, firstInView); // into the visible time range of this track
                continue;
            }
        }
        if (m_trace->slice(e).start > until) {
            i = skipTo(i, track.end); // the rest of the track starts after the view
            continue;
        }
        const std::uint8_t m = marks[i].second;
        ++i;
        const QRectF raw = g.eventRect(e);
        if (!visible(raw)) continue;
        if (m_flaggedOnly && !isFlagged(e)) continue; // dimmed: not drawn
        const QRectF r = widened(raw);
        // Narrow marks join a run; a wide one is drawn on its own (its slice is in view).
        const bool narrow = raw.width() < TimelineRenderer::kFoldPixels;
        Run& run = runs[std::uint32_t(m_trace->slice(e).depth) << 8 | m];
        if (narrow && run.first != kNone && run.raw.width() < TimelineRenderer::kFoldPixels &&
            r.left() <= run.rect.right() + kMarkJoinPixels) {
            run.rect = run.rect.united(r);
            ++run.count;
            continue;
        }
        flush(run);
        run.first = e;
        run.count = 1;
        run.marks = m;
        run.rect = r;
        run.raw = raw;
    }
    flushAll();
}

QColor TimelineRenderer::rankRule() const
{
    // Between the grid and the dim text: it reads on the light and the dark background alike.
    return mix(m_style.grid, m_style.dimText, 0.55);
}

double TimelineRenderer::fittedLabelWidth(const QFont& font, double min, double max) const
{
    if (!m_trace) return min;
    // A group header (bold) and a track pinned alone ("Rank 3 · HCCL › Plane 0"): triangle
    // (20), label, the pin's room (18) and a little air; longer labels are elided at the cap
    // rather than taking the timeline's width. Tracks under their header are not counted: the
    // header names their group.
    QFont bold = font;
    bold.setBold(true);
    const QFontMetricsF fm(font), bfm(bold);
    if (font != m_advanceFont) {
        m_advance.clear();
        m_boldAdvance.clear();
        m_advanceFont = font;
    }
    // Every rank repeats its tracks' names ("Stream 2", "Plane 0"): each distinct one is
    // shaped once (a 64-rank job spent most of its arrival on the GUI thread here), and once
    // for every call while the font stays.
    const auto advanceIn = [](QHash<QString, double>& advance, const QFontMetricsF& metrics,
                              const QString& text) {
        auto it = advance.constFind(text);
        if (it == advance.constEnd()) it = advance.insert(text, metrics.horizontalAdvance(text));
        return *it;
    };
    double need = 0;
    for (ProcessId p = 0; p < m_trace->processes().size(); ++p)
        need = std::max(
            need, advanceIn(m_boldAdvance, bfm, QString::fromStdString(m_trace->processLabel(p))));
    double compact = 0; // the compact job layout's rows: the rank's column, then the row's name
    const auto width = [&](const QString& text) { return advanceIn(m_advance, fm, text); };
    const double rankColumn = rankColumnWidth(bfm);
    if (m_layout)
        for (const TimelineRow& r : m_layout->rows()) {
            if (r.track == kNone || (!r.alone && r.rank < 0)) continue;
            const double w = width(rowLabel(r));
            if (r.alone) need = std::max(need, w);
            if (r.rank >= 0) compact = std::max(compact, rankColumn - 20 + w);
        }
    need = std::max(need, compact);
    return std::clamp(std::ceil(need) + 20 + 18 + 8, min, max);
}

double TimelineRenderer::rankColumnWidth(const QFontMetricsF& bold)
{
    return std::ceil(bold.horizontalAdvance(QStringLiteral("Rank 888"))) + 16;
}

void TimelineRenderer::paintLabels(QPainter& p, const TimelineGeometry& g) const
{
    const QRectF area(0, g.rulerHeight, g.labelWidth, g.size.height() - g.rulerHeight);
    p.save();
    p.fillRect(area, m_style.labelBackground);
    const double band = std::min(g.pinnedHeight(), area.height());
    p.setClipRect(QRectF(0, area.top() + band, g.labelWidth, area.height() - band));
    paintLabelRows(p, g, false);
    if (band > 0) {
        p.setClipRect(QRectF(0, area.top(), g.labelWidth, band));
        paintLabelRows(p, g, true);
    }
    p.restore();
    p.setPen(m_style.grid.darker(115));
    p.drawLine(QPointF(g.labelWidth - 0.5, 0), QPointF(g.labelWidth - 0.5, g.size.height()));
}

void TimelineRenderer::paintLabelRows(QPainter& p, const TimelineGeometry& g, bool pinned) const
{
    const QRectF area(0, g.rulerHeight, g.labelWidth, g.size.height() - g.rulerHeight);
    const QFontMetricsF fm(p.font());
    QFont bold = p.font();
    bold.setBold(true);
    const QFontMetricsF bfm(bold);
    const auto& rows = g.layout->rows();
    std::size_t begin = 0, end = static_cast<std::size_t>(g.layout->firstScrollingRow());
    if (!pinned) {
        const int first = g.layout->rowAt(g.layout->pinnedHeight() + g.scrollY);
        begin = std::max(end, first < 0 ? end : static_cast<std::size_t>(first));
        end = rows.size();
    }
    // A small pin at the right of pinned labels.
    auto pin = [&](double cy) {
        const QPointF c(g.labelWidth - 11, cy - 2);
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(QPen(m_style.dimText, 1.4));
        p.drawLine(c, c + QPointF(0, 7));
        p.setPen(Qt::NoPen);
        p.setBrush(m_style.anomaly);
        p.drawEllipse(c, 3.2, 3.2);
        p.setRenderHint(QPainter::Antialiasing, false);
    };
    for (std::size_t i = begin; i < end; ++i) {
        const TimelineRow& row = rows[i];
        const double top = g.screenY(row.y);
        if (top > area.bottom()) break;
        if (top + row.height < area.top()) continue;
        const bool pinnedHere = row.kind == RowKind::ProcessHeader
                                    ? isProcessPinned(row.process)
                                    : row.alone || isTrackPinned(row.track);
        const double textRight = pinnedHere ? 18 : 4; // room for the pin
        if (row.kind == RowKind::ProcessHeader) {
            const QRectF r(0, top, g.labelWidth, row.height);
            p.fillRect(r, m_style.header);
            // Disclosure triangle: right when collapsed, down when open.
            const QPointF c(10, top + row.height / 2);
            QPolygonF tri;
            if (isCollapsed(row.process))
                tri << c + QPointF(-3, -5) << c + QPointF(4, 0) << c + QPointF(-3, 5);
            else
                tri << c + QPointF(-5, -3) << c + QPointF(5, -3) << c + QPointF(0, 4);
            p.setPen(Qt::NoPen);
            p.setBrush(m_style.dimText);
            p.setRenderHint(QPainter::Antialiasing, true);
            p.drawPolygon(tri);
            p.setRenderHint(QPainter::Antialiasing, false);
            const Process& proc = m_trace->processes()[row.process];
            QString text = QString::fromStdString(m_trace->processLabel(row.process));
            p.setFont(bold);
            p.setPen(m_style.headerText);
            const QString elided =
                bfm.elidedText(text, Qt::ElideRight, g.labelWidth - 22 - textRight);
            p.drawText(r.adjusted(20, 0, -textRight, 0), Qt::AlignVCenter | Qt::AlignLeft, elided);
            const double used = 20 + bfm.horizontalAdvance(elided) + 6;
            bold.setBold(false);
            p.setFont(bold);
            bold.setBold(true);
            p.setPen(m_style.dimText);
            if (used < g.labelWidth - 30 - textRight && !proc.pid.empty())
                p.drawText(
                    r.adjusted(used, 0, -textRight, 0), Qt::AlignVCenter | Qt::AlignLeft,
                    fm.elidedText(QStringLiteral("pid %1").arg(QString::fromStdString(proc.pid)),
                                  Qt::ElideRight, g.labelWidth - used - textRight));
            if (pinnedHere) pin(top + row.height / 2);
        } else {
            // Sticky: a tall track scrolled partly off keeps its label on its visible part.
            const QRectF r = g.labelRect(static_cast<int>(i));
            if (r.top() > top) p.fillRect(r, m_style.labelBackground);
            p.setPen(m_style.text);
            const QString text = rowLabel(row);
            double indent = 20;
            if (row.rank >= 0) {
                // The compact job layout: a rule above each rank, its name in its first row.
                indent = rankColumnWidth(bfm);
                if (row.rankFirst) {
                    p.fillRect(QRectF(0, top, g.size.width(), 1.5), rankRule());
                    p.setFont(bold);
                    p.setPen(m_style.headerText);
                    p.drawText(QRectF(8, r.top(), indent - 10, r.height()),
                               Qt::AlignVCenter | Qt::AlignLeft,
                               bfm.elidedText(rankName(row), Qt::ElideRight, indent - 10));
                    bold.setBold(false);
                    p.setFont(bold);
                    bold.setBold(true);
                    p.setPen(m_style.text);
                }
            }
            p.drawText(r.adjusted(indent, 0, -2 - textRight, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       fm.elidedText(text, Qt::ElideRight, g.labelWidth - indent - 2 - textRight));
            if (pinnedHere) pin(r.center().y());
            p.setPen(m_style.grid);
            p.drawLine(QPointF(0, top + row.height - 0.5),
                       QPointF(g.labelWidth, top + row.height - 0.5));
        }
    }
}

TimelineRenderer::RulerText TimelineRenderer::rulerText(const TimelineGeometry& g,
                                                        const QFont& font) const
{
    RulerText out;
    const QFontMetricsF fm(font);
    const double right = g.size.width();
    if (hasRangeSelection()) {
        const double x0 = g.xOf(m_rangeBegin);
        const double x1 = g.xOf(m_rangeEnd);
        out.rangeText = QString::fromStdString(formatDuration(m_rangeEnd - m_rangeBegin));
        const double w = fm.horizontalAdvance(out.rangeText) + 10;
        const double cx = std::clamp((x0 + x1) / 2, g.labelWidth + w / 2, right - w / 2);
        out.rangeRect = QRectF(cx - w / 2, 2, w, 14);
    }
    const TimeNs step = niceTimeStep(g.nsPerPixel() * 110);
    const TimeNs rel0 = g.t0 - g.traceStart;
    TimeNs tick = rel0 >= 0 ? (rel0 / step) * step : -((-rel0 + step - 1) / step) * step;
    for (; tick <= g.t1 - g.traceStart; tick += step) {
        const double x = g.xOf(tick + g.traceStart);
        if (x < g.labelWidth) continue; // its label would be cut by the label column
        RulerTick t;
        t.x = x;
        t.text = formatOffset(tick, step);
        const double baseline = g.rulerHeight - 12;
        t.rect = QRectF(x + 3, baseline - fm.ascent(), fm.horizontalAdvance(t.text),
                        fm.ascent() + fm.descent());
        // The range's duration is what the user is reading: the tick labels under it give way.
        t.hidden =
            !out.rangeRect.isNull() && t.rect.adjusted(-2, 0, 2, 0).intersects(out.rangeRect);
        out.ticks.push_back(std::move(t));
    }
    return out;
}

void TimelineRenderer::paintRuler(QPainter& p, const TimelineGeometry& g) const
{
    const QRectF ruler(g.labelWidth, 0, g.size.width() - g.labelWidth, g.rulerHeight);
    p.fillRect(QRectF(0, 0, g.size.width(), g.rulerHeight), m_style.ruler);
    p.setPen(m_style.dimText);
    p.drawText(QRectF(8, 0, g.labelWidth - 12, g.rulerHeight), Qt::AlignVCenter | Qt::AlignLeft,
               QStringLiteral("from trace start"));
    p.save();
    p.setClipRect(ruler);
    const TimeNs step = niceTimeStep(g.nsPerPixel() * 110);
    const TimeNs rel0 = g.t0 - g.traceStart;
    TimeNs tick = rel0 >= 0 ? (rel0 / step) * step : -((-rel0 + step - 1) / step) * step;
    const TimeNs minor = step / 5 > 0 ? step / 5 : step;
    for (TimeNs m = tick; m <= g.t1 - g.traceStart; m += minor) {
        const double x = g.xOf(m + g.traceStart);
        p.setPen(m_style.grid.darker(130));
        p.drawLine(QPointF(x, g.rulerHeight - 4), QPointF(x, g.rulerHeight));
    }
    for (; tick <= g.t1 - g.traceStart; tick += step) {
        const double x = g.xOf(tick + g.traceStart);
        p.setPen(m_style.dimText);
        p.drawLine(QPointF(x, g.rulerHeight - 10), QPointF(x, g.rulerHeight));
    }
    const RulerText text = rulerText(g, p.font());
    p.setPen(m_style.text);
    for (const RulerTick& t : text.ticks)
        if (!t.hidden) p.drawText(QPointF(t.rect.left(), g.rulerHeight - 12), t.text);
    if (hasRangeSelection()) {
        const double x0 = g.xOf(m_rangeBegin);
        const double x1 = g.xOf(m_rangeEnd);
        QColor band = m_style.rangeLabel;
        band.setAlpha(70);
        p.fillRect(QRectF(x0, 0, std::max(1.0, x1 - x0), g.rulerHeight), band);
        p.fillRect(text.rangeRect, m_style.rangeLabel);
        p.setPen(m_style.inkOnMark);
        p.drawText(text.rangeRect, Qt::AlignCenter, text.rangeText);
    }
    p.restore();
    p.setPen(m_style.grid.darker(115));
    p.drawLine(QPointF(0, g.rulerHeight - 0.5), QPointF(g.size.width(), g.rulerHeight - 0.5));
}

TimelineHit TimelineRenderer::hitTest(const TimelineGeometry& g, QPointF pos) const
{
    TimelineHit hit;
    if (!g.valid() || !m_trace) return hit;
    hit.time = g.timeAt(pos.x());
    if (pos.y() < g.rulerHeight) {
        hit.kind = pos.x() >= g.labelWidth ? TimelineHit::Ruler : TimelineHit::None;
        return hit;
    }
    const int ri = g.rowAtY(pos.y());
    if (ri < 0) return hit;
    const TimelineRow& row = g.layout->rows()[static_cast<std::size_t>(ri)];
    hit.process = row.process;
    hit.track = row.track;
    if (row.kind == RowKind::ProcessHeader) {
        hit.kind = TimelineHit::ProcessHeader;
        return hit;
    }
    if (pos.x() < g.labelWidth) {
        hit.kind = TimelineHit::Label;
        return hit;
    }
    if (row.kind == RowKind::Counter) {
        const CounterSeries& cs = m_trace->counters()[m_trace->tracks()[row.track].counter];
        auto it = std::upper_bound(cs.ts.begin(), cs.ts.end(), hit.time);
        if (it != cs.ts.begin()) {
            hit.kind = TimelineHit::Counter;
            hit.counterValue = cs.values[static_cast<std::size_t>(it - cs.ts.begin()) - 1];
        }
        return hit;
    }
    const double inTrack = pos.y() - g.screenY(row.y);
    const int shown = static_cast<int>(inTrack / TimelineLayout::kSliceRowHeight);
    if (shown >= row.depths) return hit;
    const int depth = row.firstDepth + shown;
    hit.depth = depth;
    const auto ids = m_index->row(row.track, depth);
    const double nsPx = g.nsPerPixel();
    // Everything within the fold width of the point: one slice, or a folded block.
    const TimeNs ta = g.timeAt(pos.x() - kFoldPixels);
    const TimeNs tb = g.timeAt(pos.x() + kFoldPixels);
    const std::size_t exact = m_index->firstEndingAfter(ids, hit.time);
    if (exact < ids.size() && m_trace->slice(ids[exact]).start <= hit.time &&
        static_cast<double>(m_trace->slice(ids[exact]).dur) >= kFoldPixels * nsPx) {
        hit.kind = TimelineHit::Event;
        hit.event = ids[exact];
        return hit;
    }
    const std::size_t j0 = m_index->firstEndingAfter(ids, ta);
    const std::size_t j1 = m_index->firstStartingAt(ids, tb + 1);
    if (j1 <= j0) return hit;
    if (j1 - j0 == 1) {
        hit.kind = TimelineHit::Event;
        hit.event = ids[j0];
        return hit;
    }
    // The slice nearest the point represents the block (clicking selects it).
    std::size_t best = exact < ids.size() && exact >= j0 && exact < j1 ? exact : j0;
    hit.kind = TimelineHit::Folded;
    hit.event = ids[best];
    hit.foldedCount = static_cast<int>(j1 - j0);
    return hit;
}

} // namespace rs
