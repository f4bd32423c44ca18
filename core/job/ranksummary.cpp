#include "core/job/ranksummary.h"

#include "core/bytesource.h"
#include "core/job/jobloader.h"
#include "core/job/jobnotes.h"
#include "core/job/jobpipeline.h"
#include "core/jsontokenizer.h"
#include "core/producers/registry.h"
#include "core/workpool.h"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <set>

#include <zlib.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rs {

using nlohmann::json;

namespace {

// Fields equal to their default are left out: most collectives have no copy, no mode, no
// verdict, and a summary is read far more often than looked at.
void put(json& o, const char* key, const std::string& v)
{
    if (!v.empty()) o[key] = v;
}
void put(json& o, const char* key, bool v)
{
    if (v) o[key] = true;
}
template <class T>
requires std::is_integral_v<T>
void put(json& o, const char* key, T v)
{
    if (v != 0) o[key] = v;
}
void putReal(json& o, const char* key, double v)
{
    // NaN (unknown) is the default; JSON has no NaN.
    if (std::isfinite(v)) o[key] = v;
}
void put(json& o, const char* key, const std::optional<int>& v)
{
    if (v) o[key] = *v;
}
void putId(json& o, const char* key, EventId e)
{
    if (e != kNone) o[key] = e;
}

json optionsJson(const AnalysisOptions& opt)
{
    json peaks = json::object();
    for (const auto& [n, v] : opt.linkPeaks)
        peaks[n] = v;
    return {{"size_align", opt.sizeAlign}, {"addr_align", opt.addrAlign}, {"link_peaks", peaks}};
}

json collectiveJson(const Collective& c)
{
    json o = json::object();
    putId(o, "event", c.event);
    putId(o, "host_event", c.hostEvent);
    put(o, "rank", c.rank);
    o["kind"] = collectiveKindName(c.kind);
    put(o, "name", c.name);
    put(o, "group", c.group);
    put(o, "algorithm", c.algorithm);
    put(o, "dtype", c.dtype);
    put(o, "count", c.count);
    put(o, "bytes", c.bytes);
    put(o, "group_size", c.groupSize);
    o["start_ns"] = c.start;
    o["dur_ns"] = c.dur;
    put(o, "memcpy_count", c.memcpyCount);
    put(o, "memcpy_ns", c.memcpyNs);
    put(o, "memcpy_bytes", c.memcpyBytes);
    put(o, "unaligned_count", c.unalignedCount);
    put(o, "wait_ns", c.waitNs);
    put(o, "signature", c.signature);
    put(o, "mode", c.mode);
    put(o, "anomalous", c.anomalous);
    put(o, "waiting", c.waiting);
    put(o, "verdict", c.verdict);
    putReal(o, "algbw_gbps", c.algbwGbps);
    putReal(o, "busbw_gbps", c.busbwGbps);
    put(o, "step", c.step);
    put(o, "extra_memcpy_ns", c.extraMemcpyNs);
    if (!c.transfers.empty()) {
        json tr = json::array();
        for (const TransferStat& t : c.transfers) {
            json x = {{"name", t.name}};
            put(x, "bytes", t.bytes);
            put(x, "ns", t.ns);
            put(x, "tasks", t.tasks);
            putReal(x, "large_packet_ratio", t.largePacketRatio);
            putReal(x, "peak_gbps", t.peakGbps);
            putReal(x, "utilization", t.utilization);
            tr.push_back(std::move(x));
        }
        o["transfers"] = std::move(tr);
    }
    if (c.timeInfo) {
        const CommTimeInfo& t = *c.timeInfo;
        o["time_info"] = {{"elapse_ns", t.elapseNs},
                          {"transit_ns", t.transitNs},
                          {"wait_ns", t.waitNs},
                          {"synchronization_ns", t.synchronizationNs},
                          {"idle_ns", t.idleNs},
                          {"wait_ratio", t.waitRatio},
                          {"synchronization_ratio", t.synchronizationRatio},
                          {"master_plane", t.masterPlane}};
    }
    if (c.link) {
        json l = {{"name", c.link->name}, {"basis", c.link->basis}};
        putReal(l, "peak_gbps", c.link->peakGbps);
        putReal(l, "utilization", c.link->utilization);
        o["link"] = std::move(l);
    }
    return o;
}

json findingJson(const Finding& f)
{
    json o = {{"rule", f.rule}, {"severity", severityName(f.severity)}, {"title", f.title}};
    put(o, "rank", f.rank);
    if (!f.events.empty()) o["events"] = f.events;
    if (!f.stack.empty()) {
        json st = json::array();
        for (const StackEntry& s : f.stack) {
            json e = {s.text, s.kind};
            if (s.event != kNone) e.push_back(s.event);
            st.push_back(std::move(e));
        }
        o["stack"] = std::move(st);
    }
    put(o, "recommendation", f.recommendation);
    o["start_ns"] = f.start;
    o["end_ns"] = f.end;
    if (!f.ranks.empty()) o["ranks"] = f.ranks;
    put(o, "events_rank", f.eventsRank);
    put(o, "step", f.step);
    return o;
}

// ---- Reading: every field checked for its JSON type; a wrong one is counted and skipped.

class Reader {
public:
    std::uint64_t bad = 0;
    std::map<std::string, std::uint64_t> badKeys;

    void wrong(const std::string& key)
    {
        ++bad;
        ++badKeys[key];
    }

    // The member of an object, nullptr when absent (or o is not an object: counted by caller).
    static const json* member(const json& o, const char* key)
    {
        if (!o.is_object()) return nullptr;
        auto it = o.find(key);
        return it == o.end() ? nullptr : &*it;
    }

