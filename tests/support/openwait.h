#pragma once

// The viewer tests' first step: open paths in a MainWindow and wait until they are loaded and
// analysed. Header-only, since the test utility library links no widgets.

#include "bench/tracegen_seed.h"
#include "ui/mainwindow.h"

#include <QCoreApplication>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStringList>
#include <QTest>

#include <memory>

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

// A viewer test's window on the seed job o, written into dir: the test's own settings (test
// mode, cleared), 1600 x 1000, shown and the job open. Null when a step failed.
inline std::unique_ptr<MainWindow> openSeedJobWindow(const QString& app, const QString& dir,
                                                     const gen::SeedCaseOptions& o)
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RingscopeTest"));
    QCoreApplication::setApplicationName(app);
    QSettings().clear();
    if (!gen::writeSeedCaseJob(dir.toStdString(), o)) return nullptr;
    auto w = std::make_unique<MainWindow>();
    w->resize(1600, 1000);
    w->show();
    if (!QTest::qWaitForWindowExposed(w.get()) || !openAndWait(*w, {dir}) || !w->isJob())
        return nullptr;
    return w;
}

} // namespace rs::test
