#pragma once

#include "core/trace.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rs {

// Level-of-detail data for folding narrow slices without reading the Slice array.
//
// A zoomed-out frame folds each row's slices narrower than the fold width C (in ns) into
// blocks: slice m joins the block of slice m-1 when both its duration and its gap to slice
// m-1 are below C. So one number per slice decides where blocks end,
//     breakKey(m) = max(dur(m), start(m) - end(m-1)),
// and one more picks the block's colour, dur(m). Both are kept as one-byte monotone codes
// (quarter octaves), with a max pyramid (one byte per 64 below) over each, so finding the
// end of a block of any length reads a few hundred bytes of compact data. Only when a code
// equals the threshold's code is the slice itself read to decide exactly; such slices are
// at least ~0.8 C long, so there are at most a few per pixel column.

// One byte, monotone in v: 0 for v <= 0, then 4 steps per power of two.
std::uint8_t lodCode(TimeNs v);

// Max pyramid over a byte array: level 0 is the array, level k+1 holds the maximum of each
// 64 consecutive level-k entries.
class MaxPyramid {
public:
    static constexpr std::size_t kFan = 64;

    void build(std::vector<std::uint8_t> base);
    const std::vector<std::uint8_t>& base() const { return m_levels.front(); }
    std::uint8_t at(std::size_t i) const { return m_levels.front()[i]; }
    // First i in [from, to) with at(i) >= c, or `to`.
    std::size_t firstAtLeast(std::size_t from, std::size_t to, std::uint8_t c) const;
    // Maximum of at(i) over [from, to); 0 when empty.
    std::uint8_t maxIn(std::size_t from, std::size_t to) const;
    std::size_t bytes() const;

private:
    std::vector<std::vector<std::uint8_t>> m_levels{1};
};

} // namespace rs
