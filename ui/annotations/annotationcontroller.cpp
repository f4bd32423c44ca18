#include "ui/annotations/annotationcontroller.h"

#include "ui/session/flagged.h"

#include "ui/session/session.h"

#include "core/annotations/findingannotations.h"
#include "ui/annotations/annotationdialog.h"
#include "ui/annotations/notespane.h"
#include "ui/export/exportdialog.h"
#include "ui/timeline/timelineview.h"

#include <QAction>
#include <QActionGroup>
#include <QCloseEvent>
#include <QContextMenuEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHelpEvent>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace rs {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

AnnotationController::AnnotationController(QMainWindow* window, TimelineView* view)
    : QObject(window), m_window(window), m_view(view)
{
    m_pane = new NotesPane(&m_store, window);
    connect(m_pane, &NotesPane::jumpRequested, this, &AnnotationController::jumpTo);
    connect(m_pane, &NotesPane::editRequested, this,
            [this](std::uint64_t id) { editAnnotation(id, m_window); });
    connect(m_pane, &NotesPane::deleteRequested, this, &AnnotationController::deleteAnnotation);
    connect(m_pane, &NotesPane::saveRequested, this, [this] { save(m_window); });
    connect(&m_store, &AnnotationStore::changed, this, &AnnotationController::refreshView);
    if (m_view) {
        m_view->renderer().setOverlay([this](QPainter& p, const TimelineGeometry& g) {
            AnnotationPaintOptions o;
            o.selected = m_selected;
            o.processRanks = m_view->processRanks();
            // Labels leave the selected slice's name readable.
            if (const QRectF name = m_view->renderer().sliceTextRect(
                    g, m_view->renderer().selectedEvent(), p.font());
                !name.isEmpty())
                o.keepClear.push_back(name);
            // Finding labels go where no bar is: they must not hide what they explain.
            if (m_store.showAutomatic()) o.occupied = m_view->renderer().occupiedRects(g);
            m_painted = paintAnnotations(p, g, m_store, m_view->renderer().style(), o);
        });
        m_view->installEventFilter(this);
        // Pins and the track filter are saved with the annotations.
        connect(m_view, &TimelineView::trackViewChanged, this,
                [this] { m_store.setTrackState(m_view->trackViewState()); });
    }
    m_window->installEventFilter(this);
    installActions();
}

