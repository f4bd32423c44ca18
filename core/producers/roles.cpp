#include "core/producers/roles.h"

#include <algorithm>

namespace rs::producers {

TrackRole roleFromCategories(const Trace& trace, TrackId t)
{
    const StringPool& sp = trace.strings();
    // Looked up per call: cheap next to the scan, and keeps this free of state.
    const StrId catKernel = sp.find("kernel");
    const StrId catMemcpy = sp.find("gpu_memcpy");
    const StrId catMemset = sp.find("gpu_memset");
    const StrId catGpuAnno = sp.find("gpu_user_annotation");
    const StrId catCpuOp = sp.find("cpu_op");
    const StrId catRuntime = sp.find("cuda_runtime");
    const StrId catDriver = sp.find("cuda_driver");
    const StrId catPy = sp.find("python_function");
    const StrId catAnno = sp.find("user_annotation");
    auto sl = trace.trackSlices(t);
    const std::size_t n = std::min<std::size_t>(sl.size(), 32);
    int device = 0, host = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const StrId c = sl[i].cat;
        if (c == kNone) continue;
        if (c == catKernel || c == catMemcpy || c == catMemset || c == catGpuAnno)
            ++device;
        else if (c == catCpuOp || c == catRuntime || c == catDriver || c == catPy || c == catAnno)
            ++host;
    }
    if (device > 0 && device >= host) return TrackRole::GpuStream;
    if (host > 0) return TrackRole::Host;
    return TrackRole::Other;
}

void markDeviceCounters(const Trace& trace, std::vector<TrackRole>& roles)
{
    const auto& tracks = trace.tracks();
    std::vector<bool> device(trace.processes().size(), false);
    for (TrackId t = 0; t < tracks.size(); ++t)
        if (tracks[t].process != kNone &&
            (roles[t] == TrackRole::GpuStream || roles[t] == TrackRole::AscendDevice))
            device[tracks[t].process] = true;
    for (TrackId t = 0; t < tracks.size(); ++t)
        if (tracks[t].kind == TrackKind::Counter && tracks[t].process != kNone &&
            device[tracks[t].process])
            roles[t] = TrackRole::DeviceMetric;
}

} // namespace rs::producers
