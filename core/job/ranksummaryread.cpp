#include "core/job/ranksummary.h"

#include "core/bytesource.h"
#include "core/job/ranksummaryschema.h"
#include "core/jsontokenizer.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <limits>
#include <map>

// Rank summaries read: the one-pass reader (rankSummaryFromText, readRankSummary[Slim]), the
// summary files (FileBytes: mapped, or inflated when gzip) and their discovery (findRankSummaries,
// isRankSummaryPath, sortByRank). The schema and the reference reader: ranksummary.cpp.

namespace rs {

using namespace summaryschema;

namespace {

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
            out.error = notAnObjectError(notObject);
            return out;
        }
    } catch (const Malformed&) {
        out.error = "not JSON (a cut or damaged summary?)";
        return out;
    }
    if (!schema || !schemaString) {
        out.error = noSchemaError();
        return out;
    }
    if (*schema != kRankSummarySchema) {
        out.error = otherSchemaError(*schema);
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
        summaryschema::expandMatrixLinks(head, linkSets[set], rep->matrix);
    }
    rep->facts = facts;
    out.facts = std::move(facts);
    out.report = std::move(rep);
    out.bad = rd.bad;
    out.badKeys = std::move(rd.badKeys);
    return out;
}

// A summary's text, whole: the file as mapped, or inflated (gzip) into memory.
class SummaryText {
public:
    std::string_view view() const { return m_view; }

    bool open(const std::string& file, std::string* error)
    {
        m_file = FileBytes::open(file, error);
        if (!m_file) return false;
        if (m_file->mapped()) {
            m_view = std::string_view(m_file->data(), static_cast<std::size_t>(m_file->fileSize()));
            // The tokenizer needs a byte after a number that ends the text.
            if (!m_view.empty() && m_view.back() >= '0' && m_view.back() <= '9') {
                m_own = std::string(m_view) + "\n";
                m_view = m_own;
                m_file.reset();
            }
            return true;
        }
        ByteSource& src = *m_file->stream();
        m_own.reserve(static_cast<std::size_t>(m_file->fileSize()) * (m_file->gzip() ? 6 : 1) + 2);
        char buf[1 << 16];
        for (std::size_t n; (n = src.read(buf, sizeof buf)) > 0;)
            m_own.append(buf, n);
        if (!src.error().empty()) {
            *error = src.error();
            return false;
        }
        m_own += '\n';
        m_view = m_own;
        m_file.reset();
        return true;
    }

private:
    std::unique_ptr<FileBytes> m_file;
    std::string m_own;
    std::string_view m_view;
};

RankSummaryRead fromTextRead(TextRead&& t)
{
    RankSummaryRead r;
    r.error = std::move(t.error);
    if (!r.error.empty()) return r;
    r.report = std::move(t.report);
    r.badFields = t.bad;
    r.warnings = badFieldWarnings(t.badKeys);
    return r;
}

} // namespace

namespace summaryschema {

std::vector<std::size_t> rankOrder(const std::vector<std::optional<int>>& declared)
{
    std::vector<std::pair<int, std::size_t>> keyed;
    keyed.reserve(declared.size());
    for (std::size_t i = 0; i < declared.size(); ++i)
        keyed.emplace_back(declared[i] ? *declared[i] : static_cast<int>(i), i);
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::size_t> order;
    order.reserve(keyed.size());
    for (const auto& [rank, i] : keyed)
        order.push_back(i);
    return order;
}

void expandMatrixLinks(const MatrixEntry& head, const std::vector<MatrixEntry>& links,
                       std::vector<MatrixEntry>& out)
{
    for (const MatrixEntry& l : links) {
        MatrixEntry m = head;
        m.src = l.src;
        m.dst = l.dst;
        m.transport = l.transport;
        m.bytes = l.bytes;
        m.ns = l.ns;
        m.gbps = l.gbps;
        out.push_back(std::move(m));
    }
}

} // namespace summaryschema

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
    SummaryText text;
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
    SummaryText text;
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
    std::vector<std::optional<int>> declared;
    declared.reserve(summaries.size());
    for (const RankSummaryRead& s : summaries)
        declared.push_back(s.report ? reportRank(*s.report) : std::nullopt);
    std::vector<RankSummaryRead> sorted;
    sorted.reserve(summaries.size());
    for (std::size_t i : rankOrder(declared))
        sorted.push_back(std::move(summaries[i]));
    summaries = std::move(sorted);
}

} // namespace rs
