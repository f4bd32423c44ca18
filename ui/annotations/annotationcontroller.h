#pragma once

// Annotations and export in the viewer, self-contained: installs its actions (M marks,
// Shift+M notes, the timeline's context menu, File > Export…, File > Save annotations), the
// overlay that draws annotations on the timeline, the Notes pane, and asks before a window
// with unsaved annotations closes. The main window only tells it the trace and the report.

#include "core/analysis/report.h"
#include "core/annotations/annotationstore.h"
#include "ui/annotations/annotationpainter.h"
#include "ui/export/exportcomposer.h"
#include "ui/export/exportdialog.h"

#include <QObject>
#include <QPoint>

class QAction;
class QMainWindow;
class QMenu;
class QWidget;

namespace rs {

class Session;

class NotesPane;
class TimelineView;

class AnnotationController : public QObject {
    Q_OBJECT
public:
    // window: gets the actions (its "&File" menu when there is one, else a new one) and the
    // close guard; view: gets the overlay, the context menu and the keys.
    AnnotationController(QMainWindow* window, TimelineView* view);

    AnnotationStore* store() { return &m_store; }
    NotesPane* notesPane() const { return m_pane; }
    // Where the last frame of the view drew each annotation (view coordinates).
    const std::vector<PaintedAnnotation>& lastPainted() const { return m_painted; }

    // Save / Discard / Cancel when there are unsaved annotations; true when it may close.
    bool maybeSave(QWidget* parent);
    bool save(QWidget* parent);

    // M: a mark on the selected event (or the range picked on the ruler, or the view's centre).
    std::uint64_t addMark();
    // Shift+M: the same with a text asked for.
    std::uint64_t addNote(QWidget* parent);
    void editAnnotation(std::uint64_t id, QWidget* parent);
    void deleteAnnotation(std::uint64_t id);
    void jumpTo(std::uint64_t id);

    // Writes the view's range over every expanded track (the picture grows to fit), or only
    // the visible area when visibleAreaOnly(); composite adds the step plot and the call stack.
    bool exportTo(const QString& file, double scale, bool composite, QString* error);
    bool visibleAreaOnly() const;
    void setVisibleAreaOnly(bool on);
    // The exports' theme: File > Export > Theme and the save dialogs' Theme row (light for
    // print, dark, or as the view shows it), saved in QSettings export/theme.
    ExportTheme exportTheme() const;
    void setExportTheme(ExportTheme t);
    QMenu* exportThemeMenu() const { return m_exportThemeMenu; }
    // Whether exports are dark now (Dark, or View in a dark theme); setDarkExport picks Dark
    // or Light.
    bool darkExport() const;
    void setDarkExport(bool on);
    // The save dialog's start: the last export folder, else the trace's (job's) folder.
    QString exportDirectory() const;
    // Proposed file name: trace or job, rank, step and finding of the selection.
    QString exportFileName(const QString& suffix, double scale, bool composite) const;

public slots:
    // A new trace: the previous one's annotations must have been saved or discarded already
    // (call maybeSave first); loads the new one's sidecar and reports a bad one.
    void setTrace(rs::TracePtr trace);
    void setReport(rs::ReportPtr report);
    // Follows the viewer's session (ui/session): fills in as what is open changes.
    void setSession(Session* session);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void installActions();
    void refreshView();
    void showContextMenu(const QPoint& local, const QPoint& global);
    void exportWithDialog(const QString& suffix, double scale, bool composite);
    std::uint64_t labelAt(const QPoint& local) const;
    QString whereText(const Annotation& a) const;

    QMainWindow* m_window = nullptr;
    TimelineView* m_view = nullptr;
    AnnotationStore m_store;
    ReportPtr m_report;
    std::vector<ReportPtr> m_rankReports; // per rank, for the exports' step plot
    NotesPane* m_pane = nullptr;
    QAction* m_showAuto = nullptr;
    QAction* m_visibleOnly = nullptr;
    QMenu* m_exportThemeMenu = nullptr; // File > Export > Theme
    ExportTheme m_exportTheme = ExportTheme::Light;
    std::vector<PaintedAnnotation> m_painted; // last frame, for clicks on labels
    std::uint64_t m_selected = 0;
    EventRef m_arrowFrom; // set by "Arrow from here"
};

} // namespace rs
