#include "core/analysis/criticalpath.h"

#include "core/analysis/producermodel.h"
#include "core/timeconv.h"
#include "core/trackrole.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <string>

namespace rs {

namespace analysis {

namespace {

// A piece of device work the walk can stand on: a kernel, copy or set on a device stream, or a
// collective (its index in the report).
struct Item {
    TimeNs start = 0, end = 0;
    EventId event = kNone;
    std::int64_t collective = -1;
    PathKind kind = PathKind::Compute;
};

// The rank's device work sorted by start, with a running maximum of ends: the item ending
// last among those starting before t is the one the path stands on at t (it covers t when its
// end reaches t; else the device was idle at t and that end is where the gap begins).
class DeviceWork {
public:
    DeviceWork(const AnalysisContext& ctx, const AnalysisReport& rep)
    {
        const Trace& t = ctx.trace;
        const auto sl = t.slices();
        for (TrackId tr = 0; tr < t.tracks().size(); ++tr) {
            if (!isStreamRole(t.role(tr))) continue;
            for (const Slice& s : t.trackSlices(tr)) {
                const auto e = static_cast<EventId>(&s - sl.data());
                const SliceKind k = t.kind(e);
                if (k != SliceKind::Kernel && k != SliceKind::Copy && k != SliceKind::Memset)
                    continue;
                if (rep.collectiveOf(e)) continue; // a collective's own task: its span counts
                m_items.push_back({s.start, s.end(), e, -1,
                                   k == SliceKind::Kernel ? PathKind::Compute : PathKind::Copy});
            }
        }
        for (std::size_t i = 0; i < rep.collectives.size(); ++i) {
            const Collective& c = rep.collectives[i];
            m_items.push_back(
                {c.start, c.start + c.dur, c.event, std::int64_t(i), PathKind::Collective});
        }
        std::sort(m_items.begin(), m_items.end(),
                  [](const Item& a, const Item& b) { return a.start < b.start; });
        m_starts.reserve(m_items.size());
        m_last.reserve(m_items.size());
        std::size_t best = 0;
        for (std::size_t i = 0; i < m_items.size(); ++i) {
            m_starts.push_back(m_items[i].start);
            // Ties on the end: a collective, which the walk must meet, wins over its own work.
            const Item& a = m_items[i];
            const Item& b = m_items[best];
            if (i == 0 || a.end > b.end || (a.end == b.end && a.collective >= 0)) best = i;
            m_last.push_back(best);
        }
    }
    // The item ending last among those starting before t, or nullptr.
    const Item* lastBefore(TimeNs t) const
    {
        const auto i =
            std::size_t(std::lower_bound(m_starts.begin(), m_starts.end(), t) - m_starts.begin());
        return i ? &m_items[m_last[i - 1]] : nullptr;
    }

private:
    std::vector<Item> m_items;
    std::vector<TimeNs> m_starts;
    std::vector<std::size_t> m_last; // index of the item ending last among [0, i]
};

class PieceWalker {
public:
    PieceWalker(const AnalysisContext& ctx, const AnalysisReport& rep)
        : m_ctx(ctx), m_work(ctx, rep)
    {}

    // Walks back from `from` (an item `came` starts there, or none at a step's end, whose
    // host thread is stepTrack) to floor.
    PathPiece walk(TimeNs from, TimeNs floor, const Item* came, TrackId stepTrack = kNone) const
    {
        PathPiece p;
        p.from = from;
        p.floor = floor;
        TimeNs t = from;
        std::vector<PathSegment> back; // newest first
        while (t > floor) {
            const Item* best = m_work.lastBefore(t);
            if (best && best->end >= t) {
                if (best->collective >= 0) {
                    p.reaches = best->collective;
                    break;
                }
                const TimeNs s = std::max(best->start, floor);
                back.push_back(segment(best->kind, best->event, s, t));
                t = s;
                came = best;
                continue;
            }
            const TimeNs a = std::max(best ? best->end : floor, floor);
            gap(back, a, t, came, stepTrack);
            t = a;
        }
        p.to = t;
        p.segments.assign(std::make_move_iterator(back.rbegin()),
                          std::make_move_iterator(back.rend()));
        return p;
    }

private:
    PathSegment segment(PathKind kind, EventId e, TimeNs s, TimeNs t) const
    {
        PathSegment x;
        x.kind = kind;
        x.event = e;
        x.start = s;
        x.end = t;
        if (e != kNone) x.name = m_ctx.trace.str(m_ctx.trace.slice(e).name);
        return x;
    }

