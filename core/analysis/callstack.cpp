#include "core/analysis/analyzer.h"
#include "core/analysis/producermodel.h"

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

// The slice enclosing e (e's ancestors on its thread) that is named as a "Call stack" frame:
// torch_npu records the Python functions of that stack as python_function slices around the op.
EventId enclosingNamed(const Trace& trace, EventId e, std::string_view frame)
{
    const StrId name = trace.strings().find(frame);
    if (name == kNone) return kNone;
    std::size_t guard = 0;
    for (EventId p = trace.slice(e).parent; p != kNone && guard++ < 4096; p = trace.slice(p).parent)
        if (trace.slice(p).name == name) return p;
    return kNone;
}

} // namespace

std::vector<StackEntry> callStack(const Trace& trace, EventId e, std::size_t maxDepth)
{
    std::vector<StackEntry> out;
    if (e >= trace.slices().size() || maxDepth == 0) return out;
    const analysis::ProducerModel& model = analysis::producerModel(trace);
    const auto roles = analysis::trackRoles(trace);
    std::unordered_set<EventId> visited;
    bool haveCallStack = false, haveFrames = false;
    EventId cur = e;
    std::string kind = "slice";
    while (cur != kNone && out.size() < maxDepth) {
        if (!visited.insert(cur).second) break; // a cycle through flows
        const Slice& s = trace.slice(cur);
        const bool python = trace.kind(cur) == SliceKind::Python;
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
                        const EventId ev = enclosingNamed(trace, cur, f);
                        out.push_back({std::move(f), ev, "call stack"});
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

        const bool device = isDeviceRole(roles[s.track]);
        EventId next = kNone;
        if ((s.flags & kSliceFlowIn) && (device || s.parent == kNone)) {
            int best = 99;
            for (std::uint32_t fi : trace.flowsTo(cur)) {
                const Flow& fl = trace.flows()[fi];
                if (fl.from == kNone || fl.from >= trace.slices().size() ||
                    trace.slice(fl.from).track == s.track || visited.count(fl.from))
                    continue;
                const int p = model.flowRank(trace.str(fl.cat));
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
        // Producer-specific links (an HCCL task's op, a CANN call's Python thread).
        if (next == kNone) {
            const char* k = "slice";
            next = model.stackContinuation(trace, roles, cur, visited, &k);
            if (next != kNone) kind = k;
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
