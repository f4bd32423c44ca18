#include "ui/plots/distributionview.h"

#include "ui/session/session.h"

#include "ui/plots/plotexport.h"
#include "ui/theme/theme.h"

#include "core/analysis/presentation.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace rs {

using namespace plots;

namespace {

QString modeLabel(int i)
{
    return QString::fromStdString(rs::modeLetter(i));
}

// Linear-interpolated quantile of a sorted sample.
double quantile(const std::vector<double>& sorted, double q)
{
    if (sorted.empty()) return 0;
    const double pos = q * double(sorted.size() - 1);
    const size_t lo = size_t(std::floor(pos));
    const size_t hi = std::min(sorted.size() - 1, lo + 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}

QString wrap(const QString& text, int width)
{
    QStringList lines;
    QString line;
    for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (!line.isEmpty() && line.size() + 1 + word.size() > width) {
            lines << line;
            line.clear();
        }
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    if (!line.isEmpty()) lines << line;
    return lines.join(QLatin1Char('\n'));
}

bool matches(const Collective& c, EventId e)
{
    if (c.event == e || c.hostEvent == e) return true;
    if (std::find(c.tasks.begin(), c.tasks.end(), e) != c.tasks.end()) return true;
    return std::any_of(c.copies.begin(), c.copies.end(),
                       [e](const InternalCopy& k) { return k.event == e; });
}

void setAxesOf(QCPItemPosition* p, QCPAxisRect* rect)
{
    p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    p->setAxisRect(rect);
}

} // namespace

DistributionView::PointClass DistributionView::classOf(const Collective& c)
{
    if (c.anomalous) return Anomalous;
    if (c.waiting) return Waiting;
    if (c.memcpyCount > 0 || c.memcpyNs > 0 || !c.copies.empty()) return InternalMemcpy;
    return NoMemcpy;
}

DistributionView::DistributionView(QWidget* parent) : QWidget(parent)
{
    auto* box = new QVBoxLayout(this);
    box->setContentsMargins(0, 0, 0, 0);
    box->setSpacing(2);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 0);
    bar->addWidget(new QLabel(tr("Signature:"), this));
    m_combo = new QComboBox(this);
    m_combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_combo->setMinimumContentsLength(40);
    bar->addWidget(m_combo, 1);
    box->addLayout(bar);
    m_plot = new QCustomPlot(this);
    box->addWidget(m_plot, 1);
    setMinimumSize(860, 300); // the charts, the share chart and the summary, every text whole

