#pragma once

// File > Compare…: pick BEFORE and AFTER (a trace file, a rank folder or a job folder each),
// or a list of runs on different card counts for the scaling view; then the compare or the
// scaling window opens and loads them.

#include <QDialog>
#include <QStringList>

class QCheckBox;
class QLineEdit;
class QListWidget;
class QTabWidget;

namespace rs {

class CompareDialog : public QDialog {
    Q_OBJECT
public:
    enum class Mode { BeforeAfter, Scaling };
    // before: proposed as BEFORE (the run open in the window), may be empty.
    explicit CompareDialog(const QString& before, QWidget* parent = nullptr);

    Mode mode() const;
    void setMode(Mode mode);
    QString beforePath() const;
    QString afterPath() const;
    void setPaths(const QString& before, const QString& after);
    QStringList scalingRuns() const;
    void setScalingRuns(const QStringList& runs);
    bool weak() const;

    // Opens the dialog and, when accepted, the window it asks for. Returns that window (it
    // deletes itself on close) or nullptr.
    static QWidget* run(QWidget* parent, const QString& currentPath);
    // Opens the window for the dialog's current choice (no dialog shown; tests).
    QWidget* openWindow(QWidget* parent) const;

private:
    QString browse(bool folder, const QString& start);
    void updateOk();

    QTabWidget* m_tabs = nullptr;
    QLineEdit* m_before = nullptr;
    QLineEdit* m_after = nullptr;
    QListWidget* m_runs = nullptr;
    QCheckBox* m_weak = nullptr;
};

} // namespace rs
