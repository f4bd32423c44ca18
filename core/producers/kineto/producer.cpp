// PyTorch Kineto traces (CUPTI / roctracer): *.pt.trace.json[.gz], one per rank, NCCL or
// RCCL. Host threads and GPU streams are told apart by their categories (process and thread
// names are optional: TraceLens' vLLM trace has none).

#include "core/producers/producer.h"
#include "core/analysis/producermodel.h"
#include "core/producers/classify.h"
#include "core/producers/kineto/correlation.h"
#include "core/producers/kineto/model.h"
#include "core/producers/roles.h"
#include "core/producers/runfacts.h"

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

    std::vector<InputKind> inputs() const override
    {
        InputKind json;
        json.what = "PyTorch Kineto trace (*.pt.trace.json[.gz]; NCCL, RCCL)";
        json.globs = {"*.pt.trace.json"};
        json.mimeType = "application/x-kineto-trace+json";
        json.mimeComment = "PyTorch Kineto trace";
        json.mimeParent = "application/json";
        // Weight 60 beats the default 50 of *.json even where a desktop ignores the
        // longest-glob rule. The magic (a "schemaVersion" key followed by Kineto's own keys)
        // names a trace whose file name says nothing, e.g. one saved without an extension.
        json.mimeWeight = 60;
        json.mimeMagic =
            R"(<match type="string" value="&quot;schemaVersion&quot;" offset="0:64">
        <match type="string" value="&quot;deviceProperties&quot;" offset="0:256"/>
        <match type="string" value="&quot;distributedInfo&quot;" offset="0:256"/>
        <match type="string" value="&quot;traceEvents&quot;" offset="0:4096"/>
      </match>)";
        InputKind gz;
        gz.globs = {"*.pt.trace.json.gz"};
        gz.mimeType = "application/x-kineto-trace+gzip";
        gz.mimeComment = "PyTorch Kineto trace (gzip-compressed)";
        gz.mimeParent = "application/gzip";
        gz.mimeWeight = 60;
        return {json, gz};
    }

    void classify(const Trace& trace, SliceClasses& out) const override
    {
        producers::ChromeTraceKinds(trace).classify(out);
    }

    ImpliedFlows impliedFlows(const Trace& trace) const override
    {
        return kineto::launchFlowsByCorrelation(trace);
    }

    RunFacts runFacts(const Trace& trace) const override
    {
        return producers::chromeTraceFacts(trace);
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