    template <class T>
    requires std::is_integral_v<T>
    void integer(const json& o, const char* key, T& out, const std::string& where)
    {
        const json* v = member(o, key);
        if (!v) return;
        if (v->is_number_unsigned()) {
            const auto x = v->get<std::uint64_t>();
            if (x <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
                out = static_cast<T>(x);
                return;
            }
        } else if (v->is_number_integer()) {
            const auto x = v->get<std::int64_t>();
            if (x >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
                (x < 0 || static_cast<std::uint64_t>(x) <=
                              static_cast<std::uint64_t>(std::numeric_limits<T>::max()))) {
                out = static_cast<T>(x);
                return;
            }
        }
        wrong(where + key);
    }
    void optInteger(const json& o, const char* key, std::optional<int>& out,
                    const std::string& where)
    {
        const json* v = member(o, key);
        if (!v || v->is_null()) return;
        int x = 0;
        const std::uint64_t before = bad;
        integer(o, key, x, where);
        if (bad == before) out = x;
    }
    void real(const json& o, const char* key, double& out, const std::string& where)
    {
        const json* v = member(o, key);
        if (!v || v->is_null()) return;
        if (v->is_number())
            out = v->get<double>();
        else
            wrong(where + key);
    }
    void text(const json& o, const char* key, std::string& out, const std::string& where)
    {
        const json* v = member(o, key);
        if (!v) return;
        if (v->is_string())
            out = v->get<std::string>();
        else
            wrong(where + key);
    }
    void flag(const json& o, const char* key, bool& out, const std::string& where)
    {
        const json* v = member(o, key);
        if (!v) return;
        if (v->is_boolean())
            out = v->get<bool>();
        else
            wrong(where + key);
    }
    // An array member (empty when absent); a value of another type is counted.
    const json& array(const json& o, const char* key, const std::string& where)
    {
        static const json empty = json::array();
        const json* v = member(o, key);
        if (!v) return empty;
        if (v->is_array()) return *v;
        wrong(where + key);
        return empty;
    }
    // An element that must be an object (or array for tuples); false (counted) when not.
    bool object(const json& v, const std::string& where)
    {
        if (v.is_object()) return true;
        wrong(where);
        return false;
    }
    void ids(const json& o, const char* key, std::vector<EventId>& out, const std::string& where)
    {
        for (const json& v : array(o, key, where)) {
            if (v.is_number_unsigned() && v.get<std::uint64_t>() < kNone)
                out.push_back(v.get<EventId>());
            else
                wrong(where + key + "[]");
        }
    }
    void ints(const json& o, const char* key, std::vector<int>& out, const std::string& where)
    {
        for (const json& v : array(o, key, where)) {
            if (v.is_number_integer() && v.get<std::int64_t>() >= std::numeric_limits<int>::min() &&
                v.get<std::int64_t>() <= std::numeric_limits<int>::max())
                out.push_back(v.get<int>());
            else
                wrong(where + key + "[]");
        }
    }
};

CollectiveKind kindFromName(const std::string& s)
{
    for (int k = 0; k <= static_cast<int>(CollectiveKind::Other); ++k) {
        const auto kind = static_cast<CollectiveKind>(k);
        if (s == collectiveKindName(kind)) return kind;
    }
    return CollectiveKind::Other;
}

Severity severityFromName(const std::string& s)
{
    if (s == "error") return Severity::Error;
    if (s == "info") return Severity::Info;
    return Severity::Warning;
}

// A producer's name as the registry knows it: a name it does not know reads "other".
std::string producerFromName(const std::string& s)
{
    return std::string(producers::byName(s).name());
}

Collective readCollective(Reader& rd, const json& o)
{
    const std::string w = "collectives[].";
    Collective c;
    rd.integer(o, "event", c.event, w);
    rd.integer(o, "host_event", c.hostEvent, w);
    rd.optInteger(o, "rank", c.rank, w);
    std::string kind;
    rd.text(o, "kind", kind, w);
    c.kind = kindFromName(kind);
    rd.text(o, "name", c.name, w);
    rd.text(o, "group", c.group, w);
    rd.text(o, "algorithm", c.algorithm, w);
    rd.text(o, "dtype", c.dtype, w);
    rd.integer(o, "count", c.count, w);
    rd.integer(o, "bytes", c.bytes, w);
    rd.integer(o, "group_size", c.groupSize, w);
    rd.integer(o, "start_ns", c.start, w);
    rd.integer(o, "dur_ns", c.dur, w);
    rd.integer(o, "memcpy_count", c.memcpyCount, w);
    rd.integer(o, "memcpy_ns", c.memcpyNs, w);
    rd.integer(o, "memcpy_bytes", c.memcpyBytes, w);
    rd.integer(o, "unaligned_count", c.unalignedCount, w);
    rd.integer(o, "wait_ns", c.waitNs, w);
    rd.integer(o, "signature", c.signature, w);
    rd.optInteger(o, "mode", c.mode, w);
    rd.flag(o, "anomalous", c.anomalous, w);
    rd.flag(o, "waiting", c.waiting, w);
    rd.text(o, "verdict", c.verdict, w);
    rd.real(o, "algbw_gbps", c.algbwGbps, w);
    rd.real(o, "busbw_gbps", c.busbwGbps, w);
    rd.optInteger(o, "step", c.step, w);
    rd.integer(o, "extra_memcpy_ns", c.extraMemcpyNs, w);
    for (const json& t : rd.array(o, "transfers", w)) {
        const std::string tw = w + "transfers[].";
        if (!rd.object(t, w + "transfers[]")) continue;
        TransferStat s;
        rd.text(t, "name", s.name, tw);
        rd.integer(t, "bytes", s.bytes, tw);
        rd.integer(t, "ns", s.ns, tw);
        rd.integer(t, "tasks", s.tasks, tw);
        rd.real(t, "large_packet_ratio", s.largePacketRatio, tw);
        rd.real(t, "peak_gbps", s.peakGbps, tw);
        rd.real(t, "utilization", s.utilization, tw);
        c.transfers.push_back(std::move(s));
    }
    if (const json* t = Reader::member(o, "time_info"); t && !t->is_null()) {
        if (rd.object(*t, w + "time_info")) {
            const std::string tw = w + "time_info.";
            CommTimeInfo x;
            rd.integer(*t, "elapse_ns", x.elapseNs, tw);
            rd.integer(*t, "transit_ns", x.transitNs, tw);
            rd.integer(*t, "wait_ns", x.waitNs, tw);
            rd.integer(*t, "synchronization_ns", x.synchronizationNs, tw);
            rd.integer(*t, "idle_ns", x.idleNs, tw);
            rd.real(*t, "wait_ratio", x.waitRatio, tw);
            rd.real(*t, "synchronization_ratio", x.synchronizationRatio, tw);
            rd.integer(*t, "master_plane", x.masterPlane, tw);
            c.timeInfo = x;
        }
    }
    if (const json* l = Reader::member(o, "link"); l && !l->is_null()) {
        if (rd.object(*l, w + "link")) {
            const std::string lw = w + "link.";
            LinkAssumption x;
            rd.text(*l, "name", x.name, lw);
            rd.text(*l, "basis", x.basis, lw);
            rd.real(*l, "peak_gbps", x.peakGbps, lw);
            rd.real(*l, "utilization", x.utilization, lw);
            c.link = std::move(x);
        }
    }
    return c;
}

Finding readFinding(Reader& rd, const json& o)
{
    const std::string w = "findings[].";
    Finding f;
    rd.text(o, "rule", f.rule, w);
    std::string severity;
    rd.text(o, "severity", severity, w);
    f.severity = severityFromName(severity);
    rd.text(o, "title", f.title, w);
    rd.optInteger(o, "rank", f.rank, w);
    rd.ids(o, "events", f.events, w);
    for (const json& e : rd.array(o, "stack", w)) {
        // [text, kind] or [text, kind, event]
        if (!e.is_array() || e.size() < 2 || e.size() > 3 || !e[0].is_string() ||
            !e[1].is_string() || (e.size() == 3 && !e[2].is_number_unsigned())) {
            rd.wrong(w + "stack[]");
            continue;
        }
        StackEntry s;
        s.text = e[0].get<std::string>();
        s.kind = e[1].get<std::string>();
        if (e.size() == 3 && e[2].get<std::uint64_t>() < kNone) s.event = e[2].get<EventId>();
        f.stack.push_back(std::move(s));
    }
    rd.text(o, "recommendation", f.recommendation, w);
    rd.integer(o, "start_ns", f.start, w);
    rd.integer(o, "end_ns", f.end, w);
    rd.ints(o, "ranks", f.ranks, w);
    rd.optInteger(o, "events_rank", f.eventsRank, w);
    rd.optInteger(o, "step", f.step, w);
    return f;
}

// ---- Reading in one pass: the summary's text walked with the project's tokenizer straight into
// the report (or, slim, into what the cross-rank match reads), with the DOM reader's rules for
// every field (rankSummaryFromJson above is the reference: tst_ranksummary compares them on
// every field given every JSON type). No document is built.

struct Malformed {}; // the text is not JSON: thrown inside, caught by readText

class OnePass {
public:
    OnePass(const char* begin, const char* end, bool slim)
        : m_tk(begin, end), m_p(begin), m_slim(slim)
    {}

    std::uint64_t bad = 0;
    std::map<std::string, std::uint64_t> badKeys;

    void wrong(std::string_view where, std::string_view key = {})
    {
        ++bad;
        std::string k(where);
        k += key;
        ++badKeys[k];
    }

    // The document: an object whose members are handed to f(key); anything else is reported by
    // its JSON type name (nlohmann's: "array", "string", "number", "boolean", "null").
    template <class F> const char* document(F&& f)
    {
        m_p = m_tk.ws(m_p);
        const char* type = nullptr;
        if (peek() == '{')
            members(f);
        else {
            type = typeName();
            skip();
        }
        if (m_p != m_tk.end()) throw Malformed{};
        return type;
    }

    char peek() const { return m_p < m_tk.end() ? *m_p : '\0'; }
    bool isNull() const { return peek() == 'n'; }
    bool isNumber() const
    {
        const char c = peek();
        return c == '-' || (c >= '0' && c <= '9');
    }
    const char* typeName() const
    {
        switch (peek()) {
        case '{':
            return "object";
        case '[':
            return "array";
        case '"':
            return "string";
        case 't':
        case 'f':
            return "boolean";
        case 'n':
            return "null";
        default:
            return "number";
        }
    }

    // Checks a value and goes past it (numbers on the fast path of scalar()).
    void skip()
    {
        const char c = peek();
        if (c == '{')
            members([this](std::string_view) { skip(); });
        else if (c == '[')
            elements([this](std::size_t) { skip(); });
        else
            scalar();
    }
    JsonScalar scalar()
    {
        JsonScalar s;
        if (fastInteger(s)) return s;
        if (!m_arena.empty()) m_arena.clear();
        if (!(m_p = m_tk.scalar(m_p, s, &m_arena))) throw Malformed{};
        m_p = m_tk.ws(m_p);
        return s;
    }

    // p at '{': each member's value handed to f(key), which reads or skips it.
    template <class F> void members(F&& f)
    {
        if (++m_depth > JsonTokenizer::kMaxDepth) throw Malformed{};
        m_p = m_tk.ws(m_p + 1);
        if (peek() == '}') {
            ++m_p;
        } else {
            for (;;) {
                if (peek() != '"') throw Malformed{};
                // The key is a view into the text (into m_keyArena when it has escapes): the
                // member's reader compares it before reading nested objects.
                TextRef key;
                if (!m_keyArena.empty()) m_keyArena.clear();
                if (!(m_p = m_tk.string(m_p, key, &m_keyArena))) throw Malformed{};
                m_p = m_tk.ws(m_p);
                if (peek() != ':') throw Malformed{};
                m_p = m_tk.ws(m_p + 1);
                f(key.view());
                if (peek() == ',') {
                    m_p = m_tk.ws(m_p + 1);
                    continue;
                }
                if (peek() != '}') throw Malformed{};
                ++m_p;
                break;
            }
        }
        --m_depth;
        m_p = m_tk.ws(m_p);
    }
    // p at '[': each element handed to f(index), which reads or skips it.
    template <class F> void elements(F&& f)
    {
        if (++m_depth > JsonTokenizer::kMaxDepth) throw Malformed{};
        m_p = m_tk.ws(m_p + 1);
        if (peek() == ']') {
            ++m_p;
        } else {
            for (std::size_t i = 0;; ++i) {
                f(i);
                if (peek() == ',') {
                    m_p = m_tk.ws(m_p + 1);
                    continue;
                }
                if (peek() != ']') throw Malformed{};
                ++m_p;
                break;
            }
        }
        --m_depth;
        m_p = m_tk.ws(m_p);
    }

    // ---- Fields, with Reader's rules (a wrong type counted as where + key, the value skipped).

