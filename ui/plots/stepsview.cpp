#include "ui/plots/stepsview.h"

#include "ui/session/session.h"

#include "ui/plots/plotexport.h"
#include "ui/theme/theme.h"

#include <qcustomplot.h>

#include <QMenu>
#include <QToolTip>
#include <QVBoxLayout>

#include <QFontMetricsF>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

namespace rs {

using namespace plots;

namespace {

QCPItemRect* makeRect(QCustomPlot* plot, QCPAxisRect* rect, bool band)
{
    auto* item = new QCPItemRect(plot);
    item->setClipAxisRect(rect);
    for (QCPItemPosition* p : {item->topLeft, item->bottomRight}) {
        p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        p->setAxisRect(rect);
        p->setTypeX(QCPItemPosition::ptPlotCoords);
        p->setTypeY(band ? QCPItemPosition::ptAxisRectRatio : QCPItemPosition::ptPlotCoords);
    }
    if (band) {
        item->setPen(Qt::NoPen);
        item->setLayer(QStringLiteral("grid"));
    } else {
        item->setBrush(Qt::NoBrush);
    }
    item->setSelectable(false);
    item->setVisible(false);
    return item;
}

QString row(const QString& name, const Spread& s, int decimals)
{
    auto num = [&](double v) { return QStringLiteral("%1").arg(v, 9, 'f', decimals); };
    return name.leftJustified(14) + num(s.min) + num(s.median) + num(s.max) +
           QStringLiteral("%1%").arg(s.cv * 100, 7, 'f', 1);
}

} // namespace

StepsView::StepsView(QWidget* parent) : QWidget(parent)
{
    m_plot = new QCustomPlot(this);
    auto* box = new QVBoxLayout(this);
    box->setContentsMargins(0, 0, 0, 0);
    box->addWidget(m_plot);
    setMinimumSize(minimumPlotSize()); // the charts beside the spread table, every text whole

    // Layout: title, legend row, then the two charts (sharing x) with the spread table beside.
    QCPLayoutGrid* top = m_plot->plotLayout();
    m_barsRect = m_plot->axisRect();
    top->take(m_barsRect);
    top->simplify();
    m_title = new QCPTextElement(m_plot, QString(), titleFont());
    top->addElement(0, 0, m_title);
    legendAsRow(m_plot, 1);
    auto* body = new QCPLayoutGrid;
    top->addElement(2, 0, body);
    auto* charts = new QCPLayoutGrid;
    body->addElement(0, 0, charts);
    m_spread = new QCPTextElement(m_plot, QString(), monoFont(9));
    m_spread->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
    m_spread->setMargins(QMargins(12, 6, 8, 6));
    // A text element caps its row's height; spacers around it let the charts grow.
    auto* side = new QCPLayoutGrid;
    m_spreadSide = side;
    side->addElement(0, 0, new QCPLayoutElement(m_plot));
    side->addElement(1, 0, m_spread);
    side->addElement(2, 0, new QCPLayoutElement(m_plot));
    side->setRowStretchFactors({1, 0.01, 1});
    body->addElement(0, 1, side);
    body->setColumnStretchFactors({0.74, 0.26});
    charts->addElement(0, 0, m_barsRect);
    m_linesRect = new QCPAxisRect(m_plot);
    charts->addElement(1, 0, m_linesRect);
    charts->setRowStretchFactors({0.64, 0.36});
    charts->setRowSpacing(2);
    auto* margins = new QCPMarginGroup(m_plot);
    m_barsRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    m_linesRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);

