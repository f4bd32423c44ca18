#include "core/producers/torchnpu/runfolder.h"

#include "core/producers/roles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <nlohmann/json.hpp>

namespace rs::torchnpu {

std::optional<int> rankFromProfilerInfo(const std::string& runFolder)
{
    QDir dir(QString::fromStdString(runFolder));
    const QStringList infos = dir.entryList({"profiler_info_*.json"}, QDir::Files, QDir::Name);
    for (const QString& name : infos) {
        QFile f(dir.filePath(name));
        if (f.open(QIODevice::ReadOnly) && f.size() < (16 << 20)) {
            const QByteArray bytes = f.readAll();
            auto j = nlohmann::json::parse(bytes.constBegin(), bytes.constEnd(), nullptr, false);
            if (j.is_object()) {
                auto it = j.find("rank_id");
                if (it != j.end() && it->is_number_integer() && it->get<int>() >= 0)
                    return it->get<int>();
            }
        }
        static const QRegularExpression re("profiler_info_(\\d+)\\.json");
        auto m = re.match(name);
        if (m.hasMatch()) return m.captured(1).toInt();
    }
    return std::nullopt;
}

std::string runFolderOf(const std::string& file)
{
    QDir dir = QFileInfo(QString::fromStdString(file)).absoluteDir();
    if (dir.dirName() == kOutputFolder && !dir.cdUp()) return {};
    return dir.path().toStdString();
}

std::vector<std::string> runMetadataFiles(const std::string& file)
{
    std::vector<std::string> out;
    const std::string run = runFolderOf(file);
    if (run.empty()) return out;
    const QDir dir(QString::fromStdString(run));
    if (dir.exists("profiler_metadata.json"))
        out.push_back(dir.filePath("profiler_metadata.json").toStdString());
    for (const QString& name : dir.entryList({"profiler_info*.json"}, QDir::Files, QDir::Name))
        out.push_back(dir.filePath(name).toStdString());
    return out;
}

std::string_view processName(const Trace& trace, ProcessId p, std::string_view* prefix)
{
    std::string_view name =
        p != kNone ? std::string_view(trace.str(trace.processes()[p].name)) : std::string_view();
    std::string_view head;
    // A job's merged trace names rank r's processes "Rank r · HCCL" or "Trace k (rank r) · HCCL"
    // (core/job/jobtrace.cpp); the producer's own name follows the first separator.
    static constexpr std::string_view kSep = " \xc2\xb7 ";
    if (name.starts_with("Rank ") || name.starts_with("Trace ")) {
        const std::size_t at = name.find(kSep);
        if (at != std::string_view::npos) {
            head = name.substr(0, at + kSep.size());
            name.remove_prefix(at + kSep.size());
        }
    }
    if (prefix) *prefix = head;
    return name;
}

TrackRole threadRole(const Trace& trace, TrackId t)
{
    const Track& tr = trace.tracks()[t];
    const std::string_view proc = processName(trace, tr.process);
    const std::string& thread = trace.str(tr.name);
    if (proc == "HCCL") {
        if (thread.find("Communication") != std::string::npos) return TrackRole::HcclGroup;
        if (thread.starts_with("Plane")) return TrackRole::HcclPlane;
        return TrackRole::Other;
    }
    if (proc == "Ascend Hardware") return TrackRole::AscendDevice;
    if (proc == "CANN") return TrackRole::Cann;
    if (proc == "Python") return TrackRole::Host;
    if (proc == "Overlap Analysis") return TrackRole::Derived;
    // Not one of torch_npu's processes: judge by categories as for any Chrome trace.
    return producers::roleFromCategories(trace, t);
}

std::vector<TrackRole> roles(const Trace& trace)
{
    const auto& tracks = trace.tracks();
    std::vector<TrackRole> out(tracks.size(), TrackRole::Other);
    for (TrackId t = 0; t < tracks.size(); ++t) {
        if (tracks[t].kind != TrackKind::Counter) {
            out[t] = threadRole(trace, t);
            continue;
        }
        // msprof's counters (HBM, LLC, NPU MEM, AI Core Freq, Acc PMU, QoS, Stars Soc Info)
        // have processes of their own; the host's memory counters sit under Python or CANN.
        const std::string_view proc = processName(trace, tracks[t].process);
        if (!proc.empty() && proc != "Python" && proc != "CANN" && proc != "Overlap Analysis")
            out[t] = TrackRole::DeviceMetric;
    }
    return out;
}

} // namespace rs::torchnpu
