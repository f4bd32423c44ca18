#include "core/workpool.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace rs {

// Tasks of one TaskGroup: counted until they end, and queued here too so that the waiting
// thread can claim the ones no pool thread took yet.
struct WorkPool::Group {
    std::mutex mutex;
    std::condition_variable cv;
    std::deque<std::shared_ptr<Task>> pending;
    std::size_t outstanding = 0;
    std::exception_ptr error;
};

namespace {

int defaultThreads()
{
    if (const char* env = std::getenv("RINGSCOPE_THREADS")) {
        const int n = std::atoi(env);
        if (n >= 1 && n <= 256) return n;
    }
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

} // namespace

WorkPool& WorkPool::global()
{
    // Constructed on first use, joined at exit (owners cancel their work before that).
    static WorkPool pool(defaultThreads());
    return pool;
}

WorkPool::WorkPool(int threads)
{
    threads = std::max(1, threads);
    m_threads.reserve(static_cast<std::size_t>(threads));
    for (int i = 0; i < threads; ++i)
        m_threads.emplace_back([this] { workerLoop(); });
}

WorkPool::~WorkPool()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        m_queue.clear(); // group tasks among them stay claimable by their waiters
    }
    m_cv.notify_all();
    for (std::thread& t : m_threads)
        t.join();
}

void WorkPool::enqueue(std::shared_ptr<Task> task)
{
    {
        std::lock_guard lock(m_mutex);
        if ((m_stop || m_quiescing) && !task->group) return;
        if (!m_stop) m_queue.push_back(std::move(task));
    }
    m_cv.notify_one();
}

void WorkPool::post(std::function<void()> fn)
{
    auto task = std::make_shared<Task>();
    task->fn = std::move(fn);
    enqueue(std::move(task));
}

void WorkPool::quiesce()
{
    std::unique_lock lock(m_mutex);
    m_quiescing = true;
    // Group tasks stay: a running posted task may be waiting for them.
    std::erase_if(m_queue, [](const std::shared_ptr<Task>& t) { return !t->group; });
    m_postedDone.wait(lock, [&] { return m_postedRunning == 0; });
    m_quiescing = false;
}

bool WorkPool::quiescing() const
{
    std::lock_guard lock(m_mutex);
    return m_quiescing;
}

void WorkPool::execute(Task& task)
{
    const int now = m_running.fetch_add(1) + 1;
    for (int peak = m_peakRunning.load(); now > peak;)
        if (m_peakRunning.compare_exchange_weak(peak, now)) break;
    std::exception_ptr error;
    try {
        task.fn();
    } catch (...) {
        error = std::current_exception();
    }
    task.fn = nullptr; // free captures before the waiter wakes
    m_running.fetch_sub(1);
    if (!task.group) {
        if (error) {
            try {
                std::rethrow_exception(error);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "ringscope: a background task failed: %s\n", e.what());
            } catch (...) {
                std::fprintf(stderr, "ringscope: a background task failed\n");
            }
        }
        return;
    }
    Group& g = *task.group;
    std::lock_guard lock(g.mutex);
    if (error && !g.error) g.error = error;
    --g.outstanding;
    g.cv.notify_all();
}

void WorkPool::workerLoop()
{
    for (;;) {
        std::shared_ptr<Task> task;
        {
            std::unique_lock lock(m_mutex);
            m_cv.wait(lock, [&] { return m_stop || !m_queue.empty(); });
            if (m_stop) return;
            task = std::move(m_queue.front());
            m_queue.pop_front();
            if (!task->group) ++m_postedRunning;
        }
        // A waiter may have run it already.
        if (!task->claimed.exchange(true)) execute(*task);
        if (!task->group) {
            std::lock_guard lock(m_mutex);
            if (--m_postedRunning == 0) m_postedDone.notify_all();
        }
    }
}

TaskGroup::TaskGroup(WorkPool& pool) : m_pool(pool), m_group(std::make_shared<WorkPool::Group>()) {}

TaskGroup::~TaskGroup()
{
    try {
        wait();
    } catch (...) {
        // The owner did not wait: the error has nowhere to go.
    }
}

void TaskGroup::run(std::function<void()> fn)
{
    auto task = std::make_shared<WorkPool::Task>();
    task->fn = std::move(fn);
    task->group = m_group;
    {
        std::lock_guard lock(m_group->mutex);
        ++m_group->outstanding;
        m_group->pending.push_back(task);
    }
    // Wake a waiter of this group too: it may be blocked with nothing to claim.
    m_group->cv.notify_all();
    m_pool.enqueue(std::move(task));
}