    QCPAxis* bx = m_barsRect->axis(QCPAxis::atBottom);
    QCPAxis* by = m_barsRect->axis(QCPAxis::atLeft);
    QCPAxis* lx = m_linesRect->axis(QCPAxis::atBottom);
    QCPAxis* ly = m_linesRect->axis(QCPAxis::atLeft);
    m_axisTitles = {{by,
                     {QStringLiteral("time per step (ms)"), QStringLiteral("per step (ms)"),
                      QStringLiteral("ms")}},
                    {ly,
                     {QStringLiteral("computing vs comm. (ms)"),
                      QStringLiteral("comp. vs comm. (ms)"), QStringLiteral("ms")}},
                    {lx, {QStringLiteral("step")}}};
    for (const auto& [axis, variants] : m_axisTitles)
        axis->setLabel(variants.front());
    // The charts share x: the step numbers under the lower one only.
    bx->setTickLabels(false);
    // Room for the bars and the lines however short the pane (the widget's minimum holds them).
    m_barsRect->setMinimumSize(0, 64);
    m_linesRect->setMinimumSize(0, 44);
    for (QCPAxis* y : {by, ly})
        y->ticker()->setTickCount(6);
    for (QCPAxis* x : {bx, lx}) {
        x->grid()->setVisible(false);
        x->setSubTicks(false);
    }
    connect(bx, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), lx,
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    connect(lx, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), bx,
            qOverload<const QCPRange&>(&QCPAxis::setRange));

    const QString names[SeriesCount] = {
        QStringLiteral("computing alone"),
        QStringLiteral("overlapped (computing during communication)"),
        QStringLiteral("communication not overlapped"), QStringLiteral("free")};
    for (int s = 0; s < SeriesCount; ++s) {
        m_bars[s] = new QCPBars(bx, by);
        m_bars[s]->setName(names[s]);
        m_bars[s]->setStackingGap(0);
        m_bars[s]->setSelectable(QCP::stNone);
        if (s > 0) m_bars[s]->moveAbove(m_bars[s - 1]);
    }
    m_bandTop = makeRect(m_plot, m_barsRect, true);
    m_bandBottom = makeRect(m_plot, m_linesRect, true);
    m_outline = makeRect(m_plot, m_barsRect, false);

    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    for (QCPAxisRect* r : {m_barsRect, m_linesRect}) {
        r->setRangeDrag(Qt::Horizontal);
        r->setRangeZoom(Qt::Horizontal);
    }
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_plot, &QCustomPlot::customContextMenuRequested, this, &StepsView::showContextMenu);
    connect(m_plot, &QCustomPlot::mousePress, this, &StepsView::onMousePress);
    connect(m_plot, &QCustomPlot::mouseMove, this, &StepsView::onMouseMove);
    connect(m_plot, &QCustomPlot::afterLayout, this, &StepsView::fitTexts);
    rebuild();
    // A theme change recolours the bars, lines and highlight in place (zoom and highlight stay).
    setPlotRestyler(m_plot, [this](const ThemePalette& p) { restyle(p); });
}

QColor StepsView::seriesColor(Series s, const ThemePalette& p)
{
    switch (s) {
    case ComputingOnly:
        return p.computing;
    case Overlapped:
        return p.overlapped;
    case CommNotOverlapped:
        return p.commNotOverlapped;
    case Free:
    case SeriesCount:
        break;
    }
    return p.free;
}

void StepsView::restyle(const ThemePalette& p)
{
    for (int s = 0; s < SeriesCount; ++s) {
        const QColor fill = seriesColor(Series(s), p);
        m_bars[s]->setBrush(fill);
        m_bars[s]->setPen(QPen(fill.darker(135), 1));
    }
    // The per-step bands under the ranks' points: the lines' inks, faint.
    for (std::size_t i = 0; i < m_spans.size(); ++i) {
        QColor ink = i < 2 ? p.computingLine : p.communicationLine;
        m_spans[i]->setPen(QPen(ink, 1, Qt::DotLine));
        ink.setAlpha(40);
        m_spans[i]->setBrush(i % 2 == 1 ? QBrush(ink) : QBrush(Qt::NoBrush));
    }
    for (std::size_t lane = 0; lane < m_computing.size(); ++lane) {
        const Qt::PenStyle style = Qt::SolidLine;
        m_computing[lane]->setPen(QPen(p.computingLine, 2, style));
        m_computing[lane]->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssCircle, p.computingLine, p.plotBackground, 7));
        m_communication[lane]->setPen(QPen(p.communicationLine, 2, style));
        m_communication[lane]->setScatterStyle(QCPScatterStyle(
            QCPScatterStyle::ssDiamond, p.communicationLine, p.communicationLine, 8));
    }
    if (m_measured) {
        m_measured->setPen(QPen(p.plotText, 1.5, Qt::DashLine));
        m_measured->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssPlus, QPen(p.plotText, 1.5), Qt::NoBrush, 8));
    }
    if (m_predicted) {
        m_predicted->setPen(QPen(p.plotPredicted, 2.5));
        m_predicted->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssCircle, p.plotPredicted, p.plotPredicted, 7));
    }
    for (QCPItemRect* band : {m_bandTop, m_bandBottom})
        band->setBrush(p.plotHighlightBand);
    m_outline->setPen(QPen(p.plotHighlight, 2.5));
    plots::replotWhenShown(m_plot);
}

