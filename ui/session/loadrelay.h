#pragma once

// What the viewer's loads on the WorkPool share (the Session, the compare and the scaling
// windows): a generation token, so that a newer load or a cancel drops whatever an older one
// still delivers, and the relay of a load's progress onto the GUI thread as it changes (no
// polling timer).

#include "core/job/jobloader.h"

#include <QObject>

#include <functional>
#include <memory>

namespace rs {

class LoadGeneration {
public:
    // A new load (or anything that supersedes the one in flight): its token.
    quint64 next() { return ++m_value; }
    // Drops what is in flight: its result finds its token stale.
    void drop() { ++m_value; }
    bool current(quint64 token) const { return token == m_value; }
    quint64 value() const { return m_value; }

private:
    quint64 m_value = 0;
};

// Sets progress->onChange (called on pool threads as chunks are read and ranks end) to post
// fn(done, total, ranksDone, ranks) to receiver's thread while `token` is still current: at most
// about 200 times a load besides the rank ends, so a fast read of many small chunks does not
// flood the event loop. The generation must outlive the receiver's posted calls (a member of
// it).
void relayProgress(QObject* receiver, const LoadGeneration& generation, quint64 token,
                   const std::shared_ptr<JobProgress>& progress,
                   std::function<void(qint64 done, qint64 total, int ranksDone, int ranks)> fn);

} // namespace rs
