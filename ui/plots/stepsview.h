#pragma once

// Per-step time breakdown: stacked bars (computing alone, overlapped, communication not
// overlapped, free) per step and rank, computing vs communication below (one rank: lines;
// several: a point per rank under its bar over a band per step from the lowest rank to the
// highest), and the spread of each figure across steps printed beside the plot.

#include "core/analysis/report.h"
#include "core/job/whatif.h"
#include "ui/plots/plotstyle.h"

#include <QStringList>
#include <QWidget>

#include <optional>
#include <utility>
#include <vector>

class QCustomPlot;
class QCPAxis;
class QCPAxisRect;
class QCPBars;
class QCPGraph;
class QCPItemRect;
class QCPTextElement;
class QCPLayoutGrid;
class QMouseEvent;

namespace rs {

class Session;

struct ThemePalette;

class StepsView : public QWidget {
    Q_OBJECT
public:
    // Stack order, bottom to top. Computing includes the overlapped part (msprof-analyze's
    // definition), so the stack is computing - overlapped, overlapped, communication not
    // overlapped, free: its top is the step's wall time.
    enum Series { ComputingOnly, Overlapped, CommNotOverlapped, Free, SeriesCount };

    explicit StepsView(QWidget* parent = nullptr);
    // Follows the viewer's session (ui/session): fills in as what is open changes.
    void setSession(Session* session);
    // Below this the charts, the spread table and the legend no longer all fit.
    static QSize minimumPlotSize() { return QSize(640, 300); }

    // One report per rank; steps of several ranks are grouped by step number, ranks side by side.
    void setReports(std::vector<ReportPtr> reports);
    const std::vector<ReportPtr>& reports() const { return m_reports; }

    QCustomPlot* plot() const { return m_plot; }
    QCPAxisRect* barsRect() const { return m_barsRect; }
    QCPAxisRect* linesRect() const { return m_linesRect; }
    QCPBars* bars(Series s) const { return m_bars[s]; }
    // Computing / communication lines of the i-th rank that has steps.
    QCPGraph* computingGraph(int rankIndex) const;
    QCPGraph* communicationGraph(int rankIndex) const;
    const plots::StepLayout& layout() const { return m_layout; }
    // The spread table printed beside the plot.
    QString spreadText() const;
    // The fill of a series in a theme (what the bars show after a theme change).
    static QColor seriesColor(Series s, const ThemePalette& palette);

    // Tooltip text at a position of plot() (empty when nothing is there).
    QString toolTipAt(const QPoint& pos) const;
    // Slot index (into layout().cells) under a position of plot(), or -1.
    int slotAt(const QPoint& pos) const;
    std::optional<std::pair<int, int>> highlightedStep() const; // rank, step

    // The what-if's answer (ui/panes/whatifdialog.h) over the bars: per step the job's
    // measured time and the predicted one, a line each ("measured step", "predicted: LABEL");
    // empty clears them. Kept across new reports of the same steps until cleared.
    void setPrediction(std::vector<StepPrediction> steps, const QString& label = {});
    const std::vector<StepPrediction>& prediction() const { return m_prediction; }
    QCPGraph* predictedGraph() const { return m_predicted; }
    QCPGraph* measuredGraph() const { return m_measured; }

signals:
    void stepClicked(int rank, int step);

public slots:
    // Outlines the bars of that step (no signal); clears the highlight when not found.
    void highlightStep(int rank, int step);

private:
    void rebuild();
    // Data colours (bars, lines, highlight) from the palette; called on theme changes.
    void restyle(const ThemePalette& palette);
    void onMousePress(QMouseEvent* event);
    void onMouseMove(QMouseEvent* event);
    void applyHighlight(int slot);
    void showContextMenu(const QPoint& pos);
    // After each layout (on screen or in an export): legend rows, tick counts, axis titles,
    // step labels thinned to the axis' width, the spread table whole.
    void fitTexts();
    // Every how many steps a label fits under the lower chart (labels never run together).
    bool fitStepLabels();
    // The spread table in the room beside the charts: compact form and smaller type first,
    // never cut at the top or bottom. True when the text changed.
    bool fitSpread();
    void setStepTicker(int every);

public:
    // Every how many steps the x axis labels a step (1: each step).
    int stepLabelEvery() const { return m_labelEvery; }
    // The spread table's point size and whether it is in its compact form.
    double spreadPointSize() const;
    QRect spreadRect() const;
    QSize spreadTextSize() const;

private:
    // Per step of the layout: its measured and predicted point (the what-if), when set.
    void addPrediction(double* maxTotal);

    std::vector<ReportPtr> m_reports;
    std::vector<StepPrediction> m_prediction;
    QString m_predictionLabel;
    QCPGraph* m_measured = nullptr;
    QCPGraph* m_predicted = nullptr;
    plots::StepLayout m_layout;
    QCustomPlot* m_plot = nullptr;
    QCPTextElement* m_title = nullptr;
    QCPTextElement* m_spread = nullptr;
    QCPLayoutGrid* m_spreadSide = nullptr; // the room beside the charts
    bool m_spreadCompact = false;
    int m_labelEvery = 1;
    QCPAxisRect* m_barsRect = nullptr;
    QCPAxisRect* m_linesRect = nullptr;
    QCPBars* m_bars[SeriesCount] = {};
    std::vector<QCPGraph*> m_computing, m_communication;
    // Several ranks: per series (computing, communication) the low and high edge of each step's
    // band, filled between.
    std::vector<QCPGraph*> m_spans;
    QCPItemRect* m_bandTop = nullptr;
    QCPItemRect* m_bandBottom = nullptr;
    QCPItemRect* m_outline = nullptr;
    int m_highlight = -1;
    // Each axis title's variants, longest first: the longest that fits the axis is shown.
    std::vector<std::pair<QCPAxis*, QStringList>> m_axisTitles;
};

} // namespace rs
