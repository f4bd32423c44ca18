#include "ui/mainwindow.h"

#include "core/job/ranksummary.h"

#include "core/analysis/analyzer.h"
#include "core/job/jobloader.h"
#include "core/job/pooltask.h"
#include "ui/annotations/annotationcontroller.h"
#include "ui/annotations/notespane.h"
#include "ui/comm/commmatrixview.h"
#include "ui/compare/comparedialog.h"
#include "ui/heatmap/rankstepheatmap.h"
#include "ui/job/rankoffsetsdialog.h"
#include "ui/panes/callstackpane.h"
#include "ui/panes/detailspane.h"
#include "ui/panes/findingspane.h"
#include "ui/panes/searchpane.h"
#include "ui/panes/warningspane.h"
#include "ui/plots/distributionview.h"
#include "ui/plots/plotstyle.h"
#include "ui/plots/stepsview.h"
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

// An absolute path without a trailing separator: "job/" names the folder "job", not "".
QString absolutePath(const QString& path)
{
    return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

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

    m_timeline = new TimelineView(this);
    m_timeline->setObjectName(QStringLiteral("timeline"));
    setCentralWidget(m_timeline);
    m_trackFilter = new TrackFilterBar(m_timeline, this);
    addToolBar(Qt::TopToolBarArea, m_trackFilter);

    m_details = new DetailsPane(this);
    m_details->setObjectName(QStringLiteral("details"));
    m_callStack = new CallStackPane(this);
    m_callStack->setObjectName(QStringLiteral("callStack"));
    m_callStack->setProvider([](const Trace& t, EventId e) { return callStack(t, e, 256); });
    m_search = new SearchPane(this);
    m_search->setObjectName(QStringLiteral("search"));
    m_findings = new FindingsPane(this);
    m_findings->setObjectName(QStringLiteral("findings"));

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("bottomTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_details, tr("Details"));
    m_tabs->addTab(m_callStack, tr("Call stack"));
    m_tabs->addTab(m_search, tr("Search"));
    m_steps = new StepsView(this);
    m_steps->setObjectName(QStringLiteral("steps"));
    m_tabs->addTab(m_steps, tr("Steps"));
    m_distribution = new DistributionView(this);
    m_distribution->setObjectName(QStringLiteral("distribution"));
    m_tabs->addTab(m_distribution, tr("Distribution"));
    m_comm = new CommMatrixView(this); // ui/comm: the communication matrix of the rank or job
    m_comm->setObjectName(QStringLiteral("communication"));
    m_tabs->addTab(m_comm, tr("Communication"));
    connect(m_comm, &CommMatrixView::transfersSelected, this, &MainWindow::selectTransfers);
    m_stats = new StatsPane(this); // ui/stats: follows the timeline's range and area itself
    m_stats->setObjectName(QStringLiteral("statistics"));
    m_stats->setTimeline(m_timeline);
    m_tabs->addTab(m_stats, tr("Statistics"));
    m_warnings = new WarningsPane(this);
    m_warnings->setObjectName(QStringLiteral("warnings"));
    m_tabs->addTab(m_warnings, tr("Warnings"));
    // The "Ranks" tab is added while a job is open.
    m_heatmap = new RankStepHeatmap(this);
    m_heatmap->setObjectName(QStringLiteral("ranks"));
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
    connect(&m_job, &TraceLoadJob::progress, this, [this](qint64 done, qint64 total) {
        m_progress->setVisible(true);
        m_cancel->setVisible(true);
        m_progress->setRange(0, 1000);
        m_progress->setValue(total > 0 ? static_cast<int>(done * 1000 / total) : 0);
    });
    connect(&m_job, &TraceLoadJob::finished, this, &MainWindow::onLoaded);
    connect(m_heatmap, &RankStepHeatmap::cellClicked, this, &MainWindow::showRankStep);

    connect(m_timeline, &TimelineView::eventSelected, this, &MainWindow::onEventSelected);
    connect(m_timeline, &TimelineView::flaggedStepped, this,
            [this](EventId e) { updateFlaggedFeedback(e, true); });
    connect(m_callStack, &CallStackPane::frameActivated, this, &MainWindow::selectEvent);
    connect(m_findings, &FindingsPane::findingActivated, this, &MainWindow::showFinding);
    connect(m_details, &DetailsPane::findingRequested, this, &MainWindow::showFinding);
    connect(m_search, &SearchPane::resultActivated, this, &MainWindow::selectEvent);
    connect(m_distribution, &DistributionView::collectiveClicked, this, &MainWindow::selectEvent);
    connect(m_distribution, &DistributionView::stepClicked, this, [this](int rank, int step) {
        if (m_session)
            showRankStep(rank, step);
        else
            showStep(step);
    });
    connect(m_steps, &StepsView::stepClicked, this, [this](int rank, int step) {
        if (m_session)
            showRankStep(rank, step);
        else
            showStep(step);
    });
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
    const auto feedStats = [this] { m_stats->setData(m_trace, m_report, m_session, m_path); };
    connect(this, &MainWindow::traceLoaded, m_stats, feedStats);
    connect(this, &MainWindow::analysisFinished, m_stats, feedStats);
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
            QFileDialog::getOpenFileNames(this, tr("Open traces"), QString(),
                                          tr("Traces (*.json *.json.gz *.gz *.db);;All files (*)"));
        if (!paths.isEmpty()) openPaths(paths);
    });
    addMenuAction(file, this, tr("Open &folder…"), QKeySequence(tr("Ctrl+Shift+O")), [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open profiler folder"));
        if (!dir.isEmpty()) openPaths({dir});
    });
    addMenuAction(file, this, tr("Open &job…"), QKeySequence(), [this] {
        const QString dir = QFileDialog::getExistingDirectory(
            this, tr("Open job (a folder of rank traces or rank folders)"));
        if (!dir.isEmpty()) openPaths({dir});
    });
    addMenuAction(file, this, tr("Open &sample"), QKeySequence(), [this] { openSample(); });
    // Before/after and scaling comparisons open in their own windows (ui/compare).
    addMenuAction(file, this, tr("&Compare…"), QKeySequence(),
                  [this] { CompareDialog::run(this, m_path); });
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
            m_session ? QStringLiteral("view/jobCompact") : QStringLiteral("view/compact"), on);
    });
    // The view leaves compact mode to show an event it left out: the menu follows.
    connect(m_timeline, &TimelineView::compactChanged, this, [this](bool on) {
        const QSignalBlocker block(m_compact);
        m_compact->setChecked(on);
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
    addMenuAction(analysis, this, tr("&Next flagged collective  (N)"), QKeySequence(),
                  [this] { m_timeline->selectNextFlagged(+1); });
    addMenuAction(analysis, this, tr("&Previous flagged collective  (P)"), QKeySequence(),
                  [this] { m_timeline->selectNextFlagged(-1); });
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
                                 QString::fromStdString(m_session->rankTracePaths[std::size_t(
                                     m_session->job.blockOfRank(r))])));
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

