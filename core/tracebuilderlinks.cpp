// TraceBuilder's links beyond the flow events (tracebuilder.h): the flows a producer implies
// (Producer::impliedFlows) and the stack frames of the trace's "stackFrames" and "sf" fields,
// resolved when the trace is finished. Kept apart from tracebuilder.cpp, which reads events.

#include "core/producers/producer.h"
#include "core/tracebuilder.h"

#include <algorithm>
#include <string>
#include <string_view>

namespace rs {

void TraceBuilder::addImpliedFlows(const ImpliedFlows& implied)
{
    Trace& tr = *m_trace;
    const std::size_t n = tr.m_slices.size();
    if (implied.links.empty()) return;
    const StrId cat = tr.m_strings.intern(implied.category);
    std::size_t added = 0;
    for (const ImpliedFlow& l : implied.links) {
        if (l.from >= n || l.to >= n || l.from == l.to) continue;
        Flow f;
        f.from = l.from;
        f.to = l.to;
        f.cat = cat;
        f.name = cat;
        f.id = l.id;
        tr.m_slices[l.from].flags |= kSliceFlowOut;
        tr.m_slices[l.to].flags |= kSliceFlowIn;
        const auto i = static_cast<std::uint32_t>(tr.m_flows.size());
        tr.m_flows.push_back(f);
        tr.m_flowOut.emplace_back(f.from, i);
        tr.m_flowIn.emplace_back(f.to, i);
        ++added;
    }
    if (!added) return;
    std::sort(tr.m_flowOut.begin(), tr.m_flowOut.end());
    std::sort(tr.m_flowIn.begin(), tr.m_flowIn.end());
    addWarning(std::to_string(added) + " " + implied.category +
               " flow(s) the trace's flow events do not give were linked " + implied.how);
}

std::uint32_t TraceBuilder::frameFor(const std::string& idText)
{
    auto it = m_frameIndex.find(idText);
    return it == m_frameIndex.end() ? kNone : it->second;
}

void TraceBuilder::cutFrameCycles()
{
    // A file can chain parents into a loop (a -> b -> a); every walker would spin forever, so
    // the edge that closes a loop is cut here, once: each frame is visited O(1) times.
    std::vector<StackFrame>& frames = m_trace->m_stackFrames;
    std::vector<std::uint8_t> state(frames.size(), 0); // 0 new, 1 on the current path, 2 done
    std::vector<std::uint32_t> path;
    for (std::uint32_t i = 0; i < frames.size(); ++i) {
        path.clear();
        std::uint32_t f = i;
        while (f != kNone && state[f] == 0) {
            state[f] = 1;
            path.push_back(f);
            const std::uint32_t next = frames[f].parent;
            if (next != kNone && state[next] == 1) {
                frames[f].parent = kNone;
                ++m_trace->m_stats.badFields;
                break;
            }
            f = next;
        }
        for (std::uint32_t v : path)
            state[v] = 2;
    }
}

void TraceBuilder::resolveStackFrames(const std::vector<EventId>& newIndex)
{
    Trace& tr = *m_trace;
    if (m_stackFramesJson.is_object()) {
        for (auto it = m_stackFramesJson.begin(); it != m_stackFramesJson.end(); ++it) {
            m_frameIndex.emplace(it.key(), static_cast<std::uint32_t>(tr.m_stackFrames.size()));
            StackFrame f;
            if (it->is_object()) {
                // A field of another type (null, a number...) is a bad field, never a throw.
                auto text = [&](const char* key) -> StrId {
                    const auto v = it->find(key);
                    if (v == it->end()) return tr.m_strings.intern(std::string_view());
                    if (!v->is_string()) {
                        ++tr.m_stats.badFields;
                        return tr.m_strings.intern(std::string_view());
                    }
                    return tr.m_strings.intern(v->get_ref<const std::string&>());
                };
                f.name = text("name");
                f.category = text("category");
            } else {
                ++tr.m_stats.badFields;
            }
            tr.m_stackFrames.push_back(f);
        }
        std::size_t i = 0;
        for (auto it = m_stackFramesJson.begin(); it != m_stackFramesJson.end(); ++it, ++i) {
            if (!it->is_object()) continue;
            auto p = it->find("parent");
            if (p == it->end()) continue;
            if (!p->is_string() && !p->is_number()) {
                if (!p->is_null()) ++tr.m_stats.badFields;
                continue;
            }
            const std::string parent = p->is_string() ? p->get<std::string>() : p->dump();
            const std::uint32_t pi = frameFor(parent);
            // A frame that is its own parent is a root.
            tr.m_stackFrames[i].parent = pi == i ? kNone : pi;
        }
        cutFrameCycles();
    }
    for (auto& [slice, id] : m_sliceFrames) {
        const std::uint32_t f = frameFor(id);
        if (f == kNone)
            ++tr.m_stats.badFields;
        else
            tr.m_eventFrames.emplace_back(newIndex[slice], f);
    }
    for (auto& [slice, names] : m_sliceStacks) {
        std::uint32_t parent = kNone;
        for (const std::string& n : names) {
            StackFrame f;
            f.name = tr.m_strings.intern(n);
            f.parent = parent;
            parent = static_cast<std::uint32_t>(tr.m_stackFrames.size());
            tr.m_stackFrames.push_back(f);
        }
        if (parent != kNone) tr.m_eventFrames.emplace_back(newIndex[slice], parent);
    }
    std::sort(tr.m_eventFrames.begin(), tr.m_eventFrames.end());
}

} // namespace rs
