#include "tests/testutil.h"

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

QString binaryDir()
{
    return QStringLiteral(RINGSCOPE_BINARY_DIR);
}

LoadResult loadText(const std::string& json, const LoadOptions& options)
{
    return loadTraceFromMemory(json.data(), json.size(), options, "<test>");
}

} // namespace rs::test
