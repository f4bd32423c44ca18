#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rs {

// A scalar as a JSON reader saw it. Text keeps the exact digits of numbers, so times and
// ids can be converted without passing through a double.
struct RawValue {
    enum Kind : std::uint8_t { Absent, Null, Bool, Int, UInt, Float, String, Other };
    Kind kind = Absent;
    bool boolean = false;
    std::int64_t i = 0;
    std::uint64_t u = 0;
    std::string text; // digits as written for numbers, the string for strings

    bool present() const { return kind != Absent && kind != Null; }
    void reset()
    {
        kind = Absent;
        text.clear();
    }
};

// One trace event with its fields extracted. This is the whole interface between a JSON
// reader and the model builder: the builder does not know which reader filled it.
struct RawEvent {
    std::string ph, name, cat, bp, scope;
    RawValue ts, dur, pid, tid, id, id2, bindId, sf, tts;
    bool flowIn = false, flowOut = false;
    std::vector<std::string> stack; // "stack": [frame names], innermost last as written
    std::string argsText; // raw JSON text of "args" (empty when absent)
    std::uint64_t offset = 0; // byte offset of the event in the uncompressed stream

    void reset()
    {
        ph.clear();
        name.clear();
        cat.clear();
        bp.clear();
        scope.clear();
        for (RawValue* v : {&ts, &dur, &pid, &tid, &id, &id2, &bindId, &sf, &tts})
            v->reset();
        flowIn = flowOut = false;
        stack.clear();
        argsText.clear();
        offset = 0;
    }
};

} // namespace rs
