#include "ui/job/jobsession.h"

#include "core/analysis/analyzer.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <set>
#include <thread>

namespace rs {

std::optional<std::pair<std::size_t, std::uint32_t>> JobSession::localCollective(EventId e) const
{
    const int b = job.blockOfEvent(e);
    if (b < 0 || static_cast<std::size_t>(b) >= localReports.size()) return std::nullopt;
    const AnalysisReport& r = *localReports[static_cast<std::size_t>(b)];
    const Collective* c = r.collectiveOf(job.toLocal(static_cast<std::size_t>(b), e));
    if (!c) return std::nullopt;
    return std::make_pair(static_cast<std::size_t>(b),
                          static_cast<std::uint32_t>(c - r.collectives.data()));
}

std::optional<std::size_t> JobSession::instanceOf(EventId e) const
{
    const auto local = localCollective(e);
    if (!local || !jobReport) return std::nullopt;
    for (std::size_t i = 0; i < jobReport->collectives.size(); ++i)
        for (const RankOp& op : jobReport->collectives[i].ops)
            if (op.report == local->first && op.collective == local->second) return i;
    return std::nullopt;
}

namespace {

bool distinctRanks(const std::vector<int>& ids)
{
    return ids.size() >= 2 && std::set<int>(ids.begin(), ids.end()).size() == ids.size();
}

void finish(JobSession& s)
{
    if (distinctRanks(s.job.rankIds)) s.jobReport = analyzeJob(s.localReports, s.job.offsets);
    s.perRank.clear();
    s.combined =
        combineReports(s.job, s.localReports, s.jobReport ? &*s.jobReport : nullptr, &s.perRank);
}

} // namespace

JobSessionPtr buildJobSession(const std::vector<RankInput>& inputs, const std::string& path,
                              JobProgress* progress)
{
    auto s = std::make_shared<JobSession>();
    JobLoadResult loaded = loadJob(inputs, {}, progress);
    s->errors = loaded.errors;
    if (loaded.cancelled || (progress && progress->cancel.load())) {
        s->cancelled = true;
        return s;
    }

    // Analyse every rank in parallel; each report then keeps a shell instead of its rank's
    // model, so merging can free the rank traces one by one.
    const std::size_t n = loaded.traces.size();
    std::vector<ReportPtr> reports(n);
    std::vector<std::string> failures(n);
    std::atomic<std::size_t> next{0};
    auto worker = [&]() {
        for (std::size_t i; (i = next++) < n;) {
            if (progress && progress->cancel.load()) return;
            try {
                reports[i] = analyze(loaded.traces[i]);
            } catch (const std::exception& e) {
                failures[i] = e.what();
            }
        }
    };
    const std::size_t threads =
        std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), n);
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t)
        pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool)
        t.join();
    if (progress && progress->cancel.load()) {
        s->cancelled = true;
        return s;
    }

    std::vector<TracePtr> traces;
    for (std::size_t i = 0; i < n; ++i) {
        const TracePtr t = loaded.traces[i];
        if (!reports[i]) {
            s->errors.push_back(t->path() + ": analysis failed: " + failures[i]);
            auto empty = std::make_shared<AnalysisReport>();
            empty->trace = rankShell(*t);
            s->localReports.push_back(std::move(empty));
        } else {
            auto local = std::make_shared<AnalysisReport>(*reports[i]);
            local->trace = rankShell(*t);
            s->localReports.push_back(std::move(local));
        }
        reports[i].reset();
        traces.push_back(t);
    }
    loaded.traces.clear();
    // Ranks whose clocks differ by a base time (Kineto) are shifted onto one clock.
    const std::vector<TimeNs> offsets = sharedClockOffsets(s->localReports);
    s->job = mergeRanks(std::move(traces), offsets, path);
    finish(*s);
    return s;
}

JobSessionPtr reoffsetJobSession(const JobSession& session, const std::vector<TimeNs>& offsets)
{
    auto s = std::make_shared<JobSession>();
    s->job = reoffsetJob(session.job, offsets);
    s->localReports = session.localReports;
    s->errors = session.errors;
    finish(*s);
    return s;
}

} // namespace rs
