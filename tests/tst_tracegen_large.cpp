// The large-trace generator: what it says it wrote is what the loader reads, without warnings.
#include "bench/tracegen_large.h"
#include "core/producers/producer.h"
#include "core/traceloader.h"
#include "tests/testutil.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace rs;

namespace {

std::uint64_t countSlices(const Trace& t, const std::string& prefix)
{
    std::uint64_t n = 0;
    for (const Slice& s : t.slices())
        n += t.str(s.name).rfind(prefix, 0) == 0;
    return n;
}

} // namespace

class TstTracegenLarge : public QObject {
    Q_OBJECT
private slots:
    void loadsWithTheCountsWritten_data()
    {
        QTest::addColumn<int>("shape");
        QTest::newRow("kineto") << int(tracegen::Shape::Kineto);
        QTest::newRow("torch_npu") << int(tracegen::Shape::TorchNpu);
    }

    void loadsWithTheCountsWritten()
    {
        QFETCH(int, shape);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("trace.json").toStdString();
        tracegen::LargeTraceOptions o;
        o.shape = static_cast<tracegen::Shape>(shape);
        o.targetBytes = 3u << 20;
        o.rank = 1;
        tracegen::LargeTraceStats st;
        std::string error;
        QVERIFY2(tracegen::writeLargeTrace(path, o, &st, &error), error.c_str());
        QVERIFY(st.bytes >= o.targetBytes);
        QVERIFY(st.bytes < o.targetBytes + (1u << 20)); // stops at the next step boundary

        const LoadResult r = loadTrace(path);
        QVERIFY2(r.complete(), r.message.c_str());
        const Trace& t = *r.trace;
        QCOMPARE(t.stats().events, st.events);
        QCOMPARE(t.stats().phases, st.phases);
        QVERIFY2(t.warnings().empty(), t.warnings().empty() ? "" : t.warnings()[0].c_str());
        QCOMPARE(t.stats().badFields, std::uint64_t(0));
        QCOMPARE(t.stats().danglingFlows, std::uint64_t(0));
        // Every flow step pair binds: one arrow per "f".
        QCOMPARE(std::uint64_t(t.flows().size()), st.phases.at("f"));
        QCOMPARE(countSlices(t, "ProfilerStep#"), st.steps);
        if (o.shape == tracegen::Shape::Kineto) {
            QCOMPARE(t.producer().id(), std::string_view("kineto"));
            QCOMPARE(t.rank().value_or(-1), 1); // from distributedInfo
            QCOMPARE(countSlices(t, "ncclKernel_AllReduce"), st.collectives);
        } else {
            QCOMPARE(t.producer().id(), std::string_view("torch_npu"));
            QCOMPARE(countSlices(t, "hcom_allReduce_"), st.collectives);
            QVERIFY(!t.counters().empty());
        }
    }

    void deterministic()
    {
        QTemporaryDir dir;
        tracegen::LargeTraceOptions o;
        o.shape = tracegen::Shape::TorchNpu;
        o.targetBytes = 200000;
        const std::string a = dir.filePath("a.json").toStdString();
        const std::string b = dir.filePath("b.json").toStdString();
        QVERIFY(tracegen::writeLargeTrace(a, o, nullptr, nullptr));
        QVERIFY(tracegen::writeLargeTrace(b, o, nullptr, nullptr));
        QFile fa(QString::fromStdString(a)), fb(QString::fromStdString(b));
        QVERIFY(fa.open(QIODevice::ReadOnly) && fb.open(QIODevice::ReadOnly));
        QCOMPARE(fa.readAll(), fb.readAll());
    }

    void parseSize()
    {
        QCOMPARE(tracegen::parseSize("100M"), std::uint64_t(100) << 20);
        QCOMPARE(tracegen::parseSize("1G"), std::uint64_t(1) << 30);
        QCOMPARE(tracegen::parseSize("1GiB"), std::uint64_t(1) << 30);
        QCOMPARE(tracegen::parseSize("512k"), std::uint64_t(512) << 10);
        QCOMPARE(tracegen::parseSize("123"), std::uint64_t(123));
        QCOMPARE(tracegen::parseSize("x"), std::uint64_t(0));
        QCOMPARE(tracegen::parseSize("5Q"), std::uint64_t(0));
    }

    // The bundled sample (resources/samples, made by gen_trace --sample) is the seed case in
    // miniature: two ranks of a torch_npu trace with AllReduces and steps, loading cleanly.
    void bundledSampleLoads()
    {
        for (const char* name : {"sample_rank0.json", "sample_rank1.json"}) {
            QFile f(test::testDataPath(QStringLiteral("../../resources/samples/") + name));
            QVERIFY2(f.open(QIODevice::ReadOnly), name);
            const QByteArray bytes = f.readAll();
            QVERIFY(bytes.size() < 300 * 1024);
            const LoadResult r = loadTraceFromMemory(bytes.constData(), bytes.size());
            QVERIFY2(r.complete(), r.message.c_str());
            QVERIFY(r.trace->warnings().empty());
            QCOMPARE(r.trace->producer().id(), std::string_view("torch_npu"));
            QCOMPARE(countSlices(*r.trace, "ProfilerStep#"), std::uint64_t(4));
            QVERIFY(countSlices(*r.trace, "hcom_allReduce_") >= 4);
            QVERIFY(countSlices(*r.trace, "Memcpy") >= 1);
        }
    }
};

QTEST_GUILESS_MAIN(TstTracegenLarge)
#include "tst_tracegen_large.moc"
