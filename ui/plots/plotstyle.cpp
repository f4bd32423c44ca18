#include "ui/plots/plotstyle.h"

#include "ui/theme/theme.h"

#include <qcustomplot.h>

#include <QFontDatabase>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace rs::plots {

namespace colors {
// From the theme's palette struct (ui/theme/theme.h): data colours are the same in both
// themes, the inks (mode marks, highlight) follow the theme in use.
QColor computing()
{
    return currentPalette().computing;
}
QColor overlapped()
{
    return currentPalette().overlapped;
}
QColor commNotOverlapped()
{
    return currentPalette().commNotOverlapped;
}
QColor free()
{
    return currentPalette().free;
}
QColor computingLine()
{
    return currentPalette().computingLine;
}
QColor communicationLine()
{
    return currentPalette().communicationLine;
}
QColor collective()
{
    return currentPalette().plotCollective;
}
QColor internalMemcpy()
{
    return currentPalette().plotMemcpy;
}
QColor waiting()
{
    return currentPalette().plotWaiting;
}
QColor anomalous()
{
    return currentPalette().plotAnomalous;
}
QColor modeMark()
{
    return currentPalette().modeMark;
}
QColor highlight()
{
    return currentPalette().plotHighlight;
}
QColor highlightBand()
{
    return currentPalette().plotHighlightBand;
}
} // namespace colors

QString formatMsExact(TimeNs ns)
{
    return QStringLiteral("%1 ms").arg(double(ns) / 1e6, 0, 'f', 3);
}

QString formatMsShort(double ms)
{
    const double a = std::fabs(ms);
    const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
    return QStringLiteral("%1 ms").arg(ms, 0, 'f', decimals);
}

Spread spreadOf(std::vector<double> values)
{
    Spread s;
    s.n = int(values.size());
    if (values.empty()) return s;
    std::sort(values.begin(), values.end());
    s.min = values.front();
    s.max = values.back();
    const size_t mid = values.size() / 2;
    s.median = values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
    double sum = 0;
    for (double v : values)
        sum += v;
    s.mean = sum / double(values.size());
    double sq = 0;
    for (double v : values)
        sq += (v - s.mean) * (v - s.mean);
    const double sd = std::sqrt(sq / double(values.size()));
    s.cv = s.mean != 0 ? sd / std::fabs(s.mean) : 0;
    return s;
}

int rankOfReport(const AnalysisReport& report, int reportIndex)
{
    for (const StepStats& st : report.steps)
        if (st.rank) return *st.rank;
    for (const Collective& c : report.collectives)
        if (c.rank) return *c.rank;
    return reportIndex;
}

StepLayout layoutSteps(const std::vector<ReportPtr>& reports)
{
    StepLayout layout;
    std::vector<int> steps;
    std::vector<int> withSteps; // report indices that have steps
    for (size_t r = 0; r < reports.size(); ++r) {
        if (!reports[r] || reports[r]->steps.empty()) continue;
        withSteps.push_back(int(r));
        for (const StepStats& st : reports[r]->steps)
            steps.push_back(st.step);
    }
    std::sort(steps.begin(), steps.end());
    steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
    layout.steps = steps;
    layout.ranks = int(withSteps.size());
    if (withSteps.empty()) return layout;
    // Ranks share 80% of a step's width so groups stay apart.
    const double slotWidth = 0.8 / double(layout.ranks);
    layout.barWidth = layout.ranks == 1 ? 0.65 : slotWidth * 0.9;
    for (int i = 0; i < layout.ranks; ++i) {
        const int r = withSteps[size_t(i)];
        const double offset = (double(i) - double(layout.ranks - 1) / 2) * slotWidth;
        const int fallbackRank = rankOfReport(*reports[size_t(r)], r);
        for (const StepStats& st : reports[size_t(r)]->steps) {
            const auto it = std::lower_bound(steps.begin(), steps.end(), st.step);
            StepSlot slot;
            slot.report = r;
            slot.rank = st.rank.value_or(fallbackRank);
            slot.step = st.step;
            slot.lane = i;
            slot.stats = &st;
            slot.key = double(it - steps.begin()) + offset;
            layout.cells.push_back(slot);
        }
    }
    std::stable_sort(layout.cells.begin(), layout.cells.end(),
                     [](const StepSlot& a, const StepSlot& b) { return a.key < b.key; });
    return layout;
}

