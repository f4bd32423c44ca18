#include "ui/export/exportcomposer.h"
#include "core/producers/producer.h"
#include "ui/export/renderfile.h"

#include "core/analysis/analyzer.h"
#include "ui/plots/stepsview.h"
#include "ui/session/flagged.h"
#include "ui/theme/hatch.h"
#include "ui/theme/theme.h"

#include <QApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QGuiApplication>
#include <QPainter>
#include <QPicture>
#include <QRegularExpression>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace rs {

namespace {

constexpr double kMargin = 14;
constexpr double kFooter = 18;
constexpr double kLegendWidth = 500;
constexpr double kStoryHeight = 340; // the step plot's minimum and a margin

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QColor severityColor(Severity s, const ThemePalette& pal)
{
    switch (s) {
    case Severity::Error:
        return pal.severityError;
    case Severity::Warning:
        return pal.severityWarning;
    case Severity::Info:
        break;
    }
    return pal.severityInfo;
}

QFont sized(QFont f, double points, bool bold = false)
{
    f.setPointSizeF(points);
    f.setBold(bold);
    return f;
}

// A call-stack line fitted to a width: the path is shortened from its start ("…/attention.py"),
// then the line wraps; the frame's function name is never cut ("custom_attention_forward" is
// the word that matters).
QStringList fitFrameLine(const QString& text, const QFontMetricsF& fm, double width)
{
    if (fm.horizontalAdvance(text) <= width) return {text};
    // "<kind>  <dir/dir/file.py(41)>: <function>": drop leading directories.
    QString line = text;
    static const QRegularExpression path(QStringLiteral("([^\\s:]+/)+[^\\s/]+\\(\\d+\\)"));
    if (const auto m = path.match(text); m.hasMatch()) {
        const QStringList parts = m.captured(0).split(QLatin1Char('/'));
        for (qsizetype drop = 1; drop < parts.size(); ++drop) {
            line = text.left(m.capturedStart(0)) + QStringLiteral("…/") +
                   parts.mid(drop).join(QLatin1Char('/')) + text.mid(m.capturedEnd(0));
            if (fm.horizontalAdvance(line) <= width) return {line};
        }
    }
    // Still too wide: wrap at spaces, slashes, dots and underscores, else anywhere.
    QStringList out;
    QString rest = line;
    while (!rest.isEmpty()) {
        if (fm.horizontalAdvance(rest) <= width) {
            out << rest;
            break;
        }
        qsizetype cut = 1;
        while (cut < rest.size() && fm.horizontalAdvance(rest.left(cut + 1)) <= width)
            ++cut;
        // After a space first (before the function's name: it stays whole), then after a
        // slash of the path; a name alone wider than the line is the only thing cut.
        qsizetype brk = 0;
        for (const QChar sep : {QLatin1Char(' '), QLatin1Char('/')}) {
            for (qsizetype i = cut; i > 4 && !brk; --i)
                if (rest[i - 1] == sep && !rest.left(i).trimmed().isEmpty()) brk = i;
            if (brk) break;
        }
        if (!brk) brk = cut;
        out << rest.left(brk);
        rest = QStringLiteral("    ") + rest.mid(brk).trimmed();
    }
    return out;
}

// A finding title wrapped to a width, whole (never "…").
QStringList wrapText(const QString& text, const QFontMetricsF& fm, double width)
{
    QStringList out;
    QString line;
    for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString next = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (!line.isEmpty() && fm.horizontalAdvance(next) > width) {
            out << line;
            line = word;
        } else {
            line = next;
        }
    }
    if (!line.isEmpty()) out << line;
    // A word wider than the line (a kernel name) is split where it must be.
    QStringList fitted;
    for (const QString& l : out)
        fitted << fitFrameLine(l, fm, width);
    return fitted;
}

struct LegendEntry {
    enum Swatch {
        Collective,
        WithCopy,
        Anomalous,
        InternalCopy,
        ExtraCopy,
        Unaligned,
        Waiting,
        Selection,
        Note,
        TimeNote,
        Range,
        Arrow
    };
    Swatch swatch;
    QString text;
};

} // namespace

std::optional<ExportFormat> exportFormatFor(const QString& file)
{
    const QString suffix = QFileInfo(file).suffix().toLower();
    if (suffix == "png") return ExportFormat::Png;
    if (suffix == "svg") return ExportFormat::Svg;
    if (suffix == "pdf") return ExportFormat::Pdf;
    return std::nullopt;
}

