#include "core/cache/modelcache.h"

#include "core/cache/tracecodec.h"
#include "core/workpool.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QStandardPaths>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <utility>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rs {

namespace {

constexpr std::uint64_t kEdgeBlock = 64 << 10;
constexpr std::uint64_t kInnerBlock = 4 << 10;
constexpr int kInnerBlocks = 16;
const char* const kSuffix = ".rsmodel";
const char* const kTempSuffix = ".tmp";

bool readAt(int fd, char* buf, std::uint64_t size, std::uint64_t offset)
{
    while (size) {
        const ssize_t n = ::pread(fd, buf, size, static_cast<off_t>(offset));
        if (n <= 0) return false;
        buf += n;
        size -= static_cast<std::uint64_t>(n);
        offset += static_cast<std::uint64_t>(n);
    }
    return true;
}

// A read-only map of a whole file, unmapped when the last trace using it goes.
struct Mapping {
    void* data = MAP_FAILED;
    std::size_t size = 0;
    ~Mapping()
    {
        if (data != MAP_FAILED) ::munmap(data, size);
    }
};

} // namespace

std::string CacheKey::fileName() const
{
    char name[40];
    std::snprintf(name, sizeof name, "%016llx%s",
                  static_cast<unsigned long long>(hash64(text.data(), text.size())), kSuffix);
    return name;
}

ModelCache::ModelCache(QString dir, std::uint64_t capBytes)
    : m_dir(std::move(dir)), m_dirBytes(QFile::encodeName(m_dir).toStdString()), m_cap(capBytes)
{}

ModelCache::~ModelCache()
{
    waitForWrites();
}

QString ModelCache::defaultDirectory()
{
    const QString env = qEnvironmentVariable("RINGSCOPE_CACHE_DIR");
    if (!env.isEmpty()) return env;
    return QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation) +
           QStringLiteral("/ringscope");
}

