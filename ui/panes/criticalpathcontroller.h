#pragma once

// The critical path and the what-if in the viewer (issue 44.3), wired in one place so the
// main window only creates it: the View > Critical path toggle (Ctrl+Shift+P, saved in
// QSettings view/criticalPath) that draws the path over the timeline, the "Critical path" tab,
// Analyze > What if… and the Findings pane's "What if this internal memcpy were gone…", and the
// what-if's prediction in the Steps plot.

#include "core/analysis/report.h"
#include "core/job/whatif.h"

#include <QObject>

class QAction;

namespace rs {

class CriticalPathPane;
class MainWindow;
class WhatIfDialog;

class CriticalPathController : public QObject {
    Q_OBJECT
public:
    explicit CriticalPathController(MainWindow* window);

    CriticalPathPane* pane() const { return m_pane; }
    QAction* toggleAction() const { return m_toggle; }
    QAction* whatIfAction() const { return m_whatIfAction; }
    // The dialog (made on first use), shown with the form as given.
    WhatIfDialog* whatIf(const WhatIfChange& preset = {}, bool runNow = false);
    WhatIfDialog* whatIfDialog() const { return m_dialog; }
    // Whether a finding is about an internal memcpy (its What if… removes it).
    static bool isMemcpyFinding(const Finding& f);
    // The change that removes a finding's internal memcpy (on its rank).
    static WhatIfChange memcpyChange(const Finding& f);

    void setShown(bool on);
    bool isShown() const;

private:
    void installFindingsMenu();
    void repaintTimeline();

    MainWindow* m_window = nullptr;
    CriticalPathPane* m_pane = nullptr;
    WhatIfDialog* m_dialog = nullptr;
    QAction* m_toggle = nullptr;
    QAction* m_whatIfAction = nullptr;
};

} // namespace rs
