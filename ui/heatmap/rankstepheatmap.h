#pragma once

// Rank x step heatmap of communication time: the job-wide picture in which a rank that copies
// (or waits) in some steps stands out. Clicking a cell asks to select that rank's step.

#include "core/analysis/report.h"

#include <QWidget>

#include <optional>
#include <vector>

class QCustomPlot;
class QCPColorMap;
class QComboBox;
class QMouseEvent;

namespace rs {

class RankStepHeatmap : public QWidget {
    Q_OBJECT
public:
    enum class Metric { Communication, CommunicationNotOverlapped, InternalMemcpy, Computing };

    explicit RankStepHeatmap(QWidget* parent = nullptr);

    // One report per rank.
    void setReports(std::vector<ReportPtr> reports);
    void setMetric(Metric m);
    Metric metric() const { return m_metric; }

    QCustomPlot* plot() const { return m_plot; }
    QCPColorMap* colorMap() const { return m_map; }
    const std::vector<int>& steps() const { return m_steps; }
    const std::vector<int>& ranks() const { return m_ranks; }
    // Value in ms of a cell (NaN when the rank has no such step).
    double valueMs(int rankIndex, int stepIndex) const;
    // Cell (rank index, step index) under a position of plot(), if any.
    std::optional<std::pair<int, int>> cellAt(const QPoint& pos) const;
    // Pixel centre of a cell in plot() coordinates.
    QPoint cellCenter(int rankIndex, int stepIndex) const;

signals:
    void cellClicked(int rank, int step);

private:
    void rebuild();
    void onMousePress(QMouseEvent* e);
    void onMouseMove(QMouseEvent* e);

    std::vector<ReportPtr> m_reports;
    std::vector<int> m_steps, m_ranks;
    std::vector<std::vector<double>> m_values; // [rank][step] ms
    Metric m_metric = Metric::Communication;
    QComboBox* m_metricBox = nullptr;
    QCustomPlot* m_plot = nullptr;
    QCPColorMap* m_map = nullptr;
};

} // namespace rs
