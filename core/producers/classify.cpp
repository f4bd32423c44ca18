#include "core/producers/classify.h"

#include "core/analysis/analysisutil.h"
#include "core/producers/kineto/model.h"

#include <algorithm>
#include <charconv>

namespace rs::producers {

void classifySlices(const Trace& trace, const KindRule& rule, const StepRule& step,
                    SliceClasses& out)
{
    const auto sl = trace.slices();
    const auto& tracks = trace.tracks();
    out.kinds.assign(sl.size(), SliceKind::Other);
    out.steps.clear();
    // Per (role, category) seen, the kind of each name (0xff: not asked yet). Slices of a track
    // mostly share a category, so the last group is kept at hand.
    struct Group {
        TrackRole role;
        StrId cat;
        std::vector<std::uint8_t> byName;
    };
    std::vector<Group> groups;
    const std::size_t names = trace.strings().size();
    for (TrackId t = 0; t < tracks.size(); ++t) {
        const Track& track = tracks[t];
        if (track.begin == track.end) continue;
        const TrackRole role = track.role;
        Group* g = nullptr;
        for (EventId e = track.begin; e < track.end; ++e) {
            const Slice& s = sl[e];
            if (!g || g->cat != s.cat || g->role != role) {
                g = nullptr;
                for (Group& x : groups)
                    if (x.cat == s.cat && x.role == role) g = &x;
                if (!g) {
                    groups.push_back({role, s.cat, std::vector<std::uint8_t>(names, 0xff)});
                    g = &groups.back();
                }
            }
            std::uint8_t& k = g->byName[s.name];
            if (k == 0xff) k = static_cast<std::uint8_t>(rule(role, s.cat, s.name));
            SliceKind kind = static_cast<SliceKind>(k);
            if (kind == SliceKind::Step) {
                if (const auto n = step(trace.str(s.name)))
                    out.steps.push_back({e, *n});
                else
                    kind = SliceKind::Other;
            }
            out.kinds[e] = kind;
        }
    }
    // Tracks hold contiguous blocks in id order, so the steps come sorted; a model that breaks
    // this still gets a sorted list.
    if (!std::is_sorted(out.steps.begin(), out.steps.end(),
                        [](const StepMark& a, const StepMark& b) { return a.event < b.event; }))
        std::sort(out.steps.begin(), out.steps.end(),
                  [](const StepMark& a, const StepMark& b) { return a.event < b.event; });
}

std::optional<int> profilerStep(std::string_view name)
{
    constexpr std::string_view prefix = "ProfilerStep#";
    if (!name.starts_with(prefix)) return std::nullopt;
    name.remove_prefix(prefix.size());
    int n = 0;
    const auto [p, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
    if (ec != std::errc() || p == name.data()) return std::nullopt;
    return n;
}

ChromeTraceKinds::ChromeTraceKinds(const Trace& trace) : m_trace(trace)
{
    const StringPool& sp = trace.strings();
    const auto find = [&](const char* s) {
        const StrId id = sp.find(s);
        return id < sp.size() ? id : kNone;
    };
    m_kernel[0] = find("kernel");
    m_kernel[1] = find("Kernel");
    m_copy[0] = find("gpu_memcpy");
    m_copy[1] = find("Memcpy");
    m_set[0] = find("gpu_memset");
    m_set[1] = find("Memset");
    m_gpuAnno = find("gpu_user_annotation");
    m_runtime = find("cuda_runtime");
    m_driver = find("cuda_driver");
    m_py = find("python_function");
    m_cpuOp = find("cpu_op");
    m_anno = find("user_annotation");
    m_enqueue = find("enqueue");
    m_dequeue = find("dequeue");
    m_noOpCategories = m_cpuOp == kNone && m_anno == kNone;
}

SliceKind ChromeTraceKinds::operator()(TrackRole role, StrId cat, StrId name) const
{
    using analysis::startsWith;
    const std::string& n = m_trace.str(name);
    const auto is = [cat](StrId c) { return c != kNone && c == cat; };
    // Roles first where the producer's layout says more than a category (torch_npu writes none).
    switch (role) {
    case TrackRole::Host:
        if (profilerStep(n)) return SliceKind::Step;
        // A trace without framework op categories (of unknown origin): every host slice but a
        // Python frame is an op.
        if (m_noOpCategories) return is(m_py) ? SliceKind::Python : SliceKind::HostOp;
        break;
    case TrackRole::AscendDevice:
        // The runtime's copy and set tasks (aclrtMemcpyAsync's MEMCPY_ASYNC); kernels named
        // "..._MemSet" are compute kernels.
        if (startsWith(n, "MEMCPY") || startsWith(n, "Memcpy")) return SliceKind::Copy;
        if (startsWith(n, "MEMSET") || startsWith(n, "Memset")) return SliceKind::Memset;
        return SliceKind::Kernel;
    case TrackRole::HcclGroup:
        return startsWith(n, "hcom_") ? SliceKind::Collective : SliceKind::Other;
    case TrackRole::HcclPlane:
        return n == "Memcpy" ? SliceKind::Copy : SliceKind::CommTask;
    case TrackRole::Cann:
        return SliceKind::Launch;
    case TrackRole::Derived:
    case TrackRole::DeviceMetric:
        return SliceKind::Other;
    case TrackRole::Other:
        // A thread of unknown kind (no category says): the profiler's step marker still is one.
        if (profilerStep(n)) return SliceKind::Step;
        break;
    default:
        break;
    }
    if (is(m_kernel[0]) || is(m_kernel[1]))
        return analysis::kinetoNameClass(n) & analysis::kNcCollKernel ? SliceKind::Collective
                                                                      : SliceKind::Kernel;
    if (is(m_copy[0]) || is(m_copy[1])) return SliceKind::Copy;
    if (is(m_set[0]) || is(m_set[1])) return SliceKind::Memset;
    if (is(m_gpuAnno)) return SliceKind::Annotation;
    if (is(m_runtime) || is(m_driver) || is(m_enqueue) || is(m_dequeue)) return SliceKind::Launch;
    if (is(m_py)) return SliceKind::Python;
    if (is(m_cpuOp)) return SliceKind::HostOp;
    if (is(m_anno)) return SliceKind::Annotation;
    if (role == TrackRole::GpuStream && analysis::kinetoNameClass(n) & analysis::kNcCollKernel)
        return SliceKind::Collective;
    return SliceKind::Other;
}

void ChromeTraceKinds::classify(SliceClasses& out) const
{
    classifySlices(
        m_trace, [this](TrackRole r, StrId c, StrId n) { return (*this)(r, c, n); }, profilerStep,
        out);
}

} // namespace rs::producers
