#pragma once

#include <cstdint>

namespace rs {

// What a track is. Decided once at load by the trace's producer (core/producers/) from what
// only it knows (process and thread names, categories, the tables a database holds) and stored
// in the model (Track::role): the timeline, statistics, compare and analysis all read it there
// and none of them guesses from names again.
enum class TrackRole : std::uint8_t {
    Other,
    Host,         // a host thread (Kineto CPU thread, torch_npu Python)
    Cann,         // torch_npu CANN host thread (shares tids with Python)
    AscendDevice, // torch_npu Ascend Hardware stream
    HcclGroup,    // torch_npu HCCL "Group N Communication": the collective ops
    HcclPlane,    // torch_npu HCCL "Plane N": an op's tasks
    GpuStream,    // Kineto GPU stream
    Derived,      // producer results (torch_npu Overlap Analysis): shown, never an input
    DeviceMetric, // a counter measured on the device (HBM, NPU memory, GPU memory...)
};

// Stable lower-case name ("ascend_device"); for dumps and diagnostics.
const char* trackRoleName(TrackRole r);

// Work that runs on a device: streams, and HCCL's ops and tasks.
constexpr bool isDeviceRole(TrackRole r)
{
    return r == TrackRole::GpuStream || r == TrackRole::AscendDevice || r == TrackRole::HcclGroup ||
           r == TrackRole::HcclPlane;
}

// Device streams: the tracks that run kernels, copies and sets one after another (a GPU
// stream, an Ascend Hardware stream).
constexpr bool isStreamRole(TrackRole r)
{
    return r == TrackRole::GpuStream || r == TrackRole::AscendDevice;
}

// Tracks whose slices a host call launches: device streams and a collective's ops (an HCCL
// op), not the tasks inside a collective.
constexpr bool isLaunchedRole(TrackRole r)
{
    return isStreamRole(r) || r == TrackRole::HcclGroup;
}

// Tracks that hold communication itself (HCCL ops and their tasks). Kineto's collectives run
// on GPU streams shared with other kernels: those are device tracks.
constexpr bool isCommunicationRole(TrackRole r)
{
    return r == TrackRole::HcclGroup || r == TrackRole::HcclPlane;
}

// Host threads that launch work: Python and CANN threads, Kineto CPU threads.
constexpr bool isHostRole(TrackRole r)
{
    return r == TrackRole::Host || r == TrackRole::Cann;
}

} // namespace rs
