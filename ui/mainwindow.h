#pragma once

#include "core/traceloadjob.h"

#include <QMainWindow>

class QLabel;
class QPlainTextEdit;
class QProgressBar;

namespace rs {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

    void openPaths(const QStringList& paths);
    void openSample();
    TracePtr trace() const { return m_trace; }

signals:
    void traceLoaded();

private:
    void onLoaded(const QString& path, std::shared_ptr<LoadResult> result);

    TraceLoadJob m_job;
    TracePtr m_trace;
    QPlainTextEdit* m_summary = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
};

} // namespace rs