void AnnotationController::installActions()
{
    QMenu* file = nullptr;
    for (QAction* a : m_window->menuBar()->actions())
        if (a->menu() && a->text().remove('&') == "File") file = a->menu();
    if (!file) file = m_window->menuBar()->addMenu(tr("&File"));
    // Before Quit, which menus keep last.
    QAction* before = file->actions().isEmpty() ? nullptr : file->actions().last();
    auto add = [&](QMenu* menu, const QString& text, const QKeySequence& keys, auto slot) {
        auto* a = new QAction(text, m_window);
        a->setShortcut(keys);
        a->setShortcutContext(Qt::WindowShortcut);
        connect(a, &QAction::triggered, this, slot);
        if (menu == file)
            menu->insertAction(before, a);
        else
            menu->addAction(a);
        m_window->addAction(a);
        return a;
    };
    QMenu* exportMenu = new QMenu(tr("&Export"), m_window);
    add(exportMenu, tr("Timeline as &PNG…"), QKeySequence(tr("Ctrl+E")),
        [this] { exportWithDialog("png", 1, false); });
    add(exportMenu, tr("Timeline as PNG (&2x)…"), QKeySequence(),
        [this] { exportWithDialog("png", 2, false); });
    add(exportMenu, tr("Timeline as &SVG…"), QKeySequence(),
        [this] { exportWithDialog("svg", 1, false); });
    add(exportMenu, tr("Timeline as P&DF…"), QKeySequence(),
        [this] { exportWithDialog("pdf", 1, false); });
    m_visibleOnly = add(exportMenu, tr("&Visible area only"), QKeySequence(), [](bool on) {
        QSettings().setValue(QStringLiteral("export/visibleOnly"), on);
    });
    m_visibleOnly->setCheckable(true);
    m_visibleOnly->setChecked(QSettings().value(QStringLiteral("export/visibleOnly")).toBool());
    m_visibleOnly->setToolTip(tr("Export what the timeline shows now instead of every expanded "
                                 "track"));
    // The picture's theme; the save dialogs offer the same choice (ui/export/exportdialog.h).
    m_exportThemeMenu = exportMenu->addMenu(tr("&Theme"));
    m_exportThemeMenu->setToolTip(tr("Light prints and pastes into tickets better; Dark or as "
                                     "the view shows it for slides"));
    auto* themes = new QActionGroup(this);
    for (const ExportTheme t : {ExportTheme::Light, ExportTheme::Dark, ExportTheme::View}) {
        QAction* a =
            m_exportThemeMenu->addAction(t == ExportTheme::Light  ? tr("&Light (for print)")
                                         : t == ExportTheme::Dark ? tr("&Dark")
                                                                  : tr("As the &view shows it"));
        a->setCheckable(true);
        a->setData(exportThemeName(t));
        themes->addAction(a);
        connect(a, &QAction::triggered, this, [this, t] { setExportTheme(t); });
    }
    m_exportTheme = savedExportTheme();
    for (QAction* a : m_exportThemeMenu->actions())
        a->setChecked(a->data().toString() == exportThemeName(m_exportTheme));
    exportMenu->addSeparator();
    add(exportMenu, tr("&Report image (timeline + steps + call stack)…"),
        QKeySequence(tr("Ctrl+Shift+E")), [this] { exportWithDialog("png", 1, true); });
    add(exportMenu, tr("Report as PDF…"), QKeySequence(),
        [this] { exportWithDialog("pdf", 1, true); });
    file->insertMenu(before, exportMenu);
    add(file, tr("Save &annotations"), QKeySequence::Save, [this] { save(m_window); });
    file->insertSeparator(before);

    QMenu* notes = m_window->menuBar()->addMenu(tr("&Notes"));
    add(notes, tr("&Mark selection"), QKeySequence(Qt::Key_M), [this] { addMark(); });
    add(notes, tr("&Note on selection…"), QKeySequence(Qt::SHIFT | Qt::Key_M),
        [this] { addNote(m_window); });
    notes->addSeparator();
    m_showAuto = add(notes, tr("Show &finding annotations"), QKeySequence(),
                     [this](bool on) { m_store.setShowAutomatic(on); });
    m_showAuto->setCheckable(true);
    m_showAuto->setChecked(m_store.showAutomatic());
    // Also under View, next to the other display toggles.
    for (QAction* a : m_window->menuBar()->actions())
        if (a->menu() && a->text().remove('&') == "View") {
            a->menu()->addSeparator();
            a->menu()->addAction(m_showAuto);
        }
}

void AnnotationController::setTrace(TracePtr trace)
{
    m_report.reset();
    m_rankReports.clear();
    m_selected = 0;
    m_arrowFrom = {};
    const SidecarLoadResult r = m_store.open(std::move(trace));
    if (r.status == SidecarStatus::Corrupt || r.status == SidecarStatus::Unsupported ||
        r.status == SidecarStatus::Unreadable || r.skipped > 0)
        QMessageBox::warning(m_window, tr("Annotations"), r.message);
    if (m_showAuto) m_showAuto->setChecked(m_store.showAutomatic());
    if (m_view && m_view->trace() == m_store.trace())
        m_view->setTrackViewState(m_store.trackState());
}

void AnnotationController::setReport(ReportPtr report)
{
    if (report && report->trace != m_store.trace()) return; // a superseded analysis
    m_report = std::move(report);
    m_store.setAutomatic(m_report ? findingAnnotations(*m_report, 200) : std::vector<Annotation>{});
}

void AnnotationController::refreshView()
{
    if (m_showAuto && m_showAuto->isChecked() != m_store.showAutomatic())
        m_showAuto->setChecked(m_store.showAutomatic());
    // The view caches its frame; any public setter that repaints will do.
    if (m_view) m_view->setShowFlows(m_view->renderer().showFlows());
}

