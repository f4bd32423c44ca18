#pragma once

// The model cache (docs/cache.md): a trace's built model kept on disk after a load, so that
// opening the same file again maps it instead of parsing it. One file per source file and
// rank in a directory (default $XDG_CACHE_HOME/ringscope), named by the hash of its key; the
// key is also stored inside and compared. Files are written atomically (a temporary file
// renamed, as QSaveFile does, without its fsync) on the WorkPool after the load has been
// handed over, trimmed to a size cap oldest-used first, and never trusted: whatever does not
// read back as a valid model (tracecodec.h) is deleted and written again after the next load.
// A process that ends before its writes do hands them to a child process (detachWrites), so
// its exit never waits for one. Writing, renaming and eviction are plain POSIX (the child
// of a fork may use nothing that another thread could have held locked).

#include "core/trace.h"

#include <QString>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace rs {

// What a cached model must match: the file's identity and content as far as a few reads
// tell, and how it was asked for. Any difference is a miss.
struct CacheKey {
    std::string text; // canonical path, device, inode, size, mtime and ctime in ns, sampled hash,
                      // rank from the layout and the rank hint, reader, format version
    std::string fileName() const; // hash of text, hex, ".rsmodel"
};

class ModelCache {
public:
    static constexpr std::uint64_t kDefaultCapBytes = 4ull << 30;

    // dir: where the files live (created when first written); capBytes 0: no file is kept.
    explicit ModelCache(QString dir = defaultDirectory(),
                        std::uint64_t capBytes = kDefaultCapBytes);
    ~ModelCache(); // waits for writes
    ModelCache(const ModelCache&) = delete;
    ModelCache& operator=(const ModelCache&) = delete;

    // RINGSCOPE_CACHE_DIR when set, else the generic cache location + "/ringscope"
    // ($XDG_CACHE_HOME/ringscope, ~/.cache/ringscope).
    static QString defaultDirectory();
    // "4096M", "4G", "512 MiB", "0": bytes; nullopt when not a size.
    static std::optional<std::uint64_t> parseSize(const QString& text);

    const QString& directory() const { return m_dir; }
    std::uint64_t capBytes() const { return m_cap; }

    // The key of a file as loaded now; nullopt when it cannot be cached (unreadable, not a
    // regular file, a database with a write-ahead log beside it). part: which of the file's
    // ranks (LoadOptions::part; empty: the whole file, and the key is as it always was).
    static std::optional<CacheKey> keyOf(const std::string& file, std::optional<int> layoutRank,
                                         std::optional<int> rankHint, std::string_view readerId,
                                         std::string_view part = {});
    // Hash of the sampled blocks: the first and last 64 KiB and 16 blocks of 4 KiB between.
    static std::uint64_t sampleHash(int fd, std::uint64_t size);

    // The cached model for key, mapped; null on a miss. A file that does not read back as a
    // valid model of that key is deleted. A hit marks the file as used (its mtime).
    TracePtr find(const CacheKey& key, const std::string& sourceFile);
    // Writes trace's model under key on the WorkPool (fire and forget; waitForWrites() joins),
    // unless the source file changed while it was read (its key again differs).
    void storeLater(const CacheKey& key, const std::string& sourceFile, TracePtr trace,
                    std::optional<int> layoutRank, std::optional<int> rankHint,
                    std::string readerId, std::string part = {});
    // The same, now, on the calling thread; false when not written.
    bool store(const CacheKey& key, const std::string& sourceFile, const Trace& trace);
    // Returns when no write started by storeLater() is queued or running.
    void waitForWrites();
    // Hands the writes storeLater() queued that have not ended yet to a child process (fork)
    // that redoes them on its own, detached (its own session, stdin/stdout/stderr on
    // /dev/null), and exits; here they stop at their next chunk (their temporary files
    // removed) and no later one starts. For a process about to exit (the command line, the
    // viewer as it closes): the caller then either lets the cache go, which waits for the
    // stops (a write computing its checksums stops after them), or ends at once (_Exit): a
    // temporary file left half-written here is removed by the child.
    // False when nothing was pending, no file is kept, or the fork failed: then nothing
    // changed and the writes go on here.
    bool detachWrites();
    // Deletes the least recently used files until the directory holds at most the cap.
    void evict();

    // The cache the application installed (the CLI from its options, the viewer from its
    // settings): what loadTrace() uses when LoadOptions::cache is null. Null unless installed,
    // so libraries and tests read and write nothing unless they ask.
    static std::shared_ptr<ModelCache> processCache();
    static void setProcessCache(std::shared_ptr<ModelCache> cache);

    // Counters (tests, benchmarks).
    std::uint64_t hits() const { return m_hits; }
    std::uint64_t misses() const { return m_misses; }
    std::uint64_t rejected() const { return m_rejected; } // found but invalid, deleted
    std::uint64_t writes() const { return m_writes; }
    std::string lastRejection() const;

private:
    // A write storeLater() queued, from then until its file is renamed into place or it is
    // given up.
    struct Write {
        CacheKey key;
        std::string sourceFile;
        TracePtr trace;
        std::optional<int> layoutRank, rankHint;
        std::string readerId;
        std::string part;
        // This process's temporary file while it writes (under m_mutex): the detached child
        // removes it, as this process may end without (detachWrites).
        mutable std::string temp;
    };
    QString pathFor(const CacheKey& key) const;
    // key's model written to a temporary file and renamed into place. In this process the
    // rename happens under m_mutex, only while the writes are not detached (then the queued
    // `done` is dropped in the same step); inChild: the detached child's, without locks.
    bool writeModel(const CacheKey& key, const std::string& sourceFile, const Trace& trace,
                    const Write* done, bool inChild);
    [[noreturn]] void runDetached(const std::vector<std::shared_ptr<const Write>>& writes);

    QString m_dir;
    std::string m_dirBytes; // m_dir as the file system names it
    std::uint64_t m_cap;
    std::atomic<std::uint64_t> m_hits{0}, m_misses{0}, m_rejected{0}, m_writes{0};
    mutable std::mutex m_mutex;
    std::condition_variable m_idle;
    int m_pending = 0;
    std::string m_lastRejection;
    std::vector<std::shared_ptr<const Write>> m_queue; // not ended yet (under m_mutex)
    std::atomic<bool> m_detached{false};               // handed to a child: stop writing here
};

using ModelCachePtr = std::shared_ptr<ModelCache>;

} // namespace rs
