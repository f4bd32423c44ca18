#include "ui/plots/plotstyle.h"

#include "ui/theme/theme.h"

#include <qcustomplot.h>

#include <QFontDatabase>

#include <algorithm>
#include <cmath>
#include <map>

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

} // namespace rs::plots
