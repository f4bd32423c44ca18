#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "tests/testutil.h"
#include "ui/panes/callstackpane.h"
#include "ui/panes/detailspane.h"
#include "ui/panes/findingspane.h"
#include "ui/panes/searchpane.h"

#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

using namespace rs;

namespace {

// A host op launching a device kernel through a flow; the op has a child.
const char* kJson = R"([
 {"ph":"M","name":"process_name","pid":1,"args":{"name":"Python"}},
 {"ph":"M","name":"process_name","pid":2,"args":{"name":"GPU 0"}},
 {"ph":"X","name":"train_step","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","name":"launch_allreduce","pid":1,"tid":1,"ts":10,"dur":40},
 {"ph":"X","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":12,"dur":5},
 {"ph":"s","name":"ac2g","cat":"ac2g","id":7,"pid":1,"tid":1,"ts":13},
 {"ph":"X","name":"ncclKernel_AllReduce","pid":2,"tid":7,"ts":30,"dur":50,
  "args":{"bytes":4096,"nested":{"a":[1,2]}}},
 {"ph":"f","name":"ac2g","cat":"ac2g","id":7,"pid":2,"tid":7,"ts":30,"bp":"e"}
])";

// An op inside a Python frame inside ProfilerStep#40.
const char* kStepJson = R"([
 {"ph":"X","name":"ProfilerStep#40","pid":1,"tid":1,"ts":0,"dur":1000},
 {"ph":"X","name":"train.py(88): train_step","pid":1,"tid":1,"ts":10,"dur":900},
 {"ph":"X","name":"c10d::allreduce_","pid":1,"tid":1,"ts":20,"dur":100}
])";

EventId named(const Trace& t, const std::string& n)
{
    for (EventId e = 0; e < t.slices().size(); ++e)
        if (t.str(t.slice(e).name) == n) return e;
    return kNone;
}

} // namespace

class TstPanes : public QObject {
    Q_OBJECT
private:
    TracePtr m_trace;

private slots:
    void initTestCase()
    {
        LoadResult r = test::loadText(kJson);
        QVERIFY2(r.complete(), r.message.c_str());
        m_trace = r.trace;
    }

