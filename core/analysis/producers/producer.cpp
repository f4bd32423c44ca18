#include "core/analysis/producers/producer.h"

#include <algorithm>
#include <limits>

namespace rs::analysis {

std::vector<EventId> AnalysisContext::launchesOf(EventId device) const
{
    std::vector<EventId> out;
    auto it = std::lower_bound(launch.begin(), launch.end(), std::make_pair(device, 0u));
    for (; it != launch.end() && it->first == device; ++it)
        out.push_back(it->second);
    return out;
}

const ProducerModel& producerModel(Producer p)
{
    switch (p) {
    case Producer::TorchNpu:
        return torchNpuModel();
    case Producer::Kineto:
        return kinetoModel();
    case Producer::Other:
        break;
    }
    return genericModel();
}

Producer detectProducer(const Trace& trace, bool stringTimestamps)
{
    // torch_npu writes "ts" as strings with ns digits and names its processes after the layers
    // of the CANN stack.
    bool npu = stringTimestamps;
    for (const Process& p : trace.processes()) {
        const std::string& n = trace.str(p.name);
        if (n == "Ascend Hardware" || n == "CANN" || n == "HCCL" || n == "Overlap Analysis")
            npu = true;
    }
    if (npu) return Producer::TorchNpu;
    // Kineto: its top-level keys, else its categories.
    const auto& md = trace.metadata();
    bool kineto =
        md.is_object() && (md.contains("schemaVersion") || md.contains("deviceProperties") ||
                           md.contains("distributedInfo") || md.contains("traceName") ||
                           md.contains("baseTimeNanoseconds"));
    if (!kineto) {
        for (const char* c : {"cuda_runtime", "kernel", "gpu_memcpy", "ac2g", "cpu_op"}) {
            if (trace.strings().find(c) != std::numeric_limits<StrId>::max()) {
                kineto = true;
                break;
            }
        }
    }
    return kineto ? Producer::Kineto : Producer::Other;
}

bool isDeviceRole(TrackRole r)
{
    return r == TrackRole::GpuStream || r == TrackRole::AscendDevice || r == TrackRole::HcclGroup ||
           r == TrackRole::HcclPlane;
}

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

namespace {

// Args that hold buffer addresses, as producers name them.
const char* const kAddressKeys[] = {"src",     "dst",      "Addr",       "addr",       "address",
                                    "Address", "src addr", "dst addr",   "src_addr",   "dst_addr",
                                    "srcAddr", "dstAddr",  "input addr", "output addr"};

} // namespace

// The keys are every producer's guesses at an address ("src" can also be a device's name), so a
// value that is no number is not counted as a bad field.
void checkAddresses(const FlatArgs& a, std::uint64_t align, bool* misaligned,
                    std::uint64_t* badAddress)
{
    for (const char* k : kAddressKeys) {
        auto v = a.u64(k);
        if (v && align > 0 && *v % align != 0) {
            *misaligned = true;
            if (badAddress && *badAddress == 0) *badAddress = *v;
        }
    }
}

std::optional<std::uint64_t> checkAddresses(const nlohmann::json& a, std::uint64_t align,
                                            bool* misaligned, std::uint64_t* badAddress)
{
    std::optional<std::uint64_t> first;
    if (!a.is_object()) return first;
    for (const char* k : kAddressKeys) {
        auto v = argU64(a, k, nullptr);
        if (!v) continue;
        if (!first) first = v;
        if (align > 0 && *v % align != 0) {
            *misaligned = true;
            if (badAddress && *badAddress == 0) *badAddress = *v;
        }
    }
    return first;
}

} // namespace rs::analysis
