// The data-only pickle reader (core/producers/flightrecorder/pickle.h): every opcode a Flight
// Recorder dump uses and every data opcode of protocols 2 to 5, checked against Python's own
// pickle (python3, where it is on the machine) and against bytes made here; every opcode that
// imports, calls or builds an object refused with the file, the byte and the opcode's name; a
// real dump cut at every byte; nesting bombs, huge length prefixes, memo and value limits,
// recursive structures.

#include "core/producers/flightrecorder/pickle.h"
#include "tests/support/processrun.h"
#include "tests/testutil.h"

#include <QFile>
#include <QtTest>

#include <bit>
#include <cstring>
#include <string>

using namespace rs::flightrecorder;
using namespace std::string_literals;

namespace {

std::string bytesOf(std::initializer_list<int> b)
{
    std::string s;
    for (int c : b)
        s += char(c);
    return s;
}

// Little-endian integer of `n` bytes.
std::string le(std::uint64_t v, int n)
{
    std::string s;
    for (int i = 0; i < n; ++i)
        s += char((v >> (8 * i)) & 0xff);
    return s;
}

PickleResult parse(const std::string& bytes, const PickleLimits& limits = {})
{
    return parsePickle(bytes.data(), bytes.size(), "test.pkl", limits);
}

std::string hex(std::string_view s)
{
    static const char d[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : s) {
        out += d[c >> 4];
        out += d[c & 15];
    }
    return out;
}

// A canonical text of a value, the same one the Python side of the test prints: kinds and
// exact bits (floats as their 8 bytes, strings as their UTF-8 bytes in hex).
std::string canon(const PickleValue& v)
{
    switch (v.kind()) {
    case PickleKind::None:
        return "N";
    case PickleKind::Bool:
        return v.boolean() ? "T" : "F";
    case PickleKind::Int:
    case PickleKind::BigInt:
        return "i" + v.bigIntDecimal();
    case PickleKind::Float: {
        const std::uint64_t bits = std::bit_cast<std::uint64_t>(v.real());
        std::string be;
        for (int i = 7; i >= 0; --i)
            be += char((bits >> (8 * i)) & 0xff);
        return "f" + hex(be);
    }
    case PickleKind::Str:
        return "s" + hex(v.bytes());
    case PickleKind::Bytes:
        return "b" + hex(v.bytes());
    case PickleKind::List:
    case PickleKind::Tuple: {
        const bool list = v.kind() == PickleKind::List;
        std::string s = list ? "[" : "(";
        for (std::size_t i = 0; i < v.size(); ++i)
            s += (i ? "," : "") + canon(v.at(i));
        return s + (list ? "]" : ")");
    }
    case PickleKind::Dict: {
        std::string s = "{";
        for (std::size_t i = 0; i < v.size(); ++i)
            s += (i ? "," : "") + canon(v.key(i)) + ":" + canon(v.value(i));
        return s + "}";
    }
    }
    return "?";
}

// The Python side: canon() as above, and the objects pickled at protocols 2 to 5.
const char* const kPythonCanon =
    "import pickle, struct, sys\n"
    "def canon(o):\n"
    "    if o is None: return 'N'\n"
    "    if o is True: return 'T'\n"
    "    if o is False: return 'F'\n"
    "    if isinstance(o, int): return 'i' + str(o)\n"
    "    if isinstance(o, float): return 'f' + struct.pack('>d', o).hex()\n"
    "    if isinstance(o, str): return 's' + o.encode('utf-8').hex()\n"
    "    if isinstance(o, (bytes, bytearray)): return 'b' + bytes(o).hex()\n"
    "    if isinstance(o, list): return '[' + ','.join(canon(x) for x in o) + ']'\n"
    "    if isinstance(o, tuple): return '(' + ','.join(canon(x) for x in o) + ')'\n"
    "    if isinstance(o, dict): return '{' + ','.join(canon(k) + ':' + canon(v) for k, v in "
    "o.items()) + '}'\n"
    "    raise TypeError(type(o))\n";

} // namespace

