#include "core/jsontokenizer.h"

#include "core/swardigits.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <system_error>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rs {

namespace {

constexpr const char* kRanOut = "the text ends here";

#if defined(__SSE2__)
unsigned mask16(__m128i v)
{
    return static_cast<unsigned>(_mm_movemask_epi8(v));
}
#endif

// Ph..Scope and Ts..Sf in the order of kTextOf and kScalarOf below.
enum class Field : std::uint8_t {
    None,
    Ph,
    Name,
    Cat,
    Bp,
    Scope,
    Args,
    Stack,
    Ts,
    Dur,
    Pid,
    Tid,
    Id,
    BindId,
    Sf,
    FlowIn,
    FlowOut
};

Field classify(std::string_view k)
{
    switch (k.size()) {
    case 1:
        return k == "s" ? Field::Scope : Field::None;
    case 2:
        if (k == "ph") return Field::Ph;
        if (k == "ts") return Field::Ts;
        if (k == "id") return Field::Id;
        if (k == "bp") return Field::Bp;
        if (k == "sf") return Field::Sf;
        return Field::None;
    case 3:
        if (k == "cat") return Field::Cat;
        if (k == "dur") return Field::Dur;
        if (k == "pid") return Field::Pid;
        if (k == "tid") return Field::Tid;
        return Field::None;
    case 4:
        if (k == "name") return Field::Name;
        if (k == "args") return Field::Args;
        return Field::None;
    case 5:
        return k == "stack" ? Field::Stack : Field::None;
    case 7:
        if (k == "bind_id") return Field::BindId;
        if (k == "flow_in") return Field::FlowIn;
        return Field::None;
    case 8:
        return k == "flow_out" ? Field::FlowOut : Field::None;
    default:
        return Field::None;
    }
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void appendUtf8(std::string& out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

// from_chars (no locale, unlike strtod) says "out of range" for both overflow and underflow;
// the wider long double tells them apart, the exponent's sign beyond that.
bool overflowsDouble(const char* p, const char* s)
{
    double d = 0;
    if (std::from_chars(p, s, d).ec != std::errc::result_out_of_range) return false;
    long double ld = 0;
    if (std::from_chars(p, s, ld).ec != std::errc::result_out_of_range) return ld > 1 || ld < -1;
    const std::string_view t(p, static_cast<std::size_t>(s - p));
    const auto e = t.find_first_of("eE");
    return e == std::string_view::npos || e + 1 >= t.size() || t[e + 1] != '-';
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// A string field takes strings and numbers (as written; the integer "-0" is "0"); null leaves
// it as it was; anything else is a bad type.
void stringField(TextRef& field, const JsonScalar& v, TraceEvent& ev)
{
    static const char zero[] = "0";
    switch (v.kind) {
    case JsonScalar::String:
    case JsonScalar::Float:
    case JsonScalar::UInt:
        field = v.text;
        break;
    case JsonScalar::Int:
        field = v.bits == 0 ? TextRef{zero, 1} : v.text;
        break;
    case JsonScalar::Bool:
        ++ev.badTypes;
        break;
    default:
        break;
    }
}

// The event's member a field is read into: a scalar kept as read (Ts..Sf), or a name-like
// text (Ph..Scope); the tables follow the enum's order.
constexpr JsonScalar TraceEvent::*kScalarOf[] = {
    &TraceEvent::ts, &TraceEvent::dur,    &TraceEvent::pid, &TraceEvent::tid,
    &TraceEvent::id, &TraceEvent::bindId, &TraceEvent::sf};
constexpr TextRef TraceEvent::*kTextOf[] = {&TraceEvent::ph, &TraceEvent::name, &TraceEvent::cat,
                                            &TraceEvent::bp, &TraceEvent::scope};
static_assert(int(Field::Sf) - int(Field::Ts) + 1 == std::size(kScalarOf));
static_assert(int(Field::Scope) - int(Field::Ph) + 1 == std::size(kTextOf));

JsonScalar* scalarField(TraceEvent& ev, Field f)
{
    const unsigned i = unsigned(f) - unsigned(Field::Ts);
    return i < std::size(kScalarOf) ? &(ev.*kScalarOf[i]) : nullptr;
}

TextRef* textField(TraceEvent& ev, Field f)
{
    const unsigned i = unsigned(f) - unsigned(Field::Ph);
    return i < std::size(kTextOf) ? &(ev.*kTextOf[i]) : nullptr;
}

} // namespace

const bool JsonTokenizer::kBlank[256] = {
    false, false, false, false, false, false, false, false, false, true,  true,
    false, false, true,  false, false, false, false, false, false, false, false,
    false, false, false, false, false, false, false, false, false, false, true, // 0x20 ' '
};

void TraceEvent::clear()
{
    // Each field from a constant: a chained `a = b = T{}` reloads the member just stored in
    // two halves, a store-forwarding stall that cost as much as the rest of the event's reset.
    static constexpr TextRef kNoText{};
    static constexpr JsonScalar kNoScalar{};
    offset = 0;
    for (TextRef* t : {&ph, &name, &cat, &bp, &scope, &args})
        *t = kNoText;
    for (JsonScalar* v : {&ts, &dur, &pid, &tid, &id, &bindId, &sf})
        *v = kNoScalar;
    stack.clear();
    flowIn = flowOut = false;
    badTypes = 0;
    nsTimes = false;
    if (arena && !arena->empty()) arena->clear();
}

// string() past its inline first 16 bytes: longer strings, escapes, UTF-8, the text's end.
const char* JsonTokenizer::stringScan(const char* p, TextRef& out, std::deque<std::string>* arena)
{
    const char* s = p + 1;
    for (;;) {
        // Skip plain ASCII 16 (or 8) bytes at a time: stop at '"', '\\', a control byte or a
        // byte >= 0x80 (UTF-8, validated below).
#if defined(__SSE2__)
        while (m_end - s >= 16) {
            if (const unsigned stops = stringStops16(s)) {
                s += __builtin_ctz(stops);
                break;
            }
            s += 16;
        }
#endif
        if (s >= m_end) return fail(m_end, kRanOut);
        const auto c = static_cast<unsigned char>(*s);
        if (c == '"') {
            if (s - (p + 1) > 0xffffffffll) return fail(p, "a string longer than 4 GiB");
            out.p = p + 1;
            out.n = static_cast<std::uint32_t>(s - (p + 1));
            return s + 1;
        }
        if (c == '\\') return escaped(p, s, out, arena);
        if (c < 0x20) return fail(s, "a control character inside a string");
        if (c >= 0x80) {
            if (!(s = utf8(s))) return nullptr;
        } else {
            ++s;
        }
    }
}

// One UTF-8 sequence, checked against the ranges of RFC 3629 (as nlohmann checks them).
const char* JsonTokenizer::utf8(const char* s)
{
    const auto c = static_cast<unsigned char>(s[0]);
    int n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 1;
    } else if (c == 0xE0) {
        n = 2;
        lo = 0xA0;
    } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
        n = 2;
    } else if (c == 0xED) {
        n = 2;
        hi = 0x9F;
    } else if (c == 0xF0) {
        n = 3;
        lo = 0x90;
    } else if (c >= 0xF1 && c <= 0xF3) {
        n = 3;
    } else if (c == 0xF4) {
        n = 3;
        hi = 0x8F;
    } else {
        return fail(s, "a byte that is not UTF-8");
    }
    for (int i = 1; i <= n; ++i) {
        if (s + i >= m_end) return fail(m_end, kRanOut);
        const auto b = static_cast<unsigned char>(s[i]);
        if (b < lo || b > hi) return fail(s + i, "a byte that is not UTF-8");
        lo = 0x80;
        hi = 0xBF;
    }
    return s + n + 1;
}

// The slow path of string(), s at the first backslash: decoded into the arena when there is
// one, else only checked.
const char* JsonTokenizer::escaped(const char* p, const char* s, TextRef& out,
                                   std::deque<std::string>* arena)
{
    std::string* buf = arena ? &arena->emplace_back(p + 1, s) : nullptr;
    auto hex4 = [&](const char* h, std::uint32_t& cp) -> bool {
        cp = 0;
        for (int i = 0; i < 4; ++i) {
            if (h + i >= m_end) return fail(m_end, kRanOut), false;
            const int v = hexValue(h[i]);
            if (v < 0) return fail(h + i, "an invalid \\u escape"), false;
            cp = cp * 16 + static_cast<std::uint32_t>(v);
        }
        return true;
    };
    while (s < m_end) {
        const auto c = static_cast<unsigned char>(*s);
        if (c == '"') {
            if (buf) {
                out.p = buf->data();
                out.n = static_cast<std::uint32_t>(buf->size());
            } else {
                out.p = p + 1;
                out.n = static_cast<std::uint32_t>(s - (p + 1));
            }
            return s + 1;
        }
        if (c < 0x20) return fail(s, "a control character inside a string");
        if (c >= 0x80) {
            const char* next = utf8(s);
            if (!next) return nullptr;
            if (buf) buf->append(s, next);
            s = next;
            continue;
        }
        if (c != '\\') {
            if (buf) buf->push_back(static_cast<char>(c));
            ++s;
            continue;
        }
        if (++s >= m_end) return fail(m_end, kRanOut);
        char plain = 0;
        switch (*s) {
        case '"':
        case '\\':
        case '/':
            plain = *s;
            break;
        case 'b':
            plain = '\b';
            break;
        case 'f':
            plain = '\f';
            break;
        case 'n':
            plain = '\n';
            break;
        case 'r':
            plain = '\r';
            break;
        case 't':
            plain = '\t';
            break;
        case 'u': {
            std::uint32_t cp;
            if (!hex4(s + 1, cp)) return nullptr;
            s += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                // A high surrogate must be followed by an escaped low one.
                for (int i = 1; i <= 2; ++i) {
                    if (s + i >= m_end) return fail(m_end, kRanOut);
                    if (s[i] != "\\u"[i - 1]) return fail(s + i, "a lone surrogate escape");
                }
                std::uint32_t low;
                if (!hex4(s + 3, low)) return nullptr;
                if (low < 0xDC00 || low > 0xDFFF) return fail(s + 3, "a lone surrogate escape");
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                s += 6;
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return fail(s - 5, "a lone surrogate escape"); // at its backslash
            }
            if (buf) appendUtf8(*buf, cp);
            break;
        }
        default:
            return fail(s, "an invalid escape");
        }
        if (plain && buf) buf->push_back(plain);
        ++s;
    }
    return fail(m_end, kRanOut);
}