    template <class T>
    requires std::is_integral_v<T>
    static bool fits(const JsonScalar& s, T& out)
    {
        if (s.kind == JsonScalar::UInt) {
            if (s.bits <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
                out = static_cast<T>(s.bits);
                return true;
            }
        } else if (s.kind == JsonScalar::Int) {
            const auto x = static_cast<std::int64_t>(s.bits);
            if (x >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
                (x < 0 || static_cast<std::uint64_t>(x) <=
                              static_cast<std::uint64_t>(std::numeric_limits<T>::max()))) {
                out = static_cast<T>(x);
                return true;
            }
        }
        return false;
    }
    static double toDouble(const JsonScalar& s)
    {
        if (s.kind == JsonScalar::UInt) return static_cast<double>(s.bits);
        if (s.kind == JsonScalar::Int)
            return static_cast<double>(static_cast<std::int64_t>(s.bits));
        double v = 0;
        const std::string_view t = s.text.view();
        std::from_chars(t.data(), t.data() + t.size(), v);
        return v;
    }
    template <class T>
    requires std::is_integral_v<T>
    void integer(T& out, std::string_view where, std::string_view key)
    {
        if (isNumber()) {
            if (fits(scalar(), out)) return;
        } else {
            skip();
        }
        wrong(where, key);
    }
    void optInteger(std::optional<int>& out, std::string_view where, std::string_view key)
    {
        if (isNull()) return skip();
        int x = 0;
        const std::uint64_t before = bad;
        integer(x, where, key);
        if (bad == before) out = x;
    }
    void real(double& out, std::string_view where, std::string_view key)
    {
        if (isNull()) return skip();
        if (isNumber()) {
            out = toDouble(scalar());
            return;
        }
        skip();
        wrong(where, key);
    }
    void text(std::string& out, std::string_view where, std::string_view key)
    {
        if (peek() == '"') {
            out = std::string(scalar().text.view());
            return;
        }
        skip();
        wrong(where, key);
    }
    void flag(bool& out, std::string_view where, std::string_view key)
    {
        if (peek() == 't' || peek() == 'f') {
            out = scalar().boolean;
            return;
        }
        skip();
        wrong(where, key);
    }
    // An array member: each element to f(index); another type counted.
    template <class F> void array(std::string_view where, std::string_view key, F&& f)
    {
        if (peek() == '[') return elements(f);
        skip();
        wrong(where, key);
    }
    // A value that must be an object: its members to f(key); false (counted) when not.
    template <class F> bool object(std::string_view where, F&& f)
    {
        if (peek() == '{') {
            members(f);
            return true;
        }
        skip();
        wrong(where);
        return false;
    }
    // An array of scalars: each to f(scalar) (which says whether it is good); a container
    // element is skipped and given as Absent.
    template <class F> void scalars(std::string_view where, std::string_view key, F&& f)
    {
        array(where, key, [&](std::size_t) {
            JsonScalar s;
            if (peek() == '{' || peek() == '[')
                skip();
            else
                s = scalar();
            if (!f(s)) wrong(std::string(where) + std::string(key), "[]");
        });
    }
    // A tuple: an array of scalars only, else nullopt (its containers skipped).
    // Valid until the next tuple().
    const std::vector<JsonScalar>* tuple()
    {
        if (peek() != '[') {
            skip();
            return nullptr;
        }
        m_tuple.clear();
        m_tupleTexts.clear();
        bool flat = true;
        elements([&](std::size_t) {
            if (peek() == '{' || peek() == '[') {
                skip();
                flat = false;
                return;
            }
            JsonScalar s = scalar();
            if (s.kind == JsonScalar::String) {
                // Strings outlive the arena: kept here, the scalar points at them by index.
                m_tupleTexts.emplace_back(s.text.view());
                s.bits = m_tupleTexts.size() - 1;
            }
            m_tuple.push_back(s);
        });
        return flat ? &m_tuple : nullptr;
    }
    const std::string& tupleText(const JsonScalar& s) const { return m_tupleTexts[s.bits]; }

    bool slim() const { return m_slim; }

private:
    // The common number, an integer of up to 18 digits, read here; anything else (a fraction,
    // an exponent, a longer one, a bad one) by the tokenizer, whose rules it follows.
    bool fastInteger(JsonScalar& s)
    {
        const char* p = m_p;
        const char* end = m_tk.end();
        const bool neg = p < end && *p == '-';
        if (neg) ++p;
        const char* digits = p;
        std::uint64_t v = 0;
        while (p < end && *p >= '0' && *p <= '9' && p - digits < 19)
            v = v * 10 + static_cast<unsigned>(*p++ - '0');
        const std::ptrdiff_t n = p - digits;
        if (n == 0 || n > 18 || (n > 1 && *digits == '0') || p >= end || *p == '.' || *p == 'e' ||
            *p == 'E')
            return false;
        s.kind = neg ? JsonScalar::Int : JsonScalar::UInt;
        s.bits = neg ? 0 - v : v;
        s.boolean = false;
        s.text = {m_p, static_cast<std::uint32_t>(p - m_p)};
        m_p = m_tk.ws(p);
        return true;
    }

    JsonTokenizer m_tk;
    const char* m_p;
    bool m_slim;
    int m_depth = 0;
    std::deque<std::string> m_arena, m_keyArena;
    std::vector<JsonScalar> m_tuple;
    std::vector<std::string> m_tupleTexts;
};

bool isInt(const JsonScalar& s)
{
    return s.kind == JsonScalar::Int || s.kind == JsonScalar::UInt;
}
std::int64_t asInt64(const JsonScalar& s)
{
    return static_cast<std::int64_t>(s.bits);
}

// A key's tag for a switch (length and three of its bytes); equal tags are told apart by the
// comparison in each case, and two keys of one switch with the same tag do not compile.
constexpr std::uint32_t keyTag(std::string_view k)
{
    if (k.empty()) return 0;
    return static_cast<std::uint32_t>(k.size() & 0xff) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(k[0])) << 8 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(k[k.size() / 2])) << 16 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(k.back())) << 24;
}
#define RS_KEY(name)                                                                               \
    case keyTag(name):                                                                             \
        if (k == name)

void readCollectiveText(OnePass& rd, Collective& c)
{
    const std::string_view w = "collectives[].";
    // Slim: only what the cross-rank match reads; the rest skipped (the full read counts it).
    rd.members([&](std::string_view k) {
        switch (keyTag(k)) {
            RS_KEY("event") return rd.integer(c.event, w, k);
            break;
            RS_KEY("kind")
            {
                std::string kind;
                rd.text(kind, w, k);
                c.kind = kindFromName(kind);
                return;
            }
            break;
            RS_KEY("name") return rd.text(c.name, w, k);
            break;
            RS_KEY("group") return rd.text(c.group, w, k);
            break;
            RS_KEY("start_ns") return rd.integer(c.start, w, k);
            break;
            RS_KEY("dur_ns") return rd.integer(c.dur, w, k);
            break;
            RS_KEY("wait_ns") return rd.integer(c.waitNs, w, k);
            break;
            RS_KEY("signature") return rd.integer(c.signature, w, k);
            break;
            RS_KEY("step") return rd.optInteger(c.step, w, k);
            break;
            RS_KEY("extra_memcpy_ns") return rd.integer(c.extraMemcpyNs, w, k);
            break;
        default:
            break;
        }
        if (rd.slim()) return rd.skip();
        switch (keyTag(k)) {
            RS_KEY("host_event") return rd.integer(c.hostEvent, w, k);
            break;
            RS_KEY("rank") return rd.optInteger(c.rank, w, k);
            break;
            RS_KEY("algorithm") return rd.text(c.algorithm, w, k);
            break;
            RS_KEY("dtype") return rd.text(c.dtype, w, k);
            break;
            RS_KEY("count") return rd.integer(c.count, w, k);
            break;
            RS_KEY("bytes") return rd.integer(c.bytes, w, k);
            break;
            RS_KEY("group_size") return rd.integer(c.groupSize, w, k);
            break;
            RS_KEY("memcpy_count") return rd.integer(c.memcpyCount, w, k);
            break;
            RS_KEY("memcpy_ns") return rd.integer(c.memcpyNs, w, k);
            break;
            RS_KEY("memcpy_bytes") return rd.integer(c.memcpyBytes, w, k);
            break;
            RS_KEY("unaligned_count") return rd.integer(c.unalignedCount, w, k);
            break;
            RS_KEY("mode") return rd.optInteger(c.mode, w, k);
            break;
            RS_KEY("anomalous") return rd.flag(c.anomalous, w, k);
            break;
            RS_KEY("waiting") return rd.flag(c.waiting, w, k);
            break;
            RS_KEY("verdict") return rd.text(c.verdict, w, k);
            break;
            RS_KEY("algbw_gbps") return rd.real(c.algbwGbps, w, k);
            break;
            RS_KEY("busbw_gbps") return rd.real(c.busbwGbps, w, k);
            break;
            RS_KEY("transfers")
            {
                c.transfers.clear();
                return rd.array(w, k, [&](std::size_t) {
                    const std::string_view tw = "collectives[].transfers[].";
                    TransferStat s;
                    if (!rd.object("collectives[].transfers[]", [&](std::string_view t) {
                            switch (keyTag(t)) {
                            case keyTag("name"):
                                if (t == "name") return rd.text(s.name, tw, t);
                                break;
                            case keyTag("bytes"):
                                if (t == "bytes") return rd.integer(s.bytes, tw, t);
                                break;
                            case keyTag("ns"):
                                if (t == "ns") return rd.integer(s.ns, tw, t);
                                break;
                            case keyTag("tasks"):
                                if (t == "tasks") return rd.integer(s.tasks, tw, t);
                                break;
                            case keyTag("large_packet_ratio"):
                                if (t == "large_packet_ratio")
                                    return rd.real(s.largePacketRatio, tw, t);
                                break;
                            case keyTag("peak_gbps"):
                                if (t == "peak_gbps") return rd.real(s.peakGbps, tw, t);
                                break;
                            case keyTag("utilization"):
                                if (t == "utilization") return rd.real(s.utilization, tw, t);
                                break;
                            default:
                                break;
                            }
                            rd.skip();
                        }))
                        return;
                    c.transfers.push_back(std::move(s));
                });
            }
            break;
            RS_KEY("time_info")
            {
                if (rd.isNull()) return rd.skip();
                const std::string_view tw = "collectives[].time_info.";
                CommTimeInfo x;
                if (rd.object("collectives[].time_info", [&](std::string_view t) {
                        switch (keyTag(t)) {
                        case keyTag("elapse_ns"):
                            if (t == "elapse_ns") return rd.integer(x.elapseNs, tw, t);
                            break;
                        case keyTag("transit_ns"):
                            if (t == "transit_ns") return rd.integer(x.transitNs, tw, t);
                            break;
                        case keyTag("wait_ns"):
                            if (t == "wait_ns") return rd.integer(x.waitNs, tw, t);
                            break;
                        case keyTag("synchronization_ns"):
                            if (t == "synchronization_ns")
                                return rd.integer(x.synchronizationNs, tw, t);
                            break;
                        case keyTag("idle_ns"):
                            if (t == "idle_ns") return rd.integer(x.idleNs, tw, t);
                            break;
                        case keyTag("wait_ratio"):
                            if (t == "wait_ratio") return rd.real(x.waitRatio, tw, t);
                            break;
                        case keyTag("synchronization_ratio"):
                            if (t == "synchronization_ratio")
                                return rd.real(x.synchronizationRatio, tw, t);
                            break;
                        case keyTag("master_plane"):
                            if (t == "master_plane") return rd.integer(x.masterPlane, tw, t);
                            break;
                        default:
                            break;
                        }
                        rd.skip();
                    }))
                    c.timeInfo = x;
                return;
            }
            break;
            RS_KEY("link")
            {
                if (rd.isNull()) return rd.skip();
                const std::string_view lw = "collectives[].link.";
                LinkAssumption x;
                if (rd.object("collectives[].link", [&](std::string_view t) {
                        if (t == "name") return rd.text(x.name, lw, t);
                        if (t == "basis") return rd.text(x.basis, lw, t);
                        if (t == "peak_gbps") return rd.real(x.peakGbps, lw, t);
                        if (t == "utilization") return rd.real(x.utilization, lw, t);
                        rd.skip();
                    }))
                    c.link = std::move(x);
                return;
            }
            break;
        default:
            break;
        }
        rd.skip();
    });
}

