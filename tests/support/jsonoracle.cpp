#include "tests/support/jsonoracle.h"

#include "core/jsontokenizer.h"

namespace rs::test {

namespace {

using json = nlohmann::json;

// The SAX handler: the event array's objects are read field by field, everything else (args,
// metadata, skipped values) is built as a DOM.
class Sax {
public:
    explicit Sax(OracleDocument& doc) : m_doc(doc) {}

    bool null() { return scalar("null", json(nullptr)); }
    bool boolean(bool v) { return scalar(v ? "b:true" : "b:false", json(v)); }
    bool number_integer(json::number_integer_t v)
    {
        return scalar("i:" + std::to_string(v), json(v));
    }
    bool number_unsigned(json::number_unsigned_t v)
    {
        return scalar("u:" + std::to_string(v), json(v));
    }
    bool number_float(json::number_float_t v, const std::string& text)
    {
        return scalar("f:" + text, json(v));
    }
    bool string(std::string& v) { return scalar("s:" + v, json(v)); }
    bool binary(json::binary_t&) { return true; }
    bool key(std::string& k)
    {
        m_key = k;
        if (!m_dom.empty()) m_domKeys.back() = k;
        return true;
    }
    bool start_object(std::size_t) { return open(json::object()); }
    bool start_array(std::size_t) { return open(json::array()); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e)
    {
        m_doc.errorAt = position;
        m_doc.endOfInput =
            std::string(e.what()).find("unexpected end of input") != std::string::npos;
        return false;
    }

private:
    enum class Where : std::uint8_t { Top, TopObject, Events, Event, Stack };

    // Text of a scalar for a string field, or nullptr when it leaves the field alone.
    static const char* stringPart(const std::string& tagged, std::string& out)
    {
        if (tagged.rfind("s:", 0) == 0 || tagged.rfind("u:", 0) == 0 ||
            tagged.rfind("f:", 0) == 0) {
            out = tagged.substr(2);
            return out.c_str();
        }
        if (tagged.rfind("i:", 0) == 0) {
            out = tagged == "i:-0" ? "0" : tagged.substr(2);
            if (out == "-0") out = "0";
            return out.c_str();
        }
        return nullptr;
    }

    bool scalar(const std::string& tagged, json v)
    {
        if (!m_dom.empty()) return addToDom(std::move(v));
        const Where w = m_where.empty() ? Where::Top : m_where.back();
        if (w == Where::Top) return false; // a document that is one value: not a trace
        if (w == Where::TopObject) {
            m_doc.metadata[m_key] = std::move(v);
            return true;
        }
        if (w == Where::Events) {
            ++m_doc.nonObjects;
            return true;
        }
        if (w == Where::Stack) {
            if (v.is_string())
                m_event.stack.push_back(v.get<std::string>());
            else
                ++m_event.badTypes;
            return true;
        }
        OracleEvent& e = m_event;
        std::string text;
        const std::string& k = m_key;
        std::string* str = k == "ph"     ? &e.ph
                           : k == "name" ? &e.name
                           : k == "cat"  ? &e.cat
                           : k == "bp"   ? &e.bp
                           : k == "s"    ? &e.scope
                                         : nullptr;
        std::string* val = k == "ts"        ? &e.ts
                           : k == "dur"     ? &e.dur
                           : k == "pid"     ? &e.pid
                           : k == "tid"     ? &e.tid
                           : k == "id"      ? &e.id
                           : k == "bind_id" ? &e.bindId
                           : k == "sf"      ? &e.sf
                                            : nullptr;
        if (str && stringPart(tagged, text)) *str = text;
        if (str && v.is_boolean()) ++e.badTypes;
        if (val) *val = tagged;
        if (k == "flow_in") e.flowIn = v.is_boolean() && v.get<bool>();
        if (k == "flow_out") e.flowOut = v.is_boolean() && v.get<bool>();
        if ((k == "flow_in" || k == "flow_out") && !v.is_boolean() && !v.is_null()) ++e.badTypes;
        if ((k == "args" || k == "stack") && !v.is_null()) ++e.badTypes;
        return true;
    }

    bool addToDom(json v)
    {
        json& top = *m_dom.back();
        if (top.is_array()) {
            top.push_back(std::move(v));
            return true;
        }
        top[m_domKeys.back()] = std::move(v);
        return true;
    }