// digitsFrom() past its inline first 16 bytes: 16 at a time while the text has them.
const char* JsonTokenizer::digitsScan(const char* s) const
{
#if defined(__SSE2__)
    while (m_end - s >= 16) {
        if (const unsigned other = nonDigits16(s)) return s + __builtin_ctz(other);
        s += 16;
    }
#endif
    while (s < m_end && isDigit(*s))
        ++s;
    return s;
}

// Inlined into both callers (a call here cost 13% more instructions an event).
[[gnu::always_inline]] inline const char* JsonTokenizer::scanNumber(const char* p, NumberText& t)
{
    const char* s = p;
    if (*s == '-') ++s;
    if (s >= m_end) return fail(m_end, kRanOut);
    t.digits = s;
    if (*s == '0') {
        ++s;
    } else if (*s >= '1' && *s <= '9') {
        s = digitsFrom(s + 1);
    } else {
        return fail(s, "an invalid number");
    }
    t.intEnd = s;
    if (s < m_end && *s == '.') {
        if (++s >= m_end) return fail(m_end, kRanOut);
        if (!isDigit(*s)) return fail(s, "an invalid number");
        s = digitsFrom(s + 1);
        t.isFloat = true;
    }
    if (s < m_end && (*s == 'e' || *s == 'E')) {
        t.exponent = t.isFloat = true;
        ++s;
        if (s < m_end && (*s == '+' || *s == '-')) ++s;
        if (s >= m_end) return fail(m_end, kRanOut);
        if (!isDigit(*s)) return fail(s, "an invalid number");
        s = digitsFrom(s + 1);
    }
    // Inside a document a number is always followed by something; at the end it may go on.
    if (s >= m_end) return fail(m_end, kRanOut);
    return s;
}

