#pragma once

#include "core/analysis/report.h"
#include "ui/job/jobsession.h"
#include "ui/session/session.h"

#include <QMainWindow>

#include <mutex>
#include <optional>

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QDockWidget;
class QTimer;

namespace rs {

class AnnotationController;
class CallStackPane;
class CriticalPathController;
class CommMatrixView;
class DetailsPane;
class DistributionView;
class StepsView;
class FindingsPane;
class RankStepHeatmap;
class SearchPane;
class StatsPane;
class TimelineView;
class TrackFilterBar;
class WarningsPane;
enum class Theme : std::uint8_t;

// The viewer window: timeline in the middle, findings on the left, details / call stack /
// search (and the plots) as tabs at the bottom. What is open is its Session (ui/session),
// which loads and analyses on the pool and drops superseded results; each pane follows the
// session itself. The window builds the docks, menus and status bar.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;
    // The first window's size (no saved geometry): 1400x900, at most 90% of the screen's
    // available area.
    static QSize initialSize(const QRect& available);

    // Opens what the paths hold: one rank (file or torch_npu folder) as a trace, several
    // (files, a job folder) as a job whose ranks load in parallel and show merged.
    void openPaths(const QStringList& paths);
    void openSample();
    void cancelLoad();
    bool isLoading() const { return m_session->isLoading(); }
    bool isAnalyzing() const { return m_session->isAnalysing(); }

    Session* session() const { return m_session; }
    TracePtr trace() const { return m_session->trace(); }
    ReportPtr report() const { return m_session->report(); }
    QString currentPath() const { return m_session->path(); }
    QString lastError() const { return m_lastError; }
    QString statusText() const;

    TimelineView* timeline() const { return m_timeline; }
    DetailsPane* detailsPane() const { return m_details; }
    CallStackPane* callStackPane() const { return m_callStack; }
    FindingsPane* findingsPane() const { return m_findings; }
    SearchPane* searchPane() const { return m_search; }
    QTabWidget* bottomTabs() const { return m_tabs; }
    // Every load and analysis warning per rank; the status bar's "N warning(s)" opens it.
    WarningsPane* warningsPane() const { return m_warnings; }
    QPushButton* warningsButton() const { return m_warningsButton; }
    // "cause 1 of 2: rank 0 copies its input (extra Memcpy 200 ms) · step 42" or "waiting 3 of
    // 14: rank 3 waits 200 ms for rank 0 · step 42" while a flagged collective is selected.
    QLabel* flaggedLabel() const { return m_flaggedLabel; }
    void showWarnings();
    // The bottom panes folded to their tab bar (a trace or job opens so: nothing is selected
    // yet, and the timeline gets the height); a selection, an area or a tab clicked unfolds
    // them.
    void setPanesCollapsed(bool collapsed);
    bool panesCollapsed() const { return m_panesCollapsed; }
    // Adds a pane as a bottom tab (plots, notes...); its object name is used for the layout.
    void addBottomTab(QWidget* widget, const QString& title);

    void selectEvent(EventId e);
    void zoomToRange(TimeNs t0, TimeNs t1);
    void showFinding(int index);
    // Zooms to a ProfilerStep (by its number) and selects it.
    void showStep(int step);
    StepsView* stepsView() const { return m_steps; }
    AnnotationController* annotations() const { return m_annotations; }
    // The critical path's toggle, tab and the what-if (ui/panes/criticalpathcontroller.h).
    CriticalPathController* criticalPath() const { return m_criticalPath; }
    DistributionView* distributionView() const { return m_distribution; }
    CommMatrixView* commView() const { return m_comm; }
    // The Statistics tab (ui/stats): tables of the trace, the ruler range or the area.
    StatsPane* statsPane() const { return m_stats; }
    // Analyze > Link peaks…: edits the stored peaks; accepted, the analysis runs again.
    void editLinkPeaks();
    // Rings the transfer tasks on the timeline, selects the first, shows their span.
    void selectTransfers(const std::vector<EventId>& tasks);
    QStringList recentFiles() const;

