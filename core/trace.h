#pragma once

#include "core/slicekind.h"
#include "core/stringpool.h"
#include "core/timeconv.h"
#include "core/trackrole.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rs {

class Producer;

// EventId (index into Trace::slices()) is declared in core/slicekind.h.
using TrackId = std::uint32_t;   // index into Trace::tracks()
using ProcessId = std::uint32_t; // index into Trace::processes()
constexpr std::uint32_t kNone = 0xffffffffu;

enum SliceFlag : std::uint8_t {
    kSliceUnterminated = 1 << 0,   // B without E: closed at the end of the trace
    kSlicePartialOverlap = 1 << 1, // overlaps its parent's end (kept, Kineto GPU streams do this)
    kSliceFlowOut = 1 << 2,        // has an outgoing flow
    kSliceFlowIn = 1 << 3,         // has an incoming flow
    kSliceInstant = 1 << 4,        // i/I/n event (dur 0)
    kSliceAsync = 1 << 5,          // from b/e/n async events
};

// One slice (X, paired B/E, instant, async). 40 bytes; slices of one track are contiguous
// in Trace::slices(), sorted by start (ties: longer first).
struct Slice {
    TimeNs start = 0; // ns
    TimeNs dur = 0;   // ns, >= 0
    StrId name = 0;
    StrId cat = 0;
    TrackId track = kNone;
    EventId parent = kNone;     // enclosing slice on the same track
    std::uint32_t args = kNone; // index into the args arena, kNone when the event had none
    std::uint16_t depth = 0;
    char phase = 'X'; // phase as written ('X', 'B', 'i', 'b', ...)
    std::uint8_t flags = 0;

    TimeNs end() const { return start + dur; }
};
static_assert(sizeof(Slice) == 40);

enum class TrackKind : std::uint8_t { Thread, Async, Counter };

struct Track {
    ProcessId process = kNone;
    TrackKind kind = TrackKind::Thread;
    std::string tid; // as written (decimal for numbers); for async tracks the async name
    StrId name = 0;  // thread_name metadata, else 0
    int sortIndex = 0;
    bool hasSortIndex = false;
    EventId begin = 0, end = 0; // slice range [begin, end)
    std::uint16_t maxDepth = 0;
    std::uint32_t counter = kNone;     // for Counter tracks: index into Trace::counters()
    std::uint64_t events = 0;          // trace events attributed to this track (all phases)
    TrackRole role = TrackRole::Other; // decided by the producer when the trace is built
};

struct Process {
    std::string pid; // as written (decimal for numbers, also above 2^32)
    bool pidIsNumber = true;
    StrId name = 0;                  // process_name metadata, else 0
    std::vector<std::string> labels; // process_labels
    int sortIndex = 0;
    bool hasSortIndex = false;
    std::vector<TrackId>
        tracks; // thread tracks first (by sort index, then tid), then async, counters
    std::uint64_t events = 0;
};

struct CounterSeries {
    ProcessId process = kNone;
    StrId name = 0;         // event name
    StrId key = 0;          // args key ("value" for single-key counters as written)
    std::vector<TimeNs> ts; // sorted
    std::vector<double> values;
};

// A flow arrow between two slices (s/t/f steps chained in order, or flow v2 bind ids).
struct Flow {
    EventId from = kNone;
    EventId to = kNone;
    StrId cat = 0;
    StrId name = 0;
    std::uint64_t id = 0; // numeric id (exact above 2^53), or hash of a string id
    // Id as written when it was not a plain decimal integer ("0x1f", "a-7", "-3"); 0 for
    // numeric ids, which are not interned (one string per flow would cost ~16 bytes an
    // event). Trace::flowIdText() gives the text for both.
    StrId idText = 0;
    bool idIsText = false;
};

struct StackFrame {
    StrId name = 0;
    StrId category = 0;
    std::uint32_t parent = kNone; // index into Trace::stackFrames()
};

