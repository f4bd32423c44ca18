#include "ui/mainwindow.h"
#include "ui/appidentity.h"

#include "core/analysis/analyzer.h"
#include "core/workpool.h"
#include "ui/annotations/annotationcontroller.h"
#include "ui/annotations/notespane.h"
#include "ui/comm/commmatrixview.h"
#include "ui/compare/comparedialog.h"
#include "ui/heatmap/rankstepheatmap.h"
#include "ui/job/rankoffsetsdialog.h"
#include "ui/panes/callstackpane.h"
#include "ui/panes/criticalpathcontroller.h"
#include "ui/panes/detailspane.h"
#include "ui/panes/findingspane.h"
#include "ui/panes/searchpane.h"
#include "ui/panes/warningspane.h"
#include "ui/plots/distributionview.h"
#include "ui/plots/plotstyle.h"
#include "ui/plots/stepsview.h"
#include "ui/session/flagged.h"
#include "ui/settings/linkpeaksdialog.h"
#include "ui/stats/statspane.h"
#include "ui/theme/theme.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/trackfilterbar.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>

#include <algorithm>
#include <exception>
#include <limits>
#include <set>
#include <utility>

// The resources live in a static library: make sure the linker keeps them.
static void initRingscopeResources()
{
    Q_INIT_RESOURCE(resources);
}