    // The device did nothing in [a, t): the work starting at t waited for its launch when the
    // launch ended after the device was free (the host was late), else the gap is idle. At a
    // step's end (no work after it) the gap is the host's.
    void gap(std::vector<PathSegment>& back, TimeNs a, TimeNs t, const Item* came,
             TrackId stepTrack) const
    {
        const Trace& tr = m_ctx.trace;
        if (!came) {
            back.push_back(hostSegment(a, t, stepTrack));
            return;
        }
        // The launch that ended last (ctx.launch is sorted by device event).
        EventId launch = kNone;
        const auto& launches = m_ctx.launch;
        for (auto it = std::lower_bound(launches.begin(), launches.end(),
                                        std::make_pair(came->event, 0u));
             it != launches.end() && it->first == came->event; ++it)
            if (it->second < tr.slices().size() &&
                (launch == kNone || tr.slice(it->second).end() > tr.slice(launch).end()))
                launch = it->second;
        if (launch == kNone || tr.slice(launch).end() <= a || tr.slice(launch).start >= t) {
            PathSegment x;
            x.kind = PathKind::Idle;
            x.name = "idle";
            x.start = a;
            x.end = t;
            back.push_back(std::move(x));
            return;
        }
        const TimeNs ls = std::max(tr.slice(launch).start, a);
        back.push_back(segment(PathKind::Launch, launch, ls, t));
        if (ls > a) back.push_back(hostSegment(a, ls, tr.slice(launch).track));
    }

    // Host time [a, t): named by the innermost slice at its middle on the host thread (the
    // launch's, or the step's).
    PathSegment hostSegment(TimeNs a, TimeNs t, TrackId track) const
    {
        const Trace& tr = m_ctx.trace;
        PathSegment x;
        x.kind = PathKind::Host;
        x.start = a;
        x.end = t;
        const EventId at = track != kNone ? tr.sliceAt(track, a + (t - a) / 2) : kNone;
        x.event = at;
        x.name = at != kNone ? tr.str(tr.slice(at).name) : std::string("host");
        return x;
    }

    const AnalysisContext& m_ctx;
    DeviceWork m_work;
};

} // namespace

std::vector<PathPiece> pathPieces(const AnalysisContext& ctx, const AnalysisReport& rep)
{
    std::vector<PathPiece> out;
    if (rep.steps.empty() && rep.collectives.empty()) return out;
    const PieceWalker walker(ctx, rep);
    for (const StepStats& s : rep.steps) {
        if (s.end <= s.start) continue;
        const TrackId track =
            s.event < ctx.trace.slices().size() ? ctx.trace.slice(s.event).track : kNone;
        PathPiece p = walker.walk(s.end, s.start, nullptr, track);
        p.step = s.step;
        out.push_back(std::move(p));
    }
    std::map<int, TimeNs> stepStart;
    for (const StepStats& s : rep.steps)
        stepStart[s.step] = s.start;
    for (std::size_t i = 0; i < rep.collectives.size(); ++i) {
        const Collective& c = rep.collectives[i];
        TimeNs floor = ctx.trace.startNs();
        if (c.step) {
            if (const auto it = stepStart.find(*c.step); it != stepStart.end()) floor = it->second;
        }
        floor = std::min(floor, c.start);
        const Item self{c.start, c.start + c.dur, c.event, std::int64_t(i), PathKind::Collective};
        PathPiece p = walker.walk(c.start, floor, &self);
        p.step = c.step.value_or(0);
        p.collective = std::int64_t(i);
        out.push_back(std::move(p));
    }
    return out;
}

} // namespace analysis

namespace {

struct Walk {
    std::vector<PathSegment> back; // newest first
    TimeNs lo = 0;

