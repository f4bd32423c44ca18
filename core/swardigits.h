#pragma once

// ASCII digits read eight bytes at a time (SWAR), for the time parser (core/timeconv.cpp) and
// the JSON tokenizer's numbers (core/jsontokenizer.cpp). Little-endian only: RS_SWAR_DIGITS
// says whether they exist.

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RS_SWAR_DIGITS 1

namespace rs::swar {

// Eight bytes at a time, the first in the low byte: a µs timestamp's 13-16 digits take two
// loads and a few multiplies instead of a multiply-add and a check a digit (and a loop whose
// length varies by field), and where the digits end is found without a loop.
inline constexpr std::uint64_t kZeros = 0x3030303030303030ull;

inline std::uint64_t load8(const char* p)
{
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// The high bit of each byte that is not an ASCII digit. Exact up to the first such byte (a
// borrow or carry from it may mark bytes after it), which is all the callers use.
inline std::uint64_t nonDigits(std::uint64_t v)
{
    return ((v + 0x4646464646464646ull) | (v - kZeros)) & 0x8080808080808080ull;
}

// The value of eight digit bytes.
inline std::uint64_t eightValue(std::uint64_t v)
{
    v -= kZeros;
    v = (v * 10) + (v >> 8); // pairs of digits
    return (((v & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
            (((v >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
           32;
}

// The value of the first k (1..7) of the eight bytes at p, all digits: moved to the top, '0's
// shifted in below them.
inline std::uint64_t leadingValue(const char* p, std::size_t k)
{
    const unsigned drop = unsigned(8 - k) * 8;
    return eightValue((load8(p) << drop) | (kZeros >> (64 - drop)));
}

// The value of the k (1..16) digits at p; reads only [p, p + max(k, 8)).
inline std::uint64_t digitsValue(const char* p, std::size_t k)
{
    if (k == 8) return eightValue(load8(p));
    if (k < 8) return leadingValue(p, k);
    const std::uint64_t tail = eightValue(load8(p + k - 8)); // the last eight
    return (k == 16 ? eightValue(load8(p)) : leadingValue(p, k - 8)) * 100000000 + tail;
}

} // namespace rs::swar
#endif
