// Model cache benchmark (issue 28): first open without the cache, first open with it (the load
// returns, the write runs after on the pool: both timed), reopen (a hit: the file mapped),
// the cache file's size against the trace's, and `ringscope info --json` wall time on reopen
// when the binary is given.
//   bench_cache FILE... [--repeat N] [--cli PATH/ringscope] [--dir CACHE_DIR]
// The trace is read once first so every pass starts from the page cache; the cache file is
// in the page cache too when reopened (what a user who reopens a trace meets).
#include "core/cache/modelcache.h"
#include "core/cache/tracecodec.h"
#include "core/job/jobpipeline.h"
#include "core/producers/producer.h"
#include "core/traceloader.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

void warm(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) return;
    std::vector<char> buf(4 << 20);
    while (::read(fd, buf.data(), buf.size()) > 0) {
    }
    ::close(fd);
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

double cliSeconds(const std::string& cli, const std::string& path, const QString& dir,
                  const char* extra)
{
    const std::string cmd = "RINGSCOPE_CACHE_DIR='" + dir.toStdString() + "' '" + cli +
                            "' info --json " + extra + " '" + path + "' > /dev/null";
    const auto t0 = Clock::now();
    const int rc = std::system(cmd.c_str());
    const double s = since(t0);
    return rc == 0 ? s : -1;
}

