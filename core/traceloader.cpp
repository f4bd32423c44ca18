#include "core/traceloader.h"

#include "core/parallelloader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

#include <sys/resource.h>
#include <unistd.h>

namespace rs {

std::uint64_t defaultMemoryBudget()
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long size = sysconf(_SC_PAGE_SIZE);
    std::uint64_t budget = pages <= 0 || size <= 0 ? 8ull << 30
                                                   : static_cast<std::uint64_t>(pages) *
                                                         static_cast<std::uint64_t>(size) / 4 * 3;
    // Under an address-space limit (ulimit -v) half of it: growing vectors and the threads'
    // heaps reserve more address space than they touch.
    rlimit as{};
    if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
        budget = std::min<std::uint64_t>(budget, static_cast<std::uint64_t>(as.rlim_cur) / 2);
    return budget;
}

std::optional<int> rankFromProfilerInfo(const std::string& folder)
{
    QDir dir(QString::fromStdString(folder));
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

ResolvedPath resolveTracePath(const std::string& path)
{
    ResolvedPath r;
    const QFileInfo info(QString::fromStdString(path));
    if (!info.exists()) {
        r.error = path + ": no such file or directory";
        return r;
    }
    if (!info.isDir()) {
        r.file = path;
        // A trace_view.json inside an ASCEND_PROFILER_OUTPUT folder: rank from the run folder.
        const QDir parent = info.dir();
        if (info.fileName() == "trace_view.json" && parent.dirName() == "ASCEND_PROFILER_OUTPUT") {
            QDir run = parent;
            if (run.cdUp()) r.rank = rankFromProfilerInfo(run.path().toStdString());
        }
        return r;
    }
    const QDir dir(info.absoluteFilePath());
    if (dir.exists("ASCEND_PROFILER_OUTPUT/trace_view.json")) {
        r.file = dir.filePath("ASCEND_PROFILER_OUTPUT/trace_view.json").toStdString();
        r.rank = rankFromProfilerInfo(dir.path().toStdString());
        return r;
    }
    if (dir.exists("trace_view.json")) {
        r.file = dir.filePath("trace_view.json").toStdString();
        QDir run = dir;
        if (run.cdUp()) r.rank = rankFromProfilerInfo(run.path().toStdString());
        return r;
    }
    r.error = path + ": a folder with no trace (expected a torch_npu *_ascend_pt folder with "
                     "ASCEND_PROFILER_OUTPUT/trace_view.json)";
    return r;
}

LoadResult loadTrace(const std::string& path, const LoadOptions& options, LoadProgress* progress)
{
    const ResolvedPath where = resolveTracePath(path);
    if (!where.error.empty()) {
        LoadResult r;
        r.stop = LoadStop::Unreadable;
        r.message = where.error;
        return r;
    }
    LoadResult r = loadTraceFile(where.file, where.rank, options, progress);
    if (!r.message.empty() && !r.cancelled() && r.message.rfind(where.file, 0) != 0)
        r.message = where.file + ": " + r.message;
    return r;
}

LoadResult loadTraceFromMemory(const char* data, std::size_t size, const LoadOptions& options,
                               const std::string& name)
{
    return loadTraceBytes(data, size, name, options);
}

} // namespace rs
