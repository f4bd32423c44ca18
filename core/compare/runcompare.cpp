#include "core/compare/runcompare.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <unordered_map>

namespace rs {

namespace {

TimeNs absNs(TimeNs v)
{
    return v < 0 ? -v : v;
}

} // namespace

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

    // Collectives by (kind, pattern); ordered by the change of their total time.
    struct Group {
        CollectiveDelta d;
        TimeNs beforeSum = 0, afterSum = 0;
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
    }
    for (const CollectiveDigest& g : after.collectives) {
        Group& x = groups[{int(g.kind), g.pattern}];
        x.d.kind = g.kind;
        x.d.pattern = g.pattern;
        x.d.afterCount = g.count;
        if (g.count > 0) x.d.afterMeanNs = g.meanNs();
        x.d.afterExtraMemcpyNs = g.extraMemcpyNs;
        x.afterSum = g.sumNs;
    }
    std::vector<Group> ordered;
    for (auto& [k, g] : groups)
        ordered.push_back(std::move(g));
    std::stable_sort(ordered.begin(), ordered.end(), [](const Group& a, const Group& b) {
        return absNs(a.afterSum - a.beforeSum) > absNs(b.afterSum - b.beforeSum);
    });
    for (Group& g : ordered)
        c.collectives.push_back(std::move(g.d));

    // Findings by key (rule and subject), never by title.
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
        if (x.afterCount == 0)
            c.resolved.push_back(std::move(x));
        else if (x.beforeCount == 0)
            c.added.push_back(std::move(x));
        else
            c.persisting.push_back(std::move(x));
    }
    // Most severe first, then by key (stable output).
    for (auto* list : {&c.resolved, &c.added, &c.persisting})
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
        OpDelta& x = ops[o.name];
        x.name = o.name;
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
