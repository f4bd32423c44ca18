#include "core/producers/flightrecorder/pickle.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

namespace rs::flightrecorder {

namespace {

// Opcode bytes (Python's Lib/pickletools.py).
enum Op : std::uint8_t {
    MARK = '(',
    STOP = '.',
    POP = '0',
    POP_MARK = '1',
    DUP = '2',
    FLOAT = 'F',
    INT = 'I',
    BININT = 'J',
    BININT1 = 'K',
    LONG = 'L',
    BININT2 = 'M',
    NONE = 'N',
    PERSID = 'P',
    BINPERSID = 'Q',
    REDUCE = 'R',
    STRING = 'S',
    BINSTRING = 'T',
    SHORT_BINSTRING = 'U',
    UNICODE = 'V',
    BINUNICODE = 'X',
    APPEND = 'a',
    BUILD = 'b',
    GLOBAL = 'c',
    DICT = 'd',
    EMPTY_DICT = '}',
    APPENDS = 'e',
    GET = 'g',
    BINGET = 'h',
    INST = 'i',
    LONG_BINGET = 'j',
    LIST = 'l',
    EMPTY_LIST = ']',
    OBJ = 'o',
    PUT = 'p',
    BINPUT = 'q',
    LONG_BINPUT = 'r',
    SETITEM = 's',
    TUPLE = 't',
    EMPTY_TUPLE = ')',
    SETITEMS = 'u',
    BINFLOAT = 'G',
    PROTO = 0x80,
    NEWOBJ = 0x81,
    EXT1 = 0x82,
    EXT2 = 0x83,
    EXT4 = 0x84,
    TUPLE1 = 0x85,
    TUPLE2 = 0x86,
    TUPLE3 = 0x87,
    NEWTRUE = 0x88,
    NEWFALSE = 0x89,
    LONG1 = 0x8a,
    LONG4 = 0x8b,
    BINBYTES = 'B',
    SHORT_BINBYTES = 'C',
    SHORT_BINUNICODE = 0x8c,
    BINUNICODE8 = 0x8d,
    BINBYTES8 = 0x8e,
    EMPTY_SET = 0x8f,
    ADDITEMS = 0x90,
    FROZENSET = 0x91,
    NEWOBJ_EX = 0x92,
    STACK_GLOBAL = 0x93,
    MEMOIZE = 0x94,
    FRAME = 0x95,
    BYTEARRAY8 = 0x96,
    NEXT_BUFFER = 0x97,
    READONLY_BUFFER = 0x98,
};

// Why an opcode outside plain data is refused, in words; nullptr for one that is read.
const char* refusal(std::uint8_t op)
{
    switch (op) {
    case GLOBAL:
    case STACK_GLOBAL:
    case INST:
        return "it imports a Python object";
    case REDUCE:
    case NEWOBJ:
    case NEWOBJ_EX:
    case OBJ:
        return "it calls a Python object";
    case BUILD:
        return "it sets an object's state (a call of __setstate__)";
    case EXT1:
    case EXT2:
    case EXT4:
        return "it imports a Python object through the extension registry";
    case PERSID:
    case BINPERSID:
        return "it asks the reader for a persistent object";
    case EMPTY_SET:
    case ADDITEMS:
    case FROZENSET:
        return "it makes a set, which a Flight Recorder dump never holds";
    case NEXT_BUFFER:
    case READONLY_BUFFER:
        return "it reads an out-of-band buffer";
    case INT:
    case LONG:
    case FLOAT:
    case STRING:
    case UNICODE:
    case PUT:
    case GET:
        return "it is protocol 0's text form, which protocols 2 to 5 never write";
    case BINSTRING:
    case SHORT_BINSTRING:
        return "it is a Python 2 string, which protocols 2 to 5 write as BINUNICODE";
    default:
        return nullptr;
    }
}

// Strict UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF), as Python decodes a
// BINUNICODE (surrogates aside, which only Python's surrogatepass lets through).
bool validUtf8(const unsigned char* s, std::size_t n)
{
    std::size_t i = 0;
    while (i < n) {
        const unsigned char c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        int len = 0;
        std::uint32_t cp = 0;
        if ((c & 0xe0) == 0xc0) {
            len = 2;
            cp = c & 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            len = 3;
            cp = c & 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            len = 4;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (n - i < std::size_t(len)) return false;
        for (int k = 1; k < len; ++k) {
            if ((s[i + k] & 0xc0) != 0x80) return false;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
            cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += std::size_t(len);
    }
    return true;
}

std::string byteCount(std::uint64_t n)
{
    return std::to_string(n) + (n == 1 ? " byte" : " bytes");
}

std::string hexByte(std::uint8_t b)
{
    static const char digits[] = "0123456789abcdef";
    return std::string("0x") + digits[b >> 4] + digits[b & 15];
}

} // namespace

const char* pickleOpcodeName(std::uint8_t op)
{
    switch (op) {
#define RS_OP(name)                                                                                \
    case name:                                                                                     \
        return #name;
        RS_OP(MARK)
        RS_OP(STOP)
        RS_OP(POP)
        RS_OP(POP_MARK)
        RS_OP(DUP)
        RS_OP(FLOAT)
        RS_OP(INT)
        RS_OP(BININT)
        RS_OP(BININT1)
        RS_OP(LONG)
        RS_OP(BININT2)
        RS_OP(NONE)
        RS_OP(PERSID)
        RS_OP(BINPERSID)
        RS_OP(REDUCE)
        RS_OP(STRING)
        RS_OP(BINSTRING)
        RS_OP(SHORT_BINSTRING)
        RS_OP(UNICODE)
        RS_OP(BINUNICODE)
        RS_OP(APPEND)
        RS_OP(BUILD)
        RS_OP(GLOBAL)
        RS_OP(DICT)
        RS_OP(EMPTY_DICT)
        RS_OP(APPENDS)
        RS_OP(GET)
        RS_OP(BINGET)
        RS_OP(INST)
        RS_OP(LONG_BINGET)
        RS_OP(LIST)
        RS_OP(EMPTY_LIST)
        RS_OP(OBJ)
        RS_OP(PUT)
        RS_OP(BINPUT)
        RS_OP(LONG_BINPUT)
        RS_OP(SETITEM)
        RS_OP(TUPLE)
        RS_OP(EMPTY_TUPLE)
        RS_OP(SETITEMS)
        RS_OP(BINFLOAT)
        RS_OP(PROTO)
        RS_OP(NEWOBJ)
        RS_OP(EXT1)
        RS_OP(EXT2)
        RS_OP(EXT4)
        RS_OP(TUPLE1)
        RS_OP(TUPLE2)
        RS_OP(TUPLE3)
        RS_OP(NEWTRUE)
        RS_OP(NEWFALSE)
        RS_OP(LONG1)
        RS_OP(LONG4)
        RS_OP(BINBYTES)
        RS_OP(SHORT_BINBYTES)
        RS_OP(SHORT_BINUNICODE)
        RS_OP(BINUNICODE8)
        RS_OP(BINBYTES8)
        RS_OP(EMPTY_SET)
        RS_OP(ADDITEMS)
        RS_OP(FROZENSET)
        RS_OP(NEWOBJ_EX)
        RS_OP(STACK_GLOBAL)
        RS_OP(MEMOIZE)
        RS_OP(FRAME)
        RS_OP(BYTEARRAY8)
        RS_OP(NEXT_BUFFER)
        RS_OP(READONLY_BUFFER)
#undef RS_OP
    default:
        return nullptr;
    }
}

const char* pickleKindName(PickleKind k)
{
    switch (k) {
    case PickleKind::None:
        return "None";
    case PickleKind::Bool:
        return "bool";
    case PickleKind::Int:
    case PickleKind::BigInt:
        return "int";
    case PickleKind::Float:
        return "float";
    case PickleKind::Str:
        return "str";
    case PickleKind::Bytes:
        return "bytes";
    case PickleKind::List:
        return "list";
    case PickleKind::Tuple:
        return "tuple";
    case PickleKind::Dict:
        return "dict";
    }
    return "?";
}

// ---- the value view

PickleKind PickleValue::kind() const
{
    return m_doc ? m_doc->m_nodes[m_index].kind : PickleKind::None;
}

bool PickleValue::boolean() const
{
    return kind() == PickleKind::Bool && m_doc->m_nodes[m_index].a != 0;
}

std::int64_t PickleValue::integer() const
{
    const PickleKind k = kind();
    if (k != PickleKind::Int && k != PickleKind::Bool) return 0;
    return static_cast<std::int64_t>(m_doc->m_nodes[m_index].a);
}

double PickleValue::real() const
{
    if (kind() != PickleKind::Float) return 0;
    return std::bit_cast<double>(m_doc->m_nodes[m_index].a);
}

std::string_view PickleValue::bytes() const
{
    const PickleKind k = kind();
    if (k != PickleKind::Str && k != PickleKind::Bytes && k != PickleKind::BigInt) return {};
    const auto& n = m_doc->m_nodes[m_index];
    return std::string_view(m_doc->m_bytes).substr(n.a, n.n);
}

std::string PickleValue::bigIntDecimal() const
{
    const PickleKind k = kind();
    if (k == PickleKind::Int || k == PickleKind::Bool) return std::to_string(integer());
    if (k != PickleKind::BigInt) return {};
    // Magnitude of the two's complement, then repeated division by 10^9 (quadratic in the
    // length, which PickleLimits::maxIntBytes bounds).
    const std::string_view le = bytes();
    std::vector<std::uint8_t> mag(le.begin(), le.end());
    const bool negative = !mag.empty() && (mag.back() & 0x80);
    if (negative) {
        unsigned carry = 1;
        for (auto& b : mag) {
            const unsigned v = unsigned(std::uint8_t(~b)) + carry;
            b = std::uint8_t(v);
            carry = v >> 8;
        }
    }
    std::vector<std::uint32_t> chunks; // base 10^9, least significant first
    std::vector<std::uint8_t> be(mag.rbegin(), mag.rend());
    while (true) {
        std::size_t first = 0;
        while (first < be.size() && be[first] == 0)
            ++first;
        if (first == be.size()) break;
        std::uint64_t rem = 0;
        for (std::size_t i = first; i < be.size(); ++i) {
            const std::uint64_t cur = rem << 8 | be[i];
            be[i] = std::uint8_t(cur / 1000000000u);
            rem = cur % 1000000000u;
        }
        chunks.push_back(std::uint32_t(rem));
    }
    if (chunks.empty()) return "0";
    std::string s = negative ? "-" : "";
    s += std::to_string(chunks.back());
    for (std::size_t i = chunks.size() - 1; i-- > 0;) {
        const std::string part = std::to_string(chunks[i]);
        s.append(9 - part.size(), '0');
        s += part;
    }
    return s;
}

std::size_t PickleValue::size() const
{
    const PickleKind k = kind();
    if (k != PickleKind::List && k != PickleKind::Tuple && k != PickleKind::Dict) return 0;
    const std::size_t n = m_doc->m_items[m_doc->m_nodes[m_index].a].size();
    return k == PickleKind::Dict ? n / 2 : n;
}

PickleValue PickleValue::at(std::size_t i) const
{
    const PickleKind k = kind();
    if ((k != PickleKind::List && k != PickleKind::Tuple) || i >= size()) return {};
    return PickleValue(m_doc, m_doc->m_items[m_doc->m_nodes[m_index].a][i]);
}

PickleValue PickleValue::key(std::size_t i) const
{
    if (kind() != PickleKind::Dict || i >= size()) return {};
    return PickleValue(m_doc, m_doc->m_items[m_doc->m_nodes[m_index].a][2 * i]);
}

PickleValue PickleValue::value(std::size_t i) const
{
    if (kind() != PickleKind::Dict || i >= size()) return {};
    return PickleValue(m_doc, m_doc->m_items[m_doc->m_nodes[m_index].a][2 * i + 1]);
}

std::optional<PickleValue> PickleValue::find(std::string_view k) const
{
    for (std::size_t i = size(); kind() == PickleKind::Dict && i-- > 0;) {
        const PickleValue kv = key(i);
        if (kv.kind() == PickleKind::Str && kv.bytes() == k) return value(i);
    }
    return std::nullopt;
}

std::uint64_t PickleValue::offset() const
{
    return m_doc ? m_doc->m_nodes[m_index].offset : 0;
}

int PickleValue::depth() const
{
    return m_doc ? m_doc->m_nodes[m_index].depth : 0;
}

PickleValue PickleResult::root() const
{
    return document ? document->root() : PickleValue();
}

// ---- the parser

class PickleParser {
public:
    PickleParser(const char* data, std::size_t size, std::string_view file,
                 const PickleLimits& limits)
        : m_p(reinterpret_cast<const std::uint8_t*>(data)), m_size(size), m_file(file),
          m_limits(limits), m_doc(std::make_shared<PickleDocument>())
    {
        m_limits.maxDepth = std::clamp(m_limits.maxDepth, 1, 65535);
    }

    PickleResult run()
    {
        PickleResult r;
        try {
            parse();
            r.document = std::move(m_doc);
        } catch (const Failure& f) {
            r.error = f.error;
            r.offset = f.offset;
            r.opcode = f.opcode;
            r.message = std::string(m_file) + ": byte " + std::to_string(f.offset) + ": " + f.text;
        }
        return r;
    }

private:
    struct Failure {
        PickleError error;
        std::uint64_t offset;
        std::string opcode;
        std::string text;
    };
    using Node = PickleDocument::Node;
    static constexpr std::uint32_t kUnset = std::numeric_limits<std::uint32_t>::max();

    [[noreturn]] void fail(PickleError e, std::string text, bool blameOpcode = true)
    {
        const char* name = pickleOpcodeName(m_op);
        throw Failure{e, m_opAt, blameOpcode && name ? name : "", std::move(text)};
    }
    std::string opText() const
    {
        const char* name = pickleOpcodeName(m_op);
        return std::string("opcode ") + (name ? name : "?") + " (" + hexByte(m_op) + ")";
    }

    // Arguments: `n` bytes at the cursor, or a truncation.
    const std::uint8_t* take(std::uint64_t n)
    {
        if (n > m_size - m_pos)
            fail(PickleError::Truncated, opText() + " needs " + byteCount(n) + ", only " +
                                             std::to_string(m_size - m_pos) +
                                             " left: the file is truncated");
        const std::uint8_t* p = m_p + m_pos;
        m_pos += n;
        return p;
    }
    std::uint64_t le(int bytes)
    {
        const std::uint8_t* p = take(std::uint64_t(bytes));
        std::uint64_t v = 0;
        for (int i = bytes; i-- > 0;)
            v = v << 8 | p[i];
        return v;
    }
    // A length prefix: never trusted past the bytes that are left.
    std::uint64_t length(int bytes)
    {
        const std::uint64_t n = le(bytes);
        if (n > m_size - m_pos)
            fail(PickleError::Truncated, opText() + " announces " + byteCount(n) + ", only " +
                                             std::to_string(m_size - m_pos) +
                                             " left: the file is truncated or the length is wrong");
        return n;
    }

    std::uint32_t make(PickleKind k)
    {
        if (m_doc->m_nodes.size() >= m_limits.maxValues)
            fail(PickleError::Limit, "more than " + std::to_string(m_limits.maxValues) +
                                         " values: over the reader's limit");
        Node n;
        n.kind = k;
        n.offset = m_opAt;
        if (k == PickleKind::List || k == PickleKind::Tuple || k == PickleKind::Dict) {
            n.a = m_doc->m_items.size();
            n.depth = 1;
            m_doc->m_items.emplace_back();
        }
        m_doc->m_nodes.push_back(n);
        return std::uint32_t(m_doc->m_nodes.size() - 1);
    }
    std::uint32_t makeScalar(PickleKind k, std::uint64_t bits)
    {
        const std::uint32_t i = make(k);
        m_doc->m_nodes[i].a = bits;
        return i;
    }
    std::uint32_t makeBytes(PickleKind k, const std::uint8_t* p, std::uint64_t n)
    {
        const std::uint32_t i = make(k);
        m_doc->m_nodes[i].a = m_doc->m_bytes.size();
        m_doc->m_nodes[i].n = n;
        m_doc->m_bytes.append(reinterpret_cast<const char*>(p), n);
        return i;
    }

    void push(std::uint32_t v)
    {
        if (m_stack.size() >= m_limits.maxValues)
            fail(PickleError::Limit,
                 "a stack of more than " + std::to_string(m_limits.maxValues) + " values");
        m_stack.push_back(v);
    }
    std::size_t markTop() const { return m_marks.empty() ? 0 : m_marks.back(); }
    // Items above the last MARK (Python 3 keeps them on a stack of their own).
    std::size_t aboveMark() const { return m_stack.size() - markTop(); }
    std::uint32_t pop()
    {
        if (aboveMark() == 0) fail(PickleError::Malformed, opText() + " on an empty stack");
        const std::uint32_t v = m_stack.back();
        m_stack.pop_back();
        return v;
    }
    std::uint32_t top()
    {
        if (aboveMark() == 0) fail(PickleError::Malformed, opText() + " on an empty stack");
        return m_stack.back();
    }
    // Pops back to the last MARK; the items above it, in order.
    std::vector<std::uint32_t> popMark()
    {
        if (m_marks.empty()) fail(PickleError::Malformed, opText() + " without a MARK");
        const std::size_t at = m_marks.back();
        m_marks.pop_back();
        std::vector<std::uint32_t> items(m_stack.begin() + std::ptrdiff_t(at), m_stack.end());
        m_stack.resize(at);
        return items;
    }

    // Puts `child` into the container `parent`, which must still be open. Sealing the child
    // is what keeps the values a tree: a container that is inside another never changes, so
    // no container can come to hold itself (the only cycle a pickle can make).
    void adopt(std::uint32_t parent, std::uint32_t child)
    {
        Node& p = m_doc->m_nodes[parent];
        if (child == parent)
            fail(PickleError::Malformed,
                 opText() + " puts a " + pickleKindName(p.kind) +
                     " into itself (a recursive structure, which a dump never holds)");
        Node& c = m_doc->m_nodes[child];
        if (int(c.depth) + 1 > m_limits.maxDepth)
            fail(PickleError::Limit,
                 "values nested deeper than " + std::to_string(m_limits.maxDepth) + " levels");
        c.sealed = true;
        p.depth = std::max<std::uint16_t>(p.depth, std::uint16_t(c.depth + 1));
        m_doc->m_items[p.a].push_back(child);
    }
    void checkOpen(std::uint32_t container, PickleKind want)
    {
        const Node& n = m_doc->m_nodes[container];
        if (n.kind != want)
            fail(PickleError::Malformed,
                 opText() + " on a " + pickleKindName(n.kind) + ", not a " + pickleKindName(want));
        if (n.sealed)
            fail(PickleError::Malformed,
                 opText() + " changes a " + pickleKindName(n.kind) +
                     " that is already inside another value (a recursive structure, which a "
                     "dump never holds)");
    }
    std::uint32_t makeContainer(PickleKind k, const std::vector<std::uint32_t>& items)
    {
        const std::uint32_t c = make(k);
        m_doc->m_items[m_doc->m_nodes[c].a].reserve(items.size());
        for (std::uint32_t it : items)
            adopt(c, it);
        return c;
    }

    std::uint32_t makeLong(std::uint64_t n)
    {
        if (n > m_limits.maxIntBytes)
            fail(PickleError::Limit, "an int of " + std::to_string(n) + " bytes (more than " +
                                         std::to_string(m_limits.maxIntBytes) + ")");
        const std::uint8_t* p = take(n);
        // Fits in 64 bits when every byte past the eighth only extends the sign.
        const bool negative = n > 0 && (p[n - 1] & 0x80);
        bool fits = true;
        for (std::uint64_t i = 8; i < n && fits; ++i)
            fits = p[i] == (negative ? 0xff : 0x00);
        if (fits && n > 8) fits = bool(p[7] & 0x80) == negative;
        if (!fits) return makeBytes(PickleKind::BigInt, p, n);
        std::uint64_t v = negative ? ~std::uint64_t(0) : 0;
        for (std::uint64_t i = std::min<std::uint64_t>(n, 8); i-- > 0;)
            v = (v << 8) | p[i];
        return makeScalar(PickleKind::Int, v);
    }
    std::uint32_t makeText(std::uint64_t n)
    {
        const std::uint8_t* p = take(n);
        if (!validUtf8(p, n))
            fail(PickleError::Malformed, opText() + ": a string that is not UTF-8");
        return makeBytes(PickleKind::Str, p, n);
    }

    void memoPut(std::uint64_t key)
    {
        if (key >= m_limits.maxMemo)
            fail(PickleError::Limit, "memo key " + std::to_string(key) + " (the reader keeps " +
                                         std::to_string(m_limits.maxMemo) + ")");
        if (key >= m_memo.size()) m_memo.resize(key + 1, kUnset);
        if (m_memo[key] == kUnset) ++m_memoCount;
        m_memo[key] = top();
    }
    void memoGet(std::uint64_t key)
    {
        if (key >= m_memo.size() || m_memo[key] == kUnset)
            fail(PickleError::Malformed,
                 opText() + " of memo key " + std::to_string(key) + ", which was never set");
        push(m_memo[key]);
    }

    void parse()
    {
        while (true) {
            if (m_pos >= m_size) {
                m_opAt = m_pos;
                m_op = 0;
                throw Failure{PickleError::Truncated, m_pos, "",
                              "the pickle ends without STOP: the file is truncated"};
            }
            m_opAt = m_pos;
            m_op = m_p[m_pos++];
            if (const char* why = refusal(m_op))
                fail(PickleError::Refused,
                     opText() + " refused: " + why +
                         "; only plain data is read from a pickle (nothing is executed)");
            switch (m_op) {
            case PROTO: {
                const std::uint64_t v = le(1);
                if (v > 5)
                    fail(PickleError::Malformed,
                         "pickle protocol " + std::to_string(v) + " (this reader knows 2 to 5)");
                m_doc->m_protocol = int(v);
                break;
            }
            case FRAME:
                length(8); // a frame only groups the opcodes that follow; they are read as such
                break;
            case STOP:
                if (m_stack.empty()) fail(PickleError::Malformed, "STOP on an empty stack");
                m_doc->m_root = m_stack.back();
                return;
            case MARK:
                if (m_marks.size() >= std::size_t(m_limits.maxDepth))
                    fail(PickleError::Limit, "more than " + std::to_string(m_limits.maxDepth) +
                                                 " MARKs open (nesting too deep)");
                m_marks.push_back(m_stack.size());
                break;
            case POP:
                if (aboveMark() > 0)
                    m_stack.pop_back();
                else if (!m_marks.empty())
                    m_marks.pop_back(); // Python pops the mark when nothing is above it
                else
                    fail(PickleError::Malformed, "POP on an empty stack");
                break;
            case POP_MARK:
                popMark();
                break;
            case DUP:
                push(top());
                break;
            case NONE:
                push(make(PickleKind::None));
                break;
            case NEWTRUE:
            case NEWFALSE:
                push(makeScalar(PickleKind::Bool, m_op == NEWTRUE));
                break;
            case BININT:
                push(makeScalar(PickleKind::Int,
                                std::uint64_t(std::int64_t(std::int32_t(std::uint32_t(le(4)))))));
                break;
            case BININT1:
                push(makeScalar(PickleKind::Int, le(1)));
                break;
            case BININT2:
                push(makeScalar(PickleKind::Int, le(2)));
                break;
            case LONG1:
                push(makeLong(le(1)));
                break;
            case LONG4: {
                const std::int32_t n = std::int32_t(std::uint32_t(le(4)));
                if (n < 0)
                    fail(PickleError::Malformed,
                         "LONG4 with a negative length " + std::to_string(n));
                push(makeLong(std::uint64_t(n)));
                break;
            }
            case BINFLOAT: {
                const std::uint8_t* p = take(8);
                std::uint64_t bits = 0;
                for (int i = 0; i < 8; ++i)
                    bits = bits << 8 | p[i]; // big-endian
                push(makeScalar(PickleKind::Float, bits));
                break;
            }
            case SHORT_BINUNICODE:
                push(makeText(length(1)));
                break;
            case BINUNICODE:
                push(makeText(length(4)));
                break;
            case BINUNICODE8:
                push(makeText(length(8)));
                break;
            case SHORT_BINBYTES:
            case BINBYTES:
            case BINBYTES8:
            case BYTEARRAY8: {
                const int w = m_op == SHORT_BINBYTES ? 1 : m_op == BINBYTES ? 4 : 8;
                const std::uint64_t n = length(w);
                push(makeBytes(PickleKind::Bytes, take(n), n));
                break;
            }
            case EMPTY_LIST:
                push(make(PickleKind::List));
                break;
            case EMPTY_DICT:
                push(make(PickleKind::Dict));
                break;
            case EMPTY_TUPLE:
                push(make(PickleKind::Tuple));
                break;
            case LIST:
                push(makeContainer(PickleKind::List, popMark()));
                break;
            case TUPLE:
                push(makeContainer(PickleKind::Tuple, popMark()));
                break;
            case DICT: {
                const std::vector<std::uint32_t> items = popMark();
                if (items.size() % 2) fail(PickleError::Malformed, "DICT with a key and no value");
                push(makeContainer(PickleKind::Dict, items));
                break;
            }
            case TUPLE1:
            case TUPLE2:
            case TUPLE3: {
                const std::size_t n = std::size_t(m_op - TUPLE1 + 1);
                if (aboveMark() < n)
                    fail(PickleError::Malformed, opText() + " with fewer than " +
                                                     std::to_string(n) + " values on the stack");
                const std::vector<std::uint32_t> items(m_stack.end() - std::ptrdiff_t(n),
                                                       m_stack.end());
                m_stack.resize(m_stack.size() - n);
                push(makeContainer(PickleKind::Tuple, items));
                break;
            }
            case APPEND: {
                const std::uint32_t v = pop();
                const std::uint32_t list = top();
                checkOpen(list, PickleKind::List);
                adopt(list, v);
                break;
            }
            case APPENDS: {
                const std::vector<std::uint32_t> items = popMark();
                const std::uint32_t list = top();
                checkOpen(list, PickleKind::List);
                for (std::uint32_t v : items)
                    adopt(list, v);
                break;
            }
            case SETITEM: {
                const std::uint32_t v = pop();
                const std::uint32_t k = pop();
                const std::uint32_t dict = top();
                checkOpen(dict, PickleKind::Dict);
                adopt(dict, k);
                adopt(dict, v);
                break;
            }
            case SETITEMS: {
                const std::vector<std::uint32_t> items = popMark();
                if (items.size() % 2)
                    fail(PickleError::Malformed, "SETITEMS with a key and no value");
                const std::uint32_t dict = top();
                checkOpen(dict, PickleKind::Dict);
                for (std::uint32_t v : items)
                    adopt(dict, v);
                break;
            }
            case BINPUT:
                memoPut(le(1));
                break;
            case LONG_BINPUT:
                memoPut(le(4));
                break;
            case MEMOIZE:
                memoPut(m_memoCount); // Python: memo[len(memo)]
                break;
            case BINGET:
                memoGet(le(1));
                break;
            case LONG_BINGET:
                memoGet(le(4));
                break;
            default:
                throw Failure{PickleError::Malformed, m_opAt, "",
                              "unknown opcode " + hexByte(m_op) + " (not a pickle, or damaged)"};
            }
        }
    }

    const std::uint8_t* m_p;
    std::uint64_t m_size;
    std::uint64_t m_pos = 0;
    std::string_view m_file;
    PickleLimits m_limits;
    std::shared_ptr<PickleDocument> m_doc;
    std::vector<std::uint32_t> m_stack;
    std::vector<std::size_t> m_marks;
    std::vector<std::uint32_t> m_memo;
    std::uint64_t m_memoCount = 0;
    std::uint64_t m_opAt = 0;
    std::uint8_t m_op = 0;
};

PickleResult parsePickle(const char* data, std::size_t size, std::string_view file,
                         const PickleLimits& limits)
{
    if (data == nullptr) size = 0;
    static const char empty = 0;
    return PickleParser(data ? data : &empty, size, file, limits).run();
}

} // namespace rs::flightrecorder
