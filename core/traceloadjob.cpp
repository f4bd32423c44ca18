#include "core/traceloadjob.h"

#include "core/job/pooltask.h"

#include <atomic>
#include <new>

namespace rs {

struct TraceLoadJob::Run {
    LoadProgress progress;
    std::atomic<std::uint64_t> posted{0}; // bytes of the last progress call queued
};

TraceLoadJob::TraceLoadJob(QObject* parent) : QObject(parent) {}

TraceLoadJob::~TraceLoadJob()
{
    // The pool thread ends soon after; the relay drops its calls to this gone object.
    cancel();
}

void TraceLoadJob::start(const QString& path, const LoadOptions& options)
{
    cancel();
    m_path = path;
    auto run = std::make_shared<Run>();
    m_run = run;
    const QueuedRelay relay(this);
    // A chunk read queues one progress call, unless less than 1/200 of the file came since the
    // last one: a fast load of many small chunks does not flood the GUI thread.
    run->progress.onAdvance = [relay, this, weak = std::weak_ptr<Run>(run)] {
        const std::shared_ptr<Run> r = weak.lock();
        if (!r) return;
        const std::uint64_t done = r->progress.done.load(std::memory_order_relaxed);
        const std::uint64_t total = r->progress.total.load(std::memory_order_relaxed);
        const std::uint64_t last = r->posted.load(std::memory_order_relaxed);
        if (done < total && done - last < total / 200) return;
        r->posted.store(done, std::memory_order_relaxed);
        relay.post([this, weak, done, total] {
            if (weak.lock() == m_run && m_run)
                emit progress(static_cast<qint64>(done), static_cast<qint64>(total));
        });
    };
    const std::string p = path.toStdString();
    WorkPool::global().post([relay, this, run, p, options, path] {
        auto result = std::make_shared<LoadResult>();
        try {
            *result = loadTrace(p, options, &run->progress);
        } catch (const std::bad_alloc&) { // the budget's projection was wrong: say so
            *result = LoadResult{};
            result->stop = LoadStop::OverBudget;
            result->message = "out of memory while loading " + p;
        }
        relay.post([this, run, path, result] {
            if (run != m_run) return; // superseded or cancelled and restarted
            m_run.reset();
            emit finished(path, result);
        });
    });
}

void TraceLoadJob::cancel()
{
    // The load stops at its next chunk and still reports (as cancelled) unless superseded.
    if (m_run) m_run->progress.cancel = true;
}

} // namespace rs
