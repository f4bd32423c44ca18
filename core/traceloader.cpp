#include "core/traceloader.h"

#include "core/cache/modelcache.h"
#include "core/parallelloader.h"
#include "core/producers/producer.h"
#include "core/producers/registry.h"
#include "core/tracebuilder.h"

#include <algorithm>
#include <filesystem>

#include <sys/resource.h>
#include <unistd.h>

namespace rs {

std::uint64_t defaultMemoryBudget()
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long size = sysconf(_SC_PAGE_SIZE);
    std::uint64_t budget = pages <= 0 || size <= 0 ? 8ull << 30
                                                   : static_cast<std::uint64_t>(pages) *
                                                         static_cast<std::uint64_t>(size) / 4 * 3;
    // Under an address-space limit (ulimit -v) half of it: growing vectors and the threads'
    // heaps reserve more address space than they touch.
    rlimit as{};
    if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
        budget = std::min<std::uint64_t>(budget, static_cast<std::uint64_t>(as.rlim_cur) / 2);
    return budget;
}

ResolvedPath resolveTracePath(const std::string& path)
{
    producers::Resolved found = producers::resolve(path);
    ResolvedPath r;
    r.error = std::move(found.error);
    r.file = std::move(found.source.file);
    r.rank = found.source.rank;
    r.reader = found.producer;
    return r;
}

LoadResult loadTrace(const std::string& path, const LoadOptions& options, LoadProgress* progress)
{
    const ResolvedPath where = resolveTracePath(path);
    if (!where.error.empty()) {
        LoadResult r;
        r.stop = LoadStop::Unreadable;
        r.message = where.error;
        return r;
    }
    std::optional<CacheKey> key;
    const std::shared_ptr<ModelCache> cache =
        options.cache ? options.cache : ModelCache::processCache();
    if (cache) {
        key = ModelCache::keyOf(where.file, where.rank, options.rankHint, where.reader->id(),
                                options.part);
        if (TracePtr hit = key ? cache->find(*key, where.file) : nullptr;
            hit && (!options.maxMemoryBytes ||
                    hit->modelBytes() + hit->argsBytes() +
                            hit->stats().events * TraceBuilder::kLoadWorkingBytesPerEvent <=
                        options.maxMemoryBytes)) {
            // (A budget is held to what parsing would need: a load never passes with the cache
            // that fails without it.)
            LoadResult r;
            r.status = LoadStatus::Complete;
            r.trace = hit;
            r.warnings = hit->warnings();
            r.resolvedPath = where.file;
            if (progress) {
                std::error_code ec;
                const std::uint64_t size = std::filesystem::file_size(where.file, ec);
                progress->total = ec ? 0 : size;
                progress->done = ec ? 0 : size;
                if (progress->onAdvance) progress->onAdvance();
            }
            return r;
        }
    }
    LoadResult r = where.reader->read({where.file, where.rank, options.part}, options, progress);
    // Only whole reads are kept: a partial one may be of a file still being written.
    if (key && r.complete() && r.trace)
        cache->storeLater(*key, where.file, r.trace, where.rank, options.rankHint,
                          std::string(where.reader->id()), options.part);
    if (!r.message.empty() && !r.cancelled() && r.message.rfind(where.file, 0) != 0)
        r.message = where.file + ": " + r.message;
    return r;
}

LoadResult loadTraceFromMemory(const char* data, std::size_t size, const LoadOptions& options,
                               const std::string& name)
{
    return loadTraceBytes(data, size, name, options);
}

} // namespace rs