namespace rs {

namespace {
constexpr int kMaxRecent = 10;

// The name shown for a trace or job path (its last part, whatever separators end it).
QString shownName(const QString& path)
{
    const QString clean = QDir::cleanPath(path);
    const QString name = QFileInfo(clean).fileName();
    return name.isEmpty() ? clean : name;
}
} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("Ringscope"));
    // The first window fits its screen (a 1280x800 laptop cut the Steps tab at 1400x900); a
    // saved geometry replaces it below.
    if (const QScreen* s = screen() ? screen() : QGuiApplication::primaryScreen()) {
        const QRect avail = s->availableGeometry();
        const QSize size = initialSize(avail);
        setGeometry(QRect(avail.center() - QPoint(size.width() / 2, size.height() / 2), size));
    } else {
        resize(initialSize(QRect()));
    }
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    applyTheme(savedTheme()); // before the widgets, so they start in it

    // What is open (ui/session). The window's own slots first: they set the compact mode
    // before the timeline lays a new trace out. Each pane follows the session itself.
    m_session = new Session(this);
    connect(m_session, &Session::opening, this, &MainWindow::onOpening);
    connect(m_session, &Session::progress, this, &MainWindow::onProgress);
    connect(m_session, &Session::traceLoaded, this, &MainWindow::onTraceOpened);
    connect(m_session, &Session::traceReplaced, this, [this] { m_rebuilt = true; });
    connect(m_session, &Session::failed, this, &MainWindow::onOpenFailed);
    connect(m_session, &Session::cancelled, this, &MainWindow::onCancelled);
    connect(m_session, &Session::rebuildFailed, this, [this] {
        showProgress(false);
        m_status->setText(tr("Could not move the ranks onto the new offsets"));
        emit jobRebuilt();
    });

    m_timeline = new TimelineView(this);
    m_timeline->setSession(m_session);
    m_timeline->setObjectName(QStringLiteral("timeline"));
    setCentralWidget(m_timeline);
    connect(m_timeline, &TimelineView::tracePainted, m_session, &Session::viewPainted);
    m_trackFilter = new TrackFilterBar(m_timeline, this);
    addToolBar(Qt::TopToolBarArea, m_trackFilter);

    // Each pane follows the session itself (its setSession: what is open, the report, the one
    // selection and the step navigator): one line each.
    m_details = addPane<DetailsPane>("details");
    m_callStack = addPane<CallStackPane>("callStack");
    m_callStack->setProvider([](const Trace& t, EventId e) { return callStack(t, e, 256); });
    m_search = addPane<SearchPane>("search");
    m_findings = addPane<FindingsPane>("findings");
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("bottomTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_details, tr("Details"));
    m_tabs->addTab(m_callStack, tr("Call stack"));
    m_tabs->addTab(m_search, tr("Search"));
    m_steps = addPane<StepsView>("steps", tr("Steps"));
    m_distribution = addPane<DistributionView>("distribution", tr("Distribution"));
    m_comm = addPane<CommMatrixView>("communication", tr("Communication"));
    m_stats = addPane<StatsPane>("statistics", tr("Statistics")); // follows range and area too
    m_stats->setTimeline(m_timeline);
    m_warnings = addPane<WarningsPane>("warnings", tr("Warnings"));
    // The "Ranks" tab is added while a job is open.
    m_heatmap = addPane<RankStepHeatmap>("ranks");
    m_heatmap->setVisible(false);
    m_bottomDock = new QDockWidget(tr("Panes"), this);
    m_bottomDock->setObjectName(QStringLiteral("panesDock"));
    m_bottomDock->setWidget(m_tabs);
    addDockWidget(Qt::BottomDockWidgetArea, m_bottomDock);
    m_findingsDock = new QDockWidget(tr("Findings"), this);
    m_findingsDock->setObjectName(QStringLiteral("findingsDock"));
    m_findingsDock->setWidget(m_findings);
    addDockWidget(Qt::LeftDockWidgetArea, m_findingsDock);
    resizeDocks({m_bottomDock}, {260}, Qt::Vertical);
    resizeDocks({m_findingsDock}, {330}, Qt::Horizontal);

    m_status = new QLabel(this);
    m_status->setMinimumWidth(1); // a long path must not widen the window (its tooltip has it)
    m_progress = new QProgressBar(this);
    m_progress->setVisible(false);
    m_progress->setMaximumWidth(220);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setVisible(false);
    statusBar()->addWidget(m_status, 1);
    m_warningsButton = new QPushButton(this);
    m_warningsButton->setFlat(true);
    m_warningsButton->setObjectName(QStringLiteral("warningsButton"));
    m_warningsButton->setToolTip(tr("Show every load and analysis warning"));
    m_warningsButton->setVisible(false);
    m_flaggedLabel = new QLabel(this);
    m_flaggedLabel->setObjectName(QStringLiteral("flaggedLabel"));
    m_flaggedLabel->setVisible(false);
    statusBar()->addPermanentWidget(m_flaggedLabel);
    statusBar()->addPermanentWidget(m_warningsButton);
    connect(m_warningsButton, &QPushButton::clicked, this, &MainWindow::showWarnings);
    connect(m_warnings, &WarningsPane::countChanged, this, [this](int n) {
        m_warningsButton->setText(tr("%n warning(s)", nullptr, n));
        m_warningsButton->setVisible(n > 0);
    });
    // A tab clicked on the folded panes unfolds them on it.
    connect(m_tabs, &QTabWidget::tabBarClicked, this, [this](int) { setPanesCollapsed(false); });
    // An area made shows its aggregates at once (Perfetto's "current selection").
    connect(m_timeline, &TimelineView::areaSelected, this, [this](const TimelineArea& area) {
        if (!area.valid()) return;
        setPanesCollapsed(false);
        m_tabs->setCurrentWidget(m_stats);
    });
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, this, &MainWindow::cancelLoad);
    // What the window itself does on a selection (the panes follow the session's).
    connect(m_session, &Session::selectionChanged, this, &MainWindow::onEventSelected);
    connect(m_timeline, &TimelineView::flaggedStepped, this,
            [this](EventId e) { updateFlaggedFeedback(e, true); });
    connect(m_findings, &FindingsPane::findingActivated, this, &MainWindow::showFinding);
    connect(m_details, &DetailsPane::findingRequested, this, &MainWindow::showFinding);
    connect(m_comm, &CommMatrixView::transfersSelected, this, &MainWindow::selectTransfers);
    connect(m_search, &SearchPane::resultsChanged, this, [this](const std::vector<EventId>& r) {
        // Ring at most a few thousand: more would only cover the timeline.
        std::vector<EventId> shown(
            r.begin(),
            r.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(r.size(), 5000)));
        m_timeline->setHighlights(std::move(shown));
    });

    buildMenus();
    // Annotations and export (ui/annotations): actions, Notes tab, overlay, unsaved-changes guard.
    m_annotations = new AnnotationController(this, m_timeline);
    if (m_annotations->notesPane()) m_tabs->addTab(m_annotations->notesPane(), tr("Notes"));
    m_stats->setAnnotationStore(m_annotations->store());
    m_stats->installActions(this);
    m_annotations->setSession(m_session);
    m_criticalPath = new CriticalPathController(this); // toggle, tab, What if…
    // The window's public signals, after every pane has followed the session.
    connect(m_session, &Session::traceLoaded, this, [this] {
        updateStatus();
        emit traceLoaded();
    });
    connect(m_session, &Session::analysed, this, &MainWindow::onAnalysed);
    connect(m_session, &Session::analysisFailed, this, [this] { emit analysisFinished(); });
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    // By name: an index moves when tabs are added (the Ranks tab of a job, a helper's pane).
    const QString tab = settings.value(QStringLiteral("window/tabName")).toString();
    for (int i = 0; i < m_tabs->count(); ++i)
        if (!tab.isEmpty() && m_tabs->widget(i)->objectName() == tab) m_tabs->setCurrentIndex(i);
    updateStatus();
}

QSize MainWindow::initialSize(const QRect& available)
{
    if (available.isEmpty()) return {1400, 900};
    return {std::min(1400, available.width() * 9 / 10), std::min(900, available.height() * 9 / 10)};
}

MainWindow::~MainWindow()
{
    if (!m_sampleDir.isEmpty()) QDir(m_sampleDir).removeRecursively();
}

