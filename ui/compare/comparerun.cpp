#include "ui/compare/comparerun.h"

#include "core/job/ranksummary.h"

namespace rs {

CompareRunPtr compareRunFromSession(const QString& path, JobSessionPtr session)
{
    auto run = std::make_shared<CompareRun>();
    run->path = path;
    if (!session) return run;
    run->errors = session->errors;
    run->cancelled = session->cancelled;
    run->session = session;
    if (!run->ok()) return run;
    RunSide side;
    side.path = path.toStdString();
    side.ranks = session->perRank; // merged ids: their shared trace is walked once for ops
    side.job = session->jobReport ? &*session->jobReport : nullptr;
    side.errors = session->errors;
    // A job of rank summaries: its shells are the small traces of the summaries' events, and
    // the digest takes rank, producer and world size from the summaries (and has no ops).
    side.fromSummaries = session->fromSummaries();
    if (!side.fromSummaries) side.worldSize = worldSizeOf(session->job.shells);
    run->digest = digestRun(side);
    run->anchors = stepAnchors(session->perRank);
    return run;
}

CompareRunPtr loadCompareRun(const QString& path, JobProgress* progress)
{
    std::string error;
    if (isRankSummaryPath(path.toStdString())) {
        // Opened as File > Open opens summaries: a job without traces.
        const std::vector<std::string> files = findRankSummaries({path.toStdString()}, &error);
        auto run = compareRunFromSession(path, buildSummaryJobSession(files, path.toStdString()));
        if (error.empty()) return run;
        auto copy = std::make_shared<CompareRun>(*run);
        copy->errors.insert(copy->errors.begin(), error);
        return copy;
    }
    const std::vector<RankInput> inputs = discoverJob({path.toStdString()}, &error);
    if (inputs.empty()) {
        auto run = std::make_shared<CompareRun>();
        run->path = path;
        run->errors.push_back(error.empty() ? path.toStdString() + ": no trace found" : error);
        return run;
    }
    JobSessionPtr session = buildJobSession(inputs, path.toStdString(), progress);
    auto run = compareRunFromSession(path, session);
    if (!error.empty()) {
        auto copy = std::make_shared<CompareRun>(*run);
        copy->errors.insert(copy->errors.begin(), error);
        return copy;
    }
    return run;
}

} // namespace rs
