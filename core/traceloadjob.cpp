#include "core/traceloadjob.h"

#include <atomic>

namespace rs {

struct TraceLoadJob::Run {
    LoadProgress progress;
    std::atomic<bool> done{false};
    std::shared_ptr<LoadResult> result;
};

TraceLoadJob::TraceLoadJob(QObject* parent) : QObject(parent)
{
    m_timer.setInterval(50);
    connect(&m_timer, &QTimer::timeout, this, &TraceLoadJob::poll);
}

TraceLoadJob::~TraceLoadJob()
{
    stopWorker();
}

void TraceLoadJob::stopWorker()
{
    if (m_run)
        m_run->progress.cancel = true;
    if (m_thread.joinable())
        m_thread.join();
    m_run.reset();
    m_running = false;
    m_timer.stop();
}

void TraceLoadJob::start(const QString& path, const LoadOptions& options)
{
    stopWorker();
    m_path = path;
    m_run = std::make_shared<Run>();
    m_running = true;
    std::shared_ptr<Run> run = m_run;
    const std::string p = path.toStdString();
    m_thread = std::thread([run, p, options]() {
        run->result = std::make_shared<LoadResult>(loadTrace(p, options, &run->progress));
        run->done.store(true, std::memory_order_release);
    });
    m_timer.start();
}

void TraceLoadJob::cancel()
{
    if (m_run)
        m_run->progress.cancel = true;
}

void TraceLoadJob::poll()
{
    if (!m_run)
        return;
    emit progress(static_cast<qint64>(m_run->progress.done.load()),
                  static_cast<qint64>(m_run->progress.total.load()));
    if (!m_run->done.load(std::memory_order_acquire))
        return;
    m_timer.stop();
    if (m_thread.joinable())
        m_thread.join();
    std::shared_ptr<LoadResult> result = m_run->result;
    m_run.reset();
    m_running = false;
    emit finished(m_path, result);
}

} // namespace rs