void readFindingText(OnePass& rd, Finding& f)
{
    const std::string_view w = "findings[].";
    rd.members([&](std::string_view k) {
        if (k == "rule") return rd.text(f.rule, w, k);
        if (k == "severity") {
            std::string severity;
            rd.text(severity, w, k);
            f.severity = severityFromName(severity);
            return;
        }
        if (k == "title") return rd.text(f.title, w, k);
        if (k == "rank") return rd.optInteger(f.rank, w, k);
        if (k == "events") {
            f.events.clear();
            return rd.scalars(w, k, [&](const JsonScalar& s) {
                if (s.kind != JsonScalar::UInt || s.bits >= kNone) return false;
                f.events.push_back(static_cast<EventId>(s.bits));
                return true;
            });
        }
        if (k == "stack") {
            f.stack.clear();
            return rd.array(w, k, [&](std::size_t) {
                // [text, kind] or [text, kind, event]
                const auto e = rd.tuple();
                if (!e || e->size() < 2 || e->size() > 3 || (*e)[0].kind != JsonScalar::String ||
                    (*e)[1].kind != JsonScalar::String ||
                    (e->size() == 3 && (*e)[2].kind != JsonScalar::UInt)) {
                    rd.wrong("findings[].stack[]");
                    return;
                }
                StackEntry s;
                s.text = rd.tupleText((*e)[0]);
                s.kind = rd.tupleText((*e)[1]);
                if (e->size() == 3 && (*e)[2].bits < kNone)
                    s.event = static_cast<EventId>((*e)[2].bits);
                f.stack.push_back(std::move(s));
            });
        }
        if (k == "recommendation") return rd.text(f.recommendation, w, k);
        if (k == "start_ns") return rd.integer(f.start, w, k);
        if (k == "end_ns") return rd.integer(f.end, w, k);
        if (k == "ranks") {
            f.ranks.clear();
            return rd.scalars(w, k, [&](const JsonScalar& s) {
                // As nlohmann's get<std::int64_t>() reads it, then the range of an int.
                if (!isInt(s) || asInt64(s) < std::numeric_limits<int>::min() ||
                    asInt64(s) > std::numeric_limits<int>::max())
                    return false;
                f.ranks.push_back(static_cast<int>(asInt64(s)));
                return true;
            });
        }
        if (k == "events_rank") return rd.optInteger(f.eventsRank, w, k);
        if (k == "step") return rd.optInteger(f.step, w, k);
        rd.skip();
    });
}

// What one pass gives: the report (full) or the slim rank, and why it was refused.
struct TextRead {
    std::string error;
    std::shared_ptr<AnalysisReport> report;
    std::shared_ptr<TraceFacts> facts;
    JobRank slim;
    std::uint64_t bad = 0;
    std::map<std::string, std::uint64_t> badKeys;
};