struct LoadStats {
    std::uint64_t events = 0;                    // entries of the event array that were objects
    std::map<std::string, std::uint64_t> phases; // per phase as written, e.g. "X" -> 4384
    std::uint64_t unknownPhase = 0;
    std::uint64_t badFields = 0;     // events dropped or fixed for a bad ts/dur/pid/...
    std::uint64_t unmatchedEnd = 0;  // E without B
    std::uint64_t unterminated = 0;  // B without E
    std::uint64_t danglingFlows = 0; // flow steps with no slice to bind to
    std::uint64_t bytesRead = 0;
    bool truncated = false;
};

// An immutable, loaded trace. Shared across threads as std::shared_ptr<const Trace>.
class Trace {
public:
    Trace();
    Trace(const Trace&) = delete;
    Trace& operator=(const Trace&) = delete;

    const std::string& str(StrId id) const { return m_strings.str(id); }
    const StringPool& strings() const { return m_strings; }

    std::span<const Slice> slices() const
    {
        return m_backing ? m_mappedSlices : std::span<const Slice>(m_slices);
    }
    const Slice& slice(EventId id) const { return slices()[id]; }
    std::span<const Slice> trackSlices(TrackId t) const
    {
        return slices().subspan(m_tracks[t].begin, m_tracks[t].end - m_tracks[t].begin);
    }
    const std::vector<Track>& tracks() const { return m_tracks; }
    const std::vector<Process>& processes() const { return m_processes; }
    const std::vector<CounterSeries>& counters() const { return m_counters; }
    const std::vector<Flow>& flows() const { return m_flows; }
    // A flow's id as written (decimal for numeric ids).
    std::string flowIdText(const Flow& f) const
    {
        return f.idIsText ? m_strings.str(f.idText) : std::to_string(f.id);
    }
    // Indices into flows() leaving / entering a slice.
    std::vector<std::uint32_t> flowsFrom(EventId e) const;
    std::vector<std::uint32_t> flowsTo(EventId e) const;
    // (target slice, index into flows()) of every flow, sorted by target then index: a pass
    // over all flows in their targets' order, without sorting them again.
    std::span<const std::pair<EventId, std::uint32_t>> flowsByTarget() const { return m_flowIn; }

    // What each slice is (one byte a slice, indexed by EventId), decided by the producer when
    // the trace was built (core/slicekind.h).
    std::span<const SliceKind> kinds() const
    {
        return m_backing ? m_mappedKinds : std::span<const SliceKind>(m_kinds);
    }
    SliceKind kind(EventId e) const { return kinds()[e]; }
    // The slices of kind Step with their step numbers, sorted by event.
    const std::vector<StepMark>& steps() const { return m_steps; }
    // The step number of a Step slice; nullopt for any other (binary search).
    std::optional<int> stepNumber(EventId e) const;
    // What the producer stated of the run: clock base, world size, devices.
    const RunFacts& runFacts() const { return m_facts; }

    // Raw JSON text of an event's "args" value (empty when it had none) and the parsed form
    // (an empty object also for text that is not JSON, which *notJson then says: the loader
    // checks args for structure only, core/jsontokenizer.h).
    std::string_view argsText(EventId e) const;
    nlohmann::json args(EventId e, bool* notJson = nullptr) const;

    // Stack frames from the top-level "stackFrames" and an event's "sf"/"stack" when given.
    const std::vector<StackFrame>& stackFrames() const { return m_stackFrames; }
    std::uint32_t eventStackFrame(EventId e) const; // innermost frame or kNone

    // Top-level keys other than traceEvents (displayTimeUnit, otherData, distributedInfo...).
    const nlohmann::json& metadata() const { return m_metadata; }

    const std::string& path() const { return m_path; }
    // Who wrote it (core/producers/): its name, roles and analysis. Never null.
    const Producer& producer() const { return *m_producer; }
    TrackRole role(TrackId t) const { return m_tracks[t].role; }
    std::optional<int> rank() const { return m_rank; }
    TimeNs startNs() const { return m_start; }
    TimeNs endNs() const { return m_end; }
    const LoadStats& stats() const { return m_stats; }
    const std::vector<std::string>& warnings() const { return m_warnings; }