    void detailsShowsFieldsArgsAndSelfTime()
    {
        DetailsPane pane;
        pane.setTrace(m_trace);
        const EventId k = named(*m_trace, "ncclKernel_AllReduce");
        pane.setEvent(k);
        const QString text = pane.text();
        QVERIFY(text.contains(QStringLiteral("Name: ncclKernel_AllReduce")));
        QVERIFY(text.contains(QStringLiteral("GPU 0")));
        QVERIFY(text.contains(QStringLiteral("bytes: 4096")));
        QVERIFY(text.contains(QStringLiteral("[1]: 2"))); // nested args as a tree
        QVERIFY(text.contains(QStringLiteral("Duration: 50.0 µs")));
        const EventId step = named(*m_trace, "train_step");
        QCOMPARE(DetailsPane::selfTime(*m_trace, step), TimeNs(60'000));
        QCOMPARE(DetailsPane::selfTime(*m_trace, named(*m_trace, "launch_allreduce")),
                 TimeNs(35'000));
        pane.setEvent(kNone);
        QVERIFY(!pane.text().contains(QStringLiteral("ncclKernel")));
    }

    // Issue 43.11: CANN's and HCCL's raw "none" values read as words (the raw text kept).
    void detailsSayNoneInWords()
    {
        LoadResult r = test::loadText(
            R"([{"ph":"X","name":"Notify_Wait","pid":1,"tid":1,"ts":1,"dur":2,)"
            R"("args":{"data type":"INVALID_TYPE","dst rank":4294967295,"src rank":3,)"
            R"("link type":"HCCS","task id":4294967295}}])");
        QVERIFY2(r.complete(), r.message.c_str());
        DetailsPane pane;
        pane.setTrace(r.trace);
        pane.setEvent(0);
        const QString text = pane.text();
        QVERIFY2(text.contains(QStringLiteral("data type: none (INVALID_TYPE)")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("dst rank: none (4294967295)")));
        QVERIFY(text.contains(QStringLiteral("src rank: 3")));
        QVERIFY(text.contains(QStringLiteral("link type: HCCS")));
        // Only ranks read 4294967295 as none: an id is an id.
        QVERIFY(text.contains(QStringLiteral("task id: 4294967295")));
    }

    void detailsShowArgsThatAreNotJsonAsWritten()
    {
        // The loader keeps args that are not JSON (it checks their structure only).
        const std::string args = "{\"bytes\": 4096, \"grid\": [1 2], \"ok\": tru}";
        LoadResult r = test::loadText("[{\"ph\": \"X\", \"name\": \"k\", \"pid\": 1, \"tid\": 1, "
                                      "\"ts\": 1, \"dur\": 2, \"args\": " +
                                      args +
                                      "}, {\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, "
                                      "\"tid\": 1, \"ts\": 5, \"dur\": 1, \"args\": [1, 2]}]");
        QVERIFY2(r.complete(), r.message.c_str());
        DetailsPane pane;
        pane.setTrace(r.trace);
        pane.setEvent(named(*r.trace, "k"));
        const QString text = pane.text();
        QVERIFY2(text.contains(QStringLiteral("Args: not valid JSON, as written:")),
                 qPrintable(text));
        QVERIFY2(text.contains(QString::fromStdString(args)), qPrintable(text));
        // Args that are an array (valid JSON, not an object) show as one.
        pane.setEvent(named(*r.trace, "a"));
        QVERIFY2(pane.text().contains(QStringLiteral("[1]: 2")), qPrintable(pane.text()));
    }

    void detailsVerdictFromReport()
    {
        const EventId k = named(*m_trace, "ncclKernel_AllReduce");
        auto rep = std::make_shared<AnalysisReport>();
        rep->trace = m_trace;
        Collective c;
        c.event = k;
        c.kind = CollectiveKind::AllReduce;
        c.name = "ncclKernel_AllReduce";
        c.mode = 1;
        c.memcpyCount = 1;
        c.memcpyNs = 20'000;
        c.unalignedCount = 1;
        c.anomalous = true;
        c.verdict = "Mode B: 2.0x mode A; one extra Memcpy.";
        rep->collectives.push_back(c);
        SignatureGroup sg;
        sg.baselineMemcpyNs = 5'000;
        rep->signatures.push_back(sg);
        rep->collectiveIndex.push_back({k, 0});
        rep->markIndex.push_back({k, kMarkCollective | kMarkAnomalous});
        DetailsPane pane;
        pane.setTrace(m_trace);
        pane.setReport(rep);
        pane.setEvent(k);
        const QString text = pane.text();
        QVERIFY2(text.contains(QStringLiteral("Mode B: 2.0x mode A")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("AllReduce, mode B")));
        QVERIFY(text.contains(QStringLiteral("15.0 µs"))); // extra memcpy over baseline
        QVERIFY(text.contains(QStringLiteral("not aligned")));
    }

    void callStackFollowsFlowAndActivates()
    {
        CallStackPane pane;
        pane.setTrace(m_trace);
        const EventId k = named(*m_trace, "ncclKernel_AllReduce");
        pane.setEvent(k);
        const auto& e = pane.entries();
        QVERIFY(e.size() >= 3);
        QCOMPARE(e[0].event, k);
        QCOMPARE(QString::fromStdString(e[1].text), QStringLiteral("cudaLaunchKernel"));
        QCOMPARE(QString::fromStdString(e[1].kind), QStringLiteral("flow"));
        QCOMPARE(QString::fromStdString(e[2].text), QStringLiteral("launch_allreduce"));
        QCOMPARE(QString::fromStdString(e.back().text), QStringLiteral("train_step"));
        QSignalSpy spy(&pane, &CallStackPane::frameActivated);
        QTreeWidget* tree = pane.tree();
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {},
                          tree->visualItemRect(tree->topLevelItem(2)).center());
        // Asked once the tree is done with the click (clicked and activated: one request).
        QTRY_COMPARE(spy.count(), 1);
        QTest::qWait(20);
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.first().first().value<EventId>(), named(*m_trace, "launch_allreduce"));
        // A custom provider replaces the chain.
        pane.setProvider([](const Trace&, EventId ev) {
            return std::vector<StackEntry>{{"custom frame", ev, "python"}};
        });
        QCOMPARE(pane.entries().size(), std::size_t(1));
        QVERIFY(pane.text().contains(QStringLiteral("custom frame [python]")));
    }

    // Issue 26.8: a ProfilerStep#N slice around the op is no frame of its call: the chain
    // leaves it out and the header names the step.
    void callStackLeavesOutTheStep()
    {
        LoadResult r = test::loadText(kStepJson);
        QVERIFY(r.trace);
        CallStackPane pane;
        pane.setTrace(r.trace);
        pane.setEvent(named(*r.trace, "c10d::allreduce_"));
        QCOMPARE(pane.entries().size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(pane.entries().back().text),
                 QStringLiteral("train.py(88): train_step"));
        QCOMPARE(pane.tree()->topLevelItemCount(), 2);
        QVERIFY2(pane.text().contains(QStringLiteral("2 frames")), qPrintable(pane.text()));
        QVERIFY2(pane.text().contains(QStringLiteral("in ProfilerStep#40")),
                 qPrintable(pane.text()));
        for (const StackEntry& e : pane.entries())
            QVERIFY(e.text.rfind("ProfilerStep#", 0) != 0);
        // The step itself selected is its own first row.
        pane.setEvent(named(*r.trace, "ProfilerStep#40"));
        QCOMPARE(pane.entries().size(), std::size_t(1));
    }

    // Issue 43.1: the fix in plain sight. Selecting the flagged AllReduce shows its finding in
    // Details (title, the fix naming the source frame, the evidence as links) and marks the
    // frame to change in the Call stack, scrolled to and current.
    void findingInDetailsAndFrameMarked()
    {
        gen::SeedCaseOptions o;
        LoadResult r = test::loadText(gen::seedCaseTrace(o, 0));
        QVERIFY(r.complete());
        const ReportPtr rep = analyze(r.trace);
        const Collective* bad = nullptr;
        for (const Collective& c : rep->collectives)
            if (c.anomalous && !bad) bad = &c;
        QVERIFY(bad);
        DetailsPane details;
        details.resize(700, 500);
        details.setTrace(r.trace);
        details.setReport(rep);
        details.setEvent(bad->event);
        const int fi = details.finding();
        QVERIFY(fi >= 0);
        const Finding& f = rep->findings[std::size_t(fi)];
        QCOMPARE(f.rule, std::string("collective-extra-memcpy"));
        const QString text = details.findingText();
        QVERIFY2(text.contains(QString::fromStdString(f.title)), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("\nFix: The collective copied its input")),
                 qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("Allocate the tensor aligned and contiguous")));
        QVERIFY(text.contains(QStringLiteral("Source: model/attention.py(57): "
                                             "custom_attention_forward")));
        QVERIFY(text.contains(QStringLiteral("Evidence: hcom_allReduce")));
        QVERIFY(details.text().startsWith(QStringLiteral("hcom_allReduce")));
        // An evidence link asks for its event.
        QSignalSpy asked(&details, &DetailsPane::eventRequested);
        QLabel* block = details.findChild<QLabel*>(QStringLiteral("detailsFinding"));
        QVERIFY(block && !block->isHidden());
        QVERIFY(block->text().contains(QStringLiteral("href=\"event:%1\"").arg(f.events.back())));
        emit block->linkActivated(QStringLiteral("event:%1").arg(f.events.back()));
        QCOMPARE(asked.count(), 1);
        QCOMPARE(asked.first().first().value<EventId>(), f.events.back());
        // An extra copy (a task of the op) shows a finding about it too (its address's, or
        // the op's).
        details.setEvent(f.events.back());
        QVERIFY(details.finding() >= 0);
        {
            const Finding& g = rep->findings[std::size_t(details.finding())];
            QVERIFY(std::find(g.events.begin(), g.events.end(), f.events.back()) != g.events.end());
            QVERIFY(g.rule == "collective-extra-memcpy" || g.rule == "unaligned-address");
        }
        // A finding set explicitly (the Findings pane's click) is shown.
        details.setFinding(int(rep->findings.size()) - 1);
        QCOMPARE(details.finding(), int(rep->findings.size()) - 1);
        // Nothing flagged: no block.
        details.setEvent(rep->steps.front().event);
        QCOMPARE(details.finding(), -1);
        QVERIFY(details.findingText().isEmpty());

        CallStackPane stack;
        stack.resize(600, 120); // shorter than the chain: the marked frame is scrolled to
        stack.setProvider([](const Trace& t, EventId e) { return callStack(t, e, 256); });
        stack.setTrace(r.trace);
        stack.setReport(rep);
        stack.show();
        QVERIFY(QTest::qWaitForWindowExposed(&stack));
        stack.setEvent(bad->event);
        QVERIFY(stack.markedRow() >= 0);
        QCOMPARE(stack.markText(), QStringLiteral("allocate aligned here"));
        QTreeWidgetItem* marked = stack.tree()->topLevelItem(stack.markedRow());
        QVERIFY2(marked->text(1).endsWith(QStringLiteral("custom_attention_forward   ← allocate "
                                                         "aligned here")),
                 qPrintable(marked->text(1)));
        QCOMPARE(stack.tree()->currentItem(), marked);
        QCoreApplication::processEvents();
        QVERIFY(stack.tree()->viewport()->rect().intersects(stack.tree()->visualItemRect(marked)));
        QVERIFY(stack.text().contains(QStringLiteral("← allocate aligned here")));
        // A plain event: nothing marked.
        stack.setEvent(rep->steps.front().event);
        QCOMPARE(stack.markedRow(), -1);
    }

