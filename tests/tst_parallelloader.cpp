// The parallel tokenizer must give exactly what the SAX path gives: same model, same warnings,
// and on bad input it must hand over to the SAX path (same errors, offsets, truncation).
#include "bench/tracegen_large.h"
#include "core/bytesource.h"
#include "core/parallelloader.h"
#include "core/traceloader.h"
#include "tests/support/gzip.h"
#include "tests/testutil.h"

#include <QDirIterator>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdio>
#include <cstdlib>
#include <sstream>

using namespace rs;

namespace {

// Everything observable in a LoadResult, as text, so two loads compare with one QCOMPARE.
std::string fingerprint(const LoadResult& r)
{
    std::ostringstream o;
    o << "status " << int(r.status) << " stop " << int(r.stop) << " message " << r.message << "\n";
    if (!r.trace) return o.str();
    const Trace& t = *r.trace;
    const LoadStats& s = t.stats();
    o << "events " << s.events << " unknown " << s.unknownPhase << " bad " << s.badFields
      << " unmatched " << s.unmatchedEnd << " unterminated " << s.unterminated << " dangling "
      << s.danglingFlows << " bytes " << s.bytesRead << " truncated " << s.truncated << "\n";
    for (const auto& [ph, n] : s.phases)
        o << "phase " << ph << " " << n << "\n";
    for (const std::string& w : t.warnings())
        o << "warning " << w << "\n";
    o << "producer " << producerName(t.producer()) << " rank " << t.rank().value_or(-1) << " span "
      << t.startNs() << " " << t.endNs() << "\n";
    for (const Process& p : t.processes()) {
        o << "process " << p.pid << " " << p.pidIsNumber << " " << t.str(p.name) << " "
          << p.sortIndex << " " << p.hasSortIndex << " " << p.events;
        for (const std::string& l : p.labels)
            o << " label " << l;
        for (TrackId tr : p.tracks)
            o << " track " << tr;
        o << "\n";
    }
    for (const Track& tr : t.tracks())
        o << "track " << tr.process << " " << int(tr.kind) << " " << tr.tid << " " << t.str(tr.name)
          << " " << tr.sortIndex << " " << tr.begin << " " << tr.end << " " << tr.maxDepth << " "
          << tr.counter << " " << tr.events << "\n";
    for (EventId i = 0; i < t.slices().size(); ++i) {
        const Slice& sl = t.slice(i);
        o << "slice " << sl.start << " " << sl.dur << " " << t.str(sl.name) << " " << t.str(sl.cat)
          << " " << sl.track << " " << sl.parent << " " << sl.depth << " " << sl.phase << " "
          << int(sl.flags) << " " << t.eventStackFrame(i) << " args " << t.argsText(i) << "\n";
    }
    for (const CounterSeries& c : t.counters()) {
        o << "counter " << c.process << " " << t.str(c.name) << " " << t.str(c.key);
        for (std::size_t i = 0; i < c.ts.size(); ++i)
            o << " " << c.ts[i] << "=" << c.values[i];
        o << "\n";
    }
    for (const Flow& f : t.flows())
        o << "flow " << f.from << " " << f.to << " " << t.str(f.cat) << " " << t.str(f.name) << " "
          << f.id << " " << t.flowIdText(f) << " " << f.idIsText << "\n";
    for (const StackFrame& f : t.stackFrames())
        o << "frame " << t.str(f.name) << " " << t.str(f.category) << " " << f.parent << "\n";
    o << "metadata " << t.metadata().dump() << "\n";
    return o.str();
}

LoadResult loadSax(const std::string& bytes)
{
    ::setenv("RINGSCOPE_LOADER", "sax", 1);
    LoadResult r = loadTraceFromMemory(bytes.data(), bytes.size(), {}, "<test>");
    ::unsetenv("RINGSCOPE_LOADER");
    return r;
}

std::string readAll(const QString& path)
{
    std::string error;
    auto src = ByteSource::open(path.toStdString(), &error);
    std::string out;
    if (!src) return out;
    for (auto it = src->begin(); it != src->end(); ++it)
        out.push_back(*it);
    return out;
}

// Fast path (several chunk sizes and thread counts) against SAX. A valid document must not
// fall back; an invalid one may, and then the public entry point must equal SAX too.
void compareBoth(const std::string& bytes, bool mustBeFast, const char* what)
{
    const std::string sax = fingerprint(loadSax(bytes));
    for (std::size_t chunk : {std::size_t(64), std::size_t(4096), std::size_t(4) << 20}) {
        for (int threads : {1, 2}) {
            ParallelOptions po;
            po.chunkBytes = chunk;
            po.threads = threads;
            auto fast = loadTraceParallelFromMemory(bytes.data(), bytes.size(), "<test>", {}, po);
            if (mustBeFast) QVERIFY2(fast.has_value(), what);
            if (fast) QCOMPARE(fingerprint(*fast), sax);
        }
    }
    const LoadResult pub = loadTraceFromMemory(bytes.data(), bytes.size(), {}, "<test>");
    QCOMPARE(fingerprint(pub), sax);
}

// A file through the public entry point and through the SAX path give the same result; with
// mustBeFast the parallel path must have taken it (gzip included).
void compareFile(const std::string& path, bool mustBeFast, const LoadOptions& lo = {})
{
    ::setenv("RINGSCOPE_LOADER", "sax", 1);
    const std::string sax = fingerprint(loadTrace(path, lo));
    ::unsetenv("RINGSCOPE_LOADER");
    LoadProgress progress;
    auto fast = loadTraceParallel(path, resolveTracePath(path).rank, lo, &progress);
    if (mustBeFast) {
        QVERIFY2(fast.has_value(), path.c_str());
        QCOMPARE(progress.done.load(), progress.total.load());
    }
    if (fast) QCOMPARE(fingerprint(*fast), sax);
    QCOMPARE(fingerprint(loadTrace(path, lo)), sax);
}

std::string writeTemp(const QTemporaryDir& dir, const char* name, const std::string& bytes)
{
    const std::string path = dir.filePath(name).toStdString();
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return path;
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    return path;
}

// Valid but unusual JSON: escapes, surrogates, "-0", integers past 2^64, duplicate keys, odd
// field types, "},{" inside args strings (a wrong chunk boundary guess), metadata around.
std::string tricky()
{
    return readAll(test::testDataPath("parallel_tricky.json"));
}

} // namespace

