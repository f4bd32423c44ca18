#pragma once

// The Statistics tab: the tables of `ringscope stats` (core/stats/stats.h) for the open trace or
// job, over the whole trace or the timeline's selection (a range picked on the ruler, or an area
// Shift+dragged over the tracks). Sortable columns, a filter box, a "By" selector, per rank for
// a job; Copy (selected rows as TSV), Export CSV, Export area image; the `ringscope stats`
// command that gives the same numbers. Double-click a row to list its occurrences and step
// through them on the timeline (N / P, Next / Previous, or the list).

#include "core/job/jobtrace.h"
#include "core/stats/stats.h"
#include "ui/job/jobsession.h"
#include "ui/timeline/timelineview.h"

#include <QList>
#include <QPointer>
#include <QWidget>

#include <optional>

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QMainWindow;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace rs {

class Session;

class AnnotationStore;
class StatsTableModel;

class StatsPane : public QWidget {
    Q_OBJECT
public:
    enum class Scope { Whole, Selection };

    explicit StatsPane(QWidget* parent = nullptr);
    // Follows the viewer's session (ui/session): fills in as what is open changes.
    void setSession(Session* session);

    // The trace (with its report once analysed; for a job the merged trace and its session).
    // path: what the command line would be given.
    void setData(TracePtr trace, ReportPtr report, JobSessionPtr session, const QString& path);
    // Follows the view's range and area, and steps through occurrences on it.
    void setTimeline(TimelineView* view);
    // Annotations drawn in the area's export image.
    void setAnnotationStore(const AnnotationStore* store) { m_store = store; }
    // Adds File > Export area… to the window's File menu.
    void installActions(QMainWindow* window);

    void setGroup(StatsGroup by);
    StatsGroup group() const { return m_by; }
    void setPerRank(bool on);
    void setScope(Scope scope);
    Scope scope() const { return m_scope; }
    // The selection the Selection scope uses: a ruler range (all tracks) or an area.
    void setSelectionRange(TimeNs t0, TimeNs t1);
    void setSelectionArea(const TimelineArea& area);
    const TimelineArea& selectionArea() const { return m_area; }

    // What the table shows and how it was computed.
    const StatsTable& table() const;
    StatsOptions options() const;
    std::vector<StatsSource> sources() const;
    // `ringscope stats PATH --by ... [--range A:B] [--per-rank]` for the scope shown.
    QString cliCommand() const;

    // Header and the selected rows (all rows when none is selected), tab-separated, in ns.
    QString selectedRowsTsv() const;
    void copySelection() const;
    // The rows passing the filter in the table's order, as `stats --csv` writes them.
    QString csvText() const;
    // Rows of the table (its order) as core's statsToCsv writes them.
    QString rowsCsv(const QList<int>& proxyRows) const;
    bool exportCsv(const QString& file, QString* error) const;
    // The area's range over its tracks only, as File > Export writes a timeline.
    bool exportAreaImage(const QString& file, QString* error) const;

    // Occurrences of a row of the table (a row of the view, after sort and filter).
    void showOccurrences(int viewRow);
    int occurrenceCount() const { return int(m_occurrences.size()); }
    int currentOccurrence() const { return m_occurrence; }
    // Selects the next (+1) / previous (-1) occurrence and zooms the timeline to it.
    bool stepOccurrence(int direction);
    const std::vector<StatsOccurrence>& occurrences() const { return m_occurrences; }

    QTableView* tableView() const { return m_table; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    StatsTableModel* model() const { return m_model; }
    QLineEdit* filterEdit() const { return m_filter; }
    QComboBox* byBox() const { return m_byBox; }
    QComboBox* scopeBox() const { return m_scopeBox; }
    QLineEdit* commandLine() const { return m_command; }
    QLabel* scopeLabel() const { return m_scopeLabel; }
    QListWidget* occurrenceList() const { return m_occList; }
    QLabel* occurrenceLabel() const { return m_occLabel; }

protected:
    void showEvent(QShowEvent* event) override;

signals:
    // An occurrence was selected on the timeline.
    void occurrenceShown(rs::EventId e);

private:
    // Marks the table stale; computes it now when the tab shows (else when it is shown or
    // read), so a hidden tab costs nothing on a large trace.
    void recompute();
    void ensureComputed() const;
    void compute();
    void updateScopeText();
    void showOccurrence(int i);
    QString rankText(std::size_t source) const;

    TracePtr m_trace;
    ReportPtr m_report;
    JobSessionPtr m_session;
    QString m_path;
    QPointer<TimelineView> m_view;
    const AnnotationStore* m_store = nullptr;
    StatsGroup m_by = StatsGroup::Kernel;
    bool m_perRank = false;
    Scope m_scope = Scope::Whole;
    std::optional<std::pair<TimeNs, TimeNs>> m_range; // ruler range
    TimelineArea m_area;
    std::vector<StatsOccurrence> m_occurrences;
    int m_occurrence = -1;
    std::string m_occName;
    bool m_dirty = true;

    StatsTableModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_table = nullptr;
    QLineEdit* m_filter = nullptr;
    QComboBox* m_byBox = nullptr;
    QComboBox* m_scopeBox = nullptr;
    QCheckBox* m_perRankBox = nullptr;
    QLabel* m_scopeLabel = nullptr;
    QLineEdit* m_command = nullptr;
    QPushButton* m_exportArea = nullptr;
    QAction* m_exportAreaAction = nullptr;
    QLabel* m_occLabel = nullptr;
    QListWidget* m_occList = nullptr;
    QPushButton* m_prev = nullptr;
    QPushButton* m_next = nullptr;
};

} // namespace rs