void StepsView::fitTexts()
{
    // Legend rows, tick counts, step labels and the spread table change the layout: run it
    // again until they hold.
    for (int pass = 0; pass < 4; ++pass) {
        bool again = plots::fitLegendWrap(m_plot->legend, m_plot->viewport().width());
        for (QCPAxisRect* r : {m_barsRect, m_linesRect})
            again = plots::fitTickCount(r->axis(QCPAxis::atLeft)) || again;
        again = fitSpread() || again;
        again = fitStepLabels() || again;
        if (!again) break;
        plots::relayout(m_plot);
    }
    for (const auto& [axis, variants] : m_axisTitles)
        plots::fitAxisTitle(axis, variants);
}

void StepsView::setStepTicker(int every)
{
    m_labelEvery = std::max(1, every);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const int n = int(m_layout.steps.size());
    for (int i = 0; i < n; i += m_labelEvery)
        ticker->addTick(i, QString::number(m_layout.steps[size_t(i)]));
    m_barsRect->axis(QCPAxis::atBottom)->setTicker(ticker);
    m_linesRect->axis(QCPAxis::atBottom)->setTicker(ticker);
}

bool StepsView::fitStepLabels()
{
    const int n = int(m_layout.steps.size());
    if (n == 0) return false;
    QCPAxis* x = m_linesRect->axis(QCPAxis::atBottom);
    const double width = m_linesRect->width();
    if (width <= 0) return false;
    // The widest step number and a gap of one digit: "40414243" never again.
    const QFontMetricsF fm(x->tickLabelFont());
    double label = 0;
    for (int s : m_layout.steps)
        label = std::max(label, fm.horizontalAdvance(QString::number(s)));
    label += fm.horizontalAdvance(QStringLiteral("0")) + 4;
    const double perStep = width / std::max(1.0, x->range().size());
    // 1, 2, 5, 10, 20, 50...: labels a reader can count on.
    int every = 1;
    for (const int e : {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000}) {
        every = e;
        if (perStep * e >= label) break;
    }
    if (every == m_labelEvery) return false;
    setStepTicker(every);
    return true;
}

QRect StepsView::spreadRect() const
{
    return m_spread ? m_spread->outerRect() : QRect();
}

double StepsView::spreadPointSize() const
{
    return m_spread ? m_spread->font().pointSizeF() : 0;
}

QSize StepsView::spreadTextSize() const
{
    if (!m_spread) return {};
    const QFontMetrics fm(m_spread->font());
    const QStringList lines = m_spread->text().split(QLatin1Char('\n'));
    int w = 0;
    for (const QString& l : lines)
        w = std::max(w, fm.horizontalAdvance(l));
    const QMargins m = m_spread->margins();
    return {w + m.left() + m.right(), int(lines.size()) * fm.lineSpacing() + m.top() + m.bottom()};
}

