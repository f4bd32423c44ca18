#pragma once

// The viewer tests' first step: open paths in a MainWindow and wait until they are loaded and
// analysed. Header-only, since the test utility library links no widgets.

#include "ui/mainwindow.h"

#include <QSignalSpy>
#include <QStringList>

namespace rs::test {

// False when the load or the analysis did not finish within three minutes each.
inline bool openAndWait(MainWindow& w, const QStringList& paths)
{
    QSignalSpy loaded(&w, &MainWindow::traceLoaded);
    QSignalSpy analysed(&w, &MainWindow::analysisFinished);
    w.openPaths(paths);
    if (!loaded.wait(180000)) return false;
    return analysed.count() > 0 || analysed.wait(180000);
}

} // namespace rs::test
