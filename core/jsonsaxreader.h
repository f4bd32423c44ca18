#pragma once

#include "core/bytesource.h"
#include "core/rawevent.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace rs {

class TraceBuilder;

// Reads the Chrome Trace Event Format from a ByteSource with nlohmann/json's SAX parser and
// hands each event to a TraceBuilder as a RawEvent. Never builds a DOM of the events: only
// small top-level metadata values are kept as JSON.
class JsonSaxReader {
public:
    struct Result {
        bool ok = true; // false: the input could not be parsed (see error)
        bool truncated = false; // input ended inside the document: complete events kept
        bool aborted = false; // the tick callback asked to stop
        std::string error; // with byte offset, line and column
        std::uint64_t errorOffset = 0;
    };

    JsonSaxReader(ByteSource& source, TraceBuilder& builder);
    // Called every few thousand events; return false to stop reading (cancel, budget).
    void setTick(std::function<bool()> tick) { m_tick = std::move(tick); }
    Result read();

    // --- nlohmann SAX interface ---
    using json = nlohmann::json;
    bool null();
    bool boolean(bool v);
    bool number_integer(json::number_integer_t v);
    bool number_unsigned(json::number_unsigned_t v);
    bool number_float(json::number_float_t v, const std::string& text);
    bool string(std::string& v);
    bool binary(json::binary_t& v);
    bool start_object(std::size_t);
    bool key(std::string& k);
    bool end_object();
    bool start_array(std::size_t);
    bool end_array();
    bool parse_error(std::size_t position, const std::string& lastToken,
                     const nlohmann::detail::exception& ex);

private:
    enum class Mode : std::uint8_t { Top, TopObject, Events, Event, Args, Stack, Skip, Meta };
    bool scalar(RawValue::Kind kind, std::int64_t i, std::uint64_t u, bool b, const std::string* text);
    bool open(bool isObject);
    bool close();
    void metaValue(json v);
    bool eventDone();

    ByteSource& m_src;
    TraceBuilder& m_builder;
    std::function<bool()> m_tick;
    RawEvent m_ev;
    std::vector<Mode> m_modes; // mode of each open container
    std::string m_key; // last key at the event level / top level
    std::string m_metaKey;
    json m_metaRoot;
    std::vector<json*> m_metaStack;
    std::size_t m_skipDepth = 0; // nesting inside an Args/Skip value
    bool m_sawEvents = false;
    bool m_stop = false;
    std::uint64_t m_count = 0;
    std::string m_error;
    std::uint64_t m_errorOffset = 0;
    bool m_errorAtEnd = false;
    bool m_emptyInput = false; // the parse error came before any token
    std::uint64_t m_tickOffset = 0; // text offset at the last tick
};

} // namespace rs