class TestPickle : public QObject {
    Q_OBJECT
private slots:
    void scalars();
    void longs();
    void strings();
    void containers();
    void memo();
    void stackOps();
    void pythonAgrees();
    void realDumps();
    void refusedOpcodes();
    void refusedFromPython();
    void truncatedEverywhere();
    void nestingBombs();
    void hugeLengths();
    void limits();
    void recursiveStructures();
    void malformed();
};

void TestPickle::scalars()
{
    // PROTO 2..5, NONE, NEWTRUE, NEWFALSE, BININT, BININT1, BININT2, BINFLOAT, STOP.
    for (int proto = 2; proto <= 5; ++proto) {
        const PickleResult r = parse(bytesOf({0x80, proto, 'N', '.'}));
        QVERIFY2(r.ok(), r.message.c_str());
        QCOMPARE(r.root().kind(), PickleKind::None);
        QCOMPARE(r.document->protocol(), proto);
    }
    QVERIFY(parse("\x80\x02\x88.").root().boolean());
    QCOMPARE(parse("\x80\x02\x89.").root().kind(), PickleKind::Bool);
    QVERIFY(!parse("\x80\x02\x89.").root().boolean());
    QCOMPARE(parse(std::string("\x80\x02J") + le(std::uint32_t(-7), 4) + ".").root().integer(), -7);
    QCOMPARE(parse(std::string("\x80\x02K") + char(0xff) + ".").root().integer(), 255);
    QCOMPARE(parse(std::string("\x80\x02M") + le(65535, 2) + ".").root().integer(), 65535);
    const double x = -1.5e300;
    std::string be;
    for (int i = 7; i >= 0; --i)
        be += char((std::bit_cast<std::uint64_t>(x) >> (8 * i)) & 0xff);
    const PickleResult f = parse("\x80\x02G" + be + ".");
    QCOMPARE(f.root().kind(), PickleKind::Float);
    QCOMPARE(f.root().real(), x);
    // Reading a value as another kind gives that kind's empty value.
    QCOMPARE(f.root().integer(), 0);
    QVERIFY(f.root().bytes().empty());
    QCOMPARE(f.root().size(), std::size_t(0));
    QVERIFY(!f.root().find("x"));
}

void TestPickle::longs()
{
    auto long1 = [](const std::string& payload) {
        return parse(std::string("\x80\x02\x8a") + char(payload.size()) + payload + ".");
    };
    QCOMPARE(long1("").root().integer(), 0); // LONG1 of no bytes is 0
    QCOMPARE(long1(le(0x7fffffffffffffffull, 8)).root().integer(), INT64_MAX);
    QCOMPARE(long1(le(0x8000000000000000ull, 8)).root().integer(), INT64_MIN);
    QCOMPARE(long1(bytesOf({0xff})).root().integer(), -1);
    // Sign-extension bytes past the eighth still fit.
    QCOMPARE(long1(le(5, 8) + bytesOf({0, 0})).root().integer(), 5);
    QCOMPARE(long1(le(std::uint64_t(-5), 8) + bytesOf({0xff})).root().integer(), -5);
    // 2^63 needs a ninth byte: a BigInt, exact.
    const PickleResult big = long1(le(0x8000000000000000ull, 8) + bytesOf({0}));
    QCOMPARE(big.root().kind(), PickleKind::BigInt);
    QCOMPARE(big.root().bigIntDecimal(), std::string("9223372036854775808"));
    QCOMPARE(long1(bytesOf({0, 0, 0, 0, 0, 0, 0, 0, 1})).root().bigIntDecimal(),
             std::string("18446744073709551616"));
    QCOMPARE(long1(le(0, 8) + bytesOf({0xff})).root().bigIntDecimal(),
             std::string("-18446744073709551616"));
    // LONG4, and the length limit.
    std::string p(100, '\0');
    p[99] = 1; // 2^792
    const PickleResult l4 = parse("\x80\x02\x8b" + le(100, 4) + p + ".");
    QVERIFY2(l4.ok(), l4.message.c_str());
    QCOMPARE(l4.root().kind(), PickleKind::BigInt);
    QVERIFY(l4.root().bigIntDecimal().starts_with("260469")); // str(2**792)
    QCOMPARE(l4.root().bigIntDecimal().size(), std::size_t(239));
    PickleLimits small;
    small.maxIntBytes = 64;
    const PickleResult refused = parse("\x80\x02\x8b" + le(100, 4) + p + ".", small);
    QCOMPARE(refused.error, PickleError::Limit);
    const PickleResult negative = parse("\x80\x02\x8b" + le(0xffffffff, 4) + ".");
    QCOMPARE(negative.error, PickleError::Malformed);
}

