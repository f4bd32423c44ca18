#include "core/analysis/analysisutil.h"
#include "core/analysis/analyzer.h"

#include <algorithm>
#include <unordered_set>

namespace rs {

namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() &&
           (s.front() == ' ' || s.front() == '\t' || s.front() == '\r' || s.front() == '\n'))
        s.remove_prefix(1);
    while (!s.empty() &&
           (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
        s.remove_suffix(1);
    return s;
}

// torch_npu writes frames innermost first separated by ";\r\n"; accept ";\n" and ";" too.
std::vector<std::string> splitFrames(std::string_view text)
{
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t next = text.find(';', pos);
        if (next == std::string_view::npos) next = text.size();
        const std::string_view f = trim(text.substr(pos, next - pos));
        if (!f.empty()) out.emplace_back(f);
        pos = next + 1;
    }
    return out;
}

int flowPriority(const std::string& cat)
{
    // Launch flows first (they name the op that started the device work), then torch_npu's
    // op-to-device and task-queue flows. fwdbwd links forward to backward: not a caller.
    if (cat == "HostToDevice" || cat == "ac2g" || cat == "async_cpu_to_gpu") return 0;
    if (cat == "async_npu") return 1;
    if (cat == "async_task_queue") return 2;
    if (cat == "fwdbwd") return -1;
    return 3;
}

} // namespace

std::vector<StackEntry> callStack(const Trace& trace, EventId e, std::size_t maxDepth)
{
    std::vector<StackEntry> out;
    if (e >= trace.slices().size() || maxDepth == 0) return out;
    const auto roles = analysis::trackRoles(trace);
    const StrId catPy = trace.strings().find("python_function");
    std::unordered_set<EventId> visited;
    bool haveCallStack = false, haveFrames = false;
    EventId cur = e;
    std::string kind = "slice";
    while (cur != kNone && out.size() < maxDepth) {
        if (!visited.insert(cur).second) break; // a cycle through flows
        const Slice& s = trace.slice(cur);
        const bool python = s.cat == catPy && catPy != kNone;
        // Python frames already given by a "Call stack" string would repeat as slices.
        if (!(haveCallStack && python))
            out.push_back({trace.str(s.name), cur, python ? std::string("python") : kind});
        if (!haveCallStack) {
            const std::string_view text = trace.argsText(cur);
            if (text.find("\"Call stack\"") != std::string_view::npos) {
                const nlohmann::json a = trace.args(cur);
                auto it = a.find("Call stack");
                if (it != a.end() && it->is_string()) {
                    for (std::string& f : splitFrames(it->get_ref<const std::string&>())) {
                        if (out.size() >= maxDepth) break;
                        out.push_back({std::move(f), kNone, "call stack"});
                        haveCallStack = true;
                    }
                }
            }
        }
        if (!haveFrames) {
            std::uint32_t f = trace.eventStackFrame(cur);
            const auto& frames = trace.stackFrames();
            std::size_t guard = 0;
            while (f != kNone && f < frames.size() && out.size() < maxDepth && guard++ < maxDepth) {
                out.push_back({trace.str(frames[f].name), kNone, "stack frame"});
                haveFrames = true;
                f = frames[f].parent;
            }
        }

        const analysis::TrackRole role = roles[s.track];
        const bool device =
            role == analysis::TrackRole::GpuStream || role == analysis::TrackRole::AscendDevice ||
            role == analysis::TrackRole::HcclGroup || role == analysis::TrackRole::HcclPlane;
        EventId next = kNone;
        if ((s.flags & kSliceFlowIn) && (device || s.parent == kNone)) {
            int best = 99;
            for (std::uint32_t fi : trace.flowsTo(cur)) {
                const Flow& fl = trace.flows()[fi];
                if (fl.from == kNone || fl.from >= trace.slices().size() ||
                    trace.slice(fl.from).track == s.track || visited.count(fl.from))
                    continue;
                const int p = flowPriority(trace.str(fl.cat));
                if (p >= 0 && p < best) {
                    best = p;
                    next = fl.from;
                }
            }
            if (next != kNone) kind = device ? "host op" : "flow";
        }
        if (next == kNone && s.parent != kNone) {
            next = s.parent;
            kind = "slice";
        }
        // A HCCL task belongs to the op on the Group thread whose interval holds it.
        if (next == kNone && role == analysis::TrackRole::HcclPlane) {
            const ProcessId p = trace.tracks()[s.track].process;
            for (TrackId t : trace.processes()[p].tracks) {
                if (roles[t] != analysis::TrackRole::HcclGroup) continue;
                const EventId op = trace.sliceAt(t, s.start);
                if (op != kNone && !visited.count(op)) {
                    next = op;
                    kind = "slice";
                    break;
                }
            }
        }
        // torch_npu's CANN and Python processes share thread ids: one OS thread.
        if (next == kNone && role == analysis::TrackRole::Cann) {
            const std::string& tid = trace.tracks()[s.track].tid;
            for (ProcessId p = 0; p < trace.processes().size(); ++p) {
                if (trace.str(trace.processes()[p].name) != "Python") continue;
                const TrackId t = trace.findTrack(p, tid);
                if (t == kNone) continue;
                const EventId host = trace.sliceAt(t, s.start);
                if (host != kNone && !visited.count(host)) {
                    next = host;
                    kind = "host op";
                }
                break;
            }
        }
        cur = next;
    }
    return out;
}

std::string sourceFrame(const std::vector<StackEntry>& chain)
{
    static const std::string_view library[] = {
        "torch/",   "site-packages", "dist-packages", "<built-in",        "threading.py",
        "<string>", "torch_npu/",    "runpy.py",      "multiprocessing/", "<frozen"};
    for (const StackEntry& s : chain) {
        if (s.kind != "call stack" && s.kind != "python" && s.kind != "stack frame") continue;
        bool lib = false;
        for (std::string_view l : library) {
            if (s.text.find(l) != std::string::npos) {
                lib = true;
                break;
            }
        }
        if (!lib) return s.text;
    }
    return {};
}

} // namespace rs
