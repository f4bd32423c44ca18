#include "core/job/crossrank.h"

#include "core/analysis/criticalpath.h"
#include "core/job/jobloader.h"
#include "core/job/jobpath.h"
#include "core/timeconv.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <unordered_map>

namespace rs {

namespace {

// collective-missing and collective-mismatch over the ranks' numbered calls, as job findings
// whose evidence is the call of one rank (a waiting one, a mismatched one).
std::vector<Finding> checkJobCalls(const std::vector<JobRank>& ranks,
                                   const std::vector<int>& rankIds, const CallCheckOptions& options)
{
    std::vector<RankCalls> in;
    std::vector<std::size_t> reportOf; // per RankCalls: index into ranks
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        if (ranks[r].calls.empty() && ranks[r].commGroups.empty()) continue;
        RankCalls rc;
        rc.rank = rankIds[r];
        rc.name = "rank " + std::to_string(rc.rank);
        rc.groups = ranks[r].commGroups;
        rc.calls = ranks[r].calls;
        in.push_back(std::move(rc));
        reportOf.push_back(r);
    }
    std::vector<Finding> out;
    if (in.empty()) return out;
    const CallCheck check = checkCalls(in, options);
    auto evidence = [&](Finding& f, const CallRef& ref) {
        for (std::size_t i = 0; i < in.size(); ++i) {
            if (in[i].rank != ref.rank) continue;
            const JobRank& rank = ranks[reportOf[i]];
            if (ref.index >= rank.callCollective.size()) return;
            const JobCollective& c = rank.collectives[rank.callCollective[ref.index]];
            f.events.push_back(c.event);
            f.eventsRank = ref.rank;
            return;
        }
    };
    for (const MissingCollective& m : check.missing) {
        Finding f = toFinding(m);
        if (!m.waiting.empty()) evidence(f, m.waiting.front());
        out.push_back(std::move(f));
    }
    for (const MismatchedCollective& m : check.mismatches) {
        Finding f = toFinding(m);
        if (!m.calls.empty()) evidence(f, m.calls.front().entry);
        out.push_back(std::move(f));
    }
    return out;
}

} // namespace

void JobRank::add(const Collective& c, TimeNs fastModeNs)
{
    JobCollective x;
    x.start = c.start;
    x.dur = c.dur;
    x.extraMemcpyNs = c.extraMemcpyNs;
    x.waitNs = c.waitNs;
    x.fastModeNs = fastModeNs;
    x.event = c.event;
    x.kind = c.kind;
    x.hasStep = c.step.has_value();
    x.step = c.step.value_or(0);
    const bool p2p = c.kind == CollectiveKind::Send || c.kind == CollectiveKind::Recv;
    x.hasSeq = c.seq.has_value() && !p2p;
    x.seq = c.seq.value_or(0);
    x.recorded = c.recorded();
    // A rank has a handful of groups: the last one found is the likely next.
    std::size_t g = groups.size();
    if (!groups.empty() && groups[collectives.empty() ? 0 : collectives.back().group] == c.group)
        g = collectives.empty() ? 0 : collectives.back().group;
    else
        g = static_cast<std::size_t>(std::find(groups.begin(), groups.end(), c.group) -
                                     groups.begin());
    if (g == groups.size()) groups.push_back(c.group);
    x.group = static_cast<std::uint32_t>(g);
    x.nameAt = static_cast<std::uint32_t>(names.size());
    x.nameLength = static_cast<std::uint32_t>(c.name.size());
    names += c.name;
    x.count = c.count;
    x.dtypeAt = static_cast<std::uint32_t>(names.size());
    x.dtypeLength = static_cast<std::uint32_t>(c.dtype.size());
    names += c.dtype;
    if (c.recorded() || c.seq) {
        RankCall call;
        call.group = c.group;
        call.groupDesc = c.groupDesc;
        call.groupRanks = c.groupRanks;
        call.seq = c.seq.value_or(0);
        call.p2p = p2p;
        call.op = c.name;
        // A profiled op ran: it completed.
        call.state = c.state;
        call.completed = c.state == CallState::Completed || !c.recorded();
        call.createdNs = c.start;
        call.lastNs = c.start + c.dur;
        call.inputSizes = c.inputSizes;
        call.outputSizes = c.outputSizes;
        call.inputDtypes = c.inputDtypes;
        call.outputDtypes = c.outputDtypes;
        call.timeoutMs = c.timeoutMs;
        calls.push_back(std::move(call));
        callCollective.push_back(static_cast<std::uint32_t>(collectives.size()));
    }
    collectives.push_back(x);
}