std::pair<TimeNs, TimeNs> findingRange(const AnalysisReport& report, const Finding& f)
{
    std::optional<int> step = f.step;
    const EventId main = f.events.empty() ? kNone : f.events.front();
    if (!step && main != kNone)
        if (const Collective* c = report.collectiveOf(main)) step = c->step;
    TimeNs a = f.start, b = std::max(f.end, f.start + 1);
    if (step) {
        // Every rank's step of that number: the job's step, framed whole.
        bool any = false;
        for (const StepStats& st : report.steps) {
            if (st.step != *step) continue;
            const TimeNs s0 =
                st.busyEnd > st.busyStart ? std::min(st.start, st.busyStart) : st.start;
            const TimeNs s1 = std::max(st.end, st.busyEnd);
            a = any ? std::min(a, s0) : s0;
            b = any ? std::max(b, s1) : s1;
            any = true;
        }
        if (any) {
            // The finding's own span stays inside, whatever the steps say.
            a = std::min(a, f.start);
            b = std::max(b, f.end);
            const TimeNs pad = std::max<TimeNs>((b - a) / 40, 1000);
            return {a - pad, b + pad};
        }
    }
    const TimeNs pad = std::max<TimeNs>((b - a) / 2, 1000);
    return {a - pad, b + pad};
}

ExportComposer::ExportComposer(TracePtr trace, ReportPtr report, const AnnotationStore* annotations)
    : m_trace(std::move(trace)), m_report(std::move(report)), m_annotations(annotations)
{
    m_renderer.setTrace(m_trace);
    m_renderer.setReport(m_report);
    m_renderer.setStyle(TimelineStyle::light()); // reports are read on paper and in tickets
}

void ExportComposer::setOptions(const ExportOptions& options)
{
    m_options = options;
    m_renderer.setStyle(TimelineStyle::of(pal()));
}

const ThemePalette& ExportComposer::pal() const
{
    return ThemePalette::of(m_options.dark);
}

void ExportComposer::copyViewState(const TimelineRenderer& view)
{
    if (!m_trace) return;
    for (ProcessId p = 0; p < m_trace->processes().size(); ++p)
        m_renderer.setCollapsed(p, view.isCollapsed(p));
    m_renderer.setSelectedEvent(view.selectedEvent());
    m_renderer.setRangeSelection(view.rangeBegin(), view.rangeEnd());
    m_renderer.setLabelWidth(view.labelWidth());
    m_renderer.setShowFlows(view.showFlows());
    m_renderer.setFlaggedOnly(view.flaggedOnly());
    m_renderer.setProcessRanks(view.processRanks());
    m_renderer.setTrackViewState(view.trackViewState()); // pinned band and filter as on screen
    m_renderer.setCompactRows(view.compactRows());       // compact mode as on screen
    m_renderer.setPathOverlay(view.pathOverlay());       // the critical path when shown
    for (ProcessId p = 0; p < m_trace->processes().size(); ++p)
        m_renderer.setCollapsed(p, view.isCollapsed(p));
}

TimeNs ExportComposer::rangeStart() const
{
    if (m_options.t1 > m_options.t0) return m_options.t0;
    return m_trace ? m_trace->startNs() : 0;
}

TimeNs ExportComposer::rangeEnd() const
{
    if (m_options.t1 > m_options.t0) return m_options.t1;
    return m_trace ? std::max(m_trace->endNs(), m_trace->startNs() + 1) : 1;
}

std::vector<const Finding*> ExportComposer::findingsInRange() const
{
    std::vector<const Finding*> out;
    if (!m_report) return out;
    for (const Finding& f : m_report->findings)
        if (f.end >= rangeStart() && f.start <= rangeEnd()) out.push_back(&f);
    return out;
}

const Finding* ExportComposer::storyFinding() const
{
    if (!m_report) return nullptr;
    const auto& fs = m_report->findings;
    if (m_options.focus != kNone) {
        const int i = flagged::findingOf(*m_report, m_options.focus);
        if (i >= 0) return &fs[std::size_t(i)];
    }
    const auto inRange = findingsInRange();
    if (inRange.empty()) return nullptr;
    // The most severe with a source frame to name (the rank's own, not the job's summary).
    for (const Finding* f : inRange)
        if (f->severity == inRange.front()->severity && !sourceFrame(f->stack).empty()) return f;
    for (const Finding* f : inRange)
        if (f->severity == inRange.front()->severity && !f->stack.empty()) return f;
    return inRange.front();
}

bool ExportComposer::hasStory() const
{
    return m_options.story && m_report && (storyFinding() || !m_report->steps.empty());
}

double ExportComposer::storyHeight() const
{
    return hasStory() ? kStoryHeight : 0;
}

double ExportComposer::compositeTimelineHeight(QSizeF size) const
{
    const double avail = size.height() - titleBlockHeight(size.width()) - kFooter;
    // The timeline takes what its tracks need (at most 62%, and never the step plot's minimum
    // height, below which its texts overprint); the plot and the root cause the rest.
    const QSize plotMin = StepsView::minimumPlotSize();
    return std::round(
        std::clamp(TimelineGeometry::kRulerHeight + m_renderer.contentHeight() + 6, avail * 0.3,
                   std::max(avail * 0.3, std::min(avail * 0.62, avail - plotMin.height() - 8))));
}