    void add(const PathSegment& s, std::optional<int> rank, TimeNs offset, TimeNs t)
    {
        const TimeNs a = std::max(s.start + offset, lo), b = std::min(s.end + offset, t);
        if (a >= b) return;
        PathSegment x = s;
        x.rank = rank;
        x.start = a;
        x.end = b;
        back.push_back(std::move(x));
    }
    void add(PathKind kind, std::string name, EventId e, std::optional<int> rank, TimeNs a,
             TimeNs b)
    {
        a = std::max(a, lo);
        if (a >= b) return;
        PathSegment x;
        x.kind = kind;
        x.name = std::move(name);
        x.event = e;
        x.rank = rank;
        x.start = a;
        x.end = b;
        back.push_back(std::move(x));
    }
};

StepPath walkStep(const std::vector<PathRank>& ranks, const PathJumpTo& jumpTo, int step,
                  const std::vector<const PathPiece*>& ends,
                  const std::vector<std::vector<const PathPiece*>>& fromCollective)
{
    StepPath out;
    out.step = step;
    std::size_t r = ranks.size();
    TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        if (!ends[i]) continue;
        lo = std::min(lo, ends[i]->floor + ranks[i].offset);
        const TimeNs e = ends[i]->from + ranks[i].offset;
        if (e > hi) {
            hi = e;
            r = i;
        }
    }
    if (r == ranks.size() || hi <= lo) return out;
    out.start = lo;
    out.end = hi;
    Walk w;
    w.lo = lo;
    const PathPiece* p = ends[r];
    TimeNs t = hi;
    // Each turn consumes a piece and moves t back or ends: bounded by the pieces there are.
    std::size_t budget = 4;
    for (const PathRank& x : ranks)
        budget += x.pieces ? x.pieces->size() : 0;
    while (p && t > lo && budget-- > 0) {
        const PathRank& pr = ranks[r];
        for (auto it = p->segments.rbegin(); it != p->segments.rend(); ++it)
            w.add(*it, pr.rank, pr.offset, t);
        t = std::min(t, p->to + pr.offset);
        if (t <= lo) break;
        if (p->reaches < 0 || std::size_t(p->reaches) >= pr.collectives.size()) {
            w.add(PathKind::Idle, "before this rank's step", kNone, pr.rank, lo, t);
            t = lo;
            break;
        }
        // At a collective: the exchange ran once the last member was ready; before that, the
        // path is on the member that delayed it (its extra internal copy, then what it did
        // before), else on this rank.
        const std::size_t k = std::size_t(p->reaches);
        std::size_t d = r, dk = k;
        if (jumpTo) {
            if (const auto to = jumpTo(r, k); to && to->first < ranks.size() &&
                                              to->second < ranks[to->first].collectives.size()) {
                const PathRank& x = ranks[to->first];
                if (x.collectives[to->second].start + x.offset < t) {
                    d = to->first;
                    dk = to->second;
                }
            }
        }
        const PathCollective& own = pr.collectives[k];
        const PathCollective& late = ranks[d].collectives[dk];
        const TimeNs ready = late.start + late.extraMemcpyNs + ranks[d].offset;
        if (t > ready) {
            w.add(PathKind::Collective, std::string(own.name), own.event, pr.rank, ready, t);
            t = ready;
        }
        const PathRank& dr = ranks[d];
        const PathCollective& dc = dr.collectives[dk];
        const TimeNs ds = dc.start + dr.offset;
        if (t > ds) {
            w.add(dc.extraMemcpyNs > 0 ? PathKind::InternalMemcpy : PathKind::Collective,
                  std::string(dc.name), dc.event, dr.rank, ds, t);
            t = ds;
        }
        r = d;
        p = dk < fromCollective[d].size() ? fromCollective[d][dk] : nullptr;
        if (!p) {
            w.add(PathKind::Idle, "before this rank's step", kNone, dr.rank, lo, t);
            t = lo;
        }
    }
    if (t > lo) w.add(PathKind::Idle, "idle", kNone, ranks[r < ranks.size() ? r : 0].rank, lo, t);
    out.segments.assign(std::make_move_iterator(w.back.rbegin()),
                        std::make_move_iterator(w.back.rend()));
    for (const PathSegment& s : out.segments)
        out.byKind[std::size_t(s.kind)] += s.end - s.start;
    return out;
}

} // namespace

