#include "ui/annotations/annotationpainter.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace rs {

namespace {

constexpr double kPad = 4;
constexpr double kGap = 6; // between a label and what it points at

struct Placer {
    QRectF bounds;
    std::vector<QRectF> taken;
    std::vector<QRectF> occupied; // bars: free space only (while strict)
    bool strict = false;
    // The bars of the area being searched (placeWithin): a dense frame has thousands of runs,
    // a rank's band a fraction of them.
    std::vector<QRectF> nearby;
    bool useNearby = false;

    bool fits(const QRectF& r) const { return fitsIn(r, bounds); }
    bool fitsIn(const QRectF& r, const QRectF& area) const
    {
        if (!area.contains(r)) return false;
        const std::vector<QRectF>& bars = useNearby ? nearby : occupied;
        if (strict &&
            std::any_of(bars.begin(), bars.end(), [&](const QRectF& o) { return o.intersects(r); }))
            return false;
        return std::none_of(taken.begin(), taken.end(), [&](const QRectF& t) {
            return t.adjusted(-2, -2, 2, 2).intersects(r);
        });
    }
    QRectF clamp(QRectF r) const { return clampTo(r, bounds); }
    static QRectF clampTo(QRectF r, const QRectF& area)
    {
        if (r.right() > area.right()) r.moveRight(area.right());
        if (r.left() < area.left()) r.moveLeft(area.left());
        if (r.bottom() > area.bottom()) r.moveBottom(area.bottom());
        if (r.top() < area.top()) r.moveTop(area.top());
        return r;
    }
    // A free spot inside area (candidates, then scanning down, up and sideways from the
    // first), or nothing: a finding label that does not fit is left out, never piled up.
    std::optional<QRectF> placeWithin(const std::vector<QRectF>& candidates, const QRectF& area)
    {
        const QRectF inside = area.intersected(bounds);
        if (inside.isEmpty()) return std::nullopt;
        nearby.clear();
        if (strict)
            for (const QRectF& o : occupied)
                if (o.intersects(inside)) nearby.push_back(o);
        useNearby = true;
        const auto found = [&]() -> std::optional<QRectF> {
            for (const QRectF& c : candidates)
                if (QRectF r = clampTo(c, inside); fitsIn(r, inside)) return r;
            const QRectF base = clampTo(candidates.front(), inside);
            const double dy = base.height() / 2 + 2, dx = base.width() / 2 + 4;
            for (int i = 1; i < 40; ++i)
                for (int sx : {0, 1, -1})
                    for (int sign : {1, -1}) {
                        QRectF r = base.translated(sx * i * dx, sign * i * dy);
                        if (fitsIn(r, inside)) return r;
                    }
            return std::nullopt;
        }();
        useNearby = false;
        if (found) return take(*found);
        return std::nullopt;
    }
    // First free spot among the candidates, then scanning down and up from the first; the
    // first candidate (clamped) when the plot is full. Free space first: the bars are avoided
    // when they can be.
    QRectF place(const std::vector<QRectF>& candidates)
    {
        strict = true;
        for (const QRectF& c : candidates)
            if (QRectF r = clamp(c); fits(r)) {
                strict = false;
                return take(r);
            }
        strict = false;
        for (const QRectF& c : candidates)
            if (QRectF r = clamp(c); fits(r)) return take(r);
        const QRectF base = clamp(candidates.front());
        for (int i = 1; i < 40; ++i) {
            for (int sign : {1, -1}) {
                QRectF r = base.translated(0, sign * i * (base.height() / 2 + 2));
                if (fits(r)) return take(r);
            }
        }
        return take(base);
    }
    QRectF take(const QRectF& r)
    {
        taken.push_back(r);
        return r;
    }
};

QString labelText(const Annotation& a)
{
    return QString::fromStdString(a.text).trimmed();
}

QSizeF labelSize(const QFontMetricsF& fm, const QString& text, double maxWidth)
{
    const QRectF r = fm.boundingRect(QRectF(0, 0, maxWidth, 1e6), Qt::TextWordWrap, text);
    // A pixel of slack each way: a line that wraps one pixel later is not cut at the edge.
    return QSizeF(std::ceil(r.width()) + 2 * kPad + 4, std::ceil(r.height()) + 2 * kPad + 1);
}

void drawLabel(QPainter& p, const QRectF& box, const QString& text, const QColor& colour,
               const TimelineStyle& style, bool selected, bool automatic)
{
    p.setPen(QPen(colour, selected ? 2.5 : 1.2, automatic ? Qt::DashLine : Qt::SolidLine));
    p.setBrush(style.noteLabel);
    p.drawRoundedRect(box, 3, 3);
    // A colour bar on the left ties the box to its marker when the leader is short.
    p.fillRect(QRectF(box.left() + 1, box.top() + 1, 3, box.height() - 2), colour);
    p.setPen(style.text);
    p.drawText(box.adjusted(kPad + 3, kPad, -kPad, -kPad), Qt::TextWordWrap, text);
}

// A line from the label to the nearest side of the event, ending in a dot.
void drawLeader(QPainter& p, const QRectF& box, const QRectF& event, const QColor& colour)
{
    QPointF target, from;
    if (box.bottom() <= event.top() || box.top() >= event.bottom()) {
        // Above or below: from the box's facing edge, over the event's middle when it can.
        const double x = std::clamp(event.center().x(), std::max(box.left() + 4, event.left()),
                                    std::max(std::min(box.right() - 4, event.right()),
                                             std::max(box.left() + 4, event.left())));
        const bool above = box.bottom() <= event.top();
        target = QPointF(std::clamp(x, event.left(), event.right()),
                         above ? event.top() - 2 : event.bottom() + 2);
        from = QPointF(std::clamp(target.x(), box.left() + 4, box.right() - 4),
                       above ? box.bottom() : box.top());
    } else {
        // Beside it in its row.
        const bool right = box.left() >= event.right();
        target = QPointF(right ? event.right() + 2 : event.left() - 2, event.center().y());
        from = QPointF(right ? box.left() : box.right(),
                       std::clamp(target.y(), box.top() + 3, box.bottom() - 3));
    }
    if (box.contains(target)) return;
    p.setPen(QPen(colour, 1.2));
    p.drawLine(from, target);
    p.setBrush(colour);
    p.setPen(Qt::NoPen);
    p.drawEllipse(target, 2.5, 2.5);
}

void drawArrowHead(QPainter& p, QPointF tip, QPointF from, const QColor& colour)
{
    const double angle = std::atan2(tip.y() - from.y(), tip.x() - from.x());
    const double len = 9, spread = 0.42;
    QPolygonF head;
    head << tip << tip - QPointF(len * std::cos(angle - spread), len * std::sin(angle - spread))
         << tip - QPointF(len * std::cos(angle + spread), len * std::sin(angle + spread));
    p.setPen(Qt::NoPen);
    p.setBrush(colour);
    p.drawPolygon(head);
}

// An event's rectangle on screen; a thin box at the top of the plot when its track is hidden.
QRectF eventBox(const TimelineGeometry& g, EventId e, TimeNs start, TimeNs end)
{
    QRectF r = e != kNone ? g.eventRect(e) : QRectF();
    if (r.isEmpty()) {
        const QRectF plot = g.plotRect();
        const double x0 = g.xOf(start), x1 = g.xOf(end);
        r = QRectF(x0, plot.top() + 2, std::max(1.0, x1 - x0), 4);
    }
    if (r.width() < 2) r = QRectF(r.center().x() - 1, r.top(), 2, r.height());
    return r;
}

} // namespace

