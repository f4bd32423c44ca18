#include "ui/theme/hatch.h"

#include <QPaintEngine>
#include <QPainter>

#include <cmath>

namespace rs {

bool paintsVectors(const QPainter& p)
{
    const QPaintEngine* e = p.paintEngine();
    return e && (e->type() == QPaintEngine::SVG || e->type() == QPaintEngine::Pdf ||
                 e->type() == QPaintEngine::Picture);
}

void fillHatch(QPainter& p, const QRectF& r, const QColor& ink, Qt::BrushStyle style)
{
    if (r.isEmpty()) return;
    if (!paintsVectors(p)) {
        p.fillRect(r, QBrush(ink, style));
        return;
    }
    // Lines x + y = c ("/") or x - y = c ("\"), c on a grid of 8 so that neighbouring
    // rectangles' stripes meet, each cut to r.
    constexpr double kStep = 8;
    const bool back = style != Qt::FDiagPattern;
    const double l = r.left(), rt = r.right(), t = r.top(), b = r.bottom();
    const double lo = back ? l + t : l - b, hi = back ? rt + b : rt - t;
    p.save();
    p.setPen(QPen(ink, 1.0, Qt::SolidLine, Qt::FlatCap));
    p.setBrush(Qt::NoBrush);
    for (double c = std::ceil(lo / kStep) * kStep; c <= hi; c += kStep) {
        // y = c - x ("/") or y = x - c ("\"), x within [l, rt] and y within [t, b].
        const double x0 = back ? std::max(l, c - b) : std::max(l, c + t);
        const double x1 = back ? std::min(rt, c - t) : std::min(rt, c + b);
        if (x1 <= x0) continue;
        const double y0 = back ? c - x0 : x0 - c, y1 = back ? c - x1 : x1 - c;
        p.drawLine(QPointF(x0, y0), QPointF(x1, y1));
    }
    p.restore();
}

} // namespace rs
