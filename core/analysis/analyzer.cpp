#include "core/analysis/analyzer.h"

#include "core/analysis/criticalpath.h"
#include "core/analysis/presentation.h"
#include "core/analysis/producermodel.h"
#include "core/analysis/rules/rules.h"
#include "core/analysis/steps.h"

#include <algorithm>

namespace rs {

using namespace analysis;

namespace {

double busFactor(CollectiveKind k, int n)
{
    if (n <= 1) return 1.0;
    switch (k) {
    case CollectiveKind::AllReduce:
        return 2.0 * (n - 1) / n;
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllToAll:
        return double(n - 1) / n;
    default:
        return 1.0;
    }
}

// Device event -> the host slice that launched it (first flow from another track).
void buildLaunchIndex(AnalysisContext& ctx)
{
    const auto sl = ctx.trace.slices();
    const auto& flows = ctx.trace.flows();
    auto& l = ctx.launch;
    // In the targets' order already: the lowest launching slice of each device event is kept
    // (sorting a million pairs was 5% of analysing a torch_npu trace).
    for (const auto& [to, index] : ctx.trace.flowsByTarget()) {
        const Flow& f = flows[index];
        if (f.from == kNone || f.to == kNone || f.from >= sl.size() || f.to >= sl.size()) continue;
        const TrackRole toRole = ctx.roles[sl[f.to].track];
        const TrackRole fromRole = ctx.roles[sl[f.from].track];
        if (!isLaunchedRole(toRole) || !isHostRole(fromRole)) continue;
        if (!l.empty() && l.back().first == f.to)
            l.back().second = std::min(l.back().second, f.from);
        else
            l.emplace_back(f.to, f.from);
    }
}

void finishCollective(Collective& c)
{
    c.memcpyCount = int(c.copies.size());
    c.memcpyBytes = 0;
    // Copies on several HCCL planes run in parallel: count the time some copy runs.
    std::vector<std::pair<TimeNs, TimeNs>> iv;
    for (const InternalCopy& cp : c.copies) {
        iv.emplace_back(cp.start, cp.start + cp.dur);
        c.memcpyBytes += cp.bytes;
    }
    c.memcpyNs = unionLength(std::move(iv));
    // A recorded call's span is from its enqueue to when it was seen done: no transfer rate.
    if (c.bytes > 0 && c.dur > 0 && !c.recorded()) {
        c.algbwGbps = double(c.bytes) / double(c.dur);
        c.busbwGbps = c.algbwGbps * busFactor(c.kind, c.groupSize);
    }
}

void buildIndex(AnalysisReport& rep, const std::vector<EventId>& unalignedSorted)
{
    std::vector<std::pair<EventId, std::uint8_t>> marks;
    auto& idx = rep.collectiveIndex;
    const auto& cols = rep.collectives;
    for (std::uint32_t i = 0; i < cols.size(); ++i) {
        const Collective& c = cols[i];
        std::uint8_t m = kMarkCollective;
        if (!c.copies.empty()) m |= kMarkHasInternalMemcpy;
        if (c.anomalous) m |= kMarkAnomalous;
        if (c.waiting) m |= kMarkWaiting;
        marks.emplace_back(c.event, m);
        idx.emplace_back(c.event, i);
        if (c.hostEvent != kNone) {
            marks.emplace_back(c.hostEvent, m);
            idx.emplace_back(c.hostEvent, i);
        }
        for (EventId t : c.tasks)
            idx.emplace_back(t, i);
        for (const InternalCopy& cp : c.copies) {
            std::uint8_t cm = kMarkInternalMemcpy;
            if (cp.extra) cm |= kMarkExtraMemcpy;
            if (cp.unalignedSize || cp.unalignedAddress) cm |= kMarkUnaligned;
            marks.emplace_back(cp.event, cm);
            idx.emplace_back(cp.event, i);
        }
    }
    for (EventId e : unalignedSorted)
        marks.emplace_back(e, kMarkUnaligned);
    std::sort(marks.begin(), marks.end());
    for (const auto& [e, m] : marks) {
        if (!rep.markIndex.empty() && rep.markIndex.back().first == e)
            rep.markIndex.back().second |= m;
        else
            rep.markIndex.emplace_back(e, m);
    }
    // An event maps to its first collective (stable sort keeps insertion order).
    std::stable_sort(idx.begin(), idx.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    idx.erase(std::unique(idx.begin(), idx.end(),
                          [](const auto& a, const auto& b) { return a.first == b.first; }),
              idx.end());
}

} // namespace

std::shared_ptr<AnalysisReport> analyze(TracePtr trace, const AnalysisOptions& options)
{
    auto rep = std::make_shared<AnalysisReport>();
    rep->options = options;
    if (!trace) return rep;
    rep->trace = trace;
    const Trace& t = *trace;
    const ProducerModel& model = producerModel(t);
    FieldErrors errors;
    AnalysisContext ctx(t, rep->options);
    ctx.errors = &errors;
    ctx.roles = trackRoles(t);
    const StringPool& sp = t.strings();
    ctx.nameClass.assign(sp.size(), 0);
    for (StrId i = 0; i < sp.size(); ++i)
        ctx.nameClass[i] = model.classifyName(sp.str(i));

    buildLaunchIndex(ctx);
    model.addLaunches(ctx);
    model.findCollectives(ctx, rep->collectives);
    std::sort(rep->collectives.begin(), rep->collectives.end(),
              [](const Collective& a, const Collective& b) {
                  return a.start != b.start ? a.start < b.start : a.event < b.event;
              });
    for (Collective& c : rep->collectives)
        finishCollective(c);
    rules::judgeCollectives(*rep, ctx);
    rep->steps = computeSteps(ctx, model, rep->collectives);
    model.finishCommunication(ctx, *rep);
    rules::collectiveFindings(*rep, ctx);
    rules::communicationFindings(*rep);
    rules::sortFindings(*rep);
    buildIndex(*rep, ctx.unaligned);
    if (options.criticalPath) {
        rep->pathPieces = analysis::pathPieces(ctx, *rep);
        addCopyGains(*rep);
    }
    rep->badFields = errors.total();
    if (errors.total() > 0) rep->warnings.push_back(presentation::badFields(errors.byKey()));
    return rep;
}

} // namespace rs
