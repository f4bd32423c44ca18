#include "ui/session/loadrelay.h"

#include "core/job/pooltask.h"

#include <algorithm>
#include <atomic>

namespace rs {

void relayProgress(QObject* receiver, const LoadGeneration& generation, quint64 token,
                   const std::shared_ptr<JobProgress>& progress,
                   std::function<void(qint64 done, qint64 total, int ranksDone, int ranks)> fn)
{
    const QueuedRelay relay(receiver);
    auto posted = std::make_shared<std::atomic<std::uint64_t>>(0);
    auto ranksPosted = std::make_shared<std::atomic<int>>(-1);
    const LoadGeneration* gen = &generation;
    progress->onChange = [relay, gen, token, posted, ranksPosted, fn = std::move(fn),
                          weak = std::weak_ptr<JobProgress>(progress)] {
        const std::shared_ptr<JobProgress> p = weak.lock();
        if (!p) return;
        const std::uint64_t total = p->total.load();
        const std::uint64_t done = std::min(p->bytesDone(), total);
        const int ranksDone = p->ranksDone.load();
        const std::uint64_t last = posted->load();
        if (ranksDone == ranksPosted->load() && done < total &&
            (done > last ? done - last : 0) < total / 200)
            return;
        posted->store(done);
        ranksPosted->store(ranksDone);
        // The generation is read on the receiver's thread only (the relay runs nothing once
        // the receiver is gone).
        relay.post([gen, token, fn, done, total, ranksDone, ranks = p->ranks.load()] {
            if (gen->current(token)) fn(qint64(done), qint64(total), ranksDone, ranks);
        });
    };
}

} // namespace rs
