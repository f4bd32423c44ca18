#include "core/producers/flightrecorder/reader.h"

#include "core/producers/flightrecorder/diagnosis.h"
#include "core/tracebuilder.h"

#include <QFileInfo>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace rs::flightrecorder {

namespace {

using nlohmann::json;

std::string dumpJson(const json& j)
{
    // Strings are checked UTF-8 by both readers; replace rather than throw all the same.
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

json optionalInt(const std::optional<std::int64_t>& v)
{
    return v ? json(*v) : json(nullptr);
}

// Tracks in one order on every rank: by description, then by name as a number where it is one.
bool groupBefore(const CommGroup& a, const CommGroup& b)
{
    if (a.desc != b.desc) return a.desc < b.desc;
    if (a.name.size() != b.name.size()) return a.name.size() < b.name.size();
    return a.name < b.name;
}

std::string label(const std::string& name, const std::string& desc)
{
    return desc.empty() || desc == "undefined" ? "group " + name : desc + " " + name;
}

// A Python frame as the Kineto traces name theirs: "file.py(12): name".
std::string frameText(const Frame& f)
{
    if (f.filename.empty()) return f.name;
    return f.filename + "(" + std::to_string(f.line) + "): " + f.name;
}

class Emitter {
public:
    explicit Emitter(TraceBuilder& b) : m_b(b) {}

    void meta(std::optional<std::uint64_t> tid, const char* what, const json& args)
    {
        TraceEvent ev = base('M');
        if (tid) ev.tid = number(*tid);
        ev.name = view(what);
        const std::string text = dumpJson(args);
        ev.args = view(text);
        m_b.addEvent(ev);
    }

    void slice(std::uint64_t tid, std::int64_t start, std::int64_t dur, const std::string& name,
               const char* cat, const json& args, const std::vector<std::string>& stack)
    {
        TraceEvent ev = base('X');
        ev.tid = number(tid);
        ev.ts = number(start);
        ev.dur = number(dur);
        ev.name = view(name);
        ev.cat = view(cat);
        const std::string text = dumpJson(args);
        ev.args = view(text);
        for (const std::string& f : stack)
            ev.stack.push_back(view(f));
        m_b.addEvent(ev);
    }

private:
    TraceEvent base(char ph)
    {
        TraceEvent ev;
        m_ph = ph;
        ev.ph = {&m_ph, 1};
        ev.pid = number(1);
        ev.nsTimes = true;
        return ev;
    }
    static TextRef view(std::string_view s) { return {s.data(), std::uint32_t(s.size())}; }
    // Integers need no text: the builder reads their bits.
    static JsonScalar number(std::int64_t v)
    {
        JsonScalar s;
        s.kind = v < 0 ? JsonScalar::Int : JsonScalar::UInt;
        s.bits = static_cast<std::uint64_t>(v);
        return s;
    }

    TraceBuilder& m_b;
    char m_ph = 'X';
};

} // namespace

LoadResult dumpTrace(const Dump& dump, const Producer& producer, std::optional<int> rankHint)
{
    TraceBuilder b;
    b.setPath(dump.path);
    b.setProducer(producer);
    if (dump.rank)
        b.setRank(*dump.rank);
    else
        b.setFallbackRank(rankHint);

    // The groups as the rules read them (pg_status mapped through the entries' pg_id).
    const RankCalls calls = rankCalls(dump);
    std::vector<CommGroup> groups = calls.groups;
    std::stable_sort(groups.begin(), groups.end(), groupBefore);
    const std::optional<std::int64_t> dumped = dumpTime(dump);

    json md;
    md["format"] = dump.format;
    md["version"] = dump.version;
    md["nccl_version"] = dump.ncclVersion;
    md["rank_source"] = rankSourceName(dump.rankSource);
    md["entries"] = dump.entries.size();
    md["dump_time_ns"] = optionalInt(dumped);
    json gj = json::array();
    for (const CommGroup& g : groups)
        gj.push_back({{"name", g.name},
                      {"desc", g.desc},
                      {"ranks", g.ranks},
                      {"last_enqueued", optionalInt(g.lastEnqueued)},
                      {"last_started", optionalInt(g.lastStarted)},
                      {"last_completed", optionalInt(g.lastCompleted)}});
    md["groups"] = std::move(gj);
    b.addMetadata(kMetadataKey, std::move(md));

    Emitter out(b);
    out.meta(std::nullopt, "process_name", {{"name", kProcessName}});
    if (!dump.version.empty())
        out.meta(std::nullopt, "process_labels", {{"labels", "dump " + dump.version}});

    // A track per group with entries (a group named only by an entry gets its own, after).
    std::map<std::string, std::uint64_t> tidOf;
    std::map<std::string, const CommGroup*> byName;
    for (const CommGroup& g : groups)
        byName.emplace(g.name, &g);
    std::vector<std::pair<std::string, std::string>> order; // (name, desc) of tracks made
    for (const CommGroup& g : groups)
        for (const Entry& e : dump.entries)
            if (e.groupName == g.name) {
                order.emplace_back(g.name, g.desc);
                break;
            }
    for (const Entry& e : dump.entries)
        if (!byName.count(e.groupName) &&
            std::none_of(order.begin(), order.end(),
                         [&](const auto& o) { return o.first == e.groupName; }))
            order.emplace_back(e.groupName, e.groupDesc);
    for (std::size_t i = 0; i < order.size(); ++i) {
        const auto tid = std::uint64_t(i + 1);
        tidOf[order[i].first] = tid;
        out.meta(tid, "thread_name", {{"name", label(order[i].first, order[i].second)}});
        out.meta(tid, "thread_sort_index", {{"sort_index", int(i)}});
    }

    for (const Entry& e : dump.entries) {
        const bool done = e.completed();
        // Its end: seen completed; else (in flight) the dump; a completed one without a
        // completion time lasts what the dump says it ran, or nothing.
        std::int64_t end = e.timeCreatedNs;
        const char* endText = "created";
        if (e.timeDiscoveredCompletedNs) {
            end = *e.timeDiscoveredCompletedNs;
            endText = "completed";
        } else if (!done && dumped) {
            end = *dumped;
            endText = "dump";
        } else if (e.durationMs && std::isfinite(*e.durationMs) && *e.durationMs > 0 &&
                   *e.durationMs < 1e12) {
            end = e.timeDiscoveredStartedNs.value_or(e.timeCreatedNs) +
                  std::int64_t(*e.durationMs * 1e6);
            endText = "duration";
        }
        std::int64_t dur = 0;
        if (__builtin_sub_overflow(end, e.timeCreatedNs, &dur) || dur < 0) dur = 0;

        const CallState state = done ? EntryState::Completed : e.state;
        std::string name = e.profilingName.empty() ? "(no name)" : e.profilingName;
        if (state != CallState::Completed) name += std::string(" (") + entryStateName(state) + ")";
        const auto g = byName.find(e.groupName);
        json a;
        a["op"] = e.profilingName;
        a["seq"] = e.p2p() ? e.p2pSeqId : e.collectiveSeqId;
        a["collective_seq_id"] = e.collectiveSeqId;
        a["p2p_seq_id"] = e.p2pSeqId;
        a["state"] = entryStateName(state);
        a["group"] = e.groupName;
        a["group_desc"] = e.groupDesc; // as the entry writes it (its process_group)
        a["group_ranks"] = g != byName.end() ? g->second->ranks : std::vector<int>{};
        a["input_sizes"] = e.inputSizes;
        a["input_dtypes"] = e.inputDtypes;
        a["output_sizes"] = e.outputSizes;
        a["output_dtypes"] = e.outputDtypes;
        a["record_id"] = e.recordId;
        a["pg_id"] = e.pgId;
        a["op_id"] = e.opId;
        a["time_created_ns"] = e.timeCreatedNs;
        a["time_discovered_started_ns"] = optionalInt(e.timeDiscoveredStartedNs);
        a["time_discovered_completed_ns"] = optionalInt(e.timeDiscoveredCompletedNs);
        a["end"] = endText;
        a["is_p2p"] = e.p2p();
        if (e.retired) a["retired"] = *e.retired;
        a["timeout_ms"] = optionalInt(e.timeoutMs);
        if (e.durationMs && std::isfinite(*e.durationMs)) a["duration_ms"] = *e.durationMs;
        if (!e.threadId.empty()) a["thread_id"] = e.threadId;
        if (!e.threadName.empty()) a["thread_name"] = e.threadName;
        // The Chrome stack is outermost first; the dump writes the innermost first.
        std::vector<std::string> stack;
        for (auto f = e.frames.rbegin(); f != e.frames.rend(); ++f)
            stack.push_back(frameText(*f));
        out.slice(tidOf[e.groupName], e.timeCreatedNs, dur, name, e.p2p() ? "p2p" : "collective", a,
                  stack);
    }
    for (const std::string& w : dump.warnings)
        b.addWarning(w);
    if (dump.entries.empty())
        b.addWarning("the dump has no entries: no collective was in flight on rank " +
                     (dump.rank ? std::to_string(*dump.rank) : std::string("?")) +
                     " when it dumped (a rank stuck before its next collective, e.g. holding "
                     "Python's GIL, records nothing)");

    LoadResult r;
    r.status = LoadStatus::Complete;
    r.resolvedPath = dump.path;
    r.trace = b.finish();
    r.warnings = r.trace->warnings();
    return r;
}

LoadResult readDumpTrace(const std::string& path, const Producer& producer,
                         const LoadOptions& options, LoadProgress* progress)
{
    LoadResult r;
    r.resolvedPath = path;
    const QFileInfo info(QString::fromStdString(path));
    const auto size = std::uint64_t(std::max<qint64>(info.size(), 0));
    if (progress) progress->total = size;
    if (!info.isFile() || !info.isReadable()) {
        r.stop = LoadStop::Unreadable;
        r.message = path + ": " + (info.exists() ? "not a readable file" : "no such file");
        return r;
    }
    if (progress && progress->cancel.load()) {
        r.stop = LoadStop::Cancelled;
        r.message = "loading was cancelled";
        return r;
    }
    DumpResult d = readDump(path);
    if (!d.ok()) {
        r.stop = LoadStop::Malformed;
        r.message = d.error; // names the file (and the opcode, the byte, the key)
        return r;
    }
    // A model grows with the entries: about 1 KB each (a slice, its args, its frames).
    std::uint64_t frames = 0;
    for (const Entry& e : d.dump->entries)
        frames += e.frames.size();
    const std::uint64_t projected = (d.dump->entries.size() + frames) * 1024;
    const std::uint64_t budget = options.maxMemoryBytes ? options.maxMemoryBytes : 0;
    if (budget && projected > budget) {
        r.stop = LoadStop::OverBudget;
        r.message = path + ": its " + std::to_string(d.dump->entries.size()) +
                    " entries would need about " + std::to_string(projected >> 20) +
                    " MiB, more than the memory budget";
        return r;
    }
    r = dumpTrace(*d.dump, producer, options.rankHint);
    if (progress) {
        progress->done = size;
        if (progress->onAdvance) progress->onAdvance();
    }
    return r;
}

} // namespace rs::flightrecorder
