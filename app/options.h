#pragma once

#include "core/analysis/report.h"

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <string>

// What the subcommands share on the command line, written once: parsing with --help and the
// usage errors ("ringscope NAME: why", exit 2), the model cache's options (docs/cache.md), the
// memory budget and --fail-on.
namespace rs::cli {

// "ringscope COMMAND: why" on stderr; returns kExitInput.
int usageError(const char* command, const std::string& why);

// Parses `ringscope COMMAND ARGS`: nullopt to go on, else the exit code after printing the
// help (with helpTail after it) or the parse error. With loadsTraces, the model cache's options
// are read and the process's cache installed (addCacheOptions must have added them).
std::optional<int> parseCommand(QCommandLineParser& parser, const char* command,
                                const QStringList& args, bool loadsTraces,
                                const std::string& helpTail = {});

// The PATH... argument of a command that reads traces: what the producers read
// (core/producers/registry.h), with `extra` after it.
void addTracePaths(QCommandLineParser& parser, const QString& extra = {});

// --no-cache, --cache-size SIZE.
void addCacheOptions(QCommandLineParser& parser);
// Installs the process's cache (ModelCache::setProcessCache) as the options say; false with
// a message when --cache-size is not a size.
bool installCache(const QCommandLineParser& parser, std::string* error);
// Lets the cache go after a command (main()): writes still running are handed to a detached
// child process (ModelCache::detachWrites) and the process ends at once with code (_Exit,
// output flushed); with RINGSCOPE_CACHE_WAIT set, or nothing to hand over, the writes are
// waited for and it returns.
void finishCache(int code);

// --max-memory MiB.
void addMaxMemoryOption(QCommandLineParser& parser);
// The budget in bytes (0: the default, 75% of RAM); nullopt when --max-memory is no number
// (the caller reports it: "--max-memory takes a number of MiB").
std::optional<std::uint64_t> maxMemoryBytes(const QCommandLineParser& parser);

// --fail-on warning|error.
void addFailOnOption(QCommandLineParser& parser);
// The severity asked for (nullopt: none); false when the value is neither.
bool failOnSeverity(const QCommandLineParser& parser, std::optional<Severity>* severity);

} // namespace rs::cli
