// Build-time tool: renders the SVG application icon into the PNG sizes of the hicolor icon
// theme (for desktops and AppStream tools that want bitmaps), with the Qt Svg renderer the
// viewer already links, so the build needs no extra converter.
//   Usage: ringscope_iconrender ICON.svg OUTDIR SIZE...
//   Writes OUTDIR/<SIZE>x<SIZE>/apps/<ICON>.png for every SIZE.

#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QString>
#include <QSvgRenderer>

#include <cstdio>

int main(int argc, char** argv)
{
    if (argc < 4) {
        std::fprintf(stderr, "usage: ringscope_iconrender ICON.svg OUTDIR SIZE...\n");
        return 2;
    }
    const QString svg = QString::fromLocal8Bit(argv[1]);
    QSvgRenderer renderer(svg);
    if (!renderer.isValid()) {
        std::fprintf(stderr, "ringscope_iconrender: cannot read %s\n", argv[1]);
        return 1;
    }
    const QString base = QFileInfo(svg).completeBaseName();
    for (int i = 3; i < argc; ++i) {
        bool ok = false;
        const int size = QString::fromLatin1(argv[i]).toInt(&ok);
        if (!ok || size < 8 || size > 1024) {
            std::fprintf(stderr, "ringscope_iconrender: bad size %s\n", argv[i]);
            return 2;
        }
        QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        {
            QPainter painter(&image);
            painter.setRenderHint(QPainter::Antialiasing);
            renderer.render(&painter, QRectF(0, 0, size, size));
        }
        const QString dir =
            QStringLiteral("%1/%2x%2/apps").arg(QString::fromLocal8Bit(argv[2])).arg(size);
        const QString out = dir + QLatin1Char('/') + base + QStringLiteral(".png");
        if (!QDir().mkpath(dir) || !image.save(out, "PNG")) {
            std::fprintf(stderr, "ringscope_iconrender: cannot write %s\n", qPrintable(out));
            return 1;
        }
    }
    return 0;
}