TextRead readText(std::string_view text, bool slim)
{
    TextRead out;
    auto rep = std::make_shared<AnalysisReport>();
    auto facts = std::make_shared<TraceFacts>();
    OnePass rd(text.data(), text.data() + text.size(), slim);
    std::optional<std::string> schema;
    bool schemaString = false;
    // Checked once every section is read: they may come in any order.
    std::vector<std::uint64_t> members;             // signatures' members, per signature
    std::vector<std::size_t> memberCount;           // of each signature
    std::vector<std::vector<MatrixEntry>> linkSets; // link_sets
    std::vector<std::pair<MatrixEntry, std::size_t>> matrixHeads;
    try {
        const char* notObject = rd.document([&](std::string_view key) {
            if (key == "schema") {
                schemaString = rd.peek() == '"';
                if (schemaString) {
                    schema = std::string(rd.scalar().text.view());
                } else {
                    schema.reset();
                    rd.skip();
                }
                return;
            }
            if (key == "trace") {
                const std::string_view w = "trace.";
                rd.object("trace", [&](std::string_view k) {
                    if (k == "rank") return rd.optInteger(facts->rank, w, k);
                    if (k == "base_time_ns") {
                        if (rd.isNull()) return rd.skip();
                        TimeNs base = 0;
                        const std::uint64_t before = rd.bad;
                        rd.integer(base, w, k);
                        if (rd.bad == before) facts->baseTimeNs = base;
                        return;
                    }
                    if (k == "path") return rd.text(facts->path, w, k);
                    if (rd.slim()) return rd.skip();
                    if (k == "producer") {
                        std::string producer;
                        rd.text(producer, w, k);
                        facts->producer = producerFromName(producer);
                        return;
                    }
                    if (k == "events") return rd.integer(facts->events, w, k);
                    if (k == "warnings") {
                        facts->warnings.clear();
                        return rd.scalars(w, k, [&](const JsonScalar& s) {
                            if (s.kind != JsonScalar::String) return false;
                            facts->warnings.emplace_back(s.text.view());
                            return true;
                        });
                    }
                    if (k == "start_ns") return rd.integer(facts->startNs, w, k);
                    if (k == "end_ns") return rd.integer(facts->endNs, w, k);
                    rd.skip();
                });
                return;
            }
            if (key == "options") {
                const std::string_view w = "options.";
                rd.object("options", [&](std::string_view k) {
                    if (k == "size_align") return rd.integer(rep->options.sizeAlign, w, k);
                    if (k == "addr_align") return rd.integer(rep->options.addrAlign, w, k);
                    if (k == "link_peaks") {
                        if (rd.peek() != '{') {
                            rd.skip();
                            return rd.wrong("options.link_peaks");
                        }
                        rep->options.linkPeaks.clear();
                        rd.members([&](std::string_view name) {
                            if (rd.isNumber())
                                rep->options.linkPeaks[std::string(name)] =
                                    OnePass::toDouble(rd.scalar());
                            else {
                                rd.skip();
                                rd.wrong("options.link_peaks.", name);
                            }
                        });
                        return;
                    }
                    rd.skip();
                });
                return;
            }
            if (key == "collectives") {
                rep->collectives.clear();
                rd.array("", key, [&](std::size_t) {
                    if (rd.peek() != '{') {
                        rd.skip();
                        return rd.wrong("collectives[]");
                    }
                    Collective c;
                    readCollectiveText(rd, c);
                    rep->collectives.push_back(std::move(c));
                });
                return;
            }
            if (key == "signatures") {
                rep->signatures.clear();
                members.clear();
                memberCount.clear();
                rd.array("", key, [&](std::size_t) {
                    const std::string_view w = "signatures[].";
                    SignatureGroup g;
                    std::vector<std::uint64_t> mine;
                    if (!rd.object("signatures[]", [&](std::string_view k) {
                            if (k == "modes") {
                                g.modes.clear();
                                return rd.array(w, k, [&](std::size_t) {
                                    // [mean_ns, min_ns, max_ns, members, with_extra_copy]
                                    const auto m = rd.tuple();
                                    if (!m || m->size() != 5 ||
                                        !std::all_of(m->begin(), m->end(), isInt)) {
                                        rd.wrong("signatures[].modes[]");
                                        return;
                                    }
                                    g.modes.push_back({asInt64((*m)[0]), asInt64((*m)[1]),
                                                       asInt64((*m)[2]),
                                                       static_cast<int>(asInt64((*m)[3])),
                                                       static_cast<int>(asInt64((*m)[4]))});
                                });
                            }
                            if (rd.slim()) return rd.skip();
                            if (k == "label") return rd.text(g.label, w, k);
                            if (k == "members") {
                                mine.clear();
                                return rd.scalars(w, k, [&](const JsonScalar& s) {
                                    // Checked against the collectives at the end.
                                    mine.push_back(s.kind == JsonScalar::UInt ? s.bits
                                                                              : ~std::uint64_t(0));
                                    return true;
                                });
                            }
                            if (k == "baseline_memcpy_ns")
                                return rd.integer(g.baselineMemcpyNs, w, k);
                            if (k == "summary") return rd.text(g.summary, w, k);
                            rd.skip();
                        }))
                        return;
                    memberCount.push_back(mine.size());
                    members.insert(members.end(), mine.begin(), mine.end());
                    rep->signatures.push_back(std::move(g));
                });
                return;
            }
            if (rd.slim()) return rd.skip();
            if (key == "bad_fields") return rd.integer(rep->badFields, "", key);
            if (key == "warnings") {
                rep->warnings.clear();
                return rd.scalars("", key, [&](const JsonScalar& s) {
                    if (s.kind != JsonScalar::String) return false;
                    rep->warnings.emplace_back(s.text.view());
                    return true;
                });
            }
            if (key == "events") {
                facts->slices.clear();
                return rd.array("", key, [&](std::size_t) {
                    const auto e = rd.tuple();
                    if (!e || e->size() != 4 || (*e)[0].kind != JsonScalar::UInt ||
                        (*e)[0].bits >= kNone || (*e)[1].kind != JsonScalar::String ||
                        !isInt((*e)[2]) || !isInt((*e)[3])) {
                        rd.wrong("events[]");
                        return;
                    }
                    facts->slices.push_back({static_cast<EventId>((*e)[0].bits),
                                             rd.tupleText((*e)[1]), asInt64((*e)[2]),
                                             asInt64((*e)[3])});
                });
            }
            if (key == "steps") {
                rep->steps.clear();
                return rd.array("", key, [&](std::size_t) {
                    const std::string_view w = "steps[].";
                    StepStats s;
                    if (rd.object("steps[]", [&](std::string_view k) {
                            if (k == "step") return rd.integer(s.step, w, k);
                            if (k == "rank") return rd.optInteger(s.rank, w, k);
                            if (k == "event") return rd.integer(s.event, w, k);
                            if (k == "start_ns") return rd.integer(s.start, w, k);
                            if (k == "end_ns") return rd.integer(s.end, w, k);
                            if (k == "computing_ns") return rd.integer(s.computing, w, k);
                            if (k == "communication_ns") return rd.integer(s.communication, w, k);
                            if (k == "overlapped_ns") return rd.integer(s.overlapped, w, k);
                            if (k == "communication_not_overlapped_ns")
                                return rd.integer(s.communicationNotOverlapped, w, k);
                            if (k == "free_ns") return rd.integer(s.free, w, k);
                            if (k == "busy_start_ns") return rd.integer(s.busyStart, w, k);
                            if (k == "busy_end_ns") return rd.integer(s.busyEnd, w, k);
                            if (k == "internal_memcpy_ns")
                                return rd.integer(s.internalMemcpy, w, k);
                            rd.skip();
                        }))
                        rep->steps.push_back(s);
                });
            }
            if (key == "findings") {
                rep->findings.clear();
                return rd.array("", key, [&](std::size_t) {
                    if (rd.peek() != '{') {
                        rd.skip();
                        return rd.wrong("findings[]");
                    }
                    Finding f;
                    readFindingText(rd, f);
                    rep->findings.push_back(std::move(f));
                });
            }
            if (key == "link_sets") {
                linkSets.clear();
                // [src, dst, transport, bytes, ns] or with a sixth element, GB/s (null: NaN).
                return rd.array("", key, [&](std::size_t) {
                    linkSets.emplace_back();
                    if (rd.peek() != '[') {
                        rd.skip();
                        return rd.wrong("link_sets[]");
                    }
                    rd.elements([&](std::size_t) {
                        const auto l = rd.tuple();
                        auto isInt32 = [](const JsonScalar& s) {
                            return asInt64(s) == static_cast<int>(asInt64(s));
                        };
                        if (!l || l->size() < 5 || l->size() > 6 || !isInt((*l)[0]) ||
                            !isInt((*l)[1]) || (*l)[2].kind != JsonScalar::String ||
                            (*l)[3].kind != JsonScalar::UInt || !isInt((*l)[4]) ||
                            (l->size() == 6 && (*l)[5].kind != JsonScalar::Int &&
                             (*l)[5].kind != JsonScalar::UInt &&
                             (*l)[5].kind != JsonScalar::Float &&
                             (*l)[5].kind != JsonScalar::Null) ||
                            !isInt32((*l)[0]) || !isInt32((*l)[1])) {
                            rd.wrong("link_sets[][]");
                            return;
                        }
                        MatrixEntry m;
                        m.src = static_cast<int>(asInt64((*l)[0]));
                        m.dst = static_cast<int>(asInt64((*l)[1]));
                        m.transport = rd.tupleText((*l)[2]);
                        m.bytes = (*l)[3].bits;
                        m.ns = asInt64((*l)[4]);
                        if (l->size() == 6)
                            m.gbps =
                                (*l)[5].kind == JsonScalar::Null ? NAN : OnePass::toDouble((*l)[5]);
                        else
                            m.gbps = m.ns > 0 ? double(m.bytes) / double(m.ns) : 0.0;
                        linkSets.back().push_back(std::move(m));
                    });
                });
            }
            if (key == "matrix") {
                matrixHeads.clear();
                return rd.array("", key, [&](std::size_t) {
                    const std::string_view w = "matrix[].";
                    MatrixEntry head;
                    std::size_t set = ~std::size_t(0); // none: counted at the end
                    if (rd.object("matrix[]", [&](std::string_view k) {
                            if (k == "rank") return rd.optInteger(head.rank, w, k);
                            if (k == "step") return rd.optInteger(head.step, w, k);
                            if (k == "op_group") return rd.text(head.opGroup, w, k);
                            if (k == "group") return rd.text(head.group, w, k);
                            if (k == "op_name") {
                                if (rd.isNull()) return rd.skip();
                                std::string name;
                                const std::uint64_t before = rd.bad;
                                rd.text(name, w, k);
                                if (rd.bad == before) head.opName = std::move(name);
                                return;
                            }
                            if (k == "links") {
                                std::size_t x = 0;
                                const std::uint64_t before = rd.bad;
                                rd.integer(x, w, k);
                                set = rd.bad == before ? x : ~std::size_t(0);
                                return;
                            }
                            rd.skip();
                        }))
                        matrixHeads.emplace_back(std::move(head), set);
                });
            }
            rd.skip();
        });
        if (notObject) {
            out.error = std::string("not a ringscope rank summary (a JSON ") + notObject +
                        ", not an object)";
            return out;
        }
    } catch (const Malformed&) {
        out.error = "not JSON (a cut or damaged summary?)";
        return out;
    }
    if (!schema || !schemaString) {
        out.error = "not a ringscope rank summary (no \"schema\"; it is written by `ringscope "
                    "analyze RANK --summary-out FILE`)";
        return out;
    }
    if (*schema != kRankSummarySchema) {
        out.error = "a " + *schema + " summary; this ringscope reads " + kRankSummarySchema +
                    " only: merge with the ringscope that wrote it, or write the summary again "
                    "with this one";
        return out;
    }

    // What the DOM reader checks in its order: members against the collectives, collectives'
    // signatures against the signatures, matrix rows against the link sets.
    std::size_t at = 0;
    for (std::size_t s = 0; s < rep->signatures.size(); ++s) {
        for (std::size_t k = 0; k < memberCount[s]; ++k, ++at) {
            if (members[at] < rep->collectives.size())
                rep->signatures[s].members.push_back(static_cast<std::uint32_t>(members[at]));
            else
                rd.wrong("signatures[].members[]");
        }
    }
    for (Collective& c : rep->collectives) {
        if (c.signature >= rep->signatures.size() && !rep->signatures.empty()) {
            rd.wrong("collectives[].signature");
            c.signature = 0;
        }
    }
    if (slim) {
        out.slim.rank = facts->rank;
        out.slim.baseTimeNs = facts->baseTimeNs;
        out.slim.collectives.reserve(rep->collectives.size());
        for (const Collective& c : rep->collectives) {
            TimeNs fast = 0;
            if (c.signature < rep->signatures.size() && !rep->signatures[c.signature].modes.empty())
                fast = std::max<TimeNs>(0, rep->signatures[c.signature].modes.front().meanNs);
            out.slim.add(c, fast);
        }
        rep->collectives.clear();
        rep->collectives.shrink_to_fit();
        rep->signatures.clear();
    }
    std::sort(facts->slices.begin(), facts->slices.end(),
              [](const EventFacts& a, const EventFacts& b) { return a.id < b.id; });
    for (auto& [head, set] : matrixHeads) {
        if (set >= linkSets.size()) {
            rd.wrong("matrix[].links");
            continue;
        }
        for (const MatrixEntry& l : linkSets[set]) {
            MatrixEntry m = head;
            m.src = l.src;
            m.dst = l.dst;
            m.transport = l.transport;
            m.bytes = l.bytes;
            m.ns = l.ns;
            m.gbps = l.gbps;
            rep->matrix.push_back(std::move(m));
        }
    }
    rep->facts = facts;
    out.facts = std::move(facts);
    out.report = std::move(rep);
    out.bad = rd.bad;
    out.badKeys = std::move(rd.badKeys);
    return out;
}

