#include "core/compare/stepalign.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace rs {

std::vector<StepAnchor> stepAnchors(const std::vector<ReportPtr>& reports)
{
    struct Acc {
        TimeNs busyStart = 0, busyEnd = 0, hostStart = 0, hostEnd = 0;
        bool busy = false, host = false;
    };
    std::map<int, Acc> acc;
    for (const ReportPtr& r : reports) {
        if (!r) continue;
        for (const StepStats& s : r->steps) {
            Acc& a = acc[s.step];
            if (s.busyEnd > s.busyStart) {
                a.busyStart = a.busy ? std::min(a.busyStart, s.busyStart) : s.busyStart;
                a.busyEnd = a.busy ? std::max(a.busyEnd, s.busyEnd) : s.busyEnd;
                a.busy = true;
            }
            a.hostStart = a.host ? std::min(a.hostStart, s.start) : s.start;
            a.hostEnd = a.host ? std::max(a.hostEnd, s.end) : s.end;
            a.host = true;
        }
    }
    std::vector<StepAnchor> out;
    for (const auto& [n, a] : acc)
        out.push_back(a.busy ? StepAnchor{n, a.busyStart, a.busyEnd}
                             : StepAnchor{n, a.hostStart, a.hostEnd});
    return out;
}

StepAlignment::StepAlignment(std::vector<StepAnchor> a, std::vector<StepAnchor> b)
{
    auto byStep = [](const StepAnchor& x, const StepAnchor& y) { return x.step < y.step; };
    std::sort(a.begin(), a.end(), byStep);
    std::sort(b.begin(), b.end(), byStep);
    for (const StepAnchor& x : a) {
        auto it = std::lower_bound(b.begin(), b.end(), x, byStep);
        if (it != b.end() && it->step == x.step) m_pairs.emplace_back(x, *it);
    }
    m_byNumber = !m_pairs.empty();
    if (!m_byNumber) {
        // No common number: the i-th profiled step of one over the i-th of the other.
        for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
            m_pairs.emplace_back(a[i], b[i]);
    }
    std::stable_sort(m_pairs.begin(), m_pairs.end(),
                     [](const auto& x, const auto& y) { return x.first.start < y.first.start; });
    m_byB.resize(m_pairs.size());
    std::iota(m_byB.begin(), m_byB.end(), std::size_t(0));
    std::stable_sort(m_byB.begin(), m_byB.end(), [&](std::size_t x, std::size_t y) {
        return m_pairs[x].second.start < m_pairs[y].second.start;
    });
}

std::optional<TimeNs> StepAlignment::map(TimeNs t, bool fromA, std::optional<TimeNs> pickAt) const
{
    if (m_pairs.empty()) return std::nullopt;
    const TimeNs at = pickAt ? *pickAt : t;
    // The last pair whose anchor on the given side starts at or before t.
    std::size_t pick = 0;
    if (fromA) {
        auto it = std::upper_bound(m_pairs.begin(), m_pairs.end(), at,
                                   [](TimeNs v, const auto& p) { return v < p.first.start; });
        pick = it == m_pairs.begin() ? 0 : std::size_t(it - m_pairs.begin()) - 1;
    } else {
        auto it = std::upper_bound(m_byB.begin(), m_byB.end(), at, [&](TimeNs v, std::size_t i) {
            return v < m_pairs[i].second.start;
        });
        pick = it == m_byB.begin() ? m_byB.front() : *(it - 1);
    }
    const auto& [pa, pb] = m_pairs[pick];
    return fromA ? pb.start + (t - pa.start) : pa.start + (t - pb.start);
}

std::optional<std::pair<StepAnchor, StepAnchor>> StepAlignment::pairOf(int step, bool fromA) const
{
    for (const auto& p : m_pairs)
        if ((fromA ? p.first.step : p.second.step) == step) return p;
    return std::nullopt;
}

} // namespace rs
