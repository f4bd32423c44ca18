// A Chrome trace of unknown origin, and the reader of every JSON file no other producer claims
// (its content then decides who wrote it: registry.h). Every known convention is tried, so a
// trace that lost the marks detection looks for (a tool rewrote it, metadata was stripped) is
// still analysed.

#include "core/producers/producer.h"
#include "core/analysis/producermodel.h"
#include "core/producers/classify.h"
#include "core/producers/generic/model.h"
#include "core/producers/kineto/correlation.h"
#include "core/producers/roles.h"
#include "core/producers/runfacts.h"
#include "core/producers/torchnpu/runfolder.h"

#include <QFileInfo>

namespace rs {

namespace {

class GenericProducer final : public Producer {
public:
    std::string_view id() const override { return "other"; }

    // Any file: the JSON reader reads it (a file that is no JSON gets the reader's message).
    std::optional<SourceMatch> resolve(const QFileInfo& info) const override
    {
        if (info.isDir()) return std::nullopt;
        return SourceMatch{info.filePath().toStdString(), std::nullopt};
    }

    // In a job folder: JSON traces, not the files that sit beside them.
    bool isRankFile(const QFileInfo& f) const override
    {
        const QString n = f.fileName().toLower();
        return f.isFile() && (n.endsWith(".json") || n.endsWith(".json.gz")) &&
               !n.startsWith("profiler_info") && !n.startsWith("profiler_metadata") &&
               !n.endsWith(".ringscope.json") && !n.startsWith("communication");
    }

    bool recognises(const Trace&, const ContentClues&) const override { return true; }

    std::vector<TrackRole> trackRoles(const Trace& trace) const override
    {
        const auto& tracks = trace.tracks();
        std::vector<TrackRole> roles(tracks.size(), TrackRole::Other);
        for (TrackId t = 0; t < tracks.size(); ++t)
            if (tracks[t].kind != TrackKind::Counter) roles[t] = torchnpu::threadRole(trace, t);
        producers::markDeviceCounters(trace, roles);
        return roles;
    }

    std::vector<InputKind> inputs() const override
    {
        InputKind k;
        k.what = "any Chrome Trace Event Format file (*.json, *.json.gz)";
        k.globs = {"*.json", "*.json.gz"};
        return {k};
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

    const analysis::ProducerModel& analysis() const override { return analysis::genericModel(); }
};

} // namespace

const Producer& genericProducer()
{
    static const GenericProducer p;
    return p;
}

} // namespace rs