void TestPickle::strings()
{
    const std::string text = "h\xc3\xa9llo"; // héllo
    const std::string n8 = le(text.size(), 8);
    for (const std::string& b : {std::string("\x8c") + char(text.size()) + text,
                                 "X" + le(text.size(), 4) + text, "\x8d" + n8 + text}) {
        const PickleResult r = parse("\x80\x04" + b + ".");
        QVERIFY2(r.ok(), r.message.c_str());
        QCOMPARE(r.root().kind(), PickleKind::Str);
        QCOMPARE(r.root().bytes(), std::string_view(text));
    }
    for (const std::string& b : {std::string("C") + char(3) + "a\0b"s, "B" + le(3, 4) + "a\0b"s,
                                 "\x8e" + le(3, 8) + "a\0b"s, "\x96" + le(3, 8) + "a\0b"s}) {
        const PickleResult r = parse("\x80\x05" + b + ".");
        QVERIFY2(r.ok(), r.message.c_str());
        QCOMPARE(r.root().kind(), PickleKind::Bytes);
        QCOMPARE(r.root().bytes(), std::string_view("a\0b", 3));
    }
    // Not UTF-8: a lone continuation byte, an overlong '/', a surrogate.
    for (const std::string& bad :
         {std::string("\x80"), std::string("\xc0\xaf"), std::string("\xed\xa0\x80")}) {
        const PickleResult r = parse("\x80\x04\x8c" + std::string(1, char(bad.size())) + bad + ".");
        QCOMPARE(r.error, PickleError::Malformed);
        QVERIFY(r.message.find("UTF-8") != std::string::npos);
    }
}

void TestPickle::containers()
{
    // EMPTY_LIST APPEND, MARK APPENDS, LIST; EMPTY_TUPLE, TUPLE1-3, TUPLE; EMPTY_DICT SETITEM,
    // MARK SETITEMS, DICT.
    auto c = [](const std::string& body) {
        const PickleResult r = parse("\x80\x02" + body + ".");
        return r.ok() ? canon(r.root()) : "error: " + r.message;
    };
    QCOMPARE(c("]K\x01"
               "a"),
             std::string("[i1]"));
    QCOMPARE(c("](K\x01K\x02"
               "e"),
             std::string("[i1,i2]"));
    QCOMPARE(c("(K\x01K\x02l"), std::string("[i1,i2]"));
    QCOMPARE(c(")"), std::string("()"));
    QCOMPARE(c("K\x01\x85"), std::string("(i1)"));
    QCOMPARE(c("K\x01K\x02\x86"), std::string("(i1,i2)"));
    QCOMPARE(c("K\x01K\x02K\x03\x87"), std::string("(i1,i2,i3)"));
    QCOMPARE(c("(K\x01K\x02K\x03K\x04t"), std::string("(i1,i2,i3,i4)"));
    QCOMPARE(c("}K\x01K\x02s"), std::string("{i1:i2}"));
    QCOMPARE(c("}(K\x01K\x02K\x03K\x04u"), std::string("{i1:i2,i3:i4}"));
    QCOMPARE(c("(K\x01K\x02"
               "d"),
             std::string("{i1:i2}"));
    // A key set twice: find() answers the last, as Python's dict would hold.
    const PickleResult d = parse(std::string("\x80\x02}(\x8c\x01kK\x01\x8c\x01kK\x02u."));
    QVERIFY(d.ok());
    QCOMPARE(d.root().find("k")->integer(), 2);
    QVERIFY(!d.root().find("other"));
    QCOMPARE(d.root().depth(), 1);
    // An odd number of dict items, a container opcode on the wrong kind.
    QCOMPARE(parse("\x80\x02}(K\x01u.").error, PickleError::Malformed);
    QCOMPARE(parse("\x80\x02(K\x01"
                   "d.")
                 .error,
             PickleError::Malformed);
    const PickleResult wrong = parse("\x80\x02}K\x01"
                                     "a.");
    QCOMPARE(wrong.error, PickleError::Malformed);
    QCOMPARE(wrong.opcode, std::string("APPEND"));
    QCOMPARE(parse("\x80\x02K\x01\x86.").error, PickleError::Malformed); // TUPLE2 of one
}