    // Layout: title, legend, then [histogram over strip plot | memcpy share | summary].
    QCPLayoutGrid* top = m_plot->plotLayout();
    m_histRect = m_plot->axisRect();
    top->take(m_histRect);
    top->simplify();
    m_title = new QCPTextElement(m_plot, QString(), titleFont());
    top->addElement(0, 0, m_title);
    legendAsRow(m_plot, 1);
    auto* body = new QCPLayoutGrid;
    top->addElement(2, 0, body);
    auto* left = new QCPLayoutGrid;
    auto* right = new QCPLayoutGrid;
    body->addElement(0, 0, left);
    body->addElement(0, 1, right);
    left->addElement(0, 0, m_histRect);
    m_stripRect = new QCPAxisRect(m_plot);
    left->addElement(1, 0, m_stripRect);
    left->setRowStretchFactors({0.5, 0.5});
    auto* shareTitle = new QCPTextElement(
        m_plot, QStringLiteral("Share of each step's time in internal memcpy"), QFont());
    right->addElement(0, 0, shareTitle);
    m_shareRect = new QCPAxisRect(m_plot);
    right->addElement(1, 0, m_shareRect);
    m_summary = new QCPTextElement(m_plot, QString(), monoFont(9));
    m_summary->setTextFlags(Qt::AlignLeft | Qt::AlignTop);
    m_summary->setMargins(QMargins(10, 8, 6, 4));
    // Beside the share chart, not below it: below, the text's height squashed the chart. A
    // text element caps its row's height: a spacer under it lets the charts grow.
    auto* side = new QCPLayoutGrid;
    side->addElement(0, 0, m_summary);
    side->addElement(1, 0, new QCPLayoutElement(m_plot));
    side->setRowStretchFactors({0.01, 1});
    body->addElement(0, 2, side);
    body->setColumnStretchFactors({0.52, 0.26, 0.22});
    right->setRowStretchFactors({0.01, 1});
    // Room for every chart however short the pane (the widget's minimum holds them).
    m_histRect->setMinimumSize(0, 44);
    m_stripRect->setMinimumSize(0, 36);
    m_shareRect->setMinimumSize(0, 56);
    auto* margins = new QCPMarginGroup(m_plot);
    m_histRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    m_stripRect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);

    QCPAxis* hx = m_histRect->axis(QCPAxis::atBottom);
    QCPAxis* hy = m_histRect->axis(QCPAxis::atLeft);
    QCPAxis* sx = m_stripRect->axis(QCPAxis::atBottom);
    QCPAxis* sy = m_stripRect->axis(QCPAxis::atLeft);
    QCPAxis* qx = m_shareRect->axis(QCPAxis::atBottom);
    QCPAxis* qy = m_shareRect->axis(QCPAxis::atLeft);
    m_axisTitles = {
        {hy, {QStringLiteral("ops")}},
        {sx,
         {QStringLiteral("collective duration (ms)"), QStringLiteral("duration (ms)"),
          QStringLiteral("ms")}},
        {sy, {QStringLiteral("mode")}},
        {qx, {QStringLiteral("step")}},
        {qy, {QStringLiteral("% of step time"), QStringLiteral("% of step"), QStringLiteral("%")}}};
    for (const auto& [axis, variants] : m_axisTitles)
        axis->setLabel(variants.front());
    // The histogram and the strip plot share x: its numbers under the strip plot only.
    hx->setTickLabels(false);
    sy->setRangeReversed(true); // mode A on top
    sy->grid()->setVisible(false);
    sy->setSubTicks(false);
    qx->grid()->setVisible(false);
    qx->setSubTicks(false);
    connect(hx, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), sx,
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    connect(sx, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), hx,
            qOverload<const QCPRange&>(&QCPAxis::setRange));

    const QString names[PointClassCount] = {
        QStringLiteral("no internal memcpy"), QStringLiteral("waiting for a peer"),
        QStringLiteral("internal memcpy"), QStringLiteral("anomalous: extra memcpy")};
    m_boxes = new QCPStatisticalBox(sy, sx); // key axis vertical: horizontal boxes
    m_boxes->setWidth(0.62);
    m_boxes->setSelectable(QCP::stNone);
    m_boxes->removeFromLegend();
    for (int c = 0; c < PointClassCount; ++c) {
        m_hist[c] = new QCPBars(hx, hy);
        m_hist[c]->setName(names[c]);
        m_hist[c]->setStackingGap(0);
        m_hist[c]->setSelectable(QCP::stNone);
        if (c > 0) m_hist[c]->moveAbove(m_hist[c - 1]);
        m_points[c] = new QCPGraph(sx, sy);
        m_points[c]->setLineStyle(QCPGraph::lsNone);
        m_points[c]->setSelectable(QCP::stNone);
        m_points[c]->removeFromLegend();
    }
    m_ring = new QCPGraph(sx, sy);
    m_ring->setLineStyle(QCPGraph::lsNone);
    m_ring->setSelectable(QCP::stNone);
    m_ring->removeFromLegend();
    m_histMark = new QCPItemStraightLine(m_plot);
    m_histMark->setClipAxisRect(m_histRect);
    setAxesOf(m_histMark->point1, m_histRect);
    setAxesOf(m_histMark->point2, m_histRect);
    m_histMark->setVisible(false);
    m_share = new QCPBars(qx, qy);
    m_share->setName(QStringLiteral("internal memcpy share"));
    m_share->setSelectable(QCP::stNone);
    m_share->removeFromLegend();
    // The rank and step whose op carries an extra copy: its bar in the anomaly's red.
    m_shareExtra = new QCPBars(qx, qy);
    m_shareExtra->setName(QStringLiteral("internal memcpy share, with an extra copy"));
    m_shareExtra->setSelectable(QCP::stNone);
    m_shareExtra->removeFromLegend();
    auto* note = new QCPItemText(m_plot);
    note->setClipAxisRect(m_shareRect);
    setAxesOf(note->position, m_shareRect);
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.5, 0.5);
    note->setText(QStringLiteral("no internal memcpy in any step"));
    note->setSelectable(false);
    m_shareNote = note;

    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    for (QCPAxisRect* r : {m_histRect, m_stripRect, m_shareRect}) {
        r->setRangeDrag(Qt::Horizontal);
        r->setRangeZoom(Qt::Horizontal);
    }
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_plot, &QCustomPlot::customContextMenuRequested, this,
            &DistributionView::showContextMenu);
    connect(m_plot, &QCustomPlot::mousePress, this, &DistributionView::onMousePress);
    connect(m_plot, &QCustomPlot::mouseMove, this, &DistributionView::onMouseMove);
    connect(m_combo, qOverload<int>(&QComboBox::currentIndexChanged), this,
            &DistributionView::setCurrentGroup);
    connect(m_plot, &QCustomPlot::afterLayout, this, &DistributionView::fitTexts);
    rebuild();
    // A theme change recolours bars, points, boxes and marks in place (zoom and ring stay).
    setPlotRestyler(m_plot, [this](const ThemePalette& p) { restyle(p); });
}

