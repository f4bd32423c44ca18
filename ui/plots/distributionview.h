#pragma once

// Durations of the collectives of one signature group: a histogram and a strip/box plot
// per duration mode (points coloured by internal memcpy and anomaly, mode means marked A,
// B, ...), plus the share of each step's time spent in internal memcpy.

#include "core/analysis/report.h"
#include "ui/plots/plotstyle.h"

#include <QStringList>
#include <QWidget>

#include <optional>
#include <vector>

class QComboBox;
class QCustomPlot;
class QCPAbstractItem;
class QCPAxis;
class QCPAxisRect;
class QCPBars;
class QCPGraph;
class QCPItemStraightLine;
class QCPStatisticalBox;
class QCPTextElement;
class QMouseEvent;

namespace rs {

class Session;

struct ThemePalette;

class DistributionView : public QWidget {
    Q_OBJECT
public:
    // Precedence: anomalous, then waiting (slow because a peer was late), then memcpy.
    enum PointClass { NoMemcpy, Waiting, InternalMemcpy, Anomalous, PointClassCount };
    static PointClass classOf(const Collective& c);
    // The colour of a class in a theme (bars and points show it after a theme change).
    static QColor classColor(PointClass c, const ThemePalette& palette);

    // A signature group of one report (the combo box lists them).
    struct Group {
        int report = 0;
        std::uint32_t signature = 0;
        int anomalous = 0;
        TimeNs total = 0;
    };
    // One plotted collective.
    struct Point {
        int report = 0;
        std::uint32_t collective = 0; // index into the report's collectives
        double x = 0;                 // duration, ms
        double y = 0;                 // mode row plus jitter
        int row = 0;                  // duration mode (0 = A)
        PointClass cls = NoMemcpy;
    };

    explicit DistributionView(QWidget* parent = nullptr);
    // Follows the viewer's session (ui/session): fills in as what is open changes.
    void setSession(Session* session);

    // One report per rank. Opens on the group with most anomalous ops (then most total time).
    void setReports(std::vector<ReportPtr> reports);
    const std::vector<ReportPtr>& reports() const { return m_reports; }

    const std::vector<Group>& groups() const { return m_groups; }
    int currentGroup() const { return m_current; }
    void setCurrentGroup(int index);
    QComboBox* groupCombo() const { return m_combo; }

    QCustomPlot* plot() const { return m_plot; }
    QCPAxisRect* histogramRect() const { return m_histRect; }
    QCPAxisRect* stripRect() const { return m_stripRect; }
    QCPAxisRect* shareRect() const { return m_shareRect; }
    QCPBars* histogram(PointClass c) const { return m_hist[c]; }
    QCPGraph* points(PointClass c) const { return m_points[c]; }
    QCPStatisticalBox* boxes() const { return m_boxes; }
    QCPBars* memcpyShare() const { return m_share; }
    const std::vector<Point>& plottedPoints() const { return m_pointList; }
    double binWidth() const { return m_binWidth; } // ms
    // Mode marks: letter and mean (ms) of each duration mode of the current group.
    std::vector<std::pair<QString, double>> modeMarks() const { return m_modeMarks; }
    const plots::StepLayout& shareLayout() const { return m_shareLayout; }

    QString toolTipAt(const QPoint& pos) const;
    int pointAt(const QPoint& pos) const; // index into plottedPoints(), or -1
    std::optional<EventId> highlightedCollective() const;

signals:
    void collectiveClicked(rs::EventId event);
    // Same click with the report (rank) it belongs to, for several ranks.
    void collectiveClickedInReport(int reportIndex, rs::EventId event);
    // A bar of the memcpy-share chart.
    void stepClicked(int rank, int step);

public slots:
    // Rings the point of the collective whose op (or host op, task, copy) is event, switching
    // to its signature group; no signal. Clears the ring when no collective matches.
    void highlightCollective(rs::EventId event);

private:
    void rebuild();
    // Data colours (bars, points, boxes, marks) from the palette; called on theme changes.
    void restyle(const ThemePalette& palette);
    void clearItems();
    void updateHighlight();
    void onMousePress(QMouseEvent* event);
    void onMouseMove(QMouseEvent* event);
    void showContextMenu(const QPoint& pos);
    const Collective* collectiveOfPoint(const Point& p) const;
    // After each layout (on screen or in an export): legend rows, tick counts, axis titles.
    void fitTexts();

    std::vector<ReportPtr> m_reports;
    std::vector<Group> m_groups;
    int m_current = -1;
    QComboBox* m_combo = nullptr;
    QCustomPlot* m_plot = nullptr;
    QCPTextElement* m_title = nullptr;
    QCPTextElement* m_summary = nullptr;
    QCPAxisRect* m_histRect = nullptr;
    QCPAxisRect* m_stripRect = nullptr;
    QCPAxisRect* m_shareRect = nullptr;
    QCPBars* m_hist[PointClassCount] = {};
    QCPGraph* m_points[PointClassCount] = {};
    QCPStatisticalBox* m_boxes = nullptr;
    QCPBars* m_share = nullptr;
    QCPBars* m_shareExtra = nullptr; // the bars of a rank and step with an extra copy
    QCPGraph* m_ring = nullptr;
    QCPItemStraightLine* m_histMark = nullptr;
    std::vector<QCPAbstractItem*> m_items; // mode marks, rebuilt with the group
    QCPAbstractItem* m_shareNote = nullptr;
    std::vector<Point> m_pointList;
    std::vector<std::pair<QString, double>> m_modeMarks;
    double m_binStart = 0, m_binWidth = 1;
    plots::StepLayout m_shareLayout;
    // Each axis title's variants, longest first: the longest that fits the axis is shown.
    std::vector<std::pair<QCPAxis*, QStringList>> m_axisTitles;
    int m_hlReport = -1;
    std::uint32_t m_hlCollective = 0;
};

} // namespace rs
