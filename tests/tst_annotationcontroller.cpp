// The viewer side of annotations: M marks the selection, the overlay draws it on the timeline,
// the Notes pane lists it, closing with unsaved annotations asks (Cancel keeps the window,
// Save writes the sidecar), and the GUI export writes the picture.

#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/traceloader.h"
#include "ui/annotations/annotationcontroller.h"
#include "ui/annotations/notespane.h"
#include "ui/timeline/timelineview.h"

#include <QApplication>
#include <QFile>
#include <QImage>
#include <QMainWindow>
#include <QMessageBox>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeWidget>
#include <QtTest>

using namespace rs;

namespace {

// Presses a button of the next message box that appears.
void answerNextMessageBox(QMessageBox::StandardButton button, bool* seen)
{
    QTimer::singleShot(50, [button, seen] {
        for (QWidget* w : QApplication::topLevelWidgets()) {
            if (auto* box = qobject_cast<QMessageBox*>(w); box && box->isVisible()) {
                *seen = true;
                box->button(button)->click();
                return;
            }
        }
        answerNextMessageBox(button, seen); // not shown yet
    });
}

} // namespace

class TestAnnotationController : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void markDrawListSaveOnClose()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("rank0.json");
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(gen::seedCaseTrace({}, 0)));
        }
        LoadResult loaded = loadTrace(file.toStdString());
        QVERIFY(loaded.complete());
        ReportPtr report = analyze(loaded.trace);

        auto* window = new QMainWindow;
        window->setAttribute(Qt::WA_DeleteOnClose, false);
        auto* view = new TimelineView(window);
        window->setCentralWidget(view);
        window->resize(1200, 700);
        auto* controller = new AnnotationController(window, view); // owned by the window
        view->setTrace(loaded.trace);
        view->setReport(report);
        controller->setTrace(loaded.trace);
        controller->setReport(report);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QVERIFY(!controller->store()->automatic().empty());

        const Collective* bad = nullptr;
        for (const Collective& c : report->collectives)
            if (c.anomalous && !bad) bad = &c;
        QVERIFY(bad);
        view->selectEvent(bad->event, true);
        const std::uint64_t id = controller->addMark();
        QVERIFY(id);
        QVERIFY(controller->store()->isDirty());
        QCOMPARE(controller->store()->find(id)->event.name,
                 loaded.trace->str(loaded.trace->slice(bad->event).name));
        // Listed in the pane, automatic ones too.
        QCOMPARE(controller->notesPane()->list()->topLevelItemCount(),
                 int(1 + controller->store()->automatic().size()));
        // Drawn: the view's frame contains the mark's outline around the event.
        controller->jumpTo(id);
        view->selectEvent(kNone, false); // the selection's outline would cover the colour
        const QImage frame = view->grab().toImage();
        QVERIFY(!frame.isNull());
        bool drawn = false;
        for (const PaintedAnnotation& a : controller->lastPainted())
            if (a.id == id) {
                drawn = true;
                QVERIFY(!a.anchor.isEmpty());
                QVERIFY(QRectF(view->rect()).contains(a.anchor.center()));
                // The mark's outline (default note colour) is on the frame at the event.
                const QColor ink = annotationColor(*controller->store()->find(id));
                const QRect edge = a.anchor.adjusted(-5, -5, 5, 5).toAlignedRect();
                int hits = 0;
                auto close = [&](QRgb c) {
                    return std::abs(qRed(c) - ink.red()) + std::abs(qGreen(c) - ink.green()) +
                               std::abs(qBlue(c) - ink.blue()) <
                           90;
                };
                for (int x = edge.left(); x <= edge.right(); ++x) {
                    bool hit = false;
                    for (int y = edge.top() - 1; y <= edge.top() + 2; ++y)
                        hit |= y >= 0 && y < frame.height() && close(frame.pixel(x, y));
                    hits += hit ? 1 : 0;
                }
                if (qEnvironmentVariableIsSet("RS_KEEP_EXPORTS")) frame.save("/tmp/ex/frame.png");
                QVERIFY2(hits > edge.width() / 3, qPrintable(QString::number(hits)));
            }
        QVERIFY(drawn);

        // Closing asks; Cancel keeps the window open and writes nothing.
        bool asked = false;
        answerNextMessageBox(QMessageBox::Cancel, &asked);
        QVERIFY(!window->close());
        QVERIFY(asked);
        QVERIFY(window->isVisible());
        QVERIFY(!QFile::exists(file + ".ringscope.json"));
        // Save writes the sidecar and lets it close.
        asked = false;
        answerNextMessageBox(QMessageBox::Save, &asked);
        QVERIFY(window->close());
        QVERIFY(asked);
        QVERIFY(QFile::exists(file + ".ringscope.json"));
        QVERIFY(!controller->store()->isDirty());

        // Reopening the trace brings the mark back.
        AnnotationStore again;
        QCOMPARE(again.open(loaded.trace).status, SidecarStatus::Loaded);
        QCOMPARE(again.annotations().size(), std::size_t(1));
        QCOMPARE(again.anchor(again.annotations()[0].id).event, bad->event);

        // The GUI export of the visible range.
        QString error;
        QVERIFY2(controller->exportTo(dir.filePath("view.png"), 2, false, &error),
                 qPrintable(error));
        QVERIFY(!QImage(dir.filePath("view.png")).isNull());
        delete window;
    }
};

QTEST_MAIN(TestAnnotationController)
#include "tst_annotationcontroller.moc"
