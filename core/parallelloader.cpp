#include "core/parallelloader.h"

#include "core/bytesource.h"
#include "core/rawevent.h"
#include "core/tracebuilder.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rs {

namespace {

// Deeper documents go to the SAX path (which allows 2048 levels and names the error).
constexpr int kMaxDepth = 512;
// Tokenized chunks allowed ahead of the builder: bounds the memory of parsed events.
constexpr std::size_t kAhead = 3;

struct TextRef {
    const char* p = nullptr;
    std::uint32_t n = 0;
};

// A scalar as the SAX reader would store it into a RawValue.
struct Scalar {
    RawValue::Kind kind = RawValue::Absent;
    bool boolean = false;
    std::uint64_t bits = 0; // the integer (Int: two's complement)
    TextRef text;           // Float: digits as written; String: the decoded string
};

// One event, tokenized: views into the file (or into the chunk's arena for strings with
// escapes), so a chunk costs no per-field allocation.
struct CEvent {
    std::uint64_t offset = 0;
    TextRef ph, name, cat, bp, scope, args;
    Scalar ts, dur, pid, tid, id, bindId, sf, tts;
    std::uint32_t stackBegin = 0, stackCount = 0;
    std::uint32_t nameSlot = 0, catSlot = 0; // into ChunkOut::strings
    std::int64_t tsNs = 0, durNs = 0;        // see ValueView::nsState
    std::uint8_t tsState = 0, durState = 0;
    bool flowIn = false, flowOut = false;
};

// Distinct name/cat texts of a chunk, numbered on the tokenizer's thread so the builder
// interns each once per chunk instead of once per event.
struct LocalStrings {
    std::vector<TextRef> texts;
    std::vector<std::uint64_t> hashes;
    std::vector<std::uint32_t> table; // open addressing: index + 1, 0 empty; a power of two
    std::vector<std::uint32_t> cache; // the builder's StrId per text (EventView::internCache)

    void clear()
    {
        texts.clear();
        hashes.clear();
        if (table.empty()) table.resize(1024);
        std::fill(table.begin(), table.end(), 0u);
    }

