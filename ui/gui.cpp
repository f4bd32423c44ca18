#include "ui/gui.h"

#include "ui/appidentity.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QFileInfo>

namespace rs {

void openFromCommandLine(MainWindow& window, const QStringList& arguments)
{
    QStringList paths;
    for (const QString& a : arguments)
        if (!a.isEmpty()) paths << a;
    if (paths.isEmpty())
        window.openSample();
    else
        window.openPaths(paths);
}

int runGui(int argc, char** argv)
{
    QApplication app(argc, argv);
    applyAppIdentity();
    MainWindow w;
    w.show();
    // Qt has removed its own options (-platform...) from arguments() by now.
    openFromCommandLine(w, QApplication::arguments().mid(1));
    return app.exec();
}

} // namespace rs
