#include "core/job/jobloader.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace rs {

std::optional<int> rankFromName(const std::string& name)
{
    static const QRegularExpression re("(?:^|[^a-z])(?:rank|worker)[_-]?(\\d+)",
                                       QRegularExpression::CaseInsensitiveOption);
    const auto m = re.match(QString::fromStdString(name));
    if (!m.hasMatch())
        return std::nullopt;
    bool ok = false;
    const int r = m.captured(1).toInt(&ok);
    return ok ? std::optional<int>(r) : std::nullopt;
}

namespace {

bool isTraceFile(const QFileInfo& f)
{
    const QString n = f.fileName().toLower();
    return f.isFile() && (n.endsWith(".json") || n.endsWith(".json.gz")) &&
           !n.startsWith("profiler_info") && !n.startsWith("profiler_metadata") &&
           !n.endsWith(".ringscope.json") && !n.startsWith("communication");
}

bool isAscendRun(const QDir& d)
{
    return d.exists("ASCEND_PROFILER_OUTPUT/trace_view.json") || d.exists("trace_view.json");
}

void addInput(std::vector<RankInput>& out, const QFileInfo& info)
{
    RankInput in;
    in.path = info.absoluteFilePath().toStdString();
    if (info.isDir()) {
        const ResolvedPath r = resolveTracePath(in.path);
        in.rank = r.rank;
    }
    if (!in.rank)
        in.rank = rankFromName(info.fileName().toStdString());
    out.push_back(std::move(in));
}

// A folder: a run itself, or a job holding runs, trace files or rank sub-folders.
void expandFolder(std::vector<RankInput>& out, const QDir& dir, int levels)
{
    if (isAscendRun(dir)) {
        addInput(out, QFileInfo(dir.absolutePath()));
        return;
    }
    const QFileInfoList entries =
        dir.entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QFileInfo& e : entries) {
        if (e.isDir()) {
            if (isAscendRun(QDir(e.absoluteFilePath())))
                addInput(out, e);
            else if (levels > 0)
                expandFolder(out, QDir(e.absoluteFilePath()), levels - 1);
        } else if (isTraceFile(e)) {
            addInput(out, e);
        }
    }
}

} // namespace

std::vector<RankInput> discoverJob(const std::vector<std::string>& paths, std::string* error)
{
    std::vector<RankInput> out;
    for (const std::string& p : paths) {
        const QFileInfo info(QString::fromStdString(p));
        if (!info.exists()) {
            if (error)
                *error = p + ": no such file or directory";
            continue;
        }
        if (info.isDir())
            expandFolder(out, QDir(info.absoluteFilePath()), 2);
        else
            addInput(out, info);
    }
    if (out.empty() && error && error->empty())
        *error = "no trace found in the given paths";
    std::stable_sort(out.begin(), out.end(), [](const RankInput& a, const RankInput& b) {
        if (a.rank.has_value() != b.rank.has_value())
            return a.rank.has_value();
        if (a.rank && b.rank && *a.rank != *b.rank)
            return *a.rank < *b.rank;
        return a.path < b.path;
    });
    return out;
}

namespace {

// Projected model bytes of a file before loading it: measured ratios of model to file size.
std::uint64_t projectBytes(const std::string& path)
{
    const ResolvedPath r = resolveTracePath(path);
    const QFileInfo f(QString::fromStdString(r.file.empty() ? path : r.file));
    const auto size = static_cast<std::uint64_t>(std::max<qint64>(f.size(), 0));
    QFile file(f.absoluteFilePath());
    bool gz = false;
    if (file.open(QIODevice::ReadOnly)) {
        const QByteArray head = file.read(2);
        gz = head.size() == 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
             static_cast<unsigned char>(head[1]) == 0x8b;
    }
    return gz ? size * 12 : size;
}

} // namespace

JobLoadResult loadJob(const std::vector<RankInput>& inputs, const LoadOptions& options,
                      JobProgress* progress)
{
    JobLoadResult result;
    const std::size_t n = inputs.size();
    const std::uint64_t budget =
        options.maxMemoryBytes ? options.maxMemoryBytes : defaultMemoryBudget();
    std::vector<std::unique_ptr<LoadProgress>> perRank;
    std::vector<std::uint64_t> projected(n);
    std::uint64_t totalBytes = 0;
    for (std::size_t i = 0; i < n; ++i) {
        perRank.push_back(std::make_unique<LoadProgress>());
        projected[i] = projectBytes(inputs[i].path);
        const QFileInfo f(QString::fromStdString(resolveTracePath(inputs[i].path).file));
        totalBytes += static_cast<std::uint64_t>(std::max<qint64>(f.size(), 0));
    }
    if (progress)
        progress->total = totalBytes;

    std::vector<LoadResult> results(n);
    std::mutex mutex;
    std::condition_variable cv;
    std::size_t next = 0;
    std::uint64_t used = 0; // loaded models plus reservations of ranks in flight
    int inFlight = 0;
    bool stop = false;

    auto worker = [&]() {
        for (;;) {
            std::size_t i;
            std::uint64_t share;
            {
                std::unique_lock lock(mutex);
                // Start the next rank once its projection fits, or when nothing else runs
                // (then the loader itself refuses it if it cannot fit).
                cv.wait(lock, [&]() {
                    return stop || next >= n || inFlight == 0 || used + projected[next] <= budget;
                });
                if (stop || next >= n)
                    return;
                i = next++;
                share = budget > used ? budget - used : 1;
                used += projected[i];
                ++inFlight;
            }
            LoadOptions o = options;
            o.maxMemoryBytes = share;
            o.rankHint = inputs[i].rank;
            LoadResult r = loadTrace(inputs[i].path, o, perRank[i].get());
            {
                std::lock_guard lock(mutex);
                used -= projected[i];
                if (r.trace)
                    used += r.trace->modelBytes() + r.trace->argsBytes();
                --inFlight;
                results[i] = std::move(r);
                if (progress)
                    ++progress->ranksDone;
            }
            cv.notify_all();
        }
    };

    const std::size_t threads =
        std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), n);
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < threads; ++t)
        pool.emplace_back(worker);
    // Aggregate progress and pass a cancel on, ten times a second or more.
    for (;;) {
        bool finished;
        {
            std::lock_guard lock(mutex);
            finished = (next >= n && inFlight == 0) || (stop && inFlight == 0);
        }
        if (progress) {
            std::uint64_t done = 0;
            for (const auto& p : perRank)
                done += p->done.load(std::memory_order_relaxed);
            progress->done = done;
            if (progress->cancel.load()) {
                std::lock_guard lock(mutex);
                stop = true;
                for (const auto& p : perRank)
                    p->cancel = true;
                cv.notify_all();
            }
        }
        if (finished)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (std::thread& t : pool)
        t.join();

    result.cancelled = stop;
    std::vector<std::pair<int, TracePtr>> loaded;
    for (std::size_t i = 0; i < n; ++i) {
        LoadResult& r = results[i];
        if (r.failed()) {
            if (!r.cancelled() && !r.message.empty())
                result.errors.push_back(r.message);
            continue;
        }
        if (!r.complete())
            result.warnings.push_back(r.message);
        const int rank = r.trace->rank() ? *r.trace->rank()
                                         : inputs[i].rank ? *inputs[i].rank
                                                          : static_cast<int>(i);
        loaded.emplace_back(rank, r.trace);
    }
    std::stable_sort(loaded.begin(), loaded.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [rank, t] : loaded)
        result.traces.push_back(t);
    return result;
}

} // namespace rs
