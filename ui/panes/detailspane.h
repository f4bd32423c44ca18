#pragma once

#include "core/analysis/report.h"
#include "core/trace.h"

#include <QWidget>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace rs {

class Session;

class CommBreakdown;
class ElidedLabel;

// Everything about the selected event: name, category, process/thread, times, self time,
// args as a tree and the analysis verdict in words. When the event is evidence of a finding
// (or a finding was picked in the Findings pane), the finding first: its title, the fix with
// the source frame to change, and its evidence as links.
class DetailsPane : public QWidget {
    Q_OBJECT
public:
    explicit DetailsPane(QWidget* parent = nullptr);
    // Follows the viewer's session (ui/session): fills in as what is open changes.
    void setSession(Session* session);

    void setTrace(TracePtr trace);
    void setReport(ReportPtr report);
    // The event's finding is shown with it (flagged::findingOf).
    void setEvent(EventId e);
    EventId event() const { return m_event; }
    // Shows that finding (index into the report's findings) over the selected event's; -1 none.
    void setFinding(int index);
    int finding() const { return m_finding; }
    // The finding's block as plain text (title, fix, source, evidence); empty without one.
    QString findingText() const { return m_findingText; }
    // The finding's block in rich text: evidence links "event:N".
    static QString findingHtml(const Trace& trace, const AnalysisReport& report, int index);
    // All shown text (fields, args, verdict), one line per row; for tests and copying.
    QString text() const;
    QTreeWidget* tree() const { return m_tree; }
    // A collective's time breakdown and link utilisation (hidden for other events).
    CommBreakdown* commBreakdown() const { return m_comm; }
    // The selected event's name above the fields (elided, whole in its tooltip).
    ElidedLabel* titleLabel() const { return m_title; }

    // Verdict of an event in words, empty when the analysis says nothing about it.
    static QString verdictText(const Trace& trace, const AnalysisReport& report, EventId e);
    // Duration minus the time of its direct children on the same track.
    static TimeNs selfTime(const Trace& trace, EventId e);
    // The verdict as shown: rich text where each quoted finding title is a link "finding:N"
    // (N its index in report.findings).
    static QString verdictHtml(const QString& verdict, const AnalysisReport& report);

signals:
    // A finding named in the verdict was clicked (index in the report's findings).
    void findingRequested(int index);
    // An evidence event of the shown finding was clicked.
    void eventRequested(rs::EventId e);

private:
    void refresh();

    TracePtr m_trace;
    ReportPtr m_report;
    EventId m_event = kNone;
    int m_finding = -1;
    ElidedLabel* m_title = nullptr;
    QLabel* m_findingLabel = nullptr;
    QString m_findingText; // plain, for text()
    QLabel* m_verdict = nullptr;
    QString m_verdictText; // plain, for text()
    QTreeWidget* m_tree = nullptr;
    CommBreakdown* m_comm = nullptr;
};

} // namespace rs