void bench(const std::string& path, int repeat, const std::string& cli, const QString& root)
{
    using namespace rs;
    warm(path);
    const double mb = double(QFileInfo(QString::fromStdString(path)).size()) / 1e6;
    std::printf("%s: %.1f MB\n", path.c_str(), mb);

    // Without and with the cache in turn, so a machine that gets busier or quieter meanwhile
    // weighs on both alike.
    std::vector<double> plain, firstOpen, writes, reopen;
    std::uint64_t events = 0, fileBytes = 0;
    for (int r = 0; r < repeat; ++r) {
        auto t0 = Clock::now();
        LoadResult res = loadTrace(path);
        plain.push_back(since(t0));
        if (!res.complete()) {
            std::printf("  load failed: %s\n", res.message.c_str());
            return;
        }
        events = res.trace->stats().events;
        res = LoadResult();

        const QString dir = root + QStringLiteral("/run%1").arg(r);
        QDir(dir).removeRecursively();
        auto cache = std::make_shared<ModelCache>(dir);
        LoadOptions o;
        o.cache = cache;
        t0 = Clock::now();
        res = loadTrace(path, o);
        firstOpen.push_back(since(t0));
        t0 = Clock::now();
        cache->waitForWrites();
        writes.push_back(since(t0));
        res = LoadResult();
        QString cacheFile;
        for (const QFileInfo& f : QDir(dir).entryInfoList({"*.rsmodel"}, QDir::Files)) {
            fileBytes = static_cast<std::uint64_t>(f.size());
            cacheFile = f.filePath();
        }
        // Where a reopen's time goes: mapping the file, then the reader (checksums, strings,
        // the small arrays, the validation pass).
        if (r == 0 && !cacheFile.isEmpty()) {
            const int fd = ::open(cacheFile.toLocal8Bit().constData(), O_RDONLY);
            t0 = Clock::now();
            void* m = ::mmap(nullptr, fileBytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
            const double mapS = since(t0);
            ::close(fd);
            if (m != MAP_FAILED) {
                t0 = Clock::now();
                const std::uint64_t h = hash64(m, fileBytes);
                const double hashS = since(t0);
                t0 = Clock::now();
                std::string why;
                const TracePtr t =
                    TraceCodec::read(std::shared_ptr<const void>(), static_cast<const char*>(m),
                                     fileBytes, {}, path, &why);
                const double readS = since(t0);
                std::printf("  reopen parts: map %.3f s, hash of the whole file %.3f s (%.1f GB/s, "
                            "%llx), reader %.3f s%s\n",
                            mapS, hashS, double(fileBytes) / hashS / 1e9,
                            static_cast<unsigned long long>(h & 0xff), readS,
                            t ? "" : (" (refused: " + why + ")").c_str());
                ::munmap(m, fileBytes);
            }
        }
        t0 = Clock::now();
        LoadResult hit = loadTrace(path, o);
        reopen.push_back(since(t0));
        if (!hit.trace || !hit.trace->mapped())
            std::printf("  reopen was not a hit: %s\n", cache->lastRejection().c_str());
        hit = LoadResult();
        QDir(dir).removeRecursively();
    }
    std::printf("  events %llu\n", static_cast<unsigned long long>(events));
    {
        // What the cache adds to a load before it returns: the key (a stat and ~200 KiB read).
        const ResolvedPath where = resolveTracePath(path);
        const auto t0 = Clock::now();
        for (int i = 0; i < 20; ++i)
            (void)ModelCache::keyOf(where.file, where.rank, std::nullopt, where.reader->id());
        std::printf("  key (stat + sampled blocks): %.2f ms\n", since(t0) / 20 * 1e3);
    }
    std::printf("  first open, no cache:        %.3f s (median of %d)\n", median(plain), repeat);
    const double p = median(plain), f = median(firstOpen);
    std::printf("  first open, writing cache:   %.3f s load (%+.1f%%), then %.3f s write on the "
                "pool\n",
                f, (f / p - 1) * 100, median(writes));
    std::printf("  reopen (cache hit, mapped):  %.3f s (%.1fx faster)\n", median(reopen),
                p / median(reopen));
    std::printf("  cache file: %.1f MB = %.2fx the trace, %.1f bytes an event\n",
                double(fileBytes) / 1e6, double(fileBytes) / 1e6 / mb,
                events ? double(fileBytes) / double(events) : 0.0);
    {
        // The viewer's way in: the pipeline loads and analyses (what a usable view waits for).
        const QString dir = root + QStringLiteral("/pipeline");
        QDir(dir).removeRecursively();
        PipelineOptions po;
        po.load.cache = std::make_shared<ModelCache>(dir);
        std::vector<double> none, hit;
        for (int r = 0; r < repeat; ++r) {
            PipelineOptions plainOptions;
            auto t0 = Clock::now();
            (void)runPipeline(std::vector<std::string>{path}, plainOptions);
            none.push_back(since(t0));
            if (r == 0) {
                (void)runPipeline(std::vector<std::string>{path}, po);
                po.load.cache->waitForWrites();
            }
            t0 = Clock::now();
            (void)runPipeline(std::vector<std::string>{path}, po);
            hit.push_back(since(t0));
        }
        std::printf("  pipeline (load + analysis):  %.3f s without the cache, %.3f s reopen\n",
                    median(none), median(hit));
        QDir(dir).removeRecursively();
    }
    if (!cli.empty()) {
        const QString dir = root + QStringLiteral("/cli");
        QDir(dir).removeRecursively();
        std::vector<double> none, write, hit;
        for (int r = 0; r < repeat; ++r) {
            none.push_back(cliSeconds(cli, path, dir, "--no-cache"));
            QDir(dir).removeRecursively();
            write.push_back(cliSeconds(cli, path, dir, ""));
            hit.push_back(cliSeconds(cli, path, dir, ""));
        }
        QDir(dir).removeRecursively();
        std::printf("  ringscope info --json wall:  %.3f s --no-cache, %.3f s writing the cache "
                    "(%+.1f%%), %.3f s reopen\n",
                    median(none), median(write), (median(write) / median(none) - 1) * 100,
                    median(hit));
    }
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> files;
    int repeat = 3;
    std::string cli;
    QString dir;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--repeat" && i + 1 < argc)
            repeat = std::max(1, std::atoi(argv[++i]));
        else if (a == "--cli" && i + 1 < argc)
            cli = argv[++i];
        else if (a == "--dir" && i + 1 < argc)
            dir = QString::fromLocal8Bit(argv[++i]);
        else
            files.push_back(a);
    }
    if (files.empty()) {
        std::fprintf(stderr,
                     "usage: bench_cache FILE... [--repeat N] [--cli ringscope] [--dir DIR]\n");
        return 2;
    }
    QTemporaryDir tmp(dir.isEmpty() ? QDir::tempPath() + "/bench_cache-XXXXXX"
                                    : dir + "/bench_cache-XXXXXX");
    for (const std::string& f : files)
        bench(f, repeat, cli, tmp.path());
    return 0;
}
