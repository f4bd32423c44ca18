#pragma once

// JSON text written as it goes, without a document: what the outputs' streaming writers
// (core/fieldtable.h) print. Two layouts: pretty (a line per member or element, two spaces of
// indent per level, "key": value) and compact (no whitespace). Integers in decimal; doubles in
// their shortest round-trip form, an integral one with ".0", a non-finite one as null; strings
// as UTF-8 with the escapes JSON needs (\u00XX below 0x20); a string that is not valid UTF-8 is
// refused (nlohmann's type_error 316 is thrown). The bytes are pinned by the golden files in
// tests/data/golden/cli (tst_outputgolden), not by any library's formatting.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace rs {

class JsonWriter {
public:
    // Appends to out. depth: the levels open around what is written (its indent when pretty).
    JsonWriter(std::string& out, bool pretty, int depth = 0)
        : m_s(out), m_pretty(pretty), m_depth(depth)
    {}

    std::string& text() { return m_s; }
    bool pretty() const { return m_pretty; }

    void null() { m_s += "null"; }
    void boolean(bool v) { m_s += v ? "true" : "false"; }
    template <class T>
    requires std::is_integral_v<T>
    void integer(T v)
    {
        if constexpr (std::is_signed_v<T>)
            int64(v);
        else
            uint64(v);
    }
    void optInt(const std::optional<int>& v)
    {
        if (v)
            int64(*v);
        else
            null();
    }
    void real(double v);
    void string(std::string_view v);
    void raw(std::string_view v) { m_s.append(v); }

    // Containers: begin, then key() before each member's value (item() before each element's),
    // then end.
    void beginObject() { open('{'); }
    void key(std::string_view k);
    // A key known to need no escape (a field table's: checked when the table is compiled).
    void plainKey(std::string_view k);
    void endObject() { close('}'); }
    void beginArray() { open('['); }
    void item() { separator(); }
    void endArray() { close(']'); }

    // An array of values: each(i) writes element i.
    template <class F> void array(std::size_t n, F&& each)
    {
        beginArray();
        for (std::size_t i = 0; i < n; ++i) {
            item();
            each(i);
        }
        endArray();
    }
    template <class T> void integers(const std::vector<T>& v)
    {
        array(v.size(), [&](std::size_t i) { integer(v[i]); });
    }
    // An array of a few scalars (a summary's tuples): [1, "x", 2.5].
    template <class... T> void tuple(const T&... v)
    {
        beginArray();
        ((item(), scalar(v)), ...);
        endArray();
    }

private:
    template <class T> void scalar(const T& v)
    {
        if constexpr (std::is_integral_v<T>)
            integer(v);
        else if constexpr (std::is_floating_point_v<T>)
            real(v);
        else
            string(v);
    }
    void int64(std::int64_t v);
    void uint64(std::uint64_t v);
    void open(char c)
    {
        m_s += c;
        m_first.push_back(true);
        ++m_depth;
    }
    void close(char c);
    void separator();
    void pad(int levels);
    void escaped(std::string_view v);

    std::string& m_s;
    bool m_pretty;
    int m_depth;
    std::vector<char> m_first; // per open container: nothing written in it yet
};

} // namespace rs
