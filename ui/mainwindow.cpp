#include "ui/mainwindow.h"

#include "core/analysis/analyzer.h"
#include "ui/annotations/annotationcontroller.h"
#include "ui/annotations/notespane.h"
#include "ui/panes/callstackpane.h"
#include "ui/panes/detailspane.h"
#include "ui/panes/findingspane.h"
#include "ui/panes/searchpane.h"
#include "ui/plots/distributionview.h"
#include "ui/plots/plotstyle.h"
#include "ui/plots/stepsview.h"
#include "ui/timeline/timelineview.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>
#include <utility>

// The resources live in a static library: make sure the linker keeps them.
static void initRingscopeResources()
{
    Q_INIT_RESOURCE(resources);
}

namespace rs {

namespace {
constexpr int kMaxRecent = 10;
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("Ringscope"));
    resize(1400, 900);
    setAcceptDrops(true);
    setDockNestingEnabled(true);

    m_timeline = new TimelineView(this);
    m_timeline->setObjectName(QStringLiteral("timeline"));
    setCentralWidget(m_timeline);

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
    m_progress = new QProgressBar(this);
    m_progress->setVisible(false);
    m_progress->setMaximumWidth(220);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setVisible(false);
    statusBar()->addWidget(m_status, 1);
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

    connect(m_timeline, &TimelineView::eventSelected, this, &MainWindow::onEventSelected);
    connect(m_callStack, &CallStackPane::frameActivated, this, &MainWindow::selectEvent);
    connect(m_findings, &FindingsPane::findingActivated, this, &MainWindow::showFinding);
    connect(m_search, &SearchPane::resultActivated, this, &MainWindow::selectEvent);
    connect(m_distribution, &DistributionView::collectiveClicked, this, &MainWindow::selectEvent);
    connect(m_distribution, &DistributionView::stepClicked, this,
            [this](int, int step) { showStep(step); });
    connect(m_steps, &StepsView::stepClicked, this, [this](int, int step) { showStep(step); });
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
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_tabs->setCurrentIndex(settings.value(QStringLiteral("window/tab"), 0).toInt());
    updateStatus();
}

MainWindow::~MainWindow() = default;

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
    addMenuAction(file, this, tr("&Open file…"), QKeySequence::Open, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open trace"), QString(), tr("Traces (*.json *.json.gz *.gz);;All files (*)"));
        if (!path.isEmpty()) openPaths({path});
    });
    addMenuAction(file, this, tr("Open &folder…"), QKeySequence(tr("Ctrl+Shift+O")), [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open profiler folder"));
        if (!dir.isEmpty()) openPaths({dir});
    });
    addMenuAction(file, this, tr("Open &sample"), QKeySequence(), [this] { openSample(); });
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
    view->addSeparator();
    view->addAction(m_findingsDock->toggleViewAction());
    view->addAction(m_bottomDock->toggleViewAction());
    addMenuAction(view, this, tr("&Search…"), QKeySequence::Find, [this] {
        m_bottomDock->show();
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

bool MainWindow::isLoading() const
{
    return m_job.isRunning();
}

void MainWindow::openPaths(const QStringList& paths)
{
    if (paths.isEmpty()) return;
    // Unsaved notes on the current trace: save, discard or stay.
    if (m_trace && m_annotations && !m_annotations->maybeSave(this)) return;
    for (int i = paths.size() - 1; i >= 1; --i)
        addRecent(QFileInfo(paths[i]).absoluteFilePath());
    const QString path = QFileInfo(paths.first()).absoluteFilePath();
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
    // The bundled sample lives in the resources; copy it out so the loader can stream it.
    const QString out = QDir(QStandardPaths::writableLocation(QStandardPaths::TempLocation))
                            .filePath(QStringLiteral("ringscope-sample_rank0.json"));
    QFile::remove(out);
    if (QFile::copy(QStringLiteral(":/samples/sample_rank0.json"), out)) openPaths({out});
}

void MainWindow::cancelLoad()
{
    m_job.cancel();
    m_status->setText(tr("Cancelling…"));
}

void MainWindow::onLoaded(const QString& path, std::shared_ptr<LoadResult> result)
{
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    if (result->cancelled) {
        m_status->setText(tr("Loading %1 cancelled").arg(QDir::toNativeSeparators(path)));
        updateStatus();
        return;
    }
    if (!result->ok || !result->trace) {
        m_lastError = QString::fromStdString(result->error);
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
    ++m_generation;
    m_trace = result->trace;
    m_report.reset();
    m_path = path;
    addRecent(path);
    setWindowTitle(QStringLiteral("%1 — Ringscope").arg(QFileInfo(path).fileName()));
    m_timeline->setTrace(m_trace);
    m_details->setTrace(m_trace);
    m_callStack->setTrace(m_trace);
    m_search->setTrace(m_trace);
    m_findings->setReport(nullptr);
    m_steps->setReports({});
    m_distribution->setReports({});
    m_annotations->setTrace(m_trace);
    updateStatus();
    emit traceLoaded();
    startAnalysis();
}

void MainWindow::startAnalysis()
{
    if (!m_trace) return;
    m_analysisRunning = true;
    m_findings->setStatus(tr("Analysing collectives…"));
    const quint64 generation = m_generation;
    TracePtr trace = m_trace;
    using Outcome = std::pair<ReportPtr, QString>;
    // The watcher belongs to the window: a window closed mid-analysis drops the result, and
    // the global thread pool is drained before the application exits.
    auto* watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        const Outcome out = watcher->result();
        onAnalysed(generation, out.first, out.second);
    });
    watcher->setFuture(QtConcurrent::run([trace]() -> Outcome {
        try {
            return {analyze(trace), QString()};
        } catch (const std::exception& e) {
            return {nullptr, QString::fromUtf8(e.what())};
        }
    }));
}

void MainWindow::onAnalysed(quint64 generation, ReportPtr report, QString error)
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
    m_details->setEvent(e);
    m_callStack->setEvent(e);
    // Link the plots: ring the collective, outline the step the event falls in.
    m_distribution->highlightCollective(e);
    if (m_report && m_trace && e != kNone) {
        const TimeNs t = m_trace->slice(e).start;
        for (const StepStats& st : m_report->steps)
            if (t >= st.start && t < st.end) {
                m_steps->highlightStep(plots::rankOfReport(*m_report, 0), st.step);
                break;
            }
    }
    emit eventSelected(e);
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
    for (const QString& p : list)
        addMenuAction(m_recentMenu, this, QDir::toNativeSeparators(p), QKeySequence(),
                      [this, p] { openPaths({p}); });
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
    parts << QFileInfo(m_path).fileName();
    if (t.rank()) parts << tr("rank %1").arg(*t.rank());
    parts << tr("%1 events").arg(QLocale().toString(static_cast<qulonglong>(t.stats().events)));
    parts << QString::fromStdString(formatDuration(t.endNs() - t.startNs()));
    parts << tr("%n warning(s)", nullptr, static_cast<int>(t.warnings().size()));
    if (m_report) {
        int flagged = 0;
        for (const Collective& c : m_report->collectives)
            flagged += c.anomalous || c.waiting || c.unalignedCount > 0;
        parts << tr("%1 collectives, %2 flagged").arg(m_report->collectives.size()).arg(flagged);
    }
    m_status->setText(parts.join(QStringLiteral(" · ")));
    m_status->setToolTip(QString::fromStdString(t.path()));
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/tab"), m_tabs->currentIndex());
    m_job.cancel();
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
