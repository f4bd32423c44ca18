// The JSON tokenizer (core/jsontokenizer.h) on its own: tokens, errors and where they are, the
// difference between text that is wrong and text that ran out, and event fields. Then the
// differential test: it must read every document exactly as nlohmann's SAX parser does (the
// oracle, tests/support/jsonoracle.h) on the public traces, generated traces, the oddities
// file, every prefix of it and many one-byte corruptions.
#include "bench/tracegen_large.h"
#include "bench/tracegen_seed.h"
#include "core/jsontokenizer.h"
#include "tests/support/jsonoracle.h"
#include "tests/testutil.h"

#include <QDirIterator>
#include <QFile>
#include <QtTest>

#include <cstdio>
#include <zlib.h>

using namespace rs;
using test::OracleDocument;
using test::OracleEvent;

namespace {

std::string readFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QByteArray bytes = f.readAll();
    if (bytes.size() < 2 || static_cast<unsigned char>(bytes[0]) != 0x1f)
        return bytes.toStdString();
    // gzip: inflate (the tokenizer reads text).
    std::string out;
    z_stream z{};
    inflateInit2(&z, 16 + MAX_WBITS);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = static_cast<uInt>(bytes.size());
    char buf[1 << 16];
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(buf);
        z.avail_out = sizeof buf;
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(buf, sizeof buf - z.avail_out);
    }
    inflateEnd(&z);
    return out;
}

std::string scalarText(const JsonScalar& v)
{
    switch (v.kind) {
    case JsonScalar::Absent:
        return "";
    case JsonScalar::Null:
        return "null";
    case JsonScalar::Bool:
        return v.boolean ? "b:true" : "b:false";
    case JsonScalar::Int:
        return "i:" + std::to_string(static_cast<std::int64_t>(v.bits));
    case JsonScalar::UInt:
        return "u:" + std::to_string(v.bits);
    case JsonScalar::Float:
        return "f:" + std::string(v.text.view());
    case JsonScalar::String:
        return "s:" + std::string(v.text.view());
    }
    return "?";
}

OracleEvent asOracle(const TraceEvent& e)
{
    OracleEvent o;
    o.ph = e.ph.view();
    o.name = e.name.view();
    o.cat = e.cat.view();
    o.bp = e.bp.view();
    o.scope = e.scope.view();
    o.ts = scalarText(e.ts);
    o.dur = scalarText(e.dur);
    o.pid = scalarText(e.pid);
    o.tid = scalarText(e.tid);
    o.id = scalarText(e.id);
    o.bindId = scalarText(e.bindId);
    o.sf = scalarText(e.sf);
    o.flowIn = e.flowIn;
    o.flowOut = e.flowOut;
    o.badTypes = e.badTypes;
    for (const TextRef& s : e.stack)
        o.stack.emplace_back(s.view());
    // Args that are not JSON (skipArgs checks their structure only) read as the "{}" agree()
    // puts in their place for nlohmann.
    if (e.args.n) {
        o.args = nlohmann::json::parse(e.args.view(), nullptr, false);
        if (o.args.is_discarded()) o.args = nlohmann::json::object();
    }
    return o;
}

// The document as read with the tokenizer alone (a small walker over its public calls).
struct Tokenized {
    bool valid = false;
    bool ranOut = false;
    std::size_t errorAt = 0;
    std::string error;
    std::vector<OracleEvent> events;
    std::uint64_t nonObjects = 0;
    std::map<std::string, nlohmann::json> metadata;
};

