// Themes (issue 16.4): a View > Theme change restyles every open plot and view at once, data
// series included (no reopening, zoom kept); the colours come from the one palette; the export
// theme chosen in the save dialogs (light for print, dark, as the view shows it) reaches the
// picture and is remembered across sessions.
#include "bench/tracegen_seed.h"
#include "tests/support/openwait.h"
#include "ui/annotations/annotationcontroller.h"
#include "ui/comm/commmatrixview.h"
#include "ui/compare/scalingview.h"
#include "ui/export/exportdialog.h"
#include "ui/heatmap/rankstepheatmap.h"
#include "ui/mainwindow.h"
#include "ui/panes/detailspane.h"
#include "ui/plots/distributionview.h"
#include "ui/plots/stepsview.h"
#include "ui/stats/statspane.h"
#include "ui/theme/theme.h"
#include "ui/timeline/timelineview.h"

#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <functional>

using namespace rs;
using rs::test::openAndWait;

namespace {

QAction* actionNamed(QWidget* w, const QString& text)
{
    for (QAction* a : w->findChildren<QAction*>())
        if (a->text().remove(QLatin1Char('&')) == text) return a;
    return nullptr;
}

// Answers the next export dialog: picks the theme and the file, accepts. Returns whether a
// dialog came.
bool answerExportDialog(const std::function<void()>& open, ExportTheme theme, const QString& file)
{
    bool seen = false;
    int tries = 0;
    QTimer timer;
    timer.setInterval(20);
    QObject::connect(&timer, &QTimer::timeout, [&] {
        auto* d = qobject_cast<ExportFileDialog*>(QApplication::activeModalWidget());
        if (!d) return;
        seen = true;
        d->setTheme(theme);
        // Typed as a user would: selectFile() races the dialog's own initial selection, which
        // it applies once its folder has loaded.
        auto* name = d->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
        if (!name && ++tries < 50) return;
        timer.stop();
        if (name)
            name->setText(file);
        else
            d->selectFile(file);
        static_cast<QDialog*>(d)->accept(); // QFileDialog::accept checks the name first
    });
    timer.start();
    open();
    timer.stop();
    return seen;
}

QColor stop0(const QCPColorGradient& g)
{
    return g.colorStops().value(0.0);
}

} // namespace