// A summary's text: a plain file mapped as it is, a gzip one inflated (ByteSource) into memory.
class FileText {
public:
    FileText() = default;
    FileText(const FileText&) = delete;
    FileText& operator=(const FileText&) = delete;
    ~FileText()
    {
        if (m_map) munmap(m_map, m_mapLength);
    }
    std::string_view view() const { return m_map ? m_mapped : std::string_view(m_own); }

    bool open(const std::string& file, std::string* error)
    {
        const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            struct stat st {};
            unsigned char magic[2] = {0, 0};
            const bool plain = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 2 &&
                               ::pread(fd, magic, 2, 0) == 2 &&
                               !(magic[0] == 0x1f && magic[1] == 0x8b);
            if (plain) {
                const auto n = static_cast<std::size_t>(st.st_size);
                void* m = mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0);
                if (m != MAP_FAILED) {
                    ::close(fd);
                    m_map = m;
                    m_mapLength = n;
                    m_mapped = std::string_view(static_cast<const char*>(m), n);
                    // The tokenizer needs a byte after a number that ends the text.
                    const char last = m_mapped.back();
                    if (last >= '0' && last <= '9') {
                        m_own = std::string(m_mapped) + "\n";
                        munmap(m_map, m_mapLength);
                        m_map = nullptr;
                    }
                    return true;
                }
            }
            ::close(fd);
        }
        // Gzip, a pipe, an empty or unmappable file: through ByteSource.
        auto src = ByteSource::open(file, error);
        if (!src) return false;
        m_own.reserve(static_cast<std::size_t>(src->fileSize()) * (src->gzip() ? 6 : 1) + 2);
        char buf[1 << 16];
        for (std::size_t n; (n = src->read(buf, sizeof buf)) > 0;)
            m_own.append(buf, n);
        if (!src->error().empty()) {
            *error = src->error();
            return false;
        }
        m_own += '\n';
        return true;
    }

private:
    std::string m_own;
    void* m_map = nullptr;
    std::size_t m_mapLength = 0;
    std::string_view m_mapped;
};

} // namespace

json rankSummaryToJson(const AnalysisReport& rep, const std::string& path)
{
    TraceFacts facts = traceFacts(rep);
    facts.path = path;
    json j;
    j["schema"] = kRankSummarySchema;
    json in = {{"path", facts.path},         {"producer", facts.producer}, {"events", facts.events},
               {"warnings", facts.warnings}, {"start_ns", facts.startNs},  {"end_ns", facts.endNs}};
    put(in, "rank", facts.rank);
    if (facts.baseTimeNs) in["base_time_ns"] = *facts.baseTimeNs;
    j["trace"] = std::move(in);
    j["options"] = optionsJson(rep.options);
    j["bad_fields"] = rep.badFields;
    j["warnings"] = rep.warnings;
    // The events the report names: [id, name, start_ns, dur_ns].
    json events = json::array();
    for (const EventFacts& e : facts.slices)
        events.push_back({e.id, e.name, e.start, e.dur});
    j["events"] = std::move(events);
    json cols = json::array();
    for (const Collective& c : rep.collectives)
        cols.push_back(collectiveJson(c));
    j["collectives"] = std::move(cols);
    json sigs = json::array();
    for (const SignatureGroup& g : rep.signatures) {
        json modes = json::array();
        for (const DurationMode& m : g.modes)
            modes.push_back({m.meanNs, m.minNs, m.maxNs, m.members, m.withExtraCopy});
        json s = {{"label", g.label}, {"members", g.members}, {"modes", std::move(modes)}};
        put(s, "baseline_memcpy_ns", g.baselineMemcpyNs);
        put(s, "summary", g.summary);
        sigs.push_back(std::move(s));
    }
    j["signatures"] = std::move(sigs);
    json steps = json::array();
    for (const StepStats& s : rep.steps) {
        json o = {{"step", s.step}, {"start_ns", s.start}, {"end_ns", s.end}};
        put(o, "rank", s.rank);
        putId(o, "event", s.event);
        put(o, "computing_ns", s.computing);
        put(o, "communication_ns", s.communication);
        put(o, "overlapped_ns", s.overlapped);
        put(o, "communication_not_overlapped_ns", s.communicationNotOverlapped);
        put(o, "free_ns", s.free);
        put(o, "busy_start_ns", s.busyStart);
        put(o, "busy_end_ns", s.busyEnd);
        put(o, "internal_memcpy_ns", s.internalMemcpy);
        steps.push_back(std::move(o));
    }
    j["steps"] = std::move(steps);
    json finds = json::array();
    for (const Finding& f : rep.findings)
        finds.push_back(findingJson(f));
    j["findings"] = std::move(finds);
    // The matrix: one entry per run of links of one (rank, step, op group, op), its links a
    // list shared by every entry with the same links (top1 = middle = total with one op a
    // step, and steps alike): the rows would otherwise outweigh the rest of the summary.
    json matrix = json::array(), linkSets = json::array();
    std::map<std::string, std::size_t> setIndex;
    for (std::size_t i = 0; i < rep.matrix.size();) {
        const MatrixEntry& m = rep.matrix[i];
        std::size_t e = i;
        json links = json::array();
        for (; e < rep.matrix.size(); ++e) {
            const MatrixEntry& x = rep.matrix[e];
            if (x.rank != m.rank || x.step != m.step || x.opGroup != m.opGroup ||
                x.group != m.group || x.opName != m.opName)
                break;
            json l = {x.src, x.dst, x.transport, x.bytes, x.ns};
            // GB/s as the analysis computes it is left out and recomputed on reading.
            const double computed = x.ns > 0 ? double(x.bytes) / double(x.ns) : 0.0;
            if (!(x.gbps == computed))
                l.push_back(std::isfinite(x.gbps) ? json(x.gbps) : json(nullptr));
            links.push_back(std::move(l));
        }
        std::string key = links.dump();
        auto [it, added] = setIndex.emplace(std::move(key), linkSets.size());
        if (added) linkSets.push_back(std::move(links));
        json o = {{"op_group", m.opGroup}, {"links", it->second}};
        put(o, "rank", m.rank);
        put(o, "step", m.step);
        put(o, "group", m.group);
        if (m.opName) o["op_name"] = *m.opName;
        matrix.push_back(std::move(o));
        i = e;
    }
    j["link_sets"] = std::move(linkSets);
    j["matrix"] = std::move(matrix);
    return j;
}

namespace {

// text replaced by its gzip (one member, as `gzip` writes).
bool gzipText(std::string& text)
{
    z_stream z{};
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return false;
    std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(text.data());
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END) return false;
    text = std::move(out);
    return true;
}

} // namespace

bool writeRankSummary(const ReportInput& input, const std::string& file, std::string* error)
{
    QSaveFile out(QString::fromStdString(file));
    if (!out.open(QIODevice::WriteOnly)) {
        if (error) *error = file + ": cannot write: " + out.errorString().toStdString();
        return false;
    }
    std::string text = rankSummaryToJson(*input.report, input.path).dump() + "\n";
    if (file.size() > 3 && file.compare(file.size() - 3, 3, ".gz") == 0) {
        if (!gzipText(text)) {
            if (error) *error = file + ": cannot compress the summary";
            return false;
        }
    }
    if (out.write(text.data(), static_cast<qint64>(text.size())) !=
            static_cast<qint64>(text.size()) ||
        !out.commit()) {
        if (error) *error = file + ": cannot write: " + out.errorString().toStdString();
        return false;
    }
    return true;
}