namespace {

template <typename Fn>
QAction* addMenuAction(QMenu* menu, QObject* context, const QString& text, const QKeySequence& keys,
                       Fn fn)
{
    QAction* a = menu->addAction(text);
    a->setShortcut(keys);
    QObject::connect(a, &QAction::triggered, context, fn);
    return a;
}

} // namespace

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    addMenuAction(file, this, tr("&Open file(s)…"), QKeySequence::Open, [this] {
        // Several files (one per rank) open as a job.
        const QStringList paths =
            QFileDialog::getOpenFileNames(this, tr("Open traces"), QString(), traceFileFilter());
        if (!paths.isEmpty()) openPaths(paths);
    });
    // One folder action: a run folder opens as a trace, a folder of ranks as a job.
    addMenuAction(file, this, tr("Open &folder (a run or a job)…"),
                  QKeySequence(tr("Ctrl+Shift+O")), [this] {
                      const QString dir = QFileDialog::getExistingDirectory(
                          this, tr("Open a profiler folder, or a job's folder of ranks"));
                      if (!dir.isEmpty()) openPaths({dir});
                  });
    addMenuAction(file, this, tr("Open &sample"), QKeySequence(), [this] { openSample(); });
    // Before/after and scaling comparisons open in their own windows (ui/compare).
    addMenuAction(file, this, tr("&Compare…"), QKeySequence(),
                  [this] { CompareDialog::run(this, currentPath()); });
    m_recentMenu = file->addMenu(tr("&Recent"));
    updateRecentMenu();
    file->addSeparator();
    addMenuAction(file, this, tr("&Quit"), QKeySequence::Quit, [this] { close(); });

    QMenu* view = menuBar()->addMenu(tr("&View"));
    addMenuAction(view, this, tr("Show &all  (0)"), QKeySequence(),
                  [this] { m_timeline->showAll(); });
    m_flaggedOnly = view->addAction(tr("&Flagged only"));
    m_flaggedOnly->setCheckable(true);
    m_flaggedOnly->setShortcut(QKeySequence(tr("Ctrl+Shift+F")));
    connect(m_flaggedOnly, &QAction::toggled, m_timeline, &TimelineView::setFlaggedOnly);
    m_flows = view->addAction(tr("All flow &arrows (else the selected event's)"));
    m_flows->setCheckable(true);
    m_flows->setChecked(false);
    connect(m_flows, &QAction::toggled, m_timeline, &TimelineView::setShowFlows);
    m_compact = view->addAction(tr("&Compact (per rank: steps, collectives, copies, compute)"));
    m_compact->setCheckable(true);
    m_compact->setShortcut(QKeySequence(tr("Ctrl+Shift+C")));
    connect(m_compact, &QAction::toggled, this, [this](bool on) {
        m_timeline->setCompact(on);
        // The user's choice, kept apart for jobs (compact by default) and single traces.
        QSettings().setValue(
            isJob() ? QStringLiteral("view/jobCompact") : QStringLiteral("view/compact"), on);
    });
    // The view leaves compact mode to show an event it left out: the menu follows.
    connect(m_timeline, &TimelineView::compactChanged, this, [this](bool on) {
        const QSignalBlocker block(m_compact);
        m_compact->setChecked(on);
    });
    // The wheel scrolls the tracks (Perfetto, Nsight Systems); who prefers the old way keeps it.
    QAction* wheel = view->addAction(tr("&Wheel zooms (else it scrolls the tracks)"));
    wheel->setObjectName(QStringLiteral("wheelZooms"));
    wheel->setCheckable(true);
    wheel->setChecked(QSettings().value(QStringLiteral("view/wheelZooms"), false).toBool());
    m_timeline->setWheelZooms(wheel->isChecked());
    connect(wheel, &QAction::toggled, this, [this](bool on) {
        m_timeline->setWheelZooms(on);
        QSettings().setValue(QStringLiteral("view/wheelZooms"), on);
    });
    addMenuAction(view, this, tr("Filter &tracks…"), QKeySequence(tr("Ctrl+Shift+T")), [this] {
        m_trackFilter->show();
        m_trackFilter->focusText();
    });
    addMenuAction(view, this, tr("Clear track filter"), QKeySequence(),
                  [this] { m_trackFilter->clearFilter(); });
    m_themeMenu = view->addMenu(tr("T&heme"));
    auto* themes = new QActionGroup(this);
    for (const Theme t : {Theme::System, Theme::Light, Theme::Dark}) {
        QAction* a = m_themeMenu->addAction(t == Theme::System  ? tr("&System")
                                            : t == Theme::Light ? tr("&Light")
                                                                : tr("&Dark"));
        a->setCheckable(true);
        a->setData(static_cast<int>(t));
        a->setChecked(t == currentTheme());
        themes->addAction(a);
        connect(a, &QAction::triggered, this, [this, t] { setTheme(t); });
    }
    view->addSeparator();
    view->addAction(m_findingsDock->toggleViewAction());
    view->addAction(m_bottomDock->toggleViewAction());
    addMenuAction(view, this, tr("&Search…"), QKeySequence::Find, [this] {
        m_bottomDock->show();
        setPanesCollapsed(false);
        m_tabs->setCurrentWidget(m_search);
        m_search->focusInput();
    });

    QMenu* analysis = menuBar()->addMenu(tr("&Analyze"));
    using Walk = TimelineView::FlaggedWalk;
    addMenuAction(analysis, this, tr("&Next cause  (N)"), QKeySequence(),
                  [this] { m_timeline->selectNextFlagged(+1, Walk::Causes); });
    addMenuAction(analysis, this, tr("&Previous cause  (P)"), QKeySequence(),
                  [this] { m_timeline->selectNextFlagged(-1, Walk::Causes); });
    addMenuAction(analysis, this, tr("Next flagged op, waiters too  (Shift+N)"), QKeySequence(),
                  [this] { m_timeline->selectNextFlagged(+1, Walk::All); });
    addMenuAction(analysis, this, tr("&Run analysis again"), QKeySequence(),
                  [this] { startAnalysis(); });
    addMenuAction(analysis, this, tr("Link &peaks…"), QKeySequence(), [this] {
        editLinkPeaks();
    })->setMenuRole(QAction::PreferencesRole);
    analysis->addSeparator();
    m_openRankTrace =
        addMenuAction(analysis, this, tr("Open &rank's trace…"), QKeySequence(), [this] {
            // A job of summaries: the rank's own trace, when the path its summary recorded is here.
            const std::vector<int> ranks = reachableRankTraces();
            if (ranks.empty()) return;
            QStringList items;
            for (int r : ranks)
                items << tr("Rank %1 — %2")
                             .arg(r)
                             .arg(QDir::toNativeSeparators(
                                 QString::fromStdString(jobSession()->rankTracePaths[std::size_t(
                                     jobSession()->job.blockOfRank(r))])));
            bool ok = false;
            const QString item = QInputDialog::getItem(this, tr("Open a rank's trace"), tr("Rank:"),
                                                       items, 0, false, &ok);
            if (ok) openRankTrace(ranks[std::size_t(std::max<qsizetype>(0, items.indexOf(item)))]);
        });
    m_openRankTrace->setObjectName(QStringLiteral("openRankTrace"));
    m_openRankTrace->setEnabled(false);
    m_offsets = addMenuAction(analysis, this, tr("Rank &offsets…"), QKeySequence(),
                              [this] { editRankOffsets(); });
    m_align = addMenuAction(analysis, this, tr("&Align ranks on this collective"), QKeySequence(),
                            [this] { alignOnSelectedCollective(); });
    updateJobActions();

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    addMenuAction(help, this, tr("&Keys and mouse  (?)"), QKeySequence(), [this] {
        m_timeline->setHelpVisible(!m_timeline->helpVisible());
        m_timeline->setFocus();
    });
    addMenuAction(help, this, tr("&About Ringscope"), QKeySequence(), [this] {
        QMessageBox::about(this, tr("About Ringscope"),
                           tr("Ringscope: a timeline viewer for profiler traces of distributed "
                              "training that finds collectives slowed by an extra internal "
                              "Memcpy."));
    });
}

