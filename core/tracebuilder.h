#pragma once

#include "core/trace.h"
#include "core/traceevent.h"

#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace rs {

struct ImpliedFlows;

// Builds an immutable Trace from events (TraceEvent: the JSON tokenizer's, a database
// reader's), in any order: fed directly
// (addEvent, then finish), or piece by piece through partial builders it absorbs in text
// order (the loader: each piece built on a pool thread). A partial builder is absorbed, never
// finished. Costs: addEvent O(1) amortized; absorb O(piece); finish O(n log n) on the pool.
class TraceBuilder {
public:
    TraceBuilder();
    // partial: one piece of the event array on its own (a chunk, built on the pool thread that
    // tokenized it). What needs the events before it (an E whose B came earlier, async ends,
    // renames) is kept for absorb() to resolve, in text order.
    explicit TraceBuilder(bool partial);
    ~TraceBuilder();
    TraceBuilder(TraceBuilder&&) noexcept;
    TraceBuilder& operator=(TraceBuilder&&) noexcept;

    // Appends the events of a partial builder that came next in the text: strings, processes,
    // tracks and counters mapped to this builder's ids (new ones in the order one builder
    // would have made them), slices and flow steps appended, begins and ends matched across
    // the boundary as one builder matches them. The text part's events came from must still
    // be readable. part is spent afterwards (recycle() it).
    void absorb(TraceBuilder& part);
    // An empty partial builder again, with the capacity of its big arrays kept, so building
    // piece after piece does not fault fresh memory in for each one.
    void recycle();

    // A partial builder keeps the event's args as a view: its text must stay readable until
    // absorb().
    void addEvent(const TraceEvent& ev);
    // A top-level key other than the event array ("displayTimeUnit", "stackFrames", ...).
    void addMetadata(const std::string& key, nlohmann::json value);
    void addWarning(std::string text);
    // Fields a source met with a type or value they cannot take, that gave no event (a
    // database row whose time is no integer): counted as the JSON reader counts its own.
    void addBadFields(std::uint64_t n) { m_trace->m_stats.badFields += n; }
    void setPath(std::string path);
    // The producer, when the source knows it (a database); otherwise finish() asks the registry
    // what the content shows.
    void setProducer(const Producer& producer) { m_producer = &producer; }
    void setRank(int rank);
    // Used by finish() when neither setRank() nor the trace's distributedInfo gave a rank.
    void setFallbackRank(std::optional<int> rank) { m_fallbackRank = rank; }
    void setBytesRead(std::uint64_t bytes);
    void setTruncated(bool truncated);

    // Resident bytes the model will need so far (for the memory budget).
    std::size_t estimatedBytes() const;
    // What loading holds at its peak: the model plus, per event so far, the loader's working
    // memory (tokenized chunks in flight, the sorted copy of the slices in finish(), pending
    // flows). Measured at 77-94 bytes an event (tst_membudget projectionCoversThePeak).
    static constexpr std::size_t kLoadWorkingBytesPerEvent = 128;
    std::size_t estimatedPeakBytes() const
    {
        return estimatedBytes() +
               static_cast<std::size_t>(eventCount()) * kLoadWorkingBytesPerEvent;
    }
    std::uint64_t eventCount() const { return m_trace->m_stats.events; }
    // The loader projects the whole trace from the share read so far (scale = whole / read):
    // the big arrays (slices, args text and offsets, pending flows) get that capacity now, at
    // most capBytes in all, so they are not copied as they double. Capacity not reached is
    // never touched, so it is address space, not memory. Only grows; once is enough; a failed
    // allocation is ignored (the arrays then grow as they go). extraSlices: slices the loader
    // will add itself after the projected ones (derived lanes), reserved with them.
    void reserveAhead(double scale, std::size_t capBytes, std::size_t extraSlices = 0)
    {
        reserveAhead(Sizes{}, scale, capBytes, extraSlices);
    }
    // The big arrays' sizes, for a projection of only what is read after them: a loader that
    // reads one kind of rows first (the database's CANN) marks the sizes, reads a like share of
    // the rest, and projects from the mark: each array grows by its own share.
    struct Sizes {
        std::size_t slices = 0, text = 0, offsets = 0, flows = 0;
    };
    Sizes sizes() const;
    // The capacity projected for an array of `size` elements, `base` of them there at the mark:
    // the growth since then times scale, plus 10% and a little; never less than size, never
    // more than size + 2^40 + 1024 (a damaged file projects anything).
    static std::size_t projectSize(std::size_t base, std::size_t size, double scale);
    void reserveAhead(const Sizes& from, double scale, std::size_t capBytes,
                      std::size_t extraSlices = 0);
    // The same for sizes a loader knows before reading (a database's row counts): reserves
    // each array for at least that many, unless the total passes capBytes.
    void reserveFor(const Sizes& sizes, std::size_t capBytes);