QStringList ExportComposer::findingLines(const Finding& f, double width) const
{
    // Whole, wrapped to the text column (never "…": the report is evidence).
    const QFontMetricsF fm(sized(QGuiApplication::font(), 9));
    const double w = width - 2 * kMargin - (m_options.legend ? kLegendWidth : 0) - 58;
    return wrapText(qs(f.title), fm, std::max(120.0, w));
}

double ExportComposer::titleBlockHeight(double width) const
{
    if (!m_options.titleBlock) return 0;
    const auto inRange = findingsInRange();
    const int findings = std::min<int>(m_options.topFindings, static_cast<int>(inRange.size()));
    int lines = 0;
    for (int i = 0; i < findings; ++i)
        lines += int(findingLines(*inRange[std::size_t(i)], width).size());
    const double text = 12 + 24 + 20 + (findings > 0 ? 8 + lines * 16.0 + findings * 2.0 : 18);
    const double legend = m_options.legend ? 12 + 6 * 19.0 : 0;
    return std::ceil(std::max(text, legend)) + 8;
}

QString ExportComposer::fitRanksToHeight(bool composite)
{
    m_layoutNote.clear();
    if (!m_trace || m_options.plotHeight > 0) return {};
    const double w = std::max(400, m_options.width);
    const double total = m_options.height > 0 ? std::max(200, m_options.height)
                                              : std::max(300, m_options.maxAutoHeight);
    // The composite's timeline at its largest share (it shrinks to what the tracks need).
    const QSize plotMin = StepsView::minimumPlotSize();
    const double page =
        compositeSize().height() - titleBlockHeight(compositeSize().width()) - kFooter;
    const double avail =
        composite ? std::max(page * 0.3, std::min(page * 0.62, page - plotMin.height() - 8)) -
                        TimelineGeometry::kRulerHeight - 6
                  : total - titleBlockHeight(w) - TimelineGeometry::kRulerHeight - kFooter - 4 -
                        storyHeight();
    if (m_renderer.contentHeight() <= avail) return {};
    const std::vector<CompactRow> all =
        compactRankRows(*m_trace, m_report.get(), m_renderer.processRanks());
    if (all.empty()) return {};
    struct Level {
        std::vector<RowRole> roles;
        const char* note;
    };
    const Level levels[] = {
        {{RowRole::Steps, RowRole::Communication, RowRole::Copies, RowRole::Compute},
         "compact: per rank its steps, collectives, flagged copies and compute"},
        {{RowRole::Communication, RowRole::Copies},
         "compact: per rank its collectives and flagged "
         "copies"},
        {{RowRole::Communication}, "compact: per rank its collectives"}};
    for (const Level& l : levels) {
        std::vector<CompactRow> rows;
        for (const CompactRow& r : all)
            if (std::find(l.roles.begin(), l.roles.end(), r.role) != l.roles.end())
                rows.push_back(r);
        m_renderer.setCompactRows(std::move(rows));
        m_layoutNote = QString::fromLatin1(l.note);
        if (m_renderer.contentHeight() <= avail) break;
    }
    // The compact rows' names ("HCCL · Group 0 Communication") whole where they can be.
    m_renderer.setLabelWidth(std::max(
        m_renderer.labelWidth(), m_renderer.fittedLabelWidth(QGuiApplication::font(), 220, 340)));
    return m_layoutNote;
}

QSizeF ExportComposer::timelineSize() const
{
    const double w = std::max(400, m_options.width);
    if (m_options.height > 0) return QSizeF(w, std::max(200, m_options.height));
    const double tracks = m_options.plotHeight > 0
                              ? std::min<double>(m_options.plotHeight, m_renderer.contentHeight())
                              : m_renderer.contentHeight();
    const double h =
        titleBlockHeight(w) + TimelineGeometry::kRulerHeight + tracks + kFooter + 4 + storyHeight();
    return QSizeF(w, std::clamp(h, 300.0, double(std::max(300, m_options.maxAutoHeight))));
}

QSizeF ExportComposer::compositeSize() const
{
    const double w = std::max(800, m_options.width);
    if (m_options.height > 0) return QSizeF(w, std::max(500, m_options.height));
    return QSizeF(w, std::round(w * 0.75));
}

