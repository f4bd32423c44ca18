#include "core/job/crossrank.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace rs {

namespace {

std::string rankList(const std::vector<int>& ranks)
{
    // "1-3, 5": ranges keep long lists short.
    std::ostringstream o;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        if (i)
            o << ", ";
        o << ranks[i];
        if (j > i)
            o << (j == i + 1 ? ", " : "-") << ranks[j];
        i = j + 1;
    }
    return o.str();
}

} // namespace

std::vector<TimeNs> sharedClockOffsets(const std::vector<ReportPtr>& reports)
{
    std::vector<TimeNs> offsets(reports.size(), 0);
    for (std::size_t i = 0; i < reports.size(); ++i) {
        const auto& md = reports[i]->trace->metadata();
        auto it = md.find("baseTimeNanoseconds");
        if (it != md.end() && it->is_number_integer())
            offsets[i] = it->get<TimeNs>();
    }
    // Keep the job clock near the first rank's own numbers.
    const TimeNs base = offsets.empty() ? 0 : *std::min_element(offsets.begin(), offsets.end());
    for (TimeNs& o : offsets)
        o -= base;
    return offsets;
}

std::vector<TimeNs> alignOnCollective(const JobReport& job, std::size_t instance)
{
    std::vector<TimeNs> offsets = job.offsets;
    if (instance >= job.collectives.size() || job.collectives[instance].ops.empty())
        return offsets;
    const CrossRankCollective& c = job.collectives[instance];
    const TimeNs reference = c.ops.front().end;
    for (const RankOp& op : c.ops)
        offsets[op.report] += reference - op.end;
    return offsets;
}

