#pragma once

#include "ui/timeline/timelinelayout.h"

#include <QToolBar>

class QAction;
class QLabel;
class QLineEdit;

namespace rs {

class TimelineView;

// The track filter above the timeline: a text box (a name, or a regex with "Regex" on), the
// process kinds to show only (Host, Device, Communication: chips, none checked shows every
// kind), how many tracks are hidden, and Clear.
// Drives TimelineView::setTrackFilterSpec; follows the view when its state is set from the
// sidecar. Pinned tracks are never hidden.
class TrackFilterBar : public QToolBar {
    Q_OBJECT
public:
    explicit TrackFilterBar(TimelineView* view, QWidget* parent = nullptr);

    QLineEdit* textBox() const { return m_text; }
    QAction* regexAction() const { return m_regex; }
    QAction* kindAction(TrackClass kind) const;
    QAction* clearAction() const { return m_clear; }
    QString hiddenText() const;
    void focusText();

public slots:
    void clearFilter();
    // Shows the view's filter (after a trace or sidecar was loaded).
    void syncFromView();

private:
    void apply();

    TimelineView* m_view = nullptr;
    QLineEdit* m_text = nullptr;
    QAction* m_regex = nullptr;
    QAction* m_host = nullptr;
    QAction* m_device = nullptr;
    QAction* m_comm = nullptr;
    QAction* m_clear = nullptr;
    QLabel* m_hidden = nullptr;
    bool m_syncing = false;
};

} // namespace rs
