// PyTorch Flight Recorder dumps (TORCH_NCCL_TRACE_BUFFER_SIZE, TORCH_NCCL_DUMP_ON_TIMEOUT=1):
// one file per rank, a pickle (read data-only, pickle.h) or PyTorch's JSON, told by content
// under any name; a folder of them is a job, a rank per dump (the number ending the file name,
// else the one rank every process group of the dump holds: dump.h). The reader (reader.h)
// builds a track per process group and a slice per recorded call; the analysis model
// (model.h) gives the report its recorded calls and process groups, which the job's call rules
// read (core/job/collectivecalls.h).

#include "core/producers/producer.h"
#include "core/bytesource.h"
#include "core/producers/flightrecorder/dump.h"
#include "core/producers/flightrecorder/model.h"
#include "core/producers/flightrecorder/reader.h"

#include <QFileInfo>

#include <algorithm>
#include <cstring>
#include <map>

namespace rs {

namespace {

using nlohmann::json;
using namespace flightrecorder;

// The keys a Flight Recorder dump's top level may start with (PyTorch writes `version` first;
// its JSON handler writes them sorted: `comm_lib_version` or `entries` first).
bool dumpKey(std::string_view k)
{
    for (const char* key : {"version", "entries", "comm_lib_version", "nccl_version", "pg_config",
                            "pg_status", "nccl_comm_state"})
        if (k == key) return true;
    return false;
}

// The first key of a JSON object's text ("" when the text does not start an object with one).
std::string_view firstKey(std::string_view s)
{
    std::size_t i = 0;
    if (s.size() >= 3 && s.substr(0, 3) == "\xef\xbb\xbf") i = 3;
    auto space = [&] {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
            ++i;
    };
    space();
    if (i >= s.size() || s[i] != '{') return {};
    ++i;
    space();
    if (i >= s.size() || s[i] != '"') return {};
    const std::size_t from = ++i;
    while (i < s.size() && s[i] != '"' && s[i] != '\\')
        ++i;
    return i < s.size() && s[i] == '"' ? s.substr(from, i - from) : std::string_view();
}

// Whether a file is a Flight Recorder dump, by content: a pickle (protocol 2-5) or a JSON object
// whose first key is a dump's, holding the key `pg_config` near its start or its end (where
// PyTorch writes it). A cheap look (at most 64 KiB at each end; a gzip file's first MiB):
// reading says for sure, and refuses what only looked like one.
bool looksLikeDump(const QFileInfo& info)
{
    if (!info.isFile()) return false;
    std::string error;
    const std::unique_ptr<FileBytes> f = FileBytes::open(info.filePath().toStdString(), &error);
    if (!f || f->fileSize() == 0) return false;
    constexpr std::size_t kEnd = 64 << 10;
    std::string_view head, tail;
    std::string inflated;
    if (f->mapped()) {
        const std::size_t n = std::size_t(f->fileSize());
        head = std::string_view(f->data(), std::min(n, kEnd));
        tail = std::string_view(f->data() + (n > kEnd ? n - kEnd : 0), std::min(n, kEnd));
    } else {
        ByteSource* s = f->stream();
        char buf[1 << 16];
        while (inflated.size() < (1u << 20))
            if (const std::size_t n = s->read(buf, sizeof buf))
                inflated.append(buf, n);
            else
                break;
        head = std::string_view(inflated).substr(0, kEnd);
        tail = inflated.size() > kEnd ? std::string_view(inflated).substr(inflated.size() - kEnd)
                                      : head;
    }
    const DumpFormat format = sniffDump(head.data(), head.size());
    if (format == DumpFormat::None) return false;
    if (format == DumpFormat::Json && !dumpKey(firstKey(head))) return false;
    const std::string_view key = format == DumpFormat::Json ? "\"pg_config\"" : "pg_config";
    return head.find(key) != std::string_view::npos || tail.find(key) != std::string_view::npos ||
           (!f->mapped() && std::string_view(inflated).find(key) != std::string_view::npos);
}

class FlightRecorderProducer final : public Producer {
public:
    std::string_view id() const override { return "flight_recorder"; }
    std::string_view name() const override { return "flight_recorder"; }
    std::string_view format() const override { return "pickle"; }