QString AnnotationController::whereText(const Annotation& a) const
{
    const TracePtr& t = m_store.trace();
    const TimeNs start = t ? t->startNs() : 0;
    if (a.onEvent())
        return tr("On %1 (%2 · %3) at %4")
            .arg(qs(a.event.name), qs(a.event.processLabel), qs(a.event.trackLabel),
                 qs(formatDuration(a.event.startNs - start)));
    if (a.kind == AnnotationKind::Range)
        return tr("Range %1 – %2")
            .arg(qs(formatDuration(a.timeNs - start)), qs(formatDuration(a.endNs - start)));
    if (a.kind == AnnotationKind::Arrow)
        return tr("From %1 to %2").arg(qs(a.event.name), qs(a.target.name));
    return tr("At %1").arg(qs(formatDuration(a.timeNs - start)));
}

std::uint64_t AnnotationController::addMark()
{
    const TracePtr& t = m_store.trace();
    if (!t || !m_view) return 0;
    Annotation a;
    const EventId e = m_view->selectedEvent();
    const TimelineRenderer& r = m_view->renderer();
    if (r.hasRangeSelection()) {
        a.kind = AnnotationKind::Range;
        a.timeNs = r.rangeBegin();
        a.endNs = r.rangeEnd();
    } else if (e != kNone && e < t->slices().size()) {
        a.event = makeEventRef(*t, e);
    } else {
        a.timeNs = (m_view->visibleStart() + m_view->visibleEnd()) / 2;
    }
    m_selected = m_store.add(a);
    m_pane->setCurrentId(m_selected);
    return m_selected;
}

std::uint64_t AnnotationController::addNote(QWidget* parent)
{
    const std::uint64_t id = addMark();
    if (!id) return 0;
    Annotation a = *m_store.find(id);
    if (!AnnotationDialog::edit(parent, &a, tr("New note"), whereText(a))) {
        m_store.remove(id);
        return 0;
    }
    m_store.update(a);
    return id;
}

void AnnotationController::editAnnotation(std::uint64_t id, QWidget* parent)
{
    const Annotation* found = m_store.find(id);
    if (!found || found->automatic) return;
    Annotation a = *found;
    if (AnnotationDialog::edit(parent, &a, tr("Edit note"), whereText(a))) m_store.update(a);
}

void AnnotationController::deleteAnnotation(std::uint64_t id)
{
    if (m_selected == id) m_selected = 0;
    m_store.remove(id);
}

void AnnotationController::jumpTo(std::uint64_t id)
{
    if (!m_view || !m_store.find(id)) return;
    m_selected = id;
    const AnnotationAnchor an = m_store.anchor(id);
    if (an.event != kNone) m_view->selectEvent(an.event, true);
    const TimeNs span =
        std::max<TimeNs>(an.end - an.start, (m_view->visibleEnd() - m_view->visibleStart()) / 4);
    const TimeNs pad = span / 3 + 1;
    m_view->zoomToRange(an.start - pad, std::max(an.end, an.start + span) + pad);
    m_pane->setCurrentId(id);
    refreshView();
}

bool AnnotationController::save(QWidget* parent)
{
    if (!m_store.trace()) return true;
    const SidecarSaveResult r = m_store.save();
    if (!r.ok) {
        QMessageBox::critical(parent, tr("Annotations not saved"),
                              tr("The annotations could not be saved: %1").arg(r.message));
        return false;
    }
    if (r.usedFallback && m_window)
        m_window->statusBar()->showMessage(
            tr("The trace's folder is read-only: annotations saved in %1").arg(r.path), 8000);
    return true;
}

