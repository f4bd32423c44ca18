#include "core/producers/torchnpu/hcclcomm.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

namespace rs::analysis {

namespace {

constexpr std::uint64_t kNoRank = 4294967295ull; // HCCL's "none"

double round4(double v)
{
    return std::round(v * 1e4) / 1e4;
}

bool isSendRecv(std::string_view opName)
{
    std::string s(opName);
    for (char& ch : s)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s.find("send") != std::string::npos || s.find("receive") != std::string::npos;
}

// A copy that moves data off the chip (is_transit_sdma_event): local copies and notifies
// do not count.
bool isTransit(const HcclTask& t)
{
    return (t.kind == HcclTask::Kind::Memcpy || t.kind == HcclTask::Kind::ReduceInline) &&
           t.transport == "SDMA" && t.link != "ON_CHIP";
}

// trace_view.json does not export msprof's rdma_type: an RDMASend with a size is taken as
// a payload (comm-health.md: an approximation, unchecked on the public runs).
bool isPayload(const HcclTask& t)
{
    return t.kind == HcclTask::Kind::RdmaSend && t.size > 0;
}

// A run of payloads plus its closing tasks (2 for send/receive, 4 otherwise: msprof's
// RDMA_NO_BARRIER_TASK_NUM 3 / RDMA_WITH_BARRIER_TASK_NUM 5 minus the payload) is one transfer:
// from the first payload's start to the last closing task's end.
std::vector<RdmaTransfer> rdmaTransfers(const std::vector<const HcclTask*>& plane, bool sendRecv)
{
    std::vector<RdmaTransfer> out;
    const std::size_t jump = sendRecv ? 3 : 5;
    std::size_t i = 0;
    while (i < plane.size()) {
        if (!isPayload(*plane[i])) {
            ++i;
            continue;
        }
        std::size_t n = 0;
        while (i + n < plane.size() && isPayload(*plane[i + n]))
            ++n;
        const std::size_t last = i + n + jump - 2;
        if (last < plane.size()) {
            RdmaTransfer tr;
            tr.plane = plane[i]->plane;
            tr.start = plane[i]->start;
            tr.end = plane[last]->end();
            tr.src = plane[i]->src;
            tr.dst = plane[i]->dst;
            for (std::size_t k = i; k < i + n; ++k)
                tr.bytes += plane[k]->size;
            for (std::size_t k = i; k <= last; ++k)
                tr.events.push_back(plane[k]->event);
            out.push_back(std::move(tr));
        }
        i += n;
    }
    return out;
}

// Merged, sorted intervals.
std::vector<std::pair<TimeNs, TimeNs>> merged(std::vector<std::pair<TimeNs, TimeNs>> iv)
{
    std::sort(iv.begin(), iv.end());
    std::vector<std::pair<TimeNs, TimeNs>> out;
    for (const auto& [a, b] : iv) {
        if (b <= a) continue;
        if (!out.empty() && a <= out.back().second)
            out.back().second = std::max(out.back().second, b);
        else
            out.emplace_back(a, b);
    }
    return out;
}

// Length of the union of `in` outside the union of `out`.
TimeNs lengthOutside(std::vector<std::pair<TimeNs, TimeNs>> in,
                     std::vector<std::pair<TimeNs, TimeNs>> out)
{
    const auto a = merged(std::move(in)), b = merged(std::move(out));
    TimeNs total = 0;
    std::size_t j = 0;
    for (auto [s, e] : a) {
        while (j < b.size() && b[j].second <= s)
            ++j;
        for (std::size_t k = j; k < b.size() && b[k].first < e; ++k) {
            if (b[k].first > s) total += b[k].first - s;
            s = std::max(s, b[k].second);
            if (s >= e) break;
        }
        if (e > s) total += e - s;
    }
    return total;
}

// Tasks of each plane in time order.
std::map<int, std::vector<const HcclTask*>> byPlane(const std::vector<HcclTask>& tasks)
{
    std::map<int, std::vector<const HcclTask*>> out;
    for (const HcclTask& t : tasks)
        out[t.plane].push_back(&t);
    return out;
}

// communication.json's transport of a transit task (get_communication_bandwidth_info_type).
std::string bandwidthType(const std::string& link)
{
    if (link == "HCCS_SW") return "HCCS";
    if (link == "HCCS" || link == "PCIE" || link == "SIO") return link;
    return "SDMA";
}

// Large-packet size thresholds in MB (strict >), msprof's *_MESSAGE_SIZE_THRESHOLD.
double largePacketMb(const std::string& transport)
{
    if (transport == "RDMA") return 0.5;
    if (transport == "HCCS" || transport == "PCIE" || transport == "SIO") return 32.0;
    return NAN;
}

struct Acc {
    std::uint64_t bytes = 0;
    TimeNs ns = 0;
    int records = 0, large = 0;
};

} // namespace

HcclTask::Kind hcclTaskKind(std::string_view type)
{
    if (type == "Memcpy") return HcclTask::Kind::Memcpy;
    if (type == "Reduce_Inline") return HcclTask::Kind::ReduceInline;
    if (type == "Notify_Wait") return HcclTask::Kind::NotifyWait;
    if (type == "Notify_Record") return HcclTask::Kind::NotifyRecord;
    if (type == "RDMASend") return HcclTask::Kind::RdmaSend;
    return HcclTask::Kind::Other;
}

void hcclCommFigures(const std::vector<HcclTask>& tasks, const AnalysisOptions& o, Collective& c)
{
    c.transfers.clear();
    if (tasks.empty()) return;
    const bool sendRecv = isSendRecv(c.name);
    const auto planes = byPlane(tasks);
    std::map<int, std::vector<RdmaTransfer>> rdma;
    for (const auto& [p, list] : planes)
        rdma[p] = rdmaTransfers(list, sendRecv);

    // Time info on the master plane: msprof's is_master flag is not in the trace; the lowest
    // plane that waits on a notify is the one that reproduces the files, else the lowest.
    int master = planes.begin()->first;
    for (const auto& [p, list] : planes) {
        if (std::any_of(list.begin(), list.end(),
                        [](const HcclTask* t) { return t->kind == HcclTask::Kind::NotifyWait; })) {
            master = p;
            break;
        }
    }
    CommTimeInfo ti;
    ti.masterPlane = master;
    ti.elapseNs = c.dur;
    TimeNs firstTransit = std::numeric_limits<TimeNs>::max();
    for (const HcclTask* t : planes.at(master)) {
        if (isTransit(*t)) {
            ti.transitNs += t->dur;
            firstTransit = std::min(firstTransit, t->start);
        }
    }
    for (const RdmaTransfer& r : rdma[master]) {
        ti.transitNs += r.end - r.start;
        firstTransit = std::min(firstTransit, r.start);
    }
    for (const HcclTask* t : planes.at(master)) {
        if (t->kind != HcclTask::Kind::NotifyWait) continue;
        ti.waitNs += t->dur;
        if (t->start < firstTransit) ti.synchronizationNs += t->dur;
    }
    ti.idleNs = ti.elapseNs - ti.transitNs - ti.waitNs;
    // The part of the idle time an internal Memcpy of the op runs in (any plane; a transit
    // copy of the master plane is transit already): the viewer's "internal memcpy" segment.
    {
        std::vector<std::pair<TimeNs, TimeNs>> busy, copies;
        for (const HcclTask* t : planes.at(master))
            if (isTransit(*t) || t->kind == HcclTask::Kind::NotifyWait)
                busy.emplace_back(t->start, t->end());
        for (const RdmaTransfer& r : rdma[master])
            busy.emplace_back(r.start, r.end);
        for (const HcclTask& t : tasks)
            if (t.kind == HcclTask::Kind::Memcpy && !(t.plane == master && isTransit(t)))
                copies.emplace_back(t.start, t.end());
        ti.memcpyNs = std::clamp<TimeNs>(lengthOutside(std::move(copies), std::move(busy)), 0,
                                         std::max<TimeNs>(0, ti.idleNs));
    }
    auto ratio = [](TimeNs a, TimeNs b) {
        return a + b > 0 ? round4(double(a) / double(a + b)) : 0.0;
    };
    ti.waitRatio = ratio(ti.waitNs, ti.transitNs);
    ti.synchronizationRatio = ratio(ti.synchronizationNs, ti.transitNs);
    c.timeInfo = ti;

    // Bandwidth info over all planes, one record per transit task or RDMA transfer.
    std::map<std::string, Acc> acc;
    auto record = [&](const std::string& type, std::uint64_t bytes, TimeNs ns) {
        Acc& a = acc[type];
        a.bytes += bytes;
        a.ns += ns;
        ++a.records;
        const double mb = double(bytes) / 1e6, thr = largePacketMb(type);
        if (std::isfinite(thr) && mb > thr) ++a.large;
    };
    for (const HcclTask& t : tasks) {
        if (isTransit(t)) record(bandwidthType(t.link), t.size, t.dur);
    }
    for (const auto& [p, list] : rdma)
        for (const RdmaTransfer& r : list)
            record("RDMA", r.bytes, r.end - r.start);
    // SDMA is the aggregate of every SDMA-engine transfer (combine_sdma_info); its own
    // records alone make its count, and torch_npu defines no large-packet ratio for it.
    Acc sdma = acc["SDMA"];
    for (const char* k : {"HCCS", "PCIE", "SIO"}) {
        sdma.bytes += acc[k].bytes;
        sdma.ns += acc[k].ns;
    }
    acc["SDMA"] = sdma;
    for (const char* name : {"RDMA", "HCCS", "PCIE", "SDMA", "SIO"}) {
        const Acc& a = acc[name];
        if (a.bytes == 0 && a.ns == 0) continue;
        TransferStat ts;
        ts.name = name;
        ts.bytes = a.bytes;
        ts.ns = a.ns;
        ts.tasks = a.records;
        if (ts.name != "SDMA")
            ts.largePacketRatio = a.records ? round4(double(a.large) / a.records) : 0.0;
        ts.peakGbps = linkPeak(o, ts.name);
        if (std::isfinite(ts.peakGbps) && ts.peakGbps > 0) ts.utilization = ts.gbps() / ts.peakGbps;
        c.transfers.push_back(std::move(ts));
    }
}

std::string hcclOpType(std::string_view opName)
{
    std::string s(opName);
    for (char& ch : s)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    // The alternation of torch_npu's pattern, in its order: the leftmost position wins, then
    // the first alternative that matches there (so "reducescatter" reads "reduce").
    static const std::string_view alts[] = {
        "send",      "reduce",     "invalid",       "broadcast", "allreduce",
        "receive",   "allgather",  "reducescatter", "scatter",   "alltoall",
        "alltoallv", "alltoallvc", "batchsendrecv"};
    for (std::size_t pos = 0; pos < s.size(); ++pos) {
        for (std::string_view a : alts) {
            if (s.compare(pos, a.size(), a) == 0) return std::string(a);
        }
    }
    return "invalid";
}

bool hcclIsP2p(std::string_view n)
{
    return n.rfind("hcom_send", 0) == 0 || n.rfind("hcom_receive", 0) == 0 ||
           n.rfind("hcom_batchsendrecv", 0) == 0;
}

std::vector<MatrixEntry> hcclMatrix(const std::vector<HcclOpTasks>& ops)
{
    struct Link {
        std::uint64_t bytes = 0;
        TimeNs ns = 0;
        std::string transport;
        std::vector<EventId> events;
        double gbps() const { return ns > 0 ? double(bytes) / double(ns) : 0.0; }
    };
    struct OpLink {
        const Collective* op;
        Link link;
    };
    // (step, p2p, type, group, src, dst) -> the ops' links, in op order.
    using Key = std::tuple<int, bool, std::string, std::string, std::uint64_t, std::uint64_t>;
    std::map<Key, std::vector<OpLink>> buckets;
    for (const HcclOpTasks& ot : ops) {
        const Collective& c = *ot.op;
        std::map<std::pair<std::uint64_t, std::uint64_t>, Link> links;
        auto linkOf = [&](std::uint64_t src, std::uint64_t dst) -> Link& {
            return links[{src, dst == kNoRank ? src : dst}];
        };
        for (const HcclTask& t : *ot.tasks) {
            const bool copy =
                t.kind == HcclTask::Kind::Memcpy || t.kind == HcclTask::Kind::ReduceInline;
            if (!copy || t.transport != "SDMA" || !t.src || *t.src == kNoRank || !t.dst) continue;
            Link& l = linkOf(*t.src, *t.dst);
            l.bytes += t.size;
            l.ns += t.dur;
            l.transport = t.link == "ON_CHIP" ? "LOCAL" : t.link == "HCCS_SW" ? "HCCS" : t.link;
            l.events.push_back(t.event);
        }
        std::map<int, std::vector<const HcclTask*>> planes = byPlane(*ot.tasks);
        for (const auto& [p, list] : planes) {
            for (const RdmaTransfer& r : rdmaTransfers(list, isSendRecv(c.name))) {
                if (!r.src || *r.src == kNoRank || !r.dst) continue;
                Link& l = linkOf(*r.src, *r.dst);
                l.bytes += r.bytes;
                l.ns += r.end - r.start;
                l.transport = "RDMA";
                l.events.insert(l.events.end(), r.events.begin(), r.events.end());
            }
        }
        for (auto& [sd, l] : links) {
            const Key k{c.step.value_or(std::numeric_limits<int>::min()),
                        hcclIsP2p(c.name),
                        hcclOpType(c.name),
                        c.group,
                        sd.first,
                        sd.second};
            buckets[k].push_back({&c, std::move(l)});
        }
    }

    // Per link, ops by bandwidth as the file rounds it, highest first (a stable sort, as
    // Python's sorted): top1, middle (len/2), bottom1..3, and the total.
    struct Out {
        Key key;
        int tier;
        MatrixEntry e;
    };
    std::vector<Out> out;
    // Plain references, not structured bindings: clang 14 (the fuzz build) cannot capture those.
    for (auto& bucket : buckets) {
        const Key& k = bucket.first;
        auto& list = bucket.second;
        std::stable_sort(list.begin(), list.end(), [](const OpLink& a, const OpLink& b) {
            return round4(a.link.gbps()) > round4(b.link.gbps());
        });
        const auto& [step_, p2p_, type_, group_, src_, dst_] = k;
        const auto& step = step_;
        const auto& type = type_;
        const auto& group = group_;
        const auto src = src_;
        const auto dst = dst_;
        auto entry = [&](const char* tier, const OpLink* ol) {
            MatrixEntry e;
            e.rank = list.front().op->rank;
            if (step != std::numeric_limits<int>::min()) e.step = step;
            e.opGroup = type + "-" + tier;
            e.group = group;
            e.src = int(src);
            e.dst = int(dst);
            if (ol) {
                e.transport = ol->link.transport;
                e.bytes = ol->link.bytes;
                e.ns = ol->link.ns;
                e.opName = ol->op->name;
                e.tasks = ol->link.events;
            } else {
                e.transport = list.front().link.transport;
                for (const OpLink& x : list) {
                    e.bytes += x.link.bytes;
                    e.ns += x.link.ns;
                    e.tasks.insert(e.tasks.end(), x.link.events.begin(), x.link.events.end());
                }
            }
            e.gbps = e.ns > 0 ? double(e.bytes) / double(e.ns) : 0.0;
            return e;
        };
        const std::size_t n = list.size();
        int tier = 0;
        out.push_back({k, tier++, entry("top1", &list[0])});
        out.push_back({k, tier++, entry("middle", &list[n / 2])});
        out.push_back({k, tier++, entry("bottom1", &list[n - 1])});
        if (n >= 2) out.push_back({k, tier, entry("bottom2", &list[n - 2])});
        ++tier;
        if (n >= 3) out.push_back({k, tier, entry("bottom3", &list[n - 3])});
        ++tier;
        out.push_back({k, tier, entry("total", nullptr)});
    }
    // Ordered as the file: step, section, op type, group, tier, then the link. Their indices
    // are sorted: moving the entries themselves (strings, task lists) was most of the sort.
    std::vector<std::uint32_t> order(out.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&out](std::uint32_t i, std::uint32_t j) {
        const Out& a = out[i];
        const Out& b = out[j];
        const auto& [sa, pa, ta, ga, xa, ya] = a.key;
        const auto& [sb, pb, tb, gb, xb, yb] = b.key;
        return std::tie(sa, pa, ta, ga, a.tier, xa, ya) < std::tie(sb, pb, tb, gb, b.tier, xb, yb);
    });
    std::vector<MatrixEntry> result;
    result.reserve(out.size());
    for (std::uint32_t i : order)
        result.push_back(std::move(out[i].e));
    return result;
}

} // namespace rs::analysis