bool StepsView::fitSpread()
{
    if (!m_spread || !m_spreadSide || m_layout.cells.empty()) return false;
    const QRect room = m_spreadSide->rect();
    if (room.height() <= 0) return false;
    const QString full = spreadText();
    // Without the blank lines and the footnote (CV's definition moves into the header).
    QString compact = full;
    compact.replace(QStringLiteral("\n\n"), QStringLiteral("\n"));
    compact.remove(QStringLiteral("\nCV = stddev / mean"));
    compact.replace(QStringLiteral("     CV"), QStringLiteral("  CV(σ/μ)"));
    struct Form {
        const QString* text;
        int points;
    };
    const Form forms[] = {{&full, 9}, {&compact, 9}, {&compact, 8}, {&compact, 7}, {&compact, 6}};
    for (const Form& f : forms) {
        const QFont font = monoFont(f.points);
        const QFontMetrics fm(font);
        const QStringList lines = f.text->split(QLatin1Char('\n'));
        int w = 0;
        for (const QString& l : lines)
            w = std::max(w, fm.horizontalAdvance(l));
        const QMargins m = m_spread->margins();
        const int h = int(lines.size()) * fm.lineSpacing() + m.top() + m.bottom();
        const bool last = &f == &forms[std::size(forms) - 1];
        // The height is what the side has; the width may take from the charts (it needs it).
        if (h > room.height() && !last) continue;
        const bool changed = m_spread->text() != *f.text || m_spread->font() != font;
        if (changed) {
            m_spread->setFont(font);
            m_spread->setText(*f.text);
        }
        m_spreadCompact = f.text == &compact;
        Q_UNUSED(w);
        return changed;
    }
    return false;
}

void StepsView::setReports(std::vector<ReportPtr> reports)
{
    m_reports = std::move(reports);
    m_highlight = -1;
    rebuild();
}

void StepsView::setPrediction(std::vector<StepPrediction> steps, const QString& label)
{
    m_prediction = std::move(steps);
    m_predictionLabel = label;
    rebuild();
}

void StepsView::addPrediction(double* maxTotal)
{
    if (m_prediction.empty() || m_layout.steps.empty()) return;
    QCPAxis* bx = m_barsRect->axis(QCPAxis::atBottom);
    QCPAxis* by = m_barsRect->axis(QCPAxis::atLeft);
    m_measured = new QCPGraph(bx, by);
    m_predicted = new QCPGraph(bx, by);
    m_measured->setName(QStringLiteral("measured step (job)"));
    m_predicted->setName(m_predictionLabel.isEmpty()
                             ? QStringLiteral("predicted")
                             : QStringLiteral("predicted: %1").arg(m_predictionLabel));
    for (const StepPrediction& sp : m_prediction) {
        const auto it = std::lower_bound(m_layout.steps.begin(), m_layout.steps.end(), sp.step);
        if (it == m_layout.steps.end() || *it != sp.step) continue;
        const double x = double(it - m_layout.steps.begin());
        m_measured->addData(x, toMs(sp.measuredNs));
        m_predicted->addData(x, toMs(sp.predictedNs));
        *maxTotal = std::max({*maxTotal, toMs(sp.measuredNs), toMs(sp.predictedNs)});
    }
    for (QCPGraph* g : {m_measured, m_predicted})
        g->setSelectable(QCP::stNone);
}

QCPGraph* StepsView::computingGraph(int rankIndex) const
{
    return rankIndex >= 0 && size_t(rankIndex) < m_computing.size() ? m_computing[size_t(rankIndex)]
                                                                    : nullptr;
}

QCPGraph* StepsView::communicationGraph(int rankIndex) const
{
    return rankIndex >= 0 && size_t(rankIndex) < m_communication.size()
               ? m_communication[size_t(rankIndex)]
               : nullptr;
}

