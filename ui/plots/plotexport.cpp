#include "ui/plots/plotexport.h"
#include "ui/export/renderfile.h"

#include "ui/theme/theme.h"

#include "ui/comm/commmatrixview.h"
#include "ui/plots/distributionview.h"
#include "ui/plots/stepsview.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>

#include <memory>

namespace rs {

namespace {

void setError(QString* error, const QString& text)
{
    if (error) *error = text;
}

} // namespace

namespace plots {

bool savePlotFile(QCustomPlot* plot, const QString& file, QSize size, QString* error)
{
    if (!plot) {
        setError(error, QStringLiteral("no plot"));
        return false;
    }
    if (size.isEmpty()) size = plot->size();
    if (size.width() < 50 || size.height() < 50 || size.width() > 20000 || size.height() > 20000) {
        setError(error, QStringLiteral("size %1x%2 is out of range (50..20000 pixels)")
                            .arg(size.width())
                            .arg(size.height()));
        return false;
    }
    // QCustomPlot paints itself through its own painter type; a PDF as its savePdf does
    // (vectorized, no cosmetic pens), the background its own.
    const QString suffix = QFileInfo(file).suffix().toLower();
    if (suffix != QLatin1String("png") && suffix != QLatin1String("svg") &&
        suffix != QLatin1String("pdf")) {
        setError(error, QStringLiteral("unknown image format '%1': use .png, .svg or .pdf")
                            .arg(suffix.isEmpty() ? file : suffix));
        return false;
    }
    const bool pdf = suffix == QLatin1String("pdf");
    QCPPainter painter;
    RenderFileOptions o;
    o.title = QStringLiteral("Ringscope plot");
    o.painter = &painter;
    const QBrush background = plot->background();
    if (background.style() == Qt::SolidPattern) o.background = background.color();
    return renderToFile(
        file, QSizeF(size), o,
        [&](QPainter&) {
            painter.setMode(QCPPainter::pmNoCaching);
            if (pdf) {
                painter.setMode(QCPPainter::pmVectorized);
                painter.setMode(QCPPainter::pmNonCosmetic);
            }
            plot->toPainter(&painter, size.width(), size.height());
        },
        error);
}

void addExportActions(QMenu* menu, QCustomPlot* plot, QWidget* dialogParent,
                      const QString& baseName)
{
    const struct {
        const char* label;
        const char* suffix;
        const char* filter;
    } formats[] = {{"Export as PNG…", "png", "PNG image (*.png)"},
                   {"Export as SVG…", "svg", "SVG drawing (*.svg)"},
                   {"Export as PDF…", "pdf", "PDF document (*.pdf)"}};
    for (const auto& f : formats) {
        const QString suffix = QString::fromLatin1(f.suffix);
        const QString filter = QString::fromLatin1(f.filter);
        menu->addAction(QObject::tr(f.label), dialogParent, [=] {
            QString file =
                QFileDialog::getSaveFileName(dialogParent, QObject::tr("Export plot"),
                                             baseName + QLatin1Char('.') + suffix, filter);
            if (file.isEmpty()) return;
            if (QFileInfo(file).suffix().isEmpty()) file += QLatin1Char('.') + suffix;
            QString error;
            if (!savePlotFile(plot, file, plot->size(), &error))
                QMessageBox::warning(dialogParent, QObject::tr("Export plot"), error);
        });
    }
}

} // namespace plots

bool exportPlot(const std::vector<ReportPtr>& reports, const QString& view, const QString& outFile,
                QSize size, QString* error, bool dark)
{
    if (view != QLatin1String("steps") && view != QLatin1String("distribution") &&
        view != QLatin1String("matrix")) {
        setError(error,
                 QStringLiteral("unknown view '%1': use steps, distribution or matrix").arg(view));
        return false;
    }
    const QString suffix = QFileInfo(outFile).suffix().toLower();
    if (suffix != QLatin1String("png") && suffix != QLatin1String("svg") &&
        suffix != QLatin1String("pdf")) {
        setError(
            error,
            QStringLiteral("unknown image format for %1: use .png, .svg or .pdf").arg(outFile));
        return false;
    }
    // Widgets need a QApplication; a headless caller may not have one yet.
    const HeadlessApp app;
    if (!app.ok()) {
        setError(error, HeadlessApp::notAvailable());
        return false;
    }
    bool ok = false;
    if (view == QLatin1String("steps")) {
        StepsView w;
        w.resize(size);
        w.setReports(reports);
        themePlot(w.plot(), ThemePalette::of(dark));
        ok = plots::savePlotFile(w.plot(), outFile, size, error);
    } else if (view == QLatin1String("matrix")) {
        // Every step, every op type's total; a job's ranks merged onto global ranks.
        CommMatrixView w;
        w.resize(size);
        w.setReports(reports);
        themePlot(w.plot(), ThemePalette::of(dark));
        ok = plots::savePlotFile(w.plot(), outFile, size, error);
    } else {
        DistributionView w;
        w.resize(size);
        w.setReports(reports);
        themePlot(w.plot(), ThemePalette::of(dark));
        ok = plots::savePlotFile(w.plot(), outFile, size, error);
    }
    return ok;
}

} // namespace rs
