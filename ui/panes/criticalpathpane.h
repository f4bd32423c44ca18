#pragma once

// The "Critical path" pane (issue 44.3): the segments of one step's critical path (a step
// chooser that follows the step of the timeline's selection and the step navigator), each row
// its rank, kind, name, start, duration and share of the step, under a bar of the time per
// kind. Clicking a row selects its event through the session (the timeline reveals it, in a
// job on its rank) and asks the window to zoom to the segment. Builds the path of what the
// session has open as its report arrives (CriticalPathLayer), which the timeline draws too.

#include "core/analysis/report.h"
#include "ui/timeline/criticalpathlayer.h"

#include <QAbstractTableModel>
#include <QWidget>

#include <array>
#include <memory>

class QComboBox;
class QLabel;
class QPushButton;
class QTableView;

namespace rs {

class Session;

// The segments of one step as a table (lazy: a step of thousands of segments costs rows
// painted, not widgets).
class CriticalPathModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { RankColumn, KindColumn, NameColumn, StartColumn, DurationColumn, ShareColumn };
    static constexpr int kColumns = 6;

    using QAbstractTableModel::QAbstractTableModel;
    // origin: the time shown as 0 (the trace's start).
    void setPath(const StepPath* path, TimeNs origin);
    const StepPath* path() const { return m_path; }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    const StepPath* m_path = nullptr;
    TimeNs m_origin = 0;
};

// The time per kind of one step, stacked left to right in the kinds' inks, with a line of
// "kind share" under it.
class PathKindBar : public QWidget {
    Q_OBJECT
public:
    explicit PathKindBar(QWidget* parent = nullptr);
    void setByKind(const std::array<TimeNs, kPathKinds>& byKind);
    const std::array<TimeNs, kPathKinds>& byKind() const { return m_byKind; }
    // Where each kind's part was drawn (empty for a kind with no time), widget coordinates.
    QRectF partRect(PathKind k) const;
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override; // tooltips

private:
    std::array<TimeNs, kPathKinds> m_byKind{};
};

class CriticalPathPane : public QWidget {
    Q_OBJECT
public:
    explicit CriticalPathPane(QWidget* parent = nullptr);
    // Follows the viewer's session (ui/session): the path of what is open, its selection and
    // step navigator.
    void setSession(Session* session);

    // The path of what is open (null while none): the timeline draws the same.
    std::shared_ptr<const CriticalPathLayer> layer() const { return m_layer; }
    void setLayer(std::shared_ptr<const CriticalPathLayer> layer);
    // The step shown; false when the path has no such step.
    bool setStep(int step);
    int step() const { return m_step; }
    const StepPath* currentPath() const;

    QComboBox* stepChooser() const { return m_steps; }
    QTableView* table() const { return m_table; }
    CriticalPathModel* model() const { return m_model; }
    PathKindBar* kindBar() const { return m_bar; }
    QPushButton* whatIfButton() const { return m_whatIf; }
    QString summaryText() const;
    // Selects the row's event (through the session) and emits segmentActivated.
    void activateRow(int row);

signals:
    void layerChanged(std::shared_ptr<const rs::CriticalPathLayer> layer);
    // A row clicked: its span and event (kNone for a gap): the window zooms to it.
    void segmentActivated(rs::TimeNs start, rs::TimeNs end, rs::EventId event);
    void whatIfRequested();

private:
    void rebuildFromSession();
    void showStep();

    Session* m_session = nullptr;
    std::shared_ptr<const CriticalPathLayer> m_layer;
    int m_step = 0;
    QComboBox* m_steps = nullptr;
    QLabel* m_summary = nullptr;
    PathKindBar* m_bar = nullptr;
    QTableView* m_table = nullptr;
    CriticalPathModel* m_model = nullptr;
    QPushButton* m_whatIf = nullptr;
};

} // namespace rs
