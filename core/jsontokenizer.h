#pragma once

#include "core/traceevent.h"

#include <cstdint>
#include <deque>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rs {

// A strict JSON tokenizer over contiguous text: RFC 8259 (UTF-8 checked, no comments, no
// NaN), numbers that overflow a double refused as nlohmann refuses them. It never reads past
// end. A call that fails returns nullptr and records where: at the first byte that is not
// valid JSON, or at end when the text ran out first (ranOut(): a cut document or event).
// One exception: event() checks an event's "args" for structure only (skipArgs below).
class JsonTokenizer {
public:
    // Containers open at once (as nlohmann's SAX path allowed).
    static constexpr int kMaxDepth = 2048;

    // offset: the text offset of begin (for TraceEvent::offset and error offsets).
    JsonTokenizer(const char* begin, const char* end, std::uint64_t offset = 0)
        : m_begin(begin), m_end(end), m_offset(offset)
    {}

    const char* begin() const { return m_begin; }
    const char* end() const { return m_end; }
    std::uint64_t offsetOf(const char* p) const
    {
        return m_offset + static_cast<std::uint64_t>(p - m_begin);
    }

    // Past the blanks at p (none, most often).
    const char* ws(const char* p) const;
    // p at '"'; returns past the closing quote. A string with escapes is decoded into arena
    // (without an arena it is only checked and out points at its raw text).
    // Inline (below): most strings are keys and names under 16 bytes of plain ASCII.
    const char* string(const char* p, TextRef& out, std::deque<std::string>* arena);
    const char* scalar(const char* p, JsonScalar& out, std::deque<std::string>* arena);
    // Checks any value and returns past it; depth = containers already open around it.
    const char* skipValue(const char* p, int depth);
    // p at an event's '{' (depth containers open around it): its fields into ev. Decoded
    // strings go into arena when given (one for many events), else into ev.arena.
    const char* event(const char* p, TraceEvent& ev, int depth,
                      std::deque<std::string>* arena = nullptr);

    // Where and why the last failing call stopped.
    const char* errorAt() const { return m_errorAt; }
    const char* errorWhat() const { return m_errorWhat; }
    bool ranOut() const { return m_errorAt == m_end; }
    // Records an error (also for callers' structural checks); returns nullptr.
    const char* fail(const char* at, const char* what)
    {
        m_errorAt = at;
        m_errorWhat = what;
        return nullptr;
    }
    // "expected X, found 'y'" for the byte at errorAt() (or "the text ends").
    std::string errorText() const;

private:
    static const bool kBlank[256];
    const char* stringScan(const char* p, TextRef& out, std::deque<std::string>* arena);
    // A number's text as scanned: its integer digits and whether a fraction or exponent follow.
    struct NumberText {
        const char* digits = nullptr; // the integer part's first digit
        const char* intEnd = nullptr; // past its last
        bool isFloat = false;         // a fraction or an exponent
        bool exponent = false;
    };
    // The syntax of the number at p, the same for number() and skipNumber(): returns past it.
    const char* scanNumber(const char* p, NumberText& t);
    // Refuses, as nlohmann does, a double that overflows to infinity (not one that underflows).
    bool overflows(const char* p, const char* end, const NumberText& t);
    const char* number(const char* p, JsonScalar& out);
    // number() without the value: the same checks, nothing computed (skipped values).
    const char* skipNumber(const char* p);
    // Past the ASCII digits from s: the first 16 bytes inline (below), the rest in digitsScan.
    const char* digitsFrom(const char* s) const;
    const char* digitsScan(const char* s) const;
    // Of the 16 bytes at s (SSE2 builds): a bit for each byte that ends a plain string run
    // ('"', '\\', a control byte or one >= 0x80), and for each that is not an ASCII digit.
    static unsigned stringStops16(const char* s);
    static unsigned nonDigits16(const char* s);
    // Of the 16 bytes at s: a bit for each space or newline.
    static unsigned spacesAndNewlines16(const char* s);
    const char* literal(const char* p, const char* word, std::size_t n);
    const char* utf8(const char* s);
    const char* escaped(const char* p, const char* s, TextRef& out, std::deque<std::string>* arena);
    const char* stackField(const char* p, TraceEvent& ev, int depth,
                           std::deque<std::string>* arena);
    // An event's args (p at '{' or '['), most of a Kineto trace's bytes: checked 16 bytes a
    // step for structure only, as simdjson's On-Demand API skips what it does not read.
    // Checked: brackets matched, strings closed, a closing quote followed by a separator (so a
    // stray or missing quote cannot take in the events after it), no control byte but the
    // newline outside strings and none inside. Not checked: each value's own grammar (a
    // number's digits, a literal's letters, a missing comma, an escape's letter); whoever
    // reads the args parses them and counts what is not JSON (analysisutil.h: eventArgs,
    // ArgsMembers::complete). Args with a byte >= 0x80, two backslashes in a row, a tab or CR,
    // or more than 64 levels are read by skipValue in full (as are all args in a build
    // without SSE2). The answer depends on the args alone, never on where the text ends (a
    // piece of the file) or what follows them: args cut by the end run out.
    const char* skipArgs(const char* p, int depth);

