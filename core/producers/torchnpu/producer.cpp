// torch_npu's text export (Ascend PyTorch Profiler): per rank a *_ascend_pt folder whose
// ASCEND_PROFILER_OUTPUT holds trace_view.json, a Chrome trace with processes named after the
// layers of the CANN stack (Python, CANN, Ascend Hardware, HCCL, Overlap Analysis), "ts" as
// strings with ns digits (../shared/docs/trace-formats.md).

#include "core/producers/producer.h"
#include "core/analysis/producermodel.h"
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

    std::vector<std::string> runMetadataFiles(const std::string& file) const override
    {
        return torchnpu::runMetadataFiles(file);
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

    const analysis::ProducerModel& analysis() const override { return analysis::torchNpuModel(); }
};

} // namespace

const Producer& torchNpuProducer()
{
    static const TorchNpuProducer p;
    return p;
}

} // namespace rs