JobReport analyzeJob(const std::vector<ReportPtr>& reports, std::vector<TimeNs> offsets,
                     const JobOptions& options)
{
    JobReport job;
    job.ranks = reports;
    if (offsets.size() != reports.size())
        offsets = sharedClockOffsets(reports);
    job.offsets = offsets;
    for (std::size_t r = 0; r < reports.size(); ++r) {
        const auto& rank = reports[r]->trace->rank();
        job.rankIds.push_back(rank ? *rank : static_cast<int>(r));
    }

    // Instance k of (kind, group) on every rank is one collective: ranks issue collectives of
    // a group in the same order (NCCL and HCCL require it).
    std::map<std::pair<int, std::string>, std::vector<std::size_t>> instanceOf;
    for (std::size_t r = 0; r < reports.size(); ++r) {
        std::map<std::pair<int, std::string>, int> counter;
        const auto& colls = reports[r]->collectives;
        for (std::uint32_t ci = 0; ci < colls.size(); ++ci) {
            const Collective& c = colls[ci];
            const auto key = std::make_pair(static_cast<int>(c.kind), c.group);
            const int k = counter[key]++;
            auto& list = instanceOf[key];
            if (static_cast<int>(list.size()) <= k) {
                CrossRankCollective x;
                x.kind = c.kind;
                x.group = c.group;
                x.index = k;
                x.name = c.name;
                x.step = c.step;
                list.push_back(job.collectives.size());
                job.collectives.push_back(std::move(x));
            }
            CrossRankCollective& x = job.collectives[list[k]];
            RankOp op;
            op.rank = job.rankIds[r];
            op.report = r;
            op.collective = ci;
            op.start = c.start + offsets[r];
            op.end = c.start + c.dur + offsets[r];
            op.extraMemcpyNs = c.extraMemcpyNs;
            op.ready = op.start + c.extraMemcpyNs;
            op.waitNs = c.waitNs;
            if (!x.step)
                x.step = c.step;
            x.ops.push_back(op);
        }
    }

    for (CrossRankCollective& x : job.collectives) {
        if (x.ops.empty())
            continue;
        TimeNs minStart = x.ops[0].start, maxStart = x.ops[0].start;
        TimeNs minDur = x.ops[0].end - x.ops[0].start;
        const RankOp* slow = &x.ops[0];
        const RankOp* fast = &x.ops[0];
        for (const RankOp& op : x.ops) {
            minStart = std::min(minStart, op.start);
            maxStart = std::max(maxStart, op.start);
            minDur = std::min(minDur, op.end - op.start);
            if (op.end - op.start > slow->end - slow->start)
                slow = &op;
            if (op.end - op.start < fast->end - fast->start)
                fast = &op;
        }
        x.startSkew = maxStart - minStart;
        x.slowestRank = slow->rank;
        x.fastestRank = fast->rank;
        if (x.ops.size() < 2)
            continue;
        // The rank ready last holds everyone: its lead over the next latest is the delay.
        std::vector<const RankOp*> byReady;
        for (const RankOp& op : x.ops)
            byReady.push_back(&op);
        std::sort(byReady.begin(), byReady.end(),
                  [](const RankOp* a, const RankOp* b) { return a->ready > b->ready; });
        const RankOp* late = byReady[0];
        const TimeNs delay = late->ready - byReady[1]->ready;
        const auto threshold = std::max<TimeNs>(
            options.minDelayNs, static_cast<TimeNs>(options.minDelayShare * double(minDur)));
        if (delay < threshold)
            continue;
        x.delayingRank = late->rank;
        x.delayNs = delay;
        for (const RankOp& op : x.ops)
            if (&op != late)
                x.waitCausedNs += late->ready - op.ready;
        if (late->extraMemcpyNs * 2 >= delay)
            x.cause = "internal memcpy of " + formatDuration(late->extraMemcpyNs);
        else
            x.cause = "late arrival by " + formatDuration(late->start - byReady[1]->start);
    }

    // One finding per step and delaying rank: that is how the case reads ("step 45: rank 0
    // copies, ranks 1-7 wait").
    struct Agg {
        int count = 0;
        TimeNs delay = 0, caused = 0, memcpy = 0;
        std::vector<int> waiting;
        const CrossRankCollective* worst = nullptr;
    };
    std::map<std::pair<int, int>, Agg> perStep; // (step or -1, rank)
    std::map<int, TimeNs> causedByRank;
    std::map<int, int> delaysByRank;
    for (const CrossRankCollective& x : job.collectives) {
        if (!x.delayingRank)
            continue;
        Agg& a = perStep[{x.step ? *x.step : -1, *x.delayingRank}];
        ++a.count;
        a.delay += x.delayNs;
        a.caused += x.waitCausedNs;
        causedByRank[*x.delayingRank] += x.waitCausedNs;
        ++delaysByRank[*x.delayingRank];
        for (const RankOp& op : x.ops) {
            if (op.rank == *x.delayingRank) {
                a.memcpy += op.extraMemcpyNs;
            } else {
                if (std::find(a.waiting.begin(), a.waiting.end(), op.rank) == a.waiting.end())
                    a.waiting.push_back(op.rank);
            }
        }
        if (!a.worst || x.delayNs > a.worst->delayNs)
            a.worst = &x;
    }
    for (auto& [key, a] : perStep) {
        const auto& [step, rank] = key;
        const CrossRankCollective& w = *a.worst;
        std::sort(a.waiting.begin(), a.waiting.end());
        Finding f;
        f.rule = "job-rank-delays-collective";
        f.severity = a.memcpy > 0 ? Severity::Error : Severity::Warning;
        std::ostringstream t;
        t << "Rank " << rank << " delays " << a.count << " " << collectiveKindName(w.kind)
          << (a.count > 1 ? "s" : "") << (step >= 0 ? " in step " + std::to_string(step) : "")
          << " by " << formatDuration(a.delay) << " (" << w.cause << "); rank"
          << (a.waiting.size() > 1 ? "s " : " ") << rankList(a.waiting) << " wait "
          << formatDuration(a.caused / std::max<std::size_t>(1, a.waiting.size())) << " each";
        f.title = t.str();
        f.ranks.push_back(rank);
        f.ranks.insert(f.ranks.end(), a.waiting.begin(), a.waiting.end());
        for (const RankOp& op : w.ops) {
            if (op.rank != rank)
                continue;
            const Collective& c = job.ranks[op.report]->collectives[op.collective];
            f.events.push_back(c.event);
            f.eventsRank = rank;
            f.start = c.start;
            f.end = c.start + c.dur;
        }
        f.recommendation =
            a.memcpy > 0
                ? "Rank " + std::to_string(rank) +
                      "'s collective input is copied inside the communication library (misaligned "
                      "input); allocate it aligned or make it contiguous before the collective. "
                      "The waiting ranks need no change."
                : "Rank " + std::to_string(rank) +
                      " reaches the collective late: look at its compute, data loading or host "
                      "work just before it.";
        job.findings.push_back(std::move(f));
    }

    // Slow-rank test (msprof-analyze's idea): a rank that made the others wait in most of the
    // instances where anyone waited.
    int instancesWithDelay = 0;
    for (const auto& [rank, n] : delaysByRank)
        instancesWithDelay += n;
    for (const auto& [rank, n] : delaysByRank) {
        if (instancesWithDelay < 2 || n * 2 < instancesWithDelay)
            continue;
        Finding f;
        f.rule = "job-slow-rank";
        f.severity = Severity::Warning;
        f.title = "Rank " + std::to_string(rank) + " is the slow rank: it held " +
                  std::to_string(n) + " of " + std::to_string(instancesWithDelay) +
                  " delayed collectives and cost the other ranks " +
                  formatDuration(causedByRank[rank]) + " of waiting in all";
        f.ranks = job.rankIds;
        f.recommendation = "Start with rank " + std::to_string(rank) +
                           ": the other ranks only wait for it.";
        job.findings.push_back(std::move(f));
    }
    std::stable_sort(job.findings.begin(), job.findings.end(),
                     [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
    return job;
}

} // namespace rs