    // A dump itself, under any name. A folder of dumps is a job (isRankFile), not one rank.
    std::optional<SourceMatch> resolve(const QFileInfo& info) const override
    {
        if (!looksLikeDump(info)) return std::nullopt;
        SourceMatch m;
        m.file = info.filePath().toStdString();
        m.rank = rankFromFileName(m.file); // else the dump's process groups, when read
        return m;
    }

    bool isRankFile(const QFileInfo& file) const override { return looksLikeDump(file); }

    std::vector<InputKind> inputs() const override
    {
        InputKind k;
        k.what = "PyTorch Flight Recorder dumps (_dump_<rank>, any name: told by content; a "
                 "folder of them is a job)";
        k.globs = {"_dump_*", "nccl_trace_rank_*"};
        k.mimeType = "application/x-pytorch-flight-recorder";
        k.mimeComment = "PyTorch Flight Recorder dump";
        k.mimeParent = "application/octet-stream";
        // A pickle (PROTO 2-5) whose first keys are the dump's: "version", then "pg_config".
        k.mimeMagic = R"(<match type="string" value="\x80" offset="0">
        <match type="string" value="pg_config" offset="2:256"/>
      </match>)";
        return {k};
    }

    LoadResult read(const SourceMatch& source, const LoadOptions& options,
                    LoadProgress* progress) const override
    {
        LoadOptions o = options;
        if (source.rank && !o.rankHint) o.rankHint = source.rank;
        return readDumpTrace(source.file, *this, o, progress);
    }

    std::vector<TrackRole> trackRoles(const Trace& trace) const override
    {
        return std::vector<TrackRole>(trace.tracks().size(), TrackRole::Other);
    }

    // Every entry is a recorded call: a collective's (or a send's, a recv's) op.
    void classify(const Trace& trace, SliceClasses& out) const override
    {
        out.kinds.assign(trace.slices().size(), SliceKind::Collective);
    }

    // The job's size: every process group's members are ranks of it (the default group holds
    // them all).
    RunFacts runFacts(const Trace& trace) const override
    {
        RunFacts f;
        const json& md = trace.metadata();
        if (!md.is_object() || !md.contains(kMetadataKey)) return f;
        const json& fr = md[kMetadataKey];
        if (!fr.is_object() || !fr.contains("groups") || !fr["groups"].is_array()) return f;
        int top = -1;
        for (const json& g : fr["groups"])
            if (g.is_object() && g.contains("ranks") && g["ranks"].is_array())
                for (const json& r : g["ranks"])
                    if (r.is_number_integer() && r.get<std::int64_t>() >= 0 &&
                        r.get<std::int64_t>() < (1 << 24))
                        top = std::max(top, r.get<int>());
        if (top >= 0) f.worldSize = top + 1;
        return f;
    }

    // What `info` adds: the dump's format and version, where its rank came from, its groups
    // with their entries and states, and the states of all its entries.
    json describe(const Trace& trace) const override
    {
        const json& md = trace.metadata();
        if (!md.is_object() || !md.contains(kMetadataKey) || !md[kMetadataKey].is_object())
            return nullptr;
        const json& fr = md[kMetadataKey];
        json d = json::object();
        for (const char* k :
             {"format", "version", "nccl_version", "rank_source", "entries", "dump_time_ns"})
            if (fr.contains(k)) d[k] = fr[k];
        std::map<std::string, std::map<std::string, std::uint64_t>> byGroup;
        std::map<std::string, std::uint64_t> states;
        for (EventId e = 0; e < trace.slices().size(); ++e) {
            const json a = trace.args(e);
            if (!a.is_object()) continue;
            const std::string state = a.value("state", std::string());
            ++states[state];
            ++byGroup[a.value("group", std::string())][state];
        }
        d["states"] = states;
        json groups = json::array();
        if (fr.contains("groups") && fr["groups"].is_array())
            for (const json& g : fr["groups"]) {
                if (!g.is_object()) continue;
                json x = g;
                const auto it = byGroup.find(g.value("name", std::string()));
                std::uint64_t n = 0;
                json st = json::object();
                if (it != byGroup.end())
                    for (const auto& [s, count] : it->second) {
                        st[s] = count;
                        n += count;
                    }
                x["entries"] = n;
                x["states"] = st;
                groups.push_back(std::move(x));
            }
        d["groups"] = std::move(groups);
        return d;
    }

    const analysis::ProducerModel& analysis() const override { return flightrecorder::model(); }
};

} // namespace

const Producer& flightRecorderProducer()
{
    static const FlightRecorderProducer p;
    return p;
}

} // namespace rs
