#pragma once

#include "core/analysis/report.h"

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace rs {

class Session;

// All findings of the analysis, grouped by rule with a count ("collective-extra-memcpy · 2"),
// the most severe group first; each finding's title wraps to the pane's width (never elided: the
// verb and the op stay readable). Activating one asks the window to zoom to its evidence and
// select its main event.
class FindingsPane : public QWidget {
    Q_OBJECT
public:
    explicit FindingsPane(QWidget* parent = nullptr);
    // Follows the viewer's session (ui/session): fills in as what is open changes.
    void setSession(Session* session);

    void setReport(ReportPtr report);
    // While the analysis runs (or failed), a line instead of the list.
    void setStatus(const QString& text);
    enum Column { TitleColumn, RankColumn };
    QTreeWidget* tree() const { return m_tree; }
    // Findings listed (not counting the rule groups' rows).
    int count() const;
    // The row of the index-th finding of the report (under its rule's group), or nullptr.
    QTreeWidgetItem* itemOf(int index) const;
    // Rule groups, in the order shown.
    int groupCount() const { return m_tree->topLevelItemCount(); }
    // Highlights (selects and scrolls to) the finding an event is evidence of, without
    // activating it: its main event first, else any of its events; none clears the highlight.
    // Returns its index in the report's findings, or -1.
    int highlightEvent(EventId e);
    int highlighted() const;

signals:
    void findingActivated(int index);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitColumns();
    void activate(QTreeWidgetItem* item);
    // Error and warning severities in the theme's inks (again on a theme change).
    void updateSeverityColors();

    ReportPtr m_report;
    // The event last highlighted, again once a report comes (it may come after the
    // selection: the panes take a report one per pass); none after a report-less reset.
    EventId m_highlightEvent = kNone;
    bool m_layoutPending = false;
    QLabel* m_status = nullptr;
    QTreeWidget* m_tree = nullptr;
};

} // namespace rs
