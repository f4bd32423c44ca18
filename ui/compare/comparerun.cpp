#include "ui/compare/comparerun.h"

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
    side.worldSize = worldSizeOf(session->job.shells);
    side.errors = session->errors;
    run->digest = digestRun(side);
    run->anchors = stepAnchors(session->perRank);
    return run;
}

CompareRunPtr loadCompareRun(const QString& path, JobProgress* progress)
{
    std::string error;
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