JobRank jobRankOf(const AnalysisReport& report)
{
    JobRank r;
    r.rank = reportRank(report);
    r.baseTimeNs = reportBaseTimeNs(report);
    r.commGroups = report.groups;
    r.collectives.reserve(report.collectives.size());
    for (const Collective& c : report.collectives) {
        TimeNs fast = 0;
        if (c.signature < report.signatures.size() && !report.signatures[c.signature].modes.empty())
            fast = std::max<TimeNs>(0, report.signatures[c.signature].modes.front().meanNs);
        r.add(c, fast);
    }
    r.pathPieces = report.pathPieces;
    return r;
}

namespace {

std::vector<TimeNs> clockOffsets(std::vector<TimeNs> offsets)
{
    // Keep the job clock near the first rank's own numbers.
    const TimeNs base = offsets.empty() ? 0 : *std::min_element(offsets.begin(), offsets.end());
    for (TimeNs& o : offsets)
        o -= base;
    return offsets;
}

} // namespace

std::vector<TimeNs> sharedClockOffsets(const std::vector<ReportPtr>& reports)
{
    std::vector<TimeNs> offsets(reports.size(), 0);
    for (std::size_t i = 0; i < reports.size(); ++i) {
        // From the trace, or from a rank summary's clock facts: the same offsets either way.
        if (const auto base = reportBaseTimeNs(*reports[i])) offsets[i] = *base;
    }
    return clockOffsets(std::move(offsets));
}

std::vector<TimeNs> sharedClockOffsets(const std::vector<JobRank>& ranks)
{
    std::vector<TimeNs> offsets(ranks.size(), 0);
    for (std::size_t i = 0; i < ranks.size(); ++i)
        if (ranks[i].baseTimeNs) offsets[i] = *ranks[i].baseTimeNs;
    return clockOffsets(std::move(offsets));
}

std::vector<TimeNs> alignOnCollective(const JobReport& job, std::size_t instance)
{
    std::vector<TimeNs> offsets = job.offsets;
    if (instance >= job.collectives.size() || job.collectives[instance].ops.empty()) return offsets;
    const CrossRankCollective& c = job.collectives[instance];
    const TimeNs reference = c.ops.front().end;
    for (const RankOp& op : c.ops)
        offsets[op.report] += reference - op.end;
    return offsets;
}

JobReport analyzeJob(const std::vector<ReportPtr>& reports, std::vector<TimeNs> offsets,
                     const JobOptions& options)
{
    std::vector<JobRank> ranks;
    ranks.reserve(reports.size());
    for (const ReportPtr& r : reports)
        ranks.push_back(jobRankOf(*r));
    JobReport job = analyzeJob(ranks, std::move(offsets), options);
    job.ranks = reports;
    return job;
}

