#include "app/cacheoptions.h"

#include "core/cache/modelcache.h"

namespace rs::cli {

void addCacheOptions(QCommandLineParser& parser)
{
    parser.addOption({"no-cache", "Neither read nor write the model cache (docs/cache.md)."});
    parser.addOption({"cache-size",
                      "Size cap of the model cache (default 4G; a number alone is MiB; 0 keeps "
                      "nothing). Least recently used files go first.",
                      "SIZE"});
}

bool installCache(const QCommandLineParser& parser, std::string* error)
{
    if (parser.isSet("no-cache")) {
        ModelCache::setProcessCache(nullptr);
        return true;
    }
    std::uint64_t cap = ModelCache::kDefaultCapBytes;
    if (parser.isSet("cache-size")) {
        const std::optional<std::uint64_t> size = ModelCache::parseSize(parser.value("cache-size"));
        if (!size) {
            *error = "--cache-size takes a size such as 4G, 512M or 0";
            return false;
        }
        cap = *size;
    }
    ModelCache::setProcessCache(std::make_shared<ModelCache>(ModelCache::defaultDirectory(), cap));
    return true;
}

void finishCache()
{
    ModelCache::setProcessCache(nullptr);
}

} // namespace rs::cli
