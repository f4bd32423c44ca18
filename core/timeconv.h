#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rs {

using TimeNs = std::int64_t;

// Largest time or duration a trace may hold (about 146 years): within it, the difference or
// sum of any two times fits in int64, so no code needs to guard its subtractions. The loader
// treats a ts or dur beyond it as a bad field.
constexpr TimeNs kMaxAbsTimeNs = TimeNs(1) << 62;

// Converts a decimal number of microseconds, as written in a trace ("1736408883732241.564",
// "12.5", "-3", "1.2e3"), to integer nanoseconds without passing through a double, so
// nanosecond digits survive. Digits beyond the nanosecond are rounded half away from zero.
// Returns nullopt for text that is not a number or whose magnitude exceeds kMaxAbsTimeNs.
std::optional<TimeNs> parseMicrosToNs(std::string_view text);
// The same for the plain shape alone, digits[.digits] with at most 16 before the point (what
// producers write): nullopt for anything else (a sign, blanks, an exponent), which
// parseMicrosToNs then reads. The loader's path for every ts and dur.
std::optional<TimeNs> parsePlainMicrosToNs(std::string_view text);

// A count with thousands separators: 67108864 -> "67,108,864".
std::string formatCount(std::uint64_t n);

// Human text for a duration: 3 significant digits in the unit that fits (ns, µs, ms, s).
std::string formatDuration(TimeNs ns);

} // namespace rs