    std::uint32_t add(const TextRef& t)
    {
        const std::string_view v(t.p ? t.p : "", t.n);
        const std::uint64_t h = std::hash<std::string_view>{}(v);
        std::size_t mask = table.size() - 1;
        std::size_t i = h & mask;
        for (; table[i] != 0; i = (i + 1) & mask) {
            const std::uint32_t k = table[i] - 1;
            if (hashes[k] == h && std::string_view(texts[k].p ? texts[k].p : "", texts[k].n) == v)
                return k;
        }
        const auto k = static_cast<std::uint32_t>(texts.size());
        texts.push_back(t);
        hashes.push_back(h);
        table[i] = k + 1;
        if (texts.size() * 2 > table.size()) {
            table.assign(table.size() * 2, 0u);
            mask = table.size() - 1;
            for (std::uint32_t j = 0; j < texts.size(); ++j) {
                std::size_t x = hashes[j] & mask;
                while (table[x] != 0)
                    x = (x + 1) & mask;
                table[x] = j + 1;
            }
        }
        return k;
    }
};

struct ChunkOut {
    std::vector<CEvent> events;
    std::vector<TextRef> stacks;
    std::deque<std::string> arena; // decoded strings; deque keeps their addresses stable
    LocalStrings strings;
    std::uint64_t end = 0; // where the next event starts, or the array's ']'
    bool arrayEnded = false;
    bool ok = true;
};

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
    Tts,
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
        if (k == "tts") return Field::Tts;
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

inline std::uint64_t hasZeroByte(std::uint64_t v)
{
    return (v - 0x0101010101010101ull) & ~v & 0x8080808080808080ull;
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

// A strict JSON tokenizer over contiguous bytes. It accepts exactly what nlohmann's strict
// parser accepts (RFC 8259: UTF-8 checked, no comments, finite numbers); where it fails, the
// caller falls back to the SAX path, so error messages come from one place.
class Tokenizer {
public:
    Tokenizer(const char* base, const char* end) : m_base(base), m_end(end) {}

    const char* ws(const char* p) const
    {
        while (p < m_end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
            ++p;
        return p;
    }

    // p at the opening quote; returns past the closing quote or nullptr. With an arena,
    // a string with escapes is decoded into it; without, it is only checked.
    const char* string(const char* p, TextRef& out, std::deque<std::string>* arena) const
    {
        const char* s = p + 1;
        for (;;) {
            while (s + 8 <= m_end) {
                std::uint64_t x;
                std::memcpy(&x, s, 8);
                const std::uint64_t special = hasZeroByte(x ^ 0x2222222222222222ull) |
                                              hasZeroByte(x ^ 0x5c5c5c5c5c5c5c5cull) |
                                              ((x - 0x2020202020202020ull) & ~x) |
                                              (x & 0x8080808080808080ull);
                if (special & 0x8080808080808080ull) break;
                s += 8;
            }
            if (s >= m_end) return nullptr;
            const auto c = static_cast<unsigned char>(*s);
            if (c == '"') {
                out.p = p + 1;
                out.n = static_cast<std::uint32_t>(s - (p + 1));
                return s + 1;
            }
            if (c == '\\') return escaped(p, s, out, arena);
            if (c < 0x20) return nullptr;
            if (c >= 0x80) {
                s = utf8(s);
                if (!s) return nullptr;
            } else {
                ++s;
            }
        }
    }

    // A number; Int/UInt/Float exactly as nlohmann classifies them.
    const char* number(const char* p, Scalar& out) const
    {
        const char* s = p;
        const bool neg = *s == '-';
        if (neg) ++s;
        if (s >= m_end) return nullptr;
        const char* digits = s;
        if (*s == '0') {
            ++s;
        } else if (*s >= '1' && *s <= '9') {
            while (s < m_end && *s >= '0' && *s <= '9')
                ++s;
        } else {
            return nullptr;
        }
        const char* intEnd = s;
        bool isFloat = false, exp = false;
        if (s < m_end && *s == '.') {
            ++s;
            if (s >= m_end || *s < '0' || *s > '9') return nullptr;
            while (s < m_end && *s >= '0' && *s <= '9')
                ++s;
            isFloat = true;
        }
        if (s < m_end && (*s == 'e' || *s == 'E')) {
            ++s;
            if (s < m_end && (*s == '+' || *s == '-')) ++s;
            if (s >= m_end || *s < '0' || *s > '9') return nullptr;
            while (s < m_end && *s >= '0' && *s <= '9')
                ++s;
            isFloat = exp = true;
        }
        out.text = {p, static_cast<std::uint32_t>(s - p)};
        out.boolean = false;
        if (!isFloat) {
            std::uint64_t v = 0;
            bool overflow = false;
            for (const char* d = digits; d < intEnd; ++d) {
                if (__builtin_mul_overflow(v, 10u, &v) ||
                    __builtin_add_overflow(v, static_cast<unsigned>(*d - '0'), &v)) {
                    overflow = true;
                    break;
                }
            }
            if (!overflow && !neg) {
                out.kind = RawValue::UInt;
                out.bits = v;
                return s;
            }
            if (!overflow && v <= (1ull << 63)) {
                out.kind = RawValue::Int;
                out.bits = 0 - v;
                return s;
            }
        }
        // A double; nlohmann rejects one that overflows to infinity.
        if (exp || s - p > 300) {
            const std::string text(p, s);
            if (!std::isfinite(std::strtod(text.c_str(), nullptr))) return nullptr;
        }
        out.kind = RawValue::Float;
        out.bits = 0;
        return s;
    }

    const char* literal(const char* p, const char* word, std::size_t n) const
    {
        if (static_cast<std::size_t>(m_end - p) < n || std::memcmp(p, word, n) != 0) return nullptr;
        return p + n;
    }

    const char* scalar(const char* p, Scalar& out, std::deque<std::string>* arena) const
    {
        switch (*p) {
        case '"':
            out.kind = RawValue::String;
            out.boolean = false;
            out.bits = 0;
            return string(p, out.text, arena);
        case 't':
            out = Scalar{RawValue::Bool, true, 0, {}};
            return literal(p, "true", 4);
        case 'f':
            out = Scalar{RawValue::Bool, false, 0, {}};
            return literal(p, "false", 5);
        case 'n':
            out = Scalar{RawValue::Null, false, 0, {}};
            return literal(p, "null", 4);
        default:
            if (*p == '-' || (*p >= '0' && *p <= '9')) return number(p, out);
            return nullptr;
        }
    }

    // Checks any value and returns past it.
    const char* skipValue(const char* p, int depth) const
    {
        if (p >= m_end) return nullptr;
        if (*p == '{' || *p == '[') {
            if (depth >= kMaxDepth) return nullptr;
            const bool object = *p == '{';
            const char close = object ? '}' : ']';
            p = ws(p + 1);
            if (p < m_end && *p == close) return p + 1;
            for (;;) {
                if (object) {
                    TextRef key;
                    if (p >= m_end || *p != '"' || !(p = string(p, key, nullptr))) return nullptr;
                    p = ws(p);
                    if (p >= m_end || *p != ':') return nullptr;
                    p = ws(p + 1);
                }
                p = skipValue(p, depth + 1);
                if (!p) return nullptr;
                p = ws(p);
                if (p >= m_end) return nullptr;
                if (*p == ',') {
                    p = ws(p + 1);
                    continue;
                }
                if (*p == close) return p + 1;
                return nullptr;
            }
        }
        Scalar s;
        return scalar(p, s, nullptr);
    }

    // Events from start while they begin before target; see ChunkOut.
    void chunk(std::uint64_t start, std::uint64_t target, ChunkOut& out) const
    {
        out.events.clear();
        out.stacks.clear();
        out.arena.clear();
        out.strings.clear();
        out.arrayEnded = false;
        out.ok = false;
        const char* p = m_base + start;
        for (;;) {
            if (p >= m_end || *p != '{') return; // a non-object entry: the SAX path warns about it
            CEvent& ev = out.events.emplace_back();
            p = event(p, ev, out);
            if (!p) return;
            prepare(ev, out);
            p = ws(p);
            if (p >= m_end) return;
            if (*p == ',') {
                p = ws(p + 1);
                if (static_cast<std::uint64_t>(p - m_base) >= target) {
                    out.end = static_cast<std::uint64_t>(p - m_base);
                    out.ok = true;
                    return;
                }
                continue;
            }
            if (*p == ']') {
                out.end = static_cast<std::uint64_t>(p - m_base);
                out.arrayEnded = true;
                out.ok = true;
            }
            return;
        }
    }

private:
    // Work done here, on the tokenizer's thread, that the builder would otherwise do.
    static void prepare(CEvent& ev, ChunkOut& out)
    {
        ev.nameSlot = out.strings.add(ev.name);
        ev.catSlot = out.strings.add(ev.cat);
        auto convert = [](const Scalar& v, std::int64_t& ns, std::uint8_t& state) {
            if (v.kind != RawValue::Float && v.kind != RawValue::String) return;
            const auto r = parseMicrosToNs(std::string_view(v.text.p ? v.text.p : "", v.text.n));
            state = r ? 1 : 2;
            ns = r.value_or(0);
        };
        convert(ev.ts, ev.tsNs, ev.tsState);
        convert(ev.dur, ev.durNs, ev.durState);
    }

    // Validates one UTF-8 sequence (the ranges of RFC 3629, as nlohmann checks them).
    const char* utf8(const char* s) const
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
            return nullptr;
        }
        if (m_end - s <= n) return nullptr;
        for (int i = 1; i <= n; ++i) {
            const auto b = static_cast<unsigned char>(s[i]);
            if (b < lo || b > hi) return nullptr;
            lo = 0x80;
            hi = 0xBF;
        }
        return s + n + 1;
    }

    // The slow path of string(): s at the first backslash.
    const char* escaped(const char* p, const char* s, TextRef& out,
                        std::deque<std::string>* arena) const
    {
        std::string scratch;
        std::string& buf = arena ? arena->emplace_back() : scratch;
        buf.assign(p + 1, s);
        while (s < m_end) {
            const auto c = static_cast<unsigned char>(*s);
            if (c == '"') {
                out.p = buf.data();
                out.n = static_cast<std::uint32_t>(buf.size());
                return s + 1;
            }
            if (c < 0x20) return nullptr;
            if (c >= 0x80) {
                const char* next = utf8(s);
                if (!next) return nullptr;
                buf.append(s, next);
                s = next;
                continue;
            }
            if (c != '\\') {
                buf.push_back(static_cast<char>(c));
                ++s;
                continue;
            }
            if (++s >= m_end) return nullptr;
            switch (*s) {
            case '"':
            case '\\':
            case '/':
                buf.push_back(*s);
                break;
            case 'b':
                buf.push_back('\b');
                break;
            case 'f':
                buf.push_back('\f');
                break;
            case 'n':
                buf.push_back('\n');
                break;
            case 'r':
                buf.push_back('\r');
                break;
            case 't':
                buf.push_back('\t');
                break;
            case 'u': {
                std::uint32_t cp;
                if (!hex4(s + 1, cp)) return nullptr;
                s += 4;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    std::uint32_t lowPart;
                    if (m_end - s < 7 || s[1] != '\\' || s[2] != 'u' || !hex4(s + 3, lowPart) ||
                        lowPart < 0xDC00 || lowPart > 0xDFFF)
                        return nullptr;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lowPart - 0xDC00);
                    s += 6;
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    return nullptr;
                }
                appendUtf8(buf, cp);
                break;
            }
            default:
                return nullptr;
            }
            ++s;
        }
        return nullptr;
    }

    bool hex4(const char* s, std::uint32_t& cp) const
    {
        if (m_end - s < 4) return false;
        cp = 0;
        for (int i = 0; i < 4; ++i) {
            const int h = hexValue(s[i]);
            if (h < 0) return false;
            cp = cp * 16 + static_cast<std::uint32_t>(h);
        }
        return true;
    }

    // Text for a string field as the SAX reader stores it ("-0" is the integer 0).
    static void strField(TextRef& field, const Scalar& v, ChunkOut& out)
    {
        switch (v.kind) {
        case RawValue::String:
        case RawValue::Float:
        case RawValue::UInt:
            field = v.text;
            break;
        case RawValue::Int:
            if (v.bits == 0) {
                const std::string& zero = out.arena.emplace_back("0");
                field = {zero.data(), 1};
            } else {
                field = v.text;
            }
            break;
        default:
            break; // null and booleans leave the field as it was
        }
    }

    const char* stack(const char* p, CEvent& ev, ChunkOut& out) const
    {
        p = ws(p + 1);
        if (p < m_end && *p == ']') return p + 1;
        for (;;) {
            if (p >= m_end) return nullptr;
            if (*p == '"') {
                TextRef s;
                if (!(p = string(p, s, &out.arena))) return nullptr;
                if (ev.stackCount == 0)
                    ev.stackBegin = static_cast<std::uint32_t>(out.stacks.size());
                out.stacks.push_back(s);
                ++ev.stackCount;
            } else if (!(p = skipValue(p, 4))) {
                return nullptr;
            }
            p = ws(p);
            if (p >= m_end) return nullptr;
            if (*p == ',') {
                p = ws(p + 1);
                continue;
            }
            return *p == ']' ? p + 1 : nullptr;
        }
    }

    const char* event(const char* p, CEvent& ev, ChunkOut& out) const
    {
        ev.offset = static_cast<std::uint64_t>(p - m_base);
        p = ws(p + 1);
        if (p < m_end && *p == '}') return p + 1;
        for (;;) {
            TextRef key;
            if (p >= m_end || *p != '"' || !(p = string(p, key, &out.arena))) return nullptr;
            p = ws(p);
            if (p >= m_end || *p != ':') return nullptr;
            p = ws(p + 1);
            if (p >= m_end) return nullptr;
            const Field f = classify(std::string_view(key.p, key.n));
            if (*p == '{' || *p == '[') {
                if (f == Field::Stack && *p == '[') {
                    p = stack(p, ev, out);
                } else {
                    const char* v = skipValue(p, 3);
                    if (v && f == Field::Args) ev.args = {p, static_cast<std::uint32_t>(v - p)};
                    p = v;
                }
            } else {
                Scalar v;
                p = scalar(p, v, &out.arena);
                switch (f) {
                case Field::Ph:
                    strField(ev.ph, v, out);
                    break;
                case Field::Name:
                    strField(ev.name, v, out);
                    break;
                case Field::Cat:
                    strField(ev.cat, v, out);
                    break;
                case Field::Bp:
                    strField(ev.bp, v, out);
                    break;
                case Field::Scope:
                    strField(ev.scope, v, out);
                    break;
                case Field::Ts:
                    ev.ts = v;
                    break;
                case Field::Dur:
                    ev.dur = v;
                    break;
                case Field::Pid:
                    ev.pid = v;
                    break;
                case Field::Tid:
                    ev.tid = v;
                    break;
                case Field::Id:
                    ev.id = v;
                    break;
                case Field::BindId:
                    ev.bindId = v;
                    break;
                case Field::Sf:
                    ev.sf = v;
                    break;
                case Field::Tts:
                    ev.tts = v;
                    break;
                case Field::FlowIn:
                    ev.flowIn = v.kind == RawValue::Bool && v.boolean;
                    break;
                case Field::FlowOut:
                    ev.flowOut = v.kind == RawValue::Bool && v.boolean;
                    break;
                default:
                    break;
                }
            }
            if (!p) return nullptr;
            p = ws(p);
            if (p >= m_end) return nullptr;
            if (*p == ',') {
                p = ws(p + 1);
                continue;
            }
            return *p == '}' ? p + 1 : nullptr;
        }
    }

    const char* m_base;
    const char* m_end;
};

