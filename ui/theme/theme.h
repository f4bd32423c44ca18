#pragma once

// Themes: one palette struct holds every colour of the UI, one definition each, for light and
// dark. The timeline's TimelineStyle, the plots (plots::colors and the QCustomPlot chrome), the
// heatmap, the panes (through the application palette) and the exports read it; nothing else
// spells a colour. View > Theme picks System, Light or Dark (saved in QSettings "view/theme").

#include <QColor>
#include <QPalette>
#include <QString>

#include <cstdint>
#include <optional>

class QCustomPlot;

namespace rs {

enum class Theme : std::uint8_t { System, Light, Dark };

struct ThemePalette {
    bool isDark = false;

    // Window chrome (the application's QPalette is made from these).
    QColor window, base, alternateBase, text, dimText, button, highlight, highlightedText, link;

    // Timeline surfaces.
    QColor background, grid, header, headerText, labelBackground, ruler;
    // Timeline marks. Slice fills hash over a palette readable on both (timelinerenderer.cpp).
    QColor selection, cursor, collective, collectiveOutline, anomaly, internalCopy, waiting, flow;
    QColor copyHatch, waitHatch, unalignedEdge, density, searchRing, rangeBand, rangeLabel;
    QColor counter;

    // Plots (steps, distribution, scaling, communication, heatmap).
    QColor computing, overlapped, commNotOverlapped, free, computingLine, communicationLine;
    QColor plotCollective, plotMemcpy, plotWaiting, plotAnomalous, modeMark;
    QColor plotHighlight, plotHighlightBand;
    QColor plotBackground, plotAxis, plotGrid, plotText;
    QColor heatLow, heatMid, heatHigh; // the heatmap's ramp: navy -> amber -> red

    // Exported pictures (title block, legend, call stack panel).
    QColor page, pageText, pageDim, pageRule, panel, panelRule, frameBand, frameText;
    QColor severityError, severityWarning, severityInfo;

    static const ThemePalette& light();
    static const ThemePalette& dark();
    static const ThemePalette& of(bool dark) { return dark ? ThemePalette::dark() : light(); }
};

QString themeName(Theme t); // "system", "light", "dark"
std::optional<Theme> themeFromName(const QString& name);
Theme savedTheme(); // QSettings "view/theme", System when unset
void saveTheme(Theme t);

// Applies a theme to the application: Light and Dark set the Fusion style and a palette made
// from ThemePalette; System restores the style and palette the application started with.
// Widgets get a PaletteChange; QCustomPlots are restyled (see themePlot). Needs a QApplication.
void applyTheme(Theme t);
Theme currentTheme();
// The palette in use: Light or Dark as applied; System follows the application palette.
const ThemePalette& currentPalette();
bool paletteIsDark(const QPalette& palette);

// The QCustomPlot chrome (background, axes, ticks, grid, labels, legend, colour scales) in
// the palette's colours; inks drawn in the other theme's text colours are swapped. Plots are
// restyled on their own when the theme changes (an application event filter); call it for
// plots painted off screen (exports).
void themePlot(QCustomPlot* plot, const ThemePalette& palette);

} // namespace rs
