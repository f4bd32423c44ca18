#include "core/timeconv.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace rs {

namespace {

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RS_SWAR_DIGITS 1
// SWAR over eight bytes (the first in the low byte): a µs timestamp's 13-16 digits take two
// loads and a few multiplies instead of a multiply-add and a check a digit, and the point is
// found without a loop.
constexpr std::uint64_t kZeros = 0x3030303030303030ull;

std::uint64_t load8(const char* p)
{
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// The high bit of each byte that is not an ASCII digit. Exact up to the first such byte (a
// borrow or carry from it may mark bytes after it), which is all the callers use.
std::uint64_t nonDigits(std::uint64_t v)
{
    return ((v + 0x4646464646464646ull) | (v - kZeros)) & 0x8080808080808080ull;
}

// The value of eight digit bytes.
std::uint64_t eightValue(std::uint64_t v)
{
    v -= kZeros;
    v = (v * 10) + (v >> 8); // pairs of digits
    return (((v & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
            (((v >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
           32;
}

// The value of the first k (1..7) of the eight bytes at p, all digits: moved to the top, '0's
// shifted in below them.
std::uint64_t leadingValue(const char* p, std::size_t k)
{
    const unsigned drop = unsigned(8 - k) * 8;
    return eightValue((load8(p) << drop) | (kZeros >> (64 - drop)));
}

// The value of the k (1..16) digits at p; reads only [p, p + max(k, 8)).
std::uint64_t digitsValue(const char* p, std::size_t k)
{
    if (k == 8) return eightValue(load8(p));
    if (k < 8) return leadingValue(p, k);
    const std::uint64_t tail = eightValue(load8(p + k - 8)); // the last eight
    return (k == 16 ? eightValue(load8(p)) : leadingValue(p, k - 8)) * 100000000 + tail;
}
#endif

bool isDigit(char c)
{
    return static_cast<unsigned char>(c - '0') <= 9;
}

} // namespace

std::optional<TimeNs> parsePlainMicrosToNs(std::string_view t)
{
    const char* p = t.data();
    const std::size_t n = t.size();
    std::size_t i = 0; // past the integer digits
    std::uint64_t us = 0;
#ifdef RS_SWAR_DIGITS
    if (n >= 8) {
        // Where the integer digits end, eight bytes at a time; then their value from at most two
        // loads, all inside the text.
        if (const std::uint64_t nd = nonDigits(load8(p))) {
            i = std::size_t(__builtin_ctzll(nd)) / 8;
        } else if (n >= 16) {
            const std::uint64_t nd2 = nonDigits(load8(p + 8));
            i = nd2 ? 8 + std::size_t(__builtin_ctzll(nd2)) / 8 : 16;
        } else {
            for (i = 8; i < n && isDigit(p[i]); ++i) {
            }
        }
        if (i == 0) return std::nullopt;
        us = digitsValue(p, i);
    } else
#endif
    {
        for (; i < n && isDigit(p[i]); ++i) {
            if (i == 16) return std::nullopt;
            us = us * 10 + static_cast<unsigned>(p[i] - '0');
        }
        if (i == 0) return std::nullopt;
    }
    if (i < n && isDigit(p[i])) return std::nullopt; // more than 16: the general path's
    std::uint64_t ns = us * 1000;
    if (i < n) {
        if (p[i] != '.') return std::nullopt;
        if (n - i == 4 && isDigit(p[i + 1]) && isDigit(p[i + 2]) && isDigit(p[i + 3])) {
            // Three decimals (Kineto's and torch_npu's %.3f): the nanoseconds as they are.
            ns += unsigned(p[i + 1] - '0') * 100 + unsigned(p[i + 2] - '0') * 10 +
                  unsigned(p[i + 3] - '0');
        } else {
            constexpr unsigned kScale[3] = {100, 10, 1};
            for (std::size_t k = 0; ++i < n; ++k) {
                const unsigned d = static_cast<unsigned char>(p[i]) - unsigned('0');
                if (d > 9) return std::nullopt;
                if (k < 3)
                    ns += kScale[k] * d;
                else if (k == 3 && d >= 5)
                    ++ns; // the first digit past the nanosecond
            }
        }
    }
    if (ns > std::uint64_t(kMaxAbsTimeNs)) return std::nullopt;
    return static_cast<TimeNs>(ns);
}

std::optional<TimeNs> parseMicrosToNs(std::string_view text)
{
    // Trim blanks: some producers pad numbers in strings.
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
    if (text.empty()) return std::nullopt;

    std::size_t i = 0;
    bool negative = false;
    if (text[i] == '-' || text[i] == '+') {
        negative = text[i] == '-';
        ++i;
    }
    if (const auto fast = parsePlainMicrosToNs(text.substr(i))) return negative ? -*fast : *fast;
    // Collect up to 40 significant digits and where the decimal point falls.
    char digitBuf[41];
    std::string_view digits; // grows within digitBuf: no allocation for long timestamps
    int pointPos = -1;
    bool anyDigit = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c >= '0' && c <= '9') {
            anyDigit = true;
            if (digits.empty() && c == '0' && pointPos < 0)
                continue; // leading zeros of the integer part
            if (digits.size() == 40) return std::nullopt;
            digitBuf[digits.size()] = c;
            digits = std::string_view(digitBuf, digits.size() + 1);
        } else if (c == '.' && pointPos < 0) {
            pointPos = static_cast<int>(digits.size());
        } else {
            break;
        }
    }
    if (!anyDigit) return std::nullopt;
    if (pointPos < 0) pointPos = static_cast<int>(digits.size());
    long exponent = 0;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool expNeg = false;
        if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
            expNeg = text[i] == '-';
            ++i;
        }
        if (i >= text.size()) return std::nullopt;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
            exponent = exponent * 10 + (text[i] - '0');
            if (exponent > 1000) return std::nullopt;
        }
        if (expNeg) exponent = -exponent;
    }
    if (i != text.size()) return std::nullopt;

    // Value = 0.digits * 10^(pointPos + exponent) microseconds; nanoseconds shift by 3 more.
    const long intDigits = pointPos + exponent + 3; // digits before the ns point
    if (intDigits > 19) return std::nullopt;
    unsigned __int128 value = 0;
    for (long k = 0; k < intDigits; ++k) {
        const int d = k < static_cast<long>(digits.size()) ? digits[k] - '0' : 0;
        value = value * 10 + static_cast<unsigned>(d);
    }
    // Round half away from zero on the first dropped digit.
    if (intDigits >= 0 && intDigits < static_cast<long>(digits.size()) && digits[intDigits] >= '5')
        value += 1;
    const auto limit = static_cast<unsigned __int128>(kMaxAbsTimeNs);
    if (value > limit) return std::nullopt;
    const auto result = static_cast<TimeNs>(value);
    return negative ? -result : result;
}

std::string formatCount(std::uint64_t n)
{
    const std::string digits = std::to_string(n);
    std::string out;
    out.reserve(digits.size() + digits.size() / 3);
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
        out.push_back(digits[i]);
    }
    return out;
}

std::string formatDuration(TimeNs ns)
{
    const double v = static_cast<double>(ns);
    const double a = std::fabs(v);
    const char* unit = "ns";
    double scaled = v;
    if (a >= 1e9) {
        unit = "s";
        scaled = v / 1e9;
    } else if (a >= 1e6) {
        unit = "ms";
        scaled = v / 1e6;
    } else if (a >= 1e3) {
        unit = "µs";
        scaled = v / 1e3;
    }
    const double as = std::fabs(scaled);
    const int decimals = (unit[0] == 'n' && unit[1] == 's') ? 0 : as >= 100 ? 0 : as >= 10 ? 1 : 2;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f %s", decimals, scaled, unit);
    return buf;
}

} // namespace rs
