#include "ui/theme/theme.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QEvent>
#include <QPointer>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace rs {

namespace {

QColor rgb(QRgb v, int alpha = 255)
{
    QColor c(v);
    c.setAlpha(alpha);
    return c;
}

ThemePalette makeLight()
{
    ThemePalette p;
    p.isDark = false;
    p.window = rgb(0xefefef);
    p.base = rgb(0xffffff);
    p.alternateBase = rgb(0xf5f6f8);
    p.text = rgb(0x202226);
    p.dimText = rgb(0x70747a);
    p.button = rgb(0xeceef1);
    p.highlight = rgb(0x3074d0);
    p.highlightedText = rgb(0xffffff);
    p.link = rgb(0x1a5fb4);

    p.background = rgb(0xfbfbfc);
    p.grid = rgb(0xe4e6ea);
    p.header = rgb(0xe9ecf1);
    p.headerText = rgb(0x202226);
    p.labelBackground = rgb(0xf3f4f6);
    p.ruler = rgb(0xeef0f3);
    p.selection = rgb(0x101010);
    p.cursor = rgb(0xd03030);
    p.collective = rgb(0x4a86e8);
    p.collectiveOutline = rgb(0x1a3f8a);
    p.anomaly = rgb(0xe0102a);
    p.internalCopy = rgb(0xf08c2a);
    p.waiting = rgb(0x9a9a9a);
    p.flow = rgb(0x505060, 170);
    p.copyHatch = rgb(0x963c00);
    p.waitHatch = rgb(0x5a5a5a);
    p.unalignedEdge = rgb(0x5a0000);
    p.density = rgb(0x5f7699);
    p.searchRing = rgb(0xffc800);
    p.rangeBand = rgb(0x285ac8, 28);
    p.rangeLabel = rgb(0x285ac8);
    p.counter = rgb(0x5b8fd1);
    p.areaInk = rgb(0x326edc); // blue like Perfetto's area, apart from the selection outline
    p.areaFill = rgb(0x326edc, 40);
    p.inkOnMark = rgb(0xffffff);
    p.overlay = rgb(0x14161c, 230); // the keys overlay is dark in both themes
    p.overlayText = rgb(0xffffff);
    p.overlayKey = rgb(0xffd278);
    p.noteLabel = rgb(0xfffffa, 240);
    // Hues apart from each other and from the slice palette's pastels; dark enough on white.
    p.pathKind = {rgb(0x1e8a4c), rgb(0x2257c7), rgb(0xe0640a), rgb(0x0b8f99),
                  rgb(0xb58900), rgb(0x8e3fb0), rgb(0x7d7d7d)};
    p.pathInk = rgb(0xc2185b);
    p.plotPredicted = rgb(0xc2185b);

    p.computing = rgb(0x59a14f);
    p.overlapped = rgb(0x76b7b2);
    p.commNotOverlapped = rgb(0x2f6db5);
    p.free = rgb(0xc8c8c8);
    p.computingLine = rgb(0x1b5e20);
    p.communicationLine = rgb(0x0d47a1);
    p.plotCollective = rgb(0x4e79a7);
    p.plotMemcpy = rgb(0xf28e2b);
    p.plotWaiting = rgb(0x9a9a9a);
    p.plotAnomalous = rgb(0xd61f1f);
    p.modeMark = rgb(0x303030);
    p.plotHighlight = rgb(0x101010);
    p.plotHighlightBand = rgb(0xffd54f, 90);
    p.plotBackground = rgb(0xffffff);
    p.plotAxis = rgb(0x505050);
    p.plotGrid = rgb(0xdcdcdc);
    p.plotText = rgb(0x202020);
    p.plotDim = rgb(0x808080);
    p.plotGuide = rgb(0x909090);
    p.boxFill = rgb(0x000000, 12);
    p.boxPen = rgb(0x707070);
    p.boxMedian = rgb(0x505050);
    p.stepTime = rgb(0x5d4037); // brown: neither computing green nor collective blue
    p.transportLocal = rgb(0xb0b0b0);
    p.transportPcie = rgb(0xf28e2b);
    p.transportSio = rgb(0x2a9d8f);
    p.transportRdma = rgb(0x7b4fa8);
    p.transportOther = rgb(0x8c6d46);
    p.heatTextOnDark = rgb(0xffffff);
    p.heatTextOnLight = rgb(0x000000);
    p.breakdownIdle = rgb(0xe6e6e6);
    p.breakdownTrack = rgb(0xf0f0f0);
    p.better = rgb(0x1b7f3b);
    p.worse = rgb(0xc62828);
    p.heatLow = rgb(0x1f3b73);
    p.heatMid = rgb(0xe3a33b);
    p.heatHigh = rgb(0xc62828);

    p.page = rgb(0xffffff);
    p.pageText = rgb(0x141414);
    p.pageDim = rgb(0x6e6e6e);
    p.pageRule = rgb(0xc8c8c8);
    p.panel = rgb(0xfafaf7);
    p.panelRule = rgb(0xd2d2d2);
    p.frameBand = rgb(0x7b3fb5, 40);
    p.frameText = rgb(0x5a1e8c);
    p.severityError = rgb(0xc01020);
    p.severityWarning = rgb(0xc26a00);
    p.severityInfo = rgb(0x3060a0);
    return p;
}

ThemePalette makeDark()
{
    ThemePalette p = makeLight(); // the marks' inks that read on both stay as they are
    p.isDark = true;
    p.window = rgb(0x2b2d31);
    p.base = rgb(0x1e1f22);
    p.alternateBase = rgb(0x26282c);
    p.text = rgb(0xe6e6e6);
    p.dimText = rgb(0x9a9ea4);
    p.button = rgb(0x34363b);
    p.highlight = rgb(0x3d7be0);
    p.highlightedText = rgb(0xffffff);
    p.link = rgb(0x8ab4f8);

    p.background = rgb(0x1e1f22);
    p.grid = rgb(0x33353a);
    p.header = rgb(0x2b2e34);
    p.headerText = rgb(0xeeeeee);
    p.labelBackground = rgb(0x25272b);
    p.ruler = rgb(0x282a2f);
    p.selection = rgb(0xffffff);
    p.cursor = rgb(0xff6060);
    p.collectiveOutline = rgb(0xa8c8ff);
    p.anomaly = rgb(0xff2a40);
    p.flow = rgb(0xc0c0d0, 170);
    p.density = rgb(0x8aa3cc);
    p.rangeBand = rgb(0x78a0ff, 40);
    p.rangeLabel = rgb(0x3d6fd6);
    p.areaInk = rgb(0x5a8cf0);
    p.areaFill = rgb(0x5a8cf0, 60);
    p.noteLabel = rgb(0x202228, 235);
    p.pathKind = {rgb(0x5fd38d), rgb(0x6fa2ff), rgb(0xffa04d), rgb(0x4fd3dd),
                  rgb(0xffd24d), rgb(0xc792ea), rgb(0xa0a0a0)};
    p.pathInk = rgb(0xff6fa8);
    p.plotPredicted = rgb(0xff6fa8);

    p.free = rgb(0x5a5d63);
    p.computingLine = rgb(0x8bd38f);
    p.communicationLine = rgb(0x90b8f8);
    p.modeMark = rgb(0xd0d0d0);
    p.plotHighlight = rgb(0xf0f0f0);
    p.plotHighlightBand = rgb(0xffd54f, 60);
    p.plotBackground = rgb(0x1e1f22);
    p.plotAxis = rgb(0xa0a4aa);
    p.plotGrid = rgb(0x3a3d42);
    p.plotText = rgb(0xe0e0e0);
    p.plotDim = rgb(0x9a9ea4);
    p.plotGuide = rgb(0x80848a);
    p.boxFill = rgb(0xffffff, 16);
    p.boxPen = rgb(0xa0a4aa);
    p.boxMedian = rgb(0xd0d0d0);
    p.stepTime = rgb(0xbc8f7a);
    p.transportLocal = rgb(0x8a8d92);
    p.breakdownIdle = rgb(0x44474d);
    p.breakdownTrack = rgb(0x34363b);
    p.better = rgb(0x5cc27a);
    p.worse = rgb(0xff6b6b);
    p.heatLow = rgb(0x2a4f94);

    p.page = rgb(0x1e1f22);
    p.pageText = rgb(0xececec);
    p.pageDim = rgb(0xa0a4aa);
    p.pageRule = rgb(0x45484e);
    p.panel = rgb(0x26282c);
    p.panelRule = rgb(0x3a3d42);
    p.frameBand = rgb(0xb48ae0, 50);
    p.frameText = rgb(0xd4b4f4);
    p.severityError = rgb(0xff5a66);
    p.severityWarning = rgb(0xf0a040);
    p.severityInfo = rgb(0x7fa8e0);
    return p;
}

QPalette qtPaletteOf(const ThemePalette& t)
{
    QPalette p;
    p.setColor(QPalette::Window, t.window);
    p.setColor(QPalette::WindowText, t.text);
    p.setColor(QPalette::Base, t.base);
    p.setColor(QPalette::AlternateBase, t.alternateBase);
    p.setColor(QPalette::ToolTipBase, t.base);
    p.setColor(QPalette::ToolTipText, t.text);
    p.setColor(QPalette::PlaceholderText, t.dimText);
    p.setColor(QPalette::Text, t.text);
    p.setColor(QPalette::Button, t.button);
    p.setColor(QPalette::ButtonText, t.text);
    p.setColor(QPalette::BrightText, t.anomaly);
    p.setColor(QPalette::Highlight, t.highlight);
    p.setColor(QPalette::HighlightedText, t.highlightedText);
    p.setColor(QPalette::Link, t.link);
    p.setColor(QPalette::Light, t.button.lighter(130));
    p.setColor(QPalette::Midlight, t.button.lighter(115));
    p.setColor(QPalette::Mid, t.button.darker(130));
    p.setColor(QPalette::Dark, t.button.darker(160));
    p.setColor(QPalette::Shadow, t.isDark ? QColor(0, 0, 0) : t.button.darker(220));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, t.dimText);
    return p;
}

