#pragma once

// One trace event as a source hands it to the model's builder (core/tracebuilder.h).

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rs {

// A run of text: a view into the input, or into an event's arena for a string with escapes.
struct TextRef {
    const char* p = nullptr;
    std::uint32_t n = 0;
    std::string_view view() const { return p ? std::string_view(p, n) : std::string_view(); }
};

// A JSON scalar as read. Numbers keep their text as written, so times and ids convert exactly
// (no double in between); Int/UInt/Float follow nlohmann's classification (an integer that
// does not fit 64 bits is a Float).
struct JsonScalar {
    enum Kind : std::uint8_t { Absent, Null, Bool, Int, UInt, Float, String };
    Kind kind = Absent;
    bool boolean = false;
    std::uint64_t bits = 0; // Int: the value, two's complement; UInt: the value
    TextRef text;           // Int, UInt, Float: as written; String: decoded

    bool present() const { return kind > Null; }
    bool isInteger() const { return kind == Int || kind == UInt; }
};

// The fields of one trace event that the model uses: what TraceBuilder::addEvent takes from
// every source. The JSON tokenizer fills it from text (times in µs as written); a database
// reader from rows (times in integer ns: nsTimes). String fields hold their text (numbers as
// written; "-0" as "0"); null leaves a field as it was. `args` is the raw JSON text of an
// object or array value. `badTypes` counts fields of a type the field cannot take (an object
// where a scalar belongs, a bool for a name, a non-string stack frame...).
struct TraceEvent {
    std::uint64_t offset = 0; // of its '{' in the text
    TextRef ph, name, cat, bp, scope, args;
    JsonScalar ts, dur, pid, tid, id, bindId, sf;
    std::vector<TextRef> stack; // "stack": frame names, innermost last as written
    bool flowIn = false, flowOut = false;
    std::uint32_t badTypes = 0;
    bool nsTimes = false; // ts and dur are integers in ns, not µs (a database's times)
    // Decoded strings when event() was given no arena (a deque: addresses stay put); made on
    // first use, so events kept by the thousand with a shared arena stay small.
    std::unique_ptr<std::deque<std::string>> arena;

    void clear();
};

} // namespace rs