QColor annotationColor(const Annotation& a)
{
    if (!a.color.empty()) {
        QColor c(QString::fromStdString(a.color));
        if (c.isValid()) return c;
    }
    switch (a.kind) {
    case AnnotationKind::Note:
        return QColor(0x0b, 0x7a, 0x75); // teal: apart from the blue collectives and red flags
    case AnnotationKind::Range:
        return QColor(0x8a, 0x6d, 0x00);
    case AnnotationKind::Arrow:
        return QColor(0x7b, 0x3f, 0xb5);
    }
    return Qt::darkCyan;
}

std::vector<PaintedAnnotation> paintAnnotations(QPainter& p, const TimelineGeometry& g,
                                                const AnnotationStore& store,
                                                const TimelineStyle& style,
                                                const AnnotationPaintOptions& options)
{
    std::vector<PaintedAnnotation> out;
    if (!g.valid() || !store.trace()) return out;
    const QRectF plot = g.plotRect();
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setRenderHint(QPainter::TextAntialiasing, true);
    QFont font = p.font();
    font.setPointSizeF(options.fontPointSize);
    p.setFont(font);
    const QFontMetricsF fm(font, p.device());
    Placer placer;
    placer.bounds = plot.adjusted(2, 2, -2, -2);
    placer.taken = options.keepClear;
    placer.occupied = options.occupied;

    const auto items = store.visible();
    auto inRange = [&](const AnnotationAnchor& a) { return a.end >= g.t0 && a.start <= g.t1; };

    // The on-screen rows of an event's rank (the whole plot for one rank): a finding label
    // stays on them.
    const Trace& trace = *store.trace();
    std::map<int, QRectF> bands;
    auto rankBand = [&](EventId e) -> QRectF {
        const QRectF all = placer.bounds;
        if (options.processRanks.empty() || e == kNone || e >= trace.slices().size()) return all;
        const TrackId track = trace.slice(e).track;
        const ProcessId proc =
            track < trace.tracks().size() ? trace.tracks()[track].process : kNone;
        if (proc == kNone || proc >= options.processRanks.size()) return all;
        const int rank = options.processRanks[proc];
        auto it = bands.find(rank);
        if (it != bands.end()) return it->second;
        double top = 0, bottom = 0;
        bool any = false;
        const auto& rows = g.layout->rows();
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const ProcessId p = rows[i].process;
            if (p == kNone || p >= options.processRanks.size() || options.processRanks[p] != rank)
                continue;
            const QRectF r = g.rowRect(static_cast<int>(i));
            top = any ? std::min(top, r.top()) : r.top();
            bottom = any ? std::max(bottom, r.bottom()) : r.bottom();
            any = true;
        }
        const QRectF band =
            any ? QRectF(all.left(), top + 1, all.width(), bottom - top - 2).intersected(all)
                : QRectF();
        bands[rank] = band;
        return band;
    };
    // Finding labels: in free space inside their rank's rows or not at all; the user's own:
    // free space first, else anywhere.
    auto placeLabel = [&](const Annotation& a, EventId e, const std::vector<QRectF>& candidates,
                          PaintedAnnotation& painted) -> std::optional<QRectF> {
        if (!a.automatic) return placer.place(candidates);
        painted.bounds = rankBand(e);
        placer.strict = true;
        std::optional<QRectF> box = placer.placeWithin(candidates, painted.bounds);
        placer.strict = false;
        painted.dropped = !box;
        return box;
    };
    // The first line of a finding label, for when the whole does not fit (hover has all).
    auto firstLine = [](const QString& text) { return text.section(QLatin1Char('\n'), 0, 0); };

    // An event of the trace whose row is not shown.
    auto hidden = [&](EventId e) { return e != kNone && g.eventRect(e).isNull(); };

    // Ranges first (bands under everything), then arrows, then notes on top.
    for (int pass = 0; pass < 3; ++pass) {
        for (const Annotation* a : items) {
            const AnnotationKind want = pass == 0   ? AnnotationKind::Range
                                        : pass == 1 ? AnnotationKind::Arrow
                                                    : AnnotationKind::Note;
            if (a->kind != want) continue;
            const AnnotationAnchor anchor = store.anchor(a->id);
            if (!inRange(anchor)) continue;
            const QColor colour = annotationColor(*a);
            const bool selected = options.selected == a->id;
            const QString text = labelText(*a);
            const QSizeF size =
                text.isEmpty() ? QSizeF() : labelSize(fm, text, options.maxLabelWidth);
            PaintedAnnotation painted;
            painted.id = a->id;

            p.save();
            p.setClipRect(plot);
            if (a->kind == AnnotationKind::Range) {
                const double x0 = std::max(plot.left(), g.xOf(anchor.start));
                const double x1 = std::min(plot.right(), std::max(x0 + 1, g.xOf(anchor.end)));
                const QRectF band(x0, plot.top(), x1 - x0, plot.height());
                QColor fill = colour;
                fill.setAlpha(selected ? 60 : 36);
                p.fillRect(band, fill);
                p.setPen(QPen(colour, 1.2, Qt::DashLine));
                p.drawLine(QPointF(x0, plot.top()), QPointF(x0, plot.bottom()));
                p.drawLine(QPointF(x1, plot.top()), QPointF(x1, plot.bottom()));
                painted.anchor = band;
                p.restore();
                if (!text.isEmpty()) {
                    const QRectF box =
                        placer.place({QRectF(QPointF(x0 + 3, plot.top() + 3), size),
                                      QRectF(QPointF(x1 + 3, plot.top() + 3), size)});
                    drawLabel(p, box, text, colour, style, selected, a->automatic);
                    painted.label = box;
                }
            } else if (a->kind == AnnotationKind::Arrow &&
                       (hidden(anchor.event) || hidden(anchor.target))) {
                // An end on a row not shown (compact mode, a collapsed group) would start the
                // arrow at the top of the plot, across other ranks: not drawn.
                painted.dropped = true;
                p.restore();
            } else if (a->kind == AnnotationKind::Arrow) {
                const QRectF r1 =
                    eventBox(g, anchor.event, a->event.startNs, a->event.startNs + a->event.durNs);
                const QRectF r2 = eventBox(g, anchor.target, a->target.startNs,
                                           a->target.startNs + a->target.durNs);
                const QPointF from(r1.center().x(),
                                   r1.bottom() < r2.top() ? r1.bottom() : r1.top());
                const QPointF to(std::clamp(from.x(), r2.left(), r2.right()),
                                 r1.bottom() < r2.top() ? r2.top() : r2.bottom());
                // A gentle curve so arrows between rows do not hide the slices they cross.
                const QPointF mid =
                    (from + to) / 2 + QPointF(std::abs(to.y() - from.y()) * 0.25 + 20, 0);
                QPainterPath path(from);
                path.quadTo(mid, to);
                p.setPen(QPen(colour, selected ? 2.5 : 1.8,
                              anchor.resolved ? Qt::SolidLine : Qt::DotLine));
                p.setBrush(Qt::NoBrush);
                p.drawPath(path);
                drawArrowHead(p, to, path.pointAtPercent(0.92), colour);
                p.setBrush(colour);
                p.setPen(Qt::NoPen);
                p.drawEllipse(from, 3, 3);
                painted.anchor = QRectF(from, to).normalized().intersected(plot);
                p.restore();
                if (!text.isEmpty()) {
                    const QPointF c = path.pointAtPercent(0.5);
                    auto candidates = [&](QSizeF sz) {
                        return std::vector<QRectF>{
                            QRectF(c + QPointF(6, -sz.height() / 2), sz),
                            QRectF(c - QPointF(sz.width() + 6, sz.height() / 2), sz)};
                    };
                    QString shown = text;
                    auto box = placeLabel(*a, anchor.event, candidates(size), painted);
                    if (!box && a->automatic && firstLine(text) != text) {
                        shown = firstLine(text);
                        box = placeLabel(*a, anchor.event,
                                         candidates(labelSize(fm, shown, options.maxLabelWidth)),
                                         painted);
                        painted.shortened = box.has_value();
                    }
                    if (box) {
                        // Placed away from the curve (free space is elsewhere): a leader
                        // ties it back to the arrow's middle.
                        if (!box->adjusted(-8, -8, 8, 8).contains(c))
                            drawLeader(p, *box, QRectF(c - QPointF(1, 1), QSizeF(2, 2)), colour);
                        drawLabel(p, *box, shown, colour, style, selected, a->automatic);
                        painted.label = *box;
                    }
                }
            } else if (a->onEvent() && a->automatic && hidden(anchor.event)) {
                // A finding label on a hidden row points at nothing (its arrow is not drawn).
                painted.dropped = true;
                p.restore();
            } else if (a->onEvent()) {
                const QRectF r = eventBox(g, anchor.event, anchor.start, anchor.end);
                const QRectF vis = r.intersected(plot);
                p.setPen(QPen(colour, selected ? 2.5 : 1.5,
                              anchor.resolved ? Qt::SolidLine : Qt::DotLine));
                p.setBrush(Qt::NoBrush);
                // Outside the selection's outline, so a mark on the selected event shows.
                // Finding labels hug the event, the user's own marks sit outside them.
                const double out = a->automatic ? 2 : 5;
                if (!vis.isEmpty()) p.drawRect(vis.adjusted(-out, -out, out, out));
                painted.anchor = vis;
                p.restore();
                if (!text.isEmpty()) {
                    const double ax = std::clamp(vis.isEmpty() ? r.center().x() : vis.center().x(),
                                                 plot.left(), plot.right());
                    const double left = ax - 12;
                    // Above, below, then beside the event in its own row (free space there is
                    // where the row has no bars), then further out.
                    auto candidates = [&](QSizeF sz) {
                        return std::vector<QRectF>{
                            QRectF(QPointF(left, r.top() - kGap - 10 - sz.height()), sz),
                            QRectF(QPointF(left, r.bottom() + kGap + 10), sz),
                            QRectF(
                                QPointF(left - sz.width() + 24, r.top() - kGap - 10 - sz.height()),
                                sz),
                            QRectF(
                                QPointF(vis.right() + kGap + 4, r.center().y() - sz.height() / 2),
                                sz),
                            QRectF(QPointF(vis.left() - kGap - 4 - sz.width(),
                                           r.center().y() - sz.height() / 2),
                                   sz)};
                    };
                    QString shown = text;
                    auto box = placeLabel(*a, anchor.event, candidates(size), painted);
                    if (!box && a->automatic && firstLine(text) != text) {
                        shown = firstLine(text);
                        box = placeLabel(*a, anchor.event,
                                         candidates(labelSize(fm, shown, options.maxLabelWidth)),
                                         painted);
                        painted.shortened = box.has_value();
                    }
                    if (box) {
                        drawLeader(p, *box, vis.isEmpty() ? r : vis, colour);
                        drawLabel(p, *box, shown, colour, style, selected, a->automatic);
                        painted.label = *box;
                    }
                }
            } else {
                // A note on a time point: a flag pole across the plot.
                const double x = g.xOf(anchor.start);
                p.setPen(QPen(colour, selected ? 2.5 : 1.5, Qt::DashLine));
                p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
                painted.anchor = QRectF(x - 2, plot.top(), 4, plot.height());
                p.restore();
                if (!text.isEmpty()) {
                    const QRectF box =
                        placer.place({QRectF(QPointF(x + 2, plot.top() + 3), size),
                                      QRectF(QPointF(x - 2 - size.width(), plot.top() + 3), size)});
                    drawLabel(p, box, text, colour, style, selected, a->automatic);
                    painted.label = box;
                }
            }
            out.push_back(painted);
        }
    }
    p.restore();
    return out;
}

} // namespace rs
