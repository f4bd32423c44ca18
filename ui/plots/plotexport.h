#pragma once

// Plot export: the context-menu actions of the plots and the headless renderer behind
// `ringscope export --view steps|distribution`.

#include "core/analysis/report.h"

#include <QSize>
#include <QString>

#include <vector>

class QCustomPlot;
class QMenu;
class QWidget;

namespace rs {

// Renders the "steps", "distribution" or "matrix" (communication matrix) view of the reports (one
// per rank) into outFile; the format follows the suffix (.png, .svg, .pdf). size is in pixels (PDF:
// points). Needs no display: when no QApplication exists it makes a temporary one on the offscreen
// platform (a QCoreApplication-only process gets an error instead). The distribution view
// shows the signature group its combo box opens on (the one with most anomalous ops).
// Returns false and sets *error (when given) on failure.
// dark: the dark theme's chrome (default light, for print).
bool exportPlot(const std::vector<ReportPtr>& reports, const QString& view, const QString& outFile,
                QSize size, QString* error, bool dark = false);

namespace plots {

// Saves a plot as PNG, SVG or PDF (by suffix) at the given size; an empty size means the
// widget's size.
bool savePlotFile(QCustomPlot* plot, const QString& file, QSize size, QString* error);

// Adds "Export as PNG / SVG / PDF…" actions that ask for a file name and save the plot.
void addExportActions(QMenu* menu, QCustomPlot* plot, QWidget* dialogParent,
                      const QString& baseName);

} // namespace plots
} // namespace rs