QString ranksText(const StepLayout& layout, bool compact)
{
    std::set<int> ranks;
    for (const StepSlot& s : layout.cells)
        ranks.insert(s.rank);
    QStringList parts;
    const std::vector<int> list(ranks.begin(), ranks.end());
    for (std::size_t i = 0; i < list.size();) {
        std::size_t j = i;
        while (compact && j + 1 < list.size() && list[j + 1] == list[j] + 1)
            ++j;
        parts << (j > i + 1 ? QStringLiteral("%1-%2").arg(list[i]).arg(list[j])
                            : QString::number(list[i]));
        if (j == i + 1) parts << QString::number(list[j]);
        i = j + 1;
    }
    return (ranks.size() == 1 ? QStringLiteral("rank ") : QStringLiteral("ranks ")) +
           parts.join(QStringLiteral(", "));
}

int slotAtKey(const StepLayout& layout, double x)
{
    const auto it = std::lower_bound(layout.cells.begin(), layout.cells.end(), x,
                                     [](const StepSlot& s, double v) { return s.key < v; });
    int best = -1;
    double bestDist = layout.barWidth / 2;
    for (auto c : {it - 1, it}) {
        if (c < layout.cells.begin() || c >= layout.cells.end()) continue;
        const double d = std::fabs(c->key - x);
        if (d <= bestDist) {
            bestDist = d;
            best = int(c - layout.cells.begin());
        }
    }
    return best;
}

double niceStep(double raw)
{
    if (!(raw > 0) || !std::isfinite(raw)) return 1;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    const double m = raw / p;
    const double nice = m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10;
    return nice * p;
}

QFont monoFont(int pointSize)
{
    QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    f.setPointSize(pointSize);
    return f;
}

QFont titleFont()
{
    QFont f;
    f.setPointSize(11);
    f.setBold(true);
    return f;
}

void legendAsRow(QCustomPlot* plot, int row)
{
    plot->legend->setVisible(true);
    if (QCPLayout* owner = plot->legend->layout()) owner->take(plot->legend);
    plot->plotLayout()->insertRow(row);
    plot->plotLayout()->addElement(row, 0, plot->legend);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setBrush(Qt::NoBrush);
    plot->plotLayout()->setRowStretchFactor(row, 0.001);
    plot->legend->setMargins(QMargins(4, 0, 4, 0));
}

bool fitLegendWrap(QCPLegend* legend, int width)
{
    if (!legend || !legend->visible() || legend->itemCount() == 0) return false;
    std::vector<int> w;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPAbstractLegendItem* it = legend->item(i))
            w.push_back(it->minimumOuterSizeHint().width());
    const QMargins m = legend->margins();
    const int avail = width - m.left() - m.right() - 4;
    const int n = static_cast<int>(w.size());
    // The most columns whose widest row still fits.
    int wrap = 1;
    for (int k = n; k >= 1; --k) {
        int total = (k - 1) * legend->columnSpacing();
        for (int c = 0; c < k; ++c) {
            int col = 0;
            for (int i = c; i < n; i += k)
                col = std::max(col, w[static_cast<std::size_t>(i)]);
            total += col;
        }
        if (total <= avail) {
            wrap = k;
            break;
        }
    }
    if (legend->wrap() == wrap) return false;
    legend->setWrap(wrap);
    legend->setFillOrder(QCPLegend::foColumnsFirst, true);
    return true;
}

