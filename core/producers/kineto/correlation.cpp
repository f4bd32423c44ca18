#include "core/producers/kineto/correlation.h"

#include <algorithm>
#include <charconv>
#include <string_view>
#include <utility>
#include <vector>

namespace rs::kineto {

std::optional<std::uint64_t> correlationOf(const Trace& t, EventId e)
{
    const std::string_view a = t.argsText(e);
    const std::size_t k = a.find("\"correlation\"");
    if (k == std::string_view::npos) return std::nullopt;
    std::size_t i = a.find(':', k);
    if (i == std::string_view::npos) return std::nullopt;
    ++i;
    while (i < a.size() && (a[i] == ' ' || a[i] == '"'))
        ++i;
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(a.data() + i, a.data() + a.size(), v);
    if (ec != std::errc() || p == a.data() + i) return std::nullopt;
    return v;
}

ImpliedFlows launchFlowsByCorrelation(const Trace& t)
{
    ImpliedFlows out;
    out.category = "ac2g";
    out.how = "to their runtime calls by correlation id";
    const auto sl = t.slices();
    const auto& tracks = t.tracks();
    std::vector<std::pair<std::uint64_t, EventId>> want; // correlation, device event
    for (TrackId tr = 0; tr < tracks.size(); ++tr) {
        if (tracks[tr].role != TrackRole::GpuStream) continue;
        for (EventId e = tracks[tr].begin; e < tracks[tr].end; ++e)
            if (!(sl[e].flags & kSliceFlowIn) && isDeviceWork(t.kind(e)))
                if (const auto c = correlationOf(t, e)) want.emplace_back(*c, e);
    }
    if (want.empty()) return out;
    std::sort(want.begin(), want.end());
    for (TrackId tr = 0; tr < tracks.size(); ++tr) {
        if (!isHostRole(tracks[tr].role)) continue;
        for (EventId e = tracks[tr].begin; e < tracks[tr].end; ++e) {
            if (t.kind(e) != SliceKind::Launch) continue;
            const auto c = correlationOf(t, e);
            if (!c) continue;
            auto it = std::lower_bound(want.begin(), want.end(), std::make_pair(*c, EventId(0)));
            for (; it != want.end() && it->first == *c; ++it)
                out.links.push_back({e, it->second, *c});
        }
    }
    return out;
}

} // namespace rs::kineto