void StepsView::rebuild()
{
    m_layout = layoutSteps(m_reports);
    for (QCPGraph* g : m_computing)
        m_plot->removeGraph(g);
    for (QCPGraph* g : m_communication)
        m_plot->removeGraph(g);
    for (QCPGraph* g : m_spans)
        m_plot->removeGraph(g);
    for (QCPGraph* g : {m_measured, m_predicted})
        if (g) m_plot->removeGraph(g);
    m_measured = m_predicted = nullptr;
    m_computing.clear();
    m_communication.clear();
    m_spans.clear();
    for (QCPBars* b : m_bars)
        b->data()->clear();

    QCPAxis* bx = m_barsRect->axis(QCPAxis::atBottom);
    QCPAxis* by = m_barsRect->axis(QCPAxis::atLeft);
    QCPAxis* lx = m_linesRect->axis(QCPAxis::atBottom);
    QCPAxis* ly = m_linesRect->axis(QCPAxis::atLeft);

    double maxTotal = 0, maxLine = 0;
    for (QCPBars* b : m_bars)
        b->setWidth(m_layout.barWidth);
    for (const StepSlot& s : m_layout.cells) {
        const StepStats& st = *s.stats;
        const double values[SeriesCount] = {toMs(std::max<TimeNs>(0, st.computing - st.overlapped)),
                                            toMs(st.overlapped),
                                            toMs(st.communicationNotOverlapped), toMs(st.free)};
        double total = 0;
        for (int k = 0; k < SeriesCount; ++k) {
            m_bars[k]->addData(s.key, values[k]);
            total += values[k];
        }
        maxTotal = std::max(maxTotal, total);
        maxLine = std::max({maxLine, toMs(st.computing), toMs(st.communication)});
    }
    addPrediction(&maxTotal);
    // Several ranks: each rank a point under its own bar (lines from rank to rank crossed into a
    // lattice), over a band per step from the lowest rank to the highest; one rank: its lines.
    const bool points = m_layout.ranks > 1;
    if (points) {
        std::map<int, std::pair<double, double>> comp, comm; // per step: min, max
        for (const StepSlot& s : m_layout.cells) {
            const double c = toMs(s.stats->computing), m = toMs(s.stats->communication);
            auto widen = [](std::map<int, std::pair<double, double>>& at, int step, double v) {
                auto [it, fresh] = at.try_emplace(step, v, v);
                if (!fresh)
                    it->second = {std::min(it->second.first, v), std::max(it->second.second, v)};
            };
            widen(comp, s.step, c);
            widen(comm, s.step, m);
        }
        // Per series a low and a high edge, filled between (QCPGraph's channel fill); each
        // step's band spans its group of bars.
        for (auto* range : {&comp, &comm}) {
            auto* lo = new QCPGraph(lx, ly);
            auto* hi = new QCPGraph(lx, ly);
            for (std::size_t i = 0; i < m_layout.steps.size(); ++i) {
                const auto it = range->find(m_layout.steps[i]);
                if (it == range->end()) continue;
                const double half = 0.5 * m_layout.barWidth;
                for (const double x : {double(i) - half, double(i) + half}) {
                    lo->addData(x, it->second.first);
                    hi->addData(x, it->second.second);
                }
                // A gap before the next step's band (QCPGraph breaks its line at NaN).
                lo->addData(double(i) + 0.5, qQNaN());
                hi->addData(double(i) + 0.5, qQNaN());
            }
            hi->setChannelFillGraph(lo);
            for (QCPGraph* g : {lo, hi}) {
                g->setSelectable(QCP::stNone);
                g->removeFromLegend();
                g->setName(range == &comp ? QStringLiteral("computing range")
                                          : QStringLiteral("communication range"));
                m_spans.push_back(g);
            }
        }
    }
    for (int lane = 0; lane < m_layout.ranks; ++lane) {
        auto* comp = new QCPGraph(lx, ly);
        auto* comm = new QCPGraph(lx, ly);
        comp->setName(points ? QStringLiteral("computing (a point per rank)")
                             : QStringLiteral("computing"));
        comm->setName(points ? QStringLiteral("communication (a point per rank)")
                             : QStringLiteral("communication"));
        for (QCPGraph* g : {comp, comm}) {
            g->setSelectable(QCP::stNone);
            if (points) g->setLineStyle(QCPGraph::lsNone);
            if (lane > 0) g->removeFromLegend();
        }
        for (const StepSlot& s : m_layout.cells) {
            if (s.lane != lane) continue;
            comp->addData(s.key, toMs(s.stats->computing));
            comm->addData(s.key, toMs(s.stats->communication));
        }
        m_computing.push_back(comp);
        m_communication.push_back(comm);
    }

    // Step numbers under each group; thinned to the axis' width after the layout (fitTexts).
    const int n = int(m_layout.steps.size());
    setStepTicker(std::max(1, (n + 24) / 25));
    m_axisTitles.back().second =
        m_layout.ranks > 1
            ? QStringList{QStringLiteral("step (bars left to right: %1)").arg(ranksText(m_layout)),
                          QStringLiteral("step (ranks left to right)"), QStringLiteral("step")}
            : QStringList{QStringLiteral("step")};
    lx->setLabel(m_axisTitles.back().second.front());
    bx->setRange(-0.6, std::max(0, n - 1) + 0.6);
    by->setRange(0, maxTotal > 0 ? maxTotal * 1.08 : 1);
    ly->setRange(0, maxLine > 0 ? maxLine * 1.15 : 1);

    if (m_layout.cells.empty()) {
        m_title->setText(m_reports.empty()
                             ? QStringLiteral("Steps: no analysis loaded")
                             : QStringLiteral("Steps: no ProfilerStep in this trace"));
    } else {
        const auto n = m_layout.steps.size();
        m_title->setText(QStringLiteral("Time per step · %1 · %2")
                             .arg(ranksText(m_layout), n == 1 ? QStringLiteral("1 step")
                                                              : QStringLiteral("%1 steps").arg(n)));
    }
    m_spreadCompact = false;
    m_spread->setFont(monoFont(9));
    m_spread->setText(spreadText());
    restyle(currentPalette());
    applyHighlight(m_highlight);
}