void MainWindow::setTheme(Theme theme)
{
    saveTheme(theme);
    applyTheme(theme); // widgets get a PaletteChange; the timeline and plots restyle on it
    if (m_themeMenu)
        for (QAction* a : m_themeMenu->actions())
            a->setChecked(a->data().toInt() == static_cast<int>(theme));
}

void MainWindow::openSample()
{
    initRingscopeResources();
    // The bundled sample (two ranks) lives in the resources; copied out into a folder of its
    // own so the loader can stream it and the folder opens as the 2-rank job it is.
    // One folder per process: two windows (or tests) never delete each other's copy.
    const QDir temp(QStandardPaths::writableLocation(QStandardPaths::TempLocation));
    m_sampleDir =
        temp.filePath(QStringLiteral("ringscope-%1").arg(QCoreApplication::applicationPid()));
    const QString dir = QDir(m_sampleDir).filePath(QStringLiteral("ringscope-sample"));
    QDir(dir).removeRecursively();
    if (!QDir().mkpath(dir)) return;
    for (const char* name : {"sample_rank0.json", "sample_rank1.json"}) {
        const QString file = QString::fromLatin1(name);
        if (!QFile::copy(QStringLiteral(":/samples/") + file, QDir(dir).filePath(file))) return;
        // Resource copies are read-only; a later removeRecursively() needs to delete them.
        QFile(QDir(dir).filePath(file))
            .setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    }
    openPaths({dir});
}

void MainWindow::openPaths(const QStringList& paths)
{
    if (paths.isEmpty()) return;
    // Unsaved notes on the current trace: save, discard or stay.
    if (trace() && m_annotations && !m_annotations->maybeSave(this)) return;
    m_session->open(paths);
}

void MainWindow::cancelLoad()
{
    m_session->cancel();
    m_status->setText(tr("Cancelling…"));
}

void MainWindow::showProgress(bool on, bool busy)
{
    m_progress->setRange(0, busy ? 0 : 1000);
    m_progress->setValue(0);
    m_progress->setVisible(on);
    m_cancel->setVisible(on && !busy);
}

