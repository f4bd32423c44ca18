#include "core/analysis/steps.h"

#include <algorithm>
#include <limits>
#include <map>

namespace rs::analysis {

namespace {

using Intervals = std::vector<std::pair<TimeNs, TimeNs>>;

struct StepSpan {
    int number = 0;
    EventId event = kNone;
    TimeNs start = 0, end = 0;
};

// a minus b, both sorted and disjoint.
Intervals subtract(const Intervals& a, const Intervals& b)
{
    Intervals out;
    std::size_t k = 0;
    for (auto [lo, hi] : a) {
        while (k < b.size() && b[k].second <= lo)
            ++k;
        TimeNs at = lo;
        for (std::size_t j = k; j < b.size() && b[j].first < hi; ++j) {
            if (b[j].first > at) out.emplace_back(at, b[j].first);
            at = std::max(at, b[j].second);
        }
        if (at < hi) out.emplace_back(at, hi);
    }
    return out;
}

// torch_npu's step_trace_time.csv, ported from its source (docs/analysis.md "Steps"):
// TraceStepTimeParser (torch_npu/profiler/analysis/prof_view/_trace_step_time_parser.py; the
// database export's _trace_step_time_db_parser.py is the same) sums, per step, the sections of
// msprof's Overlap Analysis lanes (pipeline_overlap_viewer.py) whose start lies in the step's
// device range [START, END). The lanes are the whole trace's: Computing = the union of the
// tasks with op info, Communication = the union of the HCCL ops, Not Overlapped =
// Communication - Computing, Free = the gaps between busy sections. The range
// (_fwk_cann_relation_parser.py get_step_range) starts at the first device task the step
// launched and ends at the later of the last one's end and the host step's end. A step whose
// launches cannot be followed (a trace without flows) is bounded by its host span.
std::vector<StepStats> deviceWindowSteps(const AnalysisContext& ctx,
                                         const std::vector<StepSpan>& steps, Intervals computeAll,
                                         Intervals opsAll, const std::vector<TimeNs>& memcpyNs)
{
    const Trace& t = ctx.trace;
    const auto sl = t.slices();
    auto stepAt = [&](TimeNs time) -> int {
        auto it = std::upper_bound(steps.begin(), steps.end(), time,
                                   [](TimeNs v, const StepSpan& s) { return v < s.start; });
        if (it == steps.begin()) return -1;
        --it;
        return time < it->end ? int(it - steps.begin()) : -1;
    };
    std::vector<TimeNs> lo(steps.size(), std::numeric_limits<TimeNs>::max()),
        hi(steps.size(), std::numeric_limits<TimeNs>::min());
    for (const auto& [dev, host] : ctx.launch) {
        if (dev >= sl.size() || host >= sl.size()) continue;
        if (!isLaunchedRole(ctx.roles[sl[dev].track])) continue;
        const int s = stepAt(sl[host].start);
        if (s < 0) continue;
        lo[std::size_t(s)] = std::min(lo[std::size_t(s)], sl[dev].start);
        hi[std::size_t(s)] = std::max(hi[std::size_t(s)], sl[dev].end());
    }
    const Intervals cu = mergeIntervals(std::move(computeAll));
    const Intervals mu = mergeIntervals(std::move(opsAll));
    const Intervals notOverlapped = subtract(mu, cu);
    Intervals busyAll = cu;
    busyAll.insert(busyAll.end(), mu.begin(), mu.end());
    const Intervals busy = mergeIntervals(std::move(busyAll));
    Intervals gaps;
    for (std::size_t i = 1; i < busy.size(); ++i)
        gaps.emplace_back(busy[i - 1].second, busy[i].first);

    // Sum of the sections of a lane that start in [a, b).
    auto sum = [](const Intervals& lane, TimeNs a, TimeNs b) {
        auto it = std::lower_bound(lane.begin(), lane.end(), std::make_pair(a, TimeNs(0)),
                                   [](const auto& x, const auto& y) { return x.first < y.first; });
        TimeNs total = 0;
        for (; it != lane.end() && it->first < b; ++it)
            total += it->second - it->first;
        return total;
    };
    std::vector<StepStats> out;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        StepStats st;
        st.step = steps[i].number;
        st.rank = t.rank();
        st.event = steps[i].event;
        st.start = steps[i].start;
        st.end = steps[i].end;
        const bool launched = lo[i] <= hi[i];
        const TimeNs a = launched ? lo[i] : steps[i].start;
        const TimeNs b = launched ? std::max(hi[i], steps[i].end) : steps[i].end;
        st.computing = sum(cu, a, b);
        st.communication = sum(mu, a, b);
        st.communicationNotOverlapped = sum(notOverlapped, a, b);
        st.overlapped = st.communication - st.communicationNotOverlapped;
        st.free = sum(gaps, a, b);
        // The busy sections that start in the range: where the step's device work lies (free
        // time after the last one may count in the step too, as torch_npu counts it).
        auto it = std::lower_bound(busy.begin(), busy.end(), std::make_pair(a, TimeNs(0)),
                                   [](const auto& x, const auto& y) { return x.first < y.first; });
        for (bool first = true; it != busy.end() && it->first < b; ++it, first = false) {
            if (first) st.busyStart = it->first;
            st.busyEnd = it->second;
        }
        st.internalMemcpy = memcpyNs[i];
        out.push_back(st);
    }
    return out;
}

} // namespace

