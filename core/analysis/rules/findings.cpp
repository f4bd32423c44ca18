// Findings about collectives: the anomaly, waiting, unaligned transfers. The evidence comes
// from the producers' extraction and rules/judge.cpp; the words from presentation.h.

#include "core/analysis/analyzer.h"
#include "core/analysis/presentation.h"
#include "core/analysis/rules/rules.h"

#include <algorithm>

namespace rs::analysis::rules {

void collectiveFindings(AnalysisReport& rep, AnalysisContext& ctx)
{
    auto& out = rep.findings;
    std::sort(ctx.unaligned.begin(), ctx.unaligned.end());
    const Trace& t = ctx.trace;
    for (const Collective& c : rep.collectives) {
        std::vector<StackEntry> stack;
        auto chain = [&]() -> const std::vector<StackEntry>& {
            if (stack.empty()) stack = callStack(t, c.event);
            return stack;
        };
        if (c.anomalous) {
            Finding f;
            f.rule = "collective-extra-memcpy";
            f.severity = Severity::Error;
            f.rank = c.rank;
            f.events.push_back(c.event);
            for (const InternalCopy& cp : c.copies) {
                if (cp.extra) f.events.push_back(cp.event);
            }
            f.stack = chain();
            auto text = presentation::extraMemcpy(c, rep.options, sourceFrame(f.stack));
            f.title = std::move(text.title);
            f.recommendation = std::move(text.recommendation);
            f.start = c.start;
            f.end = c.start + c.dur;
            out.push_back(std::move(f));
        }
        // A recorded call in flight at a dump waited too: whom for is the job's finding
        // (collective-missing), one per hang, not one per waiting rank.
        if (c.waiting && !c.recorded()) {
            Finding f;
            f.rule = "collective-waiting";
            f.severity = Severity::Info;
            f.rank = c.rank;
            f.events.push_back(c.event);
            f.stack = chain();
            auto text = presentation::waiting(c);
            f.title = std::move(text.title);
            f.recommendation = std::move(text.recommendation);
            f.start = c.start;
            f.end = c.start + c.dur;
            out.push_back(std::move(f));
        }
        std::vector<EventId> badSize, badAddr;
        for (EventId task : c.tasks) {
            if (std::binary_search(ctx.unaligned.begin(), ctx.unaligned.end(), task))
                badSize.push_back(task);
        }
        for (const InternalCopy& cp : c.copies) {
            if (cp.unalignedAddress) badAddr.push_back(cp.event);
            if (cp.unalignedSize && c.tasks.empty()) badSize.push_back(cp.event);
        }
        if (!badSize.empty() || !badAddr.empty()) {
            Finding f;
            f.rule = badAddr.empty() ? "unaligned-transfer-size" : "unaligned-address";
            f.severity = Severity::Warning;
            f.rank = c.rank;
            f.events = badAddr.empty() ? badSize : badAddr;
            if (!badAddr.empty()) f.events.insert(f.events.end(), badSize.begin(), badSize.end());
            std::sort(f.events.begin(), f.events.end());
            f.events.erase(std::unique(f.events.begin(), f.events.end()), f.events.end());
            f.stack = chain();
            auto text = presentation::unaligned(c, rep.options, f.events.size(), !badAddr.empty(),
                                                sourceFrame(f.stack));
            f.title = std::move(text.title);
            f.recommendation = std::move(text.recommendation);
            const Slice& s0 = t.slice(f.events.front());
            f.start = s0.start;
            f.end = s0.end();
            out.push_back(std::move(f));
        }
    }
}

void sortFindings(AnalysisReport& rep)
{
    std::stable_sort(rep.findings.begin(), rep.findings.end(),
                     [](const Finding& a, const Finding& b) {
                         if (a.severity != b.severity) return a.severity > b.severity;
                         return a.start < b.start;
                     });
}

} // namespace rs::analysis::rules
