#pragma once

// The picture a user sends to the team that owns the custom op: a title block (trace, rank,
// time range, top findings), a legend of the markers, the timeline of a range with its track
// labels, highlights and annotations (every rank of a job, in compact rows when they would not
// fit), and the story under it: the step plot and the root cause (the finding's title, the
// source frame to change, the fix and the call stack, the frame marked). The composite report
// is the same story in a 4:3 page. Paints into any QPainter; writes PNG (1x, 2x), SVG or PDF.

#include "core/analysis/report.h"
#include "core/annotations/annotationstore.h"
#include "ui/annotations/annotationpainter.h"
#include "ui/plots/plotstyle.h"
#include "ui/timeline/timelinerenderer.h"

#include <QSize>
#include <QString>
#include <QStringList>

#include <optional>
#include <utility>
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
    // The story band under the timeline (step plot, root cause) when there is a finding or a
    // step to show.
    bool story = true;
};

// The range that frames a finding whole: its step over every rank (the host span and the
// device's busy window), padded; the finding's own span, padded, when it names no step.
std::pair<TimeNs, TimeNs> findingRange(const AnalysisReport& report, const Finding& f);

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
    // One report per rank for the step plot (a job's perRank); default: the report.
    void setRankReports(std::vector<ReportPtr> reports) { m_rankReports = std::move(reports); }
    // The finding the picture tells: the focus's (flagged::findingOf), else among those in
    // range the most severe one that names a source frame, else the first. nullptr: none.
    const Finding* storyFinding() const;
    // After a paint: where the story band's panel and step plot were drawn (empty without),
    // and the root cause panel's lines as drawn (for the tests).
    QRectF lastStoryRect() const { return m_storyRect; }
    const QStringList& lastStoryLines() const { return m_storyLines; }

    // A job taller than the picture may be (--height, or the largest picture): the compact
    // job layout (per rank its steps, collectives, copies and compute), then fewer rows per
    // rank (collectives and copies, then collectives), so that every rank shows. Call after
    // setOptions (and setRankReports). Returns what was done, also in the subtitle ("compact:
    // … per rank"); empty when every track fits. The composite fits its timeline's share.
    QString fitRanksToHeight(bool composite = false);
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
    // The root cause panel: the finding's words, the source frame, the fix, the call stack of
    // its collective (the source frame marked); without a finding, the event's call stack.
    void paintRootCause(QPainter& p, const QRectF& area, const Finding* f, EventId e);
    bool paintStepPlot(QPainter& p, const QRectF& area, EventId e);
    // The step plot left, the root cause right.
    void paintStory(QPainter& p, const QRectF& area);
    bool hasStory() const;
    double storyHeight() const;
    // Height the timeline's tracks get in the composite page of a size.
    double compositeTimelineHeight(QSizeF size) const;
    EventId compositeEvent() const;
    std::vector<const Finding*> findingsInRange() const;
    bool write(const QString& file, QSizeF size, bool composite, QString* error);

    TracePtr m_trace;
    ReportPtr m_report;
    std::vector<ReportPtr> m_rankReports;
    const AnnotationStore* m_annotations = nullptr;
    QRectF m_storyRect;
    QStringList m_storyLines;
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