void MainWindow::onOpening(Session::Kind kind, const QString& name, int ranks)
{
    m_lastError.clear();
    m_openingName = name;
    const QString shown = QDir::toNativeSeparators(name);
    if (kind == Session::Kind::Trace)
        m_status->setText(tr("Loading %1…").arg(shown));
    else if (kind == Session::Kind::Job)
        m_status->setText(tr("Loading %1 ranks of %2…").arg(ranks).arg(shown));
    else
        m_status->setText(tr("Reading %1 rank summaries of %2…").arg(ranks).arg(shown));
    // Summaries are read at once: a busy bar, nothing to cancel.
    showProgress(true, kind == Session::Kind::Summaries);
}

void MainWindow::onProgress(qint64 done, qint64 total, int ranksDone, int ranks)
{
    m_progress->setValue(total > 0 ? static_cast<int>(done * 1000 / total) : 0);
    if (m_session->openingKind() == Session::Kind::Job)
        m_status->setText(tr("Loading and analysing: %1 of %2 ranks…").arg(ranksDone).arg(ranks));
}

void MainWindow::onTraceOpened()
{
    showProgress(false);
    const bool job = isJob();
    setJobUi(job);
    const QString path = currentPath();
    if (job) {
        setWindowTitle(tr("%1 — %2 ranks — Ringscope")
                           .arg(shownName(path))
                           .arg(jobSession()->job.rankCount()));
        // A job opens with every rank in view: the compact job layout, unless the user
        // turned it off for jobs.
        setCompactQuietly(QSettings().value(QStringLiteral("view/jobCompact"), true).toBool());
    } else {
        // A partial load (cut or malformed file) is shown with what was read; the status bar
        // says so.
        if (m_session->isPartial()) m_lastError = m_session->partialMessage();
        setWindowTitle(QStringLiteral("%1 — Ringscope").arg(shownName(path)));
        setCompactQuietly(QSettings().value(QStringLiteral("view/compact"), false).toBool());
    }
    updateFlaggedFeedback(kNone, false);
    setPanesCollapsed(true); // nothing selected yet: the tracks get the height
    // Last: the settings it reads above are not read while the list is written.
    addRecent(job ? m_session->openedPaths().join(QLatin1Char('\n')) : path);
}

void MainWindow::onAnalysed()
{
    showProgress(false);
    const bool rebuilt = std::exchange(m_rebuilt, false);
    updateStatus();
    updateJobActions();
    const QString errors = m_session->jobErrors();
    if (!errors.isEmpty()) {
        m_lastError = errors;
        // Not modal-blocking: the ranks that loaded are open and usable.
        if (!rebuilt) {
            auto* box = new QMessageBox(QMessageBox::Warning, tr("Some ranks could not be opened"),
                                        tr("The other ranks are open.\n%1").arg(errors),
                                        QMessageBox::Ok, this);
            box->setAttribute(Qt::WA_DeleteOnClose);
            box->open();
        }
    }
    emit analysisFinished();
    if (rebuilt) emit jobRebuilt();
}

