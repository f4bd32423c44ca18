#pragma once

#include "core/traceloader.h"

#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>
#include <thread>

namespace rs {

// Loads a trace on a worker thread and reports progress to the GUI thread at least ten
// times a second. Starting a new load cancels the previous one and drops its result, so a
// superseded job can never overwrite a newer trace.
class TraceLoadJob : public QObject {
    Q_OBJECT
public:
    explicit TraceLoadJob(QObject* parent = nullptr);
    ~TraceLoadJob() override;

    void start(const QString& path, const LoadOptions& options = {});
    void cancel();
    bool isRunning() const { return m_running; }
    QString path() const { return m_path; }

signals:
    void progress(qint64 done, qint64 total);
    void finished(const QString& path, std::shared_ptr<rs::LoadResult> result);

private:
    struct Run;
    void poll();
    void stopWorker();

    std::shared_ptr<Run> m_run;
    std::thread m_thread;
    QTimer m_timer;
    QString m_path;
    bool m_running = false;
};

} // namespace rs