void TaskGroup::wait()
{
    WorkPool::Group& g = *m_group;
    std::unique_lock lock(g.mutex);
    for (;;) {
        while (!g.pending.empty() && g.pending.front()->claimed.load())
            g.pending.pop_front();
        if (g.outstanding == 0) break;
        if (!g.pending.empty()) {
            std::shared_ptr<WorkPool::Task> task = std::move(g.pending.front());
            g.pending.pop_front();
            lock.unlock();
            if (!task->claimed.exchange(true)) m_pool.execute(*task);
            lock.lock();
            continue;
        }
        g.cv.wait(lock);
    }
    g.pending.clear();
    if (g.error) {
        std::exception_ptr error = std::exchange(g.error, nullptr);
        lock.unlock();
        std::rethrow_exception(error);
    }
}

void parallelFor(std::size_t n, const std::function<void(std::size_t)>& fn, std::size_t grain,
                 WorkPool& pool)
{
    if (n == 0) return;
    grain = std::max<std::size_t>(grain, 1);
    const std::size_t chunks = (n + grain - 1) / grain;
    if (chunks == 1 || pool.threadCount() < 1) {
        for (std::size_t i = 0; i < n; ++i)
            fn(i);
        return;
    }
    std::atomic<std::size_t> next{0};
    auto drain = [&] {
        for (std::size_t c; (c = next.fetch_add(1)) < chunks;) {
            const std::size_t end = std::min(n, (c + 1) * grain);
            for (std::size_t i = c * grain; i < end; ++i)
                fn(i);
        }
    };
    TaskGroup group(pool);
    const std::size_t helpers =
        std::min<std::size_t>(chunks - 1, static_cast<std::size_t>(pool.threadCount()));
    for (std::size_t h = 0; h < helpers; ++h)
        group.run(drain);
    std::exception_ptr error;
    try {
        drain();
    } catch (...) {
        error = std::current_exception();
        next.store(chunks); // the others stop at their next chunk
    }
    group.wait();
    if (error) std::rethrow_exception(error);
}

MemoryGate::MemoryGate(std::uint64_t budget, int maxRunning, WorkPool& pool)
    : m_group(pool), m_budget(budget), m_maxRunning(std::max(1, maxRunning))
{}

MemoryGate::~MemoryGate()
{
    cancel();
    try {
        m_group.wait();
    } catch (...) {
    }
}

void MemoryGate::submit(std::uint64_t bytes, Work work)
{
    std::unique_lock lock(m_mutex);
    m_queue.push_back({bytes, std::move(work)});
    startReady(lock);
}

void MemoryGate::startReady(std::unique_lock<std::mutex>&)
{
    while (!m_queue.empty() && m_runningItems < m_maxRunning) {
        // Too big to fit next to the others: wait for them; alone it gets what is left.
        if (m_held + m_queue.front().bytes > m_budget && m_runningItems > 0) break;
        const std::uint64_t limit = m_budget > m_held ? m_budget - m_held : 1;
        // Alone and too big, it may use only what is left (its limit): reserve that.
        const std::uint64_t bytes = std::min(m_queue.front().bytes, limit);
        Item item = std::move(m_queue.front());
        m_queue.pop_front();
        m_held += bytes;
        ++m_runningItems;
        m_peak = std::max(m_peak, m_held);
        m_peakItems = std::max(m_peakItems, m_runningItems);
        auto work = std::make_shared<Work>(std::move(item.work));
        m_group.run([this, work, bytes, limit] {
            std::uint64_t kept = 0;
            std::exception_ptr error;
            try {
                kept = (*work)(limit);
            } catch (...) {
                error = std::current_exception();
            }
            work->operator=(nullptr);
            std::unique_lock lock(m_mutex);
            m_held = m_held - bytes + kept;
            m_peak = std::max(m_peak, m_held);
            --m_runningItems;
            startReady(lock);
            lock.unlock();
            if (error) std::rethrow_exception(error);
        });
    }
}

void MemoryGate::release(std::uint64_t bytes)
{
    std::unique_lock lock(m_mutex);
    m_held -= std::min(bytes, m_held);
    startReady(lock);
}

void MemoryGate::cancel()
{
    std::lock_guard lock(m_mutex);
    m_queue.clear();
}

void MemoryGate::wait()
{
    m_group.wait();
}

std::uint64_t MemoryGate::held() const
{
    std::lock_guard lock(m_mutex);
    return m_held;
}

std::uint64_t MemoryGate::peakHeld() const
{
    std::lock_guard lock(m_mutex);
    return m_peak;
}

int MemoryGate::peakRunningItems() const
{
    std::lock_guard lock(m_mutex);
    return m_peakItems;
}

} // namespace rs
