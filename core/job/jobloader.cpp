#include "core/job/jobloader.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include "core/producers/registry.h"
#include "core/workpool.h"

#include <algorithm>
#include <map>
#include <set>

namespace rs {

std::optional<int> rankFromName(const std::string& name)
{
    static const QRegularExpression re("(?:^|[^a-z])(?:rank|worker)[_-]?(\\d+)",
                                       QRegularExpression::CaseInsensitiveOption);
    const auto m = re.match(QString::fromStdString(name));
    if (!m.hasMatch()) return std::nullopt;
    bool ok = false;
    const int r = m.captured(1).toInt(&ok);
    return ok ? std::optional<int>(r) : std::nullopt;
}

namespace {

void addInput(std::vector<RankInput>& out, const QFileInfo& info)
{
    const std::string path = info.absoluteFilePath().toStdString();
    const producers::Resolved r = producers::resolve(path);
    // A file that holds several ranks is one input per rank; the reader numbers them.
    if (r.producer) {
        const std::vector<SourceMatch> parts = r.producer->parts(r.source);
        if (parts.size() > 1) {
            for (const SourceMatch& m : parts)
                out.push_back({path, m.rank, m.part});
            return;
        }
    }
    RankInput in;
    in.path = path;
    // What the layout says (profiler_info_N.json beside a torch_npu export), else the name.
    in.rank = r.source.rank;
    if (!in.rank) in.rank = rankFromName(info.fileName().toStdString());
    out.push_back(std::move(in));
}

// A folder: a run itself, or a job holding runs, trace files or rank sub-folders. What a run
// folder and a rank file are is each producer's to say (core/producers/).
void expandFolder(std::vector<RankInput>& out, const QDir& dir, int levels)
{
    if (producers::isRunFolder(dir)) {
        addInput(out, QFileInfo(dir.absolutePath()));
        return;
    }
    const QFileInfoList entries =
        dir.entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QFileInfo& e : entries) {
        if (e.isDir()) {
            if (producers::isRunFolder(QDir(e.absoluteFilePath())))
                addInput(out, e);
            else if (levels > 0)
                expandFolder(out, QDir(e.absoluteFilePath()), levels - 1);
        } else if (producers::isRankFile(e)) {
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
            if (error) *error = p + ": no such file or directory";
            continue;
        }
        if (info.isDir())
            expandFolder(out, QDir(info.absoluteFilePath()), 2);
        else
            addInput(out, info);
    }
    if (out.empty() && error && error->empty()) *error = "no trace found in the given paths";
    std::stable_sort(out.begin(), out.end(), [](const RankInput& a, const RankInput& b) {
        if (a.rank.has_value() != b.rank.has_value()) return a.rank.has_value();
        if (a.rank && b.rank && *a.rank != *b.rank) return *a.rank < *b.rank;
        return a.path < b.path;
    });
    return out;
}

int rankIdOf(const Trace& trace, std::size_t position)
{
    return trace.rank() ? *trace.rank() : static_cast<int>(position);
}

bool formsOneJob(const std::vector<std::optional<int>>& declaredRanks)
{
    if (declaredRanks.size() < 2) return false;
    std::set<int> seen;
    for (const std::optional<int>& r : declaredRanks)
        if (!r || !seen.insert(*r).second) return false;
    return true;
}

bool formsOneJob(const std::vector<TracePtr>& traces)
{
    std::vector<std::optional<int>> ranks;
    for (const TracePtr& t : traces)
        ranks.push_back(t ? t->rank() : std::nullopt);
    return formsOneJob(ranks);
}

void JobProgress::requestCancel()
{
    cancel = true;
    std::lock_guard lock(m_mutex);
    for (LoadProgress* p : m_loading)
        p->cancel = true;
}

std::uint64_t JobProgress::bytesDone() const
{
    std::uint64_t d = done.load();
    std::lock_guard lock(m_mutex);
    for (const LoadProgress* p : m_loading)
        d += p->done.load(std::memory_order_relaxed);
    return d;
}

void JobProgress::attach(LoadProgress* rank)
{
    std::lock_guard lock(m_mutex);
    m_loading.push_back(rank);
    if (cancel.load()) rank->cancel = true;
    // A rank's chunks move the job's progress too (bytesDone), not only its end.
    if (onChange) rank->onAdvance = onChange;
}

void JobProgress::detach(LoadProgress* rank)
{
    std::lock_guard lock(m_mutex);
    m_loading.erase(std::remove(m_loading.begin(), m_loading.end(), rank), m_loading.end());
}

namespace {

std::uint64_t fileBytes(const std::string& path)
{
    const ResolvedPath r = resolveTracePath(path);
    const QFileInfo f(QString::fromStdString(r.file.empty() ? path : r.file));
    return static_cast<std::uint64_t>(std::max<qint64>(f.size(), 0));
}

} // namespace

std::uint64_t projectedRankBytes(const std::string& path)
{
    const ResolvedPath r = resolveTracePath(path);
    return r.reader ? r.reader->projectedModelBytes(r.file) : 0;
}

std::vector<LoadResult> loadRanks(const std::vector<RankInput>& inputs, const LoadOptions& options,
                                  JobProgress* progress, int maxParallel,
                                  const AfterRankLoad& after, bool* cancelled, RankLoadStats* stats,
                                  bool keepTraces)
{
    const std::size_t n = inputs.size();
    std::vector<LoadResult> results(n);
    std::vector<std::uint64_t> sizes(n);
    std::uint64_t totalBytes = 0;
    // A file's ranks share its model: each projects its share. (Each still reads the file
    // through, so its bytes count for each in the progress.)
    std::map<std::string, std::uint64_t> partsOf;
    for (const RankInput& in : inputs)
        if (!in.part.empty()) ++partsOf[in.path];
    std::vector<std::uint64_t> projected(n);
    for (std::size_t i = 0; i < n; ++i) {
        sizes[i] = fileBytes(inputs[i].path);
        totalBytes += sizes[i];
        projected[i] = projectedRankBytes(inputs[i].path);
        if (!inputs[i].part.empty()) projected[i] /= partsOf[inputs[i].path];
    }
    if (progress) {
        progress->total = totalBytes;
        progress->ranks = static_cast<int>(n);
    }
    const std::uint64_t budget =
        options.maxMemoryBytes ? options.maxMemoryBytes : defaultMemoryBudget();
    WorkPool& pool = WorkPool::global();
    const int running = maxParallel > 0 ? maxParallel : pool.threadCount();
    std::atomic<bool> stopped{false};
    {
        // Ranks start in order as their projection fits next to what loaded ranks keep; the
        // gate never blocks a pool thread, and this thread helps run them while it waits.
        MemoryGate gate(budget, running, pool);
        for (std::size_t i = 0; i < n; ++i) {
            gate.submit(projected[i], [&, i](std::uint64_t limit) {
                if (progress && progress->cancel.load()) {
                    stopped = true;
                    results[i].status = LoadStatus::Failed;
                    results[i].stop = LoadStop::Cancelled;
                    return std::uint64_t(0);
                }
                LoadOptions o = options;
                o.maxMemoryBytes = limit;
                o.rankHint = inputs[i].rank;
                o.part = inputs[i].part;
                LoadProgress rankProgress;
                if (progress) progress->attach(&rankProgress);
                results[i] = loadTrace(inputs[i].path, o, &rankProgress);
                if (progress) progress->detach(&rankProgress);
                std::uint64_t kept = 0;
                if (const TracePtr t = results[i].trace) {
                    if (keepTraces) kept = t->modelBytes() + t->argsBytes();
                    if (after && !(progress && progress->cancel.load()))
                        kept += after(i, results[i]);
                    if (!keepTraces) results[i].trace.reset();
                }
                if (results[i].cancelled()) stopped = true;
                if (progress) {
                    progress->done += sizes[i];
                    ++progress->ranksDone;
                    if (progress->onChange) progress->onChange();
                }
                return kept;
            });
        }
        gate.wait();
        if (stats) *stats = {budget, gate.peakHeld(), gate.peakRunningItems()};
    }
    if (progress && progress->cancel.load()) stopped = true;
    if (cancelled) *cancelled = stopped.load();
    return results;
}

JobLoadResult loadJob(const std::vector<RankInput>& inputs, const LoadOptions& options,
                      JobProgress* progress, int maxParallel)
{
    JobLoadResult result;
    std::vector<LoadResult> results =
        loadRanks(inputs, options, progress, maxParallel, {}, &result.cancelled);
    std::vector<std::pair<int, TracePtr>> loaded;
    for (std::size_t i = 0; i < results.size(); ++i) {
        LoadResult& r = results[i];
        if (r.failed()) {
            if (!r.cancelled() && !r.message.empty()) result.errors.push_back(r.message);
            continue;
        }
        if (!r.complete()) result.warnings.push_back(r.message);
        loaded.emplace_back(rankIdOf(*r.trace, i), r.trace);
    }
    std::stable_sort(loaded.begin(), loaded.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [rank, t] : loaded)
        result.traces.push_back(t);
    return result;
}

} // namespace rs