bool fitTickCount(QCPAxis* axis)
{
    if (!axis || !axis->axisRect()) return false;
    const QSharedPointer<QCPAxisTicker> ticker = axis->ticker();
    if (!ticker || ticker.dynamicCast<QCPAxisTickerText>()) return false; // one tick per row
    const QFontMetrics fm(axis->tickLabelFont());
    int count = 0;
    if (axis->orientation() == Qt::Vertical) {
        // Labels at least a line and a half apart.
        const int room = std::max(1, axis->axisRect()->height());
        count = std::clamp(room / std::max(1, fm.height() * 3 / 2), 2, 6);
    } else {
        // Labels at least half their width apart.
        int label = fm.horizontalAdvance(QStringLiteral("0000"));
        for (const QString& t : axis->tickVectorLabels())
            label = std::max(label, fm.horizontalAdvance(t));
        const int room = std::max(1, axis->axisRect()->width());
        count = std::clamp(room / std::max(1, label * 3 / 2), 2, 8);
    }
    // A fixed ticker scaling by multiples (the histogram's counts) follows the count too.
    if (ticker->tickCount() == count) return false;
    ticker->setTickCount(count);
    return true;
}

void fitAxisTitle(QCPAxis* axis, const QStringList& variants)
{
    if (!axis || !axis->axisRect() || variants.isEmpty()) return;
    const QFontMetrics fm(axis->labelFont());
    const int room = axis->orientation() == Qt::Vertical ? axis->axisRect()->height()
                                                         : axis->axisRect()->width();
    // Never empty (an empty title would change the margins the layout was made with).
    QString pick = variants.last();
    for (const QString& v : variants)
        if (fm.horizontalAdvance(v) + 4 <= room) {
            pick = v;
            break;
        }
    if (axis->label() != pick) axis->setLabel(pick);
}

namespace {

// A plot's replot put off until it is shown.
class ReplotOnShow : public QObject {
public:
    using QObject::QObject;
    bool pending = false;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::Show && pending) {
            pending = false;
            // Drawn before its first paint: no frame of what it showed before.
            static_cast<QCustomPlot*>(watched)->replot(QCustomPlot::rpQueuedRefresh);
        }
        return false;
    }
};

} // namespace

void replotWhenShown(QCustomPlot* plot, int priority)
{
    // (Not findChild<ReplotOnShow*>: without Q_OBJECT that matches any child, a QCPLayer.)
    ReplotOnShow* deferred = nullptr;
    for (QObject* child : plot->children())
        if ((deferred = dynamic_cast<ReplotOnShow*>(child))) break;
    if (plot->isVisible()) {
        if (deferred) deferred->pending = false;
        plot->replot(static_cast<QCustomPlot::RefreshPriority>(priority));
        return;
    }
    if (!deferred) {
        deferred = new ReplotOnShow(plot);
        plot->installEventFilter(deferred);
    }
    deferred->pending = true;
    // The layout still, without the drawing: the plot's size hints follow its contents (a
    // splitter beside it sizes from them when it is first shown).
    relayout(plot);
}

void relayout(QCustomPlot* plot)
{
    for (auto phase :
         {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout})
        plot->plotLayout()->update(phase);
}

namespace {

// The band of an axis part (label or tick labels) across the axis: scanned with getPartAt at
// the middle of the axis, from the axis rect's edge outwards.
std::pair<int, int> partBand(QCPAxis* axis, QCPAxis::SelectablePart part)
{
    const QRect r = axis->axisRect()->rect();
    const QRect outer = axis->axisRect()->outerRect();
    int lo = 1 << 30, hi = -(1 << 30);
    auto probe = [&](int v, QPointF at) {
        if (axis->getPartAt(at) == part) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    };
    switch (axis->axisType()) {
    case QCPAxis::atLeft:
        for (int x = outer.left(); x < r.left(); ++x)
            probe(x, QPointF(x + 0.5, r.center().y()));
        break;
    case QCPAxis::atRight:
        for (int x = r.right(); x <= outer.right(); ++x)
            probe(x, QPointF(x + 0.5, r.center().y()));
        break;
    case QCPAxis::atBottom:
        for (int y = r.bottom(); y <= outer.bottom(); ++y)
            probe(y, QPointF(r.center().x(), y + 0.5));
        break;
    case QCPAxis::atTop:
        for (int y = outer.top(); y < r.top(); ++y)
            probe(y, QPointF(r.center().x(), y + 0.5));
        break;
    }
    return {lo, hi};
}

} // namespace