JobReport analyzeJob(const std::vector<JobRank>& ranks, std::vector<TimeNs> offsets,
                     const JobOptions& options)
{
    JobReport job;
    job.ranks.assign(ranks.size(), nullptr);
    if (offsets.size() != ranks.size()) offsets = sharedClockOffsets(ranks);
    job.offsets = offsets;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        // rankIdOf's rule, on the report: a report read from a summary has no trace.
        job.rankIds.push_back(ranks[r].rank ? *ranks[r].rank : static_cast<int>(r));
    }

    // Instance k of (kind, group) on every rank is one collective: ranks issue collectives of
    // a group in the same order (NCCL and HCCL require it). Keys are hashed once per rank and
    // group; each collective then costs a vector index.
    std::unordered_map<std::string, std::size_t> keyOf; // kind byte + group -> key
    std::vector<std::vector<std::size_t>> instanceOf;   // key -> instances in order
    constexpr int kKinds = static_cast<int>(CollectiveKind::Other) + 1;
    // Numbered calls: (group, seq) is one call whatever each member called (a mismatch is a
    // finding, not another instance).
    std::unordered_map<std::string, std::unordered_map<std::int64_t, std::size_t>> bySeq;
    std::vector<bool> recorded; // per instance: recorded calls, no device span to judge
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        const JobRank& rank = ranks[r];
        std::vector<std::size_t> localKey(rank.groups.size() * kKinds, ~std::size_t(0));
        std::vector<int> counter(instanceOf.size(), 0);
        for (std::uint32_t ci = 0; ci < rank.collectives.size(); ++ci) {
            const JobCollective& c = rank.collectives[ci];
            RankOp op;
            op.rank = job.rankIds[r];
            op.report = r;
            op.collective = ci;
            op.start = c.start + offsets[r];
            op.end = c.start + c.dur + offsets[r];
            op.extraMemcpyNs = c.extraMemcpyNs;
            op.ready = op.start + c.extraMemcpyNs;
            op.waitNs = c.waitNs;
            if (c.hasSeq) {
                auto& calls = bySeq[rank.groups[c.group]];
                const auto [it, added] = calls.emplace(c.seq, job.collectives.size());
                if (added) {
                    CrossRankCollective x;
                    x.kind = c.kind;
                    x.group = rank.groups[c.group];
                    x.seq = c.seq;
                    x.name = std::string(rank.name(c));
                    if (c.hasStep) x.step = c.step;
                    job.collectives.push_back(std::move(x));
                    recorded.push_back(false);
                }
                CrossRankCollective& x = job.collectives[it->second];
                if (!x.step && c.hasStep) x.step = c.step;
                if (c.recorded) recorded[it->second] = true;
                x.ops.push_back(op);
                continue;
            }
            std::size_t& key = localKey[c.group * kKinds + static_cast<int>(c.kind)];
            if (key == ~std::size_t(0)) {
                std::string k(1, static_cast<char>(c.kind));
                k += rank.groups[c.group];
                auto [it, added] = keyOf.emplace(std::move(k), instanceOf.size());
                if (added) instanceOf.emplace_back();
                key = it->second;
                if (counter.size() < instanceOf.size()) counter.resize(instanceOf.size(), 0);
            }
            const int k = counter[key]++;
            auto& list = instanceOf[key];
            if (static_cast<int>(list.size()) <= k) {
                CrossRankCollective x;
                x.kind = c.kind;
                x.group = rank.groups[c.group];
                x.index = k;
                x.name = std::string(rank.name(c));
                if (c.hasStep) x.step = c.step;
                list.push_back(job.collectives.size());
                job.collectives.push_back(std::move(x));
                recorded.push_back(false);
            }
            CrossRankCollective& x = job.collectives[list[k]];
            if (!x.step && c.hasStep) x.step = c.step;
            if (c.recorded) recorded[list[k]] = true;
            x.ops.push_back(op);
        }
    }
    // A group's numbered calls in the order of their numbers.
    for (auto& [group, calls] : bySeq) {
        std::vector<std::pair<std::int64_t, std::size_t>> order(calls.begin(), calls.end());
        std::sort(order.begin(), order.end());
        for (std::size_t k = 0; k < order.size(); ++k)
            job.collectives[order[k].second].index = static_cast<int>(k);
    }

    for (std::size_t xi = 0; xi < job.collectives.size(); ++xi) {
        CrossRankCollective& x = job.collectives[xi];
        if (x.ops.empty()) continue;
        TimeNs minStart = x.ops[0].start, maxStart = x.ops[0].start;
        TimeNs minDur = x.ops[0].end - x.ops[0].start;
        const RankOp* slow = &x.ops[0];
        const RankOp* fast = &x.ops[0];
        TimeNs fastMode = 0; // the signature's fastest mode, over the ranks that have one
        for (const RankOp& op : x.ops) {
            minStart = std::min(minStart, op.start);
            maxStart = std::max(maxStart, op.start);
            minDur = std::min(minDur, op.end - op.start);
            if (op.end - op.start > slow->end - slow->start) slow = &op;
            if (op.end - op.start < fast->end - fast->start) fast = &op;
            const TimeNs m = ranks[op.report].collectives[op.collective].fastModeNs;
            if (m > 0) fastMode = fastMode ? std::min(fastMode, m) : m;
        }
        x.startSkew = maxStart - minStart;
        x.slowestRank = slow->rank;
        x.fastestRank = fast->rank;
        // A recorded call spans from its enqueue to when a watchdog saw it done (or the dump):
        // no device time to judge a delay by (the call rules judge it below).
        if (x.ops.size() < 2 || recorded[xi]) continue;
        // Ranks sorted by readiness; the first gap wider than the threshold splits the ranks
        // that were on time from those that delayed them (jitter below it never adds up).
        std::vector<const RankOp*> byReady;
        for (const RankOp& op : x.ops)
            byReady.push_back(&op);
        std::stable_sort(byReady.begin(), byReady.end(),
                         [](const RankOp* a, const RankOp* b) { return a->ready < b->ready; });
        const TimeNs base = fastMode ? fastMode : minDur;
        const auto threshold = std::max<TimeNs>(
            options.minDelayNs, static_cast<TimeNs>(options.minDelayShare * double(base)));
        std::size_t split = 0;
        for (std::size_t k = 1; k < byReady.size() && !split; ++k)
            if (byReady[k]->ready - byReady[k - 1]->ready > threshold) split = k;
        if (!split) continue;
        const RankOp* onTime = byReady[split - 1]; // the latest rank that did not delay
        const RankOp* late = byReady.back();
        TimeNs onTimeStart = 0;
        for (std::size_t k = 0; k < split; ++k)
            onTimeStart = std::max(onTimeStart, byReady[k]->start);
        x.delayingRank = late->rank;
        x.delayNs = late->ready - onTime->ready;
        for (std::size_t k = split; k < byReady.size(); ++k)
            x.delayingRanks.push_back(byReady[k]->rank);
        std::sort(x.delayingRanks.begin(), x.delayingRanks.end());
        for (std::size_t k = 0; k < split; ++k)
            x.waitCausedNs += late->ready - byReady[k]->ready;
        // Cause per delaying rank: its copy when that explains at least half of its own delay.
        int copying = 0;
        TimeNs copySum = 0, lateSum = 0;
        std::vector<std::string> parts;
        for (std::size_t k = split; k < byReady.size(); ++k) {
            const RankOp& d = *byReady[k];
            const bool copy = d.extraMemcpyNs * 2 >= d.ready - onTime->ready;
            const TimeNs lateBy = std::max<TimeNs>(0, d.start - onTimeStart);
            copying += copy;
            copySum += d.extraMemcpyNs;
            lateSum += lateBy;
            parts.push_back((copy ? "internal memcpy of " + formatDuration(d.extraMemcpyNs)
                                  : "late arrival by " + formatDuration(lateBy)) +
                            " on rank " + std::to_string(d.rank));
        }
        const auto nDelaying = static_cast<TimeNs>(byReady.size() - split);
        if (nDelaying == 1)
            x.cause = copying ? "internal memcpy of " + formatDuration(late->extraMemcpyNs)
                              : "late arrival by " + formatDuration(lateSum);
        else if (copying == nDelaying)
            x.cause = "internal memcpy of ~" + formatDuration(copySum / nDelaying) + " each";
        else if (copying == 0)
            x.cause = "late arrival by ~" + formatDuration(lateSum / nDelaying) + " each";
        else {
            std::sort(parts.begin(), parts.end());
            for (const std::string& p : parts)
                x.cause += (x.cause.empty() ? "" : ", ") + p;
        }
    }

    // The path first: a delayed collective's finding says what its copies cost the step.
    job.criticalPath = jobCriticalPath(ranks, job);

    // One finding per delayed collective: "step 45: ranks 5, 6 copy, ranks 0-4, 7 wait".
    int instancesWithDelay = 0;
    std::map<int, TimeNs> causedByRank;
    std::map<int, int> delaysByRank;
    for (const CrossRankCollective& x : job.collectives) {
        if (x.delayingRanks.empty()) continue;
        ++instancesWithDelay;
        const auto isDelaying = [&](int r) {
            return std::binary_search(x.delayingRanks.begin(), x.delayingRanks.end(), r);
        };
        std::vector<int> waiting;
        const RankOp* main = nullptr; // the delaying rank ready last: the finding's evidence
        bool anyCopy = false;
        for (const RankOp& op : x.ops) {
            if (!isDelaying(op.rank)) {
                waiting.push_back(op.rank);
                continue;
            }
            anyCopy = anyCopy || op.extraMemcpyNs > 0;
            ++delaysByRank[op.rank];
            if (!main || op.ready > main->ready) main = &op;
        }
        // Wait each delaying rank caused the others: the sum over the waiting ranks of how much
        // later it was ready. Ranks are distinct in a job, so every delaying rank was ready
        // after every waiting one and the sum is n * ready - sum(ready), linear.
        if (waiting.size() + x.delayingRanks.size() == x.ops.size()) {
            // Relative to the earliest ready: no overflow of epoch-sized sums.
            TimeNs base = x.ops.front().ready;
            for (const RankOp& op : x.ops)
                base = std::min(base, op.ready);
            TimeNs waitingReady = 0;
            for (const RankOp& w : x.ops)
                if (!isDelaying(w.rank)) waitingReady += w.ready - base;
            const auto nWaiting = static_cast<TimeNs>(waiting.size());
            for (const RankOp& d : x.ops)
                if (isDelaying(d.rank))
                    causedByRank[d.rank] += nWaiting * (d.ready - base) - waitingReady;
        } else {
            for (const RankOp& d : x.ops)
                if (isDelaying(d.rank))
                    for (const RankOp& w : x.ops)
                        if (!isDelaying(w.rank))
                            causedByRank[d.rank] += std::max<TimeNs>(0, d.ready - w.ready);
        }
        std::sort(waiting.begin(), waiting.end());
        const bool several = x.delayingRanks.size() > 1;
        Finding f;
        f.rule = "job-rank-delays-collective";
        f.severity = anyCopy ? Severity::Error : Severity::Warning;
        f.step = x.step;
        std::ostringstream t;
        t << (several ? "Ranks " : "Rank ") << rankList(x.delayingRanks)
          << (several ? " delay " : " delays ") << collectiveKindName(x.kind)
          << (x.step ? " in step " + std::to_string(*x.step) : "") << " by "
          << formatDuration(x.delayNs) << " (" << x.cause << "); rank"
          << (waiting.size() > 1 ? "s " : " ") << rankList(waiting)
          << (waiting.size() > 1 ? " wait " : " waits ")
          << formatDuration(x.waitCausedNs / std::max<TimeNs>(1, TimeNs(waiting.size())))
          << (waiting.size() > 1 ? " each" : "");
        f.title = t.str();
        f.ranks = x.delayingRanks;
        f.ranks.insert(f.ranks.end(), waiting.begin(), waiting.end());
        std::vector<PathCopy> copies;
        if (anyCopy && x.step) {
            // Without the delaying ranks' copies the exchange starts when the last member is
            // ready without them; the step gains what of the copies was on its path, at most.
            TimeNs ready = 0, readyWithout = 0;
            for (const RankOp& op : x.ops) {
                const bool delaying = isDelaying(op.rank);
                ready = std::max(ready, op.ready);
                readyWithout = std::max(readyWithout, delaying ? op.start : op.ready);
                if (delaying && op.extraMemcpyNs > 0)
                    copies.push_back({op.rank, ranks[op.report].collectives[op.collective].event});
            }
            f.gainNs = copyGain(job.criticalPath, *x.step, copies, ready - readyWithout);
        }
        const JobCollective& c = ranks[main->report].collectives[main->collective];
        f.events.push_back(c.event);
        f.eventsRank = main->rank;
        f.start = c.start;
        f.end = c.start + c.dur;
        const std::string who =
            (several ? "Ranks " : "Rank ") + rankList(x.delayingRanks) + (several ? "'" : "'s");
        f.recommendation =
            anyCopy ? who + " collective input is copied inside the communication library "
                            "(misaligned input); allocate it aligned or make it contiguous "
                            "before the collective. The waiting ranks need no change."
                    : who + " reach" + (several ? "" : "es") +
                          " the collective late: look at the compute, data loading or host "
                          "work just before it.";
        if (f.gainNs)
            f.recommendation += " Gain: without " +
                                std::string(copies.size() > 1 ? "these copies" : "this copy") +
                                ", step " + std::to_string(*x.step) + " would be about " +
                                formatDuration(*f.gainNs) + " shorter (its critical path).";
        job.findings.push_back(std::move(f));
    }

    // Slow-rank test (msprof-analyze's idea): a rank that made the others wait in most of the
    // instances where anyone waited.
    for (const auto& [rank, n] : delaysByRank) {
        if (instancesWithDelay < 2 || n * 2 < instancesWithDelay) continue;
        Finding f;
        f.rule = "job-slow-rank";
        f.severity = Severity::Warning;
        f.title = "Rank " + std::to_string(rank) + " is the slow rank: it held " +
                  std::to_string(n) + " of " + std::to_string(instancesWithDelay) +
                  " delayed collectives and cost the other ranks " +
                  formatDuration(causedByRank[rank]) + " of waiting in all";
        f.ranks = job.rankIds;
        f.recommendation =
            "Start with rank " + std::to_string(rank) + ": the other ranks only wait for it.";
        job.findings.push_back(std::move(f));
    }
    // The numbered calls: the ranks a hung group waited for, mismatched calls; first (the
    // first missing call by time is the root of a hang).
    std::vector<Finding> callFindings = checkJobCalls(ranks, job.rankIds, options.calls);
    job.findings.insert(job.findings.begin(), std::make_move_iterator(callFindings.begin()),
                        std::make_move_iterator(callFindings.end()));
    // Profiled collectives that the ranks disagree on, n-th for n-th.
    std::vector<Finding> sequenceFindings = checkCollectiveSequences(ranks, job, options.sequences);
    job.findings.insert(job.findings.end(), std::make_move_iterator(sequenceFindings.begin()),
                        std::make_move_iterator(sequenceFindings.end()));
    std::stable_sort(job.findings.begin(), job.findings.end(),
                     [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
    return job;
}

} // namespace rs
