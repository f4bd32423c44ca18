// torch_npu's text export (Ascend PyTorch Profiler): per rank a *_ascend_pt folder whose
// ASCEND_PROFILER_OUTPUT holds trace_view.json, a Chrome trace with processes named after the
// layers of the CANN stack (Python, CANN, Ascend Hardware, HCCL, Overlap Analysis), "ts" as
// strings with ns digits (../shared/docs/trace-formats.md).

#include "core/producers/producer.h"
#include "core/analysis/producermodel.h"
#include "core/producers/classify.h"
#include "core/producers/runfacts.h"
#include "core/producers/torchnpu/model.h"
#include "core/producers/torchnpu/runfolder.h"

#include <QDir>
#include <QFileInfo>

namespace rs {

namespace {

constexpr const char* kTraceFile = "trace_view.json";

class TorchNpuProducer final : public Producer {
public:
    std::string_view id() const override { return "torch_npu"; }

    std::optional<SourceMatch> resolve(const QFileInfo& info) const override
    {
        if (!info.isDir()) {
            if (info.fileName() != kTraceFile) return std::nullopt;
            // In an ASCEND_PROFILER_OUTPUT folder: the rank from the run folder.
            SourceMatch m{info.filePath().toStdString(), std::nullopt};
            if (info.dir().dirName() == torchnpu::kOutputFolder)
                m.rank = torchnpu::rankFromProfilerInfo(torchnpu::runFolderOf(m.file));
            return m;
        }
        const QDir dir(info.absoluteFilePath());
        const QString inOutput = QString(torchnpu::kOutputFolder) + "/" + kTraceFile;
        if (dir.exists(inOutput))
            return SourceMatch{dir.filePath(inOutput).toStdString(),
                               torchnpu::rankFromProfilerInfo(dir.path().toStdString())};
        if (dir.exists(kTraceFile)) { // the ASCEND_PROFILER_OUTPUT folder itself
            const std::string file = dir.filePath(kTraceFile).toStdString();
            return SourceMatch{file, torchnpu::rankFromProfilerInfo(torchnpu::runFolderOf(file))};
        }
        return std::nullopt;
    }

    bool isRunFolder(const QDir& d) const override
    {
        return d.exists(QString(torchnpu::kOutputFolder) + "/" + kTraceFile) ||
               d.exists(kTraceFile);
    }

    std::optional<int> worldSizeBeside(const std::string& file) const override
    {
        return producers::worldSizeInFiles(torchnpu::runMetadataFiles(file));
    }

    std::vector<InputKind> inputs() const override
    {
        InputKind k;
        k.what = "torch_npu run folder (*_ascend_pt) or its ASCEND_PROFILER_OUTPUT/trace_view.json";
        // torch_npu always writes this name, in ASCEND_PROFILER_OUTPUT/.
        k.globs = {kTraceFile};
        k.mimeType = "application/x-torch-npu-trace+json";
        k.mimeComment = "Ascend PyTorch Profiler trace";
        k.mimeParent = "application/json";
        k.caseSensitive = true;
        return {k};
    }

    bool recognises(const Trace& trace, const ContentClues& clues) const override
    {
        // torch_npu writes "ts" as strings with ns digits and names its processes after the
        // layers of the CANN stack.
        if (clues.stringTimestamps) return true;
        for (const Process& p : trace.processes()) {
            const std::string& n = trace.str(p.name);
            if (n == "Ascend Hardware" || n == "CANN" || n == "HCCL" || n == "Overlap Analysis")
                return true;
        }
        return false;
    }

    std::vector<TrackRole> trackRoles(const Trace& trace) const override
    {
        return torchnpu::roles(trace);
    }

    void classify(const Trace& trace, SliceClasses& out) const override
    {
        producers::ChromeTraceKinds(trace).classify(out);
    }

    RunFacts runFacts(const Trace& trace) const override
    {
        return producers::chromeTraceFacts(trace);
    }

    const analysis::ProducerModel& analysis() const override { return analysis::torchNpuModel(); }
};

} // namespace

const Producer& torchNpuProducer()
{
    static const TorchNpuProducer p;
    return p;
}

} // namespace rs