std::string_view viewOf(const TextRef& r)
{
    return r.p ? std::string_view(r.p, r.n) : std::string_view();
}

// A scalar exactly as the SAX reader would store it into a RawValue, viewed.
ValueView viewOf(const Scalar& s)
{
    ValueView v;
    if (s.kind == RawValue::Absent) return v;
    v.kind = s.kind;
    v.boolean = s.boolean;
    v.i =
        s.kind == RawValue::Int || s.kind == RawValue::UInt ? static_cast<std::int64_t>(s.bits) : 0;
    v.u = s.kind == RawValue::UInt ? s.bits : 0;
    if (s.kind == RawValue::Float || s.kind == RawValue::String) v.text = viewOf(s.text);
    return v;
}

// The event boundary at or after `from` that looks like "}" ws "," ws "{"; a guess that the
// builder checks against where the previous chunk really ended.
std::uint64_t findBoundary(const char* base, std::uint64_t size, std::uint64_t from)
{
    const char* end = base + size;
    const char* p = base + from;
    while (p < end) {
        p = static_cast<const char*>(std::memchr(p, '}', static_cast<std::size_t>(end - p)));
        if (!p) return size;
        const char* q = p + 1;
        while (q < end && (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t'))
            ++q;
        if (q < end && *q == ',') {
            ++q;
            while (q < end && (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t'))
                ++q;
            if (q < end && *q == '{') return static_cast<std::uint64_t>(q - base);
        }
        p = p + 1;
    }
    return size;
}

// Progress in file bytes for text offsets: identity for plain files; for gzip the text maps
// onto [base, base + span) of the compressed file.
struct ProgressMap {
    std::uint64_t base = 0, span = 0;
};

struct Chunk {
    std::uint64_t start = 0, target = 0;
    std::unique_ptr<ChunkOut> out; // from the pool while tokenized and not yet built
    bool ready = false;
};

class ParallelLoad {
public:
    ParallelLoad(const char* data, std::size_t size, bool mapped, const std::string& name,
                 std::optional<int> rank, const LoadOptions& options, LoadProgress* progress,
                 const ParallelOptions& parallel)
        : m_data(data), m_size(size), m_mapped(mapped), m_name(name), m_options(options),
          m_progress(progress), m_parallel(parallel), m_tok(data, data + size)
    {
        m_builder.setPath(name);
        if (rank) m_builder.setRank(*rank);
        m_builder.setFallbackRank(options.rankHint);
        m_budget = options.maxMemoryBytes ? options.maxMemoryBytes : defaultMemoryBudget();
    }

    ~ParallelLoad() { stopHelpers(); }

    static double threadCpu()
    {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
    }
    double m_t0 = threadCpu();

    std::optional<LoadResult> run()
    {
        // The SAX path stops reading at the budget ("larger than the memory budget").
        if (m_size >= m_budget) return std::nullopt;
        const char* p = m_tok.ws(m_data);
        const char* end = m_data + m_size;
        if (m_size >= 3 && static_cast<unsigned char>(m_data[0]) == 0xEF)
            return std::nullopt; // a BOM: rare, leave it to the SAX path
        if (p >= end) return std::nullopt;
        bool sawEvents = false;
        if (*p == '[') {
            p = events(p);
            if (!p) return std::nullopt;
            sawEvents = true;
        } else if (*p == '{') {
            p = m_tok.ws(p + 1);
            if (p < end && *p == '}') return std::nullopt;
            for (;;) {
                TextRef key;
                std::deque<std::string> arena;
                if (p >= end || *p != '"' || !(p = m_tok.string(p, key, &arena)))
                    return std::nullopt;
                p = m_tok.ws(p);
                if (p >= end || *p != ':') return std::nullopt;
                p = m_tok.ws(p + 1);
                if (p >= end) return std::nullopt;
                const std::string k(key.p, key.n);
                if (k == "traceEvents" && *p == '[' && !sawEvents) {
                    p = events(p);
                    if (!p) return std::nullopt;
                    sawEvents = true;
                } else if (k == "traceEvents") {
                    return std::nullopt;
                } else {
                    const char* v = m_tok.skipValue(p, 1);
                    if (!v) return std::nullopt;
                    m_builder.addMetadata(k, nlohmann::json::parse(p, v, nullptr, false));
                    p = v;
                }
                p = m_tok.ws(p);
                if (p < end && *p == ',') {
                    p = m_tok.ws(p + 1);
                    continue;
                }
                if (p < end && *p == '}') {
                    ++p;
                    break;
                }
                return std::nullopt;
            }
        } else {
            return std::nullopt;
        }
        if (!sawEvents || m_tok.ws(p) != end || m_builder.eventCount() == 0) return std::nullopt;
        if (cancelled()) return cancelledResult();
        m_builder.setBytesRead(m_size);
        if (m_progress) m_progress->done.store(fileBytes(m_size)); // trailing blanks are read too
        LoadResult r;
        r.resolvedPath = m_name;
        const double t1 = threadCpu();
        r.trace = m_builder.finish();
        if (std::getenv("RS_LOAD_PROFILE"))
            std::fprintf(stderr, "profile: main thread cpu events %.3f s, finish %.3f s\n",
                         t1 - m_t0, threadCpu() - t1);
        r.status = LoadStatus::Complete;
        r.warnings = r.trace->warnings();
        return r;
    }

    bool wasCancelled() const { return m_cancelled; }
    void setProgressMap(ProgressMap map) { m_progressMap = map; }
    LoadResult cancelledResult() const
    {
        LoadResult r;
        r.resolvedPath = m_name;
        r.stop = LoadStop::Cancelled;
        r.message = "loading was cancelled";
        return r;
    }

private:
    std::uint64_t fileBytes(std::uint64_t textOffset) const
    {
        if (!m_progressMap.span) return textOffset;
        return m_progressMap.base +
               static_cast<std::uint64_t>(static_cast<double>(m_progressMap.span) *
                                          static_cast<double>(textOffset) /
                                          static_cast<double>(std::max<std::size_t>(m_size, 1)));
    }

    bool cancelled()
    {
        if (m_progress && m_progress->cancel.load(std::memory_order_relaxed)) m_cancelled = true;
        return m_cancelled;
    }

    // p at the events array's '['; returns past its ']' or nullptr (fall back).
    const char* events(const char* p)
    {
        const char* end = m_data + m_size;
        p = m_tok.ws(p + 1);
        if (p >= end || *p != '{') return nullptr; // empty array or a non-object first entry
        const auto first = static_cast<std::uint64_t>(p - m_data);
        const std::size_t step = std::max<std::size_t>(m_parallel.chunkBytes, 64);
        m_chunks.clear();
        std::uint64_t start = first;
        for (;;) {
            Chunk c;
            c.start = start;
            m_chunks.push_back(std::move(c));
            if (m_size - start <= step) break;
            const std::uint64_t next = findBoundary(m_data, m_size, start + step);
            if (next >= m_size) break;
            start = next;
        }
        for (std::size_t i = 0; i < m_chunks.size(); ++i)
            m_chunks[i].target = i + 1 < m_chunks.size() ? m_chunks[i + 1].start : ~0ull;
        startHelpers();

        std::uint64_t expected = first;
        bool ended = false;
        std::uint64_t released = 0;
        ChunkOut redo;
        for (std::size_t k = 0; k < m_chunks.size() && !ended; ++k) {
            waitReady(k);
            Chunk& c = m_chunks[k];
            ChunkOut* use = c.out.get();
            if (c.start != expected) {
                if (expected >= c.target) {
                    finishChunk(k);
                    continue; // the previous chunk ran past this one's guessed start
                }
                m_tok.chunk(expected, c.target, redo); // the guess was inside a value
                use = &redo;
            }
            if (cancelled() || !use->ok) { // a helper that saw the cancel marks its chunk bad
                stopHelpers();
                return nullptr;
            }
            build(*use);
            expected = use->end;
            ended = use->arrayEnded;
            finishChunk(k);
            if (m_progress) m_progress->done.store(fileBytes(expected), std::memory_order_relaxed);
            if (m_mapped) {
                // The bytes behind the builder are not needed again: drop them from RSS.
                const std::uint64_t page = 4096;
                const std::uint64_t upTo = expected / page * page;
                if (upTo > released) {
                    ::madvise(const_cast<char*>(m_data + released), upTo - released, MADV_DONTNEED);
                    released = upTo;
                }
            }
            if (overBudget(expected)) {
                stopHelpers();
                return nullptr;
            }
        }
        stopHelpers();
        if (!ended) return nullptr;
        return m_data + expected + 1;
    }

    // The SAX path's budget rule; when it trips, that path runs again and says so.
    bool overBudget(std::uint64_t done) const
    {
        const std::uint64_t est = m_builder.estimatedPeakBytes();
        const double share =
            static_cast<double>(done) / static_cast<double>(std::max<std::size_t>(m_size, 1));
        const auto projected =
            static_cast<std::uint64_t>(static_cast<double>(est) / std::max(share, 1e-6));
        return est > m_budget || (done >= (1u << 20) && projected > m_budget);
    }

    // Views into the file and the chunk: no copies on the builder's thread.
    void build(ChunkOut& out)
    {
        out.strings.cache.assign(out.strings.texts.size(), kNone);
        for (const CEvent& c : out.events) {
            EventView ev;
            ev.offset = c.offset;
            ev.ph = viewOf(c.ph);
            ev.name = viewOf(c.name);
            ev.cat = viewOf(c.cat);
            ev.bp = viewOf(c.bp);
            ev.scope = viewOf(c.scope);
            ev.argsText = viewOf(c.args);
            ev.ts = viewOf(c.ts);
            ev.ts.nsState = c.tsState;
            ev.ts.ns = c.tsNs;
            ev.dur = viewOf(c.dur);
            ev.dur.nsState = c.durState;
            ev.dur.ns = c.durNs;
            ev.pid = viewOf(c.pid);
            ev.tid = viewOf(c.tid);
            ev.id = viewOf(c.id);
            ev.bindId = viewOf(c.bindId);
            ev.sf = viewOf(c.sf);
            ev.tts = viewOf(c.tts);
            ev.flowIn = c.flowIn;
            ev.flowOut = c.flowOut;
            if (c.stackCount) {
                m_stack.clear();
                for (std::uint32_t i = 0; i < c.stackCount; ++i)
                    m_stack.push_back(viewOf(out.stacks[c.stackBegin + i]));
                ev.stack = m_stack.data();
                ev.stackSize = c.stackCount;
            }
            ev.internCache = out.strings.cache.data();
            ev.nameSlot = c.nameSlot;
            ev.catSlot = c.catSlot;
            m_builder.addEvent(ev);
        }
    }

    // --- threads ---------------------------------------------------------------------------
    void startHelpers()
    {
        int threads = m_parallel.threads;
        if (threads <= 0)
            threads =
                static_cast<int>(std::min(2u, std::max(1u, std::thread::hardware_concurrency())));
        m_next = 0;
        m_built = 0;
        m_stop = false;
        for (int i = 1; i < threads && m_chunks.size() > 1; ++i)
            m_helpers.emplace_back([this] { helperLoop(); });
    }

    void stopHelpers()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_cv.notify_all();
        for (std::thread& t : m_helpers)
            t.join();
        m_helpers.clear();
    }

    void tokenize(std::size_t i)
    {
        std::unique_ptr<ChunkOut> out;
        {
            std::lock_guard lock(m_mutex);
            if (m_pool.empty()) {
                out = std::make_unique<ChunkOut>();
            } else {
                out = std::move(m_pool.back());
                m_pool.pop_back();
            }
        }
        m_tok.chunk(m_chunks[i].start, m_chunks[i].target, *out);
        std::lock_guard lock(m_mutex);
        m_chunks[i].out = std::move(out);
        m_chunks[i].ready = true;
        m_cv.notify_all();
    }

    void helperLoop()
    {
        for (;;) {
            std::size_t i;
            {
                std::unique_lock lock(m_mutex);
                m_cv.wait(lock, [&] {
                    return m_stop || m_next >= m_chunks.size() || m_next < m_built + kAhead;
                });
                if (m_stop || m_next >= m_chunks.size()) return;
                i = m_next++;
            }
            if (m_progress && m_progress->cancel.load(std::memory_order_relaxed)) {
                std::lock_guard lock(m_mutex);
                m_chunks[i].out = std::make_unique<ChunkOut>();
                m_chunks[i].out->ok = false;
                m_chunks[i].ready = true;
                m_cv.notify_all();
                continue;
            }
            tokenize(i);
        }
    }

    // Waits for chunk k, tokenizing chunks itself while it waits.
    void waitReady(std::size_t k)
    {
        std::unique_lock lock(m_mutex);
        while (!m_chunks[k].ready) {
            if (m_next < m_chunks.size() && m_next < m_built + kAhead) {
                const std::size_t j = m_next++;
                lock.unlock();
                tokenize(j);
                lock.lock();
            } else {
                m_cv.wait(lock);
            }
        }
    }

    void finishChunk(std::size_t k)
    {
        {
            // Buffers go back to the pool with their capacity: reused, not faulted in again.
            std::lock_guard lock(m_mutex);
            if (m_chunks[k].out) m_pool.push_back(std::move(m_chunks[k].out));
            m_built = k + 1;
        }
        m_cv.notify_all();
    }

    const char* m_data;
    std::size_t m_size;
    bool m_mapped;
    std::string m_name;
    LoadOptions m_options;
    LoadProgress* m_progress;
    ParallelOptions m_parallel;
    Tokenizer m_tok;
    TraceBuilder m_builder;
    std::vector<std::string_view> m_stack;
    std::uint64_t m_budget = 0;
    bool m_cancelled = false;
    ProgressMap m_progressMap;

    std::vector<Chunk> m_chunks;
    std::vector<std::unique_ptr<ChunkOut>> m_pool;
    std::vector<std::thread> m_helpers;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::size_t m_next = 0, m_built = 0;
    bool m_stop = false;
};

std::optional<LoadResult> runParallel(const char* data, std::size_t size, bool mapped,
                                      const std::string& name, std::optional<int> rank,
                                      const LoadOptions& options, LoadProgress* progress,
                                      const ParallelOptions& parallel, ProgressMap map = {})
{
    ParallelLoad load(data, size, mapped, name, rank, options, progress, parallel);
    load.setProgressMap(map);
    std::optional<LoadResult> r = load.run();
    if (!r && load.wasCancelled()) return load.cancelledResult();
    return r;
}

// gzip cannot be split: it is inflated first (through ByteSource, so the bytes are exactly
// what the SAX path reads) into an anonymous mapping, then loaded from memory like a plain
// file, its pages dropped behind the builder. Anything odd in the gzip stream (corrupt,
// truncated, past the memory budget) goes to the SAX path, which reports it.
std::optional<LoadResult> loadGzip(const std::string& file, std::optional<int> rank,
                                   const LoadOptions& options, LoadProgress* progress,
                                   const ParallelOptions& parallel)
{
    std::string error;
    auto src = ByteSource::open(file, &error);
    if (!src) return std::nullopt;
    const std::uint64_t budget =
        options.maxMemoryBytes ? options.maxMemoryBytes : defaultMemoryBudget();
    // Address space only: pages are committed as the text is written. The text sits beside
    // the model it becomes (the budget counts only the model), so it may take a quarter of the
    // budget; a larger text streams through the SAX path instead, which never holds it.
    const auto cap = static_cast<std::size_t>(budget / 4);
    void* map = ::mmap(nullptr, cap, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED) return std::nullopt;
    char* data = static_cast<char*>(map);
    const std::uint64_t total = src->fileSize();
    if (progress) progress->total.store(total);
    std::size_t size = 0;
    bool cancelled = false;
    for (;;) {
        const std::size_t want = std::min<std::size_t>(4u << 20, cap - size);
        const std::size_t got = want ? src->read(data + size, want) : 0;
        size += got;
        if (got < want || want == 0) break;
        if (progress) {
            // Inflating is the first half of the bar, loading the second.
            progress->done.store(src->fileBytesRead() / 2, std::memory_order_relaxed);
            if (progress->cancel.load(std::memory_order_relaxed)) {
                cancelled = true;
                break;
            }
        }
    }
    std::optional<LoadResult> r;
    if (cancelled) {
        r = LoadResult{};
        r->resolvedPath = file;
        r->stop = LoadStop::Cancelled;
        r->message = "loading was cancelled";
    } else if (src->error().empty() && src->exhausted() && size < cap && size >= 2) {
        r = runParallel(data, size, true, file, rank, options, progress, parallel,
                        ProgressMap{total / 2, total - total / 2});
    }
    ::munmap(map, cap);
    if (!r && progress) progress->done.store(0);
    return r;
}

} // namespace

bool parallelLoaderEnabled()
{
    const char* v = std::getenv("RINGSCOPE_LOADER");
    return !(v && std::strcmp(v, "sax") == 0);
}

std::optional<LoadResult> loadTraceParallel(const std::string& file, std::optional<int> rank,
                                            const LoadOptions& options, LoadProgress* progress,
                                            const ParallelOptions& parallel)
{
    if (!parallelLoaderEnabled()) return std::nullopt;
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return std::nullopt;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 2) {
        ::close(fd);
        return std::nullopt;
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    unsigned char magic[2] = {0, 0};
    if (::pread(fd, magic, 2, 0) != 2) {
        ::close(fd);
        return std::nullopt;
    }
    if (magic[0] == 0x1f && magic[1] == 0x8b) {
        ::close(fd);
        return loadGzip(file, rank, options, progress, parallel);
    }
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED) return std::nullopt;
    ::madvise(map, size, MADV_SEQUENTIAL);
    if (progress) progress->total.store(size);
    std::optional<LoadResult> r = runParallel(static_cast<const char*>(map), size, true, file, rank,
                                              options, progress, parallel);
    ::munmap(map, size);
    if (!r && progress) progress->done.store(0);
    return r;
}

std::optional<LoadResult> loadTraceParallelFromMemory(const char* data, std::size_t size,
                                                      const std::string& name,
                                                      const LoadOptions& options,
                                                      const ParallelOptions& parallel)
{
    if (!parallelLoaderEnabled() || size < 2) return std::nullopt;
    return runParallel(data, size, false, name, std::nullopt, options, nullptr, parallel);
}

} // namespace rs
