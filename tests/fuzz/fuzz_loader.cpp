// libFuzzer entry point for the trace loader: any bytes (JSON, gzip, garbage) must load or
// fail with a message, never crash, hang or build a model that breaks its own invariants; and
// cut into pieces of a few dozen bytes (each built into a partial model, then absorbed), they
// must give the model of one piece.
#include "core/parallelloader.h"
#include "core/traceloader.h"
#include "tests/support/modeldump.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// An invariant the viewer and the analyses rely on; a violation is a bug like a crash.
void check(bool ok, const char* what)
{
    if (!ok) {
        std::fprintf(stderr, "invariant violated: %s\n", what);
        std::abort();
    }
}

void checkTrace(const rs::Trace& t)
{
    const auto slices = t.slices();
    const std::size_t n = slices.size();
    for (rs::TrackId k = 0; k < t.tracks().size(); ++k) {
        const rs::Track& tr = t.tracks()[k];
        check(tr.begin <= tr.end && tr.end <= n, "track slice range inside slices()");
        check(tr.process < t.processes().size(), "track process valid");
        (void)t.trackLabel(k);
        auto sl = t.trackSlices(k);
        for (std::size_t i = 0; i < sl.size(); ++i) {
            check(sl[i].track == k, "slice on its track");
            check(i == 0 || sl[i - 1].start <= sl[i].start, "track slices sorted by start");
        }
        if (!sl.empty()) {
            (void)t.sliceAt(k, sl.front().start);
            (void)t.sliceAt(k, sl.back().end());
            (void)t.firstSliceEndingAfter(k, sl.front().start);
        }
    }
    for (rs::ProcessId p = 0; p < t.processes().size(); ++p)
        (void)t.processLabel(p);
    for (rs::EventId e = 0; e < n; ++e) {
        const rs::Slice& s = slices[e];
        check(s.dur >= 0, "slice duration >= 0");
        check(s.parent == rs::kNone || s.parent < n, "slice parent valid");
        check(s.track < t.tracks().size(), "slice track valid");
        (void)t.args(e);
        (void)t.flowsFrom(e);
        // Walking a stack must end, whatever cycles the file's stackFrames hold.
        std::size_t steps = 0;
        for (std::uint32_t f = t.eventStackFrame(e); f != rs::kNone;
             f = t.stackFrames()[f].parent) {
            check(f < t.stackFrames().size(), "stack frame valid");
            check(++steps <= t.stackFrames().size(), "stack walk terminates");
        }
    }
    for (const rs::Flow& f : t.flows())
        check(f.from < n && f.to < n, "flow ends valid");
    for (const rs::CounterSeries& c : t.counters())
        check(c.ts.size() == c.values.size(), "counter series lengths");
    check(t.startNs() <= t.endNs(), "trace span ordered");
}

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
