#include "tests/testutil.h"

#include <QByteArray>
#include <QDir>
#include <QFileInfo>

namespace rs::test {

QString publicTracesDir()
{
    const QString dir = QDir(QStringLiteral(RINGSCOPE_SHARED_DIR)).filePath("traces/public");
    return QFileInfo(dir).isDir() ? QDir(dir).absolutePath() : QString();
}

QString publicTrace(const QString& relative)
{
    const QString dir = publicTracesDir();
    return dir.isEmpty() ? QString() : QDir(dir).filePath(relative);
}

QString testDataPath(const QString& name)
{
    return QDir(QStringLiteral(RINGSCOPE_TEST_DATA)).filePath(name);
}

bool inShard(int index)
{
    const QList<QByteArray> parts = qgetenv("RS_TEST_SHARD").split('/');
    bool okK = false, okN = false;
    const int k = parts.size() == 2 ? parts[0].toInt(&okK) : 0;
    const int n = parts.size() == 2 ? parts[1].toInt(&okN) : 0;
    if (!okK || !okN || n <= 0 || k < 0 || k >= n) return true;
    return index % n == k;
}

QString binaryDir()
{
    return QStringLiteral(RINGSCOPE_BINARY_DIR);
}

LoadResult loadText(const std::string& json, const LoadOptions& options)
{
    return loadTraceFromMemory(json.data(), json.size(), options, "<test>");
}

} // namespace rs::test