struct AppState {
    bool saved = false;
    QString style;
    QPalette palette;
    Theme theme = Theme::System;
    bool filterInstalled = false;
    bool applying = false; // inside applyTheme, which notifies once at its end
};

AppState& app()
{
    static AppState s;
    return s;
}

// Restyles each QCustomPlot when it is first shown and whenever the palette changes, so the
// plot views need no theme code of their own.
class PlotThemer : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        const QEvent::Type t = event->type();
        if (t == QEvent::Polish || t == QEvent::PaletteChange ||
            t == QEvent::ApplicationPaletteChange) {
            if (auto* plot = qobject_cast<QCustomPlot*>(watched)) {
                themePlot(plot, currentPalette());
                plot->replot(QCustomPlot::rpQueuedReplot);
            } else if (t == QEvent::ApplicationPaletteChange && watched == qApp &&
                       !app().applying) {
                // The desktop's palette changed under System: the palette in use did too.
                emit ThemeNotifier::instance()->changed();
            }
        }
        return QObject::eventFilter(watched, event);
    }
};

// Holds a plot's restyler as its child, so it goes with the plot.
class PlotRestyler : public QObject {
public:
    PlotRestyler(QCustomPlot* plot, std::function<void(const ThemePalette&)> fn)
        : QObject(plot), restyle(std::move(fn))
    {
        setObjectName(QStringLiteral("rs_plotRestyler"));
    }
    std::function<void(const ThemePalette&)> restyle;
};