double ExportComposer::paintTitleBlock(QPainter& p, const QRectF& area)
{
    const double h = titleBlockHeight(area.width());
    if (h <= 0) return 0;
    const QFont base = p.font();
    const QRectF text(area.left() + kMargin, area.top() + 10,
                      area.width() - 2 * kMargin - (m_options.legend ? kLegendWidth : 0), h - 10);
    p.setPen(pal().pageText);
    QString title = m_options.title;
    if (title.isEmpty() && m_trace) title = QFileInfo(qs(m_trace->path())).fileName();
    if (m_trace && m_trace->rank()) title += QString(" · rank %1").arg(*m_trace->rank());
    p.setFont(sized(base, 13, true));
    QFontMetricsF fm(p.font(), p.device());
    p.drawText(QRectF(text.left(), text.top(), text.width(), 24), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(title, Qt::ElideMiddle, text.width()));

    p.setFont(sized(base, 9));
    fm = QFontMetricsF(p.font(), p.device());
    QString sub;
    if (m_trace) {
        const TimeNs t0 = rangeStart() - m_trace->startNs(), t1 = rangeEnd() - m_trace->startNs();
        sub = QString("%1 – %2 (%3 shown of %4) · %5 · %6 events")
                  .arg(qs(formatDuration(t0)), qs(formatDuration(t1)), qs(formatDuration(t1 - t0)),
                       qs(formatDuration(m_trace->endNs() - m_trace->startNs())),
                       QString::fromUtf8(m_trace->producer().name()))
                  .arg(QLocale(QLocale::English).toString(qulonglong(m_trace->stats().events)));
        if (!m_layoutNote.isEmpty()) sub += QStringLiteral(" · ") + m_layoutNote;
    }
    p.setPen(pal().pageDim);
    p.drawText(QRectF(text.left(), text.top() + 24, text.width(), 20),
               Qt::AlignLeft | Qt::AlignVCenter, fm.elidedText(sub, Qt::ElideRight, text.width()));

    double y = text.top() + 48;
    const auto findings = findingsInRange();
    if (findings.empty()) {
        p.setPen(pal().pageDim);
        const QString none = !m_report ? QString("No analysis")
                             : m_report->findings.empty()
                                 ? QString("No findings")
                                 : QString("%1 finding(s) in the trace, none in this range")
                                       .arg(m_report->findings.size());
        p.drawText(QRectF(text.left(), y, text.width(), 18), Qt::AlignLeft | Qt::AlignVCenter,
                   none);
    }
    const int n = std::min<int>(m_options.topFindings, static_cast<int>(findings.size()));
    for (int i = 0; i < n; ++i) {
        const Finding& f = *findings[static_cast<std::size_t>(i)];
        const QRectF badge(text.left(), y + 3, 52, 13);
        p.setPen(Qt::NoPen);
        p.setBrush(severityColor(f.severity, pal()));
        p.drawRoundedRect(badge, 3, 3);
        p.setPen(pal().inkOnMark);
        p.setFont(sized(base, 7, true));
        p.drawText(badge, Qt::AlignCenter, QString::fromLatin1(severityName(f.severity)));
        p.setFont(sized(base, 9));
        p.setPen(pal().pageText);
        const QStringList lines = findingLines(f, area.width());
        for (qsizetype k = 0; k < lines.size(); ++k) {
            const QRectF lr(badge.right() + 6, y + (k == 0 ? 1 : 0),
                            text.right() - badge.right() - 6, 16);
            p.drawText(lr, Qt::AlignLeft | Qt::AlignVCenter, lines[k]);
            y += 16;
        }
        y += 2;
    }
    p.setFont(base);
    p.setBrush(Qt::NoBrush);
    if (m_options.legend)
        paintLegend(p, QRectF(area.right() - kLegendWidth - kMargin / 2, area.top() + 6,
                              kLegendWidth, h - 12));
    p.setPen(pal().pageRule);
    p.drawLine(QPointF(area.left(), area.top() + h - 0.5),
               QPointF(area.right(), area.top() + h - 0.5));
    return h;
}

