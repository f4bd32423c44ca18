#include "core/compare/runcompare.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <map>
#include <unordered_map>

namespace rs {

namespace {

TimeNs absNs(TimeNs v)
{
    return v < 0 ? -v : v;
}

} // namespace

bool withinNoise(TimeNs delta, std::optional<TimeNs> before)
{
    const TimeNs d = absNs(delta);
    if (d < kNoiseFloorNs) return true;
    return before && *before != 0 && double(d) < kNoiseFraction * double(absNs(*before));
}

std::optional<double> RunComparison::stepDeltaPct() const
{
    const auto d = stepDeltaNs();
    if (!d || *before.stepMeanNs == 0) return std::nullopt;
    return 100.0 * double(*d) / double(*before.stepMeanNs);
}

RunComparison compareRuns(RunDigest before, RunDigest after)
{
    RunComparison c;

    std::map<int, StepDelta> steps;
    for (const StepDigest& s : before.steps) {
        steps[s.step].step = s.step;
        steps[s.step].beforeNs = s.meanNs();
    }
    for (const StepDigest& s : after.steps) {
        steps[s.step].step = s.step;
        steps[s.step].afterNs = s.meanNs();
    }
    for (auto& [n, s] : steps)
        c.steps.push_back(s);

    c.crossProducer = before.producer != after.producer && before.producer != "other" &&
                      after.producer != "other";

    // Collectives by (kind, pattern); ordered by the change of their total time.
    struct Group {
        CollectiveDelta d;
        TimeNs beforeSum = 0, afterSum = 0;
        int groupSize = 0;
        std::uint64_t bytes = 0;
        int order = 0;
    };
    std::map<std::pair<int, std::string>, Group> groups;
    for (const CollectiveDigest& g : before.collectives) {
        Group& x = groups[{int(g.kind), g.pattern}];
        x.d.kind = g.kind;
        x.d.pattern = g.pattern;
        x.d.beforeCount = g.count;
        if (g.count > 0) x.d.beforeMeanNs = g.meanNs();
        x.d.beforeExtraMemcpyNs = g.extraMemcpyNs;
        x.beforeSum = g.sumNs;
        x.groupSize = g.groupSize;
        x.bytes = g.bytes;
        x.order = g.order;
    }
    for (const CollectiveDigest& g : after.collectives) {
        Group& x = groups[{int(g.kind), g.pattern}];
        x.d.kind = g.kind;
        x.d.pattern = g.pattern;
        x.d.afterCount = g.count;
        if (g.count > 0) x.d.afterMeanNs = g.meanNs();
        x.d.afterExtraMemcpyNs = g.extraMemcpyNs;
        x.afterSum = g.sumNs;
        if (x.d.beforeCount > 0) {
            x.d.matchedBy = "pattern";
        } else {
            x.groupSize = g.groupSize;
            x.bytes = g.bytes;
            x.order = g.order;
        }
    }
    // A group on one side only may be the other producer's name for the same op (HCCL's
    // hcom_allReduce__#_#_#, NCCL's ncclKernel_AllReduce_...): pair it by what it does (kind,
    // group size, payload) and, among several such, by order, never by its name.
    std::vector<Group*> onlyBefore, onlyAfter;
    for (auto& [k, g] : groups) {
        if (g.d.afterCount == 0) onlyBefore.push_back(&g);
        if (g.d.beforeCount == 0) onlyAfter.push_back(&g);
    }
    auto byOrder = [](const Group* a, const Group* b) { return a->order < b->order; };
    std::stable_sort(onlyBefore.begin(), onlyBefore.end(), byOrder);
    std::stable_sort(onlyAfter.begin(), onlyAfter.end(), byOrder);
    auto sameShape = [](const Group& a, const Group& b) {
        if (a.d.kind != b.d.kind || a.d.kind == CollectiveKind::Other) return false;
        // Both sizes known and equal; a size one side does not know matches nothing.
        return a.groupSize > 0 && a.groupSize == b.groupSize && a.bytes > 0 && a.bytes == b.bytes;
    };
    std::map<std::pair<int, std::string>, std::string> renamed; // (kind, after) -> before
    std::vector<const Group*> absorbed;
    for (Group* b : onlyBefore) {
        Group* best = nullptr;
        for (Group* a : onlyAfter)
            if (a && sameShape(*b, *a) &&
                (!best || std::abs(a->order - b->order) < std::abs(best->order - b->order)))
                best = a;
        if (!best) continue;
        b->d.afterPattern = best->d.pattern;
        b->d.matchedBy = "shape";
        b->d.afterCount = best->d.afterCount;
        b->d.afterMeanNs = best->d.afterMeanNs;
        b->d.afterExtraMemcpyNs = best->d.afterExtraMemcpyNs;
        b->afterSum = best->afterSum;
        renamed[{int(best->d.kind), best->d.pattern}] = b->d.pattern;
        absorbed.push_back(best);
        *std::find(onlyAfter.begin(), onlyAfter.end(), best) = nullptr;
    }
    std::vector<Group> ordered;
    for (auto& [k, g] : groups)
        if (std::find(absorbed.begin(), absorbed.end(), &g) == absorbed.end())
            ordered.push_back(std::move(g));
    std::stable_sort(ordered.begin(), ordered.end(), [](const Group& a, const Group& b) {
        return absNs(a.afterSum - a.beforeSum) > absNs(b.afterSum - b.beforeSum);
    });
    for (Group& g : ordered)
        c.collectives.push_back(std::move(g.d));

    // Findings by key (rule and subject), never by title; an after finding about a collective
    // paired by shape takes the before side's name for it, so the same problem keeps its key.
    for (FindingDigest& f : after.findings)
        if (f.kind)
            if (auto it = renamed.find({int(*f.kind), f.pattern}); it != renamed.end())
                f.pattern = it->second;
    // Rules built on HCCL's per-task time info say nothing about a side without it.
    auto evaluable = [&](const FindingDigest& f, const RunDigest& other) {
        static const char* const needTimeInfo[] = {"sync-dominated", "small-packets",
                                                   "unexpected-transport"};
        return other.commTimeInfo || std::find(std::begin(needTimeInfo), std::end(needTimeInfo),
                                               f.rule) == std::end(needTimeInfo);
    };
    std::map<std::string, FindingChange> keys;
    for (const FindingDigest& f : before.findings) {
        FindingChange& x = keys[f.key()];
        x.finding = f;
        x.beforeCount = f.count;
    }
    for (const FindingDigest& f : after.findings) {
        FindingChange& x = keys[f.key()];
        x.finding = f;
        x.afterCount = f.count;
    }
    for (auto& [k, x] : keys) {
        if (x.afterCount == 0 && !evaluable(x.finding, after))
            c.notComparable.push_back(std::move(x));
        else if (x.beforeCount == 0 && !evaluable(x.finding, before))
            c.notComparable.push_back(std::move(x));
        else if (x.afterCount == 0)
            c.resolved.push_back(std::move(x));
        else if (x.beforeCount == 0)
            c.added.push_back(std::move(x));
        else
            c.persisting.push_back(std::move(x));
    }
    // Most severe first, then by key (stable output).
    for (auto* list : {&c.resolved, &c.added, &c.persisting, &c.notComparable})
        std::stable_sort(list->begin(), list->end(), [](const auto& a, const auto& b) {
            return a.finding.severity > b.finding.severity;
        });

    // Ops only when both sides have them: against a side without, every op would look new.
    c.opsAvailable = before.opsAvailable() && after.opsAvailable();
    std::unordered_map<std::string, OpDelta> ops;
    const std::vector<OpDigest> none;
    for (const OpDigest& o : c.opsAvailable ? before.ops : none) {
        OpDelta& x = ops[o.name];
        x.name = o.name;
        x.beforeNs = o.ns;
        x.beforeCount = o.count;
    }
    for (const OpDigest& o : c.opsAvailable ? after.ops : none) {
        // A collective's op under the after side's pattern is the op it was paired with.
        auto it = std::find_if(renamed.begin(), renamed.end(),
                               [&](const auto& r) { return r.first.second == o.name; });
        const std::string& name = it != renamed.end() ? it->second : o.name;
        OpDelta& x = ops[name];
        x.name = name;
        x.afterNs = o.ns;
        x.afterCount = o.count;
    }
    c.ops.reserve(ops.size());
    for (auto& [name, o] : ops)
        c.ops.push_back(std::move(o));
    std::sort(c.ops.begin(), c.ops.end(), [](const OpDelta& a, const OpDelta& b) {
        const TimeNs da = absNs(a.deltaNs()), db = absNs(b.deltaNs());
        if (da != db) return da > db;
        return a.name < b.name;
    });

    c.before = std::move(before);
    c.after = std::move(after);
    return c;
}

RunComparison compareRuns(const RunSide& before, const RunSide& after)
{
    return compareRuns(digestRun(before), digestRun(after));
}

std::vector<ScalingPoint> scalingOf(const std::vector<RunDigest>& runs, bool weak)
{
    std::vector<ScalingPoint> out;
    for (const RunDigest& r : runs) {
        ScalingPoint p;
        p.path = r.path;
        p.cards = r.cards;
        p.stepMeanNs = r.stepMeanNs;
        out.push_back(std::move(p));
    }
    if (out.empty()) return out;
    const ScalingPoint& base = out.front();
    for (ScalingPoint& p : out) {
        if (!base.stepMeanNs || !p.stepMeanNs || *base.stepMeanNs <= 0 || *p.stepMeanNs <= 0)
            continue;
        const double t0 = double(*base.stepMeanNs), t = double(*p.stepMeanNs);
        p.speedup = t0 / t;
        if (weak) {
            p.efficiency = t0 / t;
        } else if (base.cards > 0 && p.cards > 0) {
            p.efficiency = (double(base.cards) * t0) / (double(p.cards) * t);
        }
    }
    return out;
}

} // namespace rs
