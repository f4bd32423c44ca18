// What the window shows at 1280x800 (offscreen), and the composite report image: the Steps and
// Distribution plots' texts (axis titles, tick labels, legend items, tables) neither overprint
// each other nor leave the plot, and the Findings pane's Title column is on screen.
#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "tests/testutil.h"
#include "ui/export/exportcomposer.h"
#include "ui/mainwindow.h"
#include "ui/panes/findingspane.h"
#include "ui/plots/distributionview.h"
#include "ui/plots/plotstyle.h"
#include "ui/plots/stepsview.h"

#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QImage>
#include <QPainter>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace rs;
using plots::PlotText;

namespace {

bool openAndWait(MainWindow& w, const std::function<void()>& open)
{
    QSignalSpy loaded(&w, &MainWindow::traceLoaded);
    QSignalSpy analysed(&w, &MainWindow::analysisFinished);
    open();
    if (!loaded.wait(120000)) return false;
    return analysed.count() > 0 || analysed.wait(120000);
}

QString describe(const PlotText& t)
{
    static const char* kinds[] = {"axis title", "tick label", "legend item", "text"};
    return QStringLiteral("%1 '%2' at %3,%4 %5x%6")
        .arg(QLatin1String(kinds[t.kind]), t.text.left(40))
        .arg(t.rect.x())
        .arg(t.rect.y())
        .arg(t.rect.width())
        .arg(t.rect.height());
}

// Empty when the texts hold; else what overprints or is clipped.
QString layoutProblems(const std::vector<PlotText>& texts, QSize size)
{
    const QRect widget(QPoint(0, 0), size);
    QStringList problems;
    for (const PlotText& t : texts)
        if (!widget.contains(t.rect)) problems << describe(t) + " is clipped by the plot";
    for (std::size_t i = 0; i < texts.size(); ++i) {
        for (std::size_t j = i + 1; j < texts.size(); ++j) {
            const PlotText& a = texts[i];
            const PlotText& b = texts[j];
            // Tick labels of different axes meet at the axes' corner by design.
            if (a.kind == PlotText::TickLabel && b.kind == PlotText::TickLabel &&
                a.owner != b.owner)
                continue;
            if (a.rect.intersects(b.rect)) problems << describe(a) + " overprints " + describe(b);
        }
    }
    for (const PlotText& t : texts) {
        if (t.kind != PlotText::LegendItem) continue;
        // Not cut: the item has the width its icon and text need.
        if (t.rect.width() < t.needWidth) problems << describe(t) + " is narrower than its text";
    }
    return problems.join('\n');
}

// Empty when every chart has room and the legend takes no more than its rows (a text element
// capping a row's height once gave the legend row all the spare height).
QString chartProblems(QCustomPlot* plot)
{
    QStringList problems;
    for (QCPAxisRect* r : plot->axisRects())
        if (r->rect().height() < 24 || r->rect().width() < 60)
            problems << QStringLiteral("a chart of %1x%2")
                            .arg(r->rect().width())
                            .arg(r->rect().height());
    const int need = plot->legend->minimumOuterSizeHint().height();
    if (plot->legend->outerRect().height() > need + 10)
        problems << QStringLiteral("the legend takes %1 px for %2")
                        .arg(plot->legend->outerRect().height())
                        .arg(need);
    return problems.join('\n');
}

int countOf(const std::vector<PlotText>& texts, PlotText::Kind kind)
{
    return int(std::count_if(texts.begin(), texts.end(),
                             [kind](const PlotText& t) { return t.kind == kind; }));
}

} // namespace

