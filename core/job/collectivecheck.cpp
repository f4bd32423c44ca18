#include "core/job/collectivecheck.h"

#include "core/job/crossrank.h"
#include "core/timeconv.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>

namespace rs {

namespace {

bool compared(CollectiveKind k)
{
    return k != CollectiveKind::Send && k != CollectiveKind::Recv;
}

// Every member needs every other member's data before it can finish: the members end
// together. A rooted op's root, an all-to-all's ranks (pairs of sends and receives) finish
// when their own part is done (on two GPUs of one host, NCCL's all-to-all ends 20-25 us
// apart, every call).
bool endsTogether(CollectiveKind k)
{
    return k == CollectiveKind::AllReduce || k == CollectiveKind::AllGather ||
           k == CollectiveKind::ReduceScatter || k == CollectiveKind::Barrier;
}

// Values voted on: most ranks first; a tie goes to the value of the lowest rank.
std::vector<SeenValue> vote(std::vector<std::pair<std::string, int>> values)
{
    std::map<std::string, std::vector<int>> by;
    for (auto& [v, rank] : values)
        by[std::move(v)].push_back(rank);
    std::vector<SeenValue> out;
    for (auto& [v, r] : by) {
        std::sort(r.begin(), r.end());
        out.push_back({v, std::move(r)});
    }
    std::sort(out.begin(), out.end(), [](const SeenValue& a, const SeenValue& b) {
        if (a.ranks.size() != b.ranks.size()) return a.ranks.size() > b.ranks.size();
        return a.ranks.front() < b.ranks.front();
    });
    return out;
}

std::string plural(std::size_t n, const char* one, const char* many)
{
    return n == 1 ? one : many;
}

// "Rank 3" / "Ranks 3-5"
std::string ranksWord(const std::vector<int>& ranks)
{
    return plural(ranks.size(), "Rank ", "Ranks ") + rankList(ranks);
}

// One rank's collectives of one group (of one step): indices into its JobRank::collectives.
struct Member {
    std::size_t report = 0;
    int rank = 0;
    std::vector<std::uint32_t> calls;
};

class Checker {
public:
    Checker(const std::vector<JobRank>& ranks, const JobReport& job,
            const SequenceCheckOptions& options)
        : m_ranks(ranks), m_job(job), m_options(options)
    {}

    std::vector<Finding> run()
    {
        // Group name -> each rank's compared collectives, in the rank's order of start.
        std::map<std::string, std::vector<Member>> groups;
        for (std::size_t r = 0; r < m_ranks.size(); ++r) {
            const JobRank& jr = m_ranks[r];
            std::vector<std::vector<std::uint32_t>> byGroup(jr.groups.size());
            for (std::uint32_t ci = 0; ci < jr.collectives.size(); ++ci) {
                const JobCollective& c = jr.collectives[ci];
                if (c.hasSeq || c.recorded || !compared(c.kind)) continue;
                byGroup[c.group].push_back(ci);
            }
            for (std::size_t g = 0; g < byGroup.size(); ++g) {
                if (byGroup[g].empty()) continue;
                std::stable_sort(byGroup[g].begin(), byGroup[g].end(),
                                 [&](std::uint32_t a, std::uint32_t b) {
                                     return jr.collectives[a].start < jr.collectives[b].start;
                                 });
                groups[jr.groups[g]].push_back({r, m_job.rankIds[r], std::move(byGroup[g])});
            }
        }
        for (auto& [group, members] : groups)
            if (members.size() >= 2) checkGroup(group, members);
        endSpread();
        std::vector<Finding> out = std::move(m_mismatch);
        for (auto* v : {&m_count, &m_spread})
            out.insert(out.end(), std::make_move_iterator(v->begin()),
                       std::make_move_iterator(v->end()));
        return out;
    }

private:
    const JobCollective& at(const Member& m, std::size_t k) const
    {
        return m_ranks[m.report].collectives[m.calls[k]];
    }