void MainWindow::onOpenFailed(const QString& message)
{
    showProgress(false);
    m_lastError = message;
    const bool one = m_session->openingKind() == Session::Kind::Trace;
    m_status->setText(one ? tr("Cannot open %1").arg(QDir::toNativeSeparators(m_openingName))
                          : tr("Cannot open the job"));
    // Not modal-blocking: tests and scripted runs must keep going.
    auto* box =
        new QMessageBox(QMessageBox::Warning, one ? tr("Cannot open trace") : tr("Cannot open job"),
                        one ? tr("Cannot open %1:\n%2").arg(m_openingName, m_lastError)
                            : tr("Cannot open the job:\n%1").arg(m_lastError),
                        QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    emit loadFailed(m_lastError);
}

void MainWindow::onCancelled()
{
    showProgress(false);
    m_status->setText(m_session->openingKind() == Session::Kind::Trace
                          ? tr("Loading %1 cancelled").arg(QDir::toNativeSeparators(m_openingName))
                          : tr("Loading the job cancelled"));
    updateStatus();
}

void MainWindow::startAnalysis()
{
    if (!trace()) return;
    // A job is analysed per rank, then across ranks: redo that on the current offsets.
    if (isJob())
        setRankOffsets(jobSession()->job.offsets);
    else
        m_session->reanalyse();
}

void MainWindow::setRankOffsets(const std::vector<TimeNs>& offsets)
{
    if (!isJob()) return;
    // The rebuilt trace reopens the notes: unsaved ones are saved first (or the user stays).
    if (m_annotations && !m_annotations->maybeSave(this)) return;
    // Refused while a job shown early is still analysed (it has no reports to move yet).
    if (!m_session->setRankOffsets(offsets)) return;
    m_status->setText(tr("Moving ranks onto the new clock offsets…"));
}

void MainWindow::selectEvent(EventId e)
{
    m_timeline->selectEvent(e, true);
}

void MainWindow::zoomToRange(TimeNs t0, TimeNs t1)
{
    m_timeline->zoomToRange(t0, t1);
}

void MainWindow::showFinding(int index)
{
    if (!report() || index < 0 || index >= static_cast<int>(report()->findings.size())) return;
    const Finding& f = report()->findings[static_cast<std::size_t>(index)];
    TimeNs a = f.start, b = f.end;
    if (b <= a && !f.events.empty() && f.events.front() < trace()->slices().size()) {
        const Slice& s = trace()->slice(f.events.front());
        a = s.start;
        b = s.end();
    }
    if (b > a) {
        const TimeNs pad = std::max<TimeNs>((b - a) / 8, 100);
        m_timeline->zoomToRange(a - pad, b + pad);
    }
    if (!f.events.empty()) m_timeline->selectEvent(f.events.front(), true);
    // The Details pane shows this finding (its title, fix and evidence), not another one its
    // main event is also evidence of.
    m_details->setFinding(index);
    if (m_details->finding() >= 0) {
        setPanesCollapsed(false);
        m_tabs->setCurrentWidget(m_details);
    }
}

void MainWindow::showStep(int step)
{
    m_timeline->showStep(-1, step);
}

void MainWindow::showRankStep(int rank, int step)
{
    m_timeline->showStep(isJob() ? rank : -1, step);
}

void MainWindow::onEventSelected(EventId e)
{
    // The panes follow the session's selection themselves; the window unfolds them and says
    // where N / P are.
    if (e != kNone) setPanesCollapsed(false);
    updateJobActions();
    updateFlaggedFeedback(e, false);
    emit eventSelected(e);
}

void MainWindow::setCompactQuietly(bool on)
{
    const QSignalBlocker block(m_compact); // not the user's choice: nothing saved
    m_compact->setChecked(on);
    m_timeline->setCompact(on);
}

std::optional<int> MainWindow::rankOfEvent(EventId e) const
{
    return m_session->rankOf(e);
}

void MainWindow::updateFlaggedFeedback(EventId e, bool stepped)
{
    (void)stepped; // the selection said it already; N / P change nothing more
    const auto place = m_timeline->flaggedPlace(e);
    const Collective* c = place && report() ? report()->collectiveOf(e) : nullptr;
    if (!place || !c) {
        m_timeline->setFlaggedChip({});
        m_flaggedLabel->clear();
        m_flaggedLabel->setVisible(false);
        return;
    }
    const std::optional<int> rank = rankOfEvent(e);
    const bool cause = place->role == flagged::Role::Cause;
    // "cause 1 of 2 · rank 0" / "waiting 3 of 14 · rank 5": N / P walk the causes, Shift+N /
    // Shift+P every flagged op; the counts are of each kind.
    QString chip =
        (cause ? tr("cause %1 of %2") : tr("waiting %1 of %2")).arg(place->k).arg(place->n);
    if (rank) chip += tr(" · rank %1").arg(*rank);
    m_timeline->setFlaggedChip(chip);
    const CrossRankCollective* instance = nullptr;
    if (const JobSessionPtr job = jobSession(); job && job->jobReport)
        if (const auto i = job->instanceOf(e); i && *i < job->jobReport->collectives.size())
            instance = &job->jobReport->collectives[*i];
    // "cause 1 of 2: rank 0 copies its input (extra Memcpy 200 ms) · step 42", "waiting 3 of
    // 14: rank 3 waits 200 ms for rank 0 · step 42", and where the other keys go.
    QString text = (cause ? tr("cause %1 of %2: %3") : tr("waiting %1 of %2: %3"))
                       .arg(place->k)
                       .arg(place->n)
                       .arg(flagged::describe(*c, rank, instance));
    if (c->step) text += tr(" · step %1").arg(*c->step);
    text += cause ? tr(" · Shift+N: the ranks that waited") : tr(" · N: the causes");
    m_flaggedLabel->setText(text);
    m_flaggedLabel->setVisible(true);
}

std::vector<int> MainWindow::reachableRankTraces() const
{
    std::vector<int> out;
    if (!isJob() || !jobSession()->fromSummaries()) return out;
    const JobSession& s = *jobSession();
    for (std::size_t b = 0; b < s.rankTracePaths.size() && b < s.job.rankIds.size(); ++b)
        if (QFileInfo::exists(QString::fromStdString(s.rankTracePaths[b])))
            out.push_back(s.job.rankIds[b]);
    return out;
}

bool MainWindow::openRankTrace(int rank)
{
    if (!isJob() || !jobSession()->fromSummaries()) return false;
    const int b = jobSession()->job.blockOfRank(rank);
    if (b < 0 || static_cast<std::size_t>(b) >= jobSession()->rankTracePaths.size()) return false;
    const QString path = QString::fromStdString(jobSession()->rankTracePaths[std::size_t(b)]);
    if (!QFileInfo::exists(path)) {
        m_status->setText(tr("Rank %1's trace is not on this machine: %2")
                              .arg(rank)
                              .arg(QDir::toNativeSeparators(path)));
        return false;
    }
    openPaths({path});
    return true;
}

void MainWindow::setJobUi(bool job)
{
    const int index = m_tabs->indexOf(m_heatmap);
    if (job && index < 0) {
        m_tabs->insertTab(m_tabs->indexOf(m_steps), m_heatmap, tr("Ranks"));
    } else if (!job && index >= 0) {
        m_tabs->removeTab(index);
        m_heatmap->setReports({});
    }
    m_heatmap->setVisible(job && m_tabs->currentWidget() == m_heatmap);
    updateJobActions();
}

void MainWindow::updateJobActions()
{
    if (!m_align) return;
    const bool ready = isJob() && jobSession()->jobReport && !isRebuilding();
    m_offsets->setEnabled(isJob() && !isRebuilding() && !jobSession()->early());
    m_openRankTrace->setEnabled(!reachableRankTraces().empty());
    m_align->setEnabled(ready && jobSession()->instanceOf(m_timeline->selectedEvent()).has_value());
}

bool MainWindow::alignOnSelectedCollective()
{
    if (!isJob() || !jobSession()->jobReport) return false;
    const auto instance = jobSession()->instanceOf(m_timeline->selectedEvent());
    if (!instance) {
        m_status->setText(tr("Select a collective first"));
        return false;
    }
    setRankOffsets(alignOnCollective(*jobSession()->jobReport, *instance));
    return true;
}

void MainWindow::editRankOffsets()
{
    if (!isJob() || jobSession()->early()) return;
    auto* dialog =
        new RankOffsetsDialog(jobSession()->job.rankIds, jobSession()->job.offsets, this);
    dialog->setObjectName(QStringLiteral("rankOffsetsDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    const JobSessionPtr session = jobSession();
    connect(dialog, &QDialog::accepted, this, [this, dialog, session] {
        if (jobSession() == session) setRankOffsets(dialog->offsets());
    });
    dialog->open();
}

void MainWindow::editLinkPeaks()
{
    auto* dialog = new LinkPeaksDialog(linkpeaks::load(), this);
    dialog->setObjectName(QStringLiteral("linkPeaksDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        std::map<std::string, double> peaks;
        if (!dialog->peaks(&peaks)) return;
        linkpeaks::save(peaks);
        // A job keeps no rank traces after merging: it loads again with the new peaks.
        if (isJob() && !m_session->openedPaths().isEmpty())
            openPaths(m_session->openedPaths());
        else
            startAnalysis();
    });
    dialog->open();
}

void MainWindow::selectTransfers(const std::vector<EventId>& tasks)
{
    if (!trace() || tasks.empty()) return;
    TimeNs a = std::numeric_limits<TimeNs>::max(), b = std::numeric_limits<TimeNs>::min();
    std::vector<EventId> valid;
    for (EventId e : tasks) {
        if (e >= trace()->slices().size()) continue;
        valid.push_back(e);
        a = std::min(a, trace()->slice(e).start);
        b = std::max(b, trace()->slice(e).end());
    }
    if (valid.empty()) return;
    m_timeline->setHighlights(valid);
    const TimeNs pad = std::max<TimeNs>((b - a) / 20, 100);
    m_timeline->zoomToRange(a - pad, b + pad);
    m_timeline->selectEvent(valid.front(), true);
}

void MainWindow::addBottomTab(QWidget* widget, const QString& title)
{
    if (widget->objectName().isEmpty()) widget->setObjectName(title);
    m_tabs->addTab(widget, title);
}

QStringList MainWindow::recentFiles() const
{
    {
        const std::lock_guard lock(recentMutex());
        if (recentWrites().pending()) return recentWrites().list; // not in the settings yet
    }
    return QSettings().value(QStringLiteral("recentFiles")).toStringList();
}

void MainWindow::writeRecent()
{
    // One write at a time, each of the newest list: the last one leaves the newest. The GUI
    // thread waits for this lock only when it writes at close.
    static std::mutex writing;
    const std::lock_guard serial(writing);
    QStringList newest;
    std::uint64_t version = 0;
    {
        const std::lock_guard lock(recentMutex());
        if (!recentWrites().pending()) return; // written already (at close, or a later task)
        newest = recentWrites().list;
        version = recentWrites().version;
    }
    {
        QSettings settings;
        settings.setValue(QStringLiteral("recentFiles"), newest);
    }
    const std::lock_guard lock(recentMutex());
    recentWrites().written = std::max(recentWrites().written, version);
}

MainWindow::RecentWrites& MainWindow::recentWrites()
{
    static RecentWrites writes;
    return writes;
}

std::mutex& MainWindow::recentMutex()
{
    static std::mutex mutex;
    return mutex;
}

void MainWindow::addRecent(const QString& path)
{
    // The bundled sample's temporary copy is not worth remembering.
    if (path.contains(QLatin1String("ringscope-sample"))) return;
    QStringList list = recentFiles();
    list.removeAll(path);
    list.prepend(path);
    while (list.size() > kMaxRecent)
        list.removeLast();
    // Written on the WorkPool (the one owner of threads): a QSettings going out of scope writes
    // the whole file under a lock, 16 ms of the GUI thread as a job arrived. The newest list is
    // written last; until then recentFiles() answers from it, and a window that closes first
    // writes it itself (the pool drops what has not started when the application ends).
    {
        const std::lock_guard lock(recentMutex());
        RecentWrites& w = recentWrites();
        w.list = list;
        ++w.version;
    }
    WorkPool::global().post([] { writeRecent(); });
    updateRecentMenu(list);
}

void MainWindow::updateRecentMenu()
{
    updateRecentMenu(recentFiles());
}

void MainWindow::updateRecentMenu(const QStringList& list)
{
    if (!m_recentMenu) return;
    m_recentMenu->clear();
    for (const QString& p : list) {
        // A job given as several files is remembered as one entry, its paths one per line.
        const QStringList paths = p.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        const QString text = paths.size() > 1 ? tr("%1 (+%2 more)")
                                                    .arg(QDir::toNativeSeparators(paths.first()))
                                                    .arg(paths.size() - 1)
                                              : QDir::toNativeSeparators(p);
        addMenuAction(m_recentMenu, this, text, QKeySequence(),
                      [this, paths] { openPaths(paths); });
    }
    m_recentMenu->setEnabled(!list.isEmpty());
}

QString MainWindow::statusText() const
{
    return m_status->text();
}

void MainWindow::updateStatus()
{
    if (!trace()) {
        if (m_status->text().isEmpty())
            m_status->setText(tr("No trace: File > Open, drop a file, or File > Open sample"));
        return;
    }
    const Trace& t = *trace();
    QStringList parts;
    parts << shownName(currentPath());
    if (isJob()) {
        const auto n = static_cast<int>(jobSession()->job.rankCount());
        parts << (n == 1 ? tr("1 rank") : tr("%1 ranks").arg(n));
    }
    if (t.rank()) parts << tr("rank %1").arg(*t.rank());
    parts << tr("%1 events").arg(QLocale().toString(static_cast<qulonglong>(t.stats().events)));
    parts << QString::fromStdString(formatDuration(t.endNs() - t.startNs()));
    // The warning count is the button next to this text (it opens the Warnings pane).
    if (m_session->isPartial() && !isJob())
        parts << tr("partial: %1").arg(m_session->partialMessage());
    if (report()) {
        // Causes and waiters apart: "2 causes · 14 waiting", not "16 flagged".
        const flagged::Counts n = flagged::count(*report());
        parts << tr("%1 collectives")
                     .arg(QLocale().toString(qulonglong(report()->collectives.size())));
        if (n.total() > 0) parts << flagged::countText(n);
    }
    if (isJob() && !jobSession()->errors.empty())
        parts << tr("%1 failed to load")
                     .arg(jobSession()->errors.size() == 1
                              ? tr("1 rank")
                              : tr("%1 ranks").arg(jobSession()->errors.size()));
    m_status->setText(parts.join(QStringLiteral(" · ")));
    m_status->setToolTip(QString::fromStdString(t.path()));
}

void MainWindow::showWarnings()
{
    m_bottomDock->show();
    setPanesCollapsed(false);
    m_tabs->setCurrentWidget(m_warnings);
}

void MainWindow::setPanesCollapsed(bool collapsed)
{
    if (collapsed == m_panesCollapsed) return;
    const int bar = m_tabs->tabBar()->sizeHint().height() + 2;
    if (collapsed) {
        if (m_bottomDock->height() > bar * 2) m_panesHeight = m_bottomDock->height();
        // Only the tab bar: the pages keep their minimum sizes, the maximum wins over them.
        m_tabs->setMaximumHeight(bar);
        resizeDocks({m_bottomDock}, {bar}, Qt::Vertical);
    } else {
        m_tabs->setMaximumHeight(QWIDGETSIZE_MAX);
        const int want = m_panesHeight > bar * 2 ? m_panesHeight : std::max(260, height() * 3 / 10);
        resizeDocks({m_bottomDock}, {want}, Qt::Vertical);
        // The timeline just got shorter: the selection (what unfolded the panes) must stay in
        // view once the new heights are laid out.
        QTimer::singleShot(0, this, [this] {
            if (const EventId e = m_timeline->selectedEvent(); e != kNone)
                m_timeline->revealEvent(e);
        });
    }
    m_panesCollapsed = collapsed;
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    if (QWidget* current = m_tabs->currentWidget())
        settings.setValue(QStringLiteral("window/tabName"), current->objectName());
    m_session->cancel();
    writeRecent(); // a write still queued on the pool is not lost when the application ends
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile()) paths << url.toLocalFile();
    if (!paths.isEmpty()) {
        event->acceptProposedAction();
        openPaths(paths);
    }
}

} // namespace rs