class TstWindowLayout : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_rank0;

    // The window at 1280x800 with its default panes; each plot tab in turn.
    void checkPlotsIn(MainWindow& w, const char* what)
    {
        for (QWidget* tab :
             {static_cast<QWidget*>(w.stepsView()), static_cast<QWidget*>(w.distributionView())}) {
            w.bottomTabs()->setCurrentWidget(tab);
            QCoreApplication::processEvents();
            QCustomPlot* plot =
                tab == w.stepsView() ? w.stepsView()->plot() : w.distributionView()->plot();
            QVERIFY(plot->isVisible());
            plot->replot(QCustomPlot::rpImmediateRefresh);
            const auto texts = plots::plotTexts(plot);
            QVERIFY(countOf(texts, PlotText::AxisTitle) >= 3);
            QVERIFY(countOf(texts, PlotText::LegendItem) >= 4);
            const QString problems = layoutProblems(texts, plot->size()) + chartProblems(plot);
            QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("%1, %2 at %3x%4:\n%5")
                                                        .arg(QLatin1String(what), tab->objectName())
                                                        .arg(plot->width())
                                                        .arg(plot->height())
                                                        .arg(problems)));
        }
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RingscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_windowlayout"));
        QSettings().clear();
        m_rank0 = m_dir.filePath("rank0.json");
        QFile f(m_rank0);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(gen::seedCaseTrace({}, 0)));
    }

    void plotsHoldAt1280x800()
    {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, [&] { w.openPaths({m_rank0}); }));
        checkPlotsIn(w, "one rank");
    }

    // The first window (no saved geometry) fits its screen: at most 90% of it, not 1400x900
    // on a 1280x800 laptop (the Steps tab was cut); the plots hold at that size.
    void firstWindowFitsTheScreen()
    {
        QCOMPARE(MainWindow::initialSize(QRect(0, 0, 1280, 800)), QSize(1152, 720));
        QCOMPARE(MainWindow::initialSize(QRect(0, 0, 2560, 1440)), QSize(1400, 900));
        QCOMPARE(MainWindow::initialSize(QRect(0, 24, 1280, 776)), QSize(1152, 698));
        QSettings().remove(QStringLiteral("window"));
        MainWindow w;
        const QRect avail = w.screen()->availableGeometry();
        // (The offscreen screen is small: the window's own minimum may be larger.)
        const QSize want = MainWindow::initialSize(avail).expandedTo(w.minimumSizeHint());
        QVERIFY2(w.width() <= want.width() && w.height() <= want.height(),
                 qPrintable(QStringLiteral("%1x%2 on a %3x%4 screen")
                                .arg(w.width())
                                .arg(w.height())
                                .arg(avail.width())
                                .arg(avail.height())));
        QVERIFY(avail.contains(w.geometry().center()));
        // At the laptop's size the plots hold.
        w.resize(MainWindow::initialSize(QRect(0, 0, 1280, 800)));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, [&] { w.openPaths({m_rank0}); }));
        checkPlotsIn(w, "one rank at 1152x720");
    }

    // Two ranks: bars side by side, the longer x title, two reports in the combo box.
    void plotsHoldAt1280x800InAJob()
    {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, [&] { w.openSample(); }));
        QVERIFY(w.isJob());
        checkPlotsIn(w, "the 2-rank sample");
    }

    // The plots alone, from their minimum size to a large one (the pane resized by the user).
    void plotsHoldFromMinimumSize_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("minimum") << QSize(0, 0);
        QTest::newRow("900x300") << QSize(900, 300);
        QTest::newRow("1280x260") << QSize(1280, 260);
        QTest::newRow("1900x700") << QSize(1900, 700);
    }
    void plotsHoldFromMinimumSize()
    {
        QFETCH(QSize, size);
        LoadResult r = test::loadText(gen::seedCaseTrace({}, 0));
        QVERIFY(r.trace);
        const ReportPtr report = analyze(r.trace);
        StepsView steps;
        DistributionView dist;
        for (QWidget* v : {static_cast<QWidget*>(&steps), static_cast<QWidget*>(&dist)}) {
            v->resize(size.isEmpty() ? v->minimumSize() : size);
            v->show();
            QVERIFY(QTest::qWaitForWindowExposed(v));
        }
        steps.setReports({report});
        dist.setReports({report});
        for (QCustomPlot* plot : {steps.plot(), dist.plot()}) {
            plot->replot(QCustomPlot::rpImmediateRefresh);
            const QString problems =
                layoutProblems(plots::plotTexts(plot), plot->size()) + chartProblems(plot);
            QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("%1x%2:\n%3")
                                                        .arg(plot->width())
                                                        .arg(plot->height())
                                                        .arg(problems)));
        }
    }

    // The composite report image's step plot (default width, and a narrower one), as painted.
    void compositeStepPlotHolds_data()
    {
        QTest::addColumn<int>("width");
        QTest::newRow("1600") << 1600;
        QTest::newRow("1000") << 1000;
    }
    void compositeStepPlotHolds()
    {
        QFETCH(int, width);
        LoadResult r = test::loadText(gen::seedCaseTrace({}, 0));
        QVERIFY(r.trace);
        const ReportPtr report = analyze(r.trace);
        ExportComposer composer(r.trace, report, nullptr);
        ExportOptions o;
        o.width = width;
        composer.setOptions(o);
        const QSizeF size = composer.compositeSize();
        QImage image(size.toSize(), QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        {
            QPainter p(&image);
            composer.paintComposite(p, size);
        }
        const auto& texts = composer.lastStepPlotTexts();
        QVERIFY(countOf(texts, PlotText::AxisTitle) >= 3);
        QCOMPARE(countOf(texts, PlotText::LegendItem), 6);
        const QString problems = layoutProblems(texts, composer.lastStepPlotSize());
        QVERIFY2(problems.isEmpty(), qPrintable(problems));
    }

    // The Findings pane at the window's default width: the title column is the one that
    // stretches and ends inside the view; each title wraps whole (issue 43.1: its verb never
    // elided away), its row as tall as its lines; the tooltip adds the recommendation.
    void findingsTitleColumnOnScreen()
    {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, [&] { w.openPaths({m_rank0}); }));
        FindingsPane* pane = w.findingsPane();
        QTreeWidget* tree = pane->tree();
        QVERIFY(pane->count() > 0);
        tree->expandAll(); // long groups open folded
        QCoreApplication::processEvents();
        QCoreApplication::processEvents();
        QHeaderView* h = tree->header();
        QCOMPARE(h->sectionResizeMode(FindingsPane::TitleColumn), QHeaderView::Stretch);
        const int right = h->sectionViewportPosition(FindingsPane::RankColumn) +
                          h->sectionSize(FindingsPane::RankColumn);
        QVERIFY2(right <= tree->viewport()->width(),
                 qPrintable(QStringLiteral("columns end at %1 of %2")
                                .arg(right)
                                .arg(tree->viewport()->width())));
        const QFontMetrics fm(tree->font());
        for (int i = 0; i < int(w.report()->findings.size()); ++i) {
            QTreeWidgetItem* item = pane->itemOf(i);
            QVERIFY(item);
            const QString title = item->text(FindingsPane::TitleColumn);
            QVERIFY(item->toolTip(FindingsPane::TitleColumn).startsWith(title));
            // As tall as the title needs at the column's width: nothing cut.
            const QRect cell = tree->visualItemRect(item);
            const int width = h->sectionSize(FindingsPane::TitleColumn) - tree->indentation() - 8;
            const QRect need =
                fm.boundingRect(QRect(0, 0, std::max(20, width), 100000), Qt::TextWordWrap, title);
            QVERIFY2(cell.height() + 2 >= need.height(),
                     qPrintable(QStringLiteral("%1: row %2 px, text %3 px")
                                    .arg(title)
                                    .arg(cell.height())
                                    .arg(need.height())));
        }
    }
};

QTEST_MAIN(TstWindowLayout)
#include "tst_windowlayout.moc"
