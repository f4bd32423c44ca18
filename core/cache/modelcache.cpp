#include "core/cache/modelcache.h"

#include "core/cache/tracecodec.h"
#include "core/workpool.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryFile>

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

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

ModelCache::ModelCache(QString dir, std::uint64_t capBytes) : m_dir(std::move(dir)), m_cap(capBytes)
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
                                          std::optional<int> rankHint, std::string_view readerId)
{
    const QString canonical = QFileInfo(QString::fromStdString(file)).canonicalFilePath();
    if (canonical.isEmpty()) return std::nullopt;
    // A database still being written keeps rows in its log: its size and mtime do not say.
    for (const char* side : {"-wal", "-journal"})
        if (QFileInfo(canonical + side).exists()) return std::nullopt;
    const int fd = ::open(canonical.toLocal8Bit().constData(), O_RDONLY | O_CLOEXEC);
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
        key = CacheKey{"path=" + canonical.toStdString() + text + std::string(readerId)};
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
    // Atomic as QSaveFile is (a temporary file renamed over the name) but without its fsync,
    // which forces the whole file (hundreds of MB) to disk first. Nothing needs it on disk: a
    // file cut by a crash before the kernel wrote it back fails its checksums and is rewritten.
    QTemporaryFile file(m_dir + QStringLiteral("/write-XXXXXX") + kTempSuffix);
    if (!file.open()) return false;
    const auto sink = [](void* context, const char* data, std::size_t size) {
        const int fd = *static_cast<int*>(context);
        while (size) {
            const ssize_t n = ::write(fd, data, std::min<std::size_t>(size, 1 << 30));
            if (n <= 0) return false;
            data += n;
            size -= static_cast<std::size_t>(n);
        }
        return true;
    };
    int fd = file.handle();
    if (!TraceCodec::write(trace, key.text, sourceFile, sink, &fd)) return false;
    if (::rename(QFile::encodeName(file.fileName()).constData(),
                 QFile::encodeName(pathFor(key)).constData()) != 0)
        return false;
    file.setAutoRemove(false);
    ++m_writes;
    evict();
    return true;
}

void ModelCache::storeLater(const CacheKey& key, const std::string& sourceFile, TracePtr trace,
                            std::optional<int> layoutRank, std::optional<int> rankHint,
                            std::string readerId)
{
    if (m_cap == 0 || !trace) return;
    {
        std::lock_guard lock(m_mutex);
        ++m_pending;
    }
    // Ends the pending write when the task ran, and also when the pool dropped it unrun
    // (WorkPool::quiesce at exit): waitForWrites() never waits for a task that will not come.
    struct Pending {
        ModelCache* cache;
        ~Pending()
        {
            std::lock_guard lock(cache->m_mutex);
            if (--cache->m_pending == 0) cache->m_idle.notify_all();
        }
    };
    const std::shared_ptr<Pending> pending(new Pending{this});
    WorkPool::global().post([this, pending, key, sourceFile, trace = std::move(trace), layoutRank,
                             rankHint, readerId = std::move(readerId)] {
        // A file replaced while it was read: the model may be of either content.
        const std::optional<CacheKey> now = keyOf(sourceFile, layoutRank, rankHint, readerId);
        if (now && now->text == key.text) store(key, sourceFile, *trace);
    });
}

void ModelCache::waitForWrites()
{
    std::unique_lock lock(m_mutex);
    m_idle.wait(lock, [this] { return m_pending == 0; });
}

void ModelCache::evict()
{
    QDir dir(m_dir);
    const QFileInfoList files = dir.entryInfoList({QStringLiteral("*") + kSuffix}, QDir::Files,
                                                  QDir::Time | QDir::Reversed);
    std::uint64_t total = 0;
    for (const QFileInfo& f : files)
        total += static_cast<std::uint64_t>(f.size());
    // Writes a crashed process left behind (a running write is minutes younger).
    const QDateTime hourAgo = QDateTime::currentDateTimeUtc().addSecs(-3600);
    for (const QFileInfo& f : dir.entryInfoList({QStringLiteral("*") + kTempSuffix}, QDir::Files))
        if (f.lastModified() < hourAgo) QFile::remove(f.filePath());
    // Oldest used first (Reversed: ascending mtime).
    for (const QFileInfo& f : files) {
        if (total <= m_cap) break;
        if (QFile::remove(f.filePath())) total -= static_cast<std::uint64_t>(f.size());
    }
}

} // namespace rs
