#pragma once

#include "core/traceloader.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>

namespace rs {

// Loads one trace on the WorkPool (the one owner of threads) and tells the GUI thread by
// queued calls: progress as each chunk is read, then finished. Starting a new load cancels
// the previous one and drops its result, so a superseded load can never overwrite a newer
// trace; a job destroyed mid-load cancels it and receives nothing.
class TraceLoadJob : public QObject {
    Q_OBJECT
public:
    explicit TraceLoadJob(QObject* parent = nullptr);
    ~TraceLoadJob() override;

    void start(const QString& path, const LoadOptions& options = {});
    void cancel();
    bool isRunning() const { return m_run != nullptr; }
    QString path() const { return m_path; }

signals:
    void progress(qint64 done, qint64 total);
    void finished(const QString& path, std::shared_ptr<rs::LoadResult> result);

private:
    struct Run;

    std::shared_ptr<Run> m_run; // the load in flight; a result from another run is dropped
    QString m_path;
};

} // namespace rs
