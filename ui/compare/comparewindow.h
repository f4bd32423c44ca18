#pragma once

// File > Compare…: two runs side by side (before above, after below), their time axes aligned
// by step (step N of one over step N of the other, at the same scale), and the diff table of
// steps, collectives and ops; clicking a row selects that step / op in both runs. Loads both
// runs off the GUI thread with progress and cancel. Exports the pair of timelines as PNG, SVG
// or PDF (and the table as the `ringscope compare` text).

#include "core/compare/runcompare.h"
#include "core/compare/stepalign.h"
#include "ui/compare/comparerun.h"
#include "ui/session/loadrelay.h"

#include <QWidget>

#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableView;
class QCheckBox;

namespace rs {

class CompareFilterModel;
class CompareTableModel;
class TimelineView;

class CompareWindow : public QWidget {
    Q_OBJECT
public:
    explicit CompareWindow(QWidget* parent = nullptr);
    ~CompareWindow() override;

    // Loads both runs (trace file, rank folder or job folder each) on a worker thread.
    void compare(const QString& before, const QString& after);
    // Shows two runs already loaded (tests, or the open trace as BEFORE).
    void setRuns(CompareRunPtr before, CompareRunPtr after);
    void cancelLoad();
    bool isLoading() const { return m_loading; }
    QString lastError() const { return m_lastError; }

    const RunComparison* comparison() const { return m_comparison.get(); }
    const StepAlignment& alignment() const { return m_alignment; }
    CompareRunPtr beforeRun() const { return m_before; }
    CompareRunPtr afterRun() const { return m_after; }
    TimelineView* beforeView() const { return m_views[0]; }
    TimelineView* afterView() const { return m_views[1]; }
    QTableView* table() const { return m_table; }
    CompareTableModel* model() const { return m_model; }
    CompareFilterModel* filterModel() const { return m_filter; }

    // Keeps the two time axes in step (on by default).
    void setLinked(bool on);
    bool linked() const { return m_linked; }
    // Shows step N in both runs at one scale and selects its ProfilerStep.
    bool showStep(int step);
    // Acts on a row of the model (not the proxy): a step, a collective group or an op.
    bool activateRow(int modelRow);
    // What the window opens on: the step whose time changed most, in both runs, with the
    // collective group that changed most selected in it (before: its longest instance in the
    // step; after: the same rank's). Returns that step.
    std::optional<int> focusLargestChange();

    // The two timelines as shown (ranges, collapsed groups, selection) under a header with
    // the step figures; PNG, SVG or PDF by suffix.
    bool writeImage(const QString& file, QString* error) const;

signals:
    void loaded();
    void loadFailed(const QString& message);

private:
    void buildUi();
    void onLoaded(quint64 generation, CompareRunPtr before, CompareRunPtr after);
    void showProgress(); // the bytes read of both runs, pushed as they load
    void syncFrom(int side);
    void updateHeader();
    void exportImage(const QString& suffix);
    // The instance to select on a side: the longest matching event, or on the other side the
    // one nearest the first pick's step-aligned time on the same rank.
    // The after side's pattern of a group (another producer's name when paired by shape).
    static std::string afterPatternOf(const CollectiveDelta& g);
    EventId pickCollective(int side, CollectiveKind kind, const std::string& pattern,
                           EventId reference, std::optional<int> step = std::nullopt) const;
    EventId pickOp(int side, const std::string& name, EventId reference) const;
    void selectPair(EventId before, EventId after);
    // Both views at one scale from the given starts, kept aligned when one is clamped.
    void setAlignedRanges(TimeNs before0, TimeNs after0, TimeNs span);

    CompareRunPtr m_before, m_after;
    std::unique_ptr<RunComparison> m_comparison;
    StepAlignment m_alignment;
    TimelineView* m_views[2] = {};
    QLabel* m_captions[2] = {};
    QLabel* m_header = nullptr;
    QComboBox* m_stepBox = nullptr;
    QCheckBox* m_linkBox = nullptr;
    QComboBox* m_kindBox = nullptr;
    QLineEdit* m_filterEdit = nullptr;
    QTableView* m_table = nullptr;
    CompareTableModel* m_model = nullptr;
    CompareFilterModel* m_filter = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    std::shared_ptr<JobProgress> m_progressState[2];
    LoadGeneration m_generation; // the load in flight (a newer one or a cancel drops it)
    bool m_loading = false;
    bool m_linked = true;
    bool m_syncing = false;
    QString m_lastError;
};

} // namespace rs