QColor DistributionView::classColor(PointClass c, const ThemePalette& p)
{
    switch (c) {
    case NoMemcpy:
        return p.plotCollective;
    case Waiting:
        return p.plotWaiting;
    case InternalMemcpy:
        return p.plotMemcpy;
    case Anomalous:
    case PointClassCount:
        break;
    }
    return p.plotAnomalous;
}

void DistributionView::restyle(const ThemePalette& p)
{
    m_boxes->setBrush(p.boxFill);
    m_boxes->setPen(QPen(p.boxPen, 1.2));
    m_boxes->setWhiskerPen(QPen(p.boxPen, 1.2, Qt::DashLine));
    m_boxes->setWhiskerBarPen(QPen(p.boxPen, 1.2));
    m_boxes->setMedianPen(QPen(p.boxMedian, 2));
    for (int c = 0; c < PointClassCount; ++c) {
        const QColor fill = classColor(PointClass(c), p);
        m_hist[c]->setBrush(fill);
        m_hist[c]->setPen(QPen(p.plotBackground, 1)); // bins apart by the background
        m_points[c]->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssDisc, fill.darker(125), fill, 9));
    }
    m_ring->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(p.plotHighlight, 2.5), Qt::NoBrush, 17));
    m_histMark->setPen(QPen(p.plotHighlight, 2));
    m_share->setBrush(p.plotMemcpy);
    m_share->setPen(QPen(p.plotMemcpy.darker(140), 1));
    m_shareExtra->setBrush(p.plotAnomalous);
    m_shareExtra->setPen(QPen(p.plotAnomalous.darker(140), 1));
    if (auto* note = qobject_cast<QCPItemText*>(m_shareNote)) note->setColor(p.plotDim);
    // The mode marks (dashed mean lines, their labels, the bars across the strip rows).
    for (QCPAbstractItem* item : m_items) {
        if (auto* text = qobject_cast<QCPItemText*>(item)) {
            text->setColor(p.modeMark);
        } else if (auto* line = qobject_cast<QCPItemStraightLine*>(item)) {
            QPen pen = line->pen();
            pen.setColor(p.modeMark);
            line->setPen(pen);
        } else if (auto* tick = qobject_cast<QCPItemLine*>(item)) {
            QPen pen = tick->pen();
            pen.setColor(p.modeMark);
            tick->setPen(pen);
        }
    }
    plots::replotWhenShown(m_plot);
}

void DistributionView::fitTexts()
{
    // Legend rows and tick counts change the layout: it runs again until they hold.
    for (int pass = 0; pass < 3; ++pass) {
        bool again = plots::fitLegendWrap(m_plot->legend, m_plot->viewport().width());
        for (QCPAxisRect* r : {m_histRect, m_shareRect})
            again = plots::fitTickCount(r->axis(QCPAxis::atLeft)) || again;
        again = plots::fitTickCount(m_stripRect->axis(QCPAxis::atBottom)) || again;
        if (!again) break;
        plots::relayout(m_plot);
    }
    for (const auto& [axis, variants] : m_axisTitles)
        plots::fitAxisTitle(axis, variants);
}