void TestPickle::memo()
{
    // BINPUT/BINGET, LONG_BINPUT/LONG_BINGET, MEMOIZE (numbered by how many keys are set).
    auto c = [](const std::string& body) {
        const PickleResult r = parse("\x80\x04" + body + ".");
        return r.ok() ? canon(r.root()) : "error: " + r.message;
    };
    QCOMPARE(c("\x8c\x01xq\x05\x8c\x01yh\x05\x86"), std::string("(s79,s78)")); // (y, x)
    QCOMPARE(c("\x8c\x01xr" + le(70000, 4) + "0j" + le(70000, 4)), std::string("s78"));
    QCOMPARE(c("\x8c\x01x\x94\x8c\x01y\x94h\x00h\x01\x86"s), std::string("(s78,s79)"));
    // A shared (memoised) list is the same value in both places.
    const PickleResult shared = parse("\x80\x04](K\x01K\x02"
                                      "eq\x00h\x00\x86."s);
    QVERIFY(shared.ok());
    QCOMPARE(canon(shared.root()), std::string("([i1,i2],[i1,i2])"));
    QCOMPARE(shared.document->values(), std::uint64_t(4)); // the list made once
    // A key never set.
    const PickleResult unset = parse("\x80\x02h\x03.");
    QCOMPARE(unset.error, PickleError::Malformed);
    QCOMPARE(unset.opcode, std::string("BINGET"));
    QCOMPARE(unset.offset, std::uint64_t(2));
}

void TestPickle::stackOps()
{
    // POP, POP_MARK, DUP, FRAME; trailing bytes after STOP are not read (as Python).
    QCOMPARE(canon(parse("\x80\x02K\x01K\x02"
                         "0.")
                       .root()),
             std::string("i1"));
    QCOMPARE(canon(parse("\x80\x02K\x01(K\x02K\x03"
                         "1.")
                       .root()),
             std::string("i1"));
    QCOMPARE(canon(parse("\x80\x02K\x01"
                         "2\x86.")
                       .root()),
             std::string("(i1,i1)"));
    const std::string framed = "\x95" + le(3, 8) + "K\x07.";
    const PickleResult f = parse("\x80\x04" + framed + "garbage");
    QVERIFY2(f.ok(), f.message.c_str());
    QCOMPARE(f.root().integer(), 7);
    // POP with only a MARK above: Python pops the mark.
    QCOMPARE(canon(parse("\x80\x02K\x09(0.").root()), std::string("i9"));
    QCOMPARE(parse("\x80\x02"
                   "0.")
                 .error,
             PickleError::Malformed);
    QCOMPARE(parse("\x80\x02"
                   "1.")
                 .error,
             PickleError::Malformed);
    QCOMPARE(parse("\x80\x02.").error, PickleError::Malformed); // STOP on an empty stack
    // A frame longer than the bytes left: a truncated file.
    const PickleResult cut = parse("\x80\x04\x95" + le(1000, 8) + "K\x07.");
    QCOMPARE(cut.error, PickleError::Truncated);
    QCOMPARE(cut.opcode, std::string("FRAME"));
}