Tokenized tokenize(const std::string& text)
{
    Tokenized out;
    JsonTokenizer tok(text.data(), text.data() + text.size());
    const char* end = tok.end();
    auto failed = [&](const char*) {
        out.ranOut = tok.ranOut();
        out.errorAt = static_cast<std::size_t>(tok.offsetOf(tok.errorAt()));
        out.error = tok.errorText();
        return out;
    };
    TraceEvent ev;
    // The entries of an array at p (past '['); returns past ']'.
    auto array = [&](const char* p, int depth) -> const char* {
        p = tok.ws(p);
        if (p < end && *p == ']') return p + 1;
        for (;;) {
            if (p >= end) return tok.fail(end, "end");
            const char* q;
            if (*p == '{') {
                if ((q = tok.event(p, ev, depth))) out.events.push_back(asOracle(ev));
            } else if ((q = tok.skipValue(p, depth))) {
                ++out.nonObjects;
            }
            if (!q) return nullptr;
            p = tok.ws(q);
            if (p >= end) return tok.fail(end, "end");
            if (*p == ',') {
                p = tok.ws(p + 1);
                continue;
            }
            if (*p == ']') return p + 1;
            return tok.fail(p, "sep");
        }
    };
    const char* p = tok.ws(tok.begin());
    if (p >= end) return failed(tok.fail(end, "empty"));
    if (*p == '[') {
        if (!(p = array(p + 1, 1))) return failed(p);
    } else if (*p == '{') {
        p = tok.ws(p + 1);
        if (p < end && *p == '}') {
            ++p;
        } else {
            for (;;) {
                if (p >= end) return failed(tok.fail(end, "end"));
                TextRef key;
                std::deque<std::string> arena;
                if (*p != '"') return failed(tok.fail(p, "key"));
                if (!(p = tok.string(p, key, &arena))) return failed(p);
                p = tok.ws(p);
                if (p >= end) return failed(tok.fail(end, "end"));
                if (*p != ':') return failed(tok.fail(p, ":"));
                p = tok.ws(p + 1);
                const std::string k(key.view());
                if (k == "traceEvents" && p < end && *p == '[') {
                    if (!(p = array(p + 1, 2))) return failed(p);
                } else {
                    const char* v = tok.skipValue(p, 1);
                    if (!v) return failed(v);
                    out.metadata[k] = nlohmann::json::parse(p, v);
                    p = v;
                }
                p = tok.ws(p);
                if (p >= end) return failed(tok.fail(end, "end"));
                if (*p == ',') {
                    p = tok.ws(p + 1);
                    continue;
                }
                if (*p != '}') return failed(tok.fail(p, "}"));
                ++p;
                break;
            }
        }
    } else {
        return failed(tok.fail(p, "not a trace"));
    }
    if (tok.ws(p) != end) return failed(tok.fail(tok.ws(p), "after"));
    out.valid = true;
    return out;
}

// The tokenizer and nlohmann agree: both accept or both refuse, a cut text is a cut text for
// both, the same events and metadata come out, and the tokenizer's error is at or before
// where nlohmann stopped (it names the first bad byte; nlohmann the end of the bad token).
// Args the tokenizer took that are not JSON (it checks their structure only) are "{}" and
// blanks for nlohmann: everything else must still agree, so a stray quote or bracket in args
// that made the tokenizer take in the events after them fails here.
void agree(const std::string& text, const char* what)
{
    const Tokenized t = tokenize(text);
    const OracleDocument o = test::oracleRead(test::blankLaxArgs(text));
    const std::string where = std::string(what) + " (" + std::to_string(text.size()) +
                              " bytes): tokenizer " + t.error + " at " + std::to_string(t.errorAt) +
                              ", nlohmann at " + std::to_string(o.errorAt);
    // A single value is valid JSON (nlohmann's SAX stops it) but not a trace for either.
    const bool oracleSaysNotATrace = !o.valid && o.errorAt == 0 && !o.endOfInput;
    if (!oracleSaysNotATrace) {
        QVERIFY2(t.valid == o.valid, where.c_str());
        if (!o.valid) {
            // Where nlohmann ran into the end, the tokenizer ran out; where the tokenizer ran
            // out, nlohmann read to the end; else the tokenizer names a byte at or before
            // nlohmann's (it names the first bad byte, nlohmann the end of the bad token).
            if (o.endOfInput) QVERIFY2(t.ranOut, where.c_str());
            if (t.ranOut) QVERIFY2(o.errorAt >= text.size(), where.c_str());
            if (!t.ranOut)
                QVERIFY2(t.errorAt < text.size() && t.errorAt <= o.errorAt, where.c_str());
        }
    }
    QVERIFY2(t.events.size() == o.events.size(), where.c_str());
    for (std::size_t i = 0; i < t.events.size(); ++i)
        QVERIFY2(t.events[i] == o.events[i], (where + ", event " + std::to_string(i)).c_str());
    if (o.valid) {
        QVERIFY2(t.nonObjects == o.nonObjects, where.c_str());
        QVERIFY2(t.metadata == o.metadata, where.c_str());
    }
}