PlotRestyler* restylerOf(QCustomPlot* plot)
{
    return dynamic_cast<PlotRestyler*>(
        plot->findChild<QObject*>(QStringLiteral("rs_plotRestyler"), Qt::FindDirectChildrenOnly));
}

void swapInk(QPen& pen, const ThemePalette& from, const ThemePalette& to, bool* changed)
{
    const QColor c = pen.color();
    const std::pair<QColor, QColor> inks[] = {{from.plotText, to.plotText},
                                              {from.modeMark, to.modeMark},
                                              {from.plotHighlight, to.plotHighlight},
                                              {from.plotAxis, to.plotAxis}};
    for (const auto& [a, b] : inks)
        if (c == a) {
            pen.setColor(b);
            *changed = true;
            return;
        }
}

void styleAxis(QCPAxis* axis, const ThemePalette& t)
{
    if (!axis) return;
    auto recolor = [&](QPen pen, const QColor& c) {
        pen.setColor(c);
        return pen;
    };
    axis->setBasePen(recolor(axis->basePen(), t.plotAxis));
    axis->setTickPen(recolor(axis->tickPen(), t.plotAxis));
    axis->setSubTickPen(recolor(axis->subTickPen(), t.plotAxis));
    axis->setTickLabelColor(t.plotText);
    axis->setLabelColor(t.plotText);
    axis->setSelectedTickLabelColor(t.plotText);
    if (QCPGrid* g = axis->grid()) {
        g->setPen(recolor(g->pen(), t.plotGrid));
        g->setSubGridPen(recolor(g->subGridPen(), t.plotGrid.lighter(t.isDark ? 80 : 105)));
        g->setZeroLinePen(g->zeroLinePen().style() == Qt::NoPen
                              ? g->zeroLinePen()
                              : recolor(g->zeroLinePen(), t.plotAxis));
    }
}

} // namespace

