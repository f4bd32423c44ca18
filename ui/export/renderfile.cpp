#include "ui/export/renderfile.h"

#include <QApplication>
#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

#include <algorithm>

namespace rs {

bool renderToFile(const QString& file, QSizeF size, const RenderFileOptions& options,
                  const std::function<void(QPainter&)>& paint, QString* error)
{
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    QPainter own;
    QPainter& p = options.painter ? *options.painter : own;
    const QString suffix = QFileInfo(file).suffix().toLower();
    if (suffix == QLatin1String("png")) {
        const double scale = std::clamp(options.scale, 0.25, 4.0);
        QImage image((size * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
        if (image.isNull()) return fail(QStringLiteral("not enough memory for the image"));
        image.setDevicePixelRatio(scale);
        image.fill(options.background.isValid() ? options.background : QColor(Qt::transparent));
        if (!p.begin(&image)) return fail(QStringLiteral("could not write %1").arg(file));
        paint(p);
        p.end();
        if (!image.save(file, "PNG")) return fail(QStringLiteral("could not write %1").arg(file));
        return true;
    }
    if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setFileName(file);
        svg.setSize(size.toSize());
        svg.setViewBox(QRectF(QPointF(0, 0), size));
        svg.setResolution(96);
        svg.setTitle(options.title);
        if (!p.begin(&svg)) return fail(QStringLiteral("could not write %1").arg(file));
        paint(p);
        if (!p.end()) return fail(QStringLiteral("could not write %1").arg(file));
        return true;
    }
    if (suffix == QLatin1String("pdf")) {
        QPdfWriter pdf(file);
        pdf.setResolution(96); // one logical pixel = one device pixel at 96 dpi
        pdf.setPageSize(
            QPageSize(size * 72.0 / 96.0, QPageSize::Point, QString(), QPageSize::ExactMatch));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setTitle(options.title);
        pdf.setCreator(QStringLiteral("Ringscope"));
        if (!p.begin(&pdf)) return fail(QStringLiteral("could not write %1").arg(file));
        paint(p);
        if (!p.end()) return fail(QStringLiteral("could not write %1").arg(file));
        return true;
    }
    return fail(QStringLiteral("unknown image format for %1: use .png, .svg or .pdf").arg(file));
}

HeadlessApp::HeadlessApp()
{
    if (!QCoreApplication::instance()) {
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
        // QApplication keeps references to argc and argv: they outlive it.
        static int argc = 1;
        static char arg0[] = "ringscope";
        static char* argv[] = {arg0, nullptr};
        m_own = std::make_unique<QApplication>(argc, argv);
    } else {
        m_ok = qobject_cast<QApplication*>(QCoreApplication::instance()) != nullptr;
    }
}

HeadlessApp::~HeadlessApp() = default;

QString HeadlessApp::notAvailable()
{
    return QStringLiteral(
        "plot export needs a QApplication (this process made a QCoreApplication)");
}

} // namespace rs