std::string generated(tracegen::Shape shape)
{
    std::FILE* f = std::tmpfile();
    tracegen::LargeTraceOptions o;
    o.shape = shape;
    o.targetBytes = 1 << 20;
    std::string text;
    if (f && tracegen::writeLargeTrace(f, o, nullptr)) {
        text.resize(static_cast<std::size_t>(std::ftell(f)));
        std::rewind(f);
        if (std::fread(text.data(), 1, text.size(), f) != text.size()) text.clear();
    }
    if (f) std::fclose(f);
    return text;
}

// Scalar read at the start of text.
JsonScalar scalarOf(const std::string& input, const char** errorWhat = nullptr,
                    bool* ranOut = nullptr, std::size_t* errorAt = nullptr)
{
    // The input and the decoded strings outlive the call: a scalar's text views either.
    static std::deque<std::string> keep;
    const std::string& text = keep.emplace_back(input);
    JsonTokenizer tok(text.data(), text.data() + text.size());
    JsonScalar v;
    std::deque<std::string> arena;
    const char* q = tok.scalar(text.data(), v, &arena);
    if (!q) {
        v.kind = JsonScalar::Absent;
        if (errorWhat) *errorWhat = tok.errorWhat();
        if (ranOut) *ranOut = tok.ranOut();
        if (errorAt) *errorAt = static_cast<std::size_t>(tok.offsetOf(tok.errorAt()));
    }
    keep.insert(keep.end(), arena.begin(), arena.end());
    if (v.kind == JsonScalar::String && !arena.empty()) v.text = {keep.back().data(), v.text.n};
    return v;
}

// Args with pad blanks after their first bracket: skipArgs steps 16 bytes from the args'
// start, so this puts each byte after it at each place in a step.
std::string padded(std::string args, int pad)
{
    return args.insert(1, std::string(pad, ' '));
}

} // namespace

class TstJsonTokenizer : public QObject {
    Q_OBJECT
private slots:
    void numbers()
    {
        struct Case {
            const char* text; // followed by ',' so the number ends
            JsonScalar::Kind kind;
            std::uint64_t bits;
        };
        for (const Case& c :
             {Case{"0,", JsonScalar::UInt, 0}, Case{"-0,", JsonScalar::Int, 0},
              Case{"18446744073709551615,", JsonScalar::UInt, ~0ull},
              Case{"18446744073709551616,", JsonScalar::Float, 0},
              Case{"-9223372036854775808,", JsonScalar::Int, 1ull << 63},
              Case{"-9223372036854775809,", JsonScalar::Float, 0},
              Case{"1.5,", JsonScalar::Float, 0}, Case{"1e3,", JsonScalar::Float, 0},
              Case{"-2E-3,", JsonScalar::Float, 0}, Case{"1e-400,", JsonScalar::Float, 0}}) {
            const JsonScalar v = scalarOf(c.text);
            QVERIFY2(v.kind == c.kind, c.text);
            QCOMPARE(v.bits, c.bits);
            QCOMPARE(std::string(v.text.view()) + ",", std::string(c.text)); // as written
        }
        // Refused where nlohmann refuses: bad syntax at the first bad byte, a double overflow
        // at the number.
        struct Bad {
            const char* text;
            std::size_t at;
        };
        for (const Bad& b : {Bad{"1.,", 2}, Bad{"-,", 1}, Bad{"1e,", 2}, Bad{"+1,", 0},
                             Bad{".5,", 0}, Bad{"1e400,", 0}, Bad{"-1e400,", 0}}) {
            std::size_t at = 99;
            bool ranOut = true;
            QCOMPARE(scalarOf(b.text, nullptr, &ranOut, &at).kind, JsonScalar::Absent);
            QVERIFY2(!ranOut, b.text);
            QVERIFY2(at == b.at, b.text);
        }
        // "01" is the number 0 followed by a byte that does not belong (the caller says so).
        QCOMPARE(scalarOf("01,").text.n, std::uint32_t(1));
        // A number that reaches the end may go on: it ran out, it is not wrong.
        for (const char* cut : {"12", "-", "1.", "1e", "1e+", "0.5"}) {
            bool ranOut = false;
            QCOMPARE(scalarOf(cut, nullptr, &ranOut).kind, JsonScalar::Absent);
            QVERIFY2(ranOut, cut);
        }
    }