void TestPickle::pythonAgrees()
{
    const QString python = rs::test::findTool("python3");
    if (python.isEmpty()) QSKIP("python3 is not on the PATH");
    // Objects of every kind, pickled by Python at protocols 2 to 5; the reader's value must be
    // Python's, bit for bit.
    const QString script =
        QString(kPythonCanon) +
        "big = 2**200\n"
        "shared = ['s', 1]\n"
        "objs = [None, True, False, 0, 1, -1, 255, 256, 65535, 65536, -2**31, 2**31 - 1, 2**31,\n"
        "        2**63 - 1, -2**63, 2**63, 2**64, -2**64, big, -big, 0.0, -0.0, 1.5, 1e308,\n"
        "        float('inf'), '', 'x', 'h\\u00e9llo \\u4e16\\u754c \\U0001f600', 'a' * 300,\n"
        "        (), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4), [], [1], list(range(2500)), {},\n"
        "        {'k': 'v'}, {i: str(i) for i in range(1200)}, [shared, shared, (shared,)],\n"
        "        {'a': [{'b': (1, [2, {'c': None}])}]}, [[[[[[[[[[1]]]]]]]]]], 'x' * 70000]\n"
        "for proto in range(2, 6):\n"
        "    more = []\n"
        "    if proto >= 3:  # protocol 2 writes bytes through _codecs.encode (a REDUCE)\n"
        "        more += [b'', b'\\x00\\xff', ('x', b'y' * 70000)]\n"
        "    if proto >= 5:  # and bytearray through its class before BYTEARRAY8\n"
        "        more += [bytearray(b'ab')]\n"
        "    for o in objs + more:\n"
        "        print(proto, pickle.dumps(o, protocol=proto).hex(), canon(o))\n";
    const rs::test::ProcessRun run = rs::test::runProcess(python, {"-c", script});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    const QStringList lines = run.out.split('\n', Qt::SkipEmptyParts);
    QVERIFY(lines.size() >= 4 * 35);
    for (const QString& line : lines) {
        const QStringList f = line.split(' ');
        QCOMPARE(f.size(), 3);
        const QByteArray bytes = QByteArray::fromHex(f[1].toLatin1());
        const PickleResult r = parsePickle(bytes.constData(), std::size_t(bytes.size()), "py.pkl");
        QVERIFY2(r.ok(), qPrintable("protocol " + f[0] + ": " + QString::fromStdString(r.message)));
        QCOMPARE(QString::fromStdString(canon(r.root())), f[2]);
    }
}

void TestPickle::realDumps()
{
    RS_REQUIRE_PUBLIC_TRACES();
    // Every shared dump is read, and its opcodes are data only (the reader would say).
    int read = 0;
    for (const char* set :
         {"pytorch_flight_recorder_gpu_error_16rank", "pytorch_flight_recorder_lock_gil_16rank"}) {
        for (int rank = 0; rank < 16; ++rank) {
            QFile f(rs::test::publicTrace(QString("%1/_dump_%2").arg(set).arg(rank)));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray b = f.readAll();
            const PickleResult r =
                parsePickle(b.constData(), std::size_t(b.size()), f.fileName().toStdString());
            QVERIFY2(r.ok(), r.message.c_str());
            QCOMPARE(r.root().kind(), PickleKind::Dict);
            QVERIFY(r.root().find("entries"));
            QCOMPARE(r.root().find("version")->bytes(), std::string_view("2.9"));
            ++read;
        }
    }
    QCOMPARE(read, 32);
    // And what Python reads from one of them is what the reader reads.
    const QString python = rs::test::findTool("python3");
    if (python.isEmpty()) QSKIP("python3 is not on the PATH");
    const QString path = rs::test::publicTrace("pytorch_flight_recorder_gpu_error_16rank/_dump_9");
    const rs::test::ProcessRun run = rs::test::runProcess(
        python,
        {"-c", QString(kPythonCanon) + "print(canon(pickle.load(open(sys.argv[1], 'rb'))))", path});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray b = f.readAll();
    const PickleResult r = parsePickle(b.constData(), std::size_t(b.size()), "_dump_9");
    QCOMPARE(QString::fromStdString(canon(r.root())), run.out.trimmed());
}