    void findingsListAndActivation()
    {
        auto rep = std::make_shared<AnalysisReport>();
        rep->trace = m_trace;
        Finding f1;
        f1.rule = "collective-internal-memcpy";
        f1.severity = Severity::Error;
        f1.title = "AllReduce mode B carries an extra Memcpy";
        f1.rank = 3;
        Finding f2;
        f2.rule = "unaligned-transfer";
        f2.severity = Severity::Warning;
        f2.title = "unaligned Memcpy";
        Finding f3; // job level: no rank, the ranks involved
        f3.rule = "job-rank-delays-collective";
        f3.severity = Severity::Error;
        f3.title = "Rank 2 delays AllReduce";
        f3.ranks = {5, 0, 1, 2, 3, 7, 8, 2};
        Finding f4 = f1; // a second of the first rule: grouped under it, with the count
        f4.title = "AllReduce mode B carries another extra Memcpy";
        f4.rank = 4;
        rep->findings = {f1, f2, f3, f4};
        FindingsPane pane;
        pane.setReport(rep);
        QCOMPARE(pane.count(), 4);
        // One group per rule with its count, in the order of their first finding (errors on
        // top); the title in the first column, whole (it wraps), the rank beside it.
        QCOMPARE(pane.groupCount(), 3);
        QTreeWidgetItem* group = pane.tree()->topLevelItem(0);
        QCOMPARE(group->text(FindingsPane::TitleColumn),
                 QStringLiteral("! error · collective-internal-memcpy · 2"));
        QCOMPARE(group->childCount(), 2);
        QVERIFY(pane.tree()->wordWrap());
        QCOMPARE(pane.tree()->textElideMode(), Qt::ElideNone);
        QCOMPARE(pane.itemOf(2)->text(FindingsPane::RankColumn), QStringLiteral("0-3, 5, 7, 8"));
        QTreeWidgetItem* first = pane.itemOf(0);
        QCOMPARE(first->parent(), group);
        QCOMPARE(first->text(FindingsPane::TitleColumn), QString::fromStdString(f1.title));
        QCOMPARE(first->text(FindingsPane::RankColumn), QStringLiteral("3"));
        QCOMPARE(pane.itemOf(3)->parent(), group);
        QVERIFY(group->isExpanded()); // errors open
        QCOMPARE(pane.itemOf(1)->text(FindingsPane::RankColumn), QStringLiteral("—"));
        QVERIFY(
            pane.tree()->topLevelItem(1)->text(0).contains(QStringLiteral("unaligned-transfer")));
        QVERIFY(pane.tree()->topLevelItem(2)->text(0).contains(QStringLiteral("job-rank-delays")));
        QSignalSpy spy(&pane, &FindingsPane::findingActivated);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        QTest::mouseClick(pane.tree()->viewport(), Qt::LeftButton, {},
                          pane.tree()->visualItemRect(pane.itemOf(1)).center());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.first().first().toInt(), 1);
        // A group's row is no finding: clicking it activates nothing.
        QTest::mouseClick(pane.tree()->viewport(), Qt::LeftButton, {},
                          pane.tree()->visualItemRect(group).center());
        QCOMPARE(spy.count(), 1);
        pane.setReport(nullptr);
        QCOMPARE(pane.count(), 0);
        // An event selected before the findings arrive (N right after a job appears: the
        // timeline takes its report a pass before this pane) is highlighted once they do; a
        // new trace (no report) forgets it.
        rep->findings[1].events = {7};
        pane.setReport(rep);
        pane.setReport(nullptr);
        QCOMPARE(pane.highlightEvent(7), -1);
        pane.setReport(rep);
        QCOMPARE(pane.highlighted(), 1);
        pane.setReport(rep); // analysed again: still highlighted
        QCOMPARE(pane.highlighted(), 1);
        pane.setReport(nullptr);
        pane.setReport(rep);
        QCOMPARE(pane.highlighted(), -1);
    }

    void searchSubstringRegexAndNavigation()
    {
        QCOMPARE(SearchPane::find(*m_trace, QStringLiteral("ALLREDUCE"), false).size(),
                 std::size_t(2));
        QCOMPARE(SearchPane::find(*m_trace, QStringLiteral("^cuda"), true).size(), std::size_t(1));
        QString error;
        QVERIFY(SearchPane::find(*m_trace, QStringLiteral("("), true, &error).empty());
        QVERIFY(!error.isEmpty());
        SearchPane pane;
        pane.setTrace(m_trace);
        QSignalSpy spy(&pane, &SearchPane::resultActivated);
        QCOMPARE(pane.search(QStringLiteral("allreduce")), 2);
        QCOMPARE(pane.list()->topLevelItemCount(), 2);
        // Results in time order: launch_allreduce (10 µs) before the kernel (30 µs).
        pane.next();
        QCOMPARE(spy.last().first().value<EventId>(), named(*m_trace, "launch_allreduce"));
        pane.next();
        QCOMPARE(spy.last().first().value<EventId>(), named(*m_trace, "ncclKernel_AllReduce"));
        pane.next(); // wraps
        QCOMPARE(spy.last().first().value<EventId>(), named(*m_trace, "launch_allreduce"));
        pane.previous();
        QCOMPARE(spy.last().first().value<EventId>(), named(*m_trace, "ncclKernel_AllReduce"));
        // Enter / Shift+Enter in the field.
        QTest::keyClick(pane.input(), Qt::Key_Return);
        QCOMPARE(spy.last().first().value<EventId>(), named(*m_trace, "launch_allreduce"));
        QTest::keyClick(pane.input(), Qt::Key_Return, Qt::ShiftModifier);
        QCOMPARE(spy.last().first().value<EventId>(), named(*m_trace, "ncclKernel_AllReduce"));
    }
};

QTEST_MAIN(TstPanes)
#include "tst_panes.moc"
