// PyTorch Kineto traces (CUPTI / roctracer): *.pt.trace.json[.gz], one per rank, NCCL or
// RCCL. Host threads and GPU streams are told apart by their categories (process and thread
// names are optional: TraceLens' vLLM trace has none).

#include "core/producers/producer.h"
#include "core/analysis/producermodel.h"
#include "core/producers/kineto/model.h"
#include "core/producers/roles.h"

#include <limits>

namespace rs {

namespace {

class KinetoProducer final : public Producer {
public:
    std::string_view id() const override { return "kineto"; }

    // Any JSON file is read by the JSON reader (the generic producer claims paths); content
    // says whether Kineto wrote it.
    std::optional<SourceMatch> resolve(const QFileInfo&) const override { return std::nullopt; }

    bool recognises(const Trace& trace, const ContentClues&) const override
    {
        // Its top-level keys, else its categories.
        const auto& md = trace.metadata();
        if (md.is_object() && (md.contains("schemaVersion") || md.contains("deviceProperties") ||
                               md.contains("distributedInfo") || md.contains("traceName") ||
                               md.contains("baseTimeNanoseconds")))
            return true;
        for (const char* c : {"cuda_runtime", "kernel", "gpu_memcpy", "ac2g", "cpu_op"})
            if (trace.strings().find(c) != std::numeric_limits<StrId>::max()) return true;
        return false;
    }

    std::vector<TrackRole> trackRoles(const Trace& trace) const override
    {
        const auto& tracks = trace.tracks();
        std::vector<TrackRole> roles(tracks.size(), TrackRole::Other);
        for (TrackId t = 0; t < tracks.size(); ++t)
            if (tracks[t].kind != TrackKind::Counter)
                roles[t] = producers::roleFromCategories(trace, t);
        producers::markDeviceCounters(trace, roles);
        return roles;
    }

    const analysis::ProducerModel& analysis() const override { return analysis::kinetoModel(); }
};

} // namespace

const Producer& kinetoProducer()
{
    static const KinetoProducer p;
    return p;
}

} // namespace rs