    // Jobs (several ranks shown as one merged trace; see ui/job/jobsession.h).
    bool isJob() const { return m_session->isJob(); }
    JobSessionPtr jobSession() const { return m_session->job(); }
    RankStepHeatmap* heatmap() const { return m_heatmap; }
    QAction* compactAction() const { return m_compact; }
    TrackFilterBar* trackFilterBar() const { return m_trackFilter; }
    // View > Theme: applies it to the whole application and saves it (QSettings view/theme).
    void setTheme(Theme theme);
    QAction* alignAction() const { return m_align; }
    QAction* offsetsAction() const { return m_offsets; }
    bool isRebuilding() const { return m_session->isRebuilding(); }
    // New clock offsets per rank (ns, in the job's rank order): the merged trace is rebuilt on
    // a worker thread, keeping the selection and the visible range; emits jobRebuilt().
    void setRankOffsets(const std::vector<TimeNs>& offsets);
    // Lines the ranks up on the cross-rank instance of the selected collective.
    bool alignOnSelectedCollective();
    // Opens the "Rank offsets" table; applies it when accepted.
    void editRankOffsets();
    // Zooms to one rank's step and selects its ProfilerStep slice.
    void showRankStep(int rank, int step);
    // A job opened from rank summaries: the ranks whose trace (as the summary recorded it) is
    // on this machine, and opening one of them as a trace (false when it is not there).
    std::vector<int> reachableRankTraces() const;
    bool openRankTrace(int rank);
    QAction* openRankTraceAction() const { return m_openRankTrace; }

signals:
    void traceLoaded();
    void loadFailed(const QString& message);
    void analysisFinished();
    void eventSelected(rs::EventId e);
    void jobRebuilt();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    // A pane made, named (the layout is saved by name), following the session, and with a tab
    // title added as a bottom tab: one line each.
    template <typename Pane> Pane* addPane(const char* name, const QString& tab = {})
    {
        auto* pane = new Pane(this);
        pane->setObjectName(QString::fromLatin1(name));
        pane->setSession(m_session);
        if (!tab.isEmpty()) m_tabs->addTab(pane, tab);
        return pane;
    }
    void buildMenus();
    // The session's changes the window itself follows (title, status bar, tabs, dialogs).
    void onOpening(Session::Kind kind, const QString& name, int ranks);
    void onProgress(qint64 done, qint64 total, int ranksDone, int ranks);
    void onTraceOpened();
    void onAnalysed();
    void onOpenFailed(const QString& message);
    void onCancelled();
    // The status bar's progress bar (busy: no range) and Cancel button.
    void showProgress(bool on, bool busy = false);
    void startAnalysis();
    void onEventSelected(EventId e);
    void addRecent(const QString& path);
    void updateRecentMenu();
    void updateRecentMenu(const QStringList& list);
    // The recent list as last set, while its write to the settings is pending (all windows).
    struct RecentWrites {
        QStringList list;
        std::uint64_t version = 0, written = 0; // of the list set last, of the one written last
        bool pending() const { return written < version; }
    };
    static RecentWrites& recentWrites();
    // Writes the newest recent list to the settings when a write is pending (pool or close).
    static void writeRecent();
    static std::mutex& recentMutex();
    void updateStatus();
    void setJobUi(bool job);
    void updateJobActions();
    // N / P feedback for the selected event: where it is among the flagged collectives, its
    // rank (and whether N / P just moved to another one), its finding highlighted.
    void updateFlaggedFeedback(EventId e, bool stepped);
    std::optional<int> rankOfEvent(EventId e) const;
    // Compact mode set for a newly opened trace or job (the menu follows, nothing is saved).
    void setCompactQuietly(bool on);

    Session* m_session = nullptr;
    QString m_sampleDir; // this process's copy of the bundled sample, removed at exit
    QString m_lastError;
    QString m_openingName;  // what the open in flight is called (status bar, messages)
    bool m_rebuilt = false; // the last analysis came from new offsets (jobRebuilt)

    TimelineView* m_timeline = nullptr;
    DetailsPane* m_details = nullptr;
    CallStackPane* m_callStack = nullptr;
    FindingsPane* m_findings = nullptr;
    SearchPane* m_search = nullptr;
    StepsView* m_steps = nullptr;
    AnnotationController* m_annotations = nullptr;
    CriticalPathController* m_criticalPath = nullptr;
    DistributionView* m_distribution = nullptr;
    QTabWidget* m_tabs = nullptr;
    QDockWidget* m_bottomDock = nullptr;
    QDockWidget* m_findingsDock = nullptr;
    QMenu* m_recentMenu = nullptr;
    QAction* m_flaggedOnly = nullptr;
    QAction* m_flows = nullptr;
    QAction* m_compact = nullptr;
    TrackFilterBar* m_trackFilter = nullptr;
    QMenu* m_themeMenu = nullptr;
    QAction* m_align = nullptr;
    QAction* m_openRankTrace = nullptr;
    QAction* m_offsets = nullptr;
    RankStepHeatmap* m_heatmap = nullptr;
    CommMatrixView* m_comm = nullptr;
    StatsPane* m_stats = nullptr;
    QLabel* m_status = nullptr;
    WarningsPane* m_warnings = nullptr;
    QPushButton* m_warningsButton = nullptr;
    QLabel* m_flaggedLabel = nullptr;
    bool m_panesCollapsed = false;
    int m_panesHeight = 0; // the unfolded panes' height to come back to
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
};

} // namespace rs
