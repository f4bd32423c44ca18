#include "ui/panes/criticalpathcontroller.h"

#include "ui/mainwindow.h"
#include "ui/panes/criticalpathpane.h"
#include "ui/panes/findingspane.h"
#include "ui/panes/whatifdialog.h"
#include "ui/plots/stepsview.h"
#include "ui/timeline/timelineview.h"

#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QTabWidget>
#include <QTreeWidget>

namespace rs {

namespace {

QMenu* menuNamed(QMainWindow* window, const QString& name)
{
    for (QAction* a : window->menuBar()->actions())
        if (a->menu() && a->text().remove('&') == name) return a->menu();
    return window->menuBar()->addMenu(name);
}

} // namespace

CriticalPathController::CriticalPathController(MainWindow* window)
    : QObject(window), m_window(window)
{
    m_pane = new CriticalPathPane(window);
    m_pane->setObjectName(QStringLiteral("criticalPath"));
    m_pane->setSession(window->session());
    window->addBottomTab(m_pane, tr("Critical path"));

    m_toggle = new QAction(tr("Critical &path over the tracks"), window);
    m_toggle->setObjectName(QStringLiteral("criticalPathToggle"));
    m_toggle->setCheckable(true);
    m_toggle->setShortcut(QKeySequence(tr("Ctrl+Shift+P")));
    m_toggle->setShortcutContext(Qt::WindowShortcut);
    m_toggle->setToolTip(tr("Draw each step's critical path over the tracks: a band per segment "
                            "in its kind's colour, connectors where it jumps to another rank"));
    QMenu* view = menuNamed(window, QStringLiteral("View"));
    // Beside the other drawing options, before the docks' toggles.
    QAction* before = nullptr;
    for (QAction* a : view->actions())
        if (a->isSeparator()) {
            before = a;
            break;
        }
    view->insertAction(before, m_toggle);
    window->addAction(m_toggle);
    connect(m_toggle, &QAction::toggled, this, [this](bool on) {
        setShown(on);
        QSettings().setValue(QStringLiteral("view/criticalPath"), on);
    });

    m_whatIfAction = new QAction(tr("&What if…"), window);
    m_whatIfAction->setObjectName(QStringLiteral("whatIfAction"));
    m_whatIfAction->setShortcut(QKeySequence(tr("Ctrl+Shift+W")));
    menuNamed(window, QStringLiteral("Analyze"))->addAction(m_whatIfAction);
    window->addAction(m_whatIfAction);
    connect(m_whatIfAction, &QAction::triggered, this, [this] { whatIf(); });

    connect(m_pane, &CriticalPathPane::layerChanged, this, [this] { repaintTimeline(); });
    // From the tab: a step that waited on an internal memcpy asks first what removing it gains.
    connect(m_pane, &CriticalPathPane::whatIfRequested, this, [this] {
        WhatIfChange c;
        if (const StepPath* p = m_pane->currentPath())
            c.removeInternalMemcpy = p->byKind[std::size_t(PathKind::InternalMemcpy)] > 0;
        whatIf(c);
    });
    connect(m_pane, &CriticalPathPane::segmentActivated, this, [this](TimeNs a, TimeNs b, EventId) {
        const TimeNs pad = std::max<TimeNs>((b - a) / 8, 100);
        m_window->timeline()->zoomToRange(a - pad, b + pad);
    });
    installFindingsMenu();
    m_toggle->setChecked(QSettings().value(QStringLiteral("view/criticalPath"), false).toBool());
}

void CriticalPathController::setShown(bool on)
{
    TimelineRenderer& r = m_window->timeline()->renderer();
    if (on) {
        // The pane's layer at paint time: a new report swaps it without touching the renderer.
        r.setPathOverlay([pane = m_pane](QPainter& p, const TimelineGeometry& g,
                                         const TimelineRenderer& renderer) {
            if (const auto layer = pane->layer(); layer && layer->trace() == renderer.trace())
                layer->paint(p, g, renderer);
        });
    } else {
        r.setPathOverlay({});
    }
    if (m_toggle->isChecked() != on) m_toggle->setChecked(on);
    repaintTimeline();
}

bool CriticalPathController::isShown() const
{
    return bool(m_window->timeline()->renderer().pathOverlay());
}

void CriticalPathController::repaintTimeline()
{
    // The view caches its frame; a setter that repaints drops it (as the annotations do).
    TimelineView* v = m_window->timeline();
    v->setShowFlows(v->renderer().showFlows());
}

bool CriticalPathController::isMemcpyFinding(const Finding& f)
{
    return f.rule.find("memcpy") != std::string::npos || f.rule == "job-rank-delays-collective";
}

WhatIfChange CriticalPathController::memcpyChange(const Finding& f)
{
    WhatIfChange c;
    c.removeInternalMemcpy = true;
    if (f.rank)
        c.rank = f.rank;
    else if (f.eventsRank)
        c.rank = f.eventsRank; // a job finding's events are the delaying rank's
    return c;
}

WhatIfDialog* CriticalPathController::whatIf(const WhatIfChange& preset, bool runNow)
{
    if (!m_dialog) {
        m_dialog = new WhatIfDialog(m_window->session(), m_window);
        connect(m_dialog, &WhatIfDialog::predicted, this,
                [this](const WhatIfResult& r, const QString& description) {
                    m_window->stepsView()->setPrediction(r.steps, description);
                    m_window->setPanesCollapsed(false);
                    m_window->bottomTabs()->setCurrentWidget(m_window->stepsView());
                });
        connect(m_dialog, &WhatIfDialog::cleared, this,
                [this] { m_window->stepsView()->setPrediction({}); });
    }
    m_dialog->setChange(preset);
    m_dialog->show();
    m_dialog->raise();
    if (runNow) m_dialog->run();
    return m_dialog;
}

void CriticalPathController::installFindingsMenu()
{
    QTreeWidget* tree = m_window->findingsPane()->tree();
    tree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(tree, &QTreeWidget::customContextMenuRequested, this, [this, tree](const QPoint& pos) {
        const ReportPtr report = m_window->report();
        QTreeWidgetItem* item = tree->itemAt(pos);
        if (!report || !item) return;
        FindingsPane* pane = m_window->findingsPane();
        int index = -1;
        for (int i = 0; i < int(report->findings.size()) && index < 0; ++i)
            if (pane->itemOf(i) == item) index = i;
        if (index < 0) return;
        const Finding& f = report->findings[std::size_t(index)];
        QMenu menu(tree);
        QAction* show = menu.addAction(tr("Show"));
        QAction* what = nullptr;
        if (isMemcpyFinding(f))
            what = menu.addAction(tr("What if this internal memcpy were gone…"));
        menu.addAction(m_whatIfAction);
        QAction* chosen = menu.exec(tree->viewport()->mapToGlobal(pos));
        if (chosen == show) emit pane->findingActivated(index);
        if (what && chosen == what) whatIf(memcpyChange(f), true);
    });
}

} // namespace rs
