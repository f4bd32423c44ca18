#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

namespace rs::tracegen {

// Shapes of the real producers' output (see docs/trace-formats.md in ../shared).
enum class Shape {
    Kineto,   // {"traceEvents":[...], deviceProperties, distributedInfo}, pretty-printed
    TorchNpu, // bare array on one line, string ts with ns digits, pids above 2^32
};

struct LargeTraceOptions {
    Shape shape = Shape::Kineto;
    std::uint64_t targetBytes = 100ull << 20; // stops at the first step boundary past this
    std::uint64_t seed = 1;
    int rank = 0;
};

// What was written, so tests and the benchmark can check a load against it.
struct LargeTraceStats {
    std::uint64_t bytes = 0;
    std::uint64_t events = 0;                    // entries of the event array
    std::map<std::string, std::uint64_t> phases; // per phase, e.g. "X" -> n
    std::uint64_t steps = 0;
    std::uint64_t collectives = 0; // device-side AllReduce ops
};

// Streams a synthetic trace of about targetBytes to out, never holding it in memory.
// Deterministic for a given options value. Returns false on a write error.
bool writeLargeTrace(std::FILE* out, const LargeTraceOptions& options, LargeTraceStats* stats);
bool writeLargeTrace(const std::string& path, const LargeTraceOptions& options,
                     LargeTraceStats* stats, std::string* error);

// "100M", "1G", "512K", "12345" -> bytes; 0 when the text is not a size.
std::uint64_t parseSize(const std::string& text);

} // namespace rs::tracegen