class TstParallelLoader : public QObject {
    Q_OBJECT
private slots:
    void trickyDocumentMatchesSax() { compareBoth(tricky(), true, "tricky"); }

    void bareArrayAndWhitespace()
    {
        compareBoth("\n\t [ {\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1} ,"
                    "{\"ph\":\"X\",\"name\":\"b\",\"ts\":2,\"dur\":1,\"pid\":1,\"tid\":1}]\r\n",
                    true, "bare");
    }

    // Every prefix of a document (truncated files) and single-byte corruptions: the public
    // entry point gives exactly the SAX result, whoever produced it.
    void truncatedAndCorruptMatchSax()
    {
        const std::string doc = tricky();
        QVERIFY(!doc.empty());
        for (std::size_t n = 0; n < doc.size(); n += 3)
            compareBoth(doc.substr(0, n), false, "prefix");
        const char bad[] = {'\x01', '"', '}', ']', ',', '\\', '\xff', 'x', '0'};
        for (std::size_t i = 0; i < doc.size(); i += 7) {
            std::string d = doc;
            d[i] = bad[i % sizeof bad];
            compareBoth(d, false, "corrupt");
        }
    }

    void badInputFallsBack()
    {
        for (const char* s : {"", "[]", "{}", "[1,2]", "[{\"ph\":\"X\"},5]", "{\"traceEvents\":{}}",
                              "\xEF\xBB\xBF[{}]", "[{\"a\":1e999}]", "[{\"a\":\"\\ud800\"}]",
                              "[{\"a\":\"\xC0\xAF\"}]", "[{\"a\":01}]", "[{\"ts\":1,}]", "[{}] x",
                              "[{\"a\":tru}]", "[{\"a\":\"\t\"}]"}) {
            const std::string bytes(s);
            QVERIFY2(!loadTraceParallelFromMemory(bytes.data(), bytes.size(), "<t>").has_value(),
                     s);
            const LoadResult pub = loadTraceFromMemory(bytes.data(), bytes.size(), {}, "<test>");
            QCOMPARE(fingerprint(pub), fingerprint(loadSax(bytes)));
        }
    }

    void generatedTracesMatchSax()
    {
        for (auto shape : {tracegen::Shape::Kineto, tracegen::Shape::TorchNpu}) {
            std::FILE* f = std::tmpfile();
            QVERIFY(f);
            tracegen::LargeTraceOptions o;
            o.shape = shape;
            o.targetBytes = 1 << 20;
            QVERIFY(tracegen::writeLargeTrace(f, o, nullptr));
            std::string bytes(static_cast<std::size_t>(std::ftell(f)), '\0');
            std::rewind(f);
            QCOMPARE(std::fread(bytes.data(), 1, bytes.size(), f), bytes.size());
            std::fclose(f);
            compareBoth(bytes, true, "generated");
        }
    }