[[gnu::always_inline]] inline bool JsonTokenizer::overflows(const char* p, const char* end,
                                                            const NumberText& t)
{
    // Only a double can overflow: one with an exponent, or over 300 bytes (an integer too long
    // for 64 bits is a double, and needs over 300 digits to overflow one).
    if ((end - p > 300 || t.exponent) && overflowsDouble(p, end)) {
        fail(p, "a number too large for a double");
        return true;
    }
    return false;
}

const char* JsonTokenizer::number(const char* p, JsonScalar& out)
{
#if defined(__SSE2__) && defined(RS_SWAR_DIGITS)
    // Most numbers (ids, pids, µs times) are up to 15 digits with a plain fraction: found in
    // one 16-byte compare each. Anything else (a leading zero, an exponent, 16 digits or more,
    // near the end) takes scanNumber below, which gives the same answers.
    if (m_end - p >= 34) {
        const char* s = p + (*p == '-');
        const unsigned other = nonDigits16(s);
        const int n = __builtin_ctz(other | 0x10000u);
        const char* e = s + n;
        if (n >= 1 && n <= 15 && (*s != '0' || n == 1) && *e != 'e' && *e != 'E') {
            out.boolean = false;
            if (*e != '.') {
                const std::uint64_t v = swar::digitsValue(s, std::size_t(n));
                out.kind = *p == '-' ? JsonScalar::Int : JsonScalar::UInt;
                out.bits = *p == '-' ? 0 - v : v;
                out.text = {p, static_cast<std::uint32_t>(e - p)};
                return e;
            }
            const int f = __builtin_ctz(nonDigits16(e + 1) | 0x10000u);
            const char* end = e + 1 + f;
            if (f >= 1 && f <= 15 && *end != 'e' && *end != 'E') {
                out.kind = JsonScalar::Float;
                out.bits = 0;
                out.text = {p, static_cast<std::uint32_t>(end - p)};
                return end;
            }
        }
    }
#endif
    NumberText t;
    const char* s = scanNumber(p, t);
    if (!s) return nullptr;
    out.text = {p, static_cast<std::uint32_t>(s - p)};
    out.boolean = false;
    if (!t.isFloat) {
        std::uint64_t v = 0;
        bool overflow = false;
        if (t.intEnd - t.digits <= 19) { // below 10^19 < 2^64: no digit can overflow
            for (const char* d = t.digits; d < t.intEnd; ++d)
                v = v * 10 + static_cast<unsigned>(*d - '0');
        } else {
            for (const char* d = t.digits; d < t.intEnd && !overflow; ++d)
                overflow = __builtin_mul_overflow(v, 10u, &v) ||
                           __builtin_add_overflow(v, static_cast<unsigned>(*d - '0'), &v);
        }
        if (!overflow && *p != '-') {
            out.kind = JsonScalar::UInt;
            out.bits = v;
            return s;
        }
        if (!overflow && v <= (1ull << 63)) {
            out.kind = JsonScalar::Int;
            out.bits = 0 - v;
            return s;
        }
    }
    if (overflows(p, s, t)) return nullptr;
    out.kind = JsonScalar::Float;
    out.bits = 0;
    return s;
}

