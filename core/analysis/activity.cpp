#include "core/analysis/activity.h"

#include "core/analysis/analysisutil.h"

#include <algorithm>
#include <vector>

namespace rs {

namespace {

constexpr int kBins = 2000;
constexpr double kOutlierShare = 0.01; // a group this small at an end is an outlier ...
constexpr int kGapBins = kBins / 10;   // ... when this wide an idle gap separates it

} // namespace

std::optional<std::pair<TimeNs, TimeNs>> activityExtent(const Trace& trace)
{
    const std::vector<TrackRole> roles = analysis::trackRoles(trace);
    std::vector<TrackId> tracks;
    for (TrackId t = 0; t < trace.tracks().size(); ++t)
        if (t < roles.size() && isDeviceRole(roles[t]) && !trace.trackSlices(t).empty())
            tracks.push_back(t);
    if (tracks.empty())
        for (TrackId t = 0; t < trace.tracks().size(); ++t)
            if (!trace.trackSlices(t).empty()) tracks.push_back(t);
    if (tracks.empty()) return std::nullopt;

    TimeNs lo = 0, hi = 0;
    bool any = false;
    for (TrackId t : tracks)
        for (const Slice& s : trace.trackSlices(t)) {
            lo = any ? std::min(lo, s.start) : s.start;
            hi = any ? std::max(hi, s.end()) : s.end();
            any = true;
        }
    if (hi <= lo) return std::make_pair(lo, std::max(hi, lo + 1));
    // Slices binned over [lo, hi]: how many start in each bin, and how many cover it.
    const double width = double(hi - lo) / kBins;
    auto bin = [&](TimeNs t) {
        return std::clamp(static_cast<int>(double(t - lo) / width), 0, kBins - 1);
    };
    std::vector<std::uint64_t> starts(kBins, 0);
    std::vector<std::int64_t> cover(kBins + 1, 0);
    std::uint64_t total = 0;
    for (TrackId t : tracks)
        for (const Slice& s : trace.trackSlices(t)) {
            ++starts[static_cast<std::size_t>(bin(s.start))];
            ++cover[static_cast<std::size_t>(bin(s.start))];
            --cover[static_cast<std::size_t>(bin(s.end())) + 1];
            ++total;
        }
    // Groups: runs of covered bins, split only where nothing runs for kGapBins bins.
    struct Group {
        int first, last;
        std::uint64_t slices;
    };
    std::vector<Group> groups;
    std::int64_t running = 0;
    int idle = kGapBins;
    for (int b = 0; b < kBins; ++b) {
        running += cover[static_cast<std::size_t>(b)];
        if (running <= 0) {
            ++idle;
            continue;
        }
        if (idle >= kGapBins || groups.empty()) groups.push_back({b, b, 0});
        groups.back().last = b;
        groups.back().slices += starts[static_cast<std::size_t>(b)];
        idle = 0;
    }
    // Small groups at either end, far more slices past them: outliers (a process-start marker,
    // a lone late slice). A long slice covering the gap keeps it one group.
    const auto outlierMax =
        std::max<std::uint64_t>(1, static_cast<std::uint64_t>(double(total) * kOutlierShare));
    std::size_t g0 = 0, g1 = groups.size();
    std::uint64_t dropped = 0;
    auto droppable = [&](const Group& g) {
        const std::uint64_t rest = total - dropped - g.slices;
        return dropped + g.slices <= outlierMax && rest >= 20 * (dropped + g.slices);
    };
    while (g1 - g0 > 1 && droppable(groups[g0]))
        dropped += groups[g0++].slices;
    while (g1 - g0 > 1 && droppable(groups[g1 - 1]))
        dropped += groups[--g1].slices;
    const int b0 = groups[g0].first, b1 = groups[g1 - 1].last;
    if (g0 == 0 && g1 == groups.size()) return std::make_pair(lo, hi);
    // Exact edges: the slices that start in the kept groups.
    TimeNs a = hi, b = lo;
    for (TrackId t : tracks)
        for (const Slice& s : trace.trackSlices(t)) {
            const int sb = bin(s.start);
            if (sb < b0 || sb > b1) continue;
            a = std::min(a, s.start);
            b = std::max(b, s.end());
        }
    if (b <= a) return std::make_pair(lo, hi);
    return std::make_pair(a, b);
}

} // namespace rs
