#include "ui/gui.h"

#include "ui/mainwindow.h"

#include <QApplication>
#include <QFileInfo>

namespace rs {

int runGui(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName("Ringscope");
    QApplication::setOrganizationName("Ringscope");
    QStringList files = QApplication::arguments().mid(1);
    MainWindow w;
    w.show();
    if (files.isEmpty())
        w.openSample();
    else
        w.openPaths(files);
    return app.exec();
}

} // namespace rs