const char* JsonTokenizer::skipNumber(const char* p)
{
    NumberText t;
    const char* s = scanNumber(p, t);
    return s && !overflows(p, s, t) ? s : nullptr;
}

const char* JsonTokenizer::literal(const char* p, const char* word, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i) {
        if (p + i >= m_end) return fail(m_end, kRanOut);
        if (p[i] != word[i]) return fail(p + i, "an invalid literal");
    }
    return p + n;
}

const char* JsonTokenizer::scalar(const char* p, JsonScalar& out, std::deque<std::string>* arena)
{
    if (p >= m_end) return fail(m_end, kRanOut);
    switch (*p) {
    case '"':
        out.kind = JsonScalar::String;
        out.boolean = false;
        out.bits = 0;
        return string(p, out.text, arena);
    case 't':
        out = JsonScalar{};
        out.kind = JsonScalar::Bool;
        out.boolean = true;
        return literal(p, "true", 4);
    case 'f':
        out = JsonScalar{};
        out.kind = JsonScalar::Bool;
        return literal(p, "false", 5);
    case 'n':
        out = JsonScalar{};
        out.kind = JsonScalar::Null;
        return literal(p, "null", 4);
    default:
        if (*p == '-' || isDigit(*p)) return number(p, out);
        return fail(p, "expected a value");
    }
}

