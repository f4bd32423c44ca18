#include "core/job/ranksummary.h"

#include "core/job/jobnotes.h"
#include "core/job/jobpipeline.h"
#include "core/job/ranksummaryschema.h"
#include "core/workpool.h"

// Rank summaries merged into the job report: mergeSummaries, the one merge (sort, one-job rule
// and match through matchJob, warnings, the note on delaying ranks), in its two modes, and its
// two users: mergeRankSummaries (Full, every report held) and writeMergedReport* (Slim, then
// each summary read again as the report writer reaches it).

namespace rs {

ReportPtr SummaryMerge::withJobNote(ReportPtr report) const
{
    if (!job || !needsDelayingRanksNote(*report, jobNote)) return report;
    auto copy = std::make_shared<AnalysisReport>(*report);
    applyDelayingRanksNote(*copy, jobNote);
    return copy;
}

SummaryMerge mergeSummaries(const std::vector<std::string>& paths, MergeMode mode)
{
    const bool full = mode == MergeMode::Full;
    SummaryMerge out;
    std::string findError;
    const std::vector<std::string> files = findRankSummaries(paths, &findError);
    if (!findError.empty()) out.errors.push_back(findError);

    // Each summary read in parallel, whole or slim.
    std::vector<RankSummaryRead> whole(full ? files.size() : 0);
    std::vector<RankSummarySlim> slim(full ? 0 : files.size());
    parallelFor(files.size(), [&](std::size_t i) {
        if (full)
            whole[i] = readRankSummary(files[i]);
        else
            slim[i] = readRankSummarySlim(files[i]);
    });
    std::vector<std::size_t> accepted;
    std::vector<std::optional<int>> declared;
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (full) {
            for (const std::string& w : whole[i].warnings)
                out.warnings.push_back(files[i] + ": " + w);
        }
        const std::string& error = full ? whole[i].error : slim[i].error;
        if (!error.empty()) {
            out.errors.push_back(error);
            continue;
        }
        accepted.push_back(i);
        declared.push_back(full ? reportRank(*whole[i].report) : slim[i].rank.rank);
    }

    // Rank order; every rank's options against the first's.
    std::vector<JobRank> ranks;
    const std::vector<std::size_t> order = summaryschema::rankOrder(declared);
    if (!order.empty()) {
        const std::size_t head = accepted[order.front()];
        const AnalysisOptions first = full ? whole[head].report->options : slim[head].options;
        for (std::size_t k : order) {
            const std::size_t i = accepted[k];
            const AnalysisOptions& a = full ? whole[i].report->options : slim[i].options;
            if (a.sizeAlign != first.sizeAlign || a.addrAlign != first.addrAlign ||
                a.linkPeaks != first.linkPeaks)
                out.warnings.push_back(files[i] + " was analysed with other options than " +
                                       files[head] + " (--size-align, --addr-align, --link-peak)");
        }
    }
    for (std::size_t k : order) {
        const std::size_t i = accepted[k];
        out.files.push_back(files[i]);
        if (full) {
            out.reports.push_back(whole[i].report);
            out.ranks.push_back(std::move(whole[i]));
        } else {
            ranks.push_back(std::move(slim[i].rank));
        }
    }
    // The options compared, the slim reads are let go: only the ranks are kept.
    slim.clear();
    slim.shrink_to_fit();

    // The pipeline's "one job" rule and cross-rank match, on the reports or the slim ranks.
    if (full) {
        out.job = matchJob(out.reports);
    } else {
        out.job = matchJob(ranks);
        ranks.clear();
        ranks.shrink_to_fit();
    }
    if (out.job) {
        out.jobNote = delayingRanksNote(*out.job);
        // As the pipeline does: the ranks' sync-dominated findings name the delaying ranks.
        if (full) nameDelayingRanks(out.reports, *out.job);
    }
    if (!out.job && out.files.size() > 1)
        out.warnings.push_back("the summaries do not have distinct ranks: reported one by one, "
                               "not matched as one job");
    return out;
}

MergedJob mergeRankSummaries(const std::vector<std::string>& paths)
{
    SummaryMerge merge = mergeSummaries(paths, MergeMode::Full);
    MergedJob out;
    for (std::size_t i = 0; i < merge.ranks.size(); ++i)
        out.inputs.push_back({merge.ranks[i].report->facts->path, merge.reports[i]});
    out.ranks = std::move(merge.ranks);
    out.job = std::move(merge.job);
    out.errors = std::move(merge.errors);
    out.warnings = std::move(merge.warnings);
    return out;
}

namespace {

// `merge`: the summaries merged slim, then each read in full as the writer (JSON or text)
// reaches it.
MergeOutcome writeMergedReport(std::ostream& out, const std::vector<std::string>& paths,
                               bool asJson)
{
    const SummaryMerge merge = mergeSummaries(paths, MergeMode::Slim);
    const JobReport* job = merge.job ? &*merge.job : nullptr;
    const std::size_t n = merge.files.size();
    std::vector<std::vector<std::string>> readWarnings(n);
    std::vector<std::string> readErrors(n);
    std::vector<std::optional<Severity>> worst(n);
    const ReportInputSource source = [&](std::size_t i) -> ReportInput {
        const std::string& file = merge.files[i];
        RankSummaryRead r = readRankSummary(file);
        for (const std::string& w : r.warnings)
            readWarnings[i].push_back(r.file + ": " + w);
        if (!r.ok()) {
            // Read a moment ago, refused now: it changed under the merge.
            readErrors[i] = r.error + " (it changed during the merge)";
            auto empty = std::make_shared<AnalysisReport>();
            auto facts = std::make_shared<TraceFacts>();
            facts->path = file;
            empty->facts = facts;
            return {file, empty};
        }
        r.report = merge.withJobNote(std::move(r.report));
        for (const Finding& f : r.report->findings)
            if (!worst[i] || f.severity > *worst[i]) worst[i] = f.severity;
        return {r.report->facts->path, r.report};
    };
    if (asJson)
        writeReportJson(out, n, source, job);
    else
        writeReportText(out, n, source, job);

    // The warnings of the full reads first (as mergeRankSummaries has them), then the merge's.
    MergeOutcome result;
    result.ranks = n;
    result.job = job != nullptr;
    result.errors = merge.errors;
    for (std::size_t i = 0; i < n; ++i) {
        result.warnings.insert(result.warnings.end(), readWarnings[i].begin(),
                               readWarnings[i].end());
        if (!readErrors[i].empty()) result.errors.push_back(readErrors[i]);
        if (worst[i] && (!result.worst || *worst[i] > *result.worst)) result.worst = worst[i];
    }
    result.warnings.insert(result.warnings.end(), merge.warnings.begin(), merge.warnings.end());
    if (job) {
        for (const Finding& f : job->findings)
            if (!result.worst || f.severity > *result.worst) result.worst = f.severity;
    }
    return result;
}

} // namespace

MergeOutcome writeMergedReportJson(std::ostream& out, const std::vector<std::string>& paths)
{
    return writeMergedReport(out, paths, true);
}

MergeOutcome writeMergedReportText(std::ostream& out, const std::vector<std::string>& paths)
{
    return writeMergedReport(out, paths, false);
}

} // namespace rs