void ExportComposer::paintLegend(QPainter& p, const QRectF& area)
{
    std::vector<LegendEntry> entries;
    std::uint8_t marks = 0;
    const TimeNs t0 = rangeStart(), t1 = rangeEnd();
    if (m_report && m_trace) {
        for (const auto& [e, m] : m_report->markIndex) {
            if (e >= m_trace->slices().size()) continue;
            const Slice& s = m_trace->slice(e);
            if (s.end() >= t0 && s.start <= t1) marks |= m;
        }
    }
    if (marks & kMarkCollective) entries.push_back({LegendEntry::Collective, "collective"});
    if (marks & kMarkHasInternalMemcpy)
        entries.push_back({LegendEntry::WithCopy, "collective + internal Memcpy"});
    if (marks & kMarkAnomalous)
        entries.push_back({LegendEntry::Anomalous, "anomalous (extra Memcpy)"});
    if (marks & kMarkInternalMemcpy)
        entries.push_back({LegendEntry::InternalCopy, "internal Memcpy"});
    if (marks & kMarkExtraMemcpy)
        entries.push_back({LegendEntry::ExtraCopy, "extra internal Memcpy"});
    if (marks & kMarkUnaligned)
        entries.push_back({LegendEntry::Unaligned, "unaligned size or address"});
    if (marks & kMarkWaiting)
        entries.push_back({LegendEntry::Waiting, "waiting for a slower peer"});
    if (m_renderer.selectedEvent() != kNone)
        entries.push_back({LegendEntry::Selection, "selected event"});
    bool kinds[4] = {};
    if (m_annotations) {
        for (const Annotation* a : m_annotations->visible()) {
            const AnnotationAnchor an = m_annotations->anchor(a->id);
            if (an.end < t0 || an.start > t1) continue;
            if (a->kind == AnnotationKind::Note)
                kinds[a->onEvent() ? 0 : 1] = true;
            else
                kinds[a->kind == AnnotationKind::Range ? 2 : 3] = true;
        }
    }
    if (kinds[0]) entries.push_back({LegendEntry::Note, "note on an event"});
    if (kinds[1]) entries.push_back({LegendEntry::TimeNote, "note at a time"});
    if (kinds[2]) entries.push_back({LegendEntry::Range, "highlighted range"});
    if (kinds[3]) entries.push_back({LegendEntry::Arrow, "arrow between events"});
    if (entries.empty()) return;

    const TimelineStyle& st = m_renderer.style();
    const QFont base = p.font();
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setFont(sized(base, 8.5));
    const QFontMetricsF fm(p.font(), p.device());
    const int rows = std::max(1, static_cast<int>(std::ceil(entries.size() / 2.0)));
    const double rowH = std::min(19.0, (area.height() - 6) / rows);
    const double colW = area.width() / 2;
    const QColor collective = st.collective;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const std::size_t col = i / static_cast<std::size_t>(rows); // two columns, filled down
        const std::size_t row = i % static_cast<std::size_t>(rows);
        const double x = area.left() + static_cast<double>(col) * colW;
        const double y = area.top() + 3 + static_cast<double>(row) * rowH;
        const QRectF sw(x, y + 3, 30, rowH - 7);
        p.setPen(Qt::NoPen);
        p.setBrush(Qt::NoBrush);
        switch (entries[i].swatch) {
        case LegendEntry::Collective:
            p.fillRect(sw, collective);
            break;
        case LegendEntry::WithCopy:
            p.fillRect(sw, collective);
            p.setPen(QPen(st.collectiveOutline, 1.5));
            p.drawRect(sw);
            break;
        case LegendEntry::Anomalous: {
            p.fillRect(sw, collective);
            p.setPen(QPen(st.anomaly, 2.5));
            p.drawRect(sw.adjusted(-1, -1, 1, 1));
            const QRectF badge(sw.right() - 12, sw.top() - 1, 12, 12);
            p.setPen(Qt::NoPen);
            p.setBrush(st.anomaly);
            p.drawEllipse(badge);
            p.setPen(st.inkOnMark);
            p.setFont(sized(base, 7, true));
            p.drawText(badge, Qt::AlignCenter, "!");
            p.setFont(sized(base, 8.5));
            break;
        }
        case LegendEntry::InternalCopy:
        case LegendEntry::ExtraCopy:
            p.fillRect(sw, st.internalCopy);
            fillHatch(p, sw, st.copyHatch);
            if (entries[i].swatch == LegendEntry::ExtraCopy) {
                p.setPen(QPen(st.anomaly, 1.5, Qt::DashLine));
                p.drawRect(sw);
            }
            break;
        case LegendEntry::Unaligned: {
            p.fillRect(sw, st.internalCopy);
            QPolygonF tri;
            tri << sw.topLeft() << sw.topLeft() + QPointF(8, 0) << sw.topLeft() + QPointF(0, 8);
            p.setPen(QPen(st.unalignedEdge, 0.8));
            p.setBrush(st.anomaly);
            p.drawPolygon(tri);
            break;
        }
        case LegendEntry::Waiting:
            p.fillRect(sw, st.waiting);
            fillHatch(p, sw, st.waitHatch);
            break;
        case LegendEntry::Selection:
            p.setPen(QPen(st.selection, 2.5));
            p.drawRect(sw);
            break;
        case LegendEntry::Note:
        case LegendEntry::TimeNote:
        case LegendEntry::Range:
        case LegendEntry::Arrow: {
            Annotation a;
            a.kind = entries[i].swatch == LegendEntry::Range   ? AnnotationKind::Range
                     : entries[i].swatch == LegendEntry::Arrow ? AnnotationKind::Arrow
                                                               : AnnotationKind::Note;
            const QColor c = annotationColor(a);
            if (entries[i].swatch == LegendEntry::Note) {
                p.setPen(QPen(c, 1.5));
                p.drawRect(sw);
            } else if (entries[i].swatch == LegendEntry::TimeNote) {
                p.setPen(QPen(c, 1.5, Qt::DashLine));
                p.drawLine(QPointF(sw.center().x(), sw.top()),
                           QPointF(sw.center().x(), sw.bottom()));
            } else if (entries[i].swatch == LegendEntry::Range) {
                QColor f = c;
                f.setAlpha(50);
                p.fillRect(sw, f);
                p.setPen(QPen(c, 1.2, Qt::DashLine));
                p.drawLine(sw.topLeft(), sw.bottomLeft());
                p.drawLine(sw.topRight(), sw.bottomRight());
            } else {
                p.setPen(QPen(c, 1.8));
                p.drawLine(QPointF(sw.left(), sw.center().y()),
                           QPointF(sw.right() - 3, sw.center().y()));
                QPolygonF head;
                head << QPointF(sw.right(), sw.center().y())
                     << QPointF(sw.right() - 7, sw.center().y() - 4)
                     << QPointF(sw.right() - 7, sw.center().y() + 4);
                p.setPen(Qt::NoPen);
                p.setBrush(c);
                p.drawPolygon(head);
            }
            break;
        }
        }
        p.setPen(pal().pageText);
        const QRectF tr(sw.right() + 7, y, colW - sw.width() - 12, rowH);
        p.drawText(tr, Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(entries[i].text, Qt::ElideRight, tr.width()));
    }
    p.restore();
}