void DistributionView::setReports(std::vector<ReportPtr> reports)
{
    m_reports = std::move(reports);
    m_groups.clear();
    m_hlReport = -1;
    for (size_t r = 0; r < m_reports.size(); ++r) {
        if (!m_reports[r]) continue;
        const AnalysisReport& rep = *m_reports[r];
        for (size_t s = 0; s < rep.signatures.size(); ++s) {
            Group g;
            g.report = int(r);
            g.signature = std::uint32_t(s);
            for (std::uint32_t m : rep.signatures[s].members) {
                if (m >= rep.collectives.size()) continue;
                g.anomalous += rep.collectives[m].anomalous ? 1 : 0;
                g.total += rep.collectives[m].dur;
            }
            if (!rep.signatures[s].members.empty()) m_groups.push_back(g);
        }
    }
    int best = m_groups.empty() ? -1 : 0;
    for (size_t i = 1; i < m_groups.size(); ++i) {
        const Group& a = m_groups[i];
        const Group& b = m_groups[size_t(best)];
        if (a.anomalous > b.anomalous || (a.anomalous == b.anomalous && a.total > b.total))
            best = int(i);
    }
    const bool manyRanks = m_reports.size() > 1;
    {
        const QSignalBlocker block(m_combo);
        m_combo->clear();
        for (const Group& g : m_groups) {
            const AnalysisReport& rep = *m_reports[size_t(g.report)];
            const SignatureGroup& sig = rep.signatures[g.signature];
            QString text = QString::fromStdString(sig.label);
            if (manyRanks)
                text = QStringLiteral("rank %1 · ").arg(rankOfReport(rep, g.report)) + text;
            text += QStringLiteral("  (%1 ops").arg(sig.members.size());
            if (g.anomalous) text += QStringLiteral(", %1 anomalous").arg(g.anomalous);
            text += QLatin1Char(')');
            m_combo->addItem(text);
        }
        m_combo->setCurrentIndex(best);
    }
    m_current = best;
    rebuild();
}

void DistributionView::setCurrentGroup(int index)
{
    if (index < -1 || index >= int(m_groups.size())) return;
    if (m_combo->currentIndex() != index) {
        const QSignalBlocker block(m_combo);
        m_combo->setCurrentIndex(index);
    }
    if (index == m_current) return;
    m_current = index;
    rebuild();
}

void DistributionView::clearItems()
{
    for (QCPAbstractItem* item : m_items)
        m_plot->removeItem(item);
    m_items.clear();
}