RankSummaryRead rankSummaryFromJson(const json& j)
{
    RankSummaryRead r;
    if (!j.is_object()) {
        r.error = "not a ringscope rank summary (a JSON " + std::string(j.type_name()) +
                  ", not an object)";
        return r;
    }
    const json* schema = Reader::member(j, "schema");
    if (!schema || !schema->is_string()) {
        r.error = "not a ringscope rank summary (no \"schema\"; it is written by `ringscope "
                  "analyze RANK --summary-out FILE`)";
        return r;
    }
    const std::string version = schema->get<std::string>();
    if (version != kRankSummarySchema) {
        r.error = "a " + version + " summary; this ringscope reads " + kRankSummarySchema +
                  " only: merge with the ringscope that wrote it, or write the summary again "
                  "with this one";
        return r;
    }

    Reader rd;
    auto rep = std::make_shared<AnalysisReport>();
    auto facts = std::make_shared<TraceFacts>();
    if (const json* t = Reader::member(j, "trace"); t && rd.object(*t, "trace")) {
        const std::string w = "trace.";
        rd.text(*t, "path", facts->path, w);
        rd.optInteger(*t, "rank", facts->rank, w);
        std::string producer;
        rd.text(*t, "producer", producer, w);
        facts->producer = producerFromName(producer);
        rd.integer(*t, "events", facts->events, w);
        for (const json& v : rd.array(*t, "warnings", w)) {
            if (v.is_string())
                facts->warnings.push_back(v.get<std::string>());
            else
                rd.wrong(w + "warnings[]");
        }
        if (const json* b = Reader::member(*t, "base_time_ns"); b && !b->is_null()) {
            TimeNs base = 0;
            const std::uint64_t before = rd.bad;
            rd.integer(*t, "base_time_ns", base, w);
            if (rd.bad == before) facts->baseTimeNs = base;
        }
        rd.integer(*t, "start_ns", facts->startNs, w);
        rd.integer(*t, "end_ns", facts->endNs, w);
    }
    if (const json* o = Reader::member(j, "options"); o && rd.object(*o, "options")) {
        rd.integer(*o, "size_align", rep->options.sizeAlign, "options.");
        rd.integer(*o, "addr_align", rep->options.addrAlign, "options.");
        if (const json* p = Reader::member(*o, "link_peaks"); p) {
            if (p->is_object()) {
                for (const auto& [name, v] : p->items()) {
                    if (v.is_number())
                        rep->options.linkPeaks[name] = v.get<double>();
                    else
                        rd.wrong("options.link_peaks." + name);
                }
            } else {
                rd.wrong("options.link_peaks");
            }
        }
    }
    rd.integer(j, "bad_fields", rep->badFields, "");
    for (const json& v : rd.array(j, "warnings", "")) {
        if (v.is_string())
            rep->warnings.push_back(v.get<std::string>());
        else
            rd.wrong("warnings[]");
    }
    for (const json& e : rd.array(j, "events", "")) {
        if (!e.is_array() || e.size() != 4 || !e[0].is_number_unsigned() ||
            e[0].get<std::uint64_t>() >= kNone || !e[1].is_string() || !e[2].is_number_integer() ||
            !e[3].is_number_integer()) {
            rd.wrong("events[]");
            continue;
        }
        facts->slices.push_back(
            {e[0].get<EventId>(), e[1].get<std::string>(), e[2].get<TimeNs>(), e[3].get<TimeNs>()});
    }
    std::sort(facts->slices.begin(), facts->slices.end(),
              [](const EventFacts& a, const EventFacts& b) { return a.id < b.id; });
    for (const json& c : rd.array(j, "collectives", "")) {
        if (rd.object(c, "collectives[]")) rep->collectives.push_back(readCollective(rd, c));
    }
    for (const json& s : rd.array(j, "signatures", "")) {
        if (!rd.object(s, "signatures[]")) continue;
        const std::string w = "signatures[].";
        SignatureGroup g;
        rd.text(s, "label", g.label, w);
        for (const json& m : rd.array(s, "members", w)) {
            if (m.is_number_unsigned() && m.get<std::uint64_t>() < rep->collectives.size())
                g.members.push_back(m.get<std::uint32_t>());
            else
                rd.wrong(w + "members[]");
        }
        for (const json& m : rd.array(s, "modes", w)) {
            // [mean_ns, min_ns, max_ns, members, with_extra_copy]
            if (!m.is_array() || m.size() != 5 ||
                !std::all_of(m.begin(), m.end(),
                             [](const json& x) { return x.is_number_integer(); })) {
                rd.wrong(w + "modes[]");
                continue;
            }
            g.modes.push_back({m[0].get<TimeNs>(), m[1].get<TimeNs>(), m[2].get<TimeNs>(),
                               m[3].get<int>(), m[4].get<int>()});
        }
        rd.integer(s, "baseline_memcpy_ns", g.baselineMemcpyNs, w);
        rd.text(s, "summary", g.summary, w);
        rep->signatures.push_back(std::move(g));
    }
    for (Collective& c : rep->collectives) {
        if (c.signature >= rep->signatures.size() && !rep->signatures.empty()) {
            rd.wrong("collectives[].signature");
            c.signature = 0;
        }
    }
    for (const json& o : rd.array(j, "steps", "")) {
        if (!rd.object(o, "steps[]")) continue;
        const std::string w = "steps[].";
        StepStats s;
        rd.integer(o, "step", s.step, w);
        rd.optInteger(o, "rank", s.rank, w);
        rd.integer(o, "event", s.event, w);
        rd.integer(o, "start_ns", s.start, w);
        rd.integer(o, "end_ns", s.end, w);
        rd.integer(o, "computing_ns", s.computing, w);
        rd.integer(o, "communication_ns", s.communication, w);
        rd.integer(o, "overlapped_ns", s.overlapped, w);
        rd.integer(o, "communication_not_overlapped_ns", s.communicationNotOverlapped, w);
        rd.integer(o, "free_ns", s.free, w);
        rd.integer(o, "busy_start_ns", s.busyStart, w);
        rd.integer(o, "busy_end_ns", s.busyEnd, w);
        rd.integer(o, "internal_memcpy_ns", s.internalMemcpy, w);
        rep->steps.push_back(s);
    }
    for (const json& f : rd.array(j, "findings", "")) {
        if (rd.object(f, "findings[]")) rep->findings.push_back(readFinding(rd, f));
    }
    // [src, dst, transport, bytes, ns] or with a sixth element, GB/s (null: NaN).
    std::vector<std::vector<MatrixEntry>> linkSets;
    for (const json& set : rd.array(j, "link_sets", "")) {
        linkSets.emplace_back();
        if (!set.is_array()) {
            rd.wrong("link_sets[]");
            continue;
        }
        for (const json& l : set) {
            if (!l.is_array() || l.size() < 5 || l.size() > 6 || !l[0].is_number_integer() ||
                !l[1].is_number_integer() || !l[2].is_string() || !l[3].is_number_unsigned() ||
                !l[4].is_number_integer() ||
                (l.size() == 6 && !l[5].is_number() && !l[5].is_null()) ||
                l[0].get<std::int64_t>() != l[0].get<int>() ||
                l[1].get<std::int64_t>() != l[1].get<int>()) {
                rd.wrong("link_sets[][]");
                continue;
            }
            MatrixEntry m;
            m.src = l[0].get<int>();
            m.dst = l[1].get<int>();
            m.transport = l[2].get<std::string>();
            m.bytes = l[3].get<std::uint64_t>();
            m.ns = l[4].get<TimeNs>();
            if (l.size() == 6)
                m.gbps = l[5].is_null() ? NAN : l[5].get<double>();
            else
                m.gbps = m.ns > 0 ? double(m.bytes) / double(m.ns) : 0.0;
            linkSets.back().push_back(std::move(m));
        }
    }
    for (const json& o : rd.array(j, "matrix", "")) {
        if (!rd.object(o, "matrix[]")) continue;
        const std::string w = "matrix[].";
        MatrixEntry head;
        rd.optInteger(o, "rank", head.rank, w);
        rd.optInteger(o, "step", head.step, w);
        rd.text(o, "op_group", head.opGroup, w);
        rd.text(o, "group", head.group, w);
        if (const json* n = Reader::member(o, "op_name"); n && !n->is_null()) {
            std::string name;
            const std::uint64_t before = rd.bad;
            rd.text(o, "op_name", name, w);
            if (rd.bad == before) head.opName = std::move(name);
        }
        std::size_t set = linkSets.size();
        rd.integer(o, "links", set, w);
        if (set >= linkSets.size()) {
            rd.wrong(w + "links");
            continue;
        }
        for (const MatrixEntry& l : linkSets[set]) {
            MatrixEntry m = head;
            m.src = l.src;
            m.dst = l.dst;
            m.transport = l.transport;
            m.bytes = l.bytes;
            m.ns = l.ns;
            m.gbps = l.gbps;
            rep->matrix.push_back(std::move(m));
        }
    }
    rep->facts = std::move(facts);
    r.report = std::move(rep);
    r.badFields = rd.bad;
    for (const auto& [key, n] : rd.badKeys)
        r.warnings.push_back(std::to_string(n) + " field" + (n == 1 ? "" : "s") + " \"" + key +
                             "\" of the wrong JSON type, skipped");
    return r;
}

namespace {

RankSummaryRead fromTextRead(TextRead&& t)
{
    RankSummaryRead r;
    r.error = std::move(t.error);
    if (!r.error.empty()) return r;
    r.report = std::move(t.report);
    r.badFields = t.bad;
    for (const auto& [key, n] : t.badKeys)
        r.warnings.push_back(std::to_string(n) + " field" + (n == 1 ? "" : "s") + " \"" + key +
                             "\" of the wrong JSON type, skipped");
    return r;
}

} // namespace

RankSummaryRead rankSummaryFromText(std::string_view text)
{
    // The tokenizer needs a byte after a number that ends the text.
    if (!text.empty() && (text.back() >= '0' && text.back() <= '9'))
        return fromTextRead(readText(std::string(text) + "\n", false));
    return fromTextRead(readText(text, false));
}

RankSummaryRead readRankSummary(const std::string& file)
{
    RankSummaryRead r;
    FileText text;
    std::string error;
    if (!text.open(file, &error)) {
        r.file = file;
        r.error = file + ": cannot read: " + error;
        return r;
    }
    r = fromTextRead(readText(text.view(), false));
    r.file = file;
    if (!r.error.empty()) r.error = file + ": " + r.error;
    return r;
}

