#include "core/job/ranksummary.h"

#include "core/job/ranksummaryschema.h"
#include "core/producers/registry.h"

#include <QSaveFile>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <zlib.h>

// The schema of ringscope.ranksummary/1: the writer (rankSummaryToJson, writeRankSummary), the
// reference reader of a parsed document (rankSummaryFromJson) and what both readers share
// (ranksummaryschema.h). The one-pass reader, file reading and discovery: ranksummaryread.cpp;
// the merge: ranksummarymerge.cpp.

namespace rs {

using nlohmann::json;

namespace summaryschema {

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

std::string notAnObjectError(const std::string& type)
{
    return "not a ringscope rank summary (a JSON " + type + ", not an object)";
}

std::string noSchemaError()
{
    return "not a ringscope rank summary (no \"schema\"; it is written by `ringscope analyze "
           "RANK --summary-out FILE`)";
}

std::string otherSchemaError(const std::string& version)
{
    return "a " + version + " summary; this ringscope reads " + kRankSummarySchema +
           " only: merge with the ringscope that wrote it, or write the summary again with this "
           "one";
}

std::vector<std::string> badFieldWarnings(const std::map<std::string, std::uint64_t>& keys)
{
    std::vector<std::string> out;
    for (const auto& [key, n] : keys)
        out.push_back(std::to_string(n) + " field" + (n == 1 ? "" : "s") + " \"" + key +
                      "\" of the wrong JSON type, skipped");
    return out;
}

} // namespace summaryschema

using namespace summaryschema;

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

} // namespace rs