    // Display name of a process ("HCCL", else "Process <pid>") and a track ("Stream 2", else
    // "Thread <tid>").
    std::string processLabel(ProcessId p) const;
    std::string trackLabel(TrackId t) const;
    // Deepest slice on a track that contains time t, or kNone.
    EventId sliceAt(TrackId t, TimeNs time) const;
    // The same for times that mostly increase: *hint (start with SIZE_MAX) keeps where the
    // last search on this track ended, so the next costs a few steps, not log n cache misses.
    EventId sliceAt(TrackId t, TimeNs time, std::size_t* hint) const;
    // Index within the track of its first slice starting after time, searched from *hint
    // (updated; SIZE_MAX: no hint).
    std::size_t upperBoundNear(TrackId t, TimeNs time, std::size_t* hint) const;
    // First slice on a track whose end is after t (binary search; uses that a track's slices
    // are sorted by start and ends are bounded by the max duration on the track).
    EventId firstSliceEndingAfter(TrackId t, TimeNs time) const;
    // sliceAt's walk back from the track's index upper (first slice starting after time).
    EventId sliceAtFrom(TrackId t, TimeNs time, std::size_t upper) const;
    ProcessId findProcess(std::string_view pid) const;
    TrackId findTrack(ProcessId p, std::string_view tid, TrackKind kind = TrackKind::Thread) const;
    // Estimated resident bytes of the model, args text excluded.
    std::size_t modelBytes() const;
    std::size_t argsBytes() const { return argsTextView().size() + argsOffsetsView().size() * 8; }
    // True when the big arrays are views of a model cache file's memory map (core/cache/).
    bool mapped() const { return m_backing != nullptr; }

private:
    friend class TraceBuilder;
    friend class JobTraceMerger;
    friend class TraceCodec;

    // The args arena as readers see it: the vectors below, or the cache file's map.
    std::string_view argsTextView() const
    {
        return m_backing ? m_mappedArgsText : std::string_view(m_argsText);
    }
    std::span<const std::uint64_t> argsOffsetsView() const
    {
        return m_backing ? m_mappedArgsOffsets : std::span<const std::uint64_t>(m_argsOffsets);
    }

    StringPool m_strings;
    std::vector<Slice> m_slices;
    std::vector<Track> m_tracks;
    std::vector<Process> m_processes;
    std::vector<CounterSeries> m_counters;
    std::vector<Flow> m_flows;
    // (slice, flow index) sorted by slice: a per-slice index would cost 8 bytes per event.
    std::vector<std::pair<EventId, std::uint32_t>> m_flowOut, m_flowIn;
    std::string m_argsText;
    std::vector<std::uint64_t> m_argsOffsets; // start of each args text; one extra at the end
    std::vector<StackFrame> m_stackFrames;
    std::vector<std::pair<EventId, std::uint32_t>> m_eventFrames; // sorted by EventId
    std::vector<TimeNs> m_trackMaxDur; // per track, for firstSliceEndingAfter
    std::vector<SliceKind> m_kinds;    // per slice
    std::vector<StepMark> m_steps;     // sorted by event
    RunFacts m_facts;
    nlohmann::json m_metadata = nlohmann::json::object();
    std::string m_path;
    const Producer* m_producer;
    std::optional<int> m_rank;
    TimeNs m_start = 0, m_end = 0;
    LoadStats m_stats;
    std::vector<std::string> m_warnings;
    // A trace read from the model cache uses its biggest arrays (slices, their kinds, args
    // text and offsets) in place from the file's memory map, which m_backing keeps alive; the
    // vectors above then stay empty. Builders never set it, so they keep filling the vectors.
    std::shared_ptr<const void> m_backing;
    std::span<const Slice> m_mappedSlices;
    std::span<const SliceKind> m_mappedKinds;
    std::string_view m_mappedArgsText;
    std::span<const std::uint64_t> m_mappedArgsOffsets;
};

using TracePtr = std::shared_ptr<const Trace>;

} // namespace rs