const char* JsonTokenizer::skipValue(const char* p, int depth)
{
    if (p >= m_end) return fail(m_end, kRanOut);
    switch (*p) {
    case '{':
    case '[':
        break;
    case '"': {
        TextRef t;
        return string(p, t, nullptr);
    }
    case 't':
        return literal(p, "true", 4);
    case 'f':
        return literal(p, "false", 5);
    case 'n':
        return literal(p, "null", 4);
    default:
        if (*p == '-' || isDigit(*p)) return skipNumber(p);
        return fail(p, "expected a value");
    }
    if (depth >= kMaxDepth) return fail(p, "nesting deeper than 2048 levels");
    const bool object = *p == '{';
    const char close = object ? '}' : ']';
    p = ws(p + 1);
    if (p < m_end && *p == close) return p + 1;
    for (;;) {
        if (object) {
            TextRef key;
            if (p >= m_end) return fail(m_end, kRanOut);
            if (*p != '"') return fail(p, "expected a string (an object key)");
            if (!(p = string(p, key, nullptr))) return nullptr;
            if (p >= m_end || *p != ':') { // writers put the colon right after the key
                p = ws(p);
                if (p >= m_end) return fail(m_end, kRanOut);
                if (*p != ':') return fail(p, "expected ':' after an object key");
            }
            p = ws(p + 1);
        }
        // The common members without a call: strings and numbers.
        TextRef text;
        if (p < m_end && *p == '"')
            p = string(p, text, nullptr);
        else if (p < m_end && ((*p >= '0' && *p <= '9') || *p == '-'))
            p = skipNumber(p);
        else
            p = skipValue(p, depth + 1);
        if (!p) return nullptr;
        if (p >= m_end || *p != ',') { // most members end with the comma right after them
            p = ws(p);
            if (p >= m_end) return fail(m_end, kRanOut);
        }
        if (*p == ',') {
            p = ws(p + 1);
            continue;
        }
        if (*p == close) return p + 1;
        return fail(p, object ? "expected ',' or '}' after an object member"
                              : "expected ',' or ']' after an array element");
    }
}

