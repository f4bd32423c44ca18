#include "core/timeconv.h"

#include "core/swardigits.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace rs {

namespace {

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
    using namespace swar;
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
