#pragma once

// A JSON document read in one pass with the project's tokenizer (core/jsontokenizer.h) straight
// into structs, without building a document: the reader of the rank summaries, driven by the
// field tables (core/fieldtable.h). A field of the wrong JSON type is counted under its path
// ("collectives[].time_info.wait_ns") and skipped, its default kept; text that is not JSON
// throws JsonFieldReader::Malformed.

#include "core/jsontokenizer.h"

#include <charconv>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rs {

// Where a value sits, for the count of wrong fields: a chain of keys on the stack, made into
// text only when a field is wrong.
struct JsonPath {
    const JsonPath* up = nullptr;
    std::string_view key; // "" at the document (or for an element of an element)
    bool element = false; // an element of the array `key`: "key[]"

    std::string text() const
    {
        std::string s = up ? up->text() : std::string();
        if (!key.empty()) {
            if (!s.empty()) s += '.';
            s += key;
        }
        if (element) s += "[]"; // an element of an element: "link_sets[][]"
        return s;
    }
};

class JsonFieldReader {
public:
    struct Malformed {}; // the text is not JSON

    JsonFieldReader(const char* begin, const char* end, bool slim)
        : m_tk(begin, end), m_p(begin), m_slim(slim)
    {}

    // Fields of the wrong JSON type: how many, and how many per path.
    std::uint64_t bad = 0;
    std::map<std::string, std::uint64_t> badKeys;

    // A wrong value at `at`, or at its member `key`.
    void wrong(const JsonPath& at, std::string_view key = {})
    {
        ++bad;
        std::string k = at.text();
        if (!key.empty()) {
            if (!k.empty()) k += '.';
            k += key;
        }
        ++badKeys[k];
    }

    // Slim: the reader of only what a merge matches ranks by; the field tables mark the
    // fields it reads (the others are checked as JSON and skipped).
    bool slim() const { return m_slim; }

    // The document: an object whose members are handed to f(key); anything else is reported by
    // its JSON type name (nlohmann's: "array", "string", "number", "boolean", "null").
    template <class F> const char* document(F&& f)
    {
        m_p = m_tk.ws(m_p);
        const char* type = nullptr;
        if (peek() == '{')
            members(f);
        else {
            type = typeName();
            skip();
        }
        if (m_p != m_tk.end()) throw Malformed{};
        return type;
    }

    char peek() const { return m_p < m_tk.end() ? *m_p : '\0'; }
    bool isNull() const { return peek() == 'n'; }
    bool isNumber() const
    {
        const char c = peek();
        return c == '-' || (c >= '0' && c <= '9');
    }
    const char* typeName() const
    {
        switch (peek()) {
        case '{':
            return "object";
        case '[':
            return "array";
        case '"':
            return "string";
        case 't':
        case 'f':
            return "boolean";
        case 'n':
            return "null";
        default:
            return "number";
        }
    }

    // Checks a value and goes past it (numbers on the fast path of scalar()).
    void skip()
    {
        const char c = peek();
        if (c == '{')
            members([this](std::string_view) { skip(); });
        else if (c == '[')
            elements([this](std::size_t) { skip(); });
        else
            scalar();
    }
    JsonScalar scalar()
    {
        JsonScalar s;
        if (fastInteger(s)) return s;
        if (!m_arena.empty()) m_arena.clear();
        if (!(m_p = m_tk.scalar(m_p, s, &m_arena))) throw Malformed{};
        m_p = m_tk.ws(m_p);
        return s;
    }

    // p at '{': each member's value handed to f(key), which reads or skips it.
    template <class F> void members(F&& f)
    {
        if (++m_depth > JsonTokenizer::kMaxDepth) throw Malformed{};
        m_p = m_tk.ws(m_p + 1);
        if (peek() == '}') {
            ++m_p;
        } else {
            for (;;) {
                if (peek() != '"') throw Malformed{};
                // The key is a view into the text (into m_keyArena when it has escapes): the
                // member's reader compares it before reading nested objects.
                TextRef key;
                if (!m_keyArena.empty()) m_keyArena.clear();
                if (!(m_p = m_tk.string(m_p, key, &m_keyArena))) throw Malformed{};
                m_p = m_tk.ws(m_p);
                if (peek() != ':') throw Malformed{};
                m_p = m_tk.ws(m_p + 1);
                f(key.view());
                if (peek() == ',') {
                    m_p = m_tk.ws(m_p + 1);
                    continue;
                }
                if (peek() != '}') throw Malformed{};
                ++m_p;
                break;
            }
        }
        --m_depth;
        m_p = m_tk.ws(m_p);
    }
    // p at '[': each element handed to f(index), which reads or skips it.
    template <class F> void elements(F&& f)
    {
        if (++m_depth > JsonTokenizer::kMaxDepth) throw Malformed{};
        m_p = m_tk.ws(m_p + 1);
        if (peek() == ']') {
            ++m_p;
        } else {
            for (std::size_t i = 0;; ++i) {
                f(i);
                if (peek() == ',') {
                    m_p = m_tk.ws(m_p + 1);
                    continue;
                }
                if (peek() != ']') throw Malformed{};
                ++m_p;
                break;
            }
        }
        --m_depth;
        m_p = m_tk.ws(m_p);
    }

    // ---- Fields: a wrong type counted at (at, key), the value skipped.

