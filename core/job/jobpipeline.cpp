#include "core/job/jobpipeline.h"

#include "core/analysis/analyzer.h"
#include "core/analysis/reportjson.h"
#include "core/job/jobnotes.h"

#include <algorithm>
#include <exception>
#include <numeric>

namespace rs {

std::vector<ReportInput> PipelineResult::reportInputs() const
{
    std::vector<ReportInput> out;
    for (std::size_t i = 0; i < reports.size(); ++i)
        out.push_back({traces[i] ? traces[i]->path() : reports[i]->facts->path, reports[i]});
    return out;
}

std::optional<JobReport> matchJob(const std::vector<ReportPtr>& reports,
                                  std::vector<TimeNs> offsets, const JobOptions& options)
{
    std::vector<std::optional<int>> ranks;
    for (const ReportPtr& r : reports)
        ranks.push_back(r ? reportRank(*r) : std::nullopt); // a summary's report has no trace
    if (!formsOneJob(ranks)) return std::nullopt;
    return analyzeJob(reports, std::move(offsets), options);
}

std::optional<JobReport> matchJob(const std::vector<JobRank>& ranks, std::vector<TimeNs> offsets,
                                  const JobOptions& options)
{
    std::vector<std::optional<int>> declared;
    declared.reserve(ranks.size());
    for (const JobRank& r : ranks)
        declared.push_back(r.rank);
    if (!formsOneJob(declared)) return std::nullopt;
    return analyzeJob(ranks, std::move(offsets), options);
}

PipelineResult runPipeline(const std::vector<std::string>& paths, const PipelineOptions& options,
                           JobProgress* progress)
{
    std::string error;
    std::vector<RankInput> inputs = discoverJob(paths, &error);
    PipelineResult r = runPipeline(inputs, options, progress);
    if (!error.empty()) r.errors.insert(r.errors.begin(), error);
    return r;
}

PipelineResult runPipeline(const std::vector<RankInput>& inputs, const PipelineOptions& options,
                           JobProgress* progress)
{
    PipelineResult out;
    out.inputs = inputs;
    const std::size_t n = inputs.size();
    std::vector<ReportPtr> reports(n);
    std::vector<std::string> failures(n);
    std::vector<int> ids(n);
    const bool keep = options.keepTraces || !options.analyse;
    // Each rank is analysed right after it loads, inside its memory admission.
    const AfterRankLoad analyseRank = [&](std::size_t i, const LoadResult& loaded) {
        const TracePtr& trace = loaded.trace;
        if (options.onRankLoaded) options.onRankLoaded(i, loaded);
        if (!options.analyse) return std::uint64_t(0); // shown only (the viewer analyses later)
        std::shared_ptr<AnalysisReport> report;
        try {
            report = analyze(trace, options.analysis);
        } catch (const std::exception& e) {
            failures[i] = trace->path() + ": analysis failed: " + e.what();
        }
        // A rank whose analysis failed still shows: an empty report of its trace.
        if (!report) {
            report = std::make_shared<AnalysisReport>();
            report->trace = trace;
        }
        ids[i] = rankIdOf(*trace, i);
        if (!keep) {
            // The trace goes: what the reports print of it stays (as a rank summary has it).
            // Slimmed in place (a copy of a 1 GB trace's report was 5% of `analyze`).
            report->facts = std::make_shared<TraceFacts>(traceFacts(*report));
            report->trace.reset();
        }
        reports[i] = std::move(report);
        return std::uint64_t(0);
    };
    RankLoadStats stats;
    std::vector<LoadResult> loaded =
        loadRanks(inputs, options.load, progress, options.maxParallel,
                  options.analyse || options.onRankLoaded ? analyseRank : AfterRankLoad(),
                  &out.cancelled, &stats, keep);
    out.budget = stats.budget;
    out.peakHeld = stats.peakHeld;
    out.peakRunning = stats.peakRunning;
    if (out.cancelled) return out;

    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < n; ++i) {
        LoadResult& r = loaded[i];
        if (r.failed()) {
            if (!r.cancelled() && !r.message.empty()) out.errors.push_back(r.message);
            continue;
        }
        if (!r.complete()) out.warnings.push_back(r.message);
        if (!failures[i].empty()) out.errors.push_back(failures[i]);
        if (!reports[i]) {
            if (!r.trace) continue; // let go before it was analysed (cancelled)
            // Loaded, not analysed (info): an empty report of its trace.
            auto empty = std::make_shared<AnalysisReport>();
            empty->trace = r.trace;
            reports[i] = std::move(empty);
            ids[i] = rankIdOf(*r.trace, i);
        }
        order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return ids[a] < ids[b]; });
    for (std::size_t i : order) {
        out.traces.push_back(loaded[i].trace);
        out.paths.push_back(inputs[i].path);
        out.reports.push_back(reports[i]);
        out.rankIds.push_back(ids[i]);
    }
    if (options.crossRank) {
        out.job = matchJob(out.reports, {}, options.job);
        if (out.job) nameDelayingRanks(out.reports, *out.job);
    }
    return out;
}

} // namespace rs