std::vector<PlotText> plotTexts(QCustomPlot* plot)
{
    std::vector<PlotText> out;
    for (QCPAxisRect* ar : plot->axisRects()) {
        for (QCPAxis* axis : ar->axes()) {
            if (!axis->visible()) continue;
            const bool vertical = axis->orientation() == Qt::Vertical;
            const QRect r = ar->rect();
            if (!axis->label().isEmpty()) {
                const auto [lo, hi] = partBand(axis, QCPAxis::spAxisLabel);
                const int len = QFontMetrics(axis->labelFont()).horizontalAdvance(axis->label());
                if (hi >= lo) {
                    const QRect rect = vertical
                                           ? QRect(lo, r.center().y() - len / 2, hi - lo + 1, len)
                                           : QRect(r.center().x() - len / 2, lo, len, hi - lo + 1);
                    out.push_back({PlotText::AxisTitle, rect, axis->label(), axis});
                }
            }
            if (axis->tickLabels()) {
                const auto [lo, hi] = partBand(axis, QCPAxis::spTickLabels);
                const QFontMetrics fm(axis->tickLabelFont());
                const QVector<double> ticks = axis->tickVector();
                const QVector<QString> labels = axis->tickVectorLabels();
                for (int i = 0; i < ticks.size() && i < labels.size() && hi >= lo; ++i) {
                    if (!axis->range().contains(ticks[i]) || labels[i].isEmpty()) continue;
                    const int px = static_cast<int>(std::lround(axis->coordToPixel(ticks[i])));
                    const int w = fm.horizontalAdvance(labels[i]);
                    const QRect rect =
                        vertical ? QRect(lo, px - fm.height() / 2, hi - lo + 1, fm.height())
                                 : QRect(px - w / 2, lo, w, hi - lo + 1);
                    out.push_back({PlotText::TickLabel, rect, labels[i], axis});
                }
            }
        }
    }
    if (plot->legend && plot->legend->visible())
        for (int i = 0; i < plot->legend->itemCount(); ++i)
            if (QCPAbstractLegendItem* it = plot->legend->item(i))
                out.push_back({PlotText::LegendItem, it->rect(), QString(), it,
                               it->minimumOuterSizeHint().width()});
    {
        // Text elements anywhere in the layout tree.
        std::vector<QCPLayoutElement*> stack{plot->plotLayout()};
        while (!stack.empty()) {
            QCPLayoutElement* el = stack.back();
            stack.pop_back();
            if (!el) continue;
            if (auto* t = qobject_cast<QCPTextElement*>(el)) {
                if (t->text().isEmpty()) continue;
                const QRect inner = t->rect();
                const QRect text = QFontMetrics(t->font()).boundingRect(QRect(0, 0, 100000, 100000),
                                                                        t->textFlags(), t->text());
                QRect rect(QPoint(0, 0), text.size());
                const int flags = t->textFlags();
                const int x = flags & Qt::AlignLeft    ? inner.left()
                              : flags & Qt::AlignRight ? inner.right() - rect.width()
                                                       : inner.center().x() - rect.width() / 2;
                const int y = flags & Qt::AlignTop      ? inner.top()
                              : flags & Qt::AlignBottom ? inner.bottom() - rect.height()
                                                        : inner.center().y() - rect.height() / 2;
                rect.moveTo(x, y);
                out.push_back({PlotText::TextElement, rect, t->text(), t});
            } else if (auto* grid = qobject_cast<QCPLayout*>(el)) {
                for (int k = 0; k < grid->elementCount(); ++k)
                    stack.push_back(grid->elementAt(k));
            }
        }
    }
    return out;
}

} // namespace rs::plots
