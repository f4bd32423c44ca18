// What a slice is (core/slicekind.h), decided by its producer at load: on the public traces the
// kinds agree with an oracle that reads the raw JSON by itself (Kineto's categories) and with the
// facts SOURCES.md states (torch_npu's HCCL ops and tasks, the database's steps); the steps and
// run facts; a job's merged trace keeps each rank's kinds; what the producers read is said once.
#include "core/job/jobtrace.h"
#include "core/producers/registry.h"
#include "core/trace.h"
#include "core/traceloader.h"
#include "tests/testutil.h"

#include <QProcess>
#include <QtTest>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <map>
#include <string>

using namespace rs;

namespace {

std::map<SliceKind, int> countKinds(const Trace& t, TrackRole role = TrackRole::Other,
                                    bool anyRole = true)
{
    std::map<SliceKind, int> n;
    for (EventId e = 0; e < t.slices().size(); ++e)
        if (anyRole || t.role(t.slice(e).track) == role) ++n[t.kind(e)];
    return n;
}

std::vector<int> stepNumbers(const Trace& t)
{
    std::vector<int> out;
    for (const StepMark& m : t.steps()) {
        out.push_back(m.number);
        if (t.kind(m.event) != SliceKind::Step) return {-1};
    }
    return out;
}

// The raw JSON of a (gzip-compressed) trace, read without the loader.
nlohmann::json readRaw(const QString& path)
{
    gzFile f = gzopen(path.toLocal8Bit().constData(), "rb");
    if (!f) return {};
    std::string text;
    char buf[1 << 16];
    for (int n; (n = gzread(f, buf, sizeof buf)) > 0;)
        text.append(buf, std::size_t(n));
    gzclose(f);
    return nlohmann::json::parse(text, nullptr, false);
}

TracePtr load(const QString& path)
{
    const LoadResult r = loadTrace(path.toStdString());
    return r.complete() ? r.trace : nullptr;
}

} // namespace