const char* JsonTokenizer::skipArgs(const char* p, int depth)
{
#if defined(__SSE2__)
    // 16 bytes a step. A byte is inside a string when an odd number of quotes came before it
    // in the args (a prefix XOR of the quote bits, escaped quotes taken out first). The answer
    // must not depend on where the text ends (a piece of the file) nor on what follows the
    // args: the checks stop at the closing bracket, and the last bytes are read blank-padded.
    const char* s = p;
    unsigned inString = 0;  // all ones while a string runs on from the step before
    unsigned escapedIn = 0; // 1: the step before ended with a backslash (this first byte escaped)
    unsigned closedOn = 0;  // 1: the step before ended with a closing quote
    int open = 0;
    std::uint64_t squares = 0; // bit i: the container i deep opened with '['
    char tail[16];
    while (s < m_end) {
        const char* block = s;
        if (m_end - s < 16) {
            std::memset(tail, ' ', sizeof tail);
            std::memcpy(tail, s, static_cast<std::size_t>(m_end - s));
            block = tail;
        }
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block));
        const __m128i newline = _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'));
        const __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
        const unsigned odd = mask16(_mm_or_si128(backslash, _mm_cmplt_epi8(v, _mm_set1_epi8(' '))));
        const unsigned b = odd ? mask16(backslash) : 0;
        // A backslash escapes the byte after it (a run of two or more: skipValue, below).
        const unsigned escaped = escapedIn | (b << 1);
        const unsigned q = mask16(_mm_cmpeq_epi8(v, _mm_set1_epi8('"'))) & ~escaped;
        unsigned m = q;
        m ^= m << 1;
        m ^= m << 2;
        m ^= m << 4;
        m ^= m << 8;
        m = (m ^ inString) & 0xffffu; // a string's opening quote and text, not its closing one
        const __m128i lower = _mm_or_si128(v, _mm_set1_epi8(0x20)); // '[' ']' as '{' '}'
        const __m128i opens = _mm_cmpeq_epi8(lower, _mm_set1_epi8('{'));
        const __m128i closes = _mm_cmpeq_epi8(lower, _mm_set1_epi8('}'));
        // The brackets outside strings, up to the one that closes the args.
        unsigned upto = 0xffffu; // the bytes of this step that belong to the args
        int closeAt = -1;
        for (unsigned br = mask16(_mm_or_si128(opens, closes)) & ~m; br; br &= br - 1) {
            const int i = __builtin_ctz(br);
            const char c = block[i];
            if (c == '{' || c == '[') {
                if (open >= 64 || depth + open >= kMaxDepth) return skipValue(p, depth);
                squares = (squares & ~(1ull << open)) | (std::uint64_t(c == '[') << open);
                ++open;
            } else {
                if (open == 0 || ((squares >> (open - 1)) & 1u) != (c == ']'))
                    return skipValue(p, depth);
                if (--open == 0) {
                    upto = (2u << i) - 1;
                    closeAt = i;
                    break;
                }
            }
        }
        // Strings plain ASCII with single escapes; outside them no backslash and no control
        // byte but the newline (a tab or CR: skipValue).
        if (odd &&
            ((((b & (b << 1)) | (b & escapedIn) | (odd & ~b & m) | (odd & ~m & ~mask16(newline))) &
              upto)))
            return skipValue(p, depth);
        // A closing quote is followed by a separator: a stray or missing quote (strings paired
        // wrongly) fails this at the first real string, which starts with a letter.
        const unsigned closing = q & ~m;
        if (closing | closedOn) {
            const unsigned sep = mask16(
                _mm_or_si128(_mm_or_si128(_mm_or_si128(opens, closes), newline),
                             _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(':')),
                                                       _mm_cmpeq_epi8(v, _mm_set1_epi8(','))),
                                          _mm_cmpeq_epi8(v, _mm_set1_epi8(' ')))));
            if (((closing & ~(sep >> 1) & 0x7fffu) | (closedOn & ~sep)) & upto)
                return skipValue(p, depth);
            closedOn = closing >> 15;
        }
        if (closeAt >= 0) return s + closeAt + 1;
        escapedIn = escaped >> 16;
        inString = (m >> 15) ? 0xffffu : 0;
        s += 16;
    }
    return fail(m_end, kRanOut);
#else
    return skipValue(p, depth);
#endif
}

const char* JsonTokenizer::stackField(const char* p, TraceEvent& ev, int depth,
                                      std::deque<std::string>* arena)
{
    if (depth >= kMaxDepth) return fail(p, "nesting deeper than 2048 levels");
    p = ws(p + 1);
    if (p < m_end && *p == ']') return p + 1;
    for (;;) {
        if (p >= m_end) return fail(m_end, kRanOut);
        if (*p == '"') {
            TextRef s;
            if (!(p = string(p, s, arena))) return nullptr;
            ev.stack.push_back(s);
        } else {
            if (!(p = skipValue(p, depth + 1))) return nullptr;
            ++ev.badTypes; // a frame that is not a name
        }
        p = ws(p);
        if (p >= m_end) return fail(m_end, kRanOut);
        if (*p == ',') {
            p = ws(p + 1);
            continue;
        }
        if (*p == ']') return p + 1;
        return fail(p, "expected ',' or ']' after an array element");
    }
}

