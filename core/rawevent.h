#pragma once

#include <cstdint>
#include <string>
#include <string_view>
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
    std::string argsText;           // raw JSON text of "args" (empty when absent)
    std::uint64_t offset = 0;       // byte offset of the event in the uncompressed stream

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

// The same event as views into the reader's buffers, which is what TraceBuilder reads: a
// RawEvent is viewed as one (RawEvent::view()), a reader with its own buffers (the parallel
// tokenizer) fills one without copying. The optional parts let a reader do work ahead of the
// builder on its own thread; a reader that leaves them alone gets the same model.
struct ValueView {
    RawValue::Kind kind = RawValue::Absent;
    bool boolean = false;
    // Optional: a Float/String time converted ahead with parseMicrosToNs(text) (1: to ns,
    // 2: not a time); 0 lets the builder convert it.
    std::uint8_t nsState = 0;
    std::int64_t i = 0;
    std::uint64_t u = 0;
    std::int64_t ns = 0;
    std::string_view text;

    bool present() const { return kind != RawValue::Absent && kind != RawValue::Null; }
    static ValueView of(const RawValue& v)
    {
        ValueView o;
        o.kind = v.kind;
        o.boolean = v.boolean;
        o.i = v.i;
        o.u = v.u;
        o.text = v.text;
        return o;
    }
};

struct EventView {
    std::string_view ph, name, cat, bp, scope, argsText;
    ValueView ts, dur, pid, tid, id, id2, bindId, sf, tts;
    bool flowIn = false, flowOut = false;
    const std::string_view* stack = nullptr; // stackSize frame names, innermost last
    std::uint32_t stackSize = 0;
    std::uint64_t offset = 0;
    // Optional: the reader numbered the distinct name/cat texts of a batch of events; the
    // builder keeps the interned id of each in internCache[slot] (0xffffffff: not yet).
    std::uint32_t* internCache = nullptr;
    std::uint32_t nameSlot = 0, catSlot = 0;
};

} // namespace rs