    // Over the memory budget the SAX path runs and reports it, whichever rule trips.
    void budgetFallsBack()
    {
        std::FILE* f = std::tmpfile();
        QVERIFY(f);
        tracegen::LargeTraceOptions o;
        o.targetBytes = 2 << 20;
        QVERIFY(tracegen::writeLargeTrace(f, o, nullptr));
        std::string bytes(static_cast<std::size_t>(std::ftell(f)), '\0');
        std::rewind(f);
        QCOMPARE(std::fread(bytes.data(), 1, bytes.size(), f), bytes.size());
        std::fclose(f);
        // 1 MB: smaller than the file; 3 MB and 4 MB: near what the model needs.
        for (std::uint64_t budget :
             {std::uint64_t(1) << 20, std::uint64_t(3) << 20, std::uint64_t(4) << 20}) {
            LoadOptions lo;
            lo.maxMemoryBytes = budget;
            auto fast = loadTraceParallelFromMemory(bytes.data(), bytes.size(), "<t>", lo);
            if (budget < bytes.size()) QVERIFY(!fast);
            const LoadResult pub = loadTraceFromMemory(bytes.data(), bytes.size(), lo, "<test>");
            if (budget < bytes.size()) QVERIFY(pub.failed());
            ::setenv("RINGSCOPE_LOADER", "sax", 1);
            const LoadResult sax = loadTraceFromMemory(bytes.data(), bytes.size(), lo, "<test>");
            ::unsetenv("RINGSCOPE_LOADER");
            QCOMPARE(fingerprint(pub), fingerprint(sax));
            if (fast) QCOMPARE(fingerprint(*fast), fingerprint(sax));
        }
    }

    // gzip is inflated, then loaded in parallel; an odd gzip stream goes to the SAX path.
    void gzipMatchesSax()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        std::FILE* f = std::tmpfile();
        QVERIFY(f);
        tracegen::LargeTraceOptions o;
        o.targetBytes = 3 << 20;
        QVERIFY(tracegen::writeLargeTrace(f, o, nullptr));
        std::string gen(static_cast<std::size_t>(std::ftell(f)), '\0');
        std::rewind(f);
        QCOMPARE(std::fread(gen.data(), 1, gen.size(), f), gen.size());
        std::fclose(f);
        const std::string gz = test::gzip(gen);
        compareFile(writeTemp(dir, "gen.json.gz", gz), true);
        compareFile(writeTemp(dir, "tricky.json.gz", test::gzip(tricky())), true);
        // Two members are one stream; garbage after the last member is ignored (as SAX does).
        const std::string doc = tricky();
        const std::string twoMembers =
            test::gzip(doc.substr(0, doc.size() / 2)) + test::gzip(doc.substr(doc.size() / 2));
        compareFile(writeTemp(dir, "two.json.gz", twoMembers), true);
        compareFile(writeTemp(dir, "garbage.json.gz", gz + "garbage"), true);
        // Truncated and corrupt streams, a truncated document, and the memory budget.
        for (std::size_t cut : {gz.size() / 3, gz.size() - 5})
            compareFile(writeTemp(dir, "cut.json.gz", gz.substr(0, cut)), false);
        std::string corrupt = gz;
        corrupt[corrupt.size() / 2] = static_cast<char>(corrupt[corrupt.size() / 2] ^ 0x55);
        compareFile(writeTemp(dir, "corrupt.json.gz", corrupt), false);
        compareFile(writeTemp(dir, "half.json.gz", test::gzip(gen.substr(0, gen.size() / 2))),
                    false);
        for (std::uint64_t budget : {std::uint64_t(1) << 20, std::uint64_t(5) << 20}) {
            LoadOptions lo;
            lo.maxMemoryBytes = budget;
            compareFile(writeTemp(dir, "budget.json.gz", gz), false, lo);
        }
        LoadProgress cancelled;
        cancelled.cancel = true;
        auto r = loadTraceParallel(writeTemp(dir, "gen.json.gz", gz), std::nullopt, {}, &cancelled);
        QVERIFY(r && r->cancelled() && r->failed());
    }

    void publicTracesMatchSax()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        QDirIterator it(test::publicTracesDir(), {"*.json", "*.json.gz"}, QDir::Files,
                        QDirIterator::Subdirectories);
        int n = 0;
        while (it.hasNext()) {
            const QString path = it.next();
            if (path.contains("profiler_info") || path.contains("profiler_metadata") ||
                path.contains("communication"))
                continue;
            const std::string bytes = readAll(path);
            QVERIFY2(!bytes.empty(), qPrintable(path));
            compareBoth(bytes, true, qPrintable(path));
            compareFile(path.toStdString(), true); // gzip files inflated as a whole too
            ++n;
        }
        QVERIFY(n >= 8);
    }
};

QTEST_GUILESS_MAIN(TstParallelLoader)
#include "tst_parallelloader.moc"
