#include "ui/timeline/timelinelod.h"

#include <algorithm>
#include <bit>

namespace rs {

std::uint8_t lodCode(TimeNs v)
{
    if (v <= 0) return 0;
    const auto u = static_cast<std::uint64_t>(v);
    const int e = 63 - std::countl_zero(u); // 0..62
    const std::uint64_t mant = e >= 2 ? (u >> (e - 2)) & 3u : (u << (2 - e)) & 3u;
    return static_cast<std::uint8_t>(1 + 4 * e + static_cast<int>(mant));
}

void MaxPyramid::build(std::vector<std::uint8_t> base)
{
    m_levels.clear();
    m_levels.push_back(std::move(base));
    while (m_levels.back().size() > kFan) {
        const std::vector<std::uint8_t>& below = m_levels.back();
        std::vector<std::uint8_t> up((below.size() + kFan - 1) / kFan, 0);
        for (std::size_t i = 0; i < below.size(); ++i)
            up[i / kFan] = std::max(up[i / kFan], below[i]);
        m_levels.push_back(std::move(up));
    }
}

namespace {

// Covers [from, to) left to right with the largest aligned pyramid entries that fit and calls
// visit(level, pos, span) on each; visit returns true to stop there.
template <typename Visit>
void walk(const std::vector<std::vector<std::uint8_t>>& levels, std::size_t from, std::size_t to,
          Visit&& visit)
{
    constexpr std::size_t kFan = MaxPyramid::kFan;
    const std::size_t top = levels.size() - 1;
    std::size_t pos = from; // element index, aligned to `span` at `level`
    std::size_t level = 0, span = 1;
    while (pos < to) {
        // Climb while a whole entry of the next level fits in what is left.
        if (level < top && pos % (span * kFan) == 0 && pos + span * kFan <= to) {
            ++level;
            span *= kFan;
            continue;
        }
        // This level's entry would reach past `to`: step down (at level 0 it always fits).
        if (level > 0 && pos + span > to) {
            --level;
            span /= kFan;
            continue;
        }
        if (visit(level, pos, span)) return;
        pos += span;
    }
}

} // namespace

std::size_t MaxPyramid::firstAtLeast(std::size_t from, std::size_t to, std::uint8_t c) const
{
    std::size_t found = to;
    walk(m_levels, from, to, [&](std::size_t level, std::size_t pos, std::size_t span) {
        if (m_levels[level][pos / span] < c) return false;
        // Descend into the entry: one of its children holds the maximum.
        while (level > 0) {
            --level;
            span /= kFan;
            std::size_t k = pos / span;
            while (m_levels[level][k] < c)
                ++k;
            pos = k * span;
        }
        found = pos;
        return true;
    });
    return found;
}

std::uint8_t MaxPyramid::maxIn(std::size_t from, std::size_t to) const
{
    std::uint8_t best = 0;
    walk(m_levels, from, to, [&](std::size_t level, std::size_t pos, std::size_t span) {
        best = std::max(best, m_levels[level][pos / span]);
        return false;
    });
    return best;
}

std::size_t MaxPyramid::bytes() const
{
    std::size_t b = 0;
    for (const auto& l : m_levels)
        b += l.capacity();
    return b;
}

} // namespace rs