RankSummarySlim readRankSummarySlim(const std::string& file)
{
    RankSummarySlim r;
    r.file = file;
    FileText text;
    std::string error;
    if (!text.open(file, &error)) {
        r.error = file + ": cannot read: " + error;
        return r;
    }
    TextRead t = readText(text.view(), true);
    if (!t.error.empty()) {
        r.error = file + ": " + t.error;
        return r;
    }
    r.rank = std::move(t.slim);
    r.options = t.report->options;
    return r;
}

std::vector<std::string> findRankSummaries(const std::vector<std::string>& paths,
                                           std::string* error)
{
    std::vector<std::string> out;
    for (const std::string& p : paths) {
        const QFileInfo info(QString::fromStdString(p));
        if (!info.exists()) {
            if (error && error->empty()) *error = p + ": no such file or directory";
            continue;
        }
        if (!info.isDir()) {
            out.push_back(p);
            continue;
        }
        QDir dir(info.absoluteFilePath());
        const QStringList names = dir.entryList(
            {QStringLiteral("*.ranksummary.json"), QStringLiteral("*.ranksummary.json.gz")},
            QDir::Files, QDir::Name);
        if (names.isEmpty() && error && error->empty())
            *error = p + ": no *.ranksummary.json[.gz] in this folder";
        for (const QString& n : names)
            out.push_back(dir.filePath(n).toStdString());
    }
    if (out.empty() && error && error->empty()) *error = "no summary given";
    return out;
}

bool isRankSummaryPath(const std::string& path)
{
    const QFileInfo info(QString::fromStdString(path));
    const QStringList patterns{QStringLiteral("*.ranksummary.json"),
                               QStringLiteral("*.ranksummary.json.gz")};
    if (info.isDir())
        return !QDir(info.absoluteFilePath()).entryList(patterns, QDir::Files).isEmpty();
    const QString name = info.fileName();
    return name.endsWith(QLatin1String(".ranksummary.json")) ||
           name.endsWith(QLatin1String(".ranksummary.json.gz"));
}

void sortByRank(std::vector<RankSummaryRead>& summaries)
{
    std::vector<std::pair<int, std::size_t>> order;
    for (std::size_t i = 0; i < summaries.size(); ++i) {
        const auto rank = summaries[i].report ? reportRank(*summaries[i].report) : std::nullopt;
        order.emplace_back(rank ? *rank : static_cast<int>(i), i);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<RankSummaryRead> sorted;
    sorted.reserve(summaries.size());
    for (const auto& [rank, i] : order)
        sorted.push_back(std::move(summaries[i]));
    summaries = std::move(sorted);
}

MergedJob mergeRankSummaries(const std::vector<std::string>& paths)
{
    MergedJob out;
    std::string findError;
    const std::vector<std::string> files = findRankSummaries(paths, &findError);
    if (!findError.empty()) out.errors.push_back(findError);
    std::vector<RankSummaryRead> read(files.size());
    parallelFor(files.size(), [&](std::size_t i) { read[i] = readRankSummary(files[i]); });
    for (RankSummaryRead& r : read) {
        for (const std::string& w : r.warnings)
            out.warnings.push_back(r.file + ": " + w);
        if (!r.ok()) {
            out.errors.push_back(r.error);
            continue;
        }
        out.ranks.push_back(std::move(r));
    }
    sortByRank(out.ranks);
    std::vector<ReportPtr> reports;
    for (const RankSummaryRead& r : out.ranks) {
        reports.push_back(r.report);
        out.inputs.push_back({r.report->facts->path, r.report});
        const AnalysisOptions& a = r.report->options;
        const AnalysisOptions& b = out.ranks.front().report->options;
        if (a.sizeAlign != b.sizeAlign || a.addrAlign != b.addrAlign || a.linkPeaks != b.linkPeaks)
            out.warnings.push_back(r.file + " was analysed with other options than " +
                                   out.ranks.front().file +
                                   " (--size-align, --addr-align, --link-peak)");
    }
    // The pipeline's "one job" rule and cross-rank match, on the reports read back.
    out.job = matchJob(reports);
    // As the pipeline does: the ranks' sync-dominated findings name the delaying ranks.
    if (out.job) {
        nameDelayingRanks(reports, *out.job);
        for (std::size_t i = 0; i < reports.size(); ++i)
            out.inputs[i].report = reports[i];
    }
    if (!out.job && reports.size() > 1)
        out.warnings.push_back("the summaries do not have distinct ranks: reported one by one, "
                               "not matched as one job");
    return out;
}

namespace {

// `merge` in two passes: the summaries read slim and matched, then each read in full as the
// writer (JSON or text) reaches it.
MergeOutcome writeMergedReport(std::ostream& out, const std::vector<std::string>& paths,
                               bool asJson)
{
    MergeOutcome result;
    std::string findError;
    const std::vector<std::string> files = findRankSummaries(paths, &findError);
    if (!findError.empty()) result.errors.push_back(findError);

    // Pass 1: each summary slim, in parallel; then rank order as mergeRankSummaries sorts.
    std::vector<RankSummarySlim> slim(files.size());
    parallelFor(files.size(), [&](std::size_t i) { slim[i] = readRankSummarySlim(files[i]); });
    std::vector<std::pair<int, std::size_t>> order;
    for (std::size_t i = 0; i < slim.size(); ++i) {
        if (!slim[i].ok()) {
            result.errors.push_back(slim[i].error);
            continue;
        }
        const auto rank = slim[i].rank.rank;
        order.emplace_back(rank ? *rank : static_cast<int>(order.size()), i);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<JobRank> ranks;
    std::vector<std::string> rankFiles;
    std::vector<std::optional<int>> declared;
    std::vector<std::string> optionWarnings;
    ranks.reserve(order.size());
    for (const auto& [key, i] : order) {
        const AnalysisOptions& a = slim[i].options;
        const AnalysisOptions& b = slim[order.front().second].options;
        if (a.sizeAlign != b.sizeAlign || a.addrAlign != b.addrAlign || a.linkPeaks != b.linkPeaks)
            optionWarnings.push_back(files[i] + " was analysed with other options than " +
                                     files[order.front().second] +
                                     " (--size-align, --addr-align, --link-peak)");
        declared.push_back(slim[i].rank.rank);
        rankFiles.push_back(files[i]);
        ranks.push_back(std::move(slim[i].rank));
    }
    slim.clear();
    slim.shrink_to_fit();
    result.ranks = ranks.size();

    // The pipeline's "one job" rule and cross-rank match (matchJob), on the slim ranks.
    std::optional<JobReport> job;
    if (formsOneJob(declared)) job = analyzeJob(ranks);
    ranks.clear();
    ranks.shrink_to_fit();
    const std::string note = job ? delayingRanksNote(*job) : std::string();

    // Pass 2: each summary read in full as the writer reaches it; the job's note written in
    // as nameDelayingRanks does.
    const std::size_t n = rankFiles.size();
    std::vector<std::vector<std::string>> readWarnings(n);
    std::vector<std::string> readErrors(n);
    std::vector<std::optional<Severity>> worst(n);
    const ReportInputSource source = [&](std::size_t i) -> ReportInput {
        RankSummaryRead r = readRankSummary(rankFiles[i]);
        for (const std::string& w : r.warnings)
            readWarnings[i].push_back(r.file + ": " + w);
        if (!r.ok()) {
            // Read a moment ago, refused now: it changed under the merge.
            readErrors[i] = r.error + " (it changed during the merge)";
            auto empty = std::make_shared<AnalysisReport>();
            auto facts = std::make_shared<TraceFacts>();
            facts->path = rankFiles[i];
            empty->facts = facts;
            return {rankFiles[i], empty};
        }
        if (job && needsDelayingRanksNote(*r.report, note)) {
            auto copy = std::make_shared<AnalysisReport>(*r.report);
            applyDelayingRanksNote(*copy, note);
            r.report = std::move(copy);
        }
        for (const Finding& f : r.report->findings)
            if (!worst[i] || f.severity > *worst[i]) worst[i] = f.severity;
        return {r.report->facts->path, r.report};
    };
    if (asJson)
        writeReportJson(out, n, source, job ? &*job : nullptr);
    else
        writeReportText(out, n, source, job ? &*job : nullptr);
    for (std::size_t i = 0; i < n; ++i) {
        result.warnings.insert(result.warnings.end(), readWarnings[i].begin(),
                               readWarnings[i].end());
        if (!readErrors[i].empty()) result.errors.push_back(readErrors[i]);
        if (worst[i] && (!result.worst || *worst[i] > *result.worst)) result.worst = worst[i];
    }
    result.warnings.insert(result.warnings.end(), optionWarnings.begin(), optionWarnings.end());
    if (job) {
        for (const Finding& f : job->findings)
            if (!result.worst || f.severity > *result.worst) result.worst = f.severity;
    }
    result.job = job.has_value();
    if (!job && n > 1)
        result.warnings.push_back("the summaries do not have distinct ranks: reported one by one, "
                                  "not matched as one job");
    return result;
}

} // namespace

MergeOutcome writeMergedReportJson(std::ostream& out, const std::vector<std::string>& paths)
{
    return writeMergedReport(out, paths, true);
}

MergeOutcome writeMergedReportText(std::ostream& out, const std::vector<std::string>& paths)
{
    return writeMergedReport(out, paths, false);
}

} // namespace rs
