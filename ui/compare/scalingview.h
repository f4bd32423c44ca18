#pragma once

// Scaling across card counts: efficiency (left axis, %, with the ideal 100% line) and mean
// step time (right axis, ms) against the cards of each run (log2 axis), the first run the
// baseline. Right-click exports PNG / SVG / PDF like the other plots; exportScalingPlot()
// renders it headless. ScalingWindow loads the runs (File > Compare…, "Scaling").

#include "core/compare/runcompare.h"
#include "ui/session/loadrelay.h"

#include <QString>
#include <QWidget>

#include <atomic>
#include <memory>
#include <vector>

class QCustomPlot;
class QCPGraph;
class QCPTextElement;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace rs {

struct ThemePalette;

struct JobProgress;

class ScalingView : public QWidget {
    Q_OBJECT
public:
    explicit ScalingView(QWidget* parent = nullptr);

    void setPoints(std::vector<ScalingPoint> points, bool weak);
    const std::vector<ScalingPoint>& points() const { return m_points; }
    bool weak() const { return m_weak; }

    QCustomPlot* plot() const { return m_plot; }
    QCPGraph* efficiencyGraph() const { return m_efficiency; }
    QCPGraph* stepTimeGraph() const { return m_stepTime; }
    // x of a card count on the plot (log2 of the cards).
    static double keyOf(int cards);
    QString toolTipAt(const QPoint& pos) const;

private:
    void rebuild();
    // Data colours from the palette; called on theme changes.
    void restyle(const ThemePalette& palette);
    void showContextMenu(const QPoint& pos);

    std::vector<ScalingPoint> m_points;
    bool m_weak = false;
    QCustomPlot* m_plot = nullptr;
    QCPTextElement* m_title = nullptr;
    QCPGraph* m_efficiency = nullptr;
    QCPGraph* m_stepTime = nullptr;
    QCPGraph* m_ideal = nullptr;
};

// Renders the scaling view into a PNG, SVG or PDF (by suffix); needs a QApplication (makes
// an offscreen one when none exists, like exportPlot).
bool exportScalingPlot(const std::vector<ScalingPoint>& points, bool weak, const QString& file,
                       QSize size, QString* error);

class ScalingWindow : public QWidget {
    Q_OBJECT
public:
    explicit ScalingWindow(QWidget* parent = nullptr);
    ~ScalingWindow() override;

    // Loads and digests the runs one after the other on a worker thread (the first is the
    // baseline), then shows them.
    void measure(const QStringList& runs, bool weak);
    void setDigests(std::vector<RunDigest> runs, bool weak);
    void cancelLoad();
    bool isLoading() const { return m_loading; }
    QString lastError() const { return m_lastError; }
    ScalingView* view() const { return m_view; }
    QTableWidget* table() const { return m_table; }

signals:
    void loaded();
    void loadFailed(const QString& message);

private:
    void showProgress(); // runs done plus the bytes read of the one loading, pushed
    ScalingView* m_view = nullptr;
    QTableWidget* m_table = nullptr;
    QLabel* m_status = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    std::shared_ptr<JobProgress> m_progressState;
    std::shared_ptr<std::atomic<int>> m_runsDone;
    int m_runCount = 0;
    LoadGeneration m_generation; // the load in flight (a newer one or a cancel drops it)
    bool m_loading = false;
    QString m_lastError;
};

} // namespace rs
