// The one JSON reader against nlohmann/json as the oracle: the model built from what
// nlohmann's SAX parser sees (tests/support/jsonoracle) equals the loaded one for every valid
// document, whatever the chunk size and thread count, plain and gzip (where small chunks cut
// events across gzip pieces); on every prefix and many corruptions both agree on whether the
// document is valid and on how many complete events precede the error.
#include "bench/tracegen_large.h"
#include "core/bytesource.h"
#include "core/parallelloader.h"
#include "core/producers/producer.h"
#include "core/tracebuilder.h"
#include "core/traceloader.h"
#include "core/workpool.h"
#include "tests/support/gzip.h"
#include "tests/support/jsonoracle.h"
#include "tests/testutil.h"

#include <QDirIterator>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdio>
#include <sstream>

using namespace rs;

namespace {

// Args as the oracle has them: parsed, and "{}" for text that is not JSON (blankLaxArgs).
std::string argsAsOracle(const std::string& args)
{
    const nlohmann::json j = nlohmann::json::parse(args, nullptr, false);
    return j.is_discarded() ? std::string("{}") : j.dump();
}

// Everything observable in a LoadResult, as text, so two loads compare with one QCOMPARE.
// Args are compared as JSON values (the oracle has them parsed, not as written), or as written
// (rawArgs: two loads of the same text, which must agree byte for byte).
std::string fingerprint(const LoadResult& r, bool rawArgs = false)
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
    o << "producer " << t.producer().id() << " rank " << t.rank().value_or(-1) << " span "
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
        const std::string args(t.argsText(i));
        o << "slice " << sl.start << " " << sl.dur << " " << t.str(sl.name) << " " << t.str(sl.cat)
          << " " << sl.track << " " << sl.parent << " " << sl.depth << " " << sl.phase << " "
          << int(sl.flags) << " " << t.eventStackFrame(i) << " args "
          << (args.empty() || rawArgs ? args : argsAsOracle(args)) << "\n";
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

// An oracle scalar ("i:-3", "f:1.5", "s:x", "null", ...) as the tokenizer gives it.
JsonScalar scalarOf(const std::string& tagged)
{
    JsonScalar v;
    if (tagged.empty()) return v;
    if (tagged == "null") {
        v.kind = JsonScalar::Null;
        return v;
    }
    const std::string_view body(tagged.data() + 2, tagged.size() - 2);
    v.text = {body.data(), static_cast<std::uint32_t>(body.size())};
    switch (tagged[0]) {
    case 'b':
        v.kind = JsonScalar::Bool;
        v.boolean = body == "true";
        break;
    case 'i':
        v.kind = JsonScalar::Int;
        v.bits = static_cast<std::uint64_t>(std::stoll(std::string(body)));
        break;
    case 'u':
        v.kind = JsonScalar::UInt;
        v.bits = std::stoull(std::string(body));
        break;
    case 'f':
        v.kind = JsonScalar::Float;
        break;
    default:
        v.kind = JsonScalar::String;
        break;
    }
    return v;
}

TextRef ref(const std::string& s)
{
    return {s.data(), static_cast<std::uint32_t>(s.size())};
}

// The model of a valid trace document built from nlohmann's view of it; nullopt when nlohmann
// rejects the text or it is not an array or object.
std::optional<LoadResult> oracleLoad(const std::string& text, const std::string& name,
                                     std::optional<int> rank = std::nullopt)
{
    const test::OracleDocument doc = test::oracleRead(text);
    if (!doc.valid) return std::nullopt;
    std::size_t first = 0;
    while (first < text.size() && std::strchr(" \t\r\n", text[first]))
        ++first;
    if (text.compare(first, 3, "\xEF\xBB\xBF") == 0) first += 3;
    while (first < text.size() && std::strchr(" \t\r\n", text[first]))
        ++first;
    if (first >= text.size() || (text[first] != '[' && text[first] != '{')) return std::nullopt;
    TraceBuilder b;
    b.setPath(name);
    if (rank) b.setRank(*rank);
    for (const test::OracleEvent& e : doc.events) {
        TraceEvent ev;
        ev.ph = ref(e.ph);
        ev.name = ref(e.name);
        ev.cat = ref(e.cat);
        ev.bp = ref(e.bp);
        ev.scope = ref(e.scope);
        const std::string args = e.args.is_null() ? std::string() : e.args.dump();
        ev.args = ref(args);
        ev.ts = scalarOf(e.ts);
        ev.dur = scalarOf(e.dur);
        ev.pid = scalarOf(e.pid);
        ev.tid = scalarOf(e.tid);
        ev.id = scalarOf(e.id);
        ev.bindId = scalarOf(e.bindId);
        ev.sf = scalarOf(e.sf);
        for (const std::string& f : e.stack)
            ev.stack.push_back(ref(f));
        ev.flowIn = e.flowIn;
        ev.flowOut = e.flowOut;
        ev.badTypes = e.badTypes;
        b.addEvent(ev);
    }
    for (const auto& [k, v] : doc.metadata)
        b.addMetadata(k, v);
    if (doc.nonObjects)
        b.addWarning(std::to_string(doc.nonObjects) +
                     " non-object entr(ies) in the event array were skipped");
    if (doc.events.empty()) b.addWarning("the trace holds no events");
    b.setBytesRead(text.size());
    LoadResult r;
    r.status = LoadStatus::Complete;
    r.resolvedPath = name;
    r.trace = b.finish();
    r.warnings = r.trace->warnings();
    return r;
}

std::string readAll(const QString& path)
{
    std::string error;
    auto src = ByteSource::open(path.toStdString(), &error);
    std::string out;
    if (!src) return out;
    char buf[1 << 16];
    while (std::size_t n = src->read(buf, sizeof buf))
        out.append(buf, n);
    return out;
}

WorkPool& pool(int threads)
{
    static WorkPool one(1), two(2);
    return threads == 1 ? one : two;
}

// bytes (plain or gzip) through the reader at several chunk sizes and thread counts: equal to
// the oracle's model of text (the inflated bytes) when that is a valid trace; else not
// complete, with a message, and the complete events before the error kept.
// Chunk sizes and threads a text is read with: tiny chunks put a boundary inside every token.
struct ReadMode {
    std::size_t chunk;
    int threads;
};
const std::vector<ReadMode> kEveryMode = {{64, 1},   {64, 2},      {4096, 1},
                                          {4096, 2}, {1 << 20, 1}, {1 << 20, 2}};
// Megabytes of real traces: each chunk size once (one thread at the smallest, two above; the
// file load in fileAgrees adds the default size on the global pool).
const std::vector<ReadMode> kLargeModes = {{64, 1}, {4096, 2}, {1 << 20, 2}};

void agree(const std::string& bytes, const std::string& text, const char* what,
           bool mustBeValid = false, const std::vector<ReadMode>& modes = kEveryMode)
{
    // Args the tokenizer takes that are not JSON are "{}" for the oracle (see blankLaxArgs).
    const std::string forOracle = test::blankLaxArgs(text);
    const auto expected = oracleLoad(forOracle, "<test>");
    if (mustBeValid) QVERIFY2(expected, what);
    const test::OracleDocument doc =
        expected ? test::OracleDocument{} : test::oracleRead(forOracle);
    // Once, not per mode: it parses every slice's args.
    const std::string want = expected ? fingerprint(*expected) : std::string();
    std::string firstRaw; // the first mode's load; the others must equal it as written
    for (const auto [chunk, threads] : modes) {
        ParallelOptions po;
        po.chunkBytes = chunk;
        po.pool = &pool(threads);
        const LoadResult r = loadTraceBytes(bytes.data(), bytes.size(), "<test>", {}, po);
        if (expected) {
            if (firstRaw.empty()) {
                QCOMPARE(fingerprint(r), want);
                firstRaw = fingerprint(r, true);
            } else {
                QCOMPARE(fingerprint(r, true), firstRaw);
            }
            continue;
        }
        const std::string where = std::string(what) + ": " + r.message;
        QVERIFY2(!r.complete() && !r.message.empty(), where.c_str());
        const std::uint64_t events = r.trace ? r.trace->stats().events : 0;
        if (doc.valid) continue; // valid JSON but not a trace
        QVERIFY2(events == doc.events.size(), (where + " events " + std::to_string(events) +
                                               " oracle " + std::to_string(doc.events.size()))
                                                  .c_str());
    }
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

// Events whose meaning depends on those before them (B/E, async b/e, renames, sort indexes,
// labels, counters, flows), mixed at random over two processes and threads: cut into pieces
// of any size, each built alone and absorbed in order, they must give one builder's model.
std::string stateAcrossPieces(unsigned seed)
{
    std::uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    auto rnd = [&](int n) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return static_cast<int>(x % static_cast<std::uint64_t>(n));
    };
    const char* names[] = {"X", "Y", "Z"};
    std::string doc = "[";
    long ts = 10;
    for (int i = 0; i < 400; ++i) {
        ts += rnd(5);
        const std::string where = "\"pid\":" + std::to_string(1 + rnd(2)) +
                                  ",\"tid\":" + std::to_string(1 + rnd(2)) +
                                  ",\"ts\":" + std::to_string(ts);
        std::string e;
        switch (rnd(12)) {
        case 0:
        case 1:
            e = "{\"ph\":\"B\",\"name\":\"b" + std::to_string(rnd(3)) + "\"," + where +
                (rnd(2) ? ",\"args\":{\"k\":1}" : "") + "}";
            break;
        case 2:
        case 3:
            e = "{\"ph\":\"E\"," + where + (rnd(2) ? ",\"args\":{\"e\":2}" : "") + "}";
            break;
        case 4:
            e = std::string("{\"ph\":\"") + "ben"[rnd(3)] +
                "\",\"cat\":\"a\",\"id\":" + std::to_string(rnd(3)) + ",\"name\":\"as" +
                std::to_string(rnd(2)) + "\"," + where + "}";
            break;
        case 5:
            e = std::string("{\"ph\":\"M\",\"name\":\"") +
                (rnd(2) ? "thread_name" : "process_name") + "\"," + where +
                ",\"args\":{\"name\":\"" + names[rnd(3)] + "\"}}";
            break;
        case 6:
            e = std::string("{\"ph\":\"M\",\"name\":\"") +
                (rnd(2) ? "thread_sort_index" : "process_sort_index") + "\"," + where +
                ",\"args\":{\"sort_index\":" + std::to_string(rnd(4)) + "}}";
            break;
        case 7:
            e = "{\"ph\":\"M\",\"name\":\"process_labels\"," + where + ",\"args\":{\"labels\":\"l" +
                std::to_string(rnd(3)) + ",l1\"}}";
            break;
        case 8:
            e = "{\"ph\":\"C\",\"name\":\"mem\"," + where + ",\"args\":{\"v" +
                std::to_string(rnd(2)) + "\":" + std::to_string(rnd(100)) + "}}";
            break;
        case 9:
            e = std::string("{\"ph\":\"") + "stf"[rnd(3)] + "\",\"cat\":\"fl\",\"id\":\"" +
                std::to_string(rnd(4)) + "\"," + where + (rnd(2) ? ",\"bp\":\"e\"" : "") + "}";
            break;
        case 10:
            e = std::string("{\"ph\":\"i\",\"name\":\"in\",\"s\":\"") + "gpt"[rnd(3)] + "\"," +
                where + "}";
            break;
        default:
            e = "{\"ph\":\"X\",\"name\":\"x" + std::to_string(rnd(4)) +
                "\",\"dur\":" + std::to_string(rnd(6)) + "," + where +
                ",\"args\":{\"n\":" + std::to_string(i) + "}}";
            break;
        }
        doc += (i ? ",\n" : "") + e;
    }
    return doc + "]";
}

std::string generated(tracegen::Shape shape, std::size_t bytes)
{
    std::FILE* f = std::tmpfile();
    if (!f) return {};
    tracegen::LargeTraceOptions o;
    o.shape = shape;
    o.targetBytes = bytes;
    if (!tracegen::writeLargeTrace(f, o, nullptr)) return {};
    std::string out(static_cast<std::size_t>(std::ftell(f)), '\0');
    std::rewind(f);
    if (std::fread(out.data(), 1, out.size(), f) != out.size()) out.clear();
    std::fclose(f);
    return out;
}

// A file through the public entry point equals the oracle's model of its text.
void fileAgrees(const std::string& path, const std::string& text)
{
    LoadProgress progress;
    const LoadResult r = loadTrace(path, {}, &progress);
    const auto expected = oracleLoad(text, path, resolveTracePath(path).rank);
    QVERIFY2(expected, path.c_str());
    QCOMPARE(fingerprint(r), fingerprint(*expected));
    QCOMPARE(progress.done.load(), progress.total.load());
}

} // namespace