    // Sorts, nests, binds flows and hands the trace over. The builder is spent afterwards.
    std::shared_ptr<Trace> finish();

private:
    // A flow id: a plain decimal integer is kept as its value, anything else is interned
    // (text StrId in value). Equal keys are exactly the ids whose text is equal.
    struct FlowKey {
        std::uint64_t value = 0;
        bool text = false;
        bool operator==(const FlowKey&) const = default;
        auto operator<=>(const FlowKey& o) const
        {
            return text != o.text ? text <=> o.text : value <=> o.value;
        }
    };
    struct PendingFlow {
        FlowKey id;
        StrId cat;
        TrackId track;
        TimeNs ts;
        char phase;            // 's', 't', 'f'
        bool enclosing;        // bind to the enclosing slice (else to the next slice)
        EventId bound = kNone; // the slice it binds to, once the slices are final
    };
    struct PendingBind { // flow v2: bind_id on a slice
        FlowKey id;
        EventId slice; // pending index
        bool in, out;
    };
    FlowKey flowKey(const JsonScalar& v);
    struct CounterKey {
        ProcessId process;
        StrId name, key;
        bool operator==(const CounterKey&) const = default;
    };
    struct CounterKeyHash {
        std::size_t operator()(const CounterKey& k) const noexcept
        {
            return (std::size_t(k.process) * 1000003u) ^ (std::size_t(k.name) << 20) ^ k.key;
        }
    };

    // Key of a numeric pid (owner kNone) or of a numeric tid within a process.
    struct NumericKey {
        std::uint32_t owner;
        std::uint8_t kind;
        std::uint64_t value;
        bool operator==(const NumericKey&) const = default;
    };
    struct NumericKeyHash {
        std::size_t operator()(const NumericKey& k) const noexcept
        {
            return std::size_t(k.value * 0x9e3779b97f4a7c15ull) ^ (std::size_t(k.owner) << 8) ^
                   k.kind;
        }
    };

    ProcessId process(const JsonScalar& pid);
    ProcessId processByText(std::string text, bool numeric);
    TrackId track(ProcessId p, const std::string& tid, TrackKind kind);
    TrackId threadTrack(const TraceEvent& ev, ProcessId p);
    std::optional<TimeNs> time(const JsonScalar& v, const char* field, bool ns);
    std::uint32_t storeArgs(std::string_view text);
    EventId pushSlice(const Slice& s);
    void addMetadataEvent(const TraceEvent& ev, ProcessId p);
    static void addLabel(Process& p, std::string label);
    void endSlice(std::vector<EventId>& open, TimeNs ts, std::string_view args);
    CounterSeries& series(const CounterKey& key);
    void addCounter(const TraceEvent& ev, ProcessId p, TimeNs ts);
    void addFlowStep(const TraceEvent& ev, TrackId t, TimeNs ts, StrId cat);
    void addAsync(const TraceEvent& ev, ProcessId p, TimeNs ts);
    // Returns the slices' last end (the time open ones are closed at; min() without slices).
    TimeNs closeOpenSlices();
    // Returns the slices of each (renumbered) track in each half of the slice array, counted in
    // the renumbering pass (finish() buckets slices by track with them).
    std::array<std::vector<EventId>, 2> sortTracksAndSlices();
    void nestSlices(TrackId from, TrackId to);
    template <typename Less> void sortFlowSteps(const Less& flowLess);
    void bindFlows(const std::vector<EventId>& newIndex);
    // Flows a producer knows from other fields (Producer::impliedFlows), after the bound ones.
    void addImpliedFlows(const ImpliedFlows& implied);
    void resolveStackFrames(const std::vector<EventId>& newIndex);
    void cutFrameCycles();
    std::uint32_t frameFor(const std::string& idText);

    // Partial builders: what absorb() resolves.
    struct PendingEnd { // an E with no B before it in the piece
        TrackId track;
        TimeNs ts;
        TextRef args;
    };
    struct PendingAsync { // the piece's first b/e of a key: needs the state before the piece
        std::string key;  // as in m_openAsync
        TimeNs ts;
        bool begin;
    };
    void setName(StrId& name, std::vector<StrId>& firsts, std::uint32_t index,
                 const std::string& text);

    std::shared_ptr<Trace> m_trace;
    bool m_partial = false;
    std::vector<TextRef> m_argRefs; // partial: args text, copied by absorb()
    std::vector<PendingEnd> m_pendingEnds;
    std::vector<PendingAsync> m_pendingAsync;
    std::vector<StrId> m_firstProcName, m_firstTrackName; // partial: first name set, else kNone
    std::unordered_map<std::string, ProcessId> m_processIndex;
    std::unordered_map<std::string, TrackId> m_trackIndex; // key: process, kind, tid
    // Shortcut for numeric pids and thread tids: no text built per event.
    std::unordered_map<NumericKey, std::uint32_t, NumericKeyHash> m_numericIndex;
    struct LastHit {
        NumericKey key{};
        std::uint32_t value = kNone;
    };
    LastHit m_lastPid, m_lastTid; // last numeric pid / thread found in m_numericIndex
    std::array<std::uint64_t, 128> m_phaseCounts{};
    std::vector<std::vector<EventId>> m_openB; // per track: open B slices
    // key: pid, cat, id, name. A partial builder also keeps kNone: ended within its piece.
    std::unordered_map<std::string, EventId> m_openAsync;
    std::unordered_map<CounterKey, std::uint32_t, CounterKeyHash> m_counterIndex;
    std::vector<PendingFlow> m_flows;
    std::vector<PendingBind> m_binds;
    std::vector<std::pair<EventId, std::string>> m_sliceFrames; // pending index, sf id text
    std::vector<std::pair<EventId, std::vector<std::string>>> m_sliceStacks;
    std::unordered_map<std::string, std::uint32_t> m_frameIndex;
    nlohmann::json m_stackFramesJson;
    std::string m_key; // scratch
    bool m_sawStringTs = false;
    std::optional<int> m_fallbackRank;
    const Producer* m_producer = nullptr;
    std::uint64_t m_metaConflicts = 0; // process/thread renamed to something else
};

} // namespace rs
