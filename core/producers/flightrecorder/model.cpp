// The analysis model of a Flight Recorder trace (reader.h): each entry is a recorded collective
// call with its group's sequence number, state, sizes and dtypes (Collective::seq, state...),
// the dump's process groups with pg_status are the report's groups; the job's call rules
// (core/job/collectivecalls.h) read them in the cross-rank match. No device work, no steps.

#include "core/producers/flightrecorder/model.h"

#include "core/producers/flightrecorder/dump.h"
#include "core/producers/flightrecorder/reader.h"

#include <algorithm>

namespace rs::flightrecorder {

namespace {

using nlohmann::json;

std::optional<std::int64_t> intOf(const json& a, const char* key)
{
    const auto it = a.find(key);
    if (it == a.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<std::int64_t>();
}

std::string textOf(const json& a, const char* key)
{
    const auto it = a.find(key);
    return it != a.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> textsOf(const json& a, const char* key)
{
    std::vector<std::string> out;
    const auto it = a.find(key);
    if (it == a.end() || !it->is_array()) return out;
    for (const json& v : *it)
        out.push_back(v.is_string() ? v.get<std::string>() : std::string());
    return out;
}

std::vector<int> ranksOf(const json& a, const char* key)
{
    std::vector<int> out;
    const auto it = a.find(key);
    if (it == a.end() || !it->is_array()) return out;
    for (const json& v : *it)
        if (v.is_number_integer()) out.push_back(v.get<int>());
    return out;
}

Shapes shapesOf(const json& a, const char* key)
{
    Shapes out;
    const auto it = a.find(key);
    if (it == a.end() || !it->is_array()) return out;
    for (const json& shape : *it) {
        std::vector<std::int64_t> dims;
        if (shape.is_array())
            for (const json& d : shape)
                if (d.is_number_integer()) dims.push_back(d.get<std::int64_t>());
        out.push_back(std::move(dims));
    }
    return out;
}

CollectiveKind kindOf(const std::string& op)
{
    static const std::pair<const char*, CollectiveKind> kinds[] = {
        {"all_reduce", CollectiveKind::AllReduce},
        {"allreduce_coalesced", CollectiveKind::AllReduce},
        {"all_gather", CollectiveKind::AllGather},
        {"_all_gather_base", CollectiveKind::AllGather},
        {"all_gather_into_tensor_coalesced", CollectiveKind::AllGather},
        {"all_gather_v", CollectiveKind::AllGather},
        {"all_gather_single", CollectiveKind::AllGather},
        {"ALLGATHER_coalesced", CollectiveKind::AllGather},
        {"reduce_scatter", CollectiveKind::ReduceScatter},
        {"_reduce_scatter_base", CollectiveKind::ReduceScatter},
        {"reduce_scatter_tensor_coalesced", CollectiveKind::ReduceScatter},
        {"reduce_scatter_v", CollectiveKind::ReduceScatter},
        {"reduce_scatter_single", CollectiveKind::ReduceScatter},
        {"REDUCE_SCATTER_coalesced", CollectiveKind::ReduceScatter},
        {"broadcast", CollectiveKind::Broadcast},
        {"_broadcast_oop", CollectiveKind::Broadcast},
        {"reduce", CollectiveKind::Reduce},
        {"_reduce_oop", CollectiveKind::Reduce},
        {"all_to_all", CollectiveKind::AllToAll},
        {"all_to_all_single", CollectiveKind::AllToAll},
        {"all_to_all_v_single", CollectiveKind::AllToAll},
        {"send", CollectiveKind::Send},
        {"recv", CollectiveKind::Recv},
        {"barrier", CollectiveKind::Barrier},
        {"all_reduce_barrier", CollectiveKind::Barrier},
    };
    for (const auto& [name, kind] : kinds)
        if (op == name) return kind;
    return CollectiveKind::Other;
}

// Bytes of one element of PyTorch's dtype names as the Flight Recorder writes them; 0 unknown.
std::uint64_t elementBytes(const std::string& dtype)
{
    static const std::pair<const char*, std::uint64_t> sizes[] = {
        {"Float", 4},
        {"Double", 8},
        {"Half", 2},
        {"BFloat16", 2},
        {"Int", 4},
        {"Long", 8},
        {"Short", 2},
        {"Char", 1},
        {"Byte", 1},
        {"Bool", 1},
        {"ComplexFloat", 8},
        {"ComplexDouble", 16},
        {"UInt16", 2},
        {"UInt32", 4},
        {"UInt64", 8},
        {"Float8_e4m3fn", 1},
        {"Float8_e5m2", 1},
        {"Float8_e4m3fnuz", 1},
        {"Float8_e5m2fnuz", 1},
    };
    for (const auto& [name, size] : sizes)
        if (dtype == name) return size;
    return 0;
}

// Elements of the input tensors (0 when a dimension is absurd).
std::uint64_t elements(const Shapes& shapes)
{
    std::uint64_t total = 0;
    for (const auto& shape : shapes) {
        std::uint64_t n = 1;
        for (std::int64_t d : shape)
            if (d < 0 || __builtin_mul_overflow(n, std::uint64_t(d), &n)) return 0;
        if (__builtin_add_overflow(total, n, &total)) return 0;
    }
    return total;
}

class FlightRecorderModel final : public analysis::ProducerModel {
public:
    std::uint8_t classifyName(std::string_view) const override { return 0; }

    void findCollectives(analysis::AnalysisContext& ctx,
                         std::vector<Collective>& out) const override
    {
        const Trace& t = ctx.trace;
        const json& md = t.metadata();
        const json* fr = md.is_object() && md.contains(kMetadataKey) ? &md[kMetadataKey] : nullptr;
        const bool allToAllSizes = !fr || !fr->is_object() || !fr->contains("version") ||
                                   !(*fr)["version"].is_string() ||
                                   recordsAllToAllSizes((*fr)["version"].get<std::string>());
        const auto slices = t.slices();
        for (EventId e = 0; e < slices.size(); ++e) {
            if (t.kind(e) != SliceKind::Collective) continue;
            const json a = t.args(e);
            if (!a.is_object()) continue;
            Collective c;
            c.event = e;
            c.rank = t.rank();
            c.name = textOf(a, "op");
            const std::string op = opName(c.name);
            c.kind = kindOf(op);
            c.group = textOf(a, "group");
            c.groupDesc = textOf(a, "group_desc");
            c.groupRanks = ranksOf(a, "group_ranks");
            c.groupSize = int(c.groupRanks.size());
            c.seq = intOf(a, "seq");
            c.state = callStateFromName(textOf(a, "state"));
            if (c.state == CallState::None) c.state = CallState::Unknown;
            if (allToAllSizes || op != "all_to_all") {
                c.inputSizes = shapesOf(a, "input_sizes");
                c.outputSizes = shapesOf(a, "output_sizes");
            }
            c.inputDtypes = textsOf(a, "input_dtypes");
            c.outputDtypes = textsOf(a, "output_dtypes");
            c.timeoutMs = intOf(a, "timeout_ms");
            c.dtype = !c.inputDtypes.empty()    ? c.inputDtypes.front()
                      : !c.outputDtypes.empty() ? c.outputDtypes.front()
                                                : std::string();
            c.count = elements(c.inputSizes);
            const std::uint64_t size = elementBytes(c.dtype);
            if (size && c.count && __builtin_mul_overflow(c.count, size, &c.bytes)) c.bytes = 0;
            c.start = slices[e].start;
            c.dur = slices[e].dur;
            out.push_back(std::move(c));
        }
    }

    void prepareComputing(analysis::AnalysisContext&, const std::vector<Collective>&) const override
    {}
    bool isComputing(analysis::AnalysisContext&, EventId) const override { return false; }
    int flowRank(std::string_view) const override { return -1; }

    // The dump's process groups (pg_config, with pg_status where the entries map it).
    void finishCommunication(analysis::AnalysisContext& ctx, AnalysisReport& rep) const override
    {
        const json& md = ctx.trace.metadata();
        if (!md.is_object() || !md.contains(kMetadataKey)) return;
        const json& fr = md[kMetadataKey];
        if (!fr.is_object() || !fr.contains("groups") || !fr["groups"].is_array()) return;
        for (const json& g : fr["groups"]) {
            if (!g.is_object()) continue;
            CommGroup c;
            c.name = textOf(g, "name");
            c.desc = textOf(g, "desc");
            c.ranks = ranksOf(g, "ranks");
            c.lastEnqueued = intOf(g, "last_enqueued");
            c.lastStarted = intOf(g, "last_started");
            c.lastCompleted = intOf(g, "last_completed");
            rep.groups.push_back(std::move(c));
        }
    }
};

} // namespace

const analysis::ProducerModel& model()
{
    static const FlightRecorderModel m;
    return m;
}

} // namespace rs::flightrecorder
