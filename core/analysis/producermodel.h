#pragma once

// What a producer (torch_npu/HCCL, Kineto NCCL/RCCL, ...) contributes to the analysis: its
// collectives with their device tasks, internal memcpy and transfers, which device tasks are
// computing, and the producer-specific links of a call-stack chain. Everything that knows a
// producer's names, arg keys and layouts lives behind this interface, one implementation in
// each producer's folder (core/producers/<name>/model.cpp), reached by Producer::analysis().
// The rules that judge collectives and make findings (rules/) and the text (presentation.h)
// know no producer.

#include "core/analysis/analysisutil.h"
#include "core/analysis/report.h"
#include "core/trace.h"

#include <any>
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace rs::analysis {

// Per-name classes, computed once per distinct string so a scan over slices is a lookup.
enum NameClass : std::uint8_t {
    kNcCollHost = 1 << 0,   // host op of a collective (Kineto)
    kNcCollKernel = 1 << 1, // NCCL / RCCL device kernel
    kNcHcom = 1 << 2,       // HCCL op on a "Group N Communication" thread
    kNcStep = 1 << 3,       // ProfilerStep#N
};

// The state of one analysis run shared by the producer and the rules. Built by the analyzer;
// producers fill collectives, launches and unaligned events.
struct AnalysisContext {
    AnalysisContext(const Trace& t, const AnalysisOptions& o) : trace(t), options(o) {}

    const Trace& trace;
    const AnalysisOptions& options;
    std::vector<TrackRole> roles;
    std::vector<std::uint8_t> nameClass;             // per StrId, NameClass bits
    std::vector<std::pair<EventId, EventId>> launch; // (device event, host launch), sorted
    std::vector<EventId> unaligned;                  // tasks with an unaligned size/address
    FieldErrors* errors = nullptr;                   // wrong-typed args met (never thrown)
    // Scratch space of ProducerModel::isComputing, filled by prepareComputing.
    std::vector<EventId> inCollective;      // sorted
    std::vector<std::int8_t> computeByName; // per StrId: -1 unknown, 0, 1
    StrId catKernel = kNone;                // "kernel"
    // Producer data kept for finishCommunication: the group ranks per op, and whatever else a
    // producer keeps between its steps (torch_npu: the HCCL tasks of each op), which only it
    // reads.
    std::unordered_map<EventId, std::vector<int>> groupRanks;
    std::any producerData;

    std::uint8_t classOf(StrId id) const { return id < nameClass.size() ? nameClass[id] : 0; }
    // Host launches of a device event (sorted lookup).
    std::vector<EventId> launchesOf(EventId device) const;
};

class ProducerModel {
public:
    virtual ~ProducerModel() = default;

    // NameClass bits of a string (event name).
    virtual std::uint8_t classifyName(std::string_view name) const = 0;
    // Launches the flows do not give (e.g. Kineto kernels found by correlation id); called
    // after the flow-based index is built, may append to ctx.launch (re-sorted after).
    virtual void addLaunches(AnalysisContext& ctx) const { (void)ctx; }
    // The collectives of the trace with their device tasks, internal copies and transfers
    // (finishCollective() and the rules run after). Appended unsorted.
    virtual void findCollectives(AnalysisContext& ctx, std::vector<Collective>& out) const = 0;
    // Prepares isComputing (e.g. the set of events inside collectives).
    virtual void prepareComputing(AnalysisContext& ctx,
                                  const std::vector<Collective>& collectives) const = 0;
    // Whether device event e (on an AscendDevice or GpuStream track) is computing for the
    // step figures. Called once per device event after prepareComputing.
    virtual bool isComputing(AnalysisContext& ctx, EventId e) const = 0;
    // How a step's device time is bounded (steps.h): by its host span, the device work it
    // launched assigned to it (Host); or as torch_npu's step_trace_time.csv: the device window
    // of the step's launches, with the whole trace's busy and free sections counted in the
    // step where they start (Device).
    enum class StepWindow : std::uint8_t { Host, Device };
    virtual StepWindow stepWindow() const { return StepWindow::Host; }
    // After the steps and bandwidths are known: the communication matrix (HCCL), the links
    // Kineto collectives are compared with.
    virtual void finishCommunication(AnalysisContext& ctx, AnalysisReport& rep) const
    {
        (void)ctx;
        (void)rep;
    }
    // Rank of a flow category when a chain leaves a slice through an incoming flow: 0 first,
    // negative never followed.
    virtual int flowRank(std::string_view category) const = 0;
    // The next link of a call-stack chain at e that flows and parents do not give (an HCCL
    // task's op, a CANN call's Python thread), or kNone. `visited` says what not to revisit.
    virtual EventId stackContinuation(const Trace& trace, const std::vector<TrackRole>& roles,
                                      EventId e, const std::unordered_set<EventId>& visited,
                                      const char** kind) const
    {
        (void)trace;
        (void)roles;
        (void)e;
        (void)visited;
        (void)kind;
        return kNone;
    }
};

// The analysis model of a trace's producer.
const ProducerModel& producerModel(const Trace& trace);

// Helpers shared by the producers.
// The address args of an event (src, dst, addr...): sets *misaligned when one is not a
// multiple of `align` (and *badAddress, when given and still 0, to that address); returns the
// first address met.
void checkAddresses(const ArgsMembers& a, std::uint64_t align, bool* misaligned,
                    std::uint64_t* badAddress = nullptr);
std::optional<std::uint64_t> checkAddresses(const nlohmann::json& a, std::uint64_t align,
                                            bool* misaligned, std::uint64_t* badAddress = nullptr);

} // namespace rs::analysis