    void checkGroup(const std::string& group, const std::vector<Member>& members)
    {
        bool stepped = true;
        for (const Member& m : members)
            for (std::size_t k = 0; k < m.calls.size() && stepped; ++k)
                stepped = at(m, k).hasStep;
        CountIssue counts;
        if (!stepped) {
            compare(group, std::nullopt, members, counts);
        } else {
            // The steps every member profiled: a step outside one rank's window is not compared.
            std::map<int, std::vector<Member>> bySteps;
            for (const Member& m : members) {
                std::map<int, Member> mine;
                for (std::uint32_t ci : m.calls) {
                    const int step = m_ranks[m.report].collectives[ci].step;
                    auto [it, added] = mine.try_emplace(step, Member{m.report, m.rank, {}});
                    it->second.calls.push_back(ci);
                }
                for (auto& [step, sm] : mine)
                    bySteps[step].push_back(std::move(sm));
            }
            for (auto& [step, sms] : bySteps)
                if (sms.size() == members.size()) compare(group, step, sms, counts);
        }
        if (!counts.ranks.empty()) countFinding(group, counts);
    }

    // The ranks whose number of collectives differed, the steps where, and one example.
    struct CountIssue {
        std::vector<int> ranks, steps;
        std::vector<SeenValue> example; // of the first such step
        std::optional<int> exampleStep;
        const JobCollective* evidence = nullptr;
        int evidenceRank = 0;
    };

    void compare(const std::string& group, std::optional<int> step,
                 const std::vector<Member>& members, CountIssue& counts)
    {
        std::vector<std::pair<std::string, int>> sizes;
        for (const Member& m : members)
            sizes.emplace_back(std::to_string(m.calls.size()), m.rank);
        const std::vector<SeenValue> sizeVote = vote(sizes);
        if (sizeVote.size() > 1) {
            for (std::size_t v = 1; v < sizeVote.size(); ++v)
                counts.ranks.insert(counts.ranks.end(), sizeVote[v].ranks.begin(),
                                    sizeVote[v].ranks.end());
            if (step) counts.steps.push_back(*step);
            if (counts.example.empty()) {
                counts.example = sizeVote;
                counts.exampleStep = step;
                for (const Member& m : members)
                    if (m.rank == sizeVote[1].ranks.front() && !m.calls.empty()) {
                        counts.evidence = &at(m, 0);
                        counts.evidenceRank = m.rank;
                    }
            }
        }
        std::size_t n = members.front().calls.size();
        for (const Member& m : members)
            n = std::min(n, m.calls.size());
        for (std::size_t k = 0; k < n; ++k) {
            std::vector<std::pair<std::string, int>> kinds, elements, dtypes;
            bool allToAll = false;
            for (const Member& m : members) {
                const JobCollective& c = at(m, k);
                kinds.emplace_back(collectiveKindName(c.kind), m.rank);
                allToAll = allToAll || c.kind == CollectiveKind::AllToAll;
                if (c.count) elements.emplace_back(std::to_string(c.count), m.rank);
                const std::string_view dt = m_ranks[m.report].dtype(c);
                if (!dt.empty()) dtypes.emplace_back(std::string(dt), m.rank);
            }
            if (mismatch("op", group, step, k, members, vote(std::move(kinds))))
                break; // the rest of the sequence is shifted
            // An all-to-all's elements are each rank's own by design.
            if (!allToAll && elements.size() >= 2)
                mismatch("count", group, step, k, members, vote(std::move(elements)));
            if (dtypes.size() >= 2)
                mismatch("dtype", group, step, k, members, vote(std::move(dtypes)));
        }
    }

