#pragma once

// One way to write a picture to a file, for every export (the timeline and report composites,
// the compare image, the plots): the format from the suffix, PNG at a scale on a filled page,
// SVG and PDF at 96 dpi (one logical pixel = one device pixel; PDF pages sized in points), the
// same error texts everywhere. And the QApplication a headless caller (the CLI) needs to paint
// widgets.

#include <QColor>
#include <QSizeF>
#include <QString>

#include <functional>
#include <memory>

class QApplication;
class QPainter;

namespace rs {

struct RenderFileOptions {
    QString title;               // the SVG's and PDF's document title
    QColor background;           // PNG: the page's fill (invalid: transparent)
    double scale = 1;            // PNG: device pixels per logical pixel (0.25 .. 4)
    QPainter* painter = nullptr; // a painter of the caller's type (QCPPainter), else one here
};

// Paints paint(painter) into file, size in logical pixels. False with *error set when the
// suffix is none of png/svg/pdf, the image does not fit in memory or the file cannot be written.
bool renderToFile(const QString& file, QSizeF size, const RenderFileOptions& options,
                  const std::function<void(QPainter&)>& paint, QString* error);

// While it lives, there is a QApplication: the process's own, or one made here (offscreen
// when no platform is set), so a command-line export can build widgets and paint them.
// ok() is false when the process made a QCoreApplication (widgets cannot be made then).
class HeadlessApp {
public:
    HeadlessApp();
    ~HeadlessApp();
    HeadlessApp(const HeadlessApp&) = delete;
    HeadlessApp& operator=(const HeadlessApp&) = delete;
    bool ok() const { return m_ok; }
    // The error text for an export that cannot paint.
    static QString notAvailable();

private:
    std::unique_ptr<QApplication> m_own;
    bool m_ok = true;
};

} // namespace rs