void TestPickle::refusedOpcodes()
{
    // Each opcode outside plain data, at byte 2 after PROTO 2, with arguments that Python would
    // accept: refused by name, at its byte, nothing read after it.
    struct Case {
        const char* name;
        std::string bytes;
        std::uint64_t at = 2; // where the refused opcode is
    };
    const std::vector<Case> cases = {
        {"GLOBAL", "cos\nsystem\n"},
        {"STACK_GLOBAL", "\x8c\x02os\x8c\x06system\x93", 14},
        {"REDUCE", "R"},
        {"BUILD", "b"},
        {"INST", "ios\nsystem\n"},
        {"OBJ", "o"},
        {"NEWOBJ", "\x81"},
        {"NEWOBJ_EX", "\x92"},
        {"EXT1", "\x82\x01"},
        {"EXT2", "\x83\x01\x00"s},
        {"EXT4", "\x84\x01\x00\x00\x00"s},
        {"PERSID", "P0\n"},
        {"BINPERSID", "Q"},
        {"EMPTY_SET", "\x8f"},
        {"ADDITEMS", "\x90"},
        {"FROZENSET", "\x91"},
        {"NEXT_BUFFER", "\x97"},
        {"READONLY_BUFFER", "\x98"},
        {"INT", "I1\n"},
        {"LONG", "L1L\n"},
        {"FLOAT", "F1.0\n"},
        {"STRING", "S'x'\n"},
        {"UNICODE", "Vx\n"},
        {"PUT", "p0\n"},
        {"GET", "g0\n"},
        {"BINSTRING", "T\x01\x00\x00\x00x"s},
        {"SHORT_BINSTRING", "U\x01x"},
    };
    for (const Case& c : cases) {
        const PickleResult r = parse("\x80\x02" + c.bytes + "N.");
        QVERIFY2(!r.ok(), c.name);
        QCOMPARE(r.error, PickleError::Refused);
        QCOMPARE(r.opcode, std::string(c.name));
        QCOMPARE(r.offset, c.at);
        QVERIFY2(r.message.starts_with("test.pkl: byte " + std::to_string(c.at) + ": opcode " +
                                       std::string(c.name) + " ("),
                 r.message.c_str());
        QVERIFY(r.message.find("refused") != std::string::npos);
        QVERIFY(r.message.find("nothing is executed") != std::string::npos);
        QVERIFY(!r.document);
    }
    // Every byte value: a name for each opcode, and nothing unnamed is read.
    int named = 0;
    for (int b = 0; b < 256; ++b) {
        if (pickleOpcodeName(std::uint8_t(b))) ++named;
        const PickleResult r = parse("\x80\x02" + std::string(1, char(b)));
        QVERIFY(!r.ok()); // nothing is a whole pickle with no STOP after it
        if (!pickleOpcodeName(std::uint8_t(b))) {
            QCOMPARE(r.error, PickleError::Malformed);
            QVERIFY(r.message.find("unknown opcode") != std::string::npos);
        }
    }
    QCOMPARE(named, 68); // pickletools.opcodes of Python 3.8+
}