    template <class T>
    requires std::is_integral_v<T>
    static bool fits(const JsonScalar& s, T& out)
    {
        if (s.kind == JsonScalar::UInt) {
            if (s.bits <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
                out = static_cast<T>(s.bits);
                return true;
            }
        } else if (s.kind == JsonScalar::Int) {
            const auto x = static_cast<std::int64_t>(s.bits);
            if (x >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
                (x < 0 || static_cast<std::uint64_t>(x) <=
                              static_cast<std::uint64_t>(std::numeric_limits<T>::max()))) {
                out = static_cast<T>(x);
                return true;
            }
        }
        return false;
    }
    static double toDouble(const JsonScalar& s)
    {
        if (s.kind == JsonScalar::UInt) return static_cast<double>(s.bits);
        if (s.kind == JsonScalar::Int)
            return static_cast<double>(static_cast<std::int64_t>(s.bits));
        double v = 0;
        const std::string_view t = s.text.view();
        std::from_chars(t.data(), t.data() + t.size(), v);
        return v;
    }
    static bool isInt(const JsonScalar& s)
    {
        return s.kind == JsonScalar::Int || s.kind == JsonScalar::UInt;
    }
    static std::int64_t asInt64(const JsonScalar& s) { return static_cast<std::int64_t>(s.bits); }

    template <class T>
    requires std::is_integral_v<T>
    void integer(T& out, const JsonPath& at, std::string_view key)
    {
        if (isNumber()) {
            if (fits(scalar(), out)) return;
        } else {
            skip();
        }
        wrong(at, key);
    }
    // null keeps the default.
    template <class T>
    requires std::is_integral_v<T>
    void optInteger(std::optional<T>& out, const JsonPath& at, std::string_view key)
    {
        if (isNull()) return skip();
        T x = 0;
        const std::uint64_t before = bad;
        integer(x, at, key);
        if (bad == before) out = x;
    }
    void real(double& out, const JsonPath& at, std::string_view key)
    {
        if (isNull()) return skip();
        if (isNumber()) {
            out = toDouble(scalar());
            return;
        }
        skip();
        wrong(at, key);
    }
    void text(std::string& out, const JsonPath& at, std::string_view key)
    {
        if (peek() == '"') {
            out = std::string(scalar().text.view());
            return;
        }
        skip();
        wrong(at, key);
    }
    void optText(std::optional<std::string>& out, const JsonPath& at, std::string_view key)
    {
        if (isNull()) return skip();
        std::string x;
        const std::uint64_t before = bad;
        text(x, at, key);
        if (bad == before) out = std::move(x);
    }
    void flag(bool& out, const JsonPath& at, std::string_view key)
    {
        if (peek() == 't' || peek() == 'f') {
            out = scalar().boolean;
            return;
        }
        skip();
        wrong(at, key);
    }
    // An array member: each element to f(index); another type counted.
    template <class F> void array(const JsonPath& at, std::string_view key, F&& f)
    {
        if (peek() == '[') return elements(f);
        skip();
        wrong(at, key);
    }
    // A value that must be an object: its members to f(key); false (counted at `at`) when not.
    template <class F> bool object(const JsonPath& at, F&& f)
    {
        if (peek() == '{') {
            members(f);
            return true;
        }
        skip();
        wrong(at);
        return false;
    }
    // An array of scalars: each to f(scalar), which says whether it is good (a bad one is
    // counted at key[]); a container element is skipped and given as Absent.
    template <class F> void scalars(const JsonPath& at, std::string_view key, F&& f)
    {
        const JsonPath element{&at, key, true};
        array(at, key, [&](std::size_t) {
            JsonScalar s;
            if (peek() == '{' || peek() == '[')
                skip();
            else
                s = scalar();
            if (!f(s)) wrong(element);
        });
    }
    // A tuple: an array of scalars only, else nullptr (its containers skipped).
    // Valid until the next tuple().
    const std::vector<JsonScalar>* tuple()
    {
        if (peek() != '[') {
            skip();
            return nullptr;
        }
        m_tuple.clear();
        m_tupleTexts.clear();
        bool flat = true;
        elements([&](std::size_t) {
            if (peek() == '{' || peek() == '[') {
                skip();
                flat = false;
                return;
            }
            JsonScalar s = scalar();
            if (s.kind == JsonScalar::String) {
                // Strings outlive the arena: kept here, the scalar points at them by index.
                m_tupleTexts.emplace_back(s.text.view());
                s.bits = m_tupleTexts.size() - 1;
            }
            m_tuple.push_back(s);
        });
        return flat ? &m_tuple : nullptr;
    }
    const std::string& tupleText(const JsonScalar& s) const { return m_tupleTexts[s.bits]; }

private:
    // The common number, an integer of up to 18 digits, read here; anything else (a fraction,
    // an exponent, a longer one, a bad one) by the tokenizer, whose rules it follows.
    bool fastInteger(JsonScalar& s)
    {
        const char* p = m_p;
        const char* end = m_tk.end();
        const bool neg = p < end && *p == '-';
        if (neg) ++p;
        const char* digits = p;
        std::uint64_t v = 0;
        while (p < end && *p >= '0' && *p <= '9' && p - digits < 19)
            v = v * 10 + static_cast<unsigned>(*p++ - '0');
        const std::ptrdiff_t n = p - digits;
        if (n == 0 || n > 18 || (n > 1 && *digits == '0') || p >= end || *p == '.' || *p == 'e' ||
            *p == 'E')
            return false;
        s.kind = neg ? JsonScalar::Int : JsonScalar::UInt;
        s.bits = neg ? 0 - v : v;
        s.boolean = false;
        s.text = {m_p, static_cast<std::uint32_t>(p - m_p)};
        m_p = m_tk.ws(p);
        return true;
    }

    JsonTokenizer m_tk;
    const char* m_p;
    bool m_slim;
    int m_depth = 0;
    std::deque<std::string> m_arena, m_keyArena;
    std::vector<JsonScalar> m_tuple;
    std::vector<std::string> m_tupleTexts;
};

} // namespace rs
