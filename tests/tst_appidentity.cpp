// The viewer's identity on the desktop: every window and dialog carries the application icon,
// and the desktop file name (how Wayland and docks match windows to the desktop entry) is the
// installed entry's id.
#include "tests/testutil.h"
#include "ui/appidentity.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QDialog>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QMessageBox>
#include <QStandardPaths>
#include <QTest>

using namespace rs;

namespace {

// Pixels drawn (alpha above half) in the icon at that size.
int drawnPixels(const QIcon& icon, int size)
{
    const QImage img = icon.pixmap(size, size).toImage();
    int n = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x)
            n += qAlpha(img.pixel(x, y)) > 128;
    return n;
}

} // namespace

class TstAppIdentity : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // MainWindow reads QSettings
        applyAppIdentity();
    }

    void iconRendersAtDesktopSizes()
    {
        const QIcon icon = appIcon();
        QVERIFY(!icon.isNull());
        for (int size : {16, 32, 64, 256})
            QVERIFY2(drawnPixels(icon, size) > size * size / 2, qPrintable(QString::number(size)));
    }

    void idNamesTheInstalledFiles()
    {
        QCOMPARE(QGuiApplication::desktopFileName(), QString::fromLatin1(kAppId));
        const QString src = QStringLiteral(RINGSCOPE_SOURCE_DIR "/resources/");
        for (const QString& f :
             {QStringLiteral("desktop/%1.desktop.in"), QStringLiteral("desktop/%1.metainfo.xml.in"),
              QStringLiteral("icons/%1.svg")})
            QVERIFY2(QFileInfo::exists(src + f.arg(QString::fromLatin1(kAppId))), qPrintable(f));
        // The desktop entry and the MIME types are written at build time from the producers.
        const QString built = QStringLiteral(RINGSCOPE_BINARY_DIR "/resources/");
        for (const QString& f : {QStringLiteral("%1.desktop"), QStringLiteral("%1.mime.xml"),
                                 QStringLiteral("%1.metainfo.xml")})
            QVERIFY2(QFileInfo::exists(built + f.arg(QString::fromLatin1(kAppId))), qPrintable(f));
    }

    void windowsAndDialogsUseTheIcon()
    {
        const qint64 key = QApplication::windowIcon().cacheKey();
        QVERIFY(!QApplication::windowIcon().isNull());
        MainWindow w;
        QCOMPARE(w.windowIcon().cacheKey(), key);
        QDialog dialog(&w);
        QCOMPARE(dialog.windowIcon().cacheKey(), key);
        QMessageBox box(QMessageBox::Warning, QStringLiteral("Cannot open trace"),
                        QStringLiteral("x"), QMessageBox::Ok, &w);
        QCOMPARE(box.windowIcon().cacheKey(), key);
        // A window shown on the screen hands the icon to the platform window.
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.windowHandle());
        QCOMPARE(w.windowHandle()->icon().cacheKey(), key);
    }
};

QTEST_MAIN(TstAppIdentity)
#include "tst_appidentity.moc"
