#pragma once

// Work for a Qt object on the WorkPool: the work runs on a pool thread and its result comes
// back as a queued call on the receiver's thread (a signal, not a polling timer). A receiver
// destroyed meanwhile drops what is still to come. The viewer opens jobs with it, so loading
// and analysis share the pool's threads with everything else.

#include "core/workpool.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QObject>

#include <functional>
#include <memory>
#include <mutex>

namespace rs {

// Once per process: as the application object goes (in main(), before statics are destroyed),
// queued background work is dropped and running work waited for. A window closed mid-analysis
// would otherwise leave a task running into static destruction.
inline void quiescePoolAtAppExit()
{
    // A static's guarded initialisation, not std::call_once: that one's thread-local state
    // made the binary import __tls_get_addr and so need ld-linux by name (tst_package).
    [[maybe_unused]] static const bool registered = [] {
        qAddPostRoutine([] { WorkPool::global().quiesce(); });
        return true;
    }();
}

// Delivers calls to one receiver from any thread until the receiver is destroyed.
class QueuedRelay {
public:
    explicit QueuedRelay(QObject* receiver) : m_state(std::make_shared<State>())
    {
        quiescePoolAtAppExit();
        m_state->target = receiver;
        // Runs in ~QObject on the receiver's thread, before its posted events are dropped.
        QObject::connect(receiver, &QObject::destroyed, [state = m_state] {
            std::lock_guard lock(state->mutex);
            state->target = nullptr;
        });
    }

    // fn runs on the receiver's thread later, unless the receiver is gone by then.
    void post(std::function<void()> fn) const
    {
        std::lock_guard lock(m_state->mutex);
        if (m_state->target)
            QMetaObject::invokeMethod(m_state->target, std::move(fn), Qt::QueuedConnection);
    }

private:
    struct State {
        std::mutex mutex;
        QObject* target = nullptr;
    };
    std::shared_ptr<State> m_state;
};

// Runs work() on the pool, then done(result) on receiver's thread. work must not throw (the
// pool drops what escapes, and done would never come).
template <typename Result>
void runOnPool(QObject* receiver, std::function<Result()> work, std::function<void(Result)> done)
{
    QueuedRelay relay(receiver);
    WorkPool::global().post([relay, work = std::move(work), done = std::move(done)]() mutable {
        auto result = std::make_shared<Result>(work());
        relay.post([done = std::move(done), result]() { done(std::move(*result)); });
    });
}

} // namespace rs