void ExportComposer::paintTimelineArea(QPainter& p, const QRectF& area)
{
    m_origin = area.topLeft();
    TimelineGeometry g =
        m_renderer.geometry(area.size(), rangeStart(), rangeEnd(), m_options.scrollY);
    // Bring the focused event's row into view when the picture cannot show every track.
    if (m_options.focus != kNone && m_trace && m_options.focus < m_trace->slices().size()) {
        const QRectF r = g.eventRect(m_options.focus);
        const QRectF plot = g.plotRect();
        if (!r.isEmpty() && (r.top() < plot.top() || r.bottom() > plot.bottom())) {
            const double contentY = r.top() - g.rulerHeight + g.scrollY;
            const double maxScroll = std::max(0.0, m_renderer.contentHeight() - plot.height());
            g = m_renderer.geometry(area.size(), rangeStart(), rangeEnd(),
                                    std::clamp(contentY - plot.height() / 3, 0.0, maxScroll));
        }
    }
    m_geometry = g;
    m_painted.clear();
    const AnnotationStore* store = m_annotations;
    m_renderer.setOverlay([this, store](QPainter& painter, const TimelineGeometry& geo) {
        AnnotationPaintOptions o;
        o.processRanks = m_renderer.processRanks();
        if (const QRectF name =
                m_renderer.sliceTextRect(geo, m_renderer.selectedEvent(), painter.font());
            !name.isEmpty())
            o.keepClear.push_back(name);
        // Finding labels go where no bar is: they must not hide what they explain.
        if (store && store->showAutomatic()) o.occupied = m_renderer.occupiedRects(geo);
        if (store) m_painted = paintAnnotations(painter, geo, *store, m_renderer.style(), o);
    });
    p.save();
    p.translate(area.topLeft());
    p.setClipRect(QRectF(QPointF(0, 0), area.size()));
    m_renderer.paint(p, g);
    p.restore();
    m_renderer.setOverlay({});
    for (PaintedAnnotation& a : m_painted) {
        a.label.translate(m_origin);
        a.anchor.translate(m_origin);
    }
}

void ExportComposer::paintTimeline(QPainter& p, QSizeF size)
{
    p.save();
    p.fillRect(QRectF(QPointF(0, 0), size), pal().page);
    const QRectF all(QPointF(0, 0), size);
    const double top = paintTitleBlock(p, all);
    const double story = storyHeight();
    paintTimelineArea(p, QRectF(0, top, size.width(), size.height() - top - kFooter - story));
    m_storyRect = QRectF();
    m_storyLines.clear();
    if (story > 0) paintStory(p, QRectF(0, size.height() - kFooter - story, size.width(), story));
    p.setPen(pal().pageDim);
    p.setFont(sized(p.font(), 7.5));
    p.drawText(QRectF(kMargin, size.height() - kFooter, size.width() - 2 * kMargin, kFooter),
               Qt::AlignRight | Qt::AlignVCenter,
               QString("Ringscope · exported %1 UTC")
                   .arg(QDateTime::currentDateTimeUtc().toString("yyyy-MM-dd HH:mm")));
    p.restore();
}

EventId ExportComposer::compositeEvent() const
{
    if (m_options.focus != kNone) return m_options.focus;
    if (m_renderer.selectedEvent() != kNone) return m_renderer.selectedEvent();
    if (const Finding* f = storyFinding(); f && !f->events.empty()) return f->events.front();
    return kNone;
}