    // number() reads most numbers in a 16-byte compare and SWAR arithmetic when 34 bytes are
    // left, else with scanNumber: both must give the same kind, value, text and errors.
    void numbersReadAlikeNearAndFarFromTheEnd()
    {
        const std::string digits = "73910482657301948265";
        int compared = 0;
        for (const char* sign : {"", "-"})
            for (const char* first : {"0", "1", "9"})
                for (std::size_t intLen = 1; intLen <= 17; ++intLen)
                    for (int fracLen = -1; fracLen <= 20; ++fracLen)
                        for (const char* exp : {"", "e5", "E-3", "e"})
                            for (char end : {',', '}', ' ', 'x', '.', '0'}) {
                                std::string num =
                                    sign + std::string(first) + digits.substr(0, intLen - 1);
                                if (fracLen >= 0) // not "." + substr: GCC 12 warns wrongly
                                    num.append(1, '.').append(digits,
                                                              digits.size() - std::size_t(fracLen));
                                const std::string near = num + exp + end;
                                if (near.size() >= 34) continue; // both would read it far
                                const char *nearWhat = "", *farWhat = "";
                                bool nearOut = false, farOut = false;
                                std::size_t nearAt = 0, farAt = 0;
                                const JsonScalar a = scalarOf(near, &nearWhat, &nearOut, &nearAt);
                                const JsonScalar b = scalarOf(near + std::string(40, ' '), &farWhat,
                                                              &farOut, &farAt);
                                if (nearOut) continue; // the far text goes on there
                                QVERIFY2(a.kind == b.kind, near.c_str());
                                QVERIFY2(a.bits == b.bits, near.c_str());
                                QVERIFY2(a.text.view() == b.text.view(), near.c_str());
                                if (a.kind == JsonScalar::Absent) {
                                    QVERIFY2(nearAt == farAt, near.c_str());
                                    QVERIFY2(std::string(nearWhat) == farWhat, near.c_str());
                                }
                                ++compared;
                            }
        QVERIFY(compared > 20000);
        // The values themselves, at the fast path's limits.
        const std::string pad(40, ' ');
        QCOMPARE(scalarOf("999999999999999," + pad).bits, std::uint64_t(999999999999999));
        QCOMPARE(scalarOf("12345678," + pad).bits, std::uint64_t(12345678));
        QCOMPARE(scalarOf("123456789," + pad).bits, std::uint64_t(123456789));
        QCOMPARE(scalarOf("-7," + pad).bits, std::uint64_t(0) - 7);
        QCOMPARE(scalarOf("-0," + pad).kind, JsonScalar::Int);
    }