const ThemePalette& ThemePalette::light()
{
    static const ThemePalette p = makeLight();
    return p;
}

const ThemePalette& ThemePalette::dark()
{
    static const ThemePalette p = makeDark();
    return p;
}

QString themeName(Theme t)
{
    switch (t) {
    case Theme::Light:
        return QStringLiteral("light");
    case Theme::Dark:
        return QStringLiteral("dark");
    case Theme::System:
        break;
    }
    return QStringLiteral("system");
}

std::optional<Theme> themeFromName(const QString& name)
{
    const QString n = name.trimmed().toLower();
    if (n == QLatin1String("system")) return Theme::System;
    if (n == QLatin1String("light")) return Theme::Light;
    if (n == QLatin1String("dark")) return Theme::Dark;
    return std::nullopt;
}

Theme savedTheme()
{
    return themeFromName(QSettings().value(QStringLiteral("view/theme")).toString())
        .value_or(Theme::System);
}

void saveTheme(Theme t)
{
    QSettings().setValue(QStringLiteral("view/theme"), themeName(t));
}

bool paletteIsDark(const QPalette& palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

Theme currentTheme()
{
    return app().theme;
}

const ThemePalette& currentPalette()
{
    switch (app().theme) {
    case Theme::Light:
        return ThemePalette::light();
    case Theme::Dark:
        return ThemePalette::dark();
    case Theme::System:
        break;
    }
    return ThemePalette::of(qApp && paletteIsDark(QGuiApplication::palette()));
}

void applyTheme(Theme t)
{
    auto* a = qobject_cast<QApplication*>(QCoreApplication::instance());
    if (!a) return;
    AppState& s = app();
    if (!s.saved) {
        s.saved = true;
        s.style = QApplication::style() ? QApplication::style()->name() : QString();
        s.palette = QApplication::palette();
    }
    if (!s.filterInstalled) {
        a->installEventFilter(new PlotThemer(a));
        s.filterInstalled = true;
    }
    s.theme = t;
    // Only what changes: a new style re-polishes every widget.
    const QString style = t == Theme::System ? s.style : QStringLiteral("Fusion");
    if (!style.isEmpty() && QApplication::style() &&
        QApplication::style()->name().compare(style, Qt::CaseInsensitive) != 0)
        QApplication::setStyle(QStyleFactory::create(style));
    const QPalette palette =
        t == Theme::System ? s.palette : qtPaletteOf(ThemePalette::of(t == Theme::Dark));
    s.applying = true;
    if (palette != QApplication::palette()) QApplication::setPalette(palette);
    s.applying = false;
    // Every plot now, shown or not (a hidden tab, another window), data colours included;
    // the palette events alone reach only the widgets whose palette resolved differently.
    const ThemePalette& now = currentPalette();
    for (QWidget* w : QApplication::allWidgets())
        if (auto* plot = qobject_cast<QCustomPlot*>(w)) {
            themePlot(plot, now);
            plot->replot(QCustomPlot::rpQueuedReplot);
        }
    emit ThemeNotifier::instance()->changed();
}

ThemeNotifier* ThemeNotifier::instance()
{
    static ThemeNotifier* const n = new ThemeNotifier; // for the process' life
    return n;
}

void setPlotRestyler(QCustomPlot* plot, std::function<void(const ThemePalette&)> restyle)
{
    if (!plot) return;
    delete restylerOf(plot);
    auto* r = new PlotRestyler(plot, std::move(restyle));
    r->restyle(currentPalette());
}

void themePlot(QCustomPlot* plot, const ThemePalette& t)
{
    if (!plot) return;
    const ThemePalette& other = ThemePalette::of(!t.isDark);
    plot->setBackground(t.plotBackground);
    for (QCPAxisRect* rect : plot->axisRects()) {
        rect->setBackground(Qt::NoBrush);
        for (QCPAxis* axis : rect->axes())
            styleAxis(axis, t);
    }
    if (plot->legend) {
        plot->legend->setTextColor(t.plotText);
        plot->legend->setSelectedTextColor(t.plotText);
        if (plot->legend->brush().style() != Qt::NoBrush) plot->legend->setBrush(t.plotBackground);
        if (plot->legend->borderPen().style() != Qt::NoPen) {
            QPen pen = plot->legend->borderPen();
            pen.setColor(t.plotAxis);
            plot->legend->setBorderPen(pen);
        }
    }
    for (QCPLayoutElement* e : plot->plotLayout()->elements(true)) {
        if (auto* text = qobject_cast<QCPTextElement*>(e)) text->setTextColor(t.plotText);
        if (auto* scale = qobject_cast<QCPColorScale*>(e)) styleAxis(scale->axis(), t);
    }
    // Inks drawn in the other theme's text / mark colours follow; data colours stay.
    for (int i = 0; i < plot->plottableCount(); ++i) {
        QCPAbstractPlottable* pl = plot->plottable(i);
        QPen pen = pl->pen();
        bool changed = false;
        swapInk(pen, other, t, &changed);
        if (changed) pl->setPen(pen);
        if (auto* map = qobject_cast<QCPColorMap*>(pl)) {
            QCPColorGradient g = map->gradient();
            if (g.colorStops().value(0.0) == other.heatLow) {
                g.setColorStopAt(0.0, t.heatLow);
                map->setGradient(g);
            }
        }
    }
    for (int i = 0; i < plot->itemCount(); ++i) {
        QCPAbstractItem* item = plot->item(i);
        if (auto* text = qobject_cast<QCPItemText*>(item)) {
            if (text->color() == other.plotText || text->color() == other.modeMark)
                text->setColor(text->color() == other.plotText ? t.plotText : t.modeMark);
            continue;
        }
        for (const char* prop : {"pen"}) {
            const QVariant v = item->property(prop);
            if (!v.canConvert<QPen>()) continue;
            QPen pen = v.value<QPen>();
            bool changed = false;
            swapInk(pen, other, t, &changed);
            if (changed) item->setProperty(prop, QVariant::fromValue(pen));
        }
    }
    if (PlotRestyler* r = restylerOf(plot); r && r->restyle) r->restyle(t);
}

} // namespace rs
