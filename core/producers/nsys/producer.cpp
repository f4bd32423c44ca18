// NVIDIA Nsight Systems: its SQLite export (`nsys export --type sqlite`, *.sqlite), recognised by
// its tables, and its reports (*.nsys-rep, *.qdrep), converted to that export where nsys is on
// the PATH. A file holding several processes with GPU work is a job, one rank per process (a
// "part" of the file: "pid N"). The reader (reader.h) builds the timeline nsys shows; the
// categories it writes (shared.h) classify the slices; the model (model.h) finds the
// collectives. docs/producers.md, "Nsight Systems".

#include "core/producers/producer.h"
#include "core/analysis/producermodel.h"
#include "core/producers/classify.h"
#include "core/producers/nsys/convert.h"
#include "core/producers/nsys/model.h"
#include "core/producers/nsys/reader.h"
#include "core/producers/nsys/schema.h"
#include "core/producers/nsys/shared.h"

#include <QDir>
#include <QFileInfo>

namespace rs {

namespace {

class NsysProducer final : public Producer {
public:
    std::string_view id() const override { return "nsys"; }
    std::string_view name() const override { return "nsys"; }
    std::string_view format() const override { return "sqlite"; }

    std::optional<SourceMatch> resolve(const QFileInfo& info) const override
    {
        if (info.isDir()) return std::nullopt; // a folder of ranks' exports is a job's
        const std::string path = info.filePath().toStdString();
        if (!nsys::isReportName(path) && !nsys::isExportFile(path)) return std::nullopt;
        return SourceMatch{path, nsys::rankInFileName(path)};
    }

    bool isRankFile(const QFileInfo& f) const override
    {
        if (!f.isFile()) return false;
        const std::string path = f.filePath().toStdString();
        if (nsys::isReportName(path)) return !exportBeside(f);
        return f.suffix().compare(QLatin1String("sqlite"), Qt::CaseInsensitive) == 0 &&
               nsys::isExportFile(path);
    }

    // One part per process with GPU work when there are several (a report is converted first).
    std::vector<SourceMatch> parts(const SourceMatch& source) const override
    {
        std::string file = source.file;
        if (nsys::isReportName(file)) {
            const nsys::Converted c = nsys::exportOf(file, {}, nullptr);
            if (c.file.empty()) return {source}; // the read says why
            file = c.file;
        }
        const std::vector<std::uint32_t> procs = nsys::gpuProcesses(file);
        if (procs.size() < 2) return {source};
        std::vector<SourceMatch> out;
        for (std::uint32_t pid : procs) {
            SourceMatch m = source;
            m.rank.reset(); // the reader numbers the file's ranks
            m.part = nsys::partOfProcess(pid);
            out.push_back(std::move(m));
        }
        return out;
    }

    // The model holds a slice (40 bytes) and its args text (a kernel's ~150 bytes) per row,
    // about the row's size in the export: measured 1.6-2.6x the file (bench_load).
    std::uint64_t projectedModelBytes(const std::string& file) const override
    {
        const qint64 size = QFileInfo(QString::fromStdString(file)).size();
        // A report is compressed: its export is several times larger.
        const std::uint64_t factor = nsys::isReportName(file) ? 12 : 3;
        return static_cast<std::uint64_t>(std::max<qint64>(size, 0)) * factor;
    }

    std::vector<InputKind> inputs() const override
    {
        InputKind k;
        // No nsys flags here: the commands' help lists this line beside their own options.
        k.what = "Nsight Systems SQLite export (*.sqlite, what nsys export writes), or a report "
                 "(*.nsys-rep, *.qdrep) with nsys on the PATH";
        k.globs = {"*.sqlite", "*.nsys-rep", "*.qdrep"};
        k.lookedFor = nsys::kLookedFor;
        return {k};
    }

    LoadResult read(const SourceMatch& source, const LoadOptions& options,
                    LoadProgress* progress) const override
    {
        if (!nsys::isReportName(source.file))
            return nsys::readExport(source.file, source.part, source.rank, options, progress);
        const nsys::Converted c = nsys::exportOf(source.file, options, progress);
        if (c.file.empty()) {
            LoadResult r;
            r.resolvedPath = source.file;
            r.stop = c.cancelled ? LoadStop::Cancelled : LoadStop::Unreadable;
            r.message = c.error;
            return r;
        }
        LoadResult r =
            nsys::readExport(c.file, source.part, source.rank, options, progress, source.file);
        r.resolvedPath = source.file;
        return r;
    }

