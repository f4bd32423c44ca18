#pragma once

// The model's invariants, checked by the fuzz targets on every trace they build: a violation
// is a bug like a crash.

#include "core/trace.h"

#include <cstdio>
#include <cstdlib>

namespace rs::fuzz {

// An invariant the viewer and the analyses rely on; a violation is a bug like a crash.
inline void check(bool ok, const char* what)
{
    if (!ok) {
        std::fprintf(stderr, "invariant violated: %s\n", what);
        std::abort();
    }
}

inline void checkTrace(const rs::Trace& t)
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

} // namespace rs::fuzz
