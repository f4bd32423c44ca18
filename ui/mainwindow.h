#pragma once

#include "core/analysis/report.h"
#include "core/traceloadjob.h"

#include <QMainWindow>

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QDockWidget;

namespace rs {

class AnnotationController;
class CallStackPane;
class DetailsPane;
class DistributionView;
class StepsView;
class FindingsPane;
class SearchPane;
class TimelineView;

// The viewer window: timeline in the middle, findings on the left, details / call stack /
// search (and the plots) as tabs at the bottom. Loads on a worker thread, then analyses on
// another; results of superseded jobs are dropped.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens the first path (file or torch_npu folder); the rest go to the recent list.
    void openPaths(const QStringList& paths);
    void openSample();
    void cancelLoad();
    bool isLoading() const;
    bool isAnalyzing() const { return m_analysisRunning; }

    TracePtr trace() const { return m_trace; }
    ReportPtr report() const { return m_report; }
    QString currentPath() const { return m_path; }
    QString lastError() const { return m_lastError; }
    QString statusText() const;

    TimelineView* timeline() const { return m_timeline; }
    DetailsPane* detailsPane() const { return m_details; }
    CallStackPane* callStackPane() const { return m_callStack; }
    FindingsPane* findingsPane() const { return m_findings; }
    SearchPane* searchPane() const { return m_search; }
    QTabWidget* bottomTabs() const { return m_tabs; }
    // Adds a pane as a bottom tab (plots, notes...); its object name is used for the layout.
    void addBottomTab(QWidget* widget, const QString& title);

    void selectEvent(EventId e);
    void zoomToRange(TimeNs t0, TimeNs t1);
    void showFinding(int index);
    // Zooms to a ProfilerStep (by its number) and selects it.
    void showStep(int step);
    StepsView* stepsView() const { return m_steps; }
    AnnotationController* annotations() const { return m_annotations; }
    DistributionView* distributionView() const { return m_distribution; }
    QStringList recentFiles() const;

signals:
    void traceLoaded();
    void loadFailed(const QString& message);
    void analysisFinished();
    void eventSelected(rs::EventId e);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildMenus();
    void onLoaded(const QString& path, std::shared_ptr<LoadResult> result);
    void startAnalysis();
    void onAnalysed(quint64 generation, ReportPtr report, QString error);
    void onEventSelected(EventId e);
    void addRecent(const QString& path);
    void updateRecentMenu();
    void updateStatus();

    TraceLoadJob m_job;
    TracePtr m_trace;
    ReportPtr m_report;
    QString m_path;
    QString m_lastError;
    quint64 m_generation = 0; // bumped per load: analysis results of older loads are dropped
    bool m_analysisRunning = false;

    TimelineView* m_timeline = nullptr;
    DetailsPane* m_details = nullptr;
    CallStackPane* m_callStack = nullptr;
    FindingsPane* m_findings = nullptr;
    SearchPane* m_search = nullptr;
    StepsView* m_steps = nullptr;
    AnnotationController* m_annotations = nullptr;
    DistributionView* m_distribution = nullptr;
    QTabWidget* m_tabs = nullptr;
    QDockWidget* m_bottomDock = nullptr;
    QDockWidget* m_findingsDock = nullptr;
    QMenu* m_recentMenu = nullptr;
    QAction* m_flaggedOnly = nullptr;
    QAction* m_flows = nullptr;
    QLabel* m_status = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
};

} // namespace rs