QString StepsView::spreadText() const
{
    if (m_layout.cells.empty()) return QString();
    std::vector<double> step, comp, comm, notOv, ov, fr, mem;
    for (const StepSlot& s : m_layout.cells) {
        const StepStats& st = *s.stats;
        step.push_back(toMs(st.end - st.start));
        comp.push_back(toMs(st.computing));
        comm.push_back(toMs(st.communication));
        notOv.push_back(toMs(st.communicationNotOverlapped));
        ov.push_back(toMs(st.overlapped));
        fr.push_back(toMs(st.free));
        mem.push_back(toMs(st.internalMemcpy));
    }
    const Spread stepSpread = spreadOf(step);
    const int decimals = stepSpread.max >= 100 ? 1 : stepSpread.max >= 1 ? 2 : 3;
    QStringList lines;
    lines << QStringLiteral("Spread over %1 %2")
                 .arg(step.size())
                 .arg(m_layout.ranks > 1 ? QStringLiteral("steps × ranks")
                      : step.size() == 1 ? QStringLiteral("step")
                                         : QStringLiteral("steps"));
    lines << QString();
    lines << QStringLiteral("(ms)").leftJustified(14) +
                 QStringLiteral("      min   median      max     CV");
    lines << row(QStringLiteral("step"), stepSpread, decimals);
    lines << row(QStringLiteral("computing"), spreadOf(comp), decimals);
    lines << row(QStringLiteral("communication"), spreadOf(comm), decimals);
    lines << row(QStringLiteral(" not overlap."), spreadOf(notOv), decimals);
    lines << row(QStringLiteral(" overlapped"), spreadOf(ov), decimals);
    lines << row(QStringLiteral("free"), spreadOf(fr), decimals);
    lines << row(QStringLiteral("int. memcpy"), spreadOf(mem), decimals);
    lines << QString();
    lines << QStringLiteral("CV = stddev / mean");
    return lines.join(QLatin1Char('\n'));
}

int StepsView::slotAt(const QPoint& pos) const
{
    for (QCPAxisRect* r : {m_barsRect, m_linesRect}) {
        if (!r->rect().contains(pos)) continue;
        return slotAtKey(m_layout, r->axis(QCPAxis::atBottom)->pixelToCoord(pos.x()));
    }
    return -1;
}

QString StepsView::toolTipAt(const QPoint& pos) const
{
    const int i = slotAt(pos);
    if (i < 0) return QString();
    const StepSlot& s = m_layout.cells[size_t(i)];
    const StepStats& st = *s.stats;
    QStringList lines;
    lines << QStringLiteral("rank %1 · step %2").arg(s.rank).arg(s.step);
    lines << QStringLiteral("step time: %1").arg(formatMsExact(st.end - st.start));
    lines << QStringLiteral("computing: %1 (alone %2, overlapped %3)")
                 .arg(formatMsExact(st.computing),
                      formatMsExact(std::max<TimeNs>(0, st.computing - st.overlapped)),
                      formatMsExact(st.overlapped));
    lines << QStringLiteral("communication: %1 (not overlapped %2)")
                 .arg(formatMsExact(st.communication),
                      formatMsExact(st.communicationNotOverlapped));
    lines << QStringLiteral("free: %1").arg(formatMsExact(st.free));
    lines << QStringLiteral("internal memcpy: %1").arg(formatMsExact(st.internalMemcpy));
    return lines.join(QLatin1Char('\n'));
}

