#pragma once

// Shared look and arithmetic of the step and distribution plots: colours from the UI guide,
// millisecond formatting, spread statistics and the step slots both views lay out.

#include "core/analysis/report.h"

#include <QColor>
#include <QFont>
#include <QRect>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

class QCustomPlot;
class QCPAxis;
class QCPAxisRect;
class QCPLegend;

namespace rs::plots {

// Colours. Collectives are the blue family, anomalies strong red, internal memcpy orange
// (docs/ui-guide.md); computing is green so it never reads as communication.
namespace colors {
QColor computing();
QColor overlapped();
QColor commNotOverlapped();
QColor free();
QColor computingLine();
QColor communicationLine();
QColor collective(); // collective without internal memcpy
QColor internalMemcpy();
QColor waiting(); // grey: the eye goes to the rank that copies
QColor anomalous();
QColor modeMark();
QColor highlight();     // outline of the selected bar / point
QColor highlightBand(); // faint band behind the selection
} // namespace colors

// Milliseconds as a double, for plot coordinates.
inline double toMs(TimeNs ns)
{
    return double(ns) / 1e6;
}
// Exact figure for tooltips: milliseconds with microsecond resolution ("320.415 ms").
QString formatMsExact(TimeNs ns);
// Short figure for labels: 3 significant digits in ms ("320 ms", "4.20 ms", "0.125 ms").
QString formatMsShort(double ms);

// Min / median / max and coefficient of variation (stddev / mean) of a sample.
struct Spread {
    int n = 0;
    double min = 0, median = 0, max = 0, mean = 0;
    double cv = 0; // population stddev / mean; 0 when the mean is 0
};
Spread spreadOf(std::vector<double> values);

// One bar position of a step plot: a step of one rank. Steps are grouped by step number
// with the ranks side by side inside a group.
struct StepSlot {
    int report = 0; // index into the reports given to the view
    int rank = 0;   // StepStats::rank, else the report index
    int step = 0;
    int lane = 0; // index among the reports that have steps (0 for a single rank)
    const StepStats* stats = nullptr;
    double key = 0; // x coordinate
};
struct StepLayout {
    std::vector<StepSlot> cells; // sorted by key
    std::vector<int> steps;      // distinct step numbers, sorted; group i is centred on x = i
    int ranks = 0;               // number of reports with steps
    double barWidth = 0.7;
};
StepLayout layoutSteps(const std::vector<ReportPtr>& reports);
// Slot whose column contains x (within half a bar width), or -1.
int slotAtKey(const StepLayout& layout, double x);
// "ranks 0, 1, 2" (or "rank 3"; compact: "ranks 0-7, 9"): the ranks of a layout's slots, the
// order their bars stand in each step's group (the plots' legend of the bars side by side).
QString ranksText(const StepLayout& layout, bool compact = false);
// Rank shown for a report: the rank of its first step or collective, else its index.
int rankOfReport(const AnalysisReport& report, int reportIndex);

// Rounds a positive step up to 1, 2 or 5 times a power of ten.
double niceStep(double raw);
QFont monoFont(int pointSize);
QFont titleFont();

// Moves the plot's legend out of the axis rect into a row of its own, filled left to right.
void legendAsRow(QCustomPlot* plot, int row);

// Fitting a plot's texts to the size it is laid out at, on screen and in exports alike (both
// lay out through QCustomPlot::afterLayout):
// - the legend wraps into as many rows as the width needs (no item is cut at the right);
// - a vertical axis gets as many ticks as its height holds without the labels touching;
// - an axis title takes the longest of its variants that fits the axis' length, so a title
//   never runs past its chart into the next one or out of the widget.
// Returns whether the layout must run again.
bool fitLegendWrap(QCPLegend* legend, int width);
bool fitTickCount(QCPAxis* axis);
void fitAxisTitle(QCPAxis* axis, const QStringList& variants);
// Runs the plot's layout again (after a fit changed what it depends on).
void relayout(QCustomPlot* plot);
// Replots plot (with the given priority) while it is in view; out of view (another tab, a
// collapsed pane) when it is next shown: drawing a plot nobody sees cost tens of ms of the GUI
// thread per plot when a big job arrived (docs/performance.md, issue 28.3).
void replotWhenShown(QCustomPlot* plot, int priority = 3 /* QCustomPlot::rpQueuedReplot */);

// Where a plot's texts were drawn by its last layout and paint, for layout tests: axis titles,
// tick labels, legend items and text elements (title, tables), in the plot's pixels.
struct PlotText {
    enum Kind { AxisTitle, TickLabel, LegendItem, TextElement };
    Kind kind;
    QRect rect;
    QString text;
    const void* owner = nullptr; // the axis, legend item or text element (compare only)
    int needWidth = 0;           // a legend item: the width its icon and text need
};
std::vector<PlotText> plotTexts(QCustomPlot* plot);

} // namespace rs::plots