    // GPUs are processes of the reader's own above every OS pid: their threads are streams.
    std::vector<TrackRole> trackRoles(const Trace& trace) const override
    {
        const auto& tracks = trace.tracks();
        const auto& procs = trace.processes();
        std::vector<TrackRole> roles(tracks.size(), TrackRole::Other);
        for (TrackId t = 0; t < tracks.size(); ++t) {
            if (tracks[t].kind == TrackKind::Counter) continue;
            std::uint64_t pid = 0;
            const std::string& text = procs[tracks[t].process].pid;
            for (char c : text)
                pid = c >= '0' && c <= '9' ? pid * 10 + std::uint64_t(c - '0') : pid;
            roles[t] = pid >= nsys::kGpuPidBase ? TrackRole::GpuStream : TrackRole::Host;
        }
        return roles;
    }

    void classify(const Trace& trace, SliceClasses& out) const override
    {
        const StringPool& sp = trace.strings();
        auto find = [&](std::string_view s) {
            const StrId id = sp.find(s);
            return id < sp.size() ? id : kNone;
        };
        const StrId kernel = find(nsys::kCatKernel), memcpy = find(nsys::kCatMemcpy),
                    memset = find(nsys::kCatMemset), runtime = find(nsys::kCatRuntime),
                    driver = find(nsys::kCatDriver), nvtx = find(nsys::kCatNvtx),
                    op = find(nsys::kCatTorchOp);
        const auto& model = analysis::nsysModel();
        producers::classifySlices(
            trace,
            [&](TrackRole role, StrId cat, StrId name) {
                if (cat == kNone) return SliceKind::Other;
                const std::string& n = trace.str(name);
                if (role == TrackRole::GpuStream) {
                    if (cat == kernel)
                        return model.classifyName(n) & analysis::kNcCollKernel
                                   ? SliceKind::Collective
                                   : SliceKind::Kernel;
                    if (cat == memcpy) return SliceKind::Copy;
                    if (cat == memset) return SliceKind::Memset;
                    return SliceKind::Other;
                }
                if (cat == runtime || cat == driver) return SliceKind::Launch;
                if (cat == nvtx || cat == op) {
                    if (nsys::stepOf(n)) return SliceKind::Step;
                    return cat == op ? SliceKind::HostOp : SliceKind::Annotation;
                }
                return SliceKind::Other; // OS runtime calls
            },
            nsys::stepOf, out);
    }

    RunFacts runFacts(const Trace& trace) const override
    {
        RunFacts f;
        const auto& md = trace.metadata();
        auto it = md.find("nsys");
        if (it == md.end() || !it->is_object()) return f;
        if (auto s = it->find("session_start_utc_ns"); s != it->end() && s->is_number_integer())
            f.clockBaseNs = s->get<TimeNs>();
        if (auto w = it->find("world_size"); w != it->end() && w->is_number_integer())
            f.worldSize = w->get<int>();
        if (auto g = it->find("gpus"); g != it->end() && g->is_array())
            for (const auto& gpu : *g)
                if (gpu.is_object())
                    if (auto n = gpu.find("name"); n != gpu.end() && n->is_string())
                        f.devices.push_back(n->get<std::string>());
        return f;
    }

    const analysis::ProducerModel& analysis() const override { return analysis::nsysModel(); }

private:
    // A report whose export sits beside it (report1.nsys-rep, report1.sqlite): the export is
    // the rank's file in a job folder.
    static bool exportBeside(const QFileInfo& report)
    {
        const QString sqlite =
            report.dir().filePath(report.completeBaseName() + QStringLiteral(".sqlite"));
        return nsys::isExportFile(sqlite.toStdString());
    }
};

} // namespace

const Producer& nsysProducer()
{
    static const NsysProducer p;
    return p;
}

} // namespace rs
