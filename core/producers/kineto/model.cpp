// PyTorch Kineto traces (CUPTI / roctracer): host threads and GPU streams told apart by their
// categories, collectives as host ops (nccl:*, c10d::*, record_param_comms, vllm::*...) with the
// kernels and copies they launched (flows ac2g / async_cpu_to_gpu, else the correlation id).

#include "core/producers/kineto/model.h"

#include "core/producers/kineto/correlation.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

namespace rs::analysis {

namespace {

class KinetoModel final : public ProducerModel {
public:
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
    void finishCommunication(AnalysisContext& ctx, AnalysisReport& rep) const override
    {
        kinetoFinishCommunication(ctx, rep);
    }
};

// Nominal per-direction bandwidth per GPU (GB/s) from the vendors' data sheets, by the device
// name Kineto writes in deviceProperties: the intra-node GPU link, the host link (PCIe cards),
// and a typical NIC of that generation's systems (one per GPU).
struct DeviceLinks {
    const char* match;     // substring of the device name
    const char* intraName; // NVLink or xGMI
    double intra;          // GB/s
    double pcie;           // GB/s, x16 per direction
    double net;            // GB/s per NIC
};

// Ordered: the first match wins ("H100 PCIe" before "H100").
const DeviceLinks kDeviceLinks[] = {
    {"V100", "NVLink", 150, 16, 12.5}, // NVLink2 300 GB/s bidirectional; EDR 100 Gb/s
    {"A100-PCIE", "PCIe", 32, 32, 25}, // PCIe card: Gen4 x16; HDR 200 Gb/s
    {"A100", "NVLink", 300, 32, 25},   // NVLink3 600 GB/s bidirectional (SXM4, PG509)
    {"H100 PCIe", "PCIe", 64, 64, 50}, // Gen5 x16; NDR 400 Gb/s
    {"H100", "NVLink", 450, 64, 50},   // NVLink4 900 GB/s bidirectional
    {"H200", "NVLink", 450, 64, 50},
    {"H800", "NVLink", 200, 64, 50}, // NVLink 400 GB/s bidirectional (export part)
    {"A800", "NVLink", 200, 32, 25},
    {"B200", "NVLink", 900, 64, 50}, // NVLink5 1.8 TB/s bidirectional
    {"GB200", "NVLink", 900, 64, 50},
    {"B100", "NVLink", 900, 64, 50},
    {"MI300X", "xGMI", 448, 64, 50}, // 7 Infinity Fabric links, 896 GB/s bidirectional
    {"MI250", "xGMI", 200, 32, 25},  // 8 links x 50 GB/s per direction (OAM)
};

const DeviceLinks* deviceLinks(const std::string& device)
{
    for (const DeviceLinks& d : kDeviceLinks) {
        if (device.find(d.match) != std::string::npos) return &d;
    }
    return nullptr;
}

// "[0, 1, 2]" (a string, as Kineto writes it) or an array of numbers.
std::vector<int> parseRanks(const nlohmann::json& v)
{
    std::vector<int> out;
    if (v.is_array()) {
        for (const auto& x : v)
            if (auto r = jsonU64(x)) out.push_back(int(*r));
    } else if (v.is_string()) {
        const std::string& s = v.get_ref<const std::string&>();
        for (std::size_t i = 0; i < s.size();) {
            if (s[i] < '0' || s[i] > '9') {
                ++i;
                continue;
            }
            std::size_t j = i;
            while (j < s.size() && s[j] >= '0' && s[j] <= '9')
                ++j;
            out.push_back(std::atoi(s.substr(i, j - i).c_str()));
            i = j;
        }
    }
    return out;
}

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
    sources.push_back(eventArgs(t, c.event, err));
    if (c.hostEvent != kNone) {
        const Slice& h = sl[c.hostEvent];
        const Track& tr = t.tracks()[h.track];
        // record_param_comms inside the host op holds the sizes; stop at its end.
        for (EventId i = c.hostEvent; i < tr.end && sl[i].start <= h.end(); ++i) {
            if (t.str(sl[i].name) == "record_param_comms") {
                sources.push_back(eventArgs(t, i, err));
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
        if (a.is_object() && !ctx.groupRanks.count(c.event)) {
            if (auto it = a.find("Process Group Ranks"); it != a.end()) {
                if (it->is_string() || it->is_array())
                    ctx.groupRanks[c.event] = parseRanks(*it);
                else if (err)
                    err->add("Process Group Ranks");
            }
        }
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
        const nlohmann::json a = eventArgs(t, d, err);
        InternalCopy cp;
        cp.event = d;
        cp.start = sl[d].start;
        cp.dur = sl[d].dur;
        cp.bytes = argU64(a, "bytes", err).value_or(0);
        bool badAddr = false;
        checkAddresses(a, opt.addrAlign, &badAddr, &cp.address);
        if (launch != kNone) {
            const nlohmann::json la = eventArgs(t, launch, err);
            checkAddresses(la, opt.addrAlign, &badAddr, &cp.address);
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
            if (auto c = kineto::correlationOf(t, e)) want.emplace_back(*c, e);
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
            auto c = kineto::correlationOf(t, e);
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

void kinetoFinishCommunication(AnalysisContext& ctx, AnalysisReport& rep)
{
    const Trace& t = ctx.trace;
    const auto& md = t.metadata();
    // deviceProperties lists the GPUs the process saw: the node's.
    std::string device;
    int gpusPerNode = 0;
    if (auto it = md.find("deviceProperties"); it != md.end() && it->is_array()) {
        gpusPerNode = int(it->size());
        if (!it->empty()) device = argStr(it->front(), "name", ctx.errors);
    }
    std::map<std::string, std::vector<int>> pgRanks; // distributedInfo.pg_config
    int world = 0;
    if (auto di = md.find("distributedInfo"); di != md.end() && di->is_object()) {
        world = int(argU64(*di, "world_size", nullptr).value_or(0));
        if (auto pg = di->find("pg_config"); pg != di->end() && pg->is_array()) {
            for (const auto& g : *pg) {
                if (!g.is_object()) continue;
                const std::string name = argStr(g, "pg_name", ctx.errors);
                if (auto r = g.find("ranks"); r != g.end()) pgRanks[name] = parseRanks(*r);
            }
        }
    }
    // A producer that states its devices and size as run facts, not in Kineto's keys (Nsight
    // Systems), is read the same way.
    if (md.find("deviceProperties") == md.end() && md.find("distributedInfo") == md.end()) {
        const RunFacts& facts = t.runFacts();
        if (!facts.devices.empty()) {
            gpusPerNode = int(facts.devices.size());
            device = facts.devices.front();
        }
        world = facts.worldSize.value_or(0);
    }
    const DeviceLinks* dl = deviceLinks(device);
    for (Collective& c : rep.collectives) {
        if (!std::isfinite(c.busbwGbps) ||
            ctx.roles[t.slice(c.event).track] != TrackRole::GpuStream)
            continue;
        std::vector<int> ranks;
        if (auto it = ctx.groupRanks.find(c.event); it != ctx.groupRanks.end()) ranks = it->second;
        if (ranks.empty())
            if (auto it = pgRanks.find(c.group); it != pgRanks.end()) ranks = it->second;
        // A group of one rank moves nothing between GPUs: no link to compare with.
        if ((!ranks.empty() && ranks.size() < 2) || (ranks.empty() && c.groupSize == 1)) continue;
        bool intra = false;
        std::string basis;
        const std::string node = "nodes of " + std::to_string(gpusPerNode) + " GPUs";
        if (!ranks.empty() && gpusPerNode > 0) {
            std::set<int> nodes;
            for (int r : ranks)
                nodes.insert(r / gpusPerNode);
            intra = nodes.size() == 1;
            const auto [lo, hi] = std::minmax_element(ranks.begin(), ranks.end());
            basis = std::string(intra ? "intra-node" : "inter-node") + ": group ranks " +
                    std::to_string(*lo) + "-" + std::to_string(*hi) + " on " +
                    std::to_string(nodes.size()) + " of the " + node +
                    " deviceProperties lists (ranks numbered node by node)";
        } else if (gpusPerNode > 0 && (c.groupSize > 0 || world > 0)) {
            const int n = c.groupSize > 0 ? c.groupSize : world;
            intra = n <= gpusPerNode;
            basis = std::string(intra ? "intra-node" : "inter-node") +
                    " assumed: " + std::to_string(n) + " ranks, " + node + " (deviceProperties)";
        } else {
            continue; // nothing says where the group runs
        }
        LinkAssumption l;
        l.name = intra ? (dl ? dl->intraName : "NVLink") : "InfiniBand/RoCE";
        l.peakGbps = linkPeak(ctx.options, l.name);
        if (!std::isfinite(l.peakGbps) && dl) l.peakGbps = intra ? dl->intra : dl->net;
        if (!std::isfinite(l.peakGbps)) continue;
        l.utilization = c.busbwGbps / l.peakGbps;
        l.basis = std::move(basis);
        if (dl) l.basis += "; " + device;
        c.link = std::move(l);
    }
}

const ProducerModel& kinetoModel()
{
    static const KinetoModel model;
    return model;
}

} // namespace rs::analysis