void DistributionView::rebuild()
{
    clearItems();
    m_pointList.clear();
    m_modeMarks.clear();
    for (int c = 0; c < PointClassCount; ++c) {
        m_hist[c]->data()->clear();
        m_points[c]->data()->clear();
    }
    m_boxes->data()->clear();
    m_share->data()->clear();
    m_shareExtra->data()->clear();

    QCPAxis* hx = m_histRect->axis(QCPAxis::atBottom);
    QCPAxis* hy = m_histRect->axis(QCPAxis::atLeft);
    QCPAxis* sy = m_stripRect->axis(QCPAxis::atLeft);
    QCPAxis* qx = m_shareRect->axis(QCPAxis::atBottom);
    QCPAxis* qy = m_shareRect->axis(QCPAxis::atLeft);

    // Memcpy share per step, all ranks.
    m_shareLayout = layoutSteps(m_reports);
    double maxShare = 0;
    m_share->setWidth(m_shareLayout.barWidth);
    m_shareExtra->setWidth(m_shareLayout.barWidth);
    bool anyExtra = false;
    for (const StepSlot& s : m_shareLayout.cells) {
        const TimeNs len = s.stats->end - s.stats->start;
        const double share = len > 0 ? 100.0 * double(s.stats->internalMemcpy) / double(len) : 0;
        bool extra = false;
        if (s.report >= 0 && std::size_t(s.report) < m_reports.size())
            for (const Collective& c : m_reports[std::size_t(s.report)]->collectives)
                extra = extra || (c.anomalous && c.step == s.step);
        anyExtra = anyExtra || extra;
        m_share->addData(s.key, share);
        if (extra) m_shareExtra->addData(s.key, share); // over the orange bar, in red
        maxShare = std::max(maxShare, share);
    }
    auto stepTicker = QSharedPointer<QCPAxisTickerText>::create();
    const int nSteps = int(m_shareLayout.steps.size());
    const int every = std::max(1, (nSteps + 11) / 12);
    for (int i = 0; i < nSteps; i += every)
        stepTicker->addTick(i, QString::number(m_shareLayout.steps[size_t(i)]));
    qx->setTicker(stepTicker);
    qx->setRange(-0.6, std::max(0, nSteps - 1) + 0.6);
    // Several ranks' bars side by side in each step: the axis title is their legend (whose
    // bar is where, and that red is an extra copy).
    const QString red = anyExtra ? QStringLiteral("; red: an extra copy") : QString();
    for (auto& [axis, variants] : m_axisTitles)
        if (axis == qx)
            variants = m_shareLayout.ranks > 1
                           ? QStringList{QStringLiteral("step (bars left to right: %1%2)")
                                             .arg(plots::ranksText(m_shareLayout), red),
                                         QStringLiteral("step (%1 left to right%2)")
                                             .arg(plots::ranksText(m_shareLayout, true), red),
                                         QStringLiteral("step (ranks left to right%1)").arg(red),
                                         QStringLiteral("step (ranks left to right)"),
                                         QStringLiteral("step")}
                       : anyExtra ? QStringList{QStringLiteral("step (red: an extra copy)"),
                                                QStringLiteral("step")}
                                  : QStringList{QStringLiteral("step")};
    qy->setRange(0, maxShare > 0 ? std::min(100.0, maxShare * 1.15) : 5);
    m_shareNote->setVisible(maxShare <= 0);

    if (m_current < 0) {
        m_title->setText(m_reports.empty() ? QStringLiteral("Distribution: no analysis loaded")
                                           : QStringLiteral("Distribution: no collective found"));
        m_summary->setText(QString());
        hx->setRange(0, 1);
        hy->setRange(0, 1);
        sy->setRange(-0.6, 0.6);
        updateHighlight();
        return;
    }

    const Group& g = m_groups[size_t(m_current)];
    const AnalysisReport& rep = *m_reports[size_t(g.report)];
    const SignatureGroup& sig = rep.signatures[g.signature];
    const int nModes = int(sig.modes.size());
    const int rows = std::max(1, nModes);

    std::vector<std::vector<double>> perRow(static_cast<size_t>(rows));
    std::vector<int> rowCount(size_t(rows), 0);
    double lo = INFINITY, hi = -INFINITY;
    for (std::uint32_t m : sig.members) {
        if (m >= rep.collectives.size()) continue;
        const Collective& c = rep.collectives[m];
        Point p;
        p.report = g.report;
        p.collective = m;
        p.x = toMs(c.dur);
        p.cls = classOf(c);
        if (c.mode && *c.mode >= 0 && *c.mode < rows) {
            p.row = *c.mode;
        } else if (nModes >= 2) { // no mode given: the nearest mean
            double best = INFINITY;
            for (int k = 0; k < nModes; ++k) {
                const double d = std::fabs(double(c.dur - sig.modes[size_t(k)].meanNs));
                if (d < best) {
                    best = d;
                    p.row = k;
                }
            }
        }
        // Golden-ratio jitter: spreads points of a row evenly, the same on every redraw.
        const int k = rowCount[size_t(p.row)]++;
        const double frac = std::fmod(0.5 + double(k) * 0.6180339887, 1.0); // first: centre
        p.y = p.row + (frac - 0.5) * 0.5;
        perRow[size_t(p.row)].push_back(p.x);
        lo = std::min(lo, p.x);
        hi = std::max(hi, p.x);
        m_pointList.push_back(p);
    }
    for (const Point& p : m_pointList)
        m_points[p.cls]->addData(p.x, p.y);

    // Boxes per mode row.
    for (int r = 0; r < rows; ++r) {
        auto& v = perRow[size_t(r)];
        if (v.empty()) continue;
        std::sort(v.begin(), v.end());
        m_boxes->addData(r, v.front(), quantile(v, 0.25), quantile(v, 0.5), quantile(v, 0.75),
                         v.back());
    }

    // Histogram with a round bin width, stacked by class.
    if (m_pointList.empty()) {
        lo = 0;
        hi = 1;
    }
    const double span = hi - lo;
    const int n = int(m_pointList.size());
    const int target = std::clamp(2 * int(std::ceil(std::sqrt(double(n)))), 8, 40);
    m_binWidth = niceStep(span > 0 ? span / target : std::max(std::fabs(hi) * 0.02, 0.001));
    // Bins centred on multiples of the width, so a mode at 200 ms sits in the middle of a bar.
    m_binStart =
        span > 0 ? (std::floor(lo / m_binWidth + 0.5) - 0.5) * m_binWidth : lo - m_binWidth / 2;
    const int bins = std::max(1, int(std::floor((hi - m_binStart) / m_binWidth)) + 1);
    std::vector<std::array<int, PointClassCount>> counts(size_t(bins), {0, 0, 0, 0});
    for (const Point& p : m_pointList) {
        const int b = std::clamp(int(std::floor((p.x - m_binStart) / m_binWidth)), 0, bins - 1);
        counts[size_t(b)][size_t(p.cls)]++;
    }
    int maxCount = 0;
    for (int b = 0; b < bins; ++b) {
        int total = 0;
        for (int c = 0; c < PointClassCount; ++c) {
            m_hist[c]->addData(m_binStart + (b + 0.5) * m_binWidth, counts[size_t(b)][size_t(c)]);
            total += counts[size_t(b)][size_t(c)];
        }
        maxCount = std::max(maxCount, total);
    }
    for (QCPBars* b : m_hist)
        b->setWidth(m_binWidth);
    const double pad = std::max(m_binWidth, span * 0.08);
    hx->setRange(std::max(0.0, m_binStart - pad), m_binStart + bins * m_binWidth + pad);
    hy->setRange(0, std::max(1, maxCount) * 1.3); // room for the mode labels
    if (maxCount <= 10) {
        auto fixed = QSharedPointer<QCPAxisTickerFixed>::create();
        fixed->setTickStep(maxCount <= 5 ? 1 : 2);
        fixed->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        hy->setTicker(fixed);
    } else {
        hy->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
    auto rowTicker = QSharedPointer<QCPAxisTickerText>::create();
    for (int r = 0; r < rows; ++r)
        rowTicker->addTick(r, nModes ? modeLabel(r) : QStringLiteral("all"));
    sy->setTicker(rowTicker);
    sy->setRange(-0.6, rows - 0.4);
    // A row per mode, each at least a label high.
    m_stripRect->setMinimumSize(
        0, std::max(36, rows * (QFontMetrics(sy->tickLabelFont()).height() + 4)));

    // Mode means: dashed line and label in the histogram, a bar across the row in the strip.
    for (int k = 0; k < nModes; ++k) {
        const DurationMode& mode = sig.modes[size_t(k)];
        const double mean = toMs(mode.meanNs);
        const QString letter = modeLabel(k);
        m_modeMarks.emplace_back(letter, mean);
        auto* line = new QCPItemStraightLine(m_plot);
        line->setClipAxisRect(m_histRect);
        setAxesOf(line->point1, m_histRect);
        setAxesOf(line->point2, m_histRect);
        line->point1->setCoords(mean, 0);
        line->point2->setCoords(mean, 1);
        line->setPen(QPen(colors::modeMark(), 1.5, Qt::DashLine));
        line->setSelectable(false);
        m_items.push_back(line);
        auto* label = new QCPItemText(m_plot);
        label->setClipAxisRect(m_histRect);
        setAxesOf(label->position, m_histRect);
        label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(mean, 0.03 + 0.1 * (k % 2));
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setPadding(QMargins(4, 0, 2, 0));
        label->setText(QStringLiteral("%1  %2").arg(letter, formatMsShort(mean)));
        QFont f;
        f.setBold(true);
        label->setFont(f);
        label->setColor(colors::modeMark());
        label->setSelectable(false);
        m_items.push_back(label);
        auto* tick = new QCPItemLine(m_plot);
        tick->setClipAxisRect(m_stripRect);
        setAxesOf(tick->start, m_stripRect);
        setAxesOf(tick->end, m_stripRect);
        tick->start->setCoords(mean, k - 0.42);
        tick->end->setCoords(mean, k + 0.42);
        tick->setPen(QPen(colors::modeMark(), 2.5));
        tick->setLayer(QStringLiteral("grid")); // under the points
        tick->setSelectable(false);
        m_items.push_back(tick);
    }

    // Title and summary.
    int cls[PointClassCount] = {0, 0, 0, 0};
    for (const Point& p : m_pointList)
        cls[p.cls]++;
    QString title =
        QStringLiteral("Collective durations · %1").arg(QString::fromStdString(sig.label));
    if (m_reports.size() > 1)
        title += QStringLiteral(" · rank %1").arg(rankOfReport(rep, g.report));
    m_title->setText(title);
    QStringList lines;
    lines << QStringLiteral("%1 %2: %3 anomalous, %4 with memcpy,")
                 .arg(m_pointList.size())
                 .arg(m_pointList.size() == 1 ? QStringLiteral("op") : QStringLiteral("ops"))
                 .arg(cls[Anomalous])
                 .arg(cls[InternalMemcpy]);
    lines
        << QStringLiteral("   %1 waiting, %2 without memcpy").arg(cls[Waiting]).arg(cls[NoMemcpy]);
    for (int k = 0; k < nModes; ++k) {
        const DurationMode& mode = sig.modes[size_t(k)];
        QString line = QStringLiteral("%1: mean %2, n=%3, %4..%5")
                           .arg(modeLabel(k), formatMsShort(toMs(mode.meanNs)))
                           .arg(mode.members)
                           .arg(formatMsShort(toMs(mode.minNs)), formatMsShort(toMs(mode.maxNs)));
        lines << line;
        QString second = QStringLiteral("   %1 with extra copy").arg(mode.withExtraCopy);
        if (k > 0 && sig.modes[0].meanNs > 0)
            second += QStringLiteral(", %1x A").arg(
                double(mode.meanNs) / double(sig.modes[0].meanNs), 0, 'f', 2);
        lines << second;
    }
    if (!sig.summary.empty()) lines << QString() << wrap(QString::fromStdString(sig.summary), 46);
    m_summary->setText(lines.join(QLatin1Char('\n')));
    updateHighlight();
}

const Collective* DistributionView::collectiveOfPoint(const Point& p) const
{
    if (p.report < 0 || size_t(p.report) >= m_reports.size() || !m_reports[size_t(p.report)])
        return nullptr;
    const auto& cs = m_reports[size_t(p.report)]->collectives;
    return p.collective < cs.size() ? &cs[p.collective] : nullptr;
}

int DistributionView::pointAt(const QPoint& pos) const
{
    if (!m_stripRect->rect().contains(pos)) return -1;
    QCPAxis* sx = m_stripRect->axis(QCPAxis::atBottom);
    QCPAxis* sy = m_stripRect->axis(QCPAxis::atLeft);
    int best = -1;
    double bestD2 = 9.0 * 9.0;
    for (size_t i = 0; i < m_pointList.size(); ++i) {
        const double dx = sx->coordToPixel(m_pointList[i].x) - pos.x();
        const double dy = sy->coordToPixel(m_pointList[i].y) - pos.y();
        if (dx * dx + dy * dy <= bestD2) {
            bestD2 = dx * dx + dy * dy;
            best = int(i);
        }
    }
    return best;
}

QString DistributionView::toolTipAt(const QPoint& pos) const
{
    const int pi = pointAt(pos);
    if (pi >= 0) {
        const Point& p = m_pointList[size_t(pi)];
        const Collective* c = collectiveOfPoint(p);
        if (!c) return QString();
        QStringList lines;
        QString head = QString::fromStdString(c->name);
        if (c->rank) head += QStringLiteral(" · rank %1").arg(*c->rank);
        if (c->step) head += QStringLiteral(" · step %1").arg(*c->step);
        lines << head;
        QString dur = QStringLiteral("duration: %1").arg(formatMsExact(c->dur));
        if (c->mode) dur += QStringLiteral(" · mode %1").arg(modeLabel(*c->mode));
        lines << dur;
        if (c->memcpyCount > 0 || c->memcpyNs > 0) {
            QString mem = QStringLiteral("internal memcpy: %1 × %2")
                              .arg(c->memcpyCount)
                              .arg(formatMsExact(c->memcpyNs));
            if (c->memcpyBytes) mem += QStringLiteral(" (%1 B)").arg(c->memcpyBytes);
            lines << mem;
        } else {
            lines << QStringLiteral("no internal memcpy");
        }
        if (c->unalignedCount > 0)
            lines << QStringLiteral("unaligned transfers: %1").arg(c->unalignedCount);
        if (c->anomalous)
            lines << QStringLiteral("ANOMALOUS: extra memcpy explains the extra time");
        if (c->waiting)
            lines << QStringLiteral("waiting: slow because a peer was late (%1 in Notify_Wait)")
                         .arg(formatMsExact(c->waitNs));
        if (!c->verdict.empty()) lines << wrap(QString::fromStdString(c->verdict), 70);
        return lines.join(QLatin1Char('\n'));
    }
    if (m_histRect->rect().contains(pos) && m_current >= 0) {
        const double x = m_histRect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x());
        const int b = int(std::floor((x - m_binStart) / m_binWidth));
        if (b < 0 || b >= m_hist[0]->dataCount()) return QString();
        int counts[PointClassCount];
        int total = 0;
        for (int c = 0; c < PointClassCount; ++c)
            total += counts[c] = int(m_hist[c]->data()->at(b)->value);
        if (total == 0) return QString();
        return QStringLiteral("%1 – %2: %3 ops\n%4 anomalous, %5 with memcpy, %6 waiting, %7 "
                              "without")
            .arg(formatMsShort(m_binStart + b * m_binWidth),
                 formatMsShort(m_binStart + (b + 1) * m_binWidth))
            .arg(total)
            .arg(counts[Anomalous])
            .arg(counts[InternalMemcpy])
            .arg(counts[Waiting])
            .arg(counts[NoMemcpy]);
    }
    if (m_shareRect->rect().contains(pos)) {
        const int i =
            slotAtKey(m_shareLayout, m_shareRect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x()));
        if (i < 0) return QString();
        const StepSlot& s = m_shareLayout.cells[size_t(i)];
        const TimeNs len = s.stats->end - s.stats->start;
        return QStringLiteral("rank %1 · step %2\ninternal memcpy %3 of %4 (%5%)")
            .arg(s.rank)
            .arg(s.step)
            .arg(formatMsExact(s.stats->internalMemcpy), formatMsExact(len))
            .arg(len > 0 ? 100.0 * double(s.stats->internalMemcpy) / double(len) : 0.0, 0, 'f', 2);
    }
    return QString();
}

