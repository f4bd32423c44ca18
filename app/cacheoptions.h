#pragma once

#include <QCommandLineParser>

#include <string>

// The model cache's options, the same on every subcommand that loads traces (docs/cache.md).
namespace rs::cli {

// --no-cache, --cache-size SIZE.
void addCacheOptions(QCommandLineParser& parser);
// Installs the process's cache (ModelCache::setProcessCache) as the options say; false with
// a message when --cache-size is not a size.
bool installCache(const QCommandLineParser& parser, std::string* error);
// Waits for the cache writes still running and lets the cache go (main(), after a command).
void finishCache();

} // namespace rs::cli