const char* JsonTokenizer::event(const char* p, TraceEvent& ev, int depth,
                                 std::deque<std::string>* arena)
{
    ev.clear();
    if (!arena) {
        if (!ev.arena) ev.arena = std::make_unique<std::deque<std::string>>();
        arena = ev.arena.get();
    }
    ev.offset = offsetOf(p);
    if (depth >= kMaxDepth) return fail(p, "nesting deeper than 2048 levels");
    p = ws(p + 1);
    if (p < m_end && *p == '}') return p + 1;
    for (;;) {
        TextRef key;
        if (p >= m_end) return fail(m_end, kRanOut);
        if (*p != '"') return fail(p, "expected a string (an object key)");
        if (!(p = string(p, key, arena))) return nullptr;
        if (p >= m_end || *p != ':') { // writers put the colon right after the key
            p = ws(p);
            if (p >= m_end) return fail(m_end, kRanOut);
            if (*p != ':') return fail(p, "expected ':' after an object key");
        }
        p = ws(p + 1);
        if (p >= m_end) return fail(m_end, kRanOut);
        const Field f = classify(key.view());
        if (*p == '{' || *p == '[') {
            const char* v = f == Field::Stack && *p == '[' ? stackField(p, ev, depth + 1, arena)
                            : f == Field::Args             ? skipArgs(p, depth + 1)
                                                           : skipValue(p, depth + 1);
            if (!v) return nullptr;
            if (f == Field::Args)
                ev.args = {
                    p, static_cast<std::uint32_t>(std::min<std::ptrdiff_t>(v - p, 0xffffffffll))};
            else if (f != Field::None && !(f == Field::Stack && *p == '['))
                ++ev.badTypes; // a container where a scalar belongs
            p = v;
        } else if (JsonScalar* field = scalarField(ev, f)) {
            // Read straight into the event (every kind, null too, replaces the field).
            if (!(p = scalar(p, *field, arena))) return nullptr;
        } else if (TextRef* text = textField(ev, f); text && *p == '"') {
            if (!(p = string(p, *text, arena))) return nullptr;
        } else if (f == Field::None) {
            if (!(p = skipValue(p, depth + 1))) return nullptr;
        } else {
            JsonScalar v;
            if (!(p = scalar(p, v, arena))) return nullptr;
            switch (f) {
            case Field::Ph:
            case Field::Name:
            case Field::Cat:
            case Field::Bp:
            case Field::Scope:
                stringField(*textField(ev, f), v, ev);
                break;
            case Field::FlowIn:
            case Field::FlowOut:
                (f == Field::FlowIn ? ev.flowIn : ev.flowOut) =
                    v.kind == JsonScalar::Bool && v.boolean;
                ev.badTypes += v.kind != JsonScalar::Bool && v.kind != JsonScalar::Null;
                break;
            case Field::Args:
            case Field::Stack:
                ev.badTypes += v.kind != JsonScalar::Null;
                break;
            default:
                break;
            }
        }
        if (p >= m_end || *p != ',') { // most members end with the comma right after them
            p = ws(p);
            if (p >= m_end) return fail(m_end, kRanOut);
        }
        if (*p == ',') {
            p = ws(p + 1);
            continue;
        }
        if (*p == '}') return p + 1;
        return fail(p, "expected ',' or '}' after an object member");
    }
}

std::string JsonTokenizer::errorText() const
{
    std::string s = m_errorWhat ? m_errorWhat : "invalid JSON";
    if (!m_errorAt || m_errorAt >= m_end) return s + " (the text ends there)";
    const auto c = static_cast<unsigned char>(*m_errorAt);
    char buf[16];
    if (c >= 0x20 && c < 0x7f)
        std::snprintf(buf, sizeof buf, "'%c'", c);
    else
        std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
    return s + ", found " + buf;
}

} // namespace rs
