#pragma once

#include "core/analysis/report.h"
#include "core/trace.h"

#include <QWidget>

#include <functional>
#include <vector>

class QTreeWidget;
class QTreeWidgetItem;

namespace rs {

class Session;

class ElidedLabel;

// The call-stack chain of the selected event, innermost first. Clicking a frame that stands
// for a slice asks the window to select and reveal it. When the event (or its collective) is
// evidence of a finding that names a source frame, that frame is marked with the fix
// ("← allocate aligned here") and scrolled to.
class CallStackPane : public QWidget {
    Q_OBJECT
public:
    using Provider = std::function<std::vector<StackEntry>(const Trace&, EventId)>;

    explicit CallStackPane(QWidget* parent = nullptr);
    // Follows the viewer's session (ui/session): fills in as what is open changes.
    void setSession(Session* session);

    // Where chains come from (the analysis' callStack); the default walks enclosing slices
    // and incoming flows only.
    void setProvider(Provider provider);
    void setTrace(TracePtr trace);
    void setReport(ReportPtr report);
    void setEvent(EventId e);
    // The row of the frame to fix (-1 when none is marked) and its mark's words.
    int markedRow() const { return m_marked; }
    QString markText() const { return m_markText; }
    EventId event() const { return m_event; }
    // The frames shown: enclosing steps (slices of kind Step) are left out (a step is no frame
    // of the call; the header names it).
    const std::vector<StackEntry>& entries() const { return m_entries; }
    QTreeWidget* tree() const { return m_tree; }
    QString text() const;

    // Enclosing slices, then the sources of incoming flows and their enclosing slices.
    static std::vector<StackEntry> basicChain(const Trace& trace, EventId e,
                                              std::size_t maxDepth = 128);

signals:
    void frameActivated(rs::EventId e);

private:
    void refresh();

    TracePtr m_trace;
    ReportPtr m_report;
    EventId m_event = kNone;
    int m_marked = -1;
    QString m_markText;
    Provider m_provider;
    std::vector<StackEntry> m_entries;
    EventId m_pending = kNone; // a clicked frame, selected on the next event-loop turn
    ElidedLabel* m_header = nullptr;
    QTreeWidget* m_tree = nullptr;
};

} // namespace rs
