#include "ui/gui.h"

#include "ui/appidentity.h"
#include "ui/mainwindow.h"

#include "core/cache/modelcache.h"

#include <QApplication>
#include <QFileInfo>
#include <QSettings>

namespace rs {

void openFromCommandLine(MainWindow& window, const QStringList& arguments)
{
    QStringList paths;
    for (const QString& a : arguments)
        if (!a.isEmpty() && a != QLatin1String("--no-cache")) paths << a;
    if (paths.isEmpty())
        window.openSample();
    else
        window.openPaths(paths);
}

int runGui(int argc, char** argv)
{
    QApplication app(argc, argv);
    applyAppIdentity();
    // The model cache (docs/cache.md): on unless --no-cache or the setting cache/enabled says
    // no; its cap from cache/size (a size such as "4G").
    const QSettings settings;
    if (!QApplication::arguments().contains(QLatin1String("--no-cache")) &&
        settings.value(QStringLiteral("cache/enabled"), true).toBool()) {
        const std::optional<std::uint64_t> cap =
            ModelCache::parseSize(settings.value(QStringLiteral("cache/size"), "4G").toString());
        ModelCache::setProcessCache(std::make_shared<ModelCache>(
            ModelCache::defaultDirectory(), cap.value_or(ModelCache::kDefaultCapBytes)));
    }
    MainWindow w;
    w.show();
    // Qt has removed its own options (-platform...) from arguments() by now.
    openFromCommandLine(w, QApplication::arguments().mid(1));
    const int code = app.exec();
    // A write still running (a big trace opened just before closing) goes on in a detached
    // child: the window is gone, the process need not stay for it. The rest end while the
    // pool still runs.
    if (const auto cache = ModelCache::processCache();
        cache && !qEnvironmentVariableIsSet("RINGSCOPE_CACHE_WAIT"))
        cache->detachWrites();
    ModelCache::setProcessCache(nullptr);
    return code;
}

} // namespace rs
