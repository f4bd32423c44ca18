// Issue 43.9: a Kineto trace whose ac2g flows are missing or written on the host thread (as in
// TraceLens' MI300X trace) still links each kernel and copy to its runtime call by
// args.correlation, also when CUPTI's clocks start the kernel before its launch ends: the model
// gets the flows, the call stack of a kernel reaches the host op and its Python frame, and the
// analysis counts the launches. A trace whose flows are whole gets none added.
#include "core/analysis/analyzer.h"
#include "core/trace.h"
#include "tests/testutil.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace rs;

namespace {

// One host thread (a Python frame, an op, two launches) and one GPU stream (a kernel, a copy).
// flows: "whole" (s on the call, f on the device event), "host" (the f ends written on the
// host thread, as the MI300X trace has them) or "none".
std::string trace(const std::string& flows)
{
    nlohmann::json ev = nlohmann::json::array();
    auto x = [&](const char* name, const char* cat, int pid, int tid, double ts, double dur,
                 nlohmann::json args = nlohmann::json::object()) {
        ev.push_back({{"ph", "X"},
                      {"name", name},
                      {"cat", cat},
                      {"pid", pid},
                      {"tid", tid},
                      {"ts", ts},
                      {"dur", dur},
                      {"args", args}});
    };
    x("train.py(12): step", "python_function", 1, 1, 0, 100);
    x("aten::mm", "cpu_op", 1, 1, 5, 50);
    x("cudaLaunchKernel", "cuda_runtime", 1, 1, 10, 20, {{"correlation", 77}});
    x("cudaMemcpyAsync", "cuda_runtime", 1, 1, 40, 10, {{"correlation", 78}});
    // The kernel starts before its launch ends (CUPTI clock skew).
    x("gemm", "kernel", 0, 7, 25, 30, {{"correlation", 77}, {"stream", 7}});
    x("Memcpy DtoD (Device -> Device)", "gpu_memcpy", 0, 7, 60, 5,
      {{"correlation", 78}, {"bytes", 4096}});
    auto flow = [&](int id, double sts, int fpid, int ftid, double fts) {
        ev.push_back({{"ph", "s"},
                      {"id", id},
                      {"pid", 1},
                      {"tid", 1},
                      {"ts", sts},
                      {"cat", "ac2g"},
                      {"name", "ac2g"}});
        ev.push_back({{"ph", "f"},
                      {"id", id},
                      {"pid", fpid},
                      {"tid", ftid},
                      {"ts", fts},
                      {"cat", "ac2g"},
                      {"name", "ac2g"},
                      {"bp", "e"}});
    };
    if (flows == "whole") {
        flow(77, 10, 0, 7, 25);
        flow(78, 40, 0, 7, 60);
    } else if (flows == "host") {
        flow(77, 10, 1, 1, 25.5);
        flow(78, 40, 1, 1, 60.5);
    }
    return nlohmann::json{{"schemaVersion", 1}, {"traceEvents", ev}}.dump();
}

EventId named(const Trace& t, const std::string& n)
{
    for (EventId e = 0; e < t.slices().size(); ++e)
        if (t.str(t.slice(e).name) == n) return e;
    return kNone;
}

// The runtime call each flow reaching e comes from.
std::vector<std::string> launchesOf(const Trace& t, EventId e)
{
    std::vector<std::string> out;
    for (std::uint32_t f : t.flowsTo(e))
        out.push_back(t.str(t.slice(t.flows()[f].from).name));
    return out;
}

} // namespace

class TstKinetoCorrelation : public QObject {
    Q_OBJECT
private slots:
    void linkedByCorrelation_data()
    {
        QTest::addColumn<QString>("flows");
        QTest::newRow("ends on the host thread") << "host";
        QTest::newRow("no flow events") << "none";
        QTest::newRow("whole") << "whole";
    }
    void linkedByCorrelation()
    {
        QFETCH(QString, flows);
        const LoadResult r = test::loadText(trace(flows.toStdString()));
        QVERIFY(r.complete());
        const Trace& t = *r.trace;
        const EventId kernel = named(t, "gemm"), copy = named(t, "Memcpy DtoD (Device -> Device)");
        QVERIFY(kernel != kNone && copy != kNone);
        // One flow each, from the right call, whatever the trace's own flows did.
        QCOMPARE(launchesOf(t, kernel), std::vector<std::string>{"cudaLaunchKernel"});
        QCOMPARE(launchesOf(t, copy), std::vector<std::string>{"cudaMemcpyAsync"});
        bool noted = false;
        for (const std::string& w : t.warnings())
            noted = noted || w.find("by correlation id") != std::string::npos;
        QCOMPARE(noted, flows != "whole");

        // The call stack of the kernel reaches the op and the Python frame on the host.
        std::vector<std::string> chain;
        for (const StackEntry& s : callStack(t, kernel, 16))
            chain.push_back(s.text);
        QVERIFY2(std::find(chain.begin(), chain.end(), "aten::mm") != chain.end(),
                 flows.toUtf8().constData());
        QVERIFY(std::find(chain.begin(), chain.end(), "train.py(12): step") != chain.end());
    }
};

QTEST_GUILESS_MAIN(TstKinetoCorrelation)
#include "tst_kinetocorrelation.moc"
