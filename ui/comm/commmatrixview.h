#pragma once

// The Communication tab: the rank x rank communication matrix as a heatmap (bytes, GB/s,
// utilisation against the link's peak, transport) for a scope (step, op group, group), with
// the clicked cell's transfers listed beside it. Clicking a cell or a row asks to select its
// transfer tasks on the timeline. Works on one rank's report and on a job's per-rank reports.

#include "core/analysis/report.h"
#include "ui/comm/commmatrixmodel.h"

#include <QColor>
#include <QWidget>

#include <cmath>

#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QCPColorGradient;
class QCPColorMap;
class QCPColorScale;
class QCPItemRect;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QMouseEvent;
class QTreeWidget;

namespace rs {

class Session;

struct ThemePalette;

class CommMatrixView : public QWidget {
    Q_OBJECT
public:
    explicit CommMatrixView(QWidget* parent = nullptr);
    // Follows the viewer's session (ui/session): fills in as what is open changes.
    void setSession(Session* session);

    // One report per rank; the task ids in them are what transfersSelected() carries.
    void setReports(std::vector<ReportPtr> reports);
    void setMetric(CommMatrixModel::Metric m);
    // step: none = all steps; opGroup: empty = every op type's total; group: empty = all.
    void setScope(std::optional<int> step, const QString& opGroup, const QString& group = {});
    // Shows a cell's transfers (by rank) and emits transfersSelected; false when it is empty.
    bool selectCell(int src, int dst);

    CommMatrixModel* model() const { return m_model; }
    QCustomPlot* plot() const { return m_plot; }
    QCPColorMap* colorMap() const { return m_map; }
    QTreeWidget* transferList() const { return m_list; }
    std::optional<std::pair<int, int>> selectedCell() const { return m_selected; }
    // Cell (src, dst) under a position of plot(), if any; pixel centre of a cell.
    std::optional<std::pair<int, int>> cellAt(const QPoint& pos) const;
    QPoint cellCenter(int src, int dst) const;
    // The widgets a layout check looks at: the scope controls, the axes' labels, the scale.
    std::vector<QWidget*> controls() const;
    // Cell value labels drawn now (hidden when the cells are too small for them).
    int visibleCellLabels() const;
    std::vector<QCPItemText*> cellLabels() const { return m_labels; }
    // "Ranks not loaded": a job's peers no loaded rank speaks for, off by default.
    QCheckBox* unloadedRanksBox() const { return m_unloadedBox; }
    // The colour scale's range (the diagonal's self traffic is not in it): in MB and GB/s
    // centred on the links' median (linkMedian()).
    double scaleUpper() const;
    double linkMedian() const { return m_linkMedian; }
    // Colours of a theme: a transport (CommMatrixModel::transportNames() order) and the ramp.
    static QColor transportColor(int index, const ThemePalette& palette);
    static QCPColorGradient gradientOf(CommMatrixModel::Metric metric, const ThemePalette& palette);

signals:
    // The transfer tasks of the clicked cell or list row (ids of the reports given).
    void transfersSelected(const std::vector<rs::EventId>& tasks);

private:
    void rebuild();
    // Data colours (ramp, cell values, mark) from the palette; called on theme changes.
    void restyle(const ThemePalette& palette);
    void refillCombos();
    void applyCombos();
    void fillList();
    void updateLabels();
    void onMousePress(QMouseEvent* e);
    void onMouseMove(QMouseEvent* e);

    CommMatrixModel* m_model = nullptr;
    QComboBox* m_metricBox = nullptr;
    QComboBox* m_stepBox = nullptr;
    QComboBox* m_opBox = nullptr;
    QComboBox* m_groupBox = nullptr;
    QCheckBox* m_unloadedBox = nullptr;
    std::vector<QCPItemRect*> m_selfCells; // the diagonal: a rank with itself, drawn apart
    std::vector<double> m_selfValues;      // their values, in m_selfCells' order
    std::vector<QColor> m_selfColors;      // their fills (invalid: hatched)
    // The links' and the self cells' medians and half-ranges (the diverging GB/s scale).
    double m_linkMedian = NAN, m_linkSpread = 1, m_selfMedian = NAN, m_selfSpread = 1;
    QLabel* m_groupLabel = nullptr;
    QLabel* m_note = nullptr;
    QLabel* m_cellTitle = nullptr;
    QCustomPlot* m_plot = nullptr;
    QCPColorMap* m_map = nullptr;
    QCPColorScale* m_scale = nullptr;
    QCPItemRect* m_mark = nullptr;
    std::vector<QCPItemText*> m_labels;
    QTreeWidget* m_list = nullptr;
    std::optional<std::pair<int, int>> m_selected;
};

} // namespace rs