    void stringsAndEscapes()
    {
        QCOMPARE(std::string(scalarOf("\"plain\"").text.view()), std::string("plain"));
        QCOMPARE(std::string(scalarOf("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"").text.view()),
                 std::string("a\"b\\c/d\b\f\n\r\t"));
        QCOMPARE(std::string(scalarOf("\"\\u0041\\u00e9\\u4e2d\\ud83d\\ude00\"").text.view()),
                 std::string("A\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80"));
        // Long strings go through the 16-byte scan; a quote at every position is found.
        for (std::size_t n = 0; n < 40; ++n) {
            const std::string s(n, 'x');
            QCOMPARE(scalarOf("\"" + s + "\"").text.n, std::uint32_t(n));
        }
        struct Bad {
            std::string text;
            std::size_t at;
        };
        for (const Bad& b :
             {Bad{"\"a\x01\"", 2}, Bad{"\"\\x\"", 2}, Bad{"\"\\u12g4\"", 5}, Bad{"\"\\ud800\"", 7},
              Bad{"\"\\ud800\\u0041\"", 9}, Bad{"\"\\udc00\"", 1}, Bad{"\"\xff\"", 1},
              Bad{"\"\xc0\xaf\"", 1}, Bad{"\"\xe0\x80\x80\"", 2}, Bad{"\"\xed\xa0\x80\"", 2},
              Bad{"\"\xf4\x90\x80\x80\"", 2}, Bad{"\"\xc3\x41\"", 2},
              Bad{std::string("\"a\0b\"", 5), 2}}) {
            std::size_t at = 99;
            bool ranOut = true;
            QCOMPARE(scalarOf(b.text, nullptr, &ranOut, &at).kind, JsonScalar::Absent);
            QVERIFY2(!ranOut, b.text.c_str());
            QVERIFY2(at == b.at, (b.text + " at " + std::to_string(at)).c_str());
        }
        // Cut anywhere inside a string (also inside an escape or a UTF-8 sequence): ran out.
        const std::string whole = "\"ab\\u00e9\\ud83d\\ude00é中\\n\"";
        for (std::size_t n = 1; n < whole.size(); ++n) {
            bool ranOut = false;
            QCOMPARE(scalarOf(whole.substr(0, n), nullptr, &ranOut).kind, JsonScalar::Absent);
            QVERIFY2(ranOut, whole.substr(0, n).c_str());
        }
    }

    void literals()
    {
        QCOMPARE(scalarOf("true,").kind, JsonScalar::Bool);
        QVERIFY(scalarOf("true,").boolean);
        QCOMPARE(scalarOf("false,").kind, JsonScalar::Bool);
        QCOMPARE(scalarOf("null,").kind, JsonScalar::Null);
        std::size_t at = 0;
        bool ranOut = true;
        QCOMPARE(scalarOf("tru,", nullptr, &ranOut, &at).kind, JsonScalar::Absent);
        QVERIFY(!ranOut);
        QCOMPARE(at, std::size_t(3));
        QCOMPARE(scalarOf("nul", nullptr, &ranOut).kind, JsonScalar::Absent);
        QVERIFY(ranOut);
        const char* what = nullptr;
        QCOMPARE(scalarOf("x", &what).kind, JsonScalar::Absent);
        QCOMPARE(std::string(what), std::string("expected a value"));
    }

    void nestingIsLimited()
    {
        for (int depth : {2047, 2048, 2049}) {
            const std::string text =
                std::string(std::size_t(depth), '[') + std::string(std::size_t(depth), ']');
            JsonTokenizer tok(text.data(), text.data() + text.size());
            const char* q = tok.skipValue(text.data(), 0);
            QCOMPARE(q != nullptr, depth <= JsonTokenizer::kMaxDepth);
            if (!q) {
                QCOMPARE(tok.offsetOf(tok.errorAt()), std::uint64_t(JsonTokenizer::kMaxDepth));
                QVERIFY(tok.errorText().find("nesting deeper than 2048") != std::string::npos);
            }
        }
    }

    void eventFields()
    {
        const std::string text =
            "{\"ph\":\"X\",\"n\\u0061me\":7,\"cat\":-0,\"ts\":\"1.5\",\"dur\":2.50,\"pid\":-3,"
            "\"tid\":\"t\","
            "\"id\":18446744073709551616,\"bind_id\":null,\"sf\":4,\"s\":\"g\",\"bp\":\"e\","
            "\"stack\":[\"a\",{\"x\":1},\"b\",3],\"args\":{\"k\":[1,\"}\"]},\"flow_in\":true,"
            "\"flow_out\":1,"
            "\"name\":null,\"ts\":{\"bad\":1},\"other\":[{}]}";
        JsonTokenizer tok(text.data(), text.data() + text.size(), 100);
        TraceEvent ev;
        const char* q = tok.event(text.data(), ev, 1);
        QVERIFY2(q == text.data() + text.size(), tok.errorText().c_str());
        QCOMPARE(ev.offset, std::uint64_t(100));
        QCOMPARE(std::string(ev.ph.view()), std::string("X"));
        QCOMPARE(std::string(ev.name.view()), std::string("7")); // key escape decoded; null kept it
        QCOMPARE(std::string(ev.cat.view()), std::string("0"));
        QCOMPARE(ev.ts.kind, JsonScalar::String); // the object value did not replace it
        QCOMPARE(std::string(ev.dur.text.view()), std::string("2.50"));
        QCOMPARE(ev.pid.kind, JsonScalar::Int);
        QCOMPARE(static_cast<std::int64_t>(ev.pid.bits), std::int64_t(-3));
        QCOMPARE(ev.id.kind, JsonScalar::Float);
        QCOMPARE(ev.bindId.kind, JsonScalar::Null);
        QVERIFY(!ev.bindId.present());
        QCOMPARE(std::string(ev.scope.view()), std::string("g"));
        QCOMPARE(ev.stack.size(), std::size_t(2));
        QCOMPARE(std::string(ev.args.view()), std::string("{\"k\":[1,\"}\"]}"));
        QVERIFY(ev.flowIn);
        QVERIFY(!ev.flowOut);
        // Bad types: two non-string frames, flow_out 1, the object for ts.
        QCOMPARE(ev.badTypes, std::uint32_t(4));
    }

    void errorsSayWhere()
    {
        const std::string text = "{\"ph\":\"X\" \"name\":\"c\"}";
        JsonTokenizer tok(text.data(), text.data() + text.size());
        TraceEvent ev;
        QVERIFY(!tok.event(text.data(), ev, 1));
        QVERIFY(!tok.ranOut());
        QCOMPARE(tok.offsetOf(tok.errorAt()), std::uint64_t(10));
        QCOMPARE(tok.errorText(),
                 std::string("expected ',' or '}' after an object member, found '\"'"));
        // Every cut of a valid event runs out; no cut is called wrong.
        const std::string good = "{\"name\":\"a\\u00e9\",\"ph\":\"X\",\"ts\":1.5e3,\"dur\":-0,"
                                 "\"args\":{\"a\":[true,false,null]}}";
        for (std::size_t n = 1; n < good.size(); ++n) {
            JsonTokenizer cut(good.data(), good.data() + n);
            QVERIFY(!cut.event(good.data(), ev, 1));
            QVERIFY2(cut.ranOut(), good.substr(0, n).c_str());
        }
    }

    // --- the differential test against nlohmann --------------------------------------------

    void oddities()
    {
        const std::string tricky = readFile(test::testDataPath("parallel_tricky.json"));
        QVERIFY(!tricky.empty());
        agree(tricky, "tricky");
        for (const char* s : {"",
                              " ",
                              "[]",
                              "{}",
                              "[1,2]",
                              "[{\"ph\":\"X\"},5,[1],\"s\"]",
                              "{\"traceEvents\":{}}",
                              "{\"traceEvents\":[{}],\"traceEvents\":[{\"a\":1}]}",
                              "[{\"a\":1e999}]",
                              "[{\"a\":\"\\ud800\"}]",
                              "[{\"a\":\"\xC0\xAF\"}]",
                              "[{\"a\":01}]",
                              "[{\"ts\":1,}]",
                              "[{}] x",
                              "[{\"a\":tru}]",
                              "[{\"a\":\"\t\"}]",
                              "[{},]",
                              "[,{}]",
                              "{\"a\":1,}",
                              "{\"a\" 1}",
                              "42",
                              "\"text\"",
                              "null",
                              "[{\"a\":-}]",
                              "[{\"a\":1.}]",
                              "[{\"\\u00e9\":\"\\u00e9\"}]"})
            agree(s, s);
        // Blank runs of every kind and length: a run past its second byte skips spaces and
        // newlines 16 bytes at a time, then the rest byte by byte.
        for (const char* s : {
                 "[ \n\t\r {\"a\" \t:\r\n 1 ,  \t  \"b\"  \n\n\n\n\n\n\n\n\n\n\n\n"
                 "\n\n\n\n\n\n :2}\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t ]",
                 "[{\"a\":1,                  \t\r\"b\":2},\n                 \r {}]",
                 "[  \x0b {}]",
                 "[                      \x0c{}]",
                 "[{}]                              \t\r\n",
                 // 17 blanks: one by the table, the next 16 at once, a value right after them.
                 "[                 1,\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n2]",
             })
            agree(s, s);
    }

    // skipArgs (16 bytes a step) ends valid args exactly where skipValue does, wherever they
    // fall against the 16-byte steps: strings with escaped quotes and brackets, escapes and
    // closing quotes on a step's last byte, nested containers, the strict fallbacks.
    void argsEndWhereSkipValueEnds()
    {
        const std::string longText(40, 'x');
        const std::vector<std::string> args = {
            "{}",
            "[]",
            "{\"External id\": 5402,\"Record function id\": 0, \"Sequence number\": 1800}",
            "{\n      \"grid\": [512, 1, 1],      \"block\": [512, 1, [1, {}]]\n    }",
            "{\"s\": \"a \\\"quoted\\\" } ] { [ , : text\", \"t\": \"\\\\\", \"u\": "
            "\"\\u00e9\\n\"}",
            "{\"k\": \"" + longText + "\", \"" + longText + "\": [\"" + longText + "\"]}",
            "{\"a\":\"\\\"\",\"b\":\"\\\\\\\"\",\"c\":\"x\\\\\"}",
            "{\"x\": true, \"y\": null, \"z\": -1.5e3, \"w\": {\"v\": [[], {}, [{}]]}}",
            "{\"tab\":\t1, \"cr\": 2\r\n}",         // blanks only skipValue takes
            "{\"utf8\": \"\xc3\xa9\xe4\xb8\xad\"}", // UTF-8: skipValue
            "[\"a\", \"b]\", \"c\\\"]\"]",
            // An escaped quote before a bracket; a bracket late in a string 16 bytes long.
            "{\"s\": \"x\\\"}\", \"t\": 1}",
            "{\"k\": \"xxxxxxxxxxxxxxxxxxxx}]\", \"j\": [1]}",
        };
        for (const std::string& unpadded : args) {
            for (int pad = 0; pad < 34; ++pad) {
                const std::string a = padded(unpadded, pad);
                const std::string text = "{\"ph\": \"X\", \"args\": " + a + ", \"name\": \"n\"}" +
                                         std::string(40, ' ') + "]";
                JsonTokenizer tok(text.data(), text.data() + text.size());
                TraceEvent ev;
                const char* end = tok.event(text.data(), ev, 1);
                const std::string what = a + " at pad " + std::to_string(pad);
                QVERIFY2(end && *end == ' ', (what + ": " + tok.errorText()).c_str());
                QVERIFY2(ev.args.view() == a, what.c_str());
                QVERIFY2(ev.name.view() == "n", what.c_str());
            }
        }
    }

    // What skipArgs does not check (each value's own grammar) it leaves to the readers; what
    // it checks stops the event as before: no stray quote, bracket or control byte in args can
    // take in the text after them.
    void argsCheckedForStructure()
    {
        // The args padded, then a member the event can end with.
        auto read = [&](const std::string& args, int pad, std::string* taken) {
            const std::string text = "{\"ph\": \"X\", \"args\": " + padded(args, pad) +
                                     ", \"cat\": \"c\"}" + std::string(40, ' ') + "]";
            JsonTokenizer tok(text.data(), text.data() + text.size());
            TraceEvent ev;
            const char* end = tok.event(text.data(), ev, 1);
            if (end) *taken = std::string(ev.args.view());
            return end != nullptr;
        };
        std::string taken;
        for (const char* lax : {"{\"a\": 1.2.3}", "{\"a\": tru, \"b\": NaN}", "{\"a\":,}",
                                "{\"a\": 1 2}", "{\"a\": \"\\x\"}", "[1 2,]"}) {
            for (int pad = 0; pad < 34; ++pad) {
                QVERIFY2(read(lax, pad, &taken), lax);
                QCOMPARE(taken, padded(lax, pad));
            }
            QVERIFY2(!nlohmann::json::accept(taken), lax); // the readers count these
        }
        // Outside args the same values stop the event.
        const std::string dur =
            "{\"ph\": \"X\", \"dur\": 1.2.3, \"cat\": \"c\"}" + std::string(40, ' ') + "]";
        JsonTokenizer strict(dur.data(), dur.data() + dur.size());
        TraceEvent ev;
        QVERIFY(!strict.event(dur.data(), ev, 1));
        for (const char* broken :
             {// A closing quote missing: paired wrongly, the strings would end the args at
              // the '}' and the event would read on, its name lost.
              "{\"a\": \"x}, \"name\": \"}",
              "{\"a\": x\"}",              // a quote after a letter
              "{\"a\": [1, 2}, \"b\": 1}", // brackets that do not match
              "{\"a\": 1]}", "{\"a\": \"line\nbreak\"}", "{\"a\": \x01}",
              "{\"a\": \"\\\\\\\"}",   // an escaped backslash, then the quote closes: skipValue
              "{\"a\": {\"b\": 1}"}) { // never closed: what follows is not args
            for (int pad = 0; pad < 34; ++pad)
                QVERIFY2(!read(broken, pad, &taken), (broken + std::to_string(pad)).c_str());
        }
    }

    // The loader tokenizes pieces of a file: an event's answer must not depend on where its
    // piece ends nor on what follows its args. Cut anywhere, the text gives the whole text's
    // answer (the same end and args, or the same error) or runs out.
    void argsReadAlikeWhereverTheTextEnds()
    {
        const std::vector<std::string> args = {"{\"a\": 1, \"b\": [1, {\"c\": \"x]}\"}]}",
                                               "{\"s\": \"x\\\"}\", \"t\": 1}",
                                               "{\"a\": 1.2.3}",
                                               "{\"a\": tru, \"b\": NaN}",
                                               "{\"a\": 1,}",
                                               "{\"a\": \"\xc3\xa9\", \"b\": 1.2.3}",
                                               "{\"a\": \"x}, \"name\": \"}",
                                               "{\"a\": [1, 2}, \"b\": 1}",
                                               "{\"a\": \"\\\\\", \"b\": 1.2.3}"};
        const std::vector<std::string> after = {"",         "\t\t\t",     "\x01x",
                                                "\"\"\"",   "\\\\\\",     "\xc3\xa9\xc3\xa9",
                                                "]]]]}}}}", "          x"};
        int cuts = 0;
        for (const std::string& a : args)
            for (const std::string& follow : after)
                for (int pad = 0; pad < 18; ++pad) {
                    const std::string text =
                        "{\"ph\": \"X\", \"args\": " + padded(a, pad) + "}" + follow;
                    TraceEvent whole;
                    JsonTokenizer all(text.data(), text.data() + text.size());
                    const char* end = all.event(text.data(), whole, 1);
                    const std::string wholeArgs(whole.args.view());
                    for (std::size_t cut = 0; cut <= text.size(); ++cut) {
                        JsonTokenizer part(text.data(), text.data() + cut);
                        TraceEvent ev;
                        const char* partEnd = part.event(text.data(), ev, 1);
                        const std::string what =
                            text.substr(0, cut) + " (cut at " + std::to_string(cut) + " of " + text;
                        if (end && cut >= std::size_t(end - text.data())) {
                            QVERIFY2(partEnd == end, what.c_str());
                            QVERIFY2(ev.args.view() == wholeArgs, what.c_str());
                        } else if (partEnd) {
                            QVERIFY2(partEnd == end, what.c_str());
                        } else if (!part.ranOut()) {
                            QVERIFY2(!end && part.errorAt() == all.errorAt(), what.c_str());
                            QVERIFY2(part.errorText() == all.errorText(), what.c_str());
                        }
                        ++cuts;
                    }
                }
        QVERIFY(cuts > 30000);
    }

    // One-byte corruptions of a Kineto-like text, indented and minified (where no newline
    // falls inside a wrongly paired string), with brackets inside strings.
    void argsCorruption()
    {
        const std::string kineto = generated(tracegen::Shape::Kineto);
        const std::size_t from = kineto.find("\"traceEvents\"");
        QVERIFY(from != std::string::npos);
        std::size_t to = from;
        for (int i = 0; i < 10 && to != std::string::npos; ++i)
            to = kineto.find("\n  },", to + 1);
        QVERIFY(to != std::string::npos);
        const std::string indented =
            "{" + kineto.substr(from, to - from) +
            "\n  },\n  {\"ph\": \"X\", \"name\": \"f({x})\", \"args\": {\"Concrete Inputs\": "
            "[\"[1, 2]\", \"{}\"], \"s\": \"a}b]c\"}}]}";
        const nlohmann::json doc = nlohmann::json::parse(indented);
        const char bad[] = {'"', '}', ']', '{', '[', ',', ':', '\\', '\n', 'x', '0', ' '};
        int n = 0;
        for (const std::string& text : {indented, doc.dump()}) {
            agree(text, "unchanged");
            for (std::size_t i = 0; i < text.size(); ++i) {
                for (std::size_t k = i % 4; k < sizeof bad; k += 4) {
                    if (text[i] == bad[k]) continue;
                    std::string d = text;
                    d[i] = bad[k];
                    agree(d, ("args corrupt at " + std::to_string(i)).c_str());
                    ++n;
                }
            }
        }
        QVERIFY2(n > 5000, std::to_string(n).c_str());
    }

    void everyPrefixAndCorruption()
    {
        const std::string doc = readFile(test::testDataPath("parallel_tricky.json"));
        for (std::size_t n = 0; n <= doc.size(); ++n)
            agree(doc.substr(0, n), "prefix");
        const char bad[] = {'\x01', '"', '}', ']', ',', '\\', '\xff', 'x', '0', '{', '[', ':'};
        for (std::size_t i = 0; i < doc.size(); ++i) {
            std::string d = doc;
            d[i] = bad[i % sizeof bad];
            agree(d, ("corrupt at " + std::to_string(i)).c_str());
        }
    }

    void generatedTraces()
    {
        agree(generated(tracegen::Shape::Kineto), "kineto");
        agree(generated(tracegen::Shape::TorchNpu), "torch_npu");
        for (bool kineto : {false, true}) {
            gen::SeedCaseOptions o;
            o.kineto = kineto;
            agree(gen::seedCaseTrace(o, 0), "seed case");
        }
    }

    void publicTraces()
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
            agree(readFile(path), qPrintable(path));
            ++n;
        }
        QVERIFY(n >= 8);
    }
};

QTEST_GUILESS_MAIN(TstJsonTokenizer)
#include "tst_jsontokenizer.moc"
