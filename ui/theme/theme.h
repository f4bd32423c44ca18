#pragma once

// Themes: one palette struct holds every colour of the UI, one definition each, for light and
// dark. The timeline's TimelineStyle, the plots (plots::colors and the QCustomPlot chrome), the
// heatmap, the panes (through the application palette) and the exports read it; nothing else
// spells a colour. View > Theme picks System, Light or Dark (saved in QSettings "view/theme").

#include <QColor>
#include <QObject>
#include <QPalette>
#include <QString>

#include <array>
#include <cstdint>
#include <functional>
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
    QColor areaInk, areaFill; // the Shift+dragged area (range x tracks) and its label
    QColor inkOnMark;         // text on a filled mark (cursor time, range and area labels)
    QColor overlay, overlayText, overlayKey; // the `?` keys overlay
    QColor noteLabel;                        // the box behind an annotation's text
    // The critical path (issue 44): a band per segment in its PathKind's ink (compute,
    // collective, internal_memcpy, copy, launch, host, idle), connectors at its jumps.
    std::array<QColor, 7> pathKind;
    QColor pathInk;

    // Plots (steps, distribution, scaling, communication, heatmap).
    QColor computing, overlapped, commNotOverlapped, free, computingLine, communicationLine;
    QColor plotCollective, plotMemcpy, plotWaiting, plotAnomalous, modeMark;
    QColor plotHighlight, plotHighlightBand;
    QColor plotPredicted; // the what-if's predicted step time over the measured one
    QColor plotBackground, plotAxis, plotGrid, plotText;
    QColor plotDim;                    // notes inside a plot ("no memcpy in this group")
    QColor plotGuide;                  // reference lines (the scaling plot's ideal 100%)
    QColor boxFill, boxPen, boxMedian; // the distribution's box plot
    QColor stepTime;                   // the scaling plot's step time (brown)
    // The communication matrix's transports (HCCS is plotCollective, mixed plotAnomalous).
    QColor transportLocal, transportPcie, transportSio, transportRdma, transportOther;
    QColor heatTextOnDark, heatTextOnLight; // cell values over the heatmap's ramp
    QColor breakdownIdle, breakdownTrack;   // the details pane's time breakdown and link bars
    QColor better, worse;                   // compare deltas: less time green, more red
    QColor heatLow, heatMid, heatHigh;      // the heatmap's ramp: navy -> amber -> red

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
// the palette's colours; inks drawn in the other theme's text colours are swapped; then the
// plot's restyler (below) recolours its data. Every plot is restyled at once when the theme
// changes (applyTheme, and an application event filter for palette changes of the desktop);
// call it for plots painted off screen (exports), with the page's palette.
void themePlot(QCustomPlot* plot, const ThemePalette& palette);
// A view whose data series take their colours from the palette (bars, points, lines, colour
// ramps) gives its plot a restyler: themePlot calls it after the chrome, so a theme change
// restyles the data too without rebuilding the plot (zoom and selection stay).
void setPlotRestyler(QCustomPlot* plot, std::function<void(const ThemePalette&)> restyle);
// Emits changed() after applyTheme() (or a desktop palette change while on System): widgets
// that keep colours outside a QCustomPlot (item foregrounds, rich text) refresh on it.
class ThemeNotifier : public QObject {
    Q_OBJECT
public:
    static ThemeNotifier* instance();
signals:
    void changed();

private:
    using QObject::QObject;
};

} // namespace rs
