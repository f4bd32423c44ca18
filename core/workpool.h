#pragma once

// The one owner of worker threads for loading and analysis (Qt Core free, plain C++).
//
// WorkPool::global() holds a fixed set of threads (the cores, or RINGSCOPE_THREADS), created
// once; nothing else in core starts threads. Work reaches it three ways:
//
//  - TaskGroup: run() queues tasks, wait() blocks until they all ended. The waiting thread runs
//    the group's still queued tasks itself, so a task may make its own group and wait (nested
//    parallel loops, a rank load whose tokenizer is parallel) without deadlock, even on a pool
//    of one thread, and a waiting thread is never idle while its work is queued.
//  - parallelFor() / inParallel(): the common shapes on a TaskGroup; the caller takes part.
//  - post(): fire and forget (the viewer's pipeline); completion is signalled by the task.
//
// MemoryGate admits memory-heavy work (rank loads) under one byte budget and a limit of items
// running at once, FIFO, without blocking a pool thread: an item starts when it fits.
//
// Rules for tasks: never block on anything but a TaskGroup (or a MemoryGate's wait()): a task
// that waits for a mutex-guarded condition another queued task must set can deadlock when no
// thread is free to run that task. Threads: the pool's own, plus threads that wait on a group
// (each runs its own group's tasks only).

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace rs {

class TaskGroup;

class WorkPool {
public:
    // The process-wide pool: RINGSCOPE_THREADS (1..256) when set, else the cores (at least 1).
    static WorkPool& global();

    explicit WorkPool(int threads);
    // Lets running tasks end, drops queued ones, joins the threads.
    ~WorkPool();
    WorkPool(const WorkPool&) = delete;
    WorkPool& operator=(const WorkPool&) = delete;

    int threadCount() const { return static_cast<int>(m_threads.size()); }
    // Runs fn on a pool thread some time later. An exception escaping fn is reported on
    // stderr and dropped: report failures through what fn writes.
    void post(std::function<void()> fn);
    // Drops posted tasks not started yet (and those posted meanwhile) and returns when no posted
    // task runs any more; the pool stays usable. The viewer calls it as its application object
    // goes, so no background task outlives main() and meets statics being destroyed.
    void quiesce();
    // True while a quiesce() waits (tests use it to order their steps).
    bool quiescing() const;

    // Most tasks running at once since the last reset, counting tasks run by waiting threads
    // (benchmarks report it next to the process's thread count).
    int peakRunning() const { return m_peakRunning.load(); }
    void resetPeakRunning() { m_peakRunning.store(m_running.load()); }

private:
    friend class TaskGroup;
    struct Group;
    struct Task {
        std::function<void()> fn;
        std::shared_ptr<Group> group; // null for post()
        std::atomic<bool> claimed{false};
    };
    void enqueue(std::shared_ptr<Task> task);
    void execute(Task& task);
    void workerLoop();

    std::vector<std::thread> m_threads;
    mutable std::mutex m_mutex;
    std::condition_variable m_cv;
    std::deque<std::shared_ptr<Task>> m_queue;
    bool m_stop = false;
    bool m_quiescing = false;
    int m_postedRunning = 0; // guarded by m_mutex
    std::condition_variable m_postedDone;
    std::atomic<int> m_running{0};
    std::atomic<int> m_peakRunning{0};
};

// Tasks one thread waits for. Destroying a group waits for it.
class TaskGroup {
public:
    explicit TaskGroup(WorkPool& pool = WorkPool::global());
    ~TaskGroup();
    TaskGroup(const TaskGroup&) = delete;
    TaskGroup& operator=(const TaskGroup&) = delete;

    // Queues fn; callable from any thread, also from a task of this group.
    void run(std::function<void()> fn);
    // Returns when every task run() so far (and those they ran) ended; runs queued ones on the
    // calling thread meanwhile. Rethrows the first exception a task threw (once).
    void wait();
    WorkPool& pool() const { return m_pool; }

private:
    WorkPool& m_pool;
    std::shared_ptr<WorkPool::Group> m_group;
};

// fn(i) for i in [0, n), in chunks of `grain` indices shared out dynamically over the pool's
// threads and the caller. Order of calls is unspecified; returns when all ended (rethrows).
void parallelFor(std::size_t n, const std::function<void(std::size_t)>& fn, std::size_t grain = 1,
                 WorkPool& pool = WorkPool::global());

// Runs a and b at once when a pool thread is free (b there), else one after the other on the
// caller. Work done is the same either way, so results must not depend on it.
template <typename A, typename B> void inParallel(A&& a, B&& b, WorkPool& pool = WorkPool::global())
{
    TaskGroup group(pool);
    group.run(std::function<void()>(std::forward<B>(b)));
    std::exception_ptr error;
    try {
        a();
    } catch (...) {
        error = std::current_exception();
    }
    group.wait();
    if (error) std::rethrow_exception(error);
}

// Admission of memory-heavy work under one budget. Each item says how many bytes it may hold
// at its peak; it starts (on a pool thread, FIFO) when that fits next to what running items
// reserved and finished items kept, and fewer than maxRunning run. An item that cannot fit
// even next to the kept bytes starts when no other item runs, with what is left as its limit
// (and its reservation), so it can refuse itself with a clear message instead of waiting
// forever. held() never exceeds the budget unless kept bytes do. The work returns how many bytes it
// keeps after it ends (a loaded model); release() gives them back later.
class MemoryGate {
public:
    // work(limit): limit = the budget minus what the others hold when it starts. Returns bytes
    // kept.
    using Work = std::function<std::uint64_t(std::uint64_t limit)>;

    MemoryGate(std::uint64_t budget, int maxRunning, WorkPool& pool = WorkPool::global());
    // Cancels queued items and waits for running ones.
    ~MemoryGate();
    MemoryGate(const MemoryGate&) = delete;
    MemoryGate& operator=(const MemoryGate&) = delete;

    void submit(std::uint64_t bytes, Work work);
    // Bytes kept by finished work given back (a rank freed after merging).
    void release(std::uint64_t bytes);
    // Queued items not started yet are dropped (running ones check their own cancel flag).
    void cancel();
    // Waits until every admitted item ended and nothing is queued (helps run them).
    void wait();

    std::uint64_t budget() const { return m_budget; }
    std::uint64_t held() const;
    // Highest held() (reservations of running items plus kept bytes) seen.
    std::uint64_t peakHeld() const;
    int peakRunningItems() const;

private:
    struct Item {
        std::uint64_t bytes;
        Work work;
    };
    void startReady(std::unique_lock<std::mutex>& lock);

    TaskGroup m_group;
    const std::uint64_t m_budget;
    const int m_maxRunning;
    mutable std::mutex m_mutex;
    std::deque<Item> m_queue;
    std::uint64_t m_held = 0, m_peak = 0;
    int m_runningItems = 0, m_peakItems = 0;
};

} // namespace rs
