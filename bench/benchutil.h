#pragma once

// Process memory readings shared by the benchmarks (Linux /proc).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace rs::bench {

// A field of /proc/self/status in bytes (VmRSS, VmHWM).
inline std::uint64_t statusBytes(const char* key)
{
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    std::uint64_t kb = 0;
    const std::size_t n = std::strlen(key);
    while (std::fgets(line, sizeof line, f)) {
        if (std::strncmp(line, key, n) == 0 && line[n] == ':') {
            kb = std::strtoull(line + n + 1, nullptr, 10);
            break;
        }
    }
    std::fclose(f);
    return kb * 1024;
}

// Resets VmHWM to the current RSS (Linux >= 4.0), so each phase gets its own peak.
inline void resetPeak()
{
    if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
        std::fputs("5", f);
        std::fclose(f);
    }
}

} // namespace rs::bench
