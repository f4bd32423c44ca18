// The timeline's mouse wheel as Perfetto and Nsight Systems users expect it (issue 43.7): the
// wheel scrolls the tracks, Ctrl+wheel zooms about the cursor, Shift+wheel pans; W / S / A / D
// still zoom and pan; View > Wheel zooms gives the plain wheel the zoom back.

#include "tests/testutil.h"
#include "ui/timeline/timelineview.h"

#include <QTest>
#include <QWheelEvent>

#include <string>

using namespace rs;

namespace {

// 60 threads of 50 slices each: far taller than the view, so there is something to scroll.
std::string tallJson()
{
    std::string j = "[";
    for (int tid = 1; tid <= 60; ++tid)
        for (int i = 0; i < 50; ++i)
            j += R"({"ph":"X","name":"s","pid":1,"tid":)" + std::to_string(tid) + R"(,"ts":)" +
                 std::to_string(i * 20) + R"(,"dur":10},)";
    j.back() = ']';
    return j;
}

void wheel(QWidget* w, QPointF pos, int dy, Qt::KeyboardModifiers mods = Qt::NoModifier, int dx = 0)
{
    QWheelEvent e(pos, w->mapToGlobal(pos), QPoint(), QPoint(dx, dy), Qt::NoButton, mods,
                  Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(w, &e);
}

} // namespace

class TestTimelineInput : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        LoadResult r = test::loadText(tallJson());
        QVERIFY(r.complete());
        m_trace = r.trace;
    }

    void init()
    {
        m_view = std::make_unique<TimelineView>();
        m_view->resize(900, 400);
        m_view->setTrace(m_trace);
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
        QVERIFY(m_view->renderer().contentHeight() > 1000);
    }

    void cleanup() { m_view.reset(); }

    void wheelScrollsTheTracks()
    {
        const TimeNs t0 = m_view->visibleStart(), t1 = m_view->visibleEnd();
        const QPointF over = m_view->timelineGeometry().plotRect().center();
        QCOMPARE(m_view->scrollY(), 0.0);
        wheel(m_view.get(), over, -120); // one notch down
        QVERIFY2(m_view->scrollY() > 0, "the wheel scrolls the tracks down");
        QCOMPARE(m_view->visibleStart(), t0); // and zooms nothing
        QCOMPARE(m_view->visibleEnd(), t1);
        const double down = m_view->scrollY();
        wheel(m_view.get(), over, 120);
        QVERIFY(m_view->scrollY() < down);
        // At full zoom-out too, over the labels as over the tracks.
        m_view->showAll();
        wheel(m_view.get(), QPointF(20, 200), -240);
        QVERIFY(m_view->scrollY() > 0);
    }

    void ctrlWheelZoomsAboutTheCursor()
    {
        const TimelineGeometry g = m_view->timelineGeometry();
        const QPointF at(g.plotRect().left() + g.plotRect().width() * 0.25,
                         g.plotRect().center().y());
        const TimeNs under = g.timeAt(at.x());
        const TimeNs span = m_view->visibleEnd() - m_view->visibleStart();
        wheel(m_view.get(), at, 120, Qt::ControlModifier);
        const TimeNs zoomed = m_view->visibleEnd() - m_view->visibleStart();
        QVERIFY2(zoomed < span, "Ctrl+wheel up zooms in");
        // The time under the cursor stays under it (within a pixel's worth).
        const TimelineGeometry after = m_view->timelineGeometry();
        QVERIFY(std::abs(after.timeAt(at.x()) - under) <= std::max<TimeNs>(2, zoomed / 800));
        QCOMPARE(m_view->scrollY(), 0.0);
        wheel(m_view.get(), at, -120, Qt::ControlModifier);
        QVERIFY(m_view->visibleEnd() - m_view->visibleStart() > zoomed);
    }

    void shiftWheelPans()
    {
        m_view->zoomBy(0.25, m_view->timelineGeometry().plotRect().center().x());
        const TimeNs t0 = m_view->visibleStart(), span = m_view->visibleEnd() - t0;
        const QPointF over = m_view->timelineGeometry().plotRect().center();
        wheel(m_view.get(), over, -120, Qt::ShiftModifier);
        QVERIFY2(m_view->visibleStart() > t0, "Shift+wheel down pans right");
        QCOMPARE(m_view->visibleEnd() - m_view->visibleStart(), span); // no zoom
        QCOMPARE(m_view->scrollY(), 0.0);
        // X11 turns Shift+wheel into a horizontal wheel: it pans as well.
        const TimeNs t1 = m_view->visibleStart();
        wheel(m_view.get(), over, 0, Qt::ShiftModifier, 120);
        QVERIFY(m_view->visibleStart() < t1);
    }

    void keysStillZoomAndPan()
    {
        m_view->setFocus();
        const TimeNs span = m_view->visibleEnd() - m_view->visibleStart();
        QTest::keyClick(m_view.get(), Qt::Key_W);
        QVERIFY(m_view->visibleEnd() - m_view->visibleStart() < span);
        const TimeNs t0 = m_view->visibleStart();
        QTest::keyClick(m_view.get(), Qt::Key_D);
        QVERIFY(m_view->visibleStart() > t0);
        QTest::keyClick(m_view.get(), Qt::Key_A);
        QCOMPARE(m_view->visibleStart(), t0);
        const TimeNs zoomed = m_view->visibleEnd() - m_view->visibleStart();
        QTest::keyClick(m_view.get(), Qt::Key_S);
        QVERIFY(m_view->visibleEnd() - m_view->visibleStart() > zoomed);
    }

    void wheelZoomsWhenAsked()
    {
        m_view->setWheelZooms(true);
        const TimeNs span = m_view->visibleEnd() - m_view->visibleStart();
        wheel(m_view.get(), m_view->timelineGeometry().plotRect().center(), 120);
        QVERIFY(m_view->visibleEnd() - m_view->visibleStart() < span);
        QCOMPARE(m_view->scrollY(), 0.0);
        // Over the labels the wheel still scrolls.
        wheel(m_view.get(), QPointF(20, 200), -120);
        QVERIFY(m_view->scrollY() > 0);
    }

    void helpSaysIt()
    {
        const QString help = TimelineView::helpText();
        QVERIFY(help.contains(QLatin1String("Ctrl+wheel\tzoom")));
        QVERIFY(help.contains(QLatin1String("Shift+wheel\tpan")));
        QVERIFY(help.contains(QLatin1String("wheel, drag over the labels\tscroll")));
    }

private:
    TracePtr m_trace;
    std::unique_ptr<TimelineView> m_view;
};

QTEST_MAIN(TestTimelineInput)
#include "tst_timelineinput.moc"
