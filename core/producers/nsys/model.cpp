#include "core/producers/nsys/model.h"

#include "core/producers/kineto/model.h"
#include "core/producers/nsys/shared.h"

#include <algorithm>

namespace rs::analysis {

namespace {

// NCCL's API ranges (its NVTX domain): the call that enqueued a collective or a transfer.
bool isNcclApi(std::string_view n)
{
    static const std::string_view calls[] = {
        "ncclAllReduce", "ncclAllGather", "ncclReduceScatter", "ncclBroadcast", "ncclBcast",
        "ncclReduce",    "ncclAllToAll",  "ncclAlltoAll",      "ncclSend",      "ncclRecv"};
    for (std::string_view c : calls)
        if (n == c) return true;
    return false;
}

constexpr std::string_view kMessageSize = "Message size [bytes]";

// The bytes NCCL's NVTX payload states for the collective a launch belongs to: on a range
// around the launch (ncclAllReduce launches inside its own range), or, for a launch in
// ncclGroupEnd, summed over the group's ncclSend ranges (else its ncclRecv ranges) since its
// ncclGroupStart.
std::uint64_t payloadBytes(const AnalysisContext& ctx, EventId launch)
{
    const Trace& t = ctx.trace;
    const auto sl = t.slices();
    for (EventId p = launch; p != kNone; p = sl[p].parent) {
        if (t.argsText(p).find(kMessageSize) != std::string_view::npos)
            if (auto b = argU64(eventArgs(t, p, ctx.errors), kMessageSize, ctx.errors); b && *b)
                return *b;
        if (t.str(sl[p].name) != "ncclGroupEnd") continue;
        std::uint64_t sent = 0, received = 0;
        const Track& track = t.tracks()[sl[p].track];
        const EventId parent = sl[p].parent;
        for (EventId i = p, seen = 0; i > track.begin && seen < 65536; ++seen) {
            --i;
            if (sl[i].parent != parent) continue;
            const std::string& n = t.str(sl[i].name);
            if (n == "ncclGroupStart") break;
            const bool send = n == "ncclSend", recv = n == "ncclRecv";
            if (!send && !recv) continue;
            const auto b = argU64(eventArgs(t, i, ctx.errors), kMessageSize, ctx.errors);
            (send ? sent : received) += b.value_or(0);
        }
        return sent ? sent : received;
    }
    return 0;
}

class NsysModel final : public ProducerModel {
public:
    std::uint8_t classifyName(std::string_view n) const override
    {
        return kinetoNameClass(n) | (isNcclApi(n) ? kNcCollHost : 0);
    }

    void findCollectives(AnalysisContext& ctx, std::vector<Collective>& out) const override
    {
        const std::size_t first = out.size();
        findKinetoCollectives(ctx, out);
        for (std::size_t i = first; i < out.size(); ++i) {
            Collective& c = out[i];
            if (c.bytes != 0) continue;
            for (EventId l : ctx.launchesOf(c.event))
                if ((c.bytes = payloadBytes(ctx, l))) break;
        }
    }

    void prepareComputing(AnalysisContext& ctx,
                          const std::vector<Collective>& collectives) const override
    {
        prepareKinetoComputing(ctx, collectives);
    }

    bool isComputing(AnalysisContext& ctx, EventId e) const override
    {
        return kinetoComputing(ctx, e);
    }

    void finishCommunication(AnalysisContext& ctx, AnalysisReport& rep) const override
    {
        kinetoFinishCommunication(ctx, rep);
    }

    int flowRank(std::string_view category) const override
    {
        return category == nsys::kFlowLaunch ? 0 : 3;
    }
};

} // namespace

const ProducerModel& nsysModel()
{
    static const NsysModel model;
    return model;
}

} // namespace rs::analysis
