#include "core/jsonwriter.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace rs {

namespace {

// RFC 3629's ranges.
bool validUtf8(std::string_view v)
{
    const auto* p = reinterpret_cast<const unsigned char*>(v.data());
    const auto* e = p + v.size();
    while (p < e) {
        const unsigned c = *p;
        int n;
        unsigned lo = 0x80, hi = 0xBF;
        if (c < 0x80) {
            ++p;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF)
            n = 1;
        else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else
            return false;
        if (e - p <= n) return false;
        if (p[1] < lo || p[1] > hi) return false;
        for (int k = 2; k <= n; ++k)
            if (p[k] < 0x80 || p[k] > 0xBF) return false;
        p += n + 1;
    }
    return true;
}

} // namespace

void JsonWriter::int64(std::int64_t v)
{
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    m_s.append(buf, r.ptr);
}

void JsonWriter::uint64(std::uint64_t v)
{
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    m_s.append(buf, r.ptr);
}

void JsonWriter::real(double v)
{
    if (!std::isfinite(v)) return null(); // JSON has no NaN or infinity
    // Shortest round-trip digits (Grisu2), ".0" after an integral value: the format the
    // outputs have always had (tests/data/golden/cli). nlohmann's implementation of it is
    // used as a number formatter only.
    char buf[64];
    char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, v);
    m_s.append(buf, end);
}

void JsonWriter::string(std::string_view v)
{
    m_s += '"';
    escaped(v);
    m_s += '"';
}

void JsonWriter::key(std::string_view k)
{
    separator();
    string(k);
    if (m_pretty)
        m_s.append(": ", 2);
    else
        m_s += ':';
}

void JsonWriter::plainKey(std::string_view k)
{
    // ",\n" + indent + "\"key\": " in one append: this runs for every field.
    char buf[160];
    const std::size_t indent = m_pretty ? 2 * static_cast<std::size_t>(m_depth) : 0;
    if (m_first.empty() || indent + k.size() + 8 > sizeof buf) return key(k);
    std::size_t n = 0;
    if (!m_first.back()) buf[n++] = ',';
    m_first.back() = false;
    if (m_pretty) {
        buf[n++] = '\n';
        std::memset(buf + n, ' ', indent);
        n += indent;
    }
    buf[n++] = '"';
    std::memcpy(buf + n, k.data(), k.size());
    n += k.size();
    buf[n++] = '"';
    buf[n++] = ':';
    if (m_pretty) buf[n++] = ' ';
    m_s.append(buf, n);
}

void JsonWriter::separator()
{
    if (m_first.empty()) return; // a value on its own
    if (!m_first.back()) m_s += ',';
    m_first.back() = false;
    if (m_pretty) {
        m_s += '\n';
        pad(m_depth);
    }
}

void JsonWriter::close(char c)
{
    const bool empty = m_first.back();
    m_first.pop_back();
    --m_depth;
    if (!empty && m_pretty) {
        m_s += '\n';
        pad(m_depth);
    }
    m_s += c;
}

void JsonWriter::pad(int levels)
{
    static constexpr std::string_view kSpaces = "                                ";
    for (int n = 2 * levels; n > 0; n -= static_cast<int>(kSpaces.size()))
        m_s.append(kSpaces.data(), std::min<std::size_t>(kSpaces.size(), n));
}

void JsonWriter::escaped(std::string_view v)
{
    // Most strings are plain ASCII: one pass, appended as they are.
    std::size_t i = 0;
    for (; i < v.size(); ++i) {
        const auto c = static_cast<unsigned char>(v[i]);
        if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) break;
    }
    if (i == v.size()) {
        m_s.append(v);
        return;
    }
    bool plain = true, ascii = true;
    for (; i < v.size(); ++i) {
        const auto c = static_cast<unsigned char>(v[i]);
        if (c < 0x20 || c == '"' || c == '\\') plain = false;
        if (c >= 0x80) ascii = false;
    }
    if (!ascii && !validUtf8(v)) {
        // Refused as the outputs always refused it (nlohmann's type_error 316).
        const std::string dumped = nlohmann::json(std::string(v)).dump();
        m_s.append(dumped, 1, dumped.size() - 2);
        return;
    }
    if (plain) {
        m_s.append(v);
        return;
    }
    for (const char ch : v) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
        case '\b':
            m_s += "\\b";
            break;
        case '\t':
            m_s += "\\t";
            break;
        case '\n':
            m_s += "\\n";
            break;
        case '\f':
            m_s += "\\f";
            break;
        case '\r':
            m_s += "\\r";
            break;
        case '"':
            m_s += "\\\"";
            break;
        case '\\':
            m_s += "\\\\";
            break;
        default:
            if (c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                m_s += buf;
            } else {
                m_s += ch;
            }
        }
    }
}

} // namespace rs