bool AnnotationController::maybeSave(QWidget* parent)
{
    if (!m_store.isDirty()) return true;
    const auto answer = QMessageBox::question(
        parent, tr("Unsaved annotations"),
        tr("The annotations of %1 have unsaved changes. Save them?")
            .arg(QFileInfo(m_store.tracePath()).fileName()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save) return save(parent);
    return answer == QMessageBox::Discard;
}

std::uint64_t AnnotationController::labelAt(const QPoint& local) const
{
    // Last painted is on top.
    for (auto it = m_painted.rbegin(); it != m_painted.rend(); ++it)
        if (it->label.contains(local)) return it->id;
    return 0;
}

bool AnnotationController::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_window && event->type() == QEvent::Close) {
        if (!maybeSave(m_window)) {
            event->ignore();
            return true;
        }
        return false;
    }
    if (watched == m_view && event->type() == QEvent::ContextMenu) {
        auto* e = static_cast<QContextMenuEvent*>(event);
        showContextMenu(e->pos(), e->globalPos());
        return true;
    }
    if (watched == m_view && event->type() == QEvent::ToolTip) {
        // A finding label left out (or cut to its first line) for want of free space shows
        // whole when its event or its label is hovered.
        auto* e = static_cast<QHelpEvent*>(event);
        for (const PaintedAnnotation& pa : m_painted) {
            if (!pa.dropped && !pa.shortened) continue;
            if (!pa.anchor.adjusted(-2, -2, 2, 2).contains(e->pos()) &&
                !pa.label.contains(e->pos()))
                continue;
            if (const Annotation* a = m_store.find(pa.id)) {
                QToolTip::showText(e->globalPos(), qs(a->text), m_view);
                return true;
            }
        }
    }
    if (watched == m_view && event->type() == QEvent::MouseButtonDblClick) {
        auto* e = static_cast<QMouseEvent*>(event);
        if (const std::uint64_t id = labelAt(e->position().toPoint())) {
            editAnnotation(id, m_window);
            return true;
        }
    }
    return QObject::eventFilter(watched, event);
}

void AnnotationController::showContextMenu(const QPoint& local, const QPoint& global)
{
    const TracePtr& t = m_store.trace();
    if (!t || !m_view) return;
    QMenu menu(m_view);
    // On a track label or header: pin / unpin it (the view knows its tracks).
    if (local.x() < m_view->timelineGeometry().labelWidth &&
        m_view->addTrackMenuActions(&menu, local)) {
        menu.exec(global);
        return;
    }
    if (const std::uint64_t id = labelAt(local)) {
        const Annotation* a = m_store.find(id);
        if (a && !a->automatic) {
            menu.addAction(tr("Edit note…"), this, [this, id] { editAnnotation(id, m_window); });
            menu.addAction(tr("Delete note"), this, [this, id] { deleteAnnotation(id); });
            menu.addSeparator();
        }
    }
    const TimelineHit hit = m_view->renderer().hitTest(m_view->timelineGeometry(), local);
    const EventId e =
        hit.kind == TimelineHit::Event || hit.kind == TimelineHit::Folded ? hit.event : kNone;
    if (e != kNone && e < t->slices().size()) {
        const QString name = qs(t->str(t->slice(e).name));
        const QString shortName = name.size() > 40 ? name.left(38) + "…" : name;
        menu.addAction(tr("Note on %1…").arg(shortName), this, [this, e] {
            m_view->selectEvent(e, false);
            m_view->setRangeSelection(0, 0);
            addNote(m_window);
        });
        menu.addAction(tr("Mark %1").arg(shortName), this, [this, e] {
            m_view->selectEvent(e, false);
            m_view->setRangeSelection(0, 0);
            addMark();
        });
        if (!m_arrowFrom.isSet()) {
            menu.addAction(tr("Arrow from here"), this,
                           [this, e, t] { m_arrowFrom = makeEventRef(*t, e); });
        } else {
            menu.addAction(
                tr("Arrow from %1 to here…").arg(qs(m_arrowFrom.name)), this, [this, e, t] {
                    Annotation a;
                    a.kind = AnnotationKind::Arrow;
                    a.event = m_arrowFrom;
                    a.target = makeEventRef(*t, e);
                    m_arrowFrom = {};
                    if (AnnotationDialog::edit(m_window, &a, tr("New arrow"), whereText(a)))
                        m_selected = m_store.add(a);
                });
            menu.addAction(tr("Cancel the arrow"), this, [this] { m_arrowFrom = {}; });
        }
    }
    const TimeNs time = m_view->timelineGeometry().timeAt(local.x());
    menu.addAction(tr("Note at %1…").arg(qs(formatDuration(time - t->startNs()))), this,
                   [this, time] {
                       Annotation a;
                       a.timeNs = time;
                       if (AnnotationDialog::edit(m_window, &a, tr("New note"), whereText(a)))
                           m_selected = m_store.add(a);
                   });
    const TimelineRenderer& r = m_view->renderer();
    if (r.hasRangeSelection()) {
        const TimeNs a0 = r.rangeBegin(), a1 = r.rangeEnd();
        menu.addAction(tr("Highlight the selected range…"), this, [this, a0, a1] {
            Annotation a;
            a.kind = AnnotationKind::Range;
            a.timeNs = a0;
            a.endNs = a1;
            if (AnnotationDialog::edit(m_window, &a, tr("New range"), whereText(a)))
                m_selected = m_store.add(a);
        });
    }
    menu.exec(global);
}

