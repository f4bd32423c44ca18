#include "core/analysis/analyzer.h"

#include "core/analysis/analysisutil.h"
#include "core/analysis/steps.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

namespace rs {

using namespace analysis;

namespace {

bool startsWith(std::string_view s, std::string_view p)
{
    return s.size() >= p.size() && s.substr(0, p.size()) == p;
}

// Per-name classes, computed once per distinct string so the scan over slices is a lookup.
enum NameClass : std::uint8_t {
    kNcCollHost = 1 << 0,   // host op of a collective (Kineto)
    kNcCollKernel = 1 << 1, // NCCL / RCCL device kernel
    kNcHcom = 1 << 2,       // HCCL op on a "Group N Communication" thread
    kNcStep = 1 << 3,       // ProfilerStep#N
};

std::uint8_t classify(std::string_view n)
{
    std::uint8_t c = 0;
    if (startsWith(n, "hcom_")) c |= kNcHcom;
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

std::string namePattern(std::string_view n)
{
    // Kernel signatures carry their argument list; digits are op counters in HCCL names.
    std::string out;
    for (char ch : n.substr(0, n.find('('))) {
        if (std::isdigit(static_cast<unsigned char>(ch))) {
            if (out.empty() || out.back() != '#') out.push_back('#');
        } else {
            out.push_back(ch);
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

// Args that hold buffer addresses, as producers name them.
const char* const kAddressKeys[] = {"src",     "dst",      "Addr",       "addr",       "address",
                                    "Address", "src addr", "dst addr",   "src_addr",   "dst_addr",
                                    "srcAddr", "dstAddr",  "input addr", "output addr"};

std::optional<std::uint64_t> findAddress(const nlohmann::json& a, std::uint64_t align,
                                         bool* misaligned)
{
    std::optional<std::uint64_t> first;
    if (!a.is_object()) return first;
    for (const char* k : kAddressKeys) {
        auto it = a.find(k);
        if (it == a.end()) continue;
        auto v = jsonU64(*it);
        if (!v) continue;
        if (!first) first = v;
        if (align > 0 && *v % align != 0) *misaligned = true;
    }
    return first;
}

void findAddress(const FlatArgs& a, std::uint64_t align, bool* misaligned)
{
    for (const char* k : kAddressKeys) {
        auto v = a.u64(k);
        if (v && align > 0 && *v % align != 0) *misaligned = true;
    }
}

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

std::string modeLetter(int m)
{
    return std::string(1, char('A' + std::min(m, 25)));
}

class Analyzer {
public:
    Analyzer(TracePtr trace, const AnalysisOptions& options)
        : m_trace(std::move(trace)), m_t(*m_trace), m_rep(std::make_shared<AnalysisReport>())
    {
        m_rep->trace = m_trace;
        m_rep->options = options;
    }

    ReportPtr run()
    {
        m_roles = trackRoles(m_t);
        classifyNames();
        buildLaunchIndex();
        linkByCorrelation();
        findHcclCollectives();
        findKinetoCollectives();
        std::sort(m_rep->collectives.begin(), m_rep->collectives.end(),
                  [](const Collective& a, const Collective& b) {
                      return a.start != b.start ? a.start < b.start : a.event < b.event;
                  });
        for (Collective& c : m_rep->collectives)
            finishCollective(c);
        judge();
        StepInput in{m_t, m_roles, m_launch};
        m_rep->steps = computeSteps(in, m_rep->collectives);
        buildFindings();
        buildIndex();
        return m_rep;
    }

private:
    std::uint8_t nameClass(StrId id) const { return id < m_class.size() ? m_class[id] : 0; }

    void classifyNames()
    {
        const StringPool& sp = m_t.strings();
        m_class.assign(sp.size(), 0);
        for (StrId i = 0; i < sp.size(); ++i)
            m_class[i] = classify(sp.str(i));
        m_catMemcpy = sp.find("gpu_memcpy");
        m_catKernel = sp.find("kernel");
    }

    // Device event -> the host slice that launched it (first flow from another track).
    void buildLaunchIndex()
    {
        const auto sl = m_t.slices();
        for (const Flow& f : m_t.flows()) {
            if (f.from == kNone || f.to == kNone || f.from >= sl.size() || f.to >= sl.size())
                continue;
            const TrackRole to = m_roles[sl[f.to].track];
            const TrackRole from = m_roles[sl[f.from].track];
            const bool toDevice = to == TrackRole::GpuStream || to == TrackRole::AscendDevice ||
                                  to == TrackRole::HcclGroup;
            const bool fromHost = from == TrackRole::Host || from == TrackRole::Cann;
            if (toDevice && fromHost) m_launch.emplace_back(f.to, f.from);
        }
        std::sort(m_launch.begin(), m_launch.end());
        m_launch.erase(std::unique(m_launch.begin(), m_launch.end(),
                                   [](const auto& a, const auto& b) { return a.first == b.first; }),
                       m_launch.end());
    }

    std::vector<EventId> launchesOf(EventId device) const
    {
        std::vector<EventId> out;
        auto it = std::lower_bound(m_launch.begin(), m_launch.end(), std::make_pair(device, 0u));
        for (; it != m_launch.end() && it->first == device; ++it)
            out.push_back(it->second);
        return out;
    }

    // ---- torch_npu / HCCL -------------------------------------------------------------------

    void findHcclCollectives()
    {
        const auto& tracks = m_t.tracks();
        for (TrackId t = 0; t < tracks.size(); ++t) {
            if (m_roles[t] != TrackRole::HcclGroup) continue;
            std::vector<TrackId> planes;
            for (TrackId p : m_t.processes()[tracks[t].process].tracks) {
                if (m_roles[p] == TrackRole::HcclPlane) planes.push_back(p);
            }
            std::string group = m_t.str(tracks[t].name);
            if (startsWith(group, "Group ")) group = group.substr(6, group.find(' ', 6) - 6);
            for (EventId e = tracks[t].begin; e < tracks[t].end; ++e) {
                const Slice& s = m_t.slice(e);
                if (!(nameClass(s.name) & kNcHcom)) continue;
                addHcclOp(e, group, planes);
            }
        }
    }

    void addHcclOp(EventId e, const std::string& group, const std::vector<TrackId>& planes)
    {
        const Slice& s = m_t.slice(e);
        Collective c;
        c.event = e;
        c.rank = m_t.rank();
        c.name = m_t.str(s.name);
        c.kind = kindFromName(c.name);
        c.group = group;
        c.start = s.start;
        c.dur = s.dur;
        const nlohmann::json a = m_t.args(e);
        c.algorithm = jsonStr(a, "alg_type");
        c.dtype = jsonStr(a, "data_type");
        if (auto it = a.find("count"); it != a.end()) c.count = jsonU64(*it).value_or(0);
        c.bytes = c.count * std::uint64_t(std::max(0, dtypeBytes(c.dtype)));
        const auto launches = launchesOf(e);
        c.hostEvent = pickHost(launches);

        std::vector<std::pair<TimeNs, TimeNs>> waits;
        std::set<std::uint64_t> ranks;
        std::map<std::string, TransferStat> transfers;
        const AnalysisOptions& opt = m_rep->options;
        for (TrackId p : planes) {
            EventId i = m_t.firstSliceEndingAfter(p, s.start);
            if (i == kNone) continue;
            const Track& pt = m_t.tracks()[p];
            for (; i < pt.end; ++i) {
                const Slice& task = m_t.slice(i);
                if (task.start >= s.end()) break;
                if (task.start < s.start) continue;
                c.tasks.push_back(i);
                // HCCL tasks are many: read their flat args without a JSON DOM.
                const FlatArgs ta(m_t.argsText(i));
                std::string type = ta.str("task type");
                if (type.empty()) type = m_t.str(task.name);
                const std::string transport = ta.str("transport type");
                const std::string link = ta.str("link type");
                const std::uint64_t size = ta.u64("size(Byte)").value_or(0);
                for (const char* k : {"src rank", "dst rank"}) {
                    auto r = ta.u64(k);
                    if (r && *r < 65536) ranks.insert(*r);
                }
                if (type == "Notify_Wait") waits.emplace_back(task.start, task.end());
                // msprof-analyze's byte-alignment rule: SDMA transfers off the chip above
                // the boundary.
                const bool sizeRule = transport == "SDMA" && link != "ON_CHIP" &&
                                      size > opt.sizeAlign && opt.sizeAlign > 0;
                const bool badSize = sizeRule && size % opt.sizeAlign != 0;
                bool badAddr = false;
                findAddress(ta, opt.addrAlign, &badAddr);
                if (badSize || badAddr) {
                    ++c.unalignedCount;
                    m_unaligned.push_back(i);
                }
                if (size > 0 && !link.empty() && link != "ON_CHIP" && link != "INVALID_TYPE" &&
                    (transport == "SDMA" || transport == "RDMA")) {
                    // communication.json reports per link (HCCS, PCIE, SIO...) and per
                    // transport (SDMA, RDMA): the same task counts under both.
                    std::vector<std::string> keys{link == "ROCE" ? std::string("RDMA") : link};
                    if (transport != keys.front()) keys.push_back(transport);
                    for (const std::string& key : keys) {
                        TransferStat& ts = transfers[key];
                        ts.name = key;
                        ts.bytes += size;
                        ts.ns += task.dur;
                        ++ts.tasks;
                    }
                }
                if (type == "Memcpy" || m_t.str(task.name) == "Memcpy") {
                    InternalCopy cp;
                    cp.event = i;
                    cp.start = task.start;
                    cp.dur = task.dur;
                    cp.bytes = size;
                    cp.transport = transport;
                    cp.link = link;
                    cp.unalignedSize = badSize;
                    cp.unalignedAddress = badAddr;
                    c.copies.push_back(std::move(cp));
                }
            }
        }
        c.waitNs = unionLength(std::move(waits));
        c.groupSize = static_cast<int>(ranks.size());
        for (auto& [k, v] : transfers)
            c.transfers.push_back(v);
        m_rep->collectives.push_back(std::move(c));
    }

    // Prefer the Python op (torch_to_npu) over the CANN launch: it carries the stack.
    EventId pickHost(const std::vector<EventId>& launches) const
    {
        EventId best = kNone;
        for (EventId h : launches) {
            const ProcessId p = m_t.tracks()[m_t.slice(h).track].process;
            const bool python = p != kNone && m_t.str(m_t.processes()[p].name) == "Python";
            if (best == kNone || python) best = h;
            if (python) break;
        }
        return best;
    }

    // ---- Kineto -----------------------------------------------------------------------------

    // Outermost collective host op enclosing h (h included), or kNone.
    EventId outerCollectiveHost(EventId h) const
    {
        EventId found = kNone;
        for (EventId cur = h; cur != kNone; cur = m_t.slice(cur).parent) {
            if (nameClass(m_t.slice(cur).name) & kNcCollHost) found = cur;
        }
        return found;
    }

    // Innermost collective host op enclosing h whose name says the kind (record_param_comms
    // without args wraps nccl:all_to_all in older Kineto).
    EventId kindHost(EventId h) const
    {
        for (EventId cur = h; cur != kNone; cur = m_t.slice(cur).parent) {
            if ((nameClass(m_t.slice(cur).name) & kNcCollHost) &&
                kindFromName(m_t.str(m_t.slice(cur).name)) != CollectiveKind::Other)
                return cur;
        }
        return kNone;
    }

    // NCCL kernels whose launch flow is missing (a dangling "f"): find the runtime call with
    // the same correlation id. Parses only launch calls' args, and only when needed.
    void linkByCorrelation()
    {
        const auto sl = m_t.slices();
        const auto& tracks = m_t.tracks();
        std::vector<std::pair<std::uint64_t, EventId>> want; // correlation -> kernel
        for (TrackId t = 0; t < tracks.size(); ++t) {
            if (m_roles[t] != TrackRole::GpuStream) continue;
            for (EventId e = tracks[t].begin; e < tracks[t].end; ++e) {
                if (!(nameClass(sl[e].name) & kNcCollKernel) || !launchesOf(e).empty()) continue;
                if (auto c = correlationOf(e)) want.emplace_back(*c, e);
            }
        }
        if (want.empty()) return;
        std::sort(want.begin(), want.end());
        const StrId catRuntime = m_t.strings().find("cuda_runtime");
        for (TrackId t = 0; t < tracks.size(); ++t) {
            if (m_roles[t] != TrackRole::Host) continue;
            for (EventId e = tracks[t].begin; e < tracks[t].end; ++e) {
                if (sl[e].cat != catRuntime ||
                    m_t.str(sl[e].name).find("Launch") == std::string::npos)
                    continue;
                auto c = correlationOf(e);
                if (!c) continue;
                auto it = std::lower_bound(want.begin(), want.end(), std::make_pair(*c, 0u));
                for (; it != want.end() && it->first == *c; ++it)
                    m_launch.emplace_back(it->second, e);
            }
        }
        std::sort(m_launch.begin(), m_launch.end());
    }

    std::optional<std::uint64_t> correlationOf(EventId e) const
    {
        // A text search, not a JSON parse: this runs on many launch calls.
        const std::string_view a = m_t.argsText(e);
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

    struct HostGroup {
        EventId kindHost = kNone;
        std::vector<EventId> kernels;
        std::vector<std::pair<EventId, EventId>> copies; // device memcpy, its launch
        std::vector<EventId> launched;
    };

    void findKinetoCollectives()
    {
        const auto sl = m_t.slices();
        std::map<EventId, HostGroup> byHost;
        std::set<EventId> taken;
        for (const auto& [dev, host] : m_launch) {
            if (m_roles[sl[dev].track] != TrackRole::GpuStream) continue;
            const EventId h = outerCollectiveHost(host);
            if (h == kNone) continue;
            HostGroup& g = byHost[h];
            if (g.kindHost == kNone) g.kindHost = kindHost(host);
            g.launched.push_back(dev);
            if (sl[dev].cat == m_catMemcpy)
                g.copies.emplace_back(dev, host);
            else if (sl[dev].cat == m_catKernel)
                g.kernels.push_back(dev);
        }
        for (auto& [h, g] : byHost) {
            if (g.kernels.empty()) continue;
            // The communication kernel: an NCCL one when present, else the longest.
            EventId main = kNone;
            for (EventId k : g.kernels) {
                const bool nccl = nameClass(sl[k].name) & kNcCollKernel;
                if (main == kNone || (nccl && !(nameClass(sl[main].name) & kNcCollKernel)) ||
                    (nccl == bool(nameClass(sl[main].name) & kNcCollKernel) &&
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
            fillKineto(c, g.copies, g.kindHost);
            m_rep->collectives.push_back(std::move(c));
        }
        // NCCL kernels whose host op was not recognised (or no flows): the kernel alone.
        const auto& tracks = m_t.tracks();
        for (TrackId t = 0; t < tracks.size(); ++t) {
            if (m_roles[t] != TrackRole::GpuStream) continue;
            for (EventId e = tracks[t].begin; e < tracks[t].end; ++e) {
                if (!(nameClass(sl[e].name) & kNcCollKernel) || taken.count(e)) continue;
                Collective c;
                c.event = e;
                const auto l = launchesOf(e);
                c.hostEvent = l.empty() ? kNone : l.front();
                c.start = sl[e].start;
                c.dur = sl[e].dur;
                fillKineto(c, {}, kNone);
                m_rep->collectives.push_back(std::move(c));
            }
        }
    }

    // Kind, sizes, group from the host op, its record_param_comms and the kernel's args.
    void fillKineto(Collective& c, const std::vector<std::pair<EventId, EventId>>& copies,
                    EventId kindSource)
    {
        const auto sl = m_t.slices();
        c.rank = m_t.rank();
        c.name = m_t.str(sl[c.event].name);
        c.algorithm = algorithmFromKernel(c.name);
        std::vector<nlohmann::json> sources;
        sources.push_back(m_t.args(c.event));
        if (c.hostEvent != kNone) {
            const Slice& h = sl[c.hostEvent];
            const Track& tr = m_t.tracks()[h.track];
            // record_param_comms inside the host op holds the sizes; stop at its end.
            for (EventId i = c.hostEvent; i < tr.end && sl[i].start <= h.end(); ++i) {
                if (m_t.str(sl[i].name) == "record_param_comms") {
                    sources.push_back(m_t.args(i));
                    break;
                }
            }
            c.kind = kindFromName(m_t.str(h.name));
            if (c.kind == CollectiveKind::Other && kindSource != kNone)
                c.kind = kindFromName(m_t.str(sl[kindSource].name));
        }
        for (const auto& a : sources) {
            if (c.kind == CollectiveKind::Other) {
                const std::string n = jsonStr(a, "Collective name");
                if (!n.empty()) c.kind = kindFromName(n);
            }
            if (c.count == 0) {
                if (auto it = a.find("In msg nelems"); it != a.end())
                    c.count = jsonU64(*it).value_or(0);
            }
            if (c.dtype.empty()) c.dtype = jsonStr(a, "dtype");
            if (c.groupSize == 0) {
                if (auto it = a.find("Group size"); it != a.end())
                    c.groupSize = int(jsonU64(*it).value_or(0));
            }
            if (c.group.empty()) c.group = jsonStr(a, "Process Group Name");
        }
        if (c.kind == CollectiveKind::Other) c.kind = kindFromName(c.name);
        // ncclDevKernel_Generic says nothing: a GPU annotation around it ("nccl:all_reduce") may.
        for (EventId p = sl[c.event].parent; c.kind == CollectiveKind::Other && p != kNone;
             p = sl[p].parent)
            c.kind = kindFromName(m_t.str(sl[p].name));
        c.bytes = c.count * std::uint64_t(std::max(0, dtypeBytes(c.dtype)));
        if (c.groupSize == 0) {
            const auto& di = m_t.metadata();
            if (auto it = di.find("distributedInfo"); it != di.end() && it->is_object()) {
                if (auto w = it->find("world_size"); w != it->end())
                    c.groupSize = int(jsonU64(*w).value_or(0));
            }
        }
        const AnalysisOptions& opt = m_rep->options;
        std::set<EventId> seen;
        auto addCopy = [&](EventId d, EventId launch) {
            if (!seen.insert(d).second) return;
            const nlohmann::json a = m_t.args(d);
            InternalCopy cp;
            cp.event = d;
            cp.start = sl[d].start;
            cp.dur = sl[d].dur;
            if (auto it = a.find("bytes"); it != a.end()) cp.bytes = jsonU64(*it).value_or(0);
            bool badAddr = false;
            findAddress(a, opt.addrAlign, &badAddr);
            if (launch != kNone) {
                const nlohmann::json la = m_t.args(launch);
                findAddress(la, opt.addrAlign, &badAddr);
                if (cp.bytes == 0) {
                    if (auto it = la.find("bytes"); it != la.end())
                        cp.bytes = jsonU64(*it).value_or(0);
                }
            }
            cp.unalignedSize =
                opt.sizeAlign > 0 && cp.bytes > opt.sizeAlign && cp.bytes % opt.sizeAlign != 0;
            cp.unalignedAddress = badAddr;
            if (cp.unalignedSize || cp.unalignedAddress) {
                ++c.unalignedCount;
                m_unaligned.push_back(d);
            }
            c.copies.push_back(std::move(cp));
        };
        for (const auto& [d, launch] : copies)
            addCopy(d, launch);
        // Copies on the collective's own stream within its span belong to it too.
        const TrackId st = sl[c.event].track;
        EventId i = m_t.firstSliceEndingAfter(st, c.start);
        for (; i != kNone && i < m_t.tracks()[st].end && sl[i].start < c.start + c.dur; ++i) {
            if (sl[i].cat == m_catMemcpy && sl[i].start >= c.start) addCopy(i, kNone);
        }
        std::sort(c.copies.begin(), c.copies.end(),
                  [](const InternalCopy& a, const InternalCopy& b) { return a.start < b.start; });
    }

    // ---- judgement --------------------------------------------------------------------------

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
        if (c.bytes > 0 && c.dur > 0) {
            c.algbwGbps = double(c.bytes) / double(c.dur);
            c.busbwGbps = c.algbwGbps * busFactor(c.kind, c.groupSize);
        }
    }

    void judge()
    {
        auto& cols = m_rep->collectives;
        std::map<std::string, std::uint32_t> sigIndex;
        for (std::uint32_t i = 0; i < cols.size(); ++i) {
            const Collective& c = cols[i];
            const std::string key = std::string(collectiveKindName(c.kind)) + '|' + c.group + '|' +
                                    std::to_string(c.count) + '|' + std::to_string(c.bytes) + '|' +
                                    c.algorithm + '|' + namePattern(c.name);
            auto [it, added] = sigIndex.emplace(key, std::uint32_t(m_rep->signatures.size()));
            if (added) {
                SignatureGroup g;
                g.label = collectiveKindName(c.kind);
                if (!c.group.empty()) g.label += " · group " + c.group;
                if (c.count)
                    g.label +=
                        " · " + formatCount(c.count) + (c.dtype.empty() ? "" : " × ") + c.dtype;
                if (!c.algorithm.empty()) g.label += " · " + c.algorithm;
                m_rep->signatures.push_back(std::move(g));
            }
            cols[i].signature = it->second;
            m_rep->signatures[it->second].members.push_back(i);
        }
        for (SignatureGroup& g : m_rep->signatures)
            judgeGroup(g);
    }

    void judgeGroup(SignatureGroup& g)
    {
        auto& cols = m_rep->collectives;
        std::vector<TimeNs> durs, copies;
        for (auto i : g.members) {
            durs.push_back(cols[i].dur);
            copies.push_back(cols[i].memcpyNs);
        }
        int nModes = 0, nLevels = 0;
        const auto mode = clusterLevels(durs, &nModes);
        const auto level = clusterLevels(copies, &nLevels);
        g.modes.assign(std::size_t(nModes), DurationMode{});
        TimeNs baseSum = 0;
        int baseN = 0;
        for (std::size_t k = 0; k < g.members.size(); ++k) {
            DurationMode& m = g.modes[std::size_t(mode[k])];
            const TimeNs d = durs[k];
            m.minNs = m.members ? std::min(m.minNs, d) : d;
            m.maxNs = m.members ? std::max(m.maxNs, d) : d;
            m.meanNs += d; // sum for now
            ++m.members;
            if (level[k] == 0) {
                baseSum += copies[k];
                ++baseN;
            }
        }
        for (DurationMode& m : g.modes)
            m.meanNs = m.members ? m.meanNs / m.members : 0;
        // The lowest memcpy level, not the median: the bad mode can be the majority.
        g.baselineMemcpyNs = baseN ? baseSum / baseN : 0;
        const TimeNs fast = g.modes.empty() ? 0 : g.modes[0].meanNs;
        const bool peers = g.members.size() >= 2;

        for (std::size_t k = 0; k < g.members.size(); ++k) {
            Collective& c = cols[g.members[k]];
            if (nModes > 1) c.mode = mode[k];
            c.extraMemcpyNs = std::max<TimeNs>(0, c.memcpyNs - g.baselineMemcpyNs);
            const TimeNs excess = c.dur - fast;
            const bool slow = c.mode && *c.mode > 0;
            const bool hccl = m_roles[m_t.slice(c.event).track] == TrackRole::HcclGroup;
            if (peers) {
                c.anomalous =
                    slow && level[k] > 0 && c.extraMemcpyNs > 0 && 2 * c.extraMemcpyNs >= excess;
                // A rank that waited for a slow peer: long, no extra copy. HCCL says where
                // the time went (Notify_Wait); Kineto kernels do not, so slow alone counts,
                // but only among ops of a known size (else unlike ops share a signature).
                const bool sized = c.count > 0 || c.bytes > 0;
                c.waiting = !c.anomalous && slow && level[k] == 0 &&
                            (hccl ? 2 * c.waitNs >= excess : sized);
            } else {
                // No peers to compare: judge by the memcpy share of its own duration.
                c.anomalous = c.dur > 0 && 2 * c.memcpyNs > c.dur;
                c.extraMemcpyNs = c.anomalous ? c.memcpyNs : 0;
            }
            if (c.anomalous) markExtraCopies(c, g.baselineMemcpyNs, peers);
            int extra = 0;
            for (const InternalCopy& cp : c.copies)
                extra += cp.extra;
            if (extra > 0 && !g.modes.empty()) ++g.modes[std::size_t(mode[k])].withExtraCopy;
        }
        g.summary = groupSummary(g);
        for (auto i : g.members)
            cols[i].verdict = verdict(cols[i], g, peers);
    }

    void markExtraCopies(Collective& c, TimeNs baseline, bool peers)
    {
        std::vector<std::size_t> order(c.copies.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::sort(order.begin(), order.end(),
                  [&](auto a, auto b) { return c.copies[a].dur > c.copies[b].dur; });
        TimeNs rest = c.memcpyNs;
        for (std::size_t i : order) {
            // Largest first, until what is left is the baseline level (with some slack).
            if (peers && rest <= baseline + baseline / 10) break;
            c.copies[i].extra = true;
            if (!peers) break;
            std::vector<std::pair<TimeNs, TimeNs>> iv;
            for (const InternalCopy& cp : c.copies) {
                if (!cp.extra) iv.emplace_back(cp.start, cp.start + cp.dur);
            }
            rest = unionLength(std::move(iv));
        }
    }

    std::string groupSummary(const SignatureGroup& g) const
    {
        const auto& cols = m_rep->collectives;
        if (g.modes.size() < 2) {
            return std::to_string(g.members.size()) + " op" + (g.members.size() == 1 ? "" : "s") +
                   ", one duration mode (" +
                   formatDuration(g.modes.empty() ? 0 : g.modes[0].meanNs) + ")";
        }
        std::string s;
        const TimeNs fast = g.modes[0].meanNs;
        for (std::size_t m = 1; m < g.modes.size(); ++m) {
            const DurationMode& dm = g.modes[m];
            char ratio[32];
            std::snprintf(ratio, sizeof ratio, "%.1fx", fast > 0 ? double(dm.meanNs) / fast : 0.0);
            if (!s.empty()) s += "; ";
            s += "mode " + modeLetter(int(m)) + " = " + ratio + " mode A (" +
                 formatDuration(dm.meanNs) + " vs " + formatDuration(fast) + ")";
            // Describe the extra copies of this mode's members.
            int withExtra = 0, waiting = 0, extraCount = 0;
            TimeNs extraNs = 0;
            for (auto i : g.members) {
                const Collective& c = cols[i];
                if (!c.mode || std::size_t(*c.mode) != m) continue;
                int n = 0;
                for (const InternalCopy& cp : c.copies) {
                    if (cp.extra) {
                        ++n;
                        extraNs += cp.dur;
                    }
                }
                withExtra += n > 0;
                extraCount += n;
                waiting += c.waiting;
            }
            const std::string letter = modeLetter(int(m));
            if (withExtra == dm.members && withExtra > 0) {
                const int per = extraCount / withExtra;
                s += "; every mode-" + letter + " op has " +
                     (per == 1 ? std::string("one") : std::to_string(per)) + " extra Memcpy" +
                     " of ~" + formatDuration(extraNs / std::max(1, extraCount));
            } else if (withExtra > 0) {
                s += "; " + std::to_string(withExtra) + " of " + std::to_string(dm.members) +
                     " mode-" + letter + " ops have an extra Memcpy";
            } else if (waiting == dm.members) {
                s += "; mode-" + letter + " ops waited for a slower peer, no extra Memcpy";
            } else {
                s += "; mode-" + letter + " ops have no extra Memcpy";
            }
        }
        int slowerWithExtra = 0;
        for (std::size_t m = 1; m < g.modes.size(); ++m)
            slowerWithExtra += g.modes[m].withExtraCopy;
        if (slowerWithExtra > 0 && g.modes[0].withExtraCopy == 0) s += "; no mode-A op has it";
        return s;
    }

    std::string verdict(const Collective& c, const SignatureGroup& g, bool peers) const
    {
        const std::string kind = collectiveKindName(c.kind);
        const TimeNs fast = g.modes.empty() ? c.dur : g.modes[0].meanNs;
        int extra = 0;
        TimeNs extraNs = 0;
        for (const InternalCopy& cp : c.copies) {
            if (cp.extra) {
                ++extra;
                extraNs += cp.dur;
            }
        }
        char buf[512];
        if (c.anomalous && peers) {
            std::snprintf(buf, sizeof buf,
                          "Anomalous: %s took %s, %.1fx its fast mode (%s); %d extra internal "
                          "Memcpy of %s explain%s the difference: its input was likely "
                          "misaligned or not contiguous.",
                          kind.c_str(), formatDuration(c.dur).c_str(),
                          fast > 0 ? double(c.dur) / fast : 0.0, formatDuration(fast).c_str(),
                          extra, formatDuration(extraNs).c_str(), extra == 1 ? "s" : "");
        } else if (c.anomalous) {
            std::snprintf(buf, sizeof buf,
                          "Anomalous: internal memcpy takes %s of its %s (%.0f%%); no peer op "
                          "to compare with.",
                          formatDuration(c.memcpyNs).c_str(), formatDuration(c.dur).c_str(),
                          c.dur > 0 ? 100.0 * double(c.memcpyNs) / double(c.dur) : 0.0);
        } else if (c.waiting) {
            const bool hccl = m_roles[m_t.slice(c.event).track] == TrackRole::HcclGroup;
            std::snprintf(
                buf, sizeof buf,
                "Waiting: %s took %s, %.1fx its fast mode, with no extra memcpy%s; "
                "this rank waited for a slower peer, look at the other ranks.",
                kind.c_str(), formatDuration(c.dur).c_str(), fast > 0 ? double(c.dur) / fast : 0.0,
                hccl ? (" (" + formatDuration(c.waitNs) + " in Notify_Wait)").c_str() : "");
        } else if (c.mode && *c.mode > 0) {
            std::snprintf(buf, sizeof buf,
                          "Slow: %s took %s, %.1fx the fast mode of its signature, not "
                          "explained by internal memcpy (%s) nor by waiting (the trace may not "
                          "give its size).",
                          kind.c_str(), formatDuration(c.dur).c_str(),
                          fast > 0 ? double(c.dur) / fast : 0.0,
                          formatDuration(c.memcpyNs).c_str());
        } else {
            std::snprintf(buf, sizeof buf, "Normal: %s took %s with %d internal memcpy (%s).",
                          kind.c_str(), formatDuration(c.dur).c_str(), c.memcpyCount,
                          formatDuration(c.memcpyNs).c_str());
        }
        return buf;
    }

    // ---- findings ---------------------------------------------------------------------------

    void buildFindings()
    {
        auto& out = m_rep->findings;
        for (const Collective& c : m_rep->collectives) {
            const std::string kind = collectiveKindName(c.kind);
            std::vector<StackEntry> stack;
            auto chain = [&]() -> const std::vector<StackEntry>& {
                if (stack.empty()) stack = callStack(m_t, c.event);
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
                f.title = kind + " " + c.name + " carries " + formatDuration(c.extraMemcpyNs) +
                          " of extra internal memcpy (" + formatDuration(c.dur) + " in all)";
                f.stack = chain();
                const std::string src = sourceFrame(f.stack);
                f.recommendation =
                    "The collective copied its input internally, the mark of an input whose "
                    "address or size is not aligned (HCCL needs " +
                    std::to_string(m_rep->options.addrAlign) +
                    "-byte aligned addresses) or that is not contiguous. Allocate the tensor "
                    "aligned and contiguous before the " +
                    kind + " (e.g. instead of a torch.empty / view / slice result)" +
                    (src.empty() ? std::string(".") : " in " + src + ".");
                f.start = c.start;
                f.end = c.start + c.dur;
                out.push_back(std::move(f));
            }
            if (c.waiting) {
                Finding f;
                f.rule = "collective-waiting";
                f.severity = Severity::Info;
                f.rank = c.rank;
                f.events.push_back(c.event);
                f.title = kind + " " + c.name + " waited for a slower peer (" +
                          formatDuration(c.dur) + ")";
                f.stack = chain();
                f.recommendation = "Not a problem of this rank: find the rank whose op of the "
                                   "same step is anomalous or started late.";
                f.start = c.start;
                f.end = c.start + c.dur;
                out.push_back(std::move(f));
            }
            std::vector<EventId> badSize, badAddr;
            for (EventId t : c.tasks) {
                if (std::binary_search(m_unalignedSorted().begin(), m_unalignedSorted().end(), t))
                    badSize.push_back(t);
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
                if (!badAddr.empty())
                    f.events.insert(f.events.end(), badSize.begin(), badSize.end());
                std::sort(f.events.begin(), f.events.end());
                f.events.erase(std::unique(f.events.begin(), f.events.end()), f.events.end());
                f.title = std::to_string(f.events.size()) + " transfer" +
                          (f.events.size() == 1 ? "" : "s") + " in " + kind + " " + c.name +
                          (badAddr.empty() ? " with a size not a multiple of " +
                                                 std::to_string(m_rep->options.sizeAlign) + " B"
                                           : " with an address not a multiple of " +
                                                 std::to_string(m_rep->options.addrAlign) + " B");
                f.stack = chain();
                const std::string src = sourceFrame(f.stack);
                f.recommendation = "Pad the communicated tensor to a multiple of " +
                                   std::to_string(m_rep->options.sizeAlign) +
                                   " bytes and allocate it " +
                                   std::to_string(m_rep->options.addrAlign) + "-byte aligned" +
                                   (src.empty() ? std::string(".") : " in " + src + ".");
                const Slice& s0 = m_t.slice(f.events.front());
                f.start = s0.start;
                f.end = s0.end();
                out.push_back(std::move(f));
            }
        }
        std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
            if (a.severity != b.severity) return a.severity > b.severity;
            return a.start < b.start;
        });
    }

    const std::vector<EventId>& m_unalignedSorted()
    {
        if (!m_unalignedReady) {
            std::sort(m_unaligned.begin(), m_unaligned.end());
            m_unalignedReady = true;
        }
        return m_unaligned;
    }

    void buildIndex()
    {
        std::vector<std::pair<EventId, std::uint8_t>> marks;
        auto& idx = m_rep->collectiveIndex;
        const auto& cols = m_rep->collectives;
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
        for (EventId e : m_unalignedSorted())
            marks.emplace_back(e, kMarkUnaligned);
        std::sort(marks.begin(), marks.end());
        for (const auto& [e, m] : marks) {
            if (!m_rep->markIndex.empty() && m_rep->markIndex.back().first == e)
                m_rep->markIndex.back().second |= m;
            else
                m_rep->markIndex.emplace_back(e, m);
        }
        // An event maps to its first collective (stable sort keeps insertion order).
        std::stable_sort(idx.begin(), idx.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        idx.erase(std::unique(idx.begin(), idx.end(),
                              [](const auto& a, const auto& b) { return a.first == b.first; }),
                  idx.end());
    }

    TracePtr m_trace;
    const Trace& m_t;
    std::shared_ptr<AnalysisReport> m_rep;
    std::vector<TrackRole> m_roles;
    std::vector<std::uint8_t> m_class;
    StrId m_catMemcpy = kNone, m_catKernel = kNone;
    std::vector<std::pair<EventId, EventId>> m_launch; // device -> host launch, sorted
    std::vector<EventId> m_unaligned;
    bool m_unalignedReady = false;
};

} // namespace

ReportPtr analyze(TracePtr trace, const AnalysisOptions& options)
{
    if (!trace) {
        auto r = std::make_shared<AnalysisReport>();
        r->options = options;
        return r;
    }
    return Analyzer(std::move(trace), options).run();
}

} // namespace rs