    bool open(json container)
    {
        if (!m_dom.empty()) {
            json& top = *m_dom.back();
            json* child;
            if (top.is_array()) {
                top.push_back(std::move(container));
                child = &top.back();
            } else {
                child = &(top[m_domKeys.back()] = std::move(container));
            }
            m_dom.push_back(child);
            m_domKeys.emplace_back();
            return true;
        }
        const bool object = container.is_object();
        const Where w = m_where.empty() ? Where::Top : m_where.back();
        switch (w) {
        case Where::Top:
            m_where.push_back(object ? Where::TopObject : Where::Events);
            return true;
        case Where::TopObject:
            if (!object && m_key == "traceEvents") {
                m_where.push_back(Where::Events);
                return true;
            }
            return startDom(&m_doc.metadata[m_key], std::move(container));
        case Where::Events:
            if (!object) {
                ++m_doc.nonObjects;
                return startDom(&m_skipped, std::move(container));
            }
            m_event = OracleEvent{};
            m_where.push_back(Where::Event);
            return true;
        case Where::Event:
            if (m_key == "args") return startDom(&m_event.args, std::move(container));
            if (m_key == "stack" && !object) {
                m_where.push_back(Where::Stack);
                return true;
            }
            if (isField(m_key)) ++m_event.badTypes; // a container where a scalar belongs
            return startDom(&m_skipped, std::move(container));
        case Where::Stack:
            ++m_event.badTypes;
            return startDom(&m_skipped, std::move(container));
        }
        return true;
    }

    static bool isField(const std::string& k)
    {
        for (const char* f : {"ph", "name", "cat", "bp", "s", "ts", "dur", "pid", "tid", "id",
                              "bind_id", "sf", "flow_in", "flow_out", "stack"})
            if (k == f) return true;
        return false;
    }

    bool startDom(json* slot, json container)
    {
        *slot = std::move(container);
        m_dom.push_back(slot);
        m_domKeys.emplace_back();
        return true;
    }

    bool close()
    {
        if (!m_dom.empty()) {
            m_dom.pop_back();
            m_domKeys.pop_back();
            return true;
        }
        const Where w = m_where.back();
        m_where.pop_back();
        if (w == Where::Event) m_doc.events.push_back(m_event);
        return true;
    }

    OracleDocument& m_doc;
    std::vector<Where> m_where;
    std::vector<json*> m_dom; // the DOM being built, innermost last
    std::vector<std::string> m_domKeys;
    std::string m_key;
    OracleEvent m_event;
    json m_skipped;
};

} // namespace

OracleDocument oracleRead(const std::string& text)
{
    OracleDocument doc;
    Sax sax(doc);
    doc.valid = json::sax_parse(text, &sax, json::input_format_t::json, true, false);
    return doc;
}

std::string blankLaxArgs(const std::string& text)
{
    std::string out = text;
    JsonTokenizer tok(text.data(), text.data() + text.size());
    const char* end = tok.end();
    TraceEvent ev;
    // The entries of the array at p (past '['): past its ']', or nullptr where the tokenizer
    // stops.
    auto events = [&](const char* p, int depth) -> const char* {
        for (p = tok.ws(p); p < end;) {
            if (*p == ']') return p + 1;
            const char* q = *p == '{' ? tok.event(p, ev, depth) : tok.skipValue(p, depth);
            if (*p == '{' && ev.args.n && !nlohmann::json::accept(ev.args.view())) {
                const auto at = static_cast<std::size_t>(ev.args.p - text.data());
                out.replace(at, ev.args.n, "{}" + std::string(ev.args.n - 2, ' '));
            }
            if (!q) return nullptr;
            p = tok.ws(q);
            if (p < end && *p == ',')
                p = tok.ws(p + 1);
            else if (p >= end || *p != ']')
                return nullptr;
        }
        return nullptr;
    };
    const char* p = tok.ws(text.data());
    if (p < end && *p == '[') {
        events(p + 1, 1);
    } else if (p < end && *p == '{') {
        for (p = tok.ws(p + 1); p < end && *p == '"';) {
            TextRef key;
            std::deque<std::string> arena;
            if (!(p = tok.string(p, key, &arena))) break;
            p = tok.ws(p);
            if (p >= end || *p != ':') break;
            p = tok.ws(p + 1);
            p = key.view() == "traceEvents" && p < end && *p == '[' ? events(p + 1, 2)
                                                                    : tok.skipValue(p, 1);
            if (!p) break;
            p = tok.ws(p);
            if (p >= end || *p != ',') break;
            p = tok.ws(p + 1);
        }
    }
    return out;
}

} // namespace rs::test