std::vector<StepStats> computeSteps(AnalysisContext& ctx, const ProducerModel& model,
                                    std::vector<Collective>& collectives)
{
    const Trace& t = ctx.trace;
    const auto sl = t.slices();
    const auto& tracks = t.tracks();

    // The steps the producer marked (Trace::steps) on host threads; a number seen twice keeps
    // its longest slice.
    std::map<int, StepSpan> byNumber;
    for (const StepMark& m : t.steps()) {
        const Slice& s = sl[m.event];
        if (ctx.roles[s.track] != TrackRole::Host) continue;
        StepSpan& sp = byNumber[m.number];
        if (sp.event == kNone || s.dur > sp.end - sp.start)
            sp = StepSpan{m.number, m.event, s.start, s.end()};
    }
    if (byNumber.empty()) return {};
    std::vector<StepSpan> steps;
    steps.reserve(byNumber.size());
    for (auto& [n, sp] : byNumber)
        steps.push_back(sp);
    std::sort(steps.begin(), steps.end(),
              [](const StepSpan& a, const StepSpan& b) { return a.start < b.start; });

    auto stepAt = [&](TimeNs time) -> int {
        auto it = std::upper_bound(steps.begin(), steps.end(), time,
                                   [](TimeNs v, const StepSpan& s) { return v < s.start; });
        if (it == steps.begin()) return -1;
        --it;
        return time < it->end ? int(it - steps.begin()) : -1;
    };
    auto launchOf = [&](EventId dev) -> EventId {
        auto it = std::lower_bound(ctx.launch.begin(), ctx.launch.end(), std::make_pair(dev, 0u));
        return it != ctx.launch.end() && it->first == dev ? it->second : kNone;
    };
    // Device work belongs to the step whose host op launched it, else to the step its device
    // start falls in.
    auto stepOfDevice = [&](EventId dev, EventId host) -> int {
        if (host == kNone) host = launchOf(dev);
        if (host != kNone) {
            const int s = stepAt(sl[host].start);
            if (s >= 0) return s;
        }
        return stepAt(sl[dev].start);
    };

    std::vector<Intervals> compute(steps.size()), comm(steps.size()), unassignedCompute(1);
    std::vector<TimeNs> memcpyNs(steps.size(), 0);

    for (Collective& c : collectives) {
        const int s = stepOfDevice(c.event, c.hostEvent);
        if (s < 0) continue;
        c.step = steps[std::size_t(s)].number;
        comm[std::size_t(s)].emplace_back(c.start, c.start + c.dur);
        memcpyNs[std::size_t(s)] += c.memcpyNs;
    }

    model.prepareComputing(ctx, collectives);
    for (TrackId tr = 0; tr < tracks.size(); ++tr) {
        const TrackRole role = ctx.roles[tr];
        if (!isStreamRole(role)) continue;
        for (EventId e = tracks[tr].begin; e < tracks[tr].end; ++e) {
            const Slice& s = sl[e];
            if (s.dur <= 0 || !model.isComputing(ctx, e)) continue;
            const int st = stepOfDevice(e, kNone);
            if (st >= 0)
                compute[std::size_t(st)].emplace_back(s.start, s.end());
            else
                unassignedCompute[0].emplace_back(s.start, s.end());
        }
    }

    std::vector<StepStats> out;
    if (model.stepWindow() == ProducerModel::StepWindow::Device) {
        // Every compute task of the trace, not only those a step launched: the lanes are
        // the whole trace's.
        std::vector<std::pair<TimeNs, TimeNs>> all, ops;
        for (const Intervals& iv : compute)
            all.insert(all.end(), iv.begin(), iv.end());
        for (const Intervals& iv : unassignedCompute)
            all.insert(all.end(), iv.begin(), iv.end());
        for (const Collective& c : collectives)
            ops.emplace_back(c.start, c.start + c.dur);
        out = deviceWindowSteps(ctx, steps, all, ops, memcpyNs);
        std::sort(out.begin(), out.end(),
                  [](const StepStats& a, const StepStats& b) { return a.step < b.step; });
        return out;
    }
    for (std::size_t i = 0; i < steps.size(); ++i) {
        StepStats st;
        st.step = steps[i].number;
        st.rank = t.rank();
        st.event = steps[i].event;
        st.start = steps[i].start;
        st.end = steps[i].end;
        const Intervals cu = mergeIntervals(compute[i]);
        const Intervals mu = mergeIntervals(comm[i]);
        Intervals all = cu;
        all.insert(all.end(), mu.begin(), mu.end());
        const Intervals au = mergeIntervals(std::move(all));
        for (const auto& [a, b] : cu)
            st.computing += b - a;
        for (const auto& [a, b] : mu)
            st.communication += b - a;
        st.overlapped = intersectionLength(cu, mu);
        st.communicationNotOverlapped = st.communication - st.overlapped;
        if (!au.empty()) {
            st.busyStart = au.front().first;
            st.busyEnd = au.back().second;
            TimeNs busy = 0;
            for (const auto& [a, b] : au)
                busy += b - a;
            st.free = st.busyEnd - st.busyStart - busy;
        }
        st.internalMemcpy = memcpyNs[i];
        out.push_back(st);
    }
    std::sort(out.begin(), out.end(),
              [](const StepStats& a, const StepStats& b) { return a.step < b.step; });
    return out;
}

} // namespace rs::analysis