std::optional<std::pair<int, int>> StepsView::highlightedStep() const
{
    if (m_highlight < 0 || size_t(m_highlight) >= m_layout.cells.size()) return std::nullopt;
    const StepSlot& s = m_layout.cells[size_t(m_highlight)];
    return std::make_pair(s.rank, s.step);
}

void StepsView::highlightStep(int rank, int step)
{
    int found = -1;
    for (size_t i = 0; i < m_layout.cells.size(); ++i)
        if (m_layout.cells[i].rank == rank && m_layout.cells[i].step == step) found = int(i);
    applyHighlight(found);
}

void StepsView::applyHighlight(int slot)
{
    m_highlight = slot >= 0 && size_t(slot) < m_layout.cells.size() ? slot : -1;
    const bool on = m_highlight >= 0;
    for (QCPItemRect* r : {m_bandTop, m_bandBottom, m_outline})
        r->setVisible(on);
    if (on) {
        const StepSlot& s = m_layout.cells[size_t(m_highlight)];
        const StepStats& st = *s.stats;
        const double half = m_layout.barWidth / 2;
        const double top = toMs(std::max<TimeNs>(0, st.computing - st.overlapped) + st.overlapped +
                                st.communicationNotOverlapped + st.free);
        m_outline->topLeft->setCoords(s.key - half, top);
        m_outline->bottomRight->setCoords(s.key + half, 0);
        for (QCPItemRect* band : {m_bandTop, m_bandBottom}) {
            band->topLeft->setCoords(s.key - half * 1.25, 0);
            band->bottomRight->setCoords(s.key + half * 1.25, 1);
        }
        // Scroll (never zoom) so the highlighted step is on screen.
        QCPAxis* x = m_barsRect->axis(QCPAxis::atBottom);
        const QCPRange r = x->range();
        if (s.key < r.lower || s.key > r.upper)
            x->setRange(s.key - r.size() / 2, s.key + r.size() / 2);
    }
    plots::replotWhenShown(m_plot);
}

void StepsView::onMousePress(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton) return;
    const int i = slotAt(event->pos());
    if (i < 0) return;
    applyHighlight(i);
    const StepSlot& s = m_layout.cells[size_t(i)];
    emit stepClicked(s.rank, s.step);
}

void StepsView::onMouseMove(QMouseEvent* event)
{
    if (event->buttons() != Qt::NoButton) return;
    const QString text = toolTipAt(event->pos());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
}

void StepsView::showContextMenu(const QPoint& pos)
{
    QMenu menu(this);
    menu.addAction(tr("Show all steps"), this, [this] {
        m_barsRect->axis(QCPAxis::atBottom)
            ->setRange(-0.6, std::max<int>(0, int(m_layout.steps.size()) - 1) + 0.6);
        m_plot->replot();
    });
    menu.addSeparator();
    plots::addExportActions(&menu, m_plot, this, QStringLiteral("steps"));
    menu.exec(m_plot->mapToGlobal(pos));
}

void StepsView::setSession(Session* session)
{
    // A what-if's prediction is about what was open (before followRankReports' slot rebuilds).
    connect(session, &Session::traceLoaded, this, [this] {
        m_prediction.clear();
        m_predictionLabel.clear();
    });
    connect(session, &Session::traceReplaced, this, [this] {
        m_prediction.clear();
        m_predictionLabel.clear();
    });
    followRankReports(session, this);
    // The step the selected event falls in outlined; a click asks for that rank's step.
    connect(session, &Session::selectionChanged, this, [this, session](EventId e) {
        if (const auto step = session->stepOf(e)) highlightStep(step->first, step->second);
    });
    connect(this, &StepsView::stepClicked, session, &Session::requestStep);
}

} // namespace rs
