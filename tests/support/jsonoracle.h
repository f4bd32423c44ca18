#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rs::test {

// A trace document's events as nlohmann's SAX parser sees them: the oracle the tokenizer is
// compared with. Fields follow the loader's rules (a string field takes strings and numbers
// as written, "-0" as "0"; null leaves a field as it was); a scalar is its kind and its text
// (integers as their value, floats as written).
struct OracleEvent {
    std::string ph, name, cat, bp, scope;
    std::string ts, dur, pid, tid, id, bindId,
        sf; // "" absent, "null", "b:true", "i:-3", "u:7", "f:1.5", "s:text"
    bool flowIn = false, flowOut = false;
    std::vector<std::string> stack;
    nlohmann::json args; // null when absent (or not an object/array)
    // Fields of a type they cannot take (TraceEvent::badTypes): a container or a bool where a
    // string belongs, a container for a number field, a non-bool flow_in/flow_out, a scalar
    // args or stack, a stack frame that is not a string.
    std::uint32_t badTypes = 0;
    bool operator==(const OracleEvent&) const = default;
};

struct OracleDocument {
    bool valid = false;              // nlohmann accepted the whole document
    bool endOfInput = false;         // it failed with "unexpected end of input" (a cut document)
    std::size_t errorAt = 0;         // where nlohmann stopped (its position: past the bad token)
    std::vector<OracleEvent> events; // complete events, in order
    std::uint64_t nonObjects = 0;    // entries of the event arrays that were not objects
    std::map<std::string, nlohmann::json> metadata; // top-level keys but the event arrays
};

OracleDocument oracleRead(const std::string& text);

// The text as the oracle must see it to agree with the loader: the events' args that the
// tokenizer took but nlohmann refuses (JsonTokenizer::skipArgs checks args for structure only)
// become "{}" and blanks of the same length. Events are what the loader reads as events: the
// entries of a bare array or of the top-level "traceEvents"; the walk stops where the
// tokenizer does (after blanking the args of the event it stopped in).
std::string blankLaxArgs(const std::string& text);

} // namespace rs::test
