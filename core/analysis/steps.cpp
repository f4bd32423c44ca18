#include "core/analysis/steps.h"

#include <algorithm>
#include <map>

namespace rs::analysis {

namespace {

using Intervals = std::vector<std::pair<TimeNs, TimeNs>>;

struct StepSpan {
    int number = 0;
    EventId event = kNone;
    TimeNs start = 0, end = 0;
};

} // namespace

std::vector<StepStats> computeSteps(AnalysisContext& ctx, const ProducerModel& model,
                                    std::vector<Collective>& collectives)
{
    const Trace& t = ctx.trace;
    const auto sl = t.slices();
    const auto& tracks = t.tracks();

    // ProfilerStep#N on host threads; a number seen twice keeps its longest slice.
    std::map<int, StepSpan> byNumber;
    for (TrackId tr = 0; tr < tracks.size(); ++tr) {
        if (ctx.roles[tr] != TrackRole::Host) continue;
        for (EventId e = tracks[tr].begin; e < tracks[tr].end; ++e) {
            const Slice& s = sl[e];
            const std::string& name = t.str(s.name);
            if (name.size() < 13 || name[0] != 'P') continue;
            auto n = profilerStepNumber(name);
            if (!n) continue;
            StepSpan& sp = byNumber[*n];
            if (sp.event == kNone || s.dur > sp.end - sp.start)
                sp = StepSpan{*n, e, s.start, s.end()};
        }
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

    std::vector<Intervals> compute(steps.size()), comm(steps.size());
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
        if (role != TrackRole::AscendDevice && role != TrackRole::GpuStream) continue;
        for (EventId e = tracks[tr].begin; e < tracks[tr].end; ++e) {
            const Slice& s = sl[e];
            if (s.dur <= 0 || !model.isComputing(ctx, e)) continue;
            const int st = stepOfDevice(e, kNone);
            if (st >= 0) compute[std::size_t(st)].emplace_back(s.start, s.end());
        }
    }

    std::vector<StepStats> out;
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