std::optional<EventId> DistributionView::highlightedCollective() const
{
    if (m_hlReport < 0 || size_t(m_hlReport) >= m_reports.size()) return std::nullopt;
    const auto& cs = m_reports[size_t(m_hlReport)]->collectives;
    if (m_hlCollective >= cs.size()) return std::nullopt;
    return cs[m_hlCollective].event;
}

void DistributionView::highlightCollective(EventId event)
{
    m_hlReport = -1;
    // The current group's report first: event ids are per trace.
    std::vector<int> order;
    if (m_current >= 0) order.push_back(m_groups[size_t(m_current)].report);
    for (int r = 0; r < int(m_reports.size()); ++r)
        if (order.empty() || r != order.front()) order.push_back(r);
    for (int r : order) {
        if (!m_reports[size_t(r)]) continue;
        const auto& cs = m_reports[size_t(r)]->collectives;
        for (size_t i = 0; i < cs.size(); ++i) {
            if (!matches(cs[i], event)) continue;
            m_hlReport = r;
            m_hlCollective = std::uint32_t(i);
            for (size_t g = 0; g < m_groups.size(); ++g)
                if (m_groups[g].report == r && m_groups[g].signature == cs[i].signature)
                    setCurrentGroup(int(g));
            updateHighlight();
            return;
        }
    }
    updateHighlight();
}

