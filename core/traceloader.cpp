#include "core/traceloader.h"

#include "core/bytesource.h"
#include "core/jsonsaxreader.h"
#include "core/parallelloader.h"
#include "core/tracebuilder.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <cstdio>
#include <unistd.h>

namespace rs {

namespace {

// MiB below 1 GiB: a small budget (tests, --max-memory 64) must not read "0.06 GiB".
std::string gib(std::uint64_t bytes)
{
    char buf[64];
    const double mib = static_cast<double>(bytes) / (1024.0 * 1024);
    if (mib < 1024)
        std::snprintf(buf, sizeof buf, "%.1f MiB", mib);
    else
        std::snprintf(buf, sizeof buf, "%.2f GiB", mib / 1024);
    return buf;
}

// The refusal names what loading would hold at its peak and what the loaded trace keeps.
std::string overBudgetMessage(std::uint64_t peak, std::uint64_t model, std::uint64_t budget,
                              bool projected)
{
    return "the trace needs about " + gib(peak) + " of memory while loading (" +
           (projected ? "projected; " : "") + gib(model) +
           " for the loaded trace), more than the budget of " + gib(budget) +
           "; raise it with --max-memory";
}

LoadResult failed(LoadStop why, std::string message)
{
    LoadResult r;
    r.stop = why;
    r.message = std::move(message);
    return r;
}

LoadResult run(ByteSource& src, const std::string& name, std::optional<int> rank,
               const LoadOptions& options, LoadProgress* progress)
{
    LoadResult result;
    result.resolvedPath = name;
    const std::uint64_t budget =
        options.maxMemoryBytes ? options.maxMemoryBytes : defaultMemoryBudget();
    TraceBuilder builder;
    builder.setPath(name);
    if (rank) builder.setRank(*rank);
    builder.setFallbackRank(options.rankHint);
    if (progress) {
        progress->total.store(src.fileSize());
        src.setProgress(&progress->done);
        src.setCancelFlag(&progress->cancel);
    }
    // A gzip bomb expands without bound, and text the projection cannot see (a run of
    // blanks, one giant string) is held whole by the JSON lexer: cap the text at the budget.
    src.setUncompressedLimit(budget);
    std::string budgetError;
    JsonSaxReader reader(src, builder);
    reader.setTick([&]() {
        if (progress && progress->cancel.load(std::memory_order_relaxed)) return false;
        // Project the model's final size from the share of the file parsed so far (not read:
        // the read-ahead chunk would make the share look 10x larger on a small prefix).
        // Wait for 1 MiB of text first: a compressed prefix that small is too noisy.
        const std::uint64_t read = src.fileBytesConsumed();
        if (src.offset() < (1u << 20) || read == 0) return true;
        const double share = static_cast<double>(read) / static_cast<double>(src.fileSize());
        const double scale = 1.0 / std::max(share, 1e-6);
        const auto projected =
            static_cast<std::uint64_t>(static_cast<double>(builder.estimatedPeakBytes()) * scale);
        if (projected > budget || builder.estimatedPeakBytes() > budget) {
            budgetError = overBudgetMessage(
                projected,
                static_cast<std::uint64_t>(static_cast<double>(builder.estimatedBytes()) * scale),
                budget, true);
            return false;
        }
        return true;
    });
    const JsonSaxReader::Result r = reader.read();
    builder.setBytesRead(src.offset());
    if (r.aborted) {
        if (progress && progress->cancel.load())
            return failed(LoadStop::Cancelled, "loading was cancelled");
        if (src.overLimit())
            budgetError =
                std::string(src.gzip() ? "the data expands past the memory budget of "
                                       : "the input is larger than the memory budget of ") +
                gib(budget) + (src.gzip() ? " (gzip bomb?)" : "") + "; raise it with --max-memory";
        return failed(budgetError.empty() ? LoadStop::Cancelled : LoadStop::OverBudget,
                      budgetError.empty() ? std::string("loading stopped") : budgetError);
    }
    // Small files end before the first projection: check what the model really needs.
    if (builder.estimatedPeakBytes() > budget)
        return failed(LoadStop::OverBudget,
                      overBudgetMessage(builder.estimatedPeakBytes(), builder.estimatedBytes(),
                                        budget, false));
    if (progress && r.ok)
        progress->done.store(src.fileSize()); // the parser may stop before trailing blanks
    result.status = LoadStatus::Complete;
    if (r.truncated) {
        builder.setTruncated(true);
        result.status = LoadStatus::Partial;
        result.stop = LoadStop::Truncated;
        result.message = "the file ends early (truncated at byte " + std::to_string(src.offset()) +
                         "): every complete event was loaded; " + r.error;
        builder.addWarning(result.message);
        if (!src.error().empty()) builder.addWarning(src.error());
    }
    if (!r.ok) {
        if (builder.eventCount() == 0) return failed(LoadStop::Malformed, r.error);
        result.status = LoadStatus::Partial;
        result.stop = LoadStop::Malformed;
        result.message = r.error;
        builder.addWarning("partial: the events before the error were loaded");
    }
    if (r.ok && builder.eventCount() == 0) builder.addWarning("the trace holds no events");
    result.trace = builder.finish();
    result.warnings = result.trace->warnings();
    return result;
}

} // namespace

std::uint64_t defaultMemoryBudget()
{
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long size = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || size <= 0) return 8ull << 30;
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size) / 4 * 3;
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
    if (!where.error.empty()) return failed(LoadStop::Unreadable, where.error);
    // Plain JSON goes through the parallel tokenizer; it hands back anything it does not
    // handle exactly like the SAX path (gzip, errors, truncation), which then runs.
    if (auto fast = loadTraceParallel(where.file, where.rank, options, progress))
        return std::move(*fast);
    std::string error;
    auto src = ByteSource::open(where.file, &error);
    if (!src) return failed(LoadStop::Unreadable, error);
    LoadResult r = run(*src, where.file, where.rank, options, progress);
    if (!r.message.empty() && !r.cancelled() && r.message.rfind(where.file, 0) != 0)
        r.message = where.file + ": " + r.message;
    return r;
}

LoadResult loadTraceFromMemory(const char* data, std::size_t size, const LoadOptions& options,
                               const std::string& name)
{
    if (auto fast = loadTraceParallelFromMemory(data, size, name, options)) return std::move(*fast);
    auto src = ByteSource::fromMemory(data, size);
    return run(*src, name, std::nullopt, options, nullptr);
}

} // namespace rs
