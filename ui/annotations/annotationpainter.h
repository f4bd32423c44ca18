#pragma once

// Draws annotations over a timeline frame (the TimelineRenderer overlay): on screen and in
// exported images alike, so what the user sees is what they send.

#include "core/annotations/annotationstore.h"
#include "ui/timeline/timelinerenderer.h"

#include <QColor>
#include <QRectF>

#include <vector>

class QPainter;

namespace rs {

// Where one annotation ended up; for hit-testing in the view and for tests of exports.
struct PaintedAnnotation {
    std::uint64_t id = 0;
    QRectF label;           // the text box (empty when the annotation has no text or is off screen)
    QRectF anchor;          // the event / range / point it refers to, clipped to the plot
    QRectF bounds;          // where its label had to stay (a finding label: its rank's rows)
    bool dropped = false;   // a finding label with no free spot there: not drawn (hover shows it)
    bool shortened = false; // only its first line fitted: the rest is in the hover text
};

struct AnnotationPaintOptions {
    std::uint64_t selected = 0; // drawn emphasised
    double maxLabelWidth = 300;
    double fontPointSize = 8.5;
    // A job: the rank (block) of each process. A finding label then stays on the rows of its
    // event's rank, never over another rank's; empty: the whole plot is one rank.
    std::vector<int> processRanks;
    // Rectangles no label may cover (the selected slice's name: what the user is reading).
    std::vector<QRectF> keepClear;
    // What the frame draws (TimelineRenderer::occupiedRects): a finding label goes only into
    // free space, never over the bars it explains; a user's note prefers free space.
    std::vector<QRectF> occupied;
};

// Default colour of a kind when the annotation has none.
QColor annotationColor(const Annotation& a);

// Paints the store's visible annotations that intersect the geometry's range; labels are
// kept inside the plot and moved apart so they do not overlap each other. Finding labels
// (automatic) are placed only in free space (options.occupied) inside their rank's rows
// without touching another label, whole or by their first line, else left out
// (PaintedAnnotation::dropped): their event keeps its outline, the text shows on hover.
std::vector<PaintedAnnotation> paintAnnotations(QPainter& p, const TimelineGeometry& g,
                                                const AnnotationStore& store,
                                                const TimelineStyle& style,
                                                const AnnotationPaintOptions& options = {});

} // namespace rs
