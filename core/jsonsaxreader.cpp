#include "core/jsonsaxreader.h"

#include "core/tracebuilder.h"

namespace rs {

namespace {
constexpr std::size_t kMaxDepth = 2048;
}

JsonSaxReader::JsonSaxReader(ByteSource& source, TraceBuilder& builder)
    : m_src(source), m_builder(builder)
{
}

JsonSaxReader::Result JsonSaxReader::read()
{
    Result r;
    auto first = m_src.begin();
    const bool done = json::sax_parse(first, m_src.end(), this, nlohmann::json::input_format_t::json,
                                      true, false);
    if (done)
        return r;
    if (m_stop || m_src.cancelled() || m_src.overLimit()) {
        r.aborted = true;
        r.ok = false;
        return r;
    }
    r.errorOffset = m_errorOffset;
    if (m_errorAtEnd && !m_src.error().empty() && m_count == 0) {
        r.ok = false;
        r.error = m_src.error();
    } else if (m_errorAtEnd && m_sawEvents) {
        // The document ended early: every complete event is kept.
        r.truncated = true;
        r.error = m_error;
    } else if (m_errorAtEnd && m_emptyInput) {
        r.ok = false;
        r.error = "the file is empty";
    } else {
        r.ok = false;
        // A broken gzip stream inflates to garbage first: name the cause, not the symptom.
        r.error = m_src.error().empty() ? m_error : m_src.error() + " (then " + m_error + ")";
    }
    if (!m_src.error().empty() && r.ok)
        m_builder.addWarning(m_src.error());
    return r;
}

bool JsonSaxReader::eventDone()
{
    m_builder.addEvent(m_ev);
    ++m_count;
    // Every 4096 events, or 8 MiB of text: a few huge events must not slip past the budget.
    if (((m_count & 4095) == 0 || m_src.offset() - m_tickOffset > (8u << 20)) && m_tick) {
        m_tickOffset = m_src.offset();
        if (m_tick())
            return true;
        m_stop = true;
        return false;
    }
    return true;
}

void JsonSaxReader::metaValue(json v)
{
    if (m_metaStack.empty()) {
        m_builder.addMetadata(m_metaKey, std::move(v));
        return;
    }
    json* top = m_metaStack.back();
    if (top->is_array())
        top->push_back(std::move(v));
    else
        (*top)[m_key] = std::move(v);
}

bool JsonSaxReader::scalar(RawValue::Kind kind, std::int64_t i, std::uint64_t u, bool b,
                           const std::string* text)
{
    if (m_modes.empty()) {
        m_error = "not a trace: the document is a single value, not an array or object";
        return false;
    }
    switch (m_modes.back()) {
    case Mode::Event: {
        RawValue* target = nullptr;
        std::string* str = nullptr;
        const std::string& k = m_key;
        switch (k.size()) {
        case 2:
            if (k == "ph")
                str = &m_ev.ph;
            else if (k == "ts")
                target = &m_ev.ts;
            else if (k == "id")
                target = &m_ev.id;
            else if (k == "bp")
                str = &m_ev.bp;
            else if (k == "sf")
                target = &m_ev.sf;
            break;
        case 3:
            if (k == "cat")
                str = &m_ev.cat;
            else if (k == "dur")
                target = &m_ev.dur;
            else if (k == "pid")
                target = &m_ev.pid;
            else if (k == "tid")
                target = &m_ev.tid;
            else if (k == "tts")
                target = &m_ev.tts;
            break;
        case 4:
            if (k == "name")
                str = &m_ev.name;
            break;
        case 1:
            if (k == "s")
                str = &m_ev.scope;
            break;
        case 7:
            if (k == "bind_id")
                target = &m_ev.bindId;
            else if (k == "flow_in")
                m_ev.flowIn = kind == RawValue::Bool && b;
            break;
        case 8:
            if (k == "flow_out")
                m_ev.flowOut = kind == RawValue::Bool && b;
            break;
        default:
            break;
        }
        if (target) {
            target->kind = kind;
            target->i = i;
            target->u = u;
            target->boolean = b;
            if (text)
                target->text = *text;
            else
                target->text.clear();
        } else if (str) {
            if (text)
                *str = *text;
            else if (kind == RawValue::Int)
                *str = std::to_string(i);
            else if (kind == RawValue::UInt)
                *str = std::to_string(u);
        }
        return true;
    }
    case Mode::Stack:
        if (text && kind == RawValue::String)
            m_ev.stack.push_back(*text);
        return true;
    case Mode::Meta: {
        json v;
        switch (kind) {
        case RawValue::Null:
            v = nullptr;
            break;
        case RawValue::Bool:
            v = b;
            break;
        case RawValue::Int:
            v = i;
            break;
        case RawValue::UInt:
            v = u;
            break;
        case RawValue::Float:
            v = json::parse(*text, nullptr, false);
            break;
        default:
            v = *text;
            break;
        }
        metaValue(std::move(v));
        return true;
    }
    case Mode::TopObject: {
        json v;
        if (kind == RawValue::String)
            v = *text;
        else if (kind == RawValue::Int)
            v = i;
        else if (kind == RawValue::UInt)
            v = u;
        else if (kind == RawValue::Float)
            v = json::parse(*text, nullptr, false);
        else if (kind == RawValue::Bool)
            v = b;
        m_metaKey = m_key;
        metaValue(std::move(v));
        return true;
    }
    case Mode::Events:
        // A non-object entry in the event array.
        m_builder.addWarning("a non-object entry in the event array was skipped");
        return true;
    default:
        return true; // Args (captured as text), Skip
    }
}

bool JsonSaxReader::null()
{
    return scalar(RawValue::Null, 0, 0, false, nullptr);
}
bool JsonSaxReader::boolean(bool v)
{
    return scalar(RawValue::Bool, 0, 0, v, nullptr);
}
bool JsonSaxReader::number_integer(json::number_integer_t v)
{
    return scalar(RawValue::Int, v, 0, false, nullptr);
}
bool JsonSaxReader::number_unsigned(json::number_unsigned_t v)
{
    return scalar(RawValue::UInt, static_cast<std::int64_t>(v), v, false, nullptr);
}
bool JsonSaxReader::number_float(json::number_float_t, const std::string& text)
{
    return scalar(RawValue::Float, 0, 0, false, &text);
}
bool JsonSaxReader::string(std::string& v)
{
    return scalar(RawValue::String, 0, 0, false, &v);
}
bool JsonSaxReader::binary(json::binary_t&)
{
    return true;
}

bool JsonSaxReader::key(std::string& k)
{
    const Mode m = m_modes.empty() ? Mode::Top : m_modes.back();
    if (m == Mode::Event || m == Mode::TopObject || m == Mode::Meta)
        m_key = k;
    return true;
}

bool JsonSaxReader::open(bool isObject)
{
    if (m_modes.size() >= kMaxDepth) {
        m_error = "nesting deeper than " + std::to_string(kMaxDepth) + " levels at byte " +
                  std::to_string(m_src.offset());
        m_errorOffset = m_src.offset();
        return false;
    }
    if (m_modes.empty()) {
        if (isObject) {
            m_modes.push_back(Mode::TopObject);
        } else {
            m_modes.push_back(Mode::Events);
            m_sawEvents = true;
        }
        return true;
    }
    switch (m_modes.back()) {
    case Mode::TopObject:
        if (!isObject && m_key == "traceEvents") {
            m_modes.push_back(Mode::Events);
            m_sawEvents = true;
        } else {
            m_metaKey = m_key;
            m_metaRoot = isObject ? json::object() : json::array();
            m_metaStack.assign(1, &m_metaRoot);
            m_modes.push_back(Mode::Meta);
        }
        return true;
    case Mode::Events:
        if (isObject) {
            m_ev.reset();
            m_ev.offset = m_src.offset() - 1;
            m_modes.push_back(Mode::Event);
        } else {
            m_builder.addWarning("a non-object entry in the event array was skipped");
            m_modes.push_back(Mode::Skip);
        }
        return true;
    case Mode::Event:
        if (m_key == "args") {
            m_ev.argsText.assign(1, isObject ? '{' : '[');
            m_src.beginCapture(&m_ev.argsText);
            m_modes.push_back(Mode::Args);
        } else if (m_key == "stack" && !isObject) {
            m_modes.push_back(Mode::Stack);
        } else {
            m_modes.push_back(Mode::Skip);
        }
        return true;
    case Mode::Args:
        m_modes.push_back(Mode::Args);
        return true;
    case Mode::Meta: {
        json* top = m_metaStack.back();
        json child = isObject ? json::object() : json::array();
        json* added;
        if (top->is_array()) {
            top->push_back(std::move(child));
            added = &top->back();
        } else {
            added = &((*top)[m_key] = std::move(child));
        }
        m_metaStack.push_back(added);
        m_modes.push_back(Mode::Meta);
        return true;
    }
    default:
        m_modes.push_back(Mode::Skip);
        return true;
    }
}

bool JsonSaxReader::close()
{
    if (m_modes.empty())
        return true;
    const Mode m = m_modes.back();
    m_modes.pop_back();
    const Mode parent = m_modes.empty() ? Mode::Top : m_modes.back();
    switch (m) {
    case Mode::Event:
        return eventDone();
    case Mode::Args:
        if (parent == Mode::Event)
            m_src.endCapture();
        return true;
    case Mode::Meta:
        m_metaStack.pop_back();
        if (m_metaStack.empty())
            m_builder.addMetadata(m_metaKey, std::move(m_metaRoot));
        return true;
    default:
        return true;
    }
}

bool JsonSaxReader::start_object(std::size_t)
{
    return open(true);
}
bool JsonSaxReader::end_object()
{
    return close();
}
bool JsonSaxReader::start_array(std::size_t)
{
    return open(false);
}
bool JsonSaxReader::end_array()
{
    return close();
}

bool JsonSaxReader::parse_error(std::size_t position, const std::string& lastToken,
                                const nlohmann::detail::exception& ex)
{
    if (!m_error.empty())
        return false; // our own error (depth) already set
    // Nothing but whitespace before the end: an empty file, not "malformed at byte 5".
    // (nlohmann writes control characters of the token as "<U+000A>".)
    // Linear: after a whitespace bomb the token holds up to the budget of blanks.
    bool blanks = true;
    for (std::size_t i = 0; blanks && i < lastToken.size();) {
        if (lastToken[i] == ' ')
            ++i;
        else if (lastToken.compare(i, 6, "<U+000") == 0 && i + 8 <= lastToken.size() &&
                 (lastToken[i + 6] == '9' || lastToken[i + 6] == 'A' || lastToken[i + 6] == 'D'))
            i += 8;
        else
            blanks = false;
    }
    m_emptyInput = m_modes.empty() && m_count == 0 && blanks;
    std::string what = ex.what();
    if (auto p = what.find("] "); what.rfind("[json.exception", 0) == 0 && p != std::string::npos)
        what = what.substr(p + 2);
    m_errorOffset = position;
    m_errorAtEnd = m_src.exhausted();
    m_error = "malformed JSON at byte " + std::to_string(position) + ": " + what;
    return false;
}

} // namespace rs
