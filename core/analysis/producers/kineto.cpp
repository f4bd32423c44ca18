// PyTorch Kineto traces (CUPTI / roctracer): host threads and GPU streams told apart by their
// categories, collectives as host ops (nccl:*, c10d::*, record_param_comms, vllm::*...) with the
// kernels and copies they launched (flows ac2g / async_cpu_to_gpu, else the correlation id).

#include "core/analysis/producers/kineto.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

namespace rs::analysis {

namespace {

class KinetoModel final : public ProducerModel {
public:
    Producer id() const override { return Producer::Kineto; }

    std::vector<TrackRole> trackRoles(const Trace& trace) const override
    {
        const auto& tracks = trace.tracks();
        std::vector<TrackRole> roles(tracks.size(), TrackRole::Other);
        for (TrackId t = 0; t < tracks.size(); ++t) {
            if (tracks[t].kind != TrackKind::Counter) roles[t] = roleFromCategories(trace, t);
        }
        return roles;
    }

    std::uint8_t classifyName(std::string_view n) const override { return kinetoNameClass(n); }
    void addLaunches(AnalysisContext& ctx) const override { addKinetoLaunches(ctx); }
    void findCollectives(AnalysisContext& ctx, std::vector<Collective>& out) const override
    {
        findKinetoCollectives(ctx, out);
    }
    void prepareComputing(AnalysisContext& ctx,
                          const std::vector<Collective>& collectives) const override
    {
        prepareKinetoComputing(ctx, collectives);
    }
    bool isComputing(AnalysisContext& ctx, EventId e) const override
    {
        return kinetoComputing(ctx, e);
    }
    int flowRank(std::string_view cat) const override { return kinetoFlowRank(cat); }
};

std::string algorithmFromKernel(std::string_view n)
{
    // ncclKernel_AllReduce_RING_LL_Sum_float -> RING_LL
    std::string alg;
    std::size_t pos = 0;
    const std::string s(n.substr(0, n.find('(')));
    while (pos <= s.size()) {
        std::size_t next = s.find('_', pos);
        if (next == std::string::npos) next = s.size();
        const std::string tok = s.substr(pos, next - pos);
        if (tok == "RING" || tok == "TREE" || tok == "NVLS" || tok == "NVLSTREE" ||
            tok == "COLLNET" || tok == "PAT" || tok == "LL" || tok == "LL128" || tok == "SIMPLE") {
            if (!alg.empty()) alg += '_';
            alg += tok;
        }
        pos = next + 1;
    }
    return alg;
}

std::optional<std::uint64_t> correlationOf(const Trace& t, EventId e)
{
    // A text search, not a JSON parse: this runs on many launch calls.
    const std::string_view a = t.argsText(e);
    const std::size_t k = a.find("\"correlation\"");
    if (k == std::string_view::npos) return std::nullopt;
    std::size_t i = a.find(':', k);
    if (i == std::string_view::npos) return std::nullopt;
    ++i;
    while (i < a.size() && (a[i] == ' ' || a[i] == '"'))
        ++i;
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(a.data() + i, a.data() + a.size(), v);
    if (ec != std::errc() || p == a.data() + i) return std::nullopt;
    return v;
}

// Outermost collective host op enclosing h (h included), or kNone.
EventId outerCollectiveHost(const AnalysisContext& ctx, EventId h)
{
    EventId found = kNone;
    for (EventId cur = h; cur != kNone; cur = ctx.trace.slice(cur).parent) {
        if (ctx.classOf(ctx.trace.slice(cur).name) & kNcCollHost) found = cur;
    }
    return found;
}

// Innermost collective host op enclosing h whose name says the kind (record_param_comms
// without args wraps nccl:all_to_all in older Kineto).
EventId kindHost(const AnalysisContext& ctx, EventId h)
{
    const Trace& t = ctx.trace;
    for (EventId cur = h; cur != kNone; cur = t.slice(cur).parent) {
        if ((ctx.classOf(t.slice(cur).name) & kNcCollHost) &&
            kindFromName(t.str(t.slice(cur).name)) != CollectiveKind::Other)
            return cur;
    }
    return kNone;
}

// Kind, sizes, group from the host op, its record_param_comms and the kernel's args.
void fillKineto(AnalysisContext& ctx, Collective& c,
                const std::vector<std::pair<EventId, EventId>>& copies, EventId kindSource)
{
    const Trace& t = ctx.trace;
    const auto sl = t.slices();
    FieldErrors* err = ctx.errors;
    const StrId catMemcpy = t.strings().find("gpu_memcpy");
    c.rank = t.rank();
    c.name = t.str(sl[c.event].name);
    c.algorithm = algorithmFromKernel(c.name);
    std::vector<nlohmann::json> sources;
    sources.push_back(t.args(c.event));
    if (c.hostEvent != kNone) {
        const Slice& h = sl[c.hostEvent];
        const Track& tr = t.tracks()[h.track];
        // record_param_comms inside the host op holds the sizes; stop at its end.
        for (EventId i = c.hostEvent; i < tr.end && sl[i].start <= h.end(); ++i) {
            if (t.str(sl[i].name) == "record_param_comms") {
                sources.push_back(t.args(i));
                break;
            }
        }
        c.kind = kindFromName(t.str(h.name));
        if (c.kind == CollectiveKind::Other && kindSource != kNone)
            c.kind = kindFromName(t.str(sl[kindSource].name));
    }
    for (const auto& a : sources) {
        if (c.kind == CollectiveKind::Other) {
            const std::string n = argStr(a, "Collective name", err);
            if (!n.empty()) c.kind = kindFromName(n);
        }
        if (c.count == 0) c.count = argU64(a, "In msg nelems", err).value_or(0);
        if (c.dtype.empty()) c.dtype = argStr(a, "dtype", err);
        if (c.groupSize == 0) c.groupSize = int(argU64(a, "Group size", err).value_or(0));
        if (c.group.empty()) c.group = argStr(a, "Process Group Name", err);
    }
    if (c.kind == CollectiveKind::Other) c.kind = kindFromName(c.name);
    // ncclDevKernel_Generic says nothing: a GPU annotation around it ("nccl:all_reduce") may.
    for (EventId p = sl[c.event].parent; c.kind == CollectiveKind::Other && p != kNone;
         p = sl[p].parent)
        c.kind = kindFromName(t.str(sl[p].name));
    c.bytes = c.count * std::uint64_t(std::max(0, dtypeBytes(c.dtype)));
    if (c.groupSize == 0) {
        const auto& md = t.metadata();
        if (auto it = md.find("distributedInfo"); it != md.end() && it->is_object())
            c.groupSize = int(argU64(*it, "world_size", err).value_or(0));
    }
    const AnalysisOptions& opt = ctx.options;
    std::set<EventId> seen;
    auto addCopy = [&](EventId d, EventId launch) {
        if (!seen.insert(d).second) return;
        const nlohmann::json a = t.args(d);
        InternalCopy cp;
        cp.event = d;
        cp.start = sl[d].start;
        cp.dur = sl[d].dur;
        cp.bytes = argU64(a, "bytes", err).value_or(0);
        bool badAddr = false;
        checkAddresses(a, opt.addrAlign, &badAddr);
        if (launch != kNone) {
            const nlohmann::json la = t.args(launch);
            checkAddresses(la, opt.addrAlign, &badAddr);
            if (cp.bytes == 0) cp.bytes = argU64(la, "bytes", err).value_or(0);
        }
        cp.unalignedSize =
            opt.sizeAlign > 0 && cp.bytes > opt.sizeAlign && cp.bytes % opt.sizeAlign != 0;
        cp.unalignedAddress = badAddr;
        if (cp.unalignedSize || cp.unalignedAddress) {
            ++c.unalignedCount;
            ctx.unaligned.push_back(d);
        }
        c.copies.push_back(std::move(cp));
    };
    for (const auto& [d, launch] : copies)
        addCopy(d, launch);
    // Copies on the collective's own stream within its span belong to it too.
    const TrackId st = sl[c.event].track;
    EventId i = t.firstSliceEndingAfter(st, c.start);
    for (; i != kNone && i < t.tracks()[st].end && sl[i].start < c.start + c.dur; ++i) {
        if (sl[i].cat == catMemcpy && sl[i].start >= c.start) addCopy(i, kNone);
    }
    std::sort(c.copies.begin(), c.copies.end(),
              [](const InternalCopy& a, const InternalCopy& b) { return a.start < b.start; });
}

struct HostGroup {
    EventId kindHost = kNone;
    std::vector<EventId> kernels;
    std::vector<std::pair<EventId, EventId>> copies; // device memcpy, its launch
    std::vector<EventId> launched;
};

} // namespace

std::uint8_t kinetoNameClass(std::string_view n)
{
    std::uint8_t c = 0;
    if (startsWith(n, "ncclKernel") || startsWith(n, "ncclDevKernel") ||
        startsWith(n, "rcclKernel") || startsWith(n, "rcclDevKernel"))
        c |= kNcCollKernel;
    if (startsWith(n, "ProfilerStep#")) c |= kNcStep;
    static const std::string_view hostPrefixes[] = {
        "nccl:",  "gloo:",     "c10d::", "c10d_functional::", "_c10d_functional::",
        "vllm::", "symm_mem::"};
    for (std::string_view p : hostPrefixes) {
        if (startsWith(n, p) && kindFromName(n) != CollectiveKind::Other) {
            c |= kNcCollHost;
            break;
        }
    }
    if (n == "record_param_comms") c |= kNcCollHost;
    return c;
}

void addKinetoLaunches(AnalysisContext& ctx)
{
    const Trace& t = ctx.trace;
    const auto sl = t.slices();
    const auto& tracks = t.tracks();
    std::vector<std::pair<std::uint64_t, EventId>> want; // correlation -> kernel
    for (TrackId tr = 0; tr < tracks.size(); ++tr) {
        if (ctx.roles[tr] != TrackRole::GpuStream) continue;
        for (EventId e = tracks[tr].begin; e < tracks[tr].end; ++e) {
            if (!(ctx.classOf(sl[e].name) & kNcCollKernel) || !ctx.launchesOf(e).empty()) continue;
            if (auto c = correlationOf(t, e)) want.emplace_back(*c, e);
        }
    }
    if (want.empty()) return;
    std::sort(want.begin(), want.end());
    const StrId catRuntime = t.strings().find("cuda_runtime");
    for (TrackId tr = 0; tr < tracks.size(); ++tr) {
        if (ctx.roles[tr] != TrackRole::Host) continue;
        for (EventId e = tracks[tr].begin; e < tracks[tr].end; ++e) {
            if (sl[e].cat != catRuntime || t.str(sl[e].name).find("Launch") == std::string::npos)
                continue;
            auto c = correlationOf(t, e);
            if (!c) continue;
            auto it = std::lower_bound(want.begin(), want.end(), std::make_pair(*c, 0u));
            for (; it != want.end() && it->first == *c; ++it)
                ctx.launch.emplace_back(it->second, e);
        }
    }
    std::sort(ctx.launch.begin(), ctx.launch.end());
}

void findKinetoCollectives(AnalysisContext& ctx, std::vector<Collective>& out)
{
    const Trace& t = ctx.trace;
    const auto sl = t.slices();
    const StrId catMemcpy = t.strings().find("gpu_memcpy");
    const StrId catKernel = t.strings().find("kernel");
    std::map<EventId, HostGroup> byHost;
    std::set<EventId> taken;
    for (const auto& [dev, host] : ctx.launch) {
        if (ctx.roles[sl[dev].track] != TrackRole::GpuStream) continue;
        const EventId h = outerCollectiveHost(ctx, host);
        if (h == kNone) continue;
        HostGroup& g = byHost[h];
        if (g.kindHost == kNone) g.kindHost = kindHost(ctx, host);
        g.launched.push_back(dev);
        if (sl[dev].cat == catMemcpy)
            g.copies.emplace_back(dev, host);
        else if (sl[dev].cat == catKernel)
            g.kernels.push_back(dev);
    }
    for (auto& [h, g] : byHost) {
        if (g.kernels.empty()) continue;
        // The communication kernel: an NCCL one when present, else the longest.
        EventId main = kNone;
        for (EventId k : g.kernels) {
            const bool nccl = ctx.classOf(sl[k].name) & kNcCollKernel;
            if (main == kNone || (nccl && !(ctx.classOf(sl[main].name) & kNcCollKernel)) ||
                (nccl == bool(ctx.classOf(sl[main].name) & kNcCollKernel) &&
                 sl[k].end() > sl[main].end()))
                main = k;
        }
        Collective c;
        c.event = main;
        c.hostEvent = h;
        TimeNs first = sl[main].start, last = sl[main].end();
        for (EventId d : g.launched)
            first = std::min(first, sl[d].start);
        for (EventId k : g.kernels)
            last = std::max(last, sl[k].end());
        c.start = first;
        c.dur = last - first;
        for (EventId k : g.kernels)
            taken.insert(k);
        c.tasks = g.kernels;
        fillKineto(ctx, c, g.copies, g.kindHost);
        out.push_back(std::move(c));
    }
    // NCCL kernels whose host op was not recognised (or no flows): the kernel alone.
    const auto& tracks = t.tracks();
    for (TrackId tr = 0; tr < tracks.size(); ++tr) {
        if (ctx.roles[tr] != TrackRole::GpuStream) continue;
        for (EventId e = tracks[tr].begin; e < tracks[tr].end; ++e) {
            if (!(ctx.classOf(sl[e].name) & kNcCollKernel) || taken.count(e)) continue;
            Collective c;
            c.event = e;
            const auto l = ctx.launchesOf(e);
            c.hostEvent = l.empty() ? kNone : l.front();
            c.start = sl[e].start;
            c.dur = sl[e].dur;
            fillKineto(ctx, c, {}, kNone);
            out.push_back(std::move(c));
        }
    }
}

void prepareKinetoComputing(AnalysisContext& ctx, const std::vector<Collective>& collectives)
{
    // Events that are part of a collective are communication, never computing.
    ctx.inCollective.clear();
    for (const Collective& c : collectives) {
        if (ctx.roles[ctx.trace.slice(c.event).track] != TrackRole::GpuStream) continue;
        ctx.inCollective.push_back(c.event);
        ctx.inCollective.insert(ctx.inCollective.end(), c.tasks.begin(), c.tasks.end());
    }
    std::sort(ctx.inCollective.begin(), ctx.inCollective.end());
    ctx.catKernel = ctx.trace.strings().find("kernel");
}

bool kinetoComputing(AnalysisContext& ctx, EventId e)
{
    const Slice& s = ctx.trace.slice(e);
    if (ctx.roles[s.track] != TrackRole::GpuStream) return false;
    return s.cat == ctx.catKernel &&
           !std::binary_search(ctx.inCollective.begin(), ctx.inCollective.end(), e);
}

int kinetoFlowRank(std::string_view cat)
{
    // Launch flows name the op that started the device work; fwdbwd links forward to
    // backward: not a caller.
    if (cat == "ac2g" || cat == "async_cpu_to_gpu") return 0;
    if (cat == "fwdbwd") return -1;
    return 3;
}

const ProducerModel& kinetoModel()
{
    static const KinetoModel model;
    return model;
}

} // namespace rs::analysis