    bool mismatch(const char* what, const std::string& group, std::optional<int> step,
                  std::size_t k, const std::vector<Member>& members, std::vector<SeenValue> seen)
    {
        if (seen.size() < 2) return false;
        if (m_mismatch.size() >= m_options.maxFindings) {
            ++m_droppedMismatch;
            return true;
        }
        std::vector<int> differ;
        for (std::size_t v = 1; v < seen.size(); ++v)
            differ.insert(differ.end(), seen[v].ranks.begin(), seen[v].ranks.end());
        std::sort(differ.begin(), differ.end());
        // Evidence: the first differing rank's collective.
        const Member* main = nullptr;
        for (const Member& m : members)
            if (m.rank == differ.front()) main = &m;
        const JobCollective& c = at(*main, k);
        const std::string kindName = collectiveKindName(at(members.front(), k).kind);
        const std::string where = "collective #" + std::to_string(k) + " of group " +
                                  (group.empty() ? "(unnamed)" : group) +
                                  (step ? " in step " + std::to_string(*step) : "");
        const std::string w = what;
        const auto show = [&](const SeenValue& v) {
            if (w == "count")
                return kindName + " of " + formatCount(std::stoull(v.value)) + " elements";
            if (w == "dtype") return kindName + " in " + v.value;
            return v.value;
        };
        Finding f;
        f.rule = "collective-mismatch";
        f.severity = Severity::Error;
        f.title = ranksWord(differ) + " called " + show(seen[1]) + " where " +
                  plural(seen[0].ranks.size(), "rank ", "ranks ") + rankList(seen[0].ranks) +
                  " called " + show(seen[0]) + " (" + where + ")";
        f.recommendation =
            "The members of a group must make the same collective call, n-th for n-th: the same "
            "op, element count and data type, or NCCL and HCCL hang or compute garbage. Look at "
            "what makes " +
            plural(differ.size(), "rank ", "ranks ") + rankList(differ) +
            " take another path here (a data-dependent branch, a shape that differs per rank).";
        f.ranks = differ;
        f.matchingRanks = seen[0].ranks;
        f.step = step;
        f.group = group;
        f.index = static_cast<int>(k);
        f.mismatch = what;
        f.op = kindName;
        f.seen = std::move(seen);
        f.events.push_back(c.event);
        f.eventsRank = main->rank;
        f.start = c.start;
        f.end = c.start + c.dur;
        m_mismatch.push_back(std::move(f));
        return true;
    }

    void countFinding(const std::string& group, CountIssue& counts)
    {
        if (m_count.size() >= m_options.maxFindings) return;
        std::sort(counts.ranks.begin(), counts.ranks.end());
        counts.ranks.erase(std::unique(counts.ranks.begin(), counts.ranks.end()),
                           counts.ranks.end());
        const std::vector<SeenValue>& ex = counts.example;
        Finding f;
        f.rule = "collective-count-mismatch";
        f.severity = Severity::Warning;
        const std::string g = group.empty() ? "(unnamed)" : group;
        const std::string where =
            counts.exampleStep ? " in step " + std::to_string(*counts.exampleStep) : "";
        f.title = ranksWord(ex[1].ranks) + " issued " + ex[1].value + " collectives of group " + g +
                  where + " where " + plural(ex[0].ranks.size(), "rank ", "ranks ") +
                  rankList(ex[0].ranks) + " issued " + ex[0].value;
        if (counts.steps.size() > 1)
            f.title += " (" + std::to_string(counts.steps.size()) + " steps differ, ranks " +
                       rankList(counts.ranks) + ")";
        f.recommendation =
            counts.exampleStep
                ? "Every member profiled this step, yet they issued different numbers of the "
                  "group's collectives: a rank that skips or adds a collective hangs the group "
                  "or pairs the wrong calls. Compare the ranks' code paths in that step."
                : "The ranks issued different numbers of the group's collectives. Profiler "
                  "windows can differ (a rank that started or stopped profiling at another "
                  "point); if they were the same, a rank skipped or added a collective.";
        f.ranks = counts.ranks;
        f.matchingRanks = ex[0].ranks;
        f.step = counts.exampleStep;
        f.group = group;
        f.seen = ex;
        if (counts.evidence) {
            f.events.push_back(counts.evidence->event);
            f.eventsRank = counts.evidenceRank;
            f.start = counts.evidence->start;
            f.end = counts.evidence->start + counts.evidence->dur;
        }
        m_count.push_back(std::move(f));
    }

