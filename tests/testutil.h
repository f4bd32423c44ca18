#pragma once

#include "core/traceloader.h"

#include <QFileInfo>
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace rs::test {

// Folder of the real public traces (../shared/traces/public), or empty when absent.
QString publicTracesDir();
// Path of a file under the public traces; QSKIP-friendly: empty when ../shared is absent.
QString publicTrace(const QString& relative);
// The public traces of one rank that every golden test runs, as (data tag, path under
// publicTracesDir()): the text export's level0 run, the advisor's single NPU and the five
// Kineto sets. The tags name golden files: they stay.
struct PublicTraceCase {
    const char* tag;
    const char* path;
};
const std::vector<PublicTraceCase>& publicSingleRankTraces();
// The sets (folders) of the public traces, by name. The folder grows with new producers' runs:
// a test that walks every set asks unreadSet() and skips, with its message, a set that no
// producer reads yet.
QStringList publicSets();
// Why no producer reads the set (or path) yet, as job discovery says; empty when one does.
QString unreadSet(const QString& path);
QString testDataPath(const QString& name);
QString binaryDir();

// Whether the index-th of a list of heavy cases runs in this process: CTest may run one slow
// test as several processes, each given RS_TEST_SHARD="k/n" (runs indexes with index % n == k).
// Without the variable every case runs.
bool inShard(int index);

// Loads JSON text given in the test itself.
LoadResult loadText(const std::string& json, const LoadOptions& options = {});

} // namespace rs::test

// Skips the current test with a clear message when ../shared is not there (a user's clone).
#define RS_REQUIRE_PUBLIC_TRACES()                                                                 \
    do {                                                                                           \
        if (rs::test::publicTracesDir().isEmpty())                                                 \
            QSKIP("../shared/traces/public is absent: real-trace tests need it (CI has it)");      \
    } while (0)

// Skips the current test (or data row) of a public set that no producer reads yet, saying so.
#define RS_SKIP_UNREAD_SET(path)                                                                   \
    do {                                                                                           \
        const QString why_ = rs::test::unreadSet(path);                                            \
        if (!why_.isEmpty())                                                                       \
            QSKIP(qPrintable(QFileInfo(path).fileName() + ": no producer reads this set yet (" +   \
                             why_ + ")"));                                                         \
    } while (0)