void ExportComposer::paintStory(QPainter& p, const QRectF& area)
{
    m_storyRect = area;
    m_storyLines.clear();
    const Finding* f = storyFinding();
    const EventId e = compositeEvent();
    p.save();
    p.setPen(pal().pageRule);
    p.drawLine(area.topLeft(), area.topRight());
    const QSize plotMin = StepsView::minimumPlotSize();
    const double plotW =
        std::max(area.width() * 0.55 - 8, std::min<double>(plotMin.width(), area.width() * 0.7));
    const QRectF plotArea(area.left() + 4, area.top() + 4, plotW, area.height() - 8);
    if (!paintStepPlot(p, plotArea, e)) {
        p.setPen(pal().pageDim);
        p.drawText(plotArea, Qt::AlignCenter, "No steps in this trace");
    }
    paintRootCause(p,
                   QRectF(plotArea.right() + 8, area.top() + 6,
                          area.right() - plotArea.right() - 14, area.height() - 12),
                   f, e);
    p.restore();
}

void ExportComposer::paintRootCause(QPainter& p, const QRectF& area, const Finding* f, EventId e)
{
    const QFont base = p.font();
    p.save();
    p.setClipRect(area);
    p.fillRect(area, pal().panel);
    p.setPen(pal().panelRule);
    p.setBrush(Qt::NoBrush);
    p.drawRect(area.adjusted(0.5, 0.5, -0.5, -0.5));
    const QRectF inner = area.adjusted(10, 8, -10, -8);
    double y = inner.top();
    // A block of wrapped lines in a font, as much as fits; false when the panel is full.
    auto lines = [&](const QStringList& text, const QFont& font, const QColor& ink,
                     const QColor& band = QColor()) {
        p.setFont(font);
        const QFontMetricsF fm(font, p.device());
        const double lh = fm.height() + 2;
        for (const QString& l : text) {
            if (y + lh > inner.bottom()) {
                p.setPen(pal().pageDim);
                p.drawText(QRectF(inner.left(), y - lh, inner.width(), lh),
                           Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("…"));
                return false;
            }
            if (band.isValid())
                p.fillRect(QRectF(inner.left() - 3, y, inner.width() + 6, lh), band);
            p.setPen(ink);
            p.drawText(QRectF(inner.left(), y, inner.width(), lh), Qt::AlignLeft | Qt::AlignVCenter,
                       l);
            m_storyLines << l;
            y += lh;
        }
        return true;
    };
    QFont mono("DejaVu Sans Mono");
    mono.setStyleHint(QFont::Monospace);
    mono.setPointSizeF(8.5);
    const QFontMetricsF monoFm(mono, p.device());
    if (!m_trace || (!f && (e == kNone || e >= m_trace->slices().size()))) {
        lines({QStringLiteral("Call stack: select an event (none selected, no finding in range)")},
              sized(base, 10.5, true), pal().pageText);
        p.restore();
        return;
    }
    // The collective the finding (or the event) is about: its frames are what is shown, so
    // the heading names it, never one of its tasks.
    EventId main = f && !f->events.empty() ? f->events.front() : e;
    const Collective* c = m_report && main != kNone ? m_report->collectiveOf(main) : nullptr;
    if (c) main = c->event;
    std::vector<StackEntry> stack;
    if (f && !f->stack.empty()) stack = f->stack;
    if (stack.empty() && main != kNone && main < m_trace->slices().size())
        stack = callStack(*m_trace, main, 64);
    // A ProfilerStep slice encloses the op but is no frame of its call (the step plot beside
    // highlights the step).
    stack.erase(std::remove_if(stack.begin(), stack.end(),
                               [&](const StackEntry& s) {
                                   return s.event != main && s.event < m_trace->slices().size() &&
                                          m_trace->kind(s.event) == SliceKind::Step;
                               }),
                stack.end());
    const std::string source = sourceFrame(stack);
    const QFontMetricsF body(sized(base, 9), p.device());
    const double w = inner.width();
    if (f) {
        const bool cause = f->severity == Severity::Error && !source.empty();
        lines({cause ? QStringLiteral("Root cause") : QStringLiteral("Finding")},
              sized(base, 10.5, true), pal().pageText);
        const QFont title = sized(base, 9.5, true);
        lines(wrapText(qs(f->title), QFontMetricsF(title, p.device()), w), title,
              severityColor(f->severity, pal()));
        if (!source.empty())
            lines(fitFrameLine(QStringLiteral("Source: ") + qs(source), monoFm, w), mono,
                  pal().frameText, pal().frameBand);
        if (!f->recommendation.empty())
            lines(wrapText(QStringLiteral("Fix: ") + qs(f->recommendation), body, w),
                  sized(base, 9), pal().pageText);
        y += 4;
    } else if (c && !c->verdict.empty()) {
        lines(wrapText(qs(c->verdict), body, w), sized(base, 9), pal().severityError);
    }
    if (main == kNone || main >= m_trace->slices().size()) {
        p.restore();
        return;
    }
    QString heading =
        QStringLiteral("Call stack of ") + qs(m_trace->str(m_trace->slice(main).name));
    if (c && c->rank) heading += QStringLiteral(" · rank %1").arg(*c->rank);
    if (c && c->step) heading += QStringLiteral(" · step %1").arg(*c->step);
    const QFont headFont = sized(base, 9, true);
    lines({QFontMetricsF(headFont, p.device()).elidedText(heading, Qt::ElideMiddle, w)}, headFont,
          pal().pageText);
    const QString mark =
        f && !flagged::fixMark(*f).isEmpty() ? flagged::fixMark(*f) : QStringLiteral("source");
    for (const StackEntry& s : stack) {
        const bool isSource = !source.empty() && s.text == source;
        const QString line = QString("%1 %2").arg(qs(s.kind), -11).arg(qs(s.text));
        // Paths shortened, then wrapped: the frame's name is never cut.
        const QStringList parts =
            fitFrameLine(line + (isSource ? QStringLiteral("   ← ") + mark : QString()), monoFm, w);
        if (!lines(parts, mono, isSource ? pal().frameText : pal().pageText,
                   isSource ? pal().frameBand : QColor()))
            break;
    }
    p.restore();
}