    void endSpread()
    {
        std::size_t dropped = 0;
        for (const CrossRankCollective& x : m_job.collectives) {
            if (x.seq || x.ops.size() < 2 || !endsTogether(x.kind)) continue;
            TimeNs minEnd = x.ops[0].end, maxEnd = x.ops[0].end;
            TimeNs minDur = x.ops[0].end - x.ops[0].start;
            const RankOp* last = &x.ops[0];
            bool recorded = false;
            for (const RankOp& op : x.ops) {
                recorded = recorded || m_ranks[op.report].collectives[op.collective].recorded;
                minEnd = std::min(minEnd, op.end);
                maxEnd = std::max(maxEnd, op.end);
                minDur = std::min(minDur, op.end - op.start);
                if (op.end > last->end) last = &op;
            }
            const TimeNs spread = maxEnd - minEnd;
            const auto threshold =
                std::max<TimeNs>(m_options.minEndSpreadNs,
                                 static_cast<TimeNs>(m_options.endSpreadShare * double(minDur)));
            if (recorded || spread <= threshold) continue;
            if (m_spread.size() >= m_options.maxFindings) {
                ++dropped;
                continue;
            }
            std::vector<int> lateRanks, onTime;
            for (const RankOp& op : x.ops)
                (op.end - minEnd > threshold ? lateRanks : onTime).push_back(op.rank);
            std::sort(lateRanks.begin(), lateRanks.end());
            std::sort(onTime.begin(), onTime.end());
            const JobCollective& c = m_ranks[last->report].collectives[last->collective];
            Finding f;
            f.rule = "collective-end-spread";
            f.severity = Severity::Warning;
            f.title = std::string(collectiveKindName(x.kind)) + " #" + std::to_string(x.index) +
                      " of group " + (x.group.empty() ? "(unnamed)" : x.group) +
                      (x.step ? " in step " + std::to_string(*x.step) : "") + " ends " +
                      formatDuration(spread) + " apart across ranks (" +
                      plural(lateRanks.size(), "rank ", "ranks ") + rankList(lateRanks) +
                      " last), over " +
                      std::to_string(static_cast<int>(m_options.endSpreadShare * 100 + 0.5)) +
                      "% of its " + formatDuration(minDur);
            f.recommendation =
                "The members of a collective finish it together. Ends this far apart mean the "
                "ranks' clocks disagree (align the ranks on a collective, or give the traces "
                "one clock) or the collective did not synchronise them (a broken group, a "
                "profiler that cut the op).";
            f.ranks = lateRanks;
            f.matchingRanks = onTime;
            f.step = x.step;
            f.group = x.group;
            f.index = x.index;
            f.op = collectiveKindName(x.kind);
            f.events.push_back(c.event);
            f.eventsRank = last->rank;
            f.start = c.start;
            f.end = c.start + c.dur;
            m_spread.push_back(std::move(f));
        }
        if (dropped) m_spread.push_back(leftOut("collective-end-spread", dropped));
        if (m_droppedMismatch)
            m_mismatch.push_back(leftOut("collective-mismatch", m_droppedMismatch));
    }

    Finding leftOut(const char* rule, std::size_t n) const
    {
        Finding f;
        f.rule = rule;
        f.severity = Severity::Info;
        f.title = std::to_string(n) + " more " + rule + " findings left out (" +
                  std::to_string(m_options.maxFindings) + " kept)";
        return f;
    }

    const std::vector<JobRank>& m_ranks;
    const JobReport& m_job;
    const SequenceCheckOptions& m_options;
    std::vector<Finding> m_mismatch, m_count, m_spread;
    std::size_t m_droppedMismatch = 0;
};

} // namespace

std::vector<Finding> checkCollectiveSequences(const std::vector<JobRank>& ranks,
                                              const JobReport& job,
                                              const SequenceCheckOptions& options)
{
    if (ranks.size() < 2 || job.rankIds.size() != ranks.size()) return {};
    return Checker(ranks, job, options).run();
}

} // namespace rs