class TstTheme : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_jobDir;

    // Every view's data and chrome against the palette of a theme.
    static void checkViews(MainWindow& w, ScalingView& scaling, const ThemePalette& pal)
    {
        StepsView* steps = w.stepsView();
        for (int s = 0; s < StepsView::SeriesCount; ++s)
            QCOMPARE(steps->bars(StepsView::Series(s))->brush().color(),
                     StepsView::seriesColor(StepsView::Series(s), pal));
        QCOMPARE(steps->bars(StepsView::Free)->brush().color(), pal.free);
        QVERIFY(steps->computingGraph(0) && steps->communicationGraph(0));
        QCOMPARE(steps->computingGraph(0)->pen().color(), pal.computingLine);
        QCOMPARE(steps->communicationGraph(0)->pen().color(), pal.communicationLine);
        QCOMPARE(steps->computingGraph(0)->scatterStyle().brush().color(), pal.plotBackground);
        QCOMPARE(steps->barsRect()->axis(QCPAxis::atLeft)->tickLabelColor(), pal.plotText);
        QCOMPARE(steps->barsRect()->axis(QCPAxis::atLeft)->basePen().color(), pal.plotAxis);
        QCOMPARE(steps->barsRect()->axis(QCPAxis::atLeft)->grid()->pen().color(), pal.plotGrid);

        DistributionView* dist = w.distributionView();
        for (int c = 0; c < DistributionView::PointClassCount; ++c) {
            const auto cls = DistributionView::PointClass(c);
            QCOMPARE(dist->histogram(cls)->brush().color(), DistributionView::classColor(cls, pal));
            QCOMPARE(dist->histogram(cls)->pen().color(), pal.plotBackground);
            QCOMPARE(dist->points(cls)->scatterStyle().brush().color(),
                     DistributionView::classColor(cls, pal));
        }
        QCOMPARE(dist->boxes()->pen().color(), pal.boxPen);
        QCOMPARE(dist->boxes()->medianPen().color(), pal.boxMedian);
        QCOMPARE(dist->memcpyShare()->brush().color(), pal.plotMemcpy);
        QCOMPARE(dist->histogramRect()->axis(QCPAxis::atBottom)->tickLabelColor(), pal.plotText);
        QVERIFY(!dist->modeMarks().empty());
        for (int i = 0; i < dist->plot()->itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(dist->plot()->item(i));
                t && t->text().startsWith(dist->modeMarks().front().first + QStringLiteral("  ")))
                QCOMPARE(t->color(), pal.modeMark);

        CommMatrixView* comm = w.commView();
        // Bytes (the default): the ramp diverging around the links' median, fewer bytes blue.
        QCOMPARE(stop0(comm->colorMap()->gradient()), pal.plotCollective);
        QCOMPARE(comm->plot()->xAxis->tickLabelColor(), pal.plotText);
        // Over the ramp in its inks; a rank's self cell (apart from the ramp) in the plot's.
        for (QCPItemText* t : comm->cellLabels())
            QVERIFY(t->color() == pal.heatTextOnDark || t->color() == pal.heatTextOnLight ||
                    (t->text().startsWith(QStringLiteral("self\n")) && t->color() == pal.plotText));

        RankStepHeatmap* heat = w.heatmap();
        QCOMPARE(stop0(heat->colorMap()->gradient()), pal.heatLow);
        QCOMPARE(heat->plot()->yAxis->tickLabelColor(), pal.plotText);

        QCOMPARE(scaling.stepTimeGraph()->pen().color(), pal.stepTime);
        QCOMPARE(scaling.efficiencyGraph()->pen().color(), pal.computingLine);
        QCOMPARE(scaling.plot()->yAxis2->labelColor(), pal.stepTime); // not the axis text's
        QCOMPARE(scaling.plot()->xAxis->tickLabelColor(), pal.plotText);

        // The timeline restyles on its (posted) palette change.
        QTRY_COMPARE(w.timeline()->renderer().style().areaInk, pal.areaInk);
        QTRY_COMPARE(w.timeline()->renderer().style().background, pal.background);
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RingscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_theme"));
        QSettings().clear();
        gen::SeedCaseOptions o;
        o.ranks = 2;
        o.steps = 4;
        o.badSteps = {1};
        m_jobDir = m_dir.filePath(QStringLiteral("job2"));
        QVERIFY(QDir().mkpath(m_jobDir));
        QVERIFY(gen::writeSeedCaseJob(m_jobDir.toStdString(), o));
    }

    void themeChangeRestylesEveryPlotAtOnce()
    {
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, {m_jobDir}));
        QVERIFY(w.isJob());
        // Another window's plot too (the compare window's scaling tab).
        ScalingView scaling;
        ScalingPoint a, b;
        a.path = "one";
        a.cards = 1;
        a.stepMeanNs = 400'000'000;
        a.efficiency = 1.0;
        b.path = "eight";
        b.cards = 8;
        b.stepMeanNs = 60'000'000;
        b.efficiency = 0.83;
        scaling.setPoints({a, b}, false);
        // The plots are hidden tabs (the Details tab shows); zoom the steps plot in.
        w.bottomTabs()->setCurrentWidget(w.detailsPane());
        QCPAxis* stepsX = w.stepsView()->barsRect()->axis(QCPAxis::atBottom);
        stepsX->setRange(0.4, 1.6);
        const QCPRange zoom = stepsX->range();

        w.setTheme(Theme::Dark);
        // At once: no event loop turn, no reopening.
        checkViews(w, scaling, ThemePalette::dark());
        QCOMPARE(stepsX->range(), zoom); // restyled in place, not rebuilt
        w.setTheme(Theme::Light);
        checkViews(w, scaling, ThemePalette::light());
        w.setTheme(Theme::Dark);
        checkViews(w, scaling, ThemePalette::dark());
        // A plot painted in a theme really shows it: the steps plot's free bar in dark.
        w.bottomTabs()->setCurrentWidget(w.stepsView());
        QTest::qWait(50);
        const QImage img = w.stepsView()->plot()->toPixmap(900, 400).toImage();
        bool freeSeen = false;
        for (int y = 0; y < img.height() && !freeSeen; ++y)
            for (int x = 0; x < img.width() && !freeSeen; ++x)
                freeSeen = img.pixelColor(x, y) == ThemePalette::dark().free;
        QVERIFY(freeSeen);
        w.setTheme(Theme::Light);
        QVERIFY(ThemePalette::dark().free != ThemePalette::light().free);
    }

    void paletteHoldsTheViewsColours()
    {
        // The colours the Communication and Compare views show are the palette's, per theme.
        for (const ThemePalette* pal : {&ThemePalette::light(), &ThemePalette::dark()}) {
            QCOMPARE(CommMatrixView::transportColor(1, *pal), pal->plotCollective); // HCCS
            QCOMPARE(CommMatrixView::transportColor(2, *pal), pal->transportPcie);
            QCOMPARE(CommMatrixView::transportColor(6, *pal), pal->plotAnomalous); // mixed
            QCOMPARE(stop0(CommMatrixView::gradientOf(CommMatrixModel::Metric::Bytes, *pal)),
                     pal->plotCollective);
            QCOMPARE(stop0(CommMatrixView::gradientOf(CommMatrixModel::Metric::Gbps, *pal)),
                     pal->heatHigh);
            QCOMPARE(stop0(CommMatrixView::gradientOf(CommMatrixModel::Metric::Utilization, *pal)),
                     pal->heatLow);
        }
        QVERIFY(ThemePalette::light().better != ThemePalette::dark().better);
        QVERIFY(ThemePalette::light().areaFill.alpha() < 255);
    }

    void exportDialogThemeReachesTheImage()
    {
        QSettings().remove(QStringLiteral("export"));
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.setTheme(Theme::Light);
        QVERIFY(openAndWait(w, {m_jobDir}));
        AnnotationController* c = w.annotations();
        QCOMPARE(c->exportTheme(), ExportTheme::Light); // the default: light, for print
        QAction* png = actionNamed(&w, QStringLiteral("Timeline as PNG…"));
        QAction* report = actionNamed(&w, QStringLiteral("Report image (timeline + steps + call "
                                                         "stack)…"));
        QVERIFY(png && report);

        // Timeline: Dark chosen in the dialog -> a dark page; remembered, the menu follows.
        const QString dark = m_dir.filePath(QStringLiteral("dark.png"));
        QVERIFY(answerExportDialog([&] { png->trigger(); }, ExportTheme::Dark, dark));
        QImage img(dark);
        QVERIFY(!img.isNull());
        QCOMPARE(img.pixelColor(3, 3), ThemePalette::dark().page);
        QCOMPARE(c->exportTheme(), ExportTheme::Dark);
        QCOMPARE(QSettings().value(QStringLiteral("export/theme")).toString(),
                 QStringLiteral("dark"));
        bool checked = false;
        for (QAction* a : c->exportThemeMenu()->actions())
            checked = checked || (a->isChecked() && a->data().toString() == "dark");
        QVERIFY(checked);

        // Report image: Light -> a light page (and its step plot on it).
        const QString light = m_dir.filePath(QStringLiteral("report.png"));
        QVERIFY(answerExportDialog([&] { report->trigger(); }, ExportTheme::Light, light));
        img = QImage(light);
        QVERIFY2(!img.isNull(), qPrintable(QDir(m_dir.path()).entryList(QDir::Files).join(' ')));
        QCOMPARE(img.pixelColor(3, 3), ThemePalette::light().page);

        // As the view shows it: the dark view exports dark, the light one light.
        w.setTheme(Theme::Dark);
        const QString view = m_dir.filePath(QStringLiteral("view.png"));
        QVERIFY(answerExportDialog([&] { png->trigger(); }, ExportTheme::View, view));
        QCOMPARE(QImage(view).pixelColor(3, 3), ThemePalette::dark().page);
        w.setTheme(Theme::Light);
        const QString view2 = m_dir.filePath(QStringLiteral("view2.png")); // no overwrite prompt
        QVERIFY(answerExportDialog([&] { png->trigger(); }, ExportTheme::View, view2));
        QCOMPARE(QImage(view2).pixelColor(3, 3), ThemePalette::light().page);

        // Selected area (File > Export > Selected area): the dialog's theme too.
        TimelineView* tl = w.timeline();
        TimelineArea area;
        area.t0 = w.trace()->startNs();
        area.t1 = w.trace()->endNs();
        area.tracks = tl->tracksBetween(0, 1e9);
        tl->setArea(area);
        QAction* areaAction = actionNamed(&w, QStringLiteral("Selected area (its tracks over its "
                                                             "range)…"));
        QVERIFY(areaAction && areaAction->isEnabled());
        const QString areaFile = m_dir.filePath(QStringLiteral("area.png"));
        QVERIFY(answerExportDialog([&] { areaAction->trigger(); }, ExportTheme::Dark, areaFile));
        img = QImage(areaFile);
        QVERIFY(!img.isNull());
        QCOMPARE(img.pixelColor(3, 3), ThemePalette::dark().page);

        // Across sessions: a new window starts on the last choice, its dialog too.
        MainWindow again;
        QCOMPARE(again.annotations()->exportTheme(), ExportTheme::Dark);
        ExportFileDialog d(&again, QStringLiteral("Export"), QStringLiteral("x.png"),
                           QStringLiteral("PNG (*.png)"));
        QCOMPARE(d.theme(), ExportTheme::Dark);
        QCOMPARE(d.themeBox()->count(), 3);
        w.annotations()->setExportTheme(ExportTheme::Light);
    }

    void olderDarkSettingIsRead()
    {
        // Before the dialog's row there was only File > Export > Dark theme (export/dark).
        QSettings().remove(QStringLiteral("export"));
        QSettings().setValue(QStringLiteral("export/dark"), true);
        QCOMPARE(savedExportTheme(), ExportTheme::Dark);
        saveExportTheme(ExportTheme::View);
        QCOMPARE(savedExportTheme(), ExportTheme::View);
        QCOMPARE(exportThemeFromName(QStringLiteral("view")), std::optional(ExportTheme::View));
        QSettings().remove(QStringLiteral("export"));
        QCOMPARE(savedExportTheme(), ExportTheme::Light);
    }
};

QTEST_MAIN(TstTheme)
#include "tst_theme.moc"
