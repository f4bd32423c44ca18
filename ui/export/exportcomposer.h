#pragma once

// The picture a user sends to the team that owns the custom op: a title block (trace, rank,
// time range, top findings), a legend of the markers, the timeline of a range with its track
// labels, highlights and annotations; or the composite report (timeline + step plot + call
// stack of the selected event). Paints into any QPainter; writes PNG (1x, 2x), SVG or PDF.

#include "core/analysis/report.h"
#include "core/annotations/annotationstore.h"
#include "ui/annotations/annotationpainter.h"
#include "ui/plots/plotstyle.h"
#include "ui/timeline/timelinerenderer.h"

#include <QSize>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

class QPainter;

namespace rs {

enum class ExportFormat { Png, Svg, Pdf };
// By suffix (case-insensitive); nullopt for anything else.
std::optional<ExportFormat> exportFormatFor(const QString& file);

struct ExportOptions {
    int width = 1600; // logical pixels (PDF: points)
    int height = 0;   // 0: as tall as the tracks need, up to maxAutoHeight
    int maxAutoHeight = 2400;
    int plotHeight = 0;    // > 0: the tracks area is this tall (the view's visible area)
    double scale = 1;      // PNG pixels per logical pixel: 2 for HiDPI screens and slides
    TimeNs t0 = 0, t1 = 0; // range; t1 <= t0: the whole trace
    double scrollY = 0;    // first content pixel shown (as in the view)
    EventId focus = kNone; // scrolled into view and, in the composite, whose stack is shown
    QString title;         // default: the trace file name
    bool titleBlock = true;
    bool legend = true;
    int topFindings = 3;
    bool dark = false; // the dark theme's page and timeline; default light (print, tickets)
};

struct ThemePalette;

class ExportComposer {
public:
    ExportComposer(TracePtr trace, ReportPtr report, const AnnotationStore* annotations);

    // Takes the collapsed groups, selection, highlights' label width and flow setting of the
    // view the user is looking at, so the export matches the screen.
    void copyViewState(const TimelineRenderer& view);
    // Also sets the renderer's style to the options' theme (light unless dark).
    void setOptions(const ExportOptions& options);
    const ExportOptions& options() const { return m_options; }
    TimelineRenderer& renderer() { return m_renderer; }

    // A job taller than the picture may be (--height, or the largest picture): the compact
    // job layout (per rank its steps, collectives, copies and compute), then fewer rows per
    // rank (collectives and copies, then collectives), so that every rank shows. Call after
    // setOptions. Returns what was done, also in the subtitle ("compact: … per rank"); empty
    // when every track fits.
    QString fitRanksToHeight();
    // Logical size of the timeline picture / the composite report for the current options.
    QSizeF timelineSize() const;
    QSizeF compositeSize() const;

    void paintTimeline(QPainter& p, QSizeF size);
    void paintComposite(QPainter& p, QSizeF size);

    // Writes by suffix; false with *error on failure.
    bool writeTimeline(const QString& file, QString* error);
    bool writeComposite(const QString& file, QString* error);

    // After a paint: where the timeline was drawn and where each annotation's label landed
    // (logical coordinates of the picture), for tests and for the GUI's preview.
    const TimelineGeometry& lastGeometry() const { return m_geometry; }
    QPointF lastTimelineOrigin() const { return m_origin; }
    const std::vector<PaintedAnnotation>& lastAnnotations() const { return m_painted; }
    // After a composite paint: the step plot's size and where its texts were drawn (its own
    // pixels), for layout tests.
    const std::vector<plots::PlotText>& lastStepPlotTexts() const { return m_stepPlotTexts; }
    QSize lastStepPlotSize() const { return m_stepPlotSize; }

private:
    const ThemePalette& pal() const;
    TimeNs rangeStart() const;
    TimeNs rangeEnd() const;
    double titleBlockHeight(double width) const;
    // A finding's title as the title block writes it: wrapped, whole.
    QStringList findingLines(const Finding& f, double width) const;
    double paintTitleBlock(QPainter& p, const QRectF& area);
    void paintLegend(QPainter& p, const QRectF& area);
    void paintTimelineArea(QPainter& p, const QRectF& area);
    void paintCallStack(QPainter& p, const QRectF& area, EventId e);
    bool paintStepPlot(QPainter& p, const QRectF& area, EventId e);
    EventId compositeEvent() const;
    std::vector<const Finding*> findingsInRange() const;
    bool write(const QString& file, QSizeF size, bool composite, QString* error);

    TracePtr m_trace;
    ReportPtr m_report;
    const AnnotationStore* m_annotations = nullptr;
    TimelineRenderer m_renderer;
    ExportOptions m_options;
    TimelineGeometry m_geometry;
    QPointF m_origin;
    std::vector<PaintedAnnotation> m_painted;
    std::vector<plots::PlotText> m_stepPlotTexts;
    QSize m_stepPlotSize;
    QString m_layoutNote; // how the tracks were folded to fit (the subtitle says it)
};

} // namespace rs