void TestPickle::refusedFromPython()
{
    const QString python = rs::test::findTool("python3");
    if (python.isEmpty()) QSKIP("python3 is not on the PATH");
    // What an attacker's pickle looks like: os.system through __reduce__ (protocols 2 to 5),
    // a class instance, a set, a complex. Pickled, never loaded, by Python; the position of the
    // first opcode that is not data is Python's own (pickletools).
    const QString script =
        "import pickle, pickletools, os\n"
        "class Evil:\n"
        "    def __reduce__(self):\n"
        "        return (os.system, ('echo pwned',))\n"
        "class Plain:\n"
        "    pass\n"
        "data = set('PROTO FRAME STOP MARK POP POP_MARK DUP NONE NEWTRUE NEWFALSE BININT BININT1 "
        "'\n"
        "           'BININT2 LONG1 LONG4 BINFLOAT SHORT_BINUNICODE BINUNICODE BINUNICODE8 '\n"
        "           'SHORT_BINBYTES BINBYTES BINBYTES8 BYTEARRAY8 EMPTY_LIST EMPTY_DICT "
        "EMPTY_TUPLE '\n"
        "           'LIST DICT TUPLE TUPLE1 TUPLE2 TUPLE3 APPEND APPENDS SETITEM SETITEMS BINPUT "
        "'\n"
        "           'LONG_BINPUT MEMOIZE BINGET LONG_BINGET'.split())\n"
        "for proto in range(2, 6):\n"
        "    for o in [Evil(), {'entries': [Evil()]}, Plain(), {1, 2}, frozenset([3]), 1 + 2j]:\n"
        "        b = pickle.dumps(o, protocol=proto)\n"
        "        first = next((op.name, pos) for op, arg, pos in pickletools.genops(b)\n"
        "                     if op.name not in data)\n"
        "        print(b.hex(), first[0], first[1])\n";
    const rs::test::ProcessRun run = rs::test::runProcess(python, {"-c", script});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    const QStringList lines = run.out.split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 24);
    for (const QString& line : lines) {
        const QStringList f = line.split(' ');
        const QByteArray bytes = QByteArray::fromHex(f[0].toLatin1());
        const PickleResult r = parsePickle(bytes.constData(), std::size_t(bytes.size()), "evil");
        QVERIFY2(!r.ok(), qPrintable(line));
        QCOMPARE(r.error, PickleError::Refused);
        QCOMPARE(QString::fromStdString(r.opcode), f[1]);
        QCOMPARE(r.offset, f[2].toULongLong());
        QVERIFY(r.message.starts_with("evil: byte " + f[2].toStdString() + ": opcode "));
    }
}

