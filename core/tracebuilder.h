#pragma once

#include "core/jsontokenizer.h"
#include "core/trace.h"

#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace rs {

// Builds an immutable Trace from tokenized events (JsonEvent), in any order.
class TraceBuilder {
public:
    TraceBuilder();
    ~TraceBuilder();

    // internCache (optional): the reader numbered the distinct name/cat texts of a batch of
    // events (nameSlot, catSlot); the builder keeps each one's interned id there (kNone: not
    // yet), so a batch interns each text once.
    void addEvent(const JsonEvent& ev, std::uint32_t* internCache = nullptr,
                  std::uint32_t nameSlot = 0, std::uint32_t catSlot = 0);
    // A top-level key other than the event array ("displayTimeUnit", "stackFrames", ...).
    void addMetadata(const std::string& key, nlohmann::json value);
    void addWarning(std::string text);
    void setPath(std::string path);
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
    // allocation is ignored (the arrays then grow as they go).
    void reserveAhead(double scale, std::size_t capBytes);

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
        char phase;     // 's', 't', 'f'
        bool enclosing; // bind to the enclosing slice (else to the next slice)
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
    ProcessId processByText(const JsonScalar& pid);
    TrackId track(ProcessId p, const std::string& tid, TrackKind kind);
    TrackId threadTrack(const JsonEvent& ev, ProcessId p);
    std::optional<TimeNs> time(const JsonScalar& v, const char* field);
    StrId internCached(std::string_view text, std::uint32_t* cache, std::uint32_t slot);
    std::uint32_t storeArgs(std::string_view text);
    EventId pushSlice(const Slice& s);
    void addMetadataEvent(const JsonEvent& ev, ProcessId p);
    void addCounter(const JsonEvent& ev, ProcessId p, TimeNs ts);
    void addFlowStep(const JsonEvent& ev, TrackId t, TimeNs ts, StrId cat);
    void addAsync(const JsonEvent& ev, ProcessId p, TimeNs ts);
    void closeOpenSlices();
    void sortTracksAndSlices();
    void nestSlices(TrackId from, TrackId to);
    void bindFlows(const std::vector<EventId>& newIndex);
    void resolveStackFrames(const std::vector<EventId>& newIndex);
    void cutFrameCycles();
    void detectProducer();
    std::uint32_t frameFor(const std::string& idText);

    std::shared_ptr<Trace> m_trace;
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
    std::vector<std::vector<EventId>> m_openB;            // per track: open B slices
    std::unordered_map<std::string, EventId> m_openAsync; // key: pid, cat, id, name
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
    std::uint64_t m_metaConflicts = 0; // process/thread renamed to something else
};

} // namespace rs