class TstParallelLoader : public QObject {
    Q_OBJECT
private slots:
    void trickyDocumentMatchesOracle()
    {
        const std::string doc = tricky();
        agree(doc, doc, "tricky", true);
        agree(test::gzip(doc), doc, "tricky gzip", true);
    }

    // Pieces of every size from one event to the whole text, on one and two threads.
    void stateAcrossPiecesMatchesOneBuilder()
    {
        std::vector<ReadMode> modes;
        for (std::size_t chunk : {64, 97, 150, 233, 400, 777, 1500, 4096, 1 << 20})
            modes.push_back({chunk, chunk % 2 ? 1 : 2});
        for (unsigned seed = 1; seed <= 6; ++seed) {
            const std::string doc = stateAcrossPieces(seed);
            agree(doc, doc, ("state across pieces, seed " + std::to_string(seed)).c_str(), true,
                  modes);
        }
    }

    void bareArrayAndWhitespace()
    {
        const std::string doc =
            "\n\t [ {\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1} ,"
            "{\"ph\":\"X\",\"name\":\"b\",\"ts\":2,\"dur\":1,\"pid\":1,\"tid\":1}]\r\n";
        agree(doc, doc, "bare", true);
    }

    // Every prefix of a document (truncated files) and single-byte corruptions, plain and
    // gzip: valid exactly when nlohmann says so, and the same complete events before the stop.
    void truncatedAndCorruptAgreeWithOracle()
    {
        const std::string doc = tricky();
        QVERIFY(!doc.empty());
        for (std::size_t n = 0; n < doc.size(); n += 3) {
            agree(doc.substr(0, n), doc.substr(0, n), "prefix");
            if (n % 21 == 0) agree(test::gzip(doc.substr(0, n)), doc.substr(0, n), "gzip prefix");
        }
        const char bad[] = {'\x01', '"', '}', ']', ',', '\\', '\xff', 'x', '0'};
        for (std::size_t i = 0; i < doc.size(); i += 7) {
            std::string d = doc;
            d[i] = bad[i % sizeof bad];
            agree(d, d, "corrupt");
        }
    }

