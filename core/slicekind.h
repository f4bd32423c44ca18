#pragma once

#include "core/timeconv.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rs {

using EventId = std::uint32_t;

// What a slice is. Decided once at load by the trace's producer (core/producers/), which alone
// knows its categories, names and tables, and stored in the model (Trace::kinds()): statistics,
// compare, steps, call stacks, exports and the timeline read it there, and none of them matches
// a producer's category or step name again. One byte a slice.
enum class SliceKind : std::uint8_t {
    Other,      // nothing the analyses count (a producer's own results, unknown slices)
    Kernel,     // computing work on a device stream (a CUDA kernel, an Ascend task)
    Copy,       // a device memory copy (Memcpy DtoD, MEMCPY_ASYNC, HCCL's Memcpy task)
    Memset,     // a device memory set
    Collective, // a collective's device op (an NCCL kernel, an HCCL op)
    CommTask,   // a task of a collective other than a copy (HCCL's Notify_Wait, Reduce_Inline)
    HostOp,     // a framework operator on a host thread (aten::mm, c10d::allreduce_)
    Launch,     // a runtime or driver call on the host, the side of device work there
    Annotation, // a range a user or library marked (record_function, NVTX, GPU annotations)
    Python,     // a Python function frame
    Step,       // a training step (ProfilerStep#N); its number in Trace::steps()
};
constexpr std::uint8_t kSliceKindCount = std::uint8_t(SliceKind::Step) + 1;

// Stable lower-case name ("host_op"); for dumps and diagnostics.
const char* sliceKindName(SliceKind k);

// Work a device stream runs: kernels (a collective's included), copies and sets.
constexpr bool isDeviceWork(SliceKind k)
{
    return k == SliceKind::Kernel || k == SliceKind::Collective || k == SliceKind::Copy ||
           k == SliceKind::Memset;
}
constexpr bool isCopyOrSet(SliceKind k)
{
    return k == SliceKind::Copy || k == SliceKind::Memset;
}

// A slice of kind Step and its step number.
struct StepMark {
    EventId event = 0;
    int number = 0;
    bool operator==(const StepMark&) const = default;
};

// What a producer states of a run beside its events: the clock base that lines ranks up, the
// job's size, the devices it ran on. Unknown fields stay empty.
struct RunFacts {
    std::optional<TimeNs> clockBaseNs; // an absolute clock's value at the trace's time 0
    std::optional<int> worldSize;      // ranks in the job
    std::vector<std::string> devices;  // device names ("NVIDIA A100-SXM4-80GB"), in device order
    bool operator==(const RunFacts&) const = default;
};

} // namespace rs
