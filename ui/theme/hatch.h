#pragma once

// Diagonal hatching (internal copies, waits, the breakdown's synchronization and memcpy) drawn
// the same on every device. On a screen or an image it is Qt's pattern brush; into SVG and PDF
// it is drawn as line segments cut to the rectangle: QSvgGenerator writes a pattern brush as
// a mask that librsvg draws and other renderers (ImageMagick's own) fill solid black, while
// plain lines every renderer draws.

#include <QColor>
#include <QRectF>
#include <Qt>

class QPainter;

namespace rs {

// Hatches r with ink: Qt::BDiagPattern ("/") or Qt::FDiagPattern ("\"), lines 8 px apart
// (in the painter's coordinates), 1 px wide.
void fillHatch(QPainter& p, const QRectF& r, const QColor& ink,
               Qt::BrushStyle style = Qt::BDiagPattern);
// Whether the painter draws into a vector file (SVG, PDF): hatching is then lines.
bool paintsVectors(const QPainter& p);

} // namespace rs
