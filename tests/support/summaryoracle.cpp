#include "tests/support/summaryoracle.h"

#include "core/job/ranksummaryschema.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

// The document reader of ringscope.ranksummary/1 that the one-pass reader (core/job,
// through the field tables) replaced: every field checked for its JSON type on a parsed
// document, a wrong one counted and skipped. Kept as the oracle tst_ranksummary compares the
// one-pass reader with, field by field, given every JSON type.

namespace rs::test {

using nlohmann::json;
using namespace summaryschema;

namespace {

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
    void optInt64(const json& o, const char* key, std::optional<std::int64_t>& out,
                  const std::string& where)
    {
        const json* v = member(o, key);
        if (!v || v->is_null()) return;
        std::int64_t x = 0;
        const std::uint64_t before = bad;
        integer(o, key, x, where);
        if (bad == before) out = x;
    }
    void texts(const json& o, const char* key, std::vector<std::string>& out,
               const std::string& where)
    {
        for (const json& v : array(o, key, where)) {
            if (v.is_string())
                out.push_back(v.get<std::string>());
            else
                wrong(where + key + "[]");
        }
    }
    // Tensor shapes: [[2048, 5120]].
    void shapes(const json& o, const char* key, Shapes& out, const std::string& where)
    {
        for (const json& v : array(o, key, where)) {
            const bool ok = v.is_array() && std::all_of(v.begin(), v.end(), [](const json& d) {
                                return d.is_number_integer();
                            });
            if (ok)
                out.push_back(v.get<std::vector<std::int64_t>>());
            else
                wrong(where + key + "[]");
        }
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
    // A recorded call's fields (Flight Recorder).
    rd.text(o, "group_desc", c.groupDesc, w);
    rd.ints(o, "group_ranks", c.groupRanks, w);
    rd.texts(o, "input_dtypes", c.inputDtypes, w);
    rd.shapes(o, "input_sizes", c.inputSizes, w);
    rd.texts(o, "output_dtypes", c.outputDtypes, w);
    rd.shapes(o, "output_sizes", c.outputSizes, w);
    rd.optInt64(o, "seq", c.seq, w);
    std::string state;
    rd.text(o, "state", state, w);
    c.state = callStateFromName(state);
    rd.optInt64(o, "timeout_ms", c.timeoutMs, w);
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
    rd.optInt64(o, "gain_ns", f.gainNs, w);
    return f;
}

} // namespace

RankSummaryRead rankSummaryFromJson(const json& j)
{
    RankSummaryRead r;
    if (!j.is_object()) {
        r.error = notAnObjectError(j.type_name());
        return r;
    }
    const json* schema = Reader::member(j, "schema");
    if (!schema || !schema->is_string()) {
        r.error = noSchemaError();
        return r;
    }
    const std::string version = schema->get<std::string>();
    if (version != kRankSummarySchema) {
        r.error = otherSchemaError(version);
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
    for (const json& o : rd.array(j, "path_pieces", "")) {
        if (!rd.object(o, "path_pieces[]")) continue;
        const std::string w = "path_pieces[].";
        PathPiece p;
        rd.integer(o, "step", p.step, w);
        rd.integer(o, "collective", p.collective, w);
        rd.integer(o, "from_ns", p.from, w);
        rd.integer(o, "to_ns", p.to, w);
        rd.integer(o, "floor_ns", p.floor, w);
        rd.integer(o, "reaches", p.reaches, w);
        for (const json& g : rd.array(o, "segments", w)) {
            if (!rd.object(g, "path_pieces[].segments[]")) continue;
            const std::string ws = w + "segments[].";
            PathSegment x;
            std::string kind;
            rd.text(g, "kind", kind, ws);
            x.kind = pathKindFromName(kind);
            rd.text(g, "name", x.name, ws);
            rd.integer(g, "start_ns", x.start, ws);
            rd.integer(g, "end_ns", x.end, ws);
            rd.integer(g, "event", x.event, ws);
            p.segments.push_back(std::move(x));
        }
        rep->pathPieces.push_back(std::move(p));
    }
    // A recorder's process groups (Flight Recorder).
    for (const json& g : rd.array(j, "groups", "")) {
        if (!rd.object(g, "groups[]")) continue;
        CommGroup x;
        rd.text(g, "name", x.name, "groups[].");
        rd.text(g, "desc", x.desc, "groups[].");
        rd.ints(g, "ranks", x.ranks, "groups[].");
        rd.optInt64(g, "last_enqueued", x.lastEnqueued, "groups[].");
        rd.optInt64(g, "last_started", x.lastStarted, "groups[].");
        rd.optInt64(g, "last_completed", x.lastCompleted, "groups[].");
        rep->groups.push_back(std::move(x));
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
        summaryschema::expandMatrixLinks(head, linkSets[set], rep->matrix);
    }
    rep->facts = std::move(facts);
    r.report = std::move(rep);
    r.badFields = rd.bad;
    r.warnings = badFieldWarnings(rd.badKeys);
    return r;
}

} // namespace rs::test