bool AnnotationController::exportTo(const QString& file, double scale, bool composite,
                                    QString* error)
{
    if (!m_store.trace() || !m_view) {
        if (error) *error = tr("no trace is open");
        return false;
    }
    ExportComposer composer(m_store.trace(), m_report, &m_store);
    composer.copyViewState(m_view->renderer());
    composer.setRankReports(m_rankReports);
    ExportOptions o;
    o.width = std::max(800, m_view->width());
    o.scale = scale;
    o.t0 = m_view->visibleStart();
    o.t1 = m_view->visibleEnd();
    o.focus = m_view->selectedEvent();
    o.dark = exportThemeIsDark(exportTheme());
    if (composite && m_report) {
        // The report tells one finding's story: the selection's finding (else the top one),
        // its step framed whole over every rank; with no finding, the whole trace. Never the
        // viewport (the op cut at its edge, one rank).
        o.focus = kNone;
        composer.setOptions(o);
        const Finding* f = nullptr;
        if (const EventId e = m_view->selectedEvent(); e != kNone) {
            const int i = flagged::findingOf(*m_report, e);
            if (i >= 0) f = &m_report->findings[std::size_t(i)];
        }
        if (!f && !m_report->findings.empty()) f = &m_report->findings.front();
        if (f) {
            std::tie(o.t0, o.t1) = findingRange(*m_report, *f);
            if (!f->events.empty()) o.focus = f->events.front();
        } else {
            o.t0 = o.t1 = 0; // the whole trace
        }
        // Its collective's outline shows, not the selection's ring over it.
        composer.renderer().setSelectedEvent(kNone);
    }
    if (visibleAreaOnly() && !composite) {
        // What the user sees: the tracks at the current scroll, as tall as the view.
        o.scrollY = m_view->scrollY();
        o.plotHeight = static_cast<int>(std::ceil(m_view->timelineGeometry().plotRect().height()));
    } else {
        // Every expanded track from the top, never from the scroll position: the picture
        // grows to fit (up to what an image can hold).
        o.scrollY = 0;
        o.maxAutoHeight = static_cast<int>(16000 / std::max(1.0, scale));
    }
    composer.setOptions(o);
    // A job taller than a picture may be: compact rows per rank, every rank in it.
    if (composite || !visibleAreaOnly()) composer.fitRanksToHeight(composite);
    return composite ? composer.writeComposite(file, error) : composer.writeTimeline(file, error);
}

bool AnnotationController::visibleAreaOnly() const
{
    return m_visibleOnly && m_visibleOnly->isChecked();
}

void AnnotationController::setVisibleAreaOnly(bool on)
{
    if (m_visibleOnly) m_visibleOnly->setChecked(on);
}

bool AnnotationController::darkExport() const
{
    return exportThemeIsDark(exportTheme());
}

void AnnotationController::setDarkExport(bool on)
{
    setExportTheme(on ? ExportTheme::Dark : ExportTheme::Light);
}

ExportTheme AnnotationController::exportTheme() const
{
    return m_exportTheme;
}

