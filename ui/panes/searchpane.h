#pragma once

#include "core/trace.h"

#include <QWidget>

#include <vector>

class QCheckBox;
class QLabel;
class QLineEdit;
class QTreeWidget;

namespace rs {

class Session;

// Substring or regex search over event names with a results list and next/previous.
class SearchPane : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxListed = 5000; // rows in the list; next/previous walk all matches

    explicit SearchPane(QWidget* parent = nullptr);
    // Follows the viewer's session (ui/session): fills in as what is open changes.
    void setSession(Session* session);

    void setTrace(TracePtr trace);
    // Runs the search (also triggered by typing); returns the number of matches.
    int search(const QString& pattern, bool regex = false);
    const std::vector<EventId>& results() const { return m_results; }
    int current() const { return m_current; }
    void next();
    void previous();
    void focusInput();
    QLineEdit* input() const { return m_input; }
    QTreeWidget* list() const { return m_list; }

    // Events whose name contains pattern (case-insensitive) or matches the regex, in time order.
    static std::vector<EventId> find(const Trace& trace, const QString& pattern, bool regex,
                                     QString* error = nullptr);

signals:
    void resultActivated(rs::EventId e);
    void resultsChanged(const std::vector<rs::EventId>& results);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rerun();
    void activate(int i);

    TracePtr m_trace;
    std::vector<EventId> m_results;
    int m_current = -1;
    QLineEdit* m_input = nullptr;
    QCheckBox* m_regex = nullptr;
    QLabel* m_count = nullptr;
    QTreeWidget* m_list = nullptr;
};

} // namespace rs