std::vector<StepPath> walkCriticalPath(const std::vector<PathRank>& ranks, const PathJumpTo& jumpTo)
{
    // Per rank: its step-end piece of each step, its piece of each collective.
    std::map<int, std::vector<const PathPiece*>> ends;
    std::vector<std::vector<const PathPiece*>> fromCollective(ranks.size());
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        fromCollective[i].assign(ranks[i].collectives.size(), nullptr);
        if (!ranks[i].pieces) continue;
        for (const PathPiece& p : *ranks[i].pieces) {
            if (p.collective >= 0) {
                if (std::size_t(p.collective) < fromCollective[i].size())
                    fromCollective[i][std::size_t(p.collective)] = &p;
                continue;
            }
            auto& v = ends[p.step];
            v.resize(ranks.size(), nullptr);
            v[i] = &p;
        }
    }
    std::vector<StepPath> out;
    for (const auto& [step, e] : ends) {
        StepPath s = walkStep(ranks, jumpTo, step, e, fromCollective);
        if (s.end > s.start) out.push_back(std::move(s));
    }
    return out;
}

std::vector<StepPath> rankCriticalPath(const AnalysisReport& rep)
{
    PathRank r;
    r.rank = reportRank(rep);
    r.pieces = &rep.pathPieces;
    r.collectives.reserve(rep.collectives.size());
    for (const Collective& c : rep.collectives)
        r.collectives.push_back({c.start, c.dur, c.extraMemcpyNs, c.event, c.name});
    return walkCriticalPath({r}, {});
}

std::optional<TimeNs> copyGain(const std::vector<StepPath>& paths, int step,
                               const std::vector<PathCopy>& copies, TimeNs bound)
{
    const auto p = std::lower_bound(paths.begin(), paths.end(), step,
                                    [](const StepPath& x, int s) { return x.step < s; });
    if (p == paths.end() || p->step != step) return std::nullopt;
    TimeNs on = 0;
    for (const PathSegment& s : p->segments) {
        if (s.kind != PathKind::InternalMemcpy) continue;
        for (const PathCopy& c : copies)
            if (c.event == s.event && (!c.rank || c.rank == s.rank)) on += s.end - s.start;
    }
    return std::clamp<TimeNs>(on, 0, std::max<TimeNs>(0, bound));
}

void addCopyGains(AnalysisReport& rep)
{
    std::vector<StepPath> paths;
    bool walked = false;
    for (Finding& f : rep.findings) {
        if (f.rule != "collective-extra-memcpy" || f.events.empty()) continue;
        const Collective* c = rep.collectiveOf(f.events.front());
        if (!c || !c->step) continue;
        if (!walked) {
            paths = rankCriticalPath(rep);
            walked = true;
        }
        f.gainNs = copyGain(paths, *c->step, {{std::nullopt, c->event}}, c->extraMemcpyNs);
        if (!f.gainNs) continue;
        f.recommendation += " Gain: without this copy, step " + std::to_string(*c->step) +
                            " would be about " + formatDuration(*f.gainNs) +
                            " shorter on this rank (its critical path).";
    }
}

std::string checkStepPath(const StepPath& p)
{
    TimeNs at = p.start;
    for (std::size_t i = 0; i < p.segments.size(); ++i) {
        const PathSegment& s = p.segments[i];
        if (s.start != at)
            return "step " + std::to_string(p.step) + ": segment " + std::to_string(i) +
                   " starts at " + std::to_string(s.start) + ", not " + std::to_string(at);
        if (s.end <= s.start)
            return "step " + std::to_string(p.step) + ": segment " + std::to_string(i) +
                   " is empty";
        at = s.end;
    }
    if (at != p.end)
        return "step " + std::to_string(p.step) + ": the segments end at " + std::to_string(at) +
               ", not " + std::to_string(p.end);
    TimeNs sum = 0;
    for (TimeNs v : p.byKind)
        sum += v;
    if (sum != p.end - p.start)
        return "step " + std::to_string(p.step) + ": by kind sums to " + std::to_string(sum);
    return {};
}

} // namespace rs
