#include "core/job/jobnotes.h"

#include <map>
#include <string>

namespace rs {

std::string delayingRanksNote(const JobReport& job)
{
    std::map<int, int> delaying; // rank -> delayed collectives it was among the delaying ranks of
    int delayed = 0;
    for (const CrossRankCollective& c : job.collectives) {
        delayed += !c.delayingRanks.empty();
        for (int r : c.delayingRanks)
            ++delaying[r];
    }
    std::string who;
    for (const auto& [rank, n] : delaying)
        who += (who.empty() ? "" : ", ") + ("rank " + std::to_string(rank)) + " (" +
               std::to_string(n) + " of " + std::to_string(delayed) + " delayed collective" +
               (delayed == 1 ? "" : "s") + ")";
    const std::string text =
        "Not a bandwidth problem: the other ranks reached the collective later (skew) or one "
        "rank is a straggler. " +
        (who.empty() ? std::string("In this job no single rank delays the collectives (skew "
                                   "across ranks): compare the ranks' compute and launch times "
                                   "before the collectives.")
                     : "In this job the collectives wait for " + who +
                           " (cross_rank[].delaying_ranks, the Ranks heatmap): look there for "
                           "extra compute, an internal memcpy or a late launch.");
    return text;
}

bool needsDelayingRanksNote(const AnalysisReport& report, const std::string& text)
{
    for (const Finding& f : report.findings)
        if (f.rule == "sync-dominated" && f.recommendation != text) return true;
    return false;
}

void applyDelayingRanksNote(AnalysisReport& report, const std::string& text)
{
    for (Finding& f : report.findings)
        if (f.rule == "sync-dominated") f.recommendation = text;
}

void nameDelayingRanks(std::vector<ReportPtr>& reports, JobReport& job)
{
    const std::string text = delayingRanksNote(job);
    for (std::size_t i = 0; i < reports.size(); ++i) {
        const ReportPtr& r = reports[i];
        if (!r) continue;
        if (!needsDelayingRanksNote(*r, text)) continue;
        auto copy = std::make_shared<AnalysisReport>(*r);
        applyDelayingRanksNote(*copy, text);
        for (ReportPtr& j : job.ranks)
            if (j == r) j = copy;
        reports[i] = std::move(copy);
    }
}

} // namespace rs
