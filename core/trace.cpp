#include "core/trace.h"

#include "core/producers/registry.h"

#include <algorithm>

namespace rs {

const char* trackRoleName(TrackRole r)
{
    switch (r) {
    case TrackRole::Other:
        return "other";
    case TrackRole::Host:
        return "host";
    case TrackRole::Cann:
        return "cann";
    case TrackRole::AscendDevice:
        return "ascend_device";
    case TrackRole::HcclGroup:
        return "hccl_group";
    case TrackRole::HcclPlane:
        return "hccl_plane";
    case TrackRole::GpuStream:
        return "gpu_stream";
    case TrackRole::Derived:
        return "derived";
    case TrackRole::DeviceMetric:
        return "device_metric";
    }
    return "other";
}

const char* sliceKindName(SliceKind k)
{
    switch (k) {
    case SliceKind::Other:
        return "other";
    case SliceKind::Kernel:
        return "kernel";
    case SliceKind::Copy:
        return "copy";
    case SliceKind::Memset:
        return "memset";
    case SliceKind::Collective:
        return "collective";
    case SliceKind::CommTask:
        return "comm_task";
    case SliceKind::HostOp:
        return "host_op";
    case SliceKind::Launch:
        return "launch";
    case SliceKind::Annotation:
        return "annotation";
    case SliceKind::Python:
        return "python";
    case SliceKind::Step:
        return "step";
    }
    return "other";
}

Trace::Trace() : m_producer(&producers::generic()) {}

std::optional<int> Trace::stepNumber(EventId e) const
{
    const auto it = std::lower_bound(m_steps.begin(), m_steps.end(), e,
                                     [](const StepMark& m, EventId v) { return m.event < v; });
    if (it == m_steps.end() || it->event != e) return std::nullopt;
    return it->number;
}

namespace {
std::vector<std::uint32_t> flowsOf(const std::vector<std::pair<EventId, std::uint32_t>>& index,
                                   EventId e)
{
    std::vector<std::uint32_t> out;
    auto it = std::lower_bound(index.begin(), index.end(), std::make_pair(e, std::uint32_t(0)));
    for (; it != index.end() && it->first == e; ++it)
        out.push_back(it->second);
    return out;
}
} // namespace

std::vector<std::uint32_t> Trace::flowsFrom(EventId e) const
{
    return flowsOf(m_flowOut, e);
}

std::vector<std::uint32_t> Trace::flowsTo(EventId e) const
{
    return flowsOf(m_flowIn, e);
}

std::string_view Trace::argsText(EventId e) const
{
    const std::uint32_t a = slice(e).args;
    const std::span<const std::uint64_t> offsets = argsOffsetsView();
    if (a == kNone || a + 1 >= offsets.size()) return {};
    return argsTextView().substr(offsets[a], offsets[a + 1] - offsets[a]);
}

nlohmann::json Trace::args(EventId e, bool* notJson) const
{
    if (notJson) *notJson = false;
    const std::string_view text = argsText(e);
    if (text.empty()) return nlohmann::json::object();
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_discarded()) return j;
    if (notJson) *notJson = true;
    return nlohmann::json::object();
}

std::uint32_t Trace::eventStackFrame(EventId e) const
{
    auto it = std::lower_bound(m_eventFrames.begin(), m_eventFrames.end(),
                               std::make_pair(e, std::uint32_t(0)));
    return it != m_eventFrames.end() && it->first == e ? it->second : kNone;
}

std::string Trace::processLabel(ProcessId p) const
{
    const Process& proc = m_processes[p];
    if (proc.name) return str(proc.name);
    if (proc.pid.empty()) return "Global";
    return "Process " + proc.pid;
}

std::string Trace::trackLabel(TrackId t) const
{
    const Track& track = m_tracks[t];
    if (track.kind == TrackKind::Counter) return track.tid;
    if (track.kind == TrackKind::Async) return track.tid + " (async)";
    if (track.name) {
        // Kineto writes "stream 7 " with a trailing space.
        std::string n = str(track.name);
        while (!n.empty() && n.back() == ' ')
            n.pop_back();
        return n;
    }
    if (track.tid.empty()) return "Process-wide";
    return "Thread " + track.tid;
}

EventId Trace::firstSliceEndingAfter(TrackId t, TimeNs time) const
{
    const Track& track = m_tracks[t];
    if (track.begin == track.end) return kNone;
    // Any slice ending after `time` starts after time - maxDur.
    const TimeNs maxDur = t < m_trackMaxDur.size() ? m_trackMaxDur[t] : 0;
    const TimeNs from = time - maxDur;
    auto sl = trackSlices(t);
    auto it = std::lower_bound(sl.begin(), sl.end(), from,
                               [](const Slice& s, TimeNs v) { return s.start < v; });
    for (; it != sl.end(); ++it) {
        if (it->end() > time || it->start > time)
            return track.begin + static_cast<EventId>(it - sl.begin());
    }
    return kNone;
}