    void badInputIsRefusedWithAMessage()
    {
        for (const char* s : {"", "[1,2]", "[{\"a\":1e999}]", "[{\"a\":\"\\ud800\"}]",
                              "[{\"a\":\"\xC0\xAF\"}]", "[{\"a\":01}]", "[{\"ts\":1,}]", "[{}] x",
                              "[{\"a\":tru}]", "[{\"a\":\"\t\"}]", "42", "{\"a\":1 \"b\":2}"}) {
            const std::string bytes(s);
            agree(bytes, bytes, s);
        }
        // Valid documents with odd shapes.
        for (const char* s :
             {"[]", "{}", "[{\"ph\":\"X\"},5]", "{\"traceEvents\":{}}", "\xEF\xBB\xBF[{}]",
              "{\"a\":[1,{\"b\":null}],\"traceEvents\":[{}]}"}) {
            const std::string bytes(s);
            agree(bytes, bytes, s, true);
        }
    }

    void errorsNameByteLineAndColumn()
    {
        const std::string text = "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1},\n"
                                 "  {\"ph\":\"X\" \"name\":\"c\"}]";
        for (std::size_t chunk : {std::size_t(16), std::size_t(1) << 20}) {
            ParallelOptions po;
            po.chunkBytes = chunk;
            for (const std::string& bytes : {text, test::gzip(text)}) {
                const LoadResult r = loadTraceBytes(bytes.data(), bytes.size(), "<t>", {}, po);
                QCOMPARE(r.stop, LoadStop::Malformed);
                QVERIFY2(r.message.find("byte 59 (line 2, column 13)") != std::string::npos,
                         r.message.c_str());
                QVERIFY2(r.message.find("expected ',' or '}'") != std::string::npos,
                         r.message.c_str());
                QCOMPARE(r.trace->stats().events, std::uint64_t(1));
            }
        }
    }

