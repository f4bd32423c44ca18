// A Chrome trace of unknown origin: every known convention is tried (torch_npu's process names,
// then Kineto's categories; HCCL ops and NCCL kernels alike), so a trace that lost the marks
// detection looks for (a tool rewrote it, metadata was stripped) is still analysed.

#include "core/producers/generic/model.h"

#include "core/producers/kineto/model.h"
#include "core/producers/torchnpu/model.h"

namespace rs::analysis {

namespace {

class GenericModel final : public ProducerModel {
public:
    std::uint8_t classifyName(std::string_view n) const override
    {
        return torchNpuNameClass(n) | kinetoNameClass(n);
    }

    void addLaunches(AnalysisContext& ctx) const override { addKinetoLaunches(ctx); }

    void findCollectives(AnalysisContext& ctx, std::vector<Collective>& out) const override
    {
        findHcclCollectives(ctx, out);
        findKinetoCollectives(ctx, out);
    }

    void prepareComputing(AnalysisContext& ctx,
                          const std::vector<Collective>& collectives) const override
    {
        torchNpuModel().prepareComputing(ctx, collectives);
        prepareKinetoComputing(ctx, collectives);
    }

    bool isComputing(AnalysisContext& ctx, EventId e) const override
    {
        return ascendTaskComputing(ctx, e) || kinetoComputing(ctx, e);
    }

    void finishCommunication(AnalysisContext& ctx, AnalysisReport& rep) const override
    {
        hcclFinishCommunication(ctx, rep);
        kinetoFinishCommunication(ctx, rep);
    }

    int flowRank(std::string_view cat) const override
    {
        return std::min(torchNpuFlowRank(cat), kinetoFlowRank(cat));
    }

    EventId stackContinuation(const Trace& trace, const std::vector<TrackRole>& roles, EventId e,
                              const std::unordered_set<EventId>& visited,
                              const char** kind) const override
    {
        return torchNpuStackContinuation(trace, roles, e, visited, kind);
    }
};

} // namespace

const ProducerModel& genericModel()
{
    static const GenericModel model;
    return model;
}

} // namespace rs::analysis