EventId Trace::sliceAt(TrackId t, TimeNs time) const
{
    const Track& track = m_tracks[t];
    if (track.begin == track.end) return kNone;
    auto sl = trackSlices(t);
    // Last slice starting at or before time; walk up parents until one contains time.
    auto it = std::upper_bound(sl.begin(), sl.end(), time,
                               [](TimeNs v, const Slice& s) { return v < s.start; });
    return sliceAtFrom(t, time, std::size_t(it - sl.begin()));
}

EventId Trace::sliceAt(TrackId t, TimeNs time, std::size_t* hint) const
{
    if (m_tracks[t].begin == m_tracks[t].end) return kNone;
    return sliceAtFrom(t, time, upperBoundNear(t, time, hint));
}

std::size_t Trace::upperBoundNear(TrackId t, TimeNs time, std::size_t* hint) const
{
    auto sl = trackSlices(t);
    std::size_t lo = 0, hi = sl.size();
    const std::size_t h = *hint;
    if (h <= sl.size()) {
        if (h == 0 || sl[h - 1].start <= time) { // at or after the hint: gallop forward
            lo = h;
            for (std::size_t step = 1; lo < hi; step *= 2) {
                const std::size_t p = std::min(lo + step - 1, hi - 1);
                if (sl[p].start > time) {
                    hi = p;
                    break;
                }
                lo = p + 1;
            }
        } else { // before it: gallop back
            hi = h - 1;
            for (std::size_t step = 1; lo < hi; step *= 2) {
                const std::size_t p = hi >= step ? hi - step : 0;
                if (sl[p].start <= time) {
                    lo = p + 1;
                    break;
                }
                hi = p;
            }
        }
    }
    const auto it =
        std::upper_bound(sl.begin() + std::ptrdiff_t(lo), sl.begin() + std::ptrdiff_t(hi), time,
                         [](TimeNs v, const Slice& s) { return v < s.start; });
    *hint = std::size_t(it - sl.begin());
    return *hint;
}

EventId Trace::sliceAtFrom(TrackId t, TimeNs time, std::size_t upper) const
{
    const Track& track = m_tracks[t];
    auto sl = trackSlices(t);
    auto it = sl.begin() + std::ptrdiff_t(upper);
    EventId best = kNone;
    int depth = -1;
    // Slices with equal start can sit at several depths; scan back over the few candidates
    // whose start is within the deepest possible ancestor chain.
    std::size_t steps = 0;
    while (it != sl.begin() && steps < 64) {
        --it;
        ++steps;
        const EventId id = track.begin + static_cast<EventId>(it - sl.begin());
        EventId cur = id;
        while (cur != kNone) {
            const Slice& s = slice(cur);
            if (s.start <= time && (time < s.end() || (s.dur == 0 && time == s.start))) {
                if (s.depth > depth) {
                    depth = s.depth;
                    best = cur;
                }
                break;
            }
            cur = s.parent;
        }
        if (best != kNone && it->start < slice(best).start) break;
    }
    return best;
}

ProcessId Trace::findProcess(std::string_view pid) const
{
    for (ProcessId p = 0; p < m_processes.size(); ++p)
        if (m_processes[p].pid == pid) return p;
    return kNone;
}

TrackId Trace::findTrack(ProcessId p, std::string_view tid, TrackKind kind) const
{
    if (p >= m_processes.size()) return kNone;
    for (TrackId t : m_processes[p].tracks)
        if (m_tracks[t].kind == kind && m_tracks[t].tid == tid) return t;
    return kNone;
}

std::size_t Trace::modelBytes() const
{
    // The slices by size: the builder leaves capacity it never touched (not resident).
    std::size_t b =
        std::max(m_slices.size(), m_mappedSlices.size()) * (sizeof(Slice) + sizeof(SliceKind)) +
        m_steps.capacity() * sizeof(StepMark) + m_strings.bytes() +
        m_flows.capacity() * sizeof(Flow) + (m_flowOut.capacity() + m_flowIn.capacity()) * 8 +
        m_eventFrames.capacity() * 8 + m_stackFrames.capacity() * sizeof(StackFrame);
    for (const CounterSeries& c : m_counters)
        b += c.ts.capacity() * 8 + c.values.capacity() * 8;
    b += m_tracks.capacity() * sizeof(Track) + m_processes.capacity() * sizeof(Process);
    return b;
}

} // namespace rs