bool ExportComposer::paintStepPlot(QPainter& p, const QRectF& area, EventId e)
{
    // The plot is a QCustomPlot widget: it needs a QApplication (the GUI, or `ringscope export`).
    if (!m_report || m_report->steps.empty() ||
        !qobject_cast<QApplication*>(QCoreApplication::instance()))
        return false;
    StepsView view;
    const QSize size = area.size().toSize();
    view.resize(size);
    view.setReports(m_rankReports.empty() ? std::vector<ReportPtr>{m_report} : m_rankReports);
    if (const Collective* c = e != kNone ? m_report->collectiveOf(e) : nullptr; c && c->step)
        view.highlightStep(c->rank.value_or(m_trace && m_trace->rank() ? *m_trace->rank() : 0),
                           *c->step);
    // Recorded as a picture so SVG and PDF exports keep the plot as vectors.
    QPicture picture;
    {
        QCPPainter painter(&picture);
        themePlot(view.plot(), pal()); // the page's theme, not the screen's
        view.plot()->toPainter(&painter, size.width(), size.height());
    }
    // Where its texts landed (the plot's layout is still the one it was painted with).
    m_stepPlotTexts = plots::plotTexts(view.plot());
    m_stepPlotSize = size;
    p.save();
    p.setClipRect(area);
    p.drawPicture(area.topLeft(), picture);
    p.restore();
    return true;
}

void ExportComposer::paintComposite(QPainter& p, QSizeF size)
{
    p.save();
    p.fillRect(QRectF(QPointF(0, 0), size), pal().page);
    const double top = paintTitleBlock(p, QRectF(QPointF(0, 0), size));
    const double timelineH = compositeTimelineHeight(size);
    paintTimelineArea(p, QRectF(0, top, size.width(), timelineH));
    paintStory(p,
               QRectF(0, top + timelineH, size.width(), size.height() - kFooter - top - timelineH));
    p.setPen(pal().pageDim);
    p.setFont(sized(p.font(), 7.5));
    p.drawText(QRectF(kMargin, size.height() - kFooter, size.width() - 2 * kMargin, kFooter),
               Qt::AlignRight | Qt::AlignVCenter,
               QString("Ringscope report · exported %1 UTC")
                   .arg(QDateTime::currentDateTimeUtc().toString("yyyy-MM-dd HH:mm")));
    p.restore();
}

bool ExportComposer::write(const QString& file, QSizeF size, bool composite, QString* error)
{
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    const auto format = exportFormatFor(file);
    if (!format)
        return fail(QString("unknown image format for %1: use .png, .svg or .pdf").arg(file));
    if (size.width() < 50 || size.height() < 50 || size.width() > 20000 || size.height() > 20000)
        return fail(
            QString("size %1x%2 is out of range (50..20000)").arg(size.width()).arg(size.height()));
    RenderFileOptions o;
    o.title = composite ? QStringLiteral("Ringscope report") : QStringLiteral("Ringscope timeline");
    o.background = pal().page;
    o.scale = m_options.scale;
    return renderToFile(
        file, size, o,
        [&](QPainter& p) {
            if (composite)
                paintComposite(p, size);
            else
                paintTimeline(p, size);
        },
        error);
}

bool ExportComposer::writeTimeline(const QString& file, QString* error)
{
    return write(file, timelineSize(), false, error);
}

bool ExportComposer::writeComposite(const QString& file, QString* error)
{
    return write(file, compositeSize(), true, error);
}

} // namespace rs