void TestPickle::truncatedEverywhere()
{
    RS_REQUIRE_PUBLIC_TRACES();
    QFile f(rs::test::publicTrace("pytorch_flight_recorder_gpu_error_16rank/_dump_9"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const std::string whole = f.readAll().toStdString();
    QVERIFY(parse(whole).ok());
    // Every proper prefix is a truncated pickle, said so with the byte where it ends.
    for (std::size_t n = 0; n < whole.size(); ++n) {
        const PickleResult r = parsePickle(whole.data(), n, "_dump_9");
        if (r.error != PickleError::Truncated)
            QFAIL(qPrintable(QString("cut at %1: %2").arg(n).arg(r.message.c_str())));
        QVERIFY(r.message.starts_with("_dump_9: byte "));
        QVERIFY(r.message.find("truncated") != std::string::npos);
        QVERIFY(r.offset <= n);
    }
}

void TestPickle::nestingBombs()
{
    // 200,000 lists each put into the one before: refused at the depth limit, quickly.
    std::string lists = "\x80\x02";
    lists.append(200000, ']');
    lists.append(199999, 'a');
    lists += '.';
    const PickleResult r = parse(lists);
    QCOMPARE(r.error, PickleError::Limit);
    QVERIFY(r.message.find("nested deeper than 256") != std::string::npos);
    // 200,000 MARKs.
    std::string marks = "\x80\x02";
    marks.append(200000, '(');
    const PickleResult m = parse(marks);
    QCOMPARE(m.error, PickleError::Limit);
    QVERIFY(m.message.find("MARK") != std::string::npos);
    // Tuples of tuples (TUPLE1 on TUPLE1 ...).
    std::string tuples = "\x80\x02N";
    tuples.append(100000, '\x85');
    tuples += '.';
    QCOMPARE(parse(tuples).error, PickleError::Limit);
    // At the limit it reads.
    std::string ok = "\x80\x02";
    ok.append(256, ']');
    ok.append(255, 'a');
    ok += '.';
    const PickleResult deep = parse(ok);
    QVERIFY2(deep.ok(), deep.message.c_str());
    QCOMPARE(deep.root().depth(), 256);
}

void TestPickle::hugeLengths()
{
    // Length prefixes far past the end are never trusted (no allocation, no read past it).
    for (const std::string& b :
         {std::string("\x8d") + le(0x7fffffffffffffffull, 8), "\x8e" + le(~0ull, 8),
          "X" + le(0xffffffffull, 4), "B" + le(0xfffffff0ull, 4), "\x96" + le(1ull << 40, 8),
          std::string("\x8c\xff") + "short"}) {
        const PickleResult r = parse("\x80\x04" + b + ".");
        QCOMPARE(r.error, PickleError::Truncated);
        QVERIFY2(r.message.find("announces") != std::string::npos, r.message.c_str());
        QCOMPARE(r.offset, std::uint64_t(2));
    }
}

void TestPickle::limits()
{
    PickleLimits l;
    l.maxValues = 100;
    std::string many = "\x80\x02](";
    for (int i = 0; i < 200; ++i)
        many += "N";
    many += "e.";
    const PickleResult r = parse(many, l);
    QCOMPARE(r.error, PickleError::Limit);
    QVERIFY(r.message.find("more than 100 values") != std::string::npos);
    // The stack is bounded too: memo GETs make no values but push.
    std::string gets = "\x80\x02Nq\x00"s;
    for (int i = 0; i < 200; ++i)
        gets += "h\x00"s;
    QCOMPARE(parse(gets, l).error, PickleError::Limit);
    // Memo keys past the limit.
    const PickleResult memo = parse("\x80\x02Nr" + le(0xffffffffull, 4) + ".");
    QCOMPARE(memo.error, PickleError::Limit);
    QVERIFY(memo.message.find("memo key 4294967295") != std::string::npos);
}

void TestPickle::recursiveStructures()
{
    // A list put into itself (Python's l = []; l.append(l)), and a list changed after it was
    // put into another: the only ways to a cycle; both refused, so every value is a tree.
    const PickleResult self = parse("\x80\x02]q\x00h\x00"s
                                    "a.");
    QCOMPARE(self.error, PickleError::Malformed);
    QVERIFY(self.message.find("into itself") != std::string::npos);
    const PickleResult later = parse("\x80\x02]q\x00]h\x00"s
                                     "a"
                                     "a.");
    QCOMPARE(later.error, PickleError::Malformed);
    QVERIFY(later.message.find("already inside another value") != std::string::npos);
    const PickleResult dict = parse("\x80\x02}q\x00\x8c\x01kh\x00s."s);
    QCOMPARE(dict.error, PickleError::Malformed);
    const QString python = rs::test::findTool("python3");
    if (python.isEmpty()) QSKIP("python3 is not on the PATH");
    const rs::test::ProcessRun run = rs::test::runProcess(
        python, {"-c", "import pickle\nl = [1]\nl.append(l)\nd = {}\nd['me'] = [d]\n"
                       "print(pickle.dumps(l, 2).hex())\nprint(pickle.dumps(d, 4).hex())\n"});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    for (const QString& line : run.out.split('\n', Qt::SkipEmptyParts)) {
        const QByteArray b = QByteArray::fromHex(line.toLatin1());
        const PickleResult r = parsePickle(b.constData(), std::size_t(b.size()), "cycle");
        QCOMPARE(r.error, PickleError::Malformed);
    }
}

void TestPickle::malformed()
{
    QCOMPARE(parse("").error, PickleError::Truncated);
    QCOMPARE(parsePickle(nullptr, 10, "null").error, PickleError::Truncated);
    const PickleResult unknown = parse("\x80\x02\xff.");
    QCOMPARE(unknown.error, PickleError::Malformed);
    QVERIFY(unknown.message.find("unknown opcode 0xff") != std::string::npos);
    QCOMPARE(parse("\x80\x06N.").error, PickleError::Malformed); // protocol 6
    QCOMPARE(parse("\x80\x02"
                   "a.")
                 .error,
             PickleError::Malformed);                             // APPEND, empty stack
    QCOMPARE(parse("\x80\x02]e.").error, PickleError::Malformed); // APPENDS without MARK
}

QTEST_GUILESS_MAIN(TestPickle)
#include "tst_pickle.moc"
