#include "ui/appidentity.h"

#include <QApplication>

// The icon lives in the static library's resources: register them before the first use (the
// main window does too; registering twice is harmless).
static void initAppIdentityResources()
{
    Q_INIT_RESOURCE(resources);
}

namespace rs {

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