    const char* m_begin;
    const char* m_end;
    std::uint64_t m_offset;
    const char* m_errorAt = nullptr;
    const char* m_errorWhat = "";
};

#if defined(__SSE2__)
inline unsigned JsonTokenizer::stringStops16(const char* s)
{
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const __m128i stop = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
        _mm_cmplt_epi8(v, _mm_set1_epi8(0x20))); // signed: >= 0x80
    return static_cast<unsigned>(_mm_movemask_epi8(stop));
}

inline unsigned JsonTokenizer::spacesAndNewlines16(const char* s)
{
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    return static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(
        _mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n')))));
}

inline unsigned JsonTokenizer::nonDigits16(const char* s)
{
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    // Signed compares: bytes >= 0x80 are negative, so below '0'.
    const __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
                                        _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
    return ~static_cast<unsigned>(_mm_movemask_epi8(digit)) & 0xffffu;
}
#endif

inline const char* JsonTokenizer::ws(const char* p) const
{
    // Most calls find no blank or one space: a table load each. A longer run (Kineto's indented
    // lines, its args' 6-space gaps) of spaces and newlines is skipped in one 16-byte compare,
    // as a byte loop mispredicts where each run ends (10% fewer mispredicted branches, 1.4%
    // fewer instructions in cachegrind); a tab or CR left over is taken by the loop below.
    // Comparing all four blanks, or from the first byte, cost more instructions than the
    // mispredictions it saved.
    if (p >= m_end || !kBlank[static_cast<unsigned char>(*p)]) return p;
    ++p;
    if (p >= m_end || !kBlank[static_cast<unsigned char>(*p)]) return p;
#if defined(__SSE2__)
    if (m_end - p >= 16) p += __builtin_ctz(~spacesAndNewlines16(p));
#endif
    while (p < m_end && kBlank[static_cast<unsigned char>(*p)])
        ++p;
    return p;
}

inline const char* JsonTokenizer::string(const char* p, TextRef& out,
                                         std::deque<std::string>* arena)
{
#if defined(__SSE2__)
    // Inline: most strings are keys and names under 16 bytes of plain ASCII, and the call
    // with its constants cost more than the scan (a fifth of the tokenizer's time).
    const char* s = p + 1;
    if (m_end - s >= 16) {
        const unsigned stops = stringStops16(s);
        if (stops && s[__builtin_ctz(stops)] == '"') {
            out.p = s;
            out.n = __builtin_ctz(stops);
            return s + out.n + 1;
        }
    }
#endif
    return stringScan(p, out, arena);
}

// ids, pids and µs timestamps end within 16 bytes.
inline const char* JsonTokenizer::digitsFrom(const char* s) const
{
#if defined(__SSE2__)
    if (m_end - s >= 16) {
        if (const unsigned other = nonDigits16(s)) return s + __builtin_ctz(other);
        s += 16;
    }
#endif
    return digitsScan(s);
}

} // namespace rs
