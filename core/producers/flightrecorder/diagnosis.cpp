#include "core/producers/flightrecorder/diagnosis.h"

#include <algorithm>
#include <set>

namespace rs::flightrecorder {

RankCalls rankCalls(const Dump& d)
{
    RankCalls r;
    r.rank = d.rank.value_or(-1);
    r.name = d.path;
    r.dumpNs = dumpTime(d);
    // pg_status is keyed by the group's pg_id on this rank; only the entries say which group a
    // pg_id is.
    std::map<std::string, std::int64_t> pgIdOf;
    for (const Entry& e : d.entries)
        if (e.pgId >= 0) pgIdOf[e.groupName] = e.pgId;
    for (const auto& [name, g] : d.groups) {
        CommGroup c;
        c.name = g.name;
        c.desc = g.desc;
        c.ranks = g.ranks;
        std::sort(c.ranks.begin(), c.ranks.end());
        c.ranks.erase(std::unique(c.ranks.begin(), c.ranks.end()), c.ranks.end());
        if (const auto id = pgIdOf.find(name); id != pgIdOf.end())
            if (const auto st = d.status.find(id->second); st != d.status.end()) {
                auto known = [](std::int64_t v) {
                    return v >= 0 ? std::optional<std::int64_t>(v) : std::nullopt;
                };
                c.lastEnqueued = known(st->second.lastEnqueued);
                c.lastStarted = known(st->second.lastStarted);
                c.lastCompleted = known(st->second.lastCompleted);
            }
        r.groups.push_back(std::move(c));
    }
    const bool allToAllSizes = recordsAllToAllSizes(d.version);
    for (const Entry& e : d.entries) {
        RankCall c;
        c.group = e.groupName;
        c.groupDesc = e.groupDesc;
        c.p2p = e.p2p();
        c.seq = c.p2p ? e.p2pSeqId : e.collectiveSeqId;
        c.op = e.profilingName;
        c.state = e.completed() ? EntryState::Completed : e.state;
        c.completed = e.completed();
        c.createdNs = e.timeCreatedNs;
        c.lastNs = e.lastRecord();
        if (allToAllSizes || e.op() != "all_to_all") {
            c.inputSizes = e.inputSizes;
            c.outputSizes = e.outputSizes;
        }
        c.inputDtypes = e.inputDtypes;
        c.outputDtypes = e.outputDtypes;
        c.timeoutMs = e.timeoutMs;
        r.calls.push_back(std::move(c));
    }
    return r;
}

namespace {

// What `info` shows of the job: every rank (with a dump or a member of a group without one),
// the groups, the entries and their states.
JobInfo jobInfo(const std::vector<const Dump*>& dumps, const std::vector<GroupInfo>& groups)
{
    JobInfo info;
    std::map<int, const Dump*> byRank;
    for (const Dump* d : dumps)
        byRank.emplace(*d->rank, d);
    std::set<int> world;
    for (const GroupInfo& g : groups)
        world.insert(g.ranks.begin(), g.ranks.end());
    for (const auto& [rank, d] : byRank)
        world.insert(rank);
    std::set<std::string> versions;
    for (int rank : world) {
        RankInfo r;
        r.rank = rank;
        const auto it = byRank.find(rank);
        if (it == byRank.end()) {
            r.absent = true;
            info.absentRanks.push_back(rank);
            info.ranks.push_back(std::move(r));
            continue;
        }
        const Dump& d = *it->second;
        r.path = d.path;
        r.rankSource = d.rankSource;
        r.version = d.version;
        r.entries = d.entries.size();
        r.empty = d.empty();
        r.warnings = d.warnings;
        if (r.empty) info.emptyRanks.push_back(rank);
        versions.insert(d.version);
        for (const Entry& e : d.entries) {
            ++r.states[entryStateName(e.state)];
            ++info.states[entryStateName(e.state)];
            r.firstCreatedNs =
                std::min(r.firstCreatedNs.value_or(e.timeCreatedNs), TimeNs(e.timeCreatedNs));
            r.lastCreatedNs =
                std::max(r.lastCreatedNs.value_or(e.timeCreatedNs), TimeNs(e.timeCreatedNs));
        }
        info.entries += d.entries.size();
        info.ranks.push_back(std::move(r));
    }
    info.versions.assign(versions.begin(), versions.end());
    info.groups = groups;
    // By description, then by name as a number where it is one ("9" before "10").
    std::stable_sort(info.groups.begin(), info.groups.end(),
                     [](const GroupInfo& a, const GroupInfo& b) {
                         if (a.desc != b.desc) return a.desc < b.desc;
                         if (a.name.size() != b.name.size()) return a.name.size() < b.name.size();
                         if (a.name != b.name) return a.name < b.name;
                         return a.ranks < b.ranks;
                     });
    return info;
}

} // namespace

Diagnosis diagnose(const std::vector<Dump>& dumps, const DiagnosisOptions& options)
{
    Diagnosis out;
    // Dumps without a rank are left out; a rank twice: the second (checkCalls says so).
    std::vector<RankCalls> ranks;
    std::vector<const Dump*> kept;
    std::set<int> seen;
    for (const Dump& d : dumps) {
        if (!d.rank) {
            out.warnings.push_back(d.path +
                                   ": left out: neither its file name nor its process groups "
                                   "say which rank it is");
            continue;
        }
        ranks.push_back(rankCalls(d));
        if (seen.insert(*d.rank).second) kept.push_back(&d);
    }
    CallCheck check = checkCalls(ranks, options);
    out.info = jobInfo(kept, check.groups);
    out.missing = std::move(check.missing);
    out.mismatches = std::move(check.mismatches);
    out.warnings.insert(out.warnings.end(), check.warnings.begin(), check.warnings.end());
    return out;
}

} // namespace rs::flightrecorder