bool MainWindow::isLoading() const
{
    return m_job.isRunning() || m_jobLoading;
}

void MainWindow::openPaths(const QStringList& paths)
{
    if (paths.isEmpty()) return;
    // Unsaved notes on the current trace: save, discard or stay.
    if (m_trace && m_annotations && !m_annotations->maybeSave(this)) return;
    // Several ranks (files, a job folder, rank folders) open as a job; one as a trace.
    std::vector<std::string> given;
    for (const QString& p : paths)
        given.push_back(absolutePath(p).toStdString());
    // Rank summaries (files, or folders holding them) open as a job without traces.
    const bool summaries = std::all_of(given.begin(), given.end(), isRankSummaryPath);
    if (summaries) {
        std::string findError;
        const std::vector<std::string> files = findRankSummaries(given, &findError);
        const QString name = paths.size() == 1 ? absolutePath(paths.first())
                                               : absolutePath(paths.first()) +
                                                     tr(" (+%1 more)").arg(paths.size() - 1);
        startSummaryJob(files, name, paths);
        return;
    }
    std::string discoverError;
    const std::vector<RankInput> inputs = discoverJob(given, &discoverError);
    if (inputs.size() >= 2) {
        const QString name = paths.size() == 1 ? absolutePath(paths.first())
                                               : absolutePath(paths.first()) +
                                                     tr(" (+%1 more)").arg(paths.size() - 1);
        startJob(inputs, name, paths);
        return;
    }
    // One rank: the folder holding it resolves to its trace; else the loader reports why not.
    const QString path = inputs.size() == 1 ? QString::fromStdString(inputs.front().path)
                                            : absolutePath(paths.first());
    ++m_jobGeneration; // a job still loading or rebuilding is superseded
    if (m_jobProgress) m_jobProgress->requestCancel();
    m_jobLoading = false;
    m_rebuilding = false;
    m_lastError.clear();
    m_status->setText(tr("Loading %1…").arg(QDir::toNativeSeparators(path)));
    m_progress->setValue(0);
    m_progress->setVisible(true);
    m_cancel->setVisible(true);
    m_job.start(path);
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

void MainWindow::cancelLoad()
{
    m_job.cancel();
    if (m_jobProgress) m_jobProgress->requestCancel();
    m_status->setText(tr("Cancelling…"));
}

void MainWindow::onLoaded(const QString& path, std::shared_ptr<LoadResult> result)
{
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    if (result->cancelled()) {
        m_status->setText(tr("Loading %1 cancelled").arg(QDir::toNativeSeparators(path)));
        updateStatus();
        return;
    }
    if (result->failed() || !result->trace) {
        m_lastError = QString::fromStdString(result->message);
        m_status->setText(tr("Cannot open %1").arg(QDir::toNativeSeparators(path)));
        // Not modal-blocking: tests and scripted runs must keep going.
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Cannot open trace"),
                                    tr("Cannot open %1:\n%2").arg(path, m_lastError),
                                    QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        emit loadFailed(m_lastError);
        return;
    }
    // The timeline's index is built on the pool; a newer load meanwhile drops this one.
    const quint64 jobGeneration = m_jobGeneration;
    const TracePtr trace = result->trace;
    runOnPool<std::shared_ptr<const TimelineIndex>>(
        this,
        [trace]() -> std::shared_ptr<const TimelineIndex> {
            try {
                return std::make_shared<TimelineIndex>(trace);
            } catch (const std::exception&) {
                return nullptr; // built on the GUI thread then
            }
        },
        [this, path, result, jobGeneration](std::shared_ptr<const TimelineIndex> index) {
            if (jobGeneration != m_jobGeneration) return;
            showLoaded(path, result, std::move(index));
        });
}

void MainWindow::showLoaded(const QString& path, std::shared_ptr<LoadResult> result,
                            std::shared_ptr<const TimelineIndex> index)
{
    ++m_generation;
    m_session.reset();
    setJobUi(false);
    m_trace = result->trace;
    // A partial load (cut or malformed file) is shown with what was read; the status bar says so.
    m_partial = !result->complete();
    if (m_partial) m_lastError = QString::fromStdString(result->message);
    m_report.reset();
    m_path = path;
    addRecent(path);
    setWindowTitle(QStringLiteral("%1 — Ringscope").arg(shownName(path)));
    m_timeline->setProcessRanks({});
    setCompactQuietly(QSettings().value(QStringLiteral("view/compact"), false).toBool());
    m_timeline->setTrace(m_trace, std::move(index));
    updateFlaggedFeedback(kNone, false);
    setPanesCollapsed(true); // nothing selected yet: the tracks get the height
    m_details->setTrace(m_trace);
    m_callStack->setTrace(m_trace);
    m_search->setTrace(m_trace);
    m_findings->setReport(nullptr);
    m_steps->setReports({});
    m_distribution->setReports({});
    m_comm->setReports({});
    m_annotations->setTrace(m_trace);
    updateStatus();
    emit traceLoaded();
    startAnalysis();
}

void MainWindow::startAnalysis()
{
    if (!m_trace) return;
    // A job is analysed per rank, then across ranks: redo that on the current offsets.
    if (m_session) {
        setRankOffsets(m_session->job.offsets);
        return;
    }
    m_analysisRunning = true;
    m_findings->setStatus(tr("Analysing collectives…"));
    const quint64 generation = m_generation;
    TracePtr trace = m_trace;
    const AnalysisOptions options = linkpeaks::analysisOptions();
    using Outcome = std::pair<ReportPtr, QString>;
    // On the pool; a window closed mid-analysis drops the result.
    runOnPool<Outcome>(
        this,
        [trace, options]() -> Outcome {
            try {
                return {analyze(trace, options), QString()};
            } catch (const std::exception& e) {
                return {nullptr, QString::fromUtf8(e.what())};
            }
        },
        [this, generation](Outcome out) { onAnalysed(generation, out.first, out.second); });
}

void MainWindow::onAnalysed(quint64 generation, const ReportPtr& report, const QString& error)
{
    if (generation != m_generation) return; // superseded by a newer load
    m_analysisRunning = false;
    if (!report) {
        m_findings->setStatus(tr("Analysis failed: %1").arg(error));
        emit analysisFinished();
        return;
    }
    m_report = report;
    m_timeline->setReport(report);
    m_details->setReport(report);
    m_findings->setReport(report);
    m_annotations->setReport(report);
    m_steps->setReports({report});
    m_distribution->setReports({report});
    m_comm->setReports({report});
    updateStatus();
    emit analysisFinished();
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
    if (!m_report || index < 0 || index >= static_cast<int>(m_report->findings.size())) return;
    const Finding& f = m_report->findings[static_cast<std::size_t>(index)];
    TimeNs a = f.start, b = f.end;
    if (b <= a && !f.events.empty()) {
        const Slice& s = m_trace->slice(f.events.front());
        a = s.start;
        b = s.end();
    }
    if (b > a) {
        const TimeNs pad = std::max<TimeNs>((b - a) / 8, 100);
        m_timeline->zoomToRange(a - pad, b + pad);
    }
    if (!f.events.empty()) m_timeline->selectEvent(f.events.front(), true);
}

void MainWindow::showStep(int step)
{
    if (!m_report) return;
    for (const StepStats& st : m_report->steps) {
        if (st.step != step) continue;
        const TimeNs pad = std::max<TimeNs>((st.end - st.start) / 20, 100);
        m_timeline->zoomToRange(st.start - pad, st.end + pad);
        if (st.event != kNone) m_timeline->selectEvent(st.event, true);
        return;
    }
}

void MainWindow::onEventSelected(EventId e)
{
    if (e != kNone) setPanesCollapsed(false); // what was selected is in the panes
    m_details->setEvent(e);
    m_callStack->setEvent(e);
    // Link the plots: ring the collective, outline the step the event falls in.
    m_distribution->highlightCollective(e);
    if (m_report && m_trace && e != kNone) {
        const TimeNs t = m_trace->slice(e).start;
        // In a job the step is the event's own rank's.
        const int block = m_session ? m_session->job.blockOfEvent(e) : -1;
        const std::optional<int> rank =
            block >= 0 ? std::optional<int>(m_session->job.rankIds[static_cast<std::size_t>(block)])
                       : std::nullopt;
        for (const StepStats& st : m_report->steps)
            if (t >= st.start && t < st.end && (!rank || st.rank == rank)) {
                m_steps->highlightStep(rank ? *rank : plots::rankOfReport(*m_report, 0), st.step);
                break;
            }
    }
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
    if (!m_trace || e == kNone || e >= m_trace->slices().size()) return std::nullopt;
    if (m_session) {
        const int block = m_session->job.blockOfEvent(e);
        if (block >= 0 && std::size_t(block) < m_session->job.rankIds.size())
            return m_session->job.rankIds[std::size_t(block)];
        return std::nullopt;
    }
    return m_trace->rank();
}

void MainWindow::updateFlaggedFeedback(EventId e, bool stepped)
{
    m_findings->highlightEvent(e);
    const auto pos = m_timeline->flaggedPosition(e);
    const std::optional<int> rank = pos ? rankOfEvent(e) : std::nullopt;
    // The selection tells first (eventSelected), N / P after it (flaggedStepped).
    if (!stepped) {
        m_flaggedRankBefore = m_flaggedRank;
        m_flaggedRank = rank;
    }
    if (!pos) {
        m_timeline->setFlaggedChip({});
        m_flaggedLabel->clear();
        m_flaggedLabel->setVisible(false);
        return;
    }
    QString chip = tr("%1 of %2 flagged").arg(pos->first).arg(pos->second);
    if (rank) chip += tr(" · rank %1").arg(*rank);
    m_timeline->setFlaggedChip(chip);
    QString text = chip;
    if (const Collective* c = m_report ? m_report->collectiveOf(e) : nullptr) {
        if (c->step) text += tr(" · step %1").arg(*c->step);
        text += c->anomalous ? tr(" · copies (delays the others)")
                : c->waiting ? tr(" · waits for a slower rank")
                             : tr(" · unaligned transfer");
    }
    // N / P go from the delaying rank to the ranks that waited: say when the rank changes.
    if (stepped && rank && m_flaggedRankBefore && *rank != *m_flaggedRankBefore)
        text += tr(" · moved from rank %1").arg(*m_flaggedRankBefore);
    m_flaggedLabel->setText(text);
    m_flaggedLabel->setVisible(true);
}

void MainWindow::startJob(const std::vector<RankInput>& inputs, const QString& name,
                          const QStringList& paths)
{
    m_job.cancel(); // a single trace still loading is superseded
    if (m_jobProgress) m_jobProgress->requestCancel();
    const quint64 generation = ++m_jobGeneration;
    auto progress = std::make_shared<JobProgress>();
    m_jobProgress = progress;
    m_jobLoading = true;
    m_rebuilding = false;
    m_lastError.clear();
    QStringList absolute;
    for (const QString& p : paths)
        absolute << absolutePath(p);
    m_recentEntry = absolute.join(QLatin1Char('\n'));
    m_status->setText(
        tr("Loading %1 ranks of %2…").arg(inputs.size()).arg(QDir::toNativeSeparators(name)));
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->setVisible(true);
    m_cancel->setVisible(true);
    const std::string path = name.toStdString();
    // Each chunk read and each rank that ends tells the window (queued onto the GUI thread):
    // no polling.
    const QueuedRelay relay(this);
    progress->onChange = [relay, this, generation, weak = std::weak_ptr<JobProgress>(progress)] {
        relay.post([this, generation, weak] {
            const std::shared_ptr<JobProgress> p = weak.lock();
            if (!p || generation != m_jobGeneration) return;
            const auto total = p->total.load();
            const auto done = std::min(p->bytesDone(), total);
            m_progress->setValue(total > 0 ? static_cast<int>(done * 1000 / total) : 0);
            m_status->setText(tr("Loading and analysing: %1 of %2 ranks…")
                                  .arg(p->ranksDone.load())
                                  .arg(p->ranks.load()));
        });
    };
    const AnalysisOptions options = linkpeaks::analysisOptions();
    // Loading, analysis and merging all run on the pool, off the GUI thread.
    runOnPool<JobSessionPtr>(
        this,
        [inputs, path, progress, options]() -> JobSessionPtr {
            try {
                return buildJobSession(inputs, path, progress.get(), options);
            } catch (const std::exception& e) {
                auto s = std::make_shared<JobSession>();
                s->errors.emplace_back(e.what());
                return s;
            }
        },
        [this, generation](JobSessionPtr session) { onJobBuilt(generation, session, false); });
}

void MainWindow::startSummaryJob(const std::vector<std::string>& summaries, const QString& name,
                                 const QStringList& paths)
{
    m_job.cancel(); // a single trace still loading is superseded
    if (m_jobProgress) m_jobProgress->requestCancel();
    const quint64 generation = ++m_jobGeneration;
    m_jobProgress.reset();
    m_jobLoading = true;
    m_rebuilding = false;
    m_lastError.clear();
    QStringList absolute;
    for (const QString& p : paths)
        absolute << absolutePath(p);
    m_recentEntry = absolute.join(QLatin1Char('\n'));
    m_status->setText(tr("Reading %1 rank summaries of %2…")
                          .arg(summaries.size())
                          .arg(QDir::toNativeSeparators(name)));
    m_progress->setRange(0, 0);
    m_progress->setVisible(true);
    const std::string path = name.toStdString();
    runOnPool<JobSessionPtr>(
        this,
        [summaries, path]() -> JobSessionPtr {
            try {
                return buildSummaryJobSession(summaries, path);
            } catch (const std::exception& e) {
                auto s = std::make_shared<JobSession>();
                s->errors.emplace_back(e.what());
                return s;
            }
        },
        [this, generation](JobSessionPtr session) {
            m_progress->setRange(0, 1000);
            onJobBuilt(generation, session, false);
        });
}

std::vector<int> MainWindow::reachableRankTraces() const
{
    std::vector<int> out;
    if (!m_session || !m_session->fromSummaries()) return out;
    const JobSession& s = *m_session;
    for (std::size_t b = 0; b < s.rankTracePaths.size() && b < s.job.rankIds.size(); ++b)
        if (QFileInfo::exists(QString::fromStdString(s.rankTracePaths[b])))
            out.push_back(s.job.rankIds[b]);
    return out;
}

bool MainWindow::openRankTrace(int rank)
{
    if (!m_session || !m_session->fromSummaries()) return false;
    const int b = m_session->job.blockOfRank(rank);
    if (b < 0 || static_cast<std::size_t>(b) >= m_session->rankTracePaths.size()) return false;
    const QString path = QString::fromStdString(m_session->rankTracePaths[std::size_t(b)]);
    if (!QFileInfo::exists(path)) {
        m_status->setText(tr("Rank %1's trace is not on this machine: %2")
                              .arg(rank)
                              .arg(QDir::toNativeSeparators(path)));
        return false;
    }
    openPaths({path});
    return true;
}

void MainWindow::setRankOffsets(const std::vector<TimeNs>& offsets)
{
    if (!m_session) return;
    // The rebuilt trace reopens the notes: unsaved ones are saved first (or the user stays).
    if (m_annotations && !m_annotations->maybeSave(this)) return;
    const quint64 generation = ++m_jobGeneration;
    m_rebuilding = true;
    m_analysisRunning = true;
    m_status->setText(tr("Moving ranks onto the new clock offsets…"));
    JobSessionPtr session = m_session;
    runOnPool<JobSessionPtr>(
        this,
        [session, offsets]() -> JobSessionPtr {
            try {
                return reoffsetJobSession(*session, offsets);
            } catch (const std::exception&) {
                return nullptr;
            }
        },
        [this, generation](JobSessionPtr s) { onJobBuilt(generation, s, true); });
}

void MainWindow::onJobBuilt(quint64 generation, JobSessionPtr session, bool reoffset)
{
    if (generation != m_jobGeneration) return; // superseded by a newer load or rebuild
    m_jobLoading = false;
    m_rebuilding = false;
    m_analysisRunning = false;
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    if (!session) {
        m_status->setText(tr("Could not move the ranks onto the new offsets"));
        emit jobRebuilt();
        return;
    }
    if (session->cancelled) {
        m_status->setText(tr("Loading the job cancelled"));
        updateStatus();
        return;
    }
    const QString errors = QString::fromStdString([&] {
        std::string all;
        for (const std::string& e : session->errors)
            all += (all.empty() ? "" : "\n") + e;
        return all;
    }());
    if (!session->job.trace || session->job.rankCount() == 0) {
        m_lastError = errors.isEmpty() ? tr("no rank could be loaded") : errors;
        m_status->setText(tr("Cannot open the job"));
        auto* box =
            new QMessageBox(QMessageBox::Warning, tr("Cannot open job"),
                            tr("Cannot open the job:\n%1").arg(m_lastError), QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        emit loadFailed(m_lastError);
        return;
    }
    ++m_generation; // drops a single-trace analysis still running
    m_session = session;
    m_trace = session->job.trace;
    m_report = session->combined;
    const EventId selected = m_timeline->selectedEvent();
    if (reoffset) {
        m_timeline->replaceTrace(m_trace, session->timelineIndex);
    } else {
        m_path = QString::fromStdString(m_trace->path());
        if (!m_recentEntry.isEmpty()) addRecent(m_recentEntry);
        setWindowTitle(
            tr("%1 — %2 ranks — Ringscope").arg(shownName(m_path)).arg(session->job.rankCount()));
        // A job opens with every rank in view: the compact job layout, unless the user
        // turned it off for jobs.
        setCompactQuietly(QSettings().value(QStringLiteral("view/jobCompact"), true).toBool());
        m_timeline->setTrace(m_trace, session->timelineIndex);
        updateFlaggedFeedback(kNone, false);
        setPanesCollapsed(true); // nothing selected yet: every rank gets the height
    }
    m_details->setTrace(m_trace);
    m_callStack->setTrace(m_trace);
    m_search->setTrace(m_trace);
    m_annotations->setTrace(m_trace);
    setJobUi(true);
    if (!reoffset) {
        // Panes show the trace before its report, as for a single trace.
        m_findings->setReport(nullptr);
        emit traceLoaded();
    }
    m_timeline->setReport(m_report);
    updateJobNavigation();
    m_details->setReport(m_report);
    m_findings->setReport(m_report);
    m_annotations->setReport(m_report);
    m_steps->setReports(session->perRank);
    m_distribution->setReports(session->perRank);
    m_heatmap->setReports(session->localReports,
                          session->jobReport ? &*session->jobReport : nullptr);
    m_comm->setReports(session->perRank);
    if (reoffset && selected != kNone) {
        m_details->setEvent(selected);
        m_callStack->setEvent(selected);
    }
    updateStatus();
    updateJobActions();
    if (!errors.isEmpty()) {
        m_lastError = errors;
        // Not modal-blocking: the ranks that loaded are open and usable.
        auto* box =
            new QMessageBox(QMessageBox::Warning, tr("Some ranks could not be opened"),
                            tr("The other ranks are open.\n%1").arg(errors), QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        if (!reoffset)
            box->open();
        else
            delete box;
    }
    emit analysisFinished();
    if (reoffset) emit jobRebuilt();
}

void MainWindow::updateJobNavigation()
{
    const JobTrace& job = m_session->job;
    std::vector<int> ranks(m_trace->processes().size(), 0);
    for (ProcessId p = 0; p < ranks.size(); ++p)
        ranks[p] = std::max(0, job.blockOfProcess(p));
    m_timeline->setProcessRanks(std::move(ranks));

    // N / P: per cross-rank instance the delaying rank's op first (it is the cause), then the
    // ranks that waited for it; flagged ops of no instance on their own.
    auto flagged = [&](EventId e) {
        const Collective* c = m_report ? m_report->collectiveOf(e) : nullptr;
        return c && c->event == e && (c->anomalous || c->waiting || c->unalignedCount > 0);
    };
    std::vector<std::vector<EventId>> groups;
    std::set<EventId> grouped;
    if (m_session->jobReport) {
        for (const CrossRankCollective& x : m_session->jobReport->collectives) {
            std::vector<EventId> first, rest;
            for (const RankOp& op : x.ops) {
                if (op.report >= m_session->localReports.size()) continue;
                const auto& local = m_session->localReports[op.report]->collectives;
                if (op.collective >= local.size()) continue;
                const EventId e = job.toMerged(op.report, local[op.collective].event);
                if (!flagged(e)) continue;
                const bool delaying = std::find(x.delayingRanks.begin(), x.delayingRanks.end(),
                                                op.rank) != x.delayingRanks.end();
                (delaying ? first : rest).push_back(e);
            }
            first.insert(first.end(), rest.begin(), rest.end());
            grouped.insert(first.begin(), first.end());
            if (!first.empty()) groups.push_back(std::move(first));
        }
    }
    if (m_report)
        for (const Collective& c : m_report->collectives)
            if (flagged(c.event) && !grouped.count(c.event)) groups.push_back({c.event});
    const Trace& t = *m_trace;
    auto startOf = [&](const std::vector<EventId>& g) {
        TimeNs s = t.slice(g.front()).start;
        for (EventId e : g)
            s = std::min(s, t.slice(e).start);
        return s;
    };
    std::stable_sort(groups.begin(), groups.end(),
                     [&](const auto& a, const auto& b) { return startOf(a) < startOf(b); });
    m_timeline->setFlaggedOrder(std::move(groups));
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
    const bool ready = m_session && m_session->jobReport && !m_rebuilding;
    m_offsets->setEnabled(m_session && !m_rebuilding);
    m_openRankTrace->setEnabled(!reachableRankTraces().empty());
    m_align->setEnabled(ready && m_session->instanceOf(m_timeline->selectedEvent()).has_value());
}

bool MainWindow::alignOnSelectedCollective()
{
    if (!m_session || !m_session->jobReport) return false;
    const auto instance = m_session->instanceOf(m_timeline->selectedEvent());
    if (!instance) {
        m_status->setText(tr("Select a collective first"));
        return false;
    }
    setRankOffsets(alignOnCollective(*m_session->jobReport, *instance));
    return true;
}

void MainWindow::editRankOffsets()
{
    if (!m_session) return;
    auto* dialog = new RankOffsetsDialog(m_session->job.rankIds, m_session->job.offsets, this);
    dialog->setObjectName(QStringLiteral("rankOffsetsDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    const JobSessionPtr session = m_session;
    connect(dialog, &QDialog::accepted, this, [this, dialog, session] {
        if (m_session == session) setRankOffsets(dialog->offsets());
    });
    dialog->open();
}

void MainWindow::showRankStep(int rank, int step)
{
    if (!m_report) return;
    for (const StepStats& st : m_report->steps) {
        if (st.step != step || (m_session && st.rank != rank)) continue;
        const TimeNs pad = std::max<TimeNs>((st.end - st.start) / 20, 100);
        m_timeline->zoomToRange(st.start - pad, st.end + pad);
        if (st.event != kNone) m_timeline->selectEvent(st.event, true);
        return;
    }
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
        if (m_session && !m_recentEntry.isEmpty())
            openPaths(m_recentEntry.split(QLatin1Char('\n'), Qt::SkipEmptyParts));
        else
            startAnalysis();
    });
    dialog->open();
}

void MainWindow::selectTransfers(const std::vector<EventId>& tasks)
{
    if (!m_trace || tasks.empty()) return;
    TimeNs a = std::numeric_limits<TimeNs>::max(), b = std::numeric_limits<TimeNs>::min();
    std::vector<EventId> valid;
    for (EventId e : tasks) {
        if (e >= m_trace->slices().size()) continue;
        valid.push_back(e);
        a = std::min(a, m_trace->slice(e).start);
        b = std::max(b, m_trace->slice(e).end());
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
    return QSettings().value(QStringLiteral("recentFiles")).toStringList();
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
    QSettings().setValue(QStringLiteral("recentFiles"), list);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    if (!m_recentMenu) return;
    m_recentMenu->clear();
    const QStringList list = recentFiles();
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
    if (!m_trace) {
        if (m_status->text().isEmpty())
            m_status->setText(tr("No trace: File > Open, drop a file, or File > Open sample"));
        return;
    }
    const Trace& t = *m_trace;
    QStringList parts;
    parts << shownName(m_path);
    if (m_session) {
        const auto n = static_cast<int>(m_session->job.rankCount());
        parts << (n == 1 ? tr("1 rank") : tr("%1 ranks").arg(n));
    }
    if (t.rank()) parts << tr("rank %1").arg(*t.rank());
    parts << tr("%1 events").arg(QLocale().toString(static_cast<qulonglong>(t.stats().events)));
    parts << QString::fromStdString(formatDuration(t.endNs() - t.startNs()));
    // The warning count is the button next to this text (it opens the Warnings pane).
    if (m_partial && !m_session) parts << tr("partial: %1").arg(m_lastError);
    if (m_report) {
        int flagged = 0;
        for (const Collective& c : m_report->collectives)
            flagged += c.anomalous || c.waiting || c.unalignedCount > 0;
        parts << tr("%1 collectives, %2 flagged").arg(m_report->collectives.size()).arg(flagged);
    }
    if (m_session && !m_session->errors.empty())
        parts << tr("%1 failed to load")
                     .arg(m_session->errors.size() == 1
                              ? tr("1 rank")
                              : tr("%1 ranks").arg(m_session->errors.size()));
    m_status->setText(parts.join(QStringLiteral(" · ")));
    m_status->setToolTip(QString::fromStdString(t.path()));
    updateWarnings();
}

void MainWindow::updateWarnings()
{
    std::vector<WarningEntry> all;
    if (m_session) {
        const JobTrace& job = m_session->job;
        for (std::size_t b = 0; b < job.rankCount(); ++b) {
            const AnalysisReport* r =
                b < m_session->localReports.size() ? m_session->localReports[b].get() : nullptr;
            auto part = WarningsPane::entriesOf(*job.shells[b], r, QString::number(job.rankIds[b]));
            all.insert(all.end(), part.begin(), part.end());
        }
        for (const std::string& e : m_session->errors)
            all.push_back({QString(), tr("load"), QString::fromStdString(e)});
    } else if (m_trace) {
        all = WarningsPane::entriesOf(*m_trace, m_report.get());
    }
    const int n = static_cast<int>(all.size());
    m_warnings->setEntries(std::move(all));
    m_warningsButton->setText(tr("%n warning(s)", nullptr, n));
    m_warningsButton->setVisible(n > 0);
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
    m_job.cancel();
    if (m_jobProgress) m_jobProgress->requestCancel();
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
