#pragma once

// Rank x step heatmap of communication time: the job-wide picture in which a rank that copies
// (or waits) in some steps stands out. Clicking a cell asks to select that rank's step.
// It opens on the metric that points at the culprit (extra internal memcpy, else the wait a
// rank caused the others): total communication paints every rank of a bad step alike.

#include "core/analysis/report.h"
#include "core/job/crossrank.h"

#include <QWidget>

#include <map>
#include <optional>
#include <vector>

class QCustomPlot;
class QCPColorMap;
class QComboBox;
class QMouseEvent;

namespace rs {

class Session;

class RankStepHeatmap : public QWidget {
    Q_OBJECT
public:
    // Values match the metric box's rows.
    enum class Metric {
        Communication,
        CommunicationNotOverlapped,
        InternalMemcpy,
        Computing,
        ExtraMemcpy, // internal memcpy above each signature's baseline
        WaitCaused   // wait a delaying rank caused the others (cross-rank report)
    };

    explicit RankStepHeatmap(QWidget* parent = nullptr);
    // Follows the viewer's session (ui/session): fills in as what is open changes.
    void setSession(Session* session);

    // One report per rank (rank-local ids), and the cross-rank report when there is one. Until
    // a metric is chosen (setMetric, the box) it opens on defaultMetric().
    void setReports(std::vector<ReportPtr> reports, const JobReport* job = nullptr);
    void setMetric(Metric m);
    Metric metric() const { return m_metric; }
    // Extra internal memcpy when a rank has some, else wait caused when any, else communication.
    Metric defaultMetric() const;

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
    std::vector<std::vector<double>> m_values;          // [rank][step] ms
    std::map<std::pair<int, int>, TimeNs> m_waitCaused; // (rank, step) -> wait caused
    Metric m_metric = Metric::Communication;
    bool m_metricChosen = false;
    QComboBox* m_metricBox = nullptr;
    QCustomPlot* m_plot = nullptr;
    QCPColorMap* m_map = nullptr;
};

} // namespace rs
