#include "ui/appidentity.h"

#include "core/producers/registry.h"

#include <QStringList>

#include <QApplication>

// The icon lives in the static library's resources: register them before the first use (the
// main window does too; registering twice is harmless).
static void initAppIdentityResources()
{
    Q_INIT_RESOURCE(resources);
}

namespace rs {

QString traceFileFilter()
{
    QStringList globs;
    for (const std::string& g : producers::inputGlobs())
        globs << QString::fromStdString(g);
    return QObject::tr("Traces (%1);;All files (*)").arg(globs.join(QLatin1Char(' ')));
}

QIcon appIcon()
{
    initAppIdentityResources();
    return QIcon(QStringLiteral(":/icons/ringscope.svg"));
}

void applyAppIdentity()
{
    QApplication::setApplicationName(QStringLiteral("Ringscope"));
    QApplication::setOrganizationName(QStringLiteral("Ringscope"));
    QGuiApplication::setDesktopFileName(QString::fromLatin1(kAppId));
    QApplication::setWindowIcon(appIcon());
}

} // namespace rs
