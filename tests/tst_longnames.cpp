// Issue 26.1: selecting a kernel with a long (templated) name never resizes the window; the
// panes elide it, with the whole name on hover and copyable.
#include "tests/support/openwait.h"
#include "tests/testutil.h"
#include "ui/mainwindow.h"
#include "ui/panes/callstackpane.h"
#include "ui/panes/detailspane.h"
#include "ui/panes/searchpane.h"
#include "ui/stats/statspane.h"
#include "ui/timeline/timelineview.h"
#include "ui/widgets/elidedlabel.h"

#include <nlohmann/json.hpp>

#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace rs;

namespace {

// A CUTLASS / composable-kernel style name: about 2,000 characters without a space.
std::string longKernelName()
{
    std::string name = "_ZN2ck16tensor_operation6device37kernel_batched_gemm_xdlops_bwd_weight";
    for (int i = 0; name.size() < 2000; ++i)
        name += "INS_" + std::to_string(i) + "GridwiseGemm_bk0mk1_bk0nk1_mn_xdlops_bwd_weight";
    return name;
}

EventId named(const Trace& t, const std::string& n)
{
    for (EventId e = 0; e < t.slices().size(); ++e)
        if (t.str(t.slice(e).name) == n) return e;
    return kNone;
}

} // namespace

class TstLongNames : public QObject {
    Q_OBJECT
private:
    // Every pane that shows the selected event's name, one after the other: the window keeps
    // its width.
    void checkWindowKeepsWidth(MainWindow& w, EventId e, const std::string& name)
    {
        const int width = w.width();
        // What the window asks for before anything long is shown: it must not grow.
        const int minimum = w.minimumSizeHint().width();
        w.selectEvent(e);
        for (QWidget* pane :
             {static_cast<QWidget*>(w.detailsPane()), static_cast<QWidget*>(w.callStackPane()),
              static_cast<QWidget*>(w.searchPane()), static_cast<QWidget*>(w.statsPane())}) {
            w.bottomTabs()->setCurrentWidget(pane);
            QTest::qWait(30);
            QCoreApplication::processEvents();
            QVERIFY2(w.width() == width, qPrintable(QStringLiteral("%1: %2 -> %3 px")
                                                        .arg(pane->objectName())
                                                        .arg(width)
                                                        .arg(w.width())));
            QVERIFY2(w.minimumSizeHint().width() <= minimum,
                     qPrintable(QStringLiteral("%1: minimum %2 -> %3 px")
                                    .arg(pane->objectName())
                                    .arg(minimum)
                                    .arg(w.minimumSizeHint().width())));
        }
        // The name is elided in the Details title, whole in its text, tooltip and copy.
        ElidedLabel* title = w.detailsPane()->titleLabel();
        QCOMPARE(title->text(), QString::fromStdString(name));
        QVERIFY(title->isElided());
        QVERIFY(title->shownText().contains(QChar(0x2026)));
        QVERIFY(title->shownText().size() < 400);
        QVERIFY(title->toolTip()
                    .remove(QStringLiteral("&#8203;"))
                    .contains(QString::fromStdString(name.substr(0, 50))));
        title->copyToClipboard();
        QCOMPARE(QApplication::clipboard()->text(), QString::fromStdString(name));
        QVERIFY(w.detailsPane()->text().contains(QString::fromStdString(name)));
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RingscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_longnames"));
        QSettings().clear();
    }

    void longKernelNameKeepsWindowWidth()
    {
        const std::string name = longKernelName();
        // Built as JSON values: moc reads this file, and raw strings with quotes confuse it.
        using J = nlohmann::json;
        J events = J::array();
        events.push_back(
            {{"ph", "M"}, {"name", "process_name"}, {"pid", 1}, {"args", {{"name", "python3"}}}});
        events.push_back(
            {{"ph", "M"}, {"name", "process_name"}, {"pid", 2}, {"args", {{"name", "GPU 0"}}}});
        events.push_back({{"ph", "M"},
                          {"name", "thread_name"},
                          {"pid", 2},
                          {"tid", 7},
                          {"args", {{"name", "stream 7"}}}});
        events.push_back({{"ph", "X"},
                          {"name", "aten::conv2d"},
                          {"cat", "cpu_op"},
                          {"pid", 1},
                          {"tid", 1},
                          {"ts", 0},
                          {"dur", 100}});
        events.push_back({{"ph", "X"},
                          {"name", "cudaLaunchKernel"},
                          {"cat", "cuda_runtime"},
                          {"pid", 1},
                          {"tid", 1},
                          {"ts", 10},
                          {"dur", 5},
                          {"args", {{"correlation", 1}}}});
        events.push_back({{"ph", "s"},
                          {"name", "ac2g"},
                          {"cat", "ac2g"},
                          {"id", 1},
                          {"pid", 1},
                          {"tid", 1},
                          {"ts", 11}});
        events.push_back({{"ph", "X"},
                          {"name", name},
                          {"cat", "kernel"},
                          {"pid", 2},
                          {"tid", 7},
                          {"ts", 20},
                          {"dur", 50},
                          {"args", {{"correlation", 1}, {"stream", 7}}}});
        events.push_back({{"ph", "f"},
                          {"name", "ac2g"},
                          {"cat", "ac2g"},
                          {"id", 1},
                          {"pid", 2},
                          {"tid", 7},
                          {"ts", 20},
                          {"bp", "e"}});
        const std::string json = J{{"traceEvents", events}}.dump();
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("long.pt.trace.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(json.data(), qint64(json.size()));
        f.close();

        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(test::openAndWait(w, {path}));
        const EventId k = named(*w.trace(), name);
        QVERIFY(k != kNone);
        // The Search pane lists it too.
        QCOMPARE(w.searchPane()->search(QStringLiteral("kernel_batched")), 1);
        checkWindowKeepsWidth(w, k, name);
        if (QTest::currentTestFailed()) return;
        // The call stack header names it (elided) and reaches the host op through the flow.
        QVERIFY(w.callStackPane()->text().contains(QStringLiteral("aten::conv2d")));
    }

    // The trace of the report: a templated CUDA (composable kernel) name on the MI300X.
    void realKinetoTrace()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        const QString path = test::publicTrace(QStringLiteral(
            "kineto_rccl_mi300x_ddp_with_stack_tracelens/resnet_act_checkpoint.json.gz"));
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(test::openAndWait(w, {path}));
        const Trace& t = *w.trace();
        EventId longest = kNone;
        std::size_t len = 0;
        for (EventId e = 0; e < t.slices().size(); ++e)
            if (t.str(t.slice(e).name).size() > len) {
                len = t.str(t.slice(e).name).size();
                longest = e;
            }
        QVERIFY(len > 1500);
        checkWindowKeepsWidth(w, longest, t.str(t.slice(longest).name));
    }
};

QTEST_MAIN(TstLongNames)
#include "tst_longnames.moc"
