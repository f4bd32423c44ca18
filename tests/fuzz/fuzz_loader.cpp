// libFuzzer entry point for the trace loader: any bytes (JSON, gzip, garbage) must load or
// fail with a message, never crash, hang or build a model that breaks its own invariants; and
// cut into pieces of a few dozen bytes (each built into a partial model, then absorbed), they
// must give the model of one piece.
#include "core/parallelloader.h"
#include "core/traceloader.h"
#include "tests/fuzz/checktrace.h"
#include "tests/support/modeldump.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

using rs::fuzz::check;
using rs::fuzz::checkTrace;

// What must not depend on how the text was cut into pieces: the outcome and the whole model.
std::string fingerprint(const rs::LoadResult& r)
{
    return std::to_string(int(r.status)) + " " + std::to_string(int(r.stop)) + " " + r.message +
           "\n" + (r.trace ? rs::test::dumpModelText(*r.trace) : std::string());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    rs::LoadOptions options;
    // Small budget: a bomb in the corpus must be refused, not exhaust the fuzzer's RSS limit.
    options.maxMemoryBytes = 256ull << 20;
    const rs::LoadResult r =
        rs::loadTraceFromMemory(reinterpret_cast<const char*>(data), size, options, "<fuzz>");
    check(r.complete() || !r.message.empty(), "a failed load says why");
    if (r.trace) checkTrace(*r.trace);
    rs::ParallelOptions pieces;
    pieces.chunkBytes = 64 + (size ? data[size / 2] : 0);
    const rs::LoadResult cut =
        rs::loadTraceBytes(reinterpret_cast<const char*>(data), size, "<fuzz>", options, pieces);
    check(fingerprint(cut) == fingerprint(r), "pieces of any size give one piece's model");
    return 0;
}