class TstSliceKinds : public QObject {
    Q_OBJECT
private slots:
    // Kineto: the kind of each X event follows from its category alone (and the NCCL kernels'
    // names); the oracle counts them in the raw JSON.
    void kinetoMatchesItsCategories_data()
    {
        QTest::addColumn<QString>("path");
        for (const auto& c : test::publicSingleRankTraces())
            if (QString(c.path).endsWith(".gz")) QTest::newRow(c.tag) << test::publicTrace(c.path);
    }
    void kinetoMatchesItsCategories()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        QFETCH(QString, path);
        const TracePtr t = load(path);
        QVERIFY(t);
        const nlohmann::json raw = readRaw(path);
        QVERIFY(raw.is_object() && raw.contains("traceEvents"));
        std::map<SliceKind, int> want;
        for (const nlohmann::json& ev : raw["traceEvents"]) {
            if (!ev.is_object() || ev.value("ph", "") != "X" || !ev.contains("cat")) continue;
            const std::string cat = ev.value("cat", ""), name = ev.value("name", "");
            if (cat == "kernel")
                ++want[name.rfind("nccl", 0) == 0 || name.rfind("rccl", 0) == 0
                           ? SliceKind::Collective
                           : SliceKind::Kernel];
            else if (cat == "gpu_memcpy")
                ++want[SliceKind::Copy];
            else if (cat == "gpu_memset")
                ++want[SliceKind::Memset];
            else if (cat == "cuda_runtime" || cat == "cuda_driver")
                ++want[SliceKind::Launch];
            else if (cat == "python_function")
                ++want[SliceKind::Python];
        }
        const auto got = countKinds(*t);
        for (SliceKind k : {SliceKind::Kernel, SliceKind::Collective, SliceKind::Copy,
                            SliceKind::Memset, SliceKind::Launch, SliceKind::Python})
            QVERIFY2(got.count(k) ? got.at(k) == want[k] : want[k] == 0,
                     qPrintable(QString("%1: %2 in the model, %3 in the JSON")
                                    .arg(sliceKindName(k))
                                    .arg(got.count(k) ? got.at(k) : 0)
                                    .arg(want[k])));
        // Every step is a ProfilerStep#N on a host thread.
        for (const StepMark& m : t->steps()) {
            QCOMPARE(t->role(t->slice(m.event).track), TrackRole::Host);
            QCOMPARE(t->str(t->slice(m.event).name), "ProfilerStep#" + std::to_string(m.number));
        }
    }

    // SOURCES.md: the Level1 run's rank 0 has 4 hcom ops, 36 Memcpy tasks on the Plane tracks,
    // 1,282 python_function events and one step, 50; Kineto's HTA run has steps 4 to 6.
    void knownFacts()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        const TracePtr npu =
            load(test::publicTrace("ascend_torchnpu_level1_2rank/rank0_ascend_pt"));
        QVERIFY(npu);
        QCOMPARE(countKinds(*npu, TrackRole::HcclGroup, false)[SliceKind::Collective], 4);
        QCOMPARE(countKinds(*npu, TrackRole::HcclPlane, false)[SliceKind::Copy], 36);
        QCOMPARE(countKinds(*npu)[SliceKind::Python], 1282);
        QCOMPARE(stepNumbers(*npu), std::vector<int>{50});
        QVERIFY(!npu->runFacts().clockBaseNs);

        const TracePtr hta =
            load(test::publicTrace("kineto_nccl_a100_2rank_hta/nccl_data.json.gz"));
        QVERIFY(hta);
        QCOMPARE(stepNumbers(*hta), (std::vector<int>{4, 5, 6}));
        QCOMPARE(hta->runFacts().worldSize, std::optional<int>(2));
        QVERIFY(!hta->runFacts().devices.empty());
        QVERIFY(QString::fromStdString(hta->runFacts().devices.front()).contains("A100"));

        // The database run names rows as the text export does: the same kinds.
        const TracePtr db =
            load(test::publicTrace("ascend_torchnpu_db_level2_2rank/rank0_ascend_pt"));
        QVERIFY(db);
        QCOMPARE(countKinds(*db, TrackRole::HcclGroup, false)[SliceKind::Collective], 4);
        QCOMPARE(stepNumbers(*db), std::vector<int>{50});
    }

    // A trace of unknown origin without framework op categories: every host slice but a
    // Python frame is an op; ProfilerStep#N is a step on a thread, never on a GPU stream.
    void unknownOrigin()
    {
        // (Not a raw string: moc reads a '#' in one as a directive and misses the class.)
        const LoadResult r = test::loadText(
            "{\"traceEvents\":["
            "{\"ph\":\"X\",\"name\":\"ProfilerStep#7\",\"ts\":0,\"dur\":100,\"pid\":1,\"tid\":1,"
            "\"cat\":\"x\"},"
            "{\"ph\":\"X\",\"name\":\"work\",\"ts\":1,\"dur\":10,\"pid\":1,\"tid\":1,\"cat\":\"x\"}"
            ","
            "{\"ph\":\"X\",\"name\":\"f\",\"ts\":2,\"dur\":5,\"pid\":1,\"tid\":1,"
            "\"cat\":\"python_function\"}]}");
        QVERIFY(r.complete());
        const Trace& t = *r.trace;
        std::map<std::string, SliceKind> by;
        for (EventId e = 0; e < t.slices().size(); ++e)
            by[t.str(t.slice(e).name)] = t.kind(e);
        // The track is a host thread by its python_function slice.
        QCOMPARE(by["work"], SliceKind::HostOp);
        QCOMPARE(by["f"], SliceKind::Python);
        QCOMPARE(by["ProfilerStep#7"], SliceKind::Step);
        QCOMPARE(stepNumbers(t), std::vector<int>{7});
        QCOMPARE(t.stepNumber(t.steps().front().event), std::optional<int>(7));
        QCOMPARE(t.stepNumber(t.steps().front().event + 1), std::optional<int>());
    }

    // A job's merged trace keeps each rank's kinds and steps at the rank's event base.
    void mergedJobKeepsKinds()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        std::vector<TracePtr> ranks;
        for (const char* r : {"rank0_ascend_pt", "rank1_ascend_pt"}) {
            ranks.push_back(load(test::publicTrace(QString("ascend_torchnpu_level1_2rank/") + r)));
            QVERIFY(ranks.back());
        }
        const std::vector<TracePtr> kept = ranks;
        const JobTrace job = mergeRanks(ranks, {0, 0}, "job");
        const Trace& m = *job.trace;
        QCOMPARE(m.kinds().size(), m.slices().size());
        QCOMPARE(m.steps().size(), kept[0]->steps().size() + kept[1]->steps().size());
        for (std::size_t b = 0; b < 2; ++b) {
            const Trace& r = *kept[b];
            for (EventId e = 0; e < r.slices().size(); e += 13)
                QCOMPARE(m.kind(job.toMerged(b, e)), r.kind(e));
            for (const StepMark& s : r.steps())
                QCOMPARE(m.stepNumber(job.toMerged(b, s.event)), std::optional<int>(s.number));
        }
    }

    // What the producers read is said once: every producer describes its inputs, the error
    // for a folder with no trace names them, and so does every command's help.
    void inputsSaidOnce()
    {
        for (const Producer* p : producers::all())
            QVERIFY2(!p->inputs().empty(), std::string(p->id()).c_str());
        const std::string sentence = producers::inputsSentence();
        for (const std::string& d : producers::inputDescriptions())
            QVERIFY(sentence.find(d) != std::string::npos);
        QVERIFY(sentence.find("ascend_pytorch_profiler_N.db") != std::string::npos);
        QTemporaryDir empty;
        const producers::Resolved r = producers::resolve(empty.path().toStdString());
        QVERIFY(r.error.find(sentence) != std::string::npos);

        const QString exe = test::binaryDir() + "/app/ringscope";
        if (!QFileInfo(exe).isExecutable()) QSKIP("the ringscope binary is not built");
        for (const char* command : {"info", "analyze", "stats", "export"}) {
            QProcess p;
            p.start(exe, {command, "--help"});
            QVERIFY(p.waitForFinished(60000));
            // The parser wraps the text: compare without line breaks and indentation.
            const QString help =
                QString::fromUtf8(p.readAllStandardOutput()).simplified().remove(' ');
            for (const std::string& d : producers::inputDescriptions())
                QVERIFY2(help.contains(QString::fromStdString(d).remove(' ')),
                         qPrintable(QString(command) + ": " + QString::fromStdString(d)));
        }
    }
};

QTEST_GUILESS_MAIN(TstSliceKinds)
#include "tst_slicekinds.moc"