void AnnotationController::setExportTheme(ExportTheme t)
{
    m_exportTheme = t;
    saveExportTheme(t);
    if (m_exportThemeMenu)
        for (QAction* a : m_exportThemeMenu->actions())
            a->setChecked(a->data().toString() == exportThemeName(t));
}

QString AnnotationController::exportDirectory() const
{
    // The last folder exported to, else the trace's own folder (a job's is its folder).
    const QString last = QSettings().value(QStringLiteral("export/lastDir")).toString();
    if (!last.isEmpty() && QFileInfo(last).isDir()) return last;
    const QFileInfo trace(m_store.tracePath());
    if (trace.isDir()) return trace.absoluteFilePath();
    if (trace.absoluteDir().exists()) return trace.absolutePath();
    return QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
}

QString AnnotationController::exportFileName(const QString& suffix, double scale,
                                             bool composite) const
{
    const TracePtr& t = m_store.trace();
    const QFileInfo info(m_store.tracePath());
    // The job (its folder's name) or the rank, then the finding of the selection.
    const bool job = t && t->metadata().is_object() && t->metadata().contains("ranks") &&
                     t->metadata()["ranks"].size() > 1;
    QString name = info.isDir() ? info.fileName() : info.completeBaseName();
    if (name.endsWith(QLatin1String(".pt.trace"))) name.chop(9);
    if (name.isEmpty()) name = QStringLiteral("trace");
    QStringList parts{name};
    if (job)
        parts << QStringLiteral("job");
    else if (t && t->rank() && !name.contains(QStringLiteral("rank%1").arg(*t->rank())))
        parts << QStringLiteral("rank%1").arg(*t->rank());
    const EventId e = m_view ? m_view->selectedEvent() : kNone;
    if (m_report && t && e != kNone && e < t->slices().size()) {
        const Collective* c = m_report->collectiveOf(e);
        // The finding the picture tells (the Details pane's and the root cause panel's).
        const int index = flagged::findingOf(*m_report, e);
        const Finding* finding =
            index >= 0 ? &m_report->findings[static_cast<std::size_t>(index)] : nullptr;
        if (job && c && c->rank) parts << QStringLiteral("rank%1").arg(*c->rank);
        if (c && c->step) parts << QStringLiteral("step%1").arg(*c->step);
        if (finding) parts << qs(finding->rule);
    }
    parts << (composite ? QStringLiteral("report") : QStringLiteral("timeline"));
    QString file = parts.join('-');
    file.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._@-]+")), QStringLiteral("_"));
    return file + (scale > 1 ? QStringLiteral("@2x.") : QStringLiteral(".")) + suffix;
}

void AnnotationController::exportWithDialog(const QString& suffix, double scale, bool composite)
{
    if (!m_store.trace()) return;
    const QString suggested =
        QDir(exportDirectory()).filePath(exportFileName(suffix, scale, composite));
    // The dialog's theme row starts on the saved choice; what it picks is the menu's too.
    const std::optional<ExportChoice> choice =
        askExportFile(m_window, composite ? tr("Export report image") : tr("Export timeline"),
                      suggested, QString("%1 (*.%2)").arg(suffix.toUpper(), suffix));
    if (!choice) return;
    setExportTheme(choice->theme);
    const QString file = choice->file;
    QSettings().setValue(QStringLiteral("export/lastDir"), QFileInfo(file).absolutePath());
    QString error;
    if (!exportTo(file, scale, composite, &error))
        QMessageBox::critical(m_window, tr("Export failed"), error);
    else
        m_window->statusBar()->showMessage(tr("Exported %1").arg(file), 6000);
}

void AnnotationController::setSession(Session* session)
{
    connect(session, &Session::traceLoaded, this, [this](const TracePtr& t) { setTrace(t); });
    connect(session, &Session::traceReplaced, this, [this](const TracePtr& t) { setTrace(t); });
    // With the timeline's: the finding annotations drawn over it cost no second repaint.
    session->followReport(
        this,
        [this, session] {
            setReport(session->report());
            m_rankReports = session->rankReports();
        },
        m_view);
}

} // namespace rs
