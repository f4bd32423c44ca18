#pragma once

// Every load and analysis warning of the open trace or job, one row per warning with the rank
// it belongs to: what the status bar counts as "N warning(s)". A cut file says where it was
// cut and how many events were kept.

#include "core/analysis/report.h"
#include "core/trace.h"

#include <QString>
#include <QWidget>

#include <vector>

class QLabel;
class QTreeWidget;

namespace rs {

class Session;

struct WarningEntry {
    QString rank;   // "3", or empty for a single trace
    QString source; // "load" or "analysis"
    QString text;
};

class WarningsPane : public QWidget {
    Q_OBJECT
public:
    explicit WarningsPane(QWidget* parent = nullptr);
    // Follows the viewer's session (ui/session): fills in as what is open changes.
    void setSession(Session* session);

    // One rank: its trace's warnings (plus the cut point of a partial load) and its
    // report's. rank labels the rows (empty for a single trace).
    static std::vector<WarningEntry> entriesOf(const Trace& trace, const AnalysisReport* report,
                                               const QString& rank = {});

    void setEntries(std::vector<WarningEntry> entries);
    const std::vector<WarningEntry>& entries() const { return m_entries; }
    QTreeWidget* tree() const { return m_tree; }
    QString text() const; // all rows, one per line (copy, tests)

signals:
    // The rows changed (followed from the session): the status bar's "N warning(s)".
    void countChanged(int count);

private:
    std::vector<WarningEntry> m_entries;
    QLabel* m_header = nullptr;
    QTreeWidget* m_tree = nullptr;
};

} // namespace rs