void DistributionView::updateHighlight()
{
    m_ring->data()->clear();
    m_histMark->setVisible(false);
    for (const Point& p : m_pointList) {
        if (p.report != m_hlReport || p.collective != m_hlCollective) continue;
        m_ring->addData(p.x, p.y);
        m_histMark->point1->setCoords(p.x, 0);
        m_histMark->point2->setCoords(p.x, 1);
        m_histMark->setVisible(true);
        QCPAxis* x = m_stripRect->axis(QCPAxis::atBottom);
        const QCPRange r = x->range();
        if (p.x < r.lower || p.x > r.upper) x->setRange(p.x - r.size() / 2, p.x + r.size() / 2);
    }
    plots::replotWhenShown(m_plot);
}

void DistributionView::onMousePress(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton) return;
    const int pi = pointAt(event->pos());
    if (pi >= 0) {
        const Point& p = m_pointList[size_t(pi)];
        const Collective* c = collectiveOfPoint(p);
        if (!c) return;
        m_hlReport = p.report;
        m_hlCollective = p.collective;
        updateHighlight();
        emit collectiveClicked(c->event);
        emit collectiveClickedInReport(p.report, c->event);
        return;
    }
    if (m_shareRect->rect().contains(event->pos())) {
        const int i = slotAtKey(
            m_shareLayout, m_shareRect->axis(QCPAxis::atBottom)->pixelToCoord(event->pos().x()));
        if (i >= 0)
            emit stepClicked(m_shareLayout.cells[size_t(i)].rank,
                             m_shareLayout.cells[size_t(i)].step);
    }
}

void DistributionView::onMouseMove(QMouseEvent* event)
{
    if (event->buttons() != Qt::NoButton) return;
    const QString text = toolTipAt(event->pos());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
}

void DistributionView::showContextMenu(const QPoint& pos)
{
    QMenu menu(this);
    menu.addAction(tr("Reset zoom"), this, [this] { rebuild(); });
    menu.addSeparator();
    plots::addExportActions(&menu, m_plot, this, QStringLiteral("distribution"));
    menu.exec(m_plot->mapToGlobal(pos));
}

void DistributionView::setSession(Session* session)
{
    followRankReports(session, this);
    // The selected collective ringed; a click asks for its op or its step.
    connect(session, &Session::selectionChanged, this, &DistributionView::highlightCollective);
    connect(this, &DistributionView::collectiveClicked, session, &Session::requestSelection);
    connect(this, &DistributionView::stepClicked, session, &Session::requestStep);
}

} // namespace rs