std::optional<std::uint64_t> ModelCache::parseSize(const QString& text)
{
    static const QRegularExpression re(QStringLiteral("^\\s*(\\d+)\\s*([kmgt]?)(i?b)?\\s*$"),
                                       QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch m = re.match(text);
    if (!m.hasMatch()) return std::nullopt;
    bool ok = false;
    const std::uint64_t n = m.captured(1).toULongLong(&ok);
    if (!ok) return std::nullopt;
    // A bare number is MiB (as --max-memory takes it).
    const QString unit = m.captured(2).toLower();
    int shift = 20;
    if (unit == "k")
        shift = 10;
    else if (unit == "g")
        shift = 30;
    else if (unit == "t")
        shift = 40;
    else if (unit.isEmpty() && !m.captured(3).isEmpty())
        shift = 0; // "100b"
    if (n > (~std::uint64_t(0) >> shift)) return std::nullopt;
    return n << shift;
}

std::uint64_t ModelCache::sampleHash(int fd, std::uint64_t size)
{
    std::vector<char> buf;
    std::uint64_t h = 0;
    const auto block = [&](std::uint64_t offset, std::uint64_t n) {
        n = std::min(n, size - std::min(offset, size));
        buf.resize(n);
        if (n && !readAt(fd, buf.data(), n, offset)) n = 0;
        h = hash64(buf.data(), n, h ^ offset);
    };
    block(0, kEdgeBlock);
    if (size > 2 * kEdgeBlock) {
        const std::uint64_t inner = size - 2 * kEdgeBlock;
        for (int i = 0; i < kInnerBlocks; ++i)
            block(kEdgeBlock + inner * static_cast<std::uint64_t>(i) / kInnerBlocks, kInnerBlock);
    }
    if (size > kEdgeBlock)
        block(size > 2 * kEdgeBlock ? size - kEdgeBlock : kEdgeBlock, kEdgeBlock);
    return h;
}

std::optional<CacheKey> ModelCache::keyOf(const std::string& file, std::optional<int> layoutRank,
                                          std::optional<int> rankHint, std::string_view readerId,
                                          std::string_view part)
{
    // POSIX only: the detached writer (a fork's child) checks keys too.
    char* real = ::realpath(file.c_str(), nullptr);
    if (!real) return std::nullopt;
    const std::string canonical = real;
    std::free(real);
    // A database still being written keeps rows in its log: its size and mtime do not say.
    for (const char* side : {"-wal", "-journal"}) {
        struct stat log {};
        if (::stat((canonical + side).c_str(), &log) == 0) return std::nullopt;
    }
    const int fd = ::open(canonical.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    struct stat st {};
    std::optional<CacheKey> key;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
        char text[512];
        std::snprintf(text, sizeof text,
                      "\ndev=%llu\nino=%llu\nsize=%llu\nmtime_ns=%lld\nctime_ns=%lld\n"
                      "sample=%016llx\nrank=%d:%d\nhint=%d:%d\nformat=%u\nreader=",
                      static_cast<unsigned long long>(st.st_dev),
                      static_cast<unsigned long long>(st.st_ino),
                      static_cast<unsigned long long>(size),
                      static_cast<long long>(st.st_mtim.tv_sec) * 1000000000ll + st.st_mtim.tv_nsec,
                      static_cast<long long>(st.st_ctim.tv_sec) * 1000000000ll + st.st_ctim.tv_nsec,
                      static_cast<unsigned long long>(sampleHash(fd, size)), layoutRank.has_value(),
                      layoutRank.value_or(0), rankHint.has_value(), rankHint.value_or(0),
                      TraceCodec::kVersion);
        key = CacheKey{"path=" + canonical + text + std::string(readerId)};
        // One rank of a file that holds several: a key of its own (none before: unchanged).
        if (!part.empty()) key->text += "\npart=" + std::string(part);
    }
    ::close(fd);
    return key;
}

namespace {
std::mutex g_processCacheMutex;
std::shared_ptr<ModelCache> g_processCache;
} // namespace

std::shared_ptr<ModelCache> ModelCache::processCache()
{
    std::lock_guard lock(g_processCacheMutex);
    return g_processCache;
}

void ModelCache::setProcessCache(std::shared_ptr<ModelCache> cache)
{
    std::shared_ptr<ModelCache> old;
    {
        std::lock_guard lock(g_processCacheMutex);
        old = std::exchange(g_processCache, std::move(cache));
    }
    if (old) old->waitForWrites();
}

QString ModelCache::pathFor(const CacheKey& key) const
{
    return m_dir + QLatin1Char('/') + QString::fromStdString(key.fileName());
}

std::string ModelCache::lastRejection() const
{
    std::lock_guard lock(m_mutex);
    return m_lastRejection;
}

TracePtr ModelCache::find(const CacheKey& key, const std::string& sourceFile)
{
    const QString path = pathFor(key);
    const QByteArray local = path.toLocal8Bit();
    const int fd = ::open(local.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        ++m_misses;
        return nullptr;
    }
    struct stat st {};
    auto map = std::make_shared<Mapping>();
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
        map->size = static_cast<std::size_t>(st.st_size);
        // Populated up front: the checksums read every page anyway, and one call faults them
        // in far faster than page by page.
        map->data = ::mmap(nullptr, map->size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    }
    // Refreshes the file's mtime: eviction goes oldest used first.
    ::futimens(fd, nullptr);
    ::close(fd);
    std::string why = "empty or unreadable";
    TracePtr trace;
    if (map->data != MAP_FAILED) {
        const char* data = static_cast<const char*>(map->data);
        trace = TraceCodec::read(map, data, map->size, key.text, sourceFile, &why);
    }
    if (trace) {
        ++m_hits;
        return trace;
    }
    ++m_misses;
    ++m_rejected;
    {
        std::lock_guard lock(m_mutex);
        m_lastRejection = path.toStdString() + ": " + why;
    }
    // Never trusted again: the next load writes it anew.
    QFile::remove(path);
    return nullptr;
}

bool ModelCache::store(const CacheKey& key, const std::string& sourceFile, const Trace& trace)
{
    if (m_cap == 0 || !QDir().mkpath(m_dir)) return false;
    return writeModel(key, sourceFile, trace, nullptr, false);
}

namespace {

struct SinkTarget {
    int fd = -1;
    const std::atomic<bool>* stop = nullptr; // set: give up at the next chunk
};

bool writeChunks(void* context, const char* data, std::size_t size)
{
    const auto* target = static_cast<const SinkTarget*>(context);
    // Chunks of 8 MiB: a write handed to the detached child stops here within milliseconds.
    constexpr std::size_t kChunk = 8 << 20;
    while (size) {
        if (target->stop && target->stop->load(std::memory_order_relaxed)) return false;
        const ssize_t n = ::write(target->fd, data, std::min(size, kChunk));
        if (n <= 0) return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

} // namespace

bool ModelCache::writeModel(const CacheKey& key, const std::string& sourceFile, const Trace& trace,
                            const Write* done, bool inChild)
{
    // Atomic as QSaveFile is (a temporary file renamed over the name) but without its fsync,
    // which forces the whole file (hundreds of MB) to disk first. Nothing needs it on disk: a
    // file cut by a crash before the kernel wrote it back fails its checksums and is rewritten.
    std::string temp = m_dirBytes + "/write-XXXXXX" + kTempSuffix;
    const int suffix = static_cast<int>(std::strlen(kTempSuffix));
    int fd = -1;
    if (inChild) {
        fd = ::mkstemps(temp.data(), suffix);
    } else {
        // Made and recorded under the lock detachWrites() forks under: a file made here is
        // either in the child's list (it removes it) or not made at all.
        std::lock_guard lock(m_mutex);
        if (m_detached) return false;
        fd = ::mkstemps(temp.data(), suffix);
        if (fd >= 0 && done) done->temp = temp;
    }
    if (fd < 0) return false;
    SinkTarget target{fd, inChild ? nullptr : &m_detached};
    bool ok = TraceCodec::write(trace, key.text, sourceFile, writeChunks, &target);
    ok = ::close(fd) == 0 && ok;
    const std::string final = m_dirBytes + "/" + key.fileName();
    if (ok) {
        if (inChild) {
            ok = ::rename(temp.c_str(), final.c_str()) == 0;
        } else {
            // Under the lock that detachWrites() forks under: a write is either in place and
            // off the queue before the child is made, or given up here and redone there.
            std::lock_guard lock(m_mutex);
            ok = !m_detached && ::rename(temp.c_str(), final.c_str()) == 0;
            if (ok && done)
                std::erase_if(m_queue, [done](const auto& w) { return w.get() == done; });
            if (done) done->temp.clear();
        }
    }
    if (!ok) {
        ::unlink(temp.c_str());
        return false;
    }
    ++m_writes;
    evict();
    return true;
}

void ModelCache::storeLater(const CacheKey& key, const std::string& sourceFile, TracePtr trace,
                            std::optional<int> layoutRank, std::optional<int> rankHint,
                            std::string readerId, std::string part)
{
    if (m_cap == 0 || !trace || m_detached) return;
    auto write = std::make_shared<const Write>(Write{key,
                                                     sourceFile,
                                                     std::move(trace),
                                                     layoutRank,
                                                     rankHint,
                                                     std::move(readerId),
                                                     std::move(part),
                                                     {}});
    {
        std::lock_guard lock(m_mutex);
        ++m_pending;
        m_queue.push_back(write);
    }
    // Ends the pending write when the task ran, and also when the pool dropped it unrun
    // (WorkPool::quiesce at exit): waitForWrites() never waits for a task that will not come.
    struct Pending {
        ModelCache* cache;
        const Write* write;
        ~Pending()
        {
            std::lock_guard lock(cache->m_mutex);
            // Still queued: not written (skipped, failed, dropped). Once detached the queue is
            // the child's list and stays as it was.
            if (!cache->m_detached)
                std::erase_if(cache->m_queue, [this](const auto& w) { return w.get() == write; });
            if (--cache->m_pending == 0) cache->m_idle.notify_all();
        }
    };
    const std::shared_ptr<Pending> pending(new Pending{this, write.get()});
    WorkPool::global().post([this, pending, write] {
        if (m_detached || !QDir().mkpath(m_dir)) return;
        // A file replaced while it was read: the model may be of either content.
        const std::optional<CacheKey> now = keyOf(write->sourceFile, write->layoutRank,
                                                  write->rankHint, write->readerId, write->part);
        if (now && now->text == write->key.text)
            writeModel(write->key, write->sourceFile, *write->trace, write.get(), false);
    });
}

void ModelCache::waitForWrites()
{
    std::unique_lock lock(m_mutex);
    m_idle.wait(lock, [this] { return m_pending == 0; });
}

bool ModelCache::detachWrites()
{
    if (m_cap == 0 || !QDir().mkpath(m_dir)) return false; // the child makes no folder
    std::vector<std::shared_ptr<const Write>> writes;
    {
        std::lock_guard lock(m_mutex);
        if (m_queue.empty() || m_detached) return false;
        writes = m_queue;
        m_detached = true;
        // Under m_mutex: no write here renames its file while the child is being made.
        const pid_t pid = ::fork();
        if (pid == 0) runDetached(writes);
        if (pid < 0) {
            m_detached = false;
            return false;
        }
    }
    return true;
}

void ModelCache::runDetached(const std::vector<std::shared_ptr<const Write>>& writes)
{
    // Only this thread exists here, and whatever another thread of the parent held locked
    // (m_mutex, Qt's, the pool's) stays locked: POSIX calls, the codec, malloc (fork-safe in
    // glibc), then _exit without destructors or atexit handlers.
    ::setsid(); // no hangup or terminal signal when the parent's shell goes on
    const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0)
        for (int fd = 0; fd < 3; ++fd)
            ::dup2(null, fd);
    // Whatever reads the parent's pipes to their end (a shell's $(...), a test) sees it now.
    ::close_range(3, ~0u, 0);
    for (const auto& w : writes) {
        // The parent's half-written file (it may have ended without removing it).
        if (!w->temp.empty()) ::unlink(w->temp.c_str());
        const std::optional<CacheKey> now =
            keyOf(w->sourceFile, w->layoutRank, w->rankHint, w->readerId, w->part);
        if (now && now->text == w->key.text)
            writeModel(w->key, w->sourceFile, *w->trace, nullptr, true);
    }
    ::_exit(0);
}

void ModelCache::evict()
{
    DIR* dir = ::opendir(m_dirBytes.c_str());
    if (!dir) return;
    struct Entry {
        std::int64_t mtimeNs;
        std::uint64_t size;
        std::string path;
    };
    std::vector<Entry> files;
    std::uint64_t total = 0;
    const auto endsWith = [](std::string_view name, std::string_view suffix) {
        return name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
    };
    // Writes a crashed process left behind (a running write is minutes younger).
    const std::int64_t hourAgo = static_cast<std::int64_t>(::time(nullptr)) - 3600;
    while (const dirent* e = ::readdir(dir)) {
        const std::string_view name = e->d_name;
        const bool model = endsWith(name, kSuffix), temp = endsWith(name, kTempSuffix);
        if (!model && !temp) continue;
        std::string path = m_dirBytes + "/" + std::string(name);
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (temp) {
            if (st.st_mtim.tv_sec < hourAgo) ::unlink(path.c_str());
            continue;
        }
        const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
        total += size;
        files.push_back(
            {static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000ll + st.st_mtim.tv_nsec, size,
             std::move(path)});
    }
    ::closedir(dir);
    // Oldest used first.
    std::sort(files.begin(), files.end(),
              [](const Entry& a, const Entry& b) { return a.mtimeNs < b.mtimeNs; });
    for (const Entry& f : files) {
        if (total <= m_cap) break;
        if (::unlink(f.path.c_str()) == 0) total -= f.size;
    }
}

} // namespace rs