    void generatedTracesMatchOracle()
    {
        for (auto shape : {tracegen::Shape::Kineto, tracegen::Shape::TorchNpu}) {
            const std::string bytes = generated(shape, 1 << 20);
            QVERIFY(!bytes.empty());
            agree(bytes, bytes, "generated", true);
            agree(test::gzip(bytes), bytes, "generated gzip", true);
        }
    }

    // Over the memory budget: refused with the budget message, plain and gzip.
    void budgetRefuses()
    {
        const std::string bytes = generated(tracegen::Shape::Kineto, 2 << 20);
        QVERIFY(!bytes.empty());
        for (const std::string& input : {bytes, test::gzip(bytes)}) {
            LoadOptions lo;
            lo.maxMemoryBytes = 1u << 20;
            const LoadResult r = loadTraceFromMemory(input.data(), input.size(), lo, "<t>");
            QVERIFY(r.failed());
            QCOMPARE(r.stop, LoadStop::OverBudget);
            QVERIFY2(r.message.find("budget") != std::string::npos, r.message.c_str());
            LoadOptions roomy;
            roomy.maxMemoryBytes = 256u << 20;
            QVERIFY(loadTraceFromMemory(input.data(), input.size(), roomy, "<t>").complete());
        }
    }

    // gzip streams: members, garbage after the last one, cut and corrupt streams, cancel.
    void gzipStreams()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string gen = generated(tracegen::Shape::TorchNpu, 3 << 20);
        const std::string gz = test::gzip(gen);
        fileAgrees(writeTemp(dir, "gen.json.gz", gz), gen);
        const std::string doc = tricky();
        const std::string twoMembers =
            test::gzip(doc.substr(0, doc.size() / 2)) + test::gzip(doc.substr(doc.size() / 2));
        fileAgrees(writeTemp(dir, "two.json.gz", twoMembers), doc);
        fileAgrees(writeTemp(dir, "garbage.json.gz", test::gzip(doc) + "garbage"), doc);
        const LoadResult r = loadTrace(writeTemp(dir, "cut.json.gz", gz.substr(0, gz.size() / 3)));
        QCOMPARE(r.stop, LoadStop::Truncated);
        QVERIFY(r.trace && r.trace->stats().truncated && r.trace->stats().events > 0);
        // Without its trailer the text may be whole: loaded, the gzip layer's warning kept.
        const LoadResult t = loadTrace(writeTemp(dir, "cut5.json.gz", gz.substr(0, gz.size() - 5)));
        QVERIFY(t.trace);
        QVERIFY(std::any_of(t.warnings.begin(), t.warnings.end(), [](const std::string& w) {
            return w.find("gzip") != std::string::npos;
        }));
        std::string corrupt = gz;
        corrupt[corrupt.size() / 2] = static_cast<char>(corrupt[corrupt.size() / 2] ^ 0x55);
        const LoadResult c = loadTrace(writeTemp(dir, "corrupt.json.gz", corrupt));
        QVERIFY(!c.complete());
        QVERIFY2(c.message.find("gzip") != std::string::npos || c.trace, c.message.c_str());
        const std::string half = gen.substr(0, gen.size() / 2);
        const LoadResult h = loadTrace(writeTemp(dir, "half.json.gz", test::gzip(half)));
        QCOMPARE(h.stop, LoadStop::Truncated);
        QCOMPARE(h.trace->stats().events, std::uint64_t(test::oracleRead(half).events.size()));
        LoadProgress cancelled;
        cancelled.cancel = true;
        const LoadResult x = loadTrace(writeTemp(dir, "gen.json.gz", gz), {}, &cancelled);
        QVERIFY(x.cancelled() && x.failed());
    }

    // One row per public trace, in a fixed order, so CTest can split the rows over processes
    // (RS_TEST_SHARD, tests/CMakeLists.txt): under ASan this is most of the suite's time.
    void publicTracesMatchOracle_data()
    {
        QTest::addColumn<QString>("path");
        const QString dir = test::publicTracesDir();
        if (dir.isEmpty()) {
            QTest::newRow("absent") << QString(); // the test function skips with the message
            return;
        }
        QStringList paths;
        QDirIterator it(dir, {"*.json", "*.json.gz"}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            if (path.contains("profiler_info") || path.contains("profiler_metadata") ||
                path.contains("communication"))
                continue;
            paths << path;
        }
        QVERIFY2(paths.size() >= 8, qPrintable(QString::number(paths.size())));
        paths.sort();
        for (int i = 0; i < paths.size(); ++i)
            if (test::inShard(i))
                QTest::newRow(qPrintable(QDir(dir).relativeFilePath(paths[i]))) << paths[i];
    }

    void publicTracesMatchOracle()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        QFETCH(QString, path);
        const std::string text = readAll(path);
        QVERIFY2(!text.empty(), qPrintable(path));
        agree(text, text, qPrintable(path), true, kLargeModes);
        fileAgrees(path.toStdString(), text); // gzip files streamed in pieces
    }
};

QTEST_GUILESS_MAIN(TstParallelLoader)
#include "tst_parallelloader.moc"
