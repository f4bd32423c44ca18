// torch_npu (Ascend PyTorch Profiler) traces: processes named after the CANN stack (Python,
// CANN, Ascend Hardware, HCCL, Overlap Analysis), HCCL ops on "Group N Communication" threads
// with their tasks on "Plane N" threads (../shared/docs/trace-formats.md, comm-health.md).

#include "core/producers/torchnpu/model.h"

#include "core/producers/torchnpu/runfolder.h"

#include <algorithm>
#include <set>

namespace rs::analysis {

namespace {

// The HCCL tasks of each op, kept in the analysis context from findCollectives to
// finishCommunication.
using HcclTasksByOp = std::unordered_map<EventId, std::vector<HcclTask>>;
HcclTasksByOp& hcclTasksOf(AnalysisContext& ctx)
{
    if (!ctx.producerData.has_value()) ctx.producerData = HcclTasksByOp{};
    return std::any_cast<HcclTasksByOp&>(ctx.producerData);
}

class TorchNpuModel final : public ProducerModel {
public:
    std::uint8_t classifyName(std::string_view n) const override { return torchNpuNameClass(n); }

    void findCollectives(AnalysisContext& ctx, std::vector<Collective>& out) const override
    {
        findHcclCollectives(ctx, out);
    }

    void prepareComputing(AnalysisContext& ctx, const std::vector<Collective>&) const override
    {
        ctx.computeByName.assign(ctx.trace.strings().size(), -1);
    }

    bool isComputing(AnalysisContext& ctx, EventId e) const override
    {
        return ascendTaskComputing(ctx, e);
    }

    void finishCommunication(AnalysisContext& ctx, AnalysisReport& rep) const override
    {
        hcclFinishCommunication(ctx, rep);
    }

    int flowRank(std::string_view cat) const override { return torchNpuFlowRank(cat); }

    StepWindow stepWindow() const override { return StepWindow::Device; }

    EventId stackContinuation(const Trace& trace, const std::vector<TrackRole>& roles, EventId e,
                              const std::unordered_set<EventId>& visited,
                              const char** kind) const override
    {
        return torchNpuStackContinuation(trace, roles, e, visited, kind);
    }
};

// Prefer the Python op (torch_to_npu) over the CANN launch: it carries the stack.
EventId pickHost(const Trace& t, const std::vector<EventId>& launches)
{
    EventId best = kNone;
    for (EventId h : launches) {
        const ProcessId p = t.tracks()[t.slice(h).track].process;
        const bool python = p != kNone && torchnpu::processName(t, p) == "Python";
        if (best == kNone || python) best = h;
        if (python) break;
    }
    return best;
}

void addHcclOp(AnalysisContext& ctx, EventId e, const std::string& group,
               const std::vector<std::pair<TrackId, int>>& planes, std::vector<Collective>& out)
{
    const Trace& t = ctx.trace;
    const Slice& s = t.slice(e);
    Collective c;
    c.event = e;
    c.rank = t.rank();
    c.name = t.str(s.name);
    c.kind = kindFromName(c.name);
    c.group = group;
    c.start = s.start;
    c.dur = s.dur;
    const nlohmann::json a = eventArgs(t, e, ctx.errors);
    c.algorithm = argStr(a, "alg_type", ctx.errors);
    c.dtype = argStr(a, "data_type", ctx.errors);
    c.count = argU64(a, "count", ctx.errors).value_or(0);
    c.bytes = c.count * std::uint64_t(std::max(0, dtypeBytes(c.dtype)));
    c.hostEvent = pickHost(t, ctx.launchesOf(e));

    std::vector<std::pair<TimeNs, TimeNs>> waits;
    std::set<std::uint64_t> ranks;
    std::vector<HcclTask> hccl;
    const AnalysisOptions& opt = ctx.options;
    for (const auto& [p, planeNumber] : planes) {
        EventId i = t.firstSliceEndingAfter(p, s.start);
        if (i == kNone) continue;
        const Track& pt = t.tracks()[p];
        for (; i < pt.end; ++i) {
            const Slice& task = t.slice(i);
            if (task.start >= s.end()) break;
            if (task.start < s.start) continue;
            c.tasks.push_back(i);
            // HCCL tasks are many: read their flat args without a JSON DOM.
            const ArgsMembers ta(t.argsText(i));
            if (!ta.complete() && ctx.errors) ctx.errors->add(kArgsNotJson);
            std::string type = ta.str("task type", ctx.errors);
            if (type.empty()) type = t.str(task.name);
            const std::string transport = ta.str("transport type", ctx.errors);
            const std::string link = ta.str("link type", ctx.errors);
            const std::uint64_t size = ta.u64("size(Byte)", ctx.errors).value_or(0);
            HcclTask ht;
            ht.event = i;
            ht.plane = planeNumber;
            ht.start = task.start;
            ht.dur = task.dur;
            ht.kind = hcclTaskKind(type);
            ht.transport = transport;
            ht.link = link;
            ht.size = size;
            ht.src = ta.u64("src rank", ctx.errors);
            ht.dst = ta.u64("dst rank", ctx.errors);
            for (const auto& r : {ht.src, ht.dst}) {
                if (r && *r < 65536) ranks.insert(*r);
            }
            if (type == "Notify_Wait") waits.emplace_back(task.start, task.end());
            // msprof-analyze's byte-alignment rule: SDMA transfers off the chip above the
            // boundary.
            const bool sizeRule = transport == "SDMA" && link != "ON_CHIP" &&
                                  size > opt.sizeAlign && opt.sizeAlign > 0;
            const bool badSize = sizeRule && size % opt.sizeAlign != 0;
            bool badAddr = false;
            std::uint64_t address = 0;
            checkAddresses(ta, opt.addrAlign, &badAddr, &address);
            if (badSize || badAddr) {
                ++c.unalignedCount;
                ctx.unaligned.push_back(i);
            }
            // HCCL's "none" destination (4294967295) is the source, as the matrix has it.
            const bool local = ht.src && (ht.src == ht.dst || ht.dst == 4294967295ull);
            hccl.push_back(std::move(ht));
            if (type == "Memcpy" || t.str(task.name) == "Memcpy") {
                InternalCopy cp;
                cp.event = i;
                cp.start = task.start;
                cp.dur = task.dur;
                cp.bytes = size;
                cp.transport = transport;
                cp.link = link;
                cp.unalignedSize = badSize;
                cp.unalignedAddress = badAddr;
                cp.address = address;
                cp.local = local;
                c.copies.push_back(std::move(cp));
            }
        }
    }
    c.waitNs = unionLength(std::move(waits));
    c.groupSize = static_cast<int>(ranks.size());
    // Planes are walked one after the other: the figures want time order.
    std::stable_sort(hccl.begin(), hccl.end(),
                     [](const HcclTask& a, const HcclTask& b) { return a.start < b.start; });
    hcclCommFigures(hccl, opt, c);
    if (!hccl.empty()) hcclTasksOf(ctx).emplace(e, std::move(hccl));
    out.push_back(std::move(c));
}

// Which Ascend tasks are computing. torch_npu's step_trace_time.csv sums CANN's Overlap Analysis
// lanes, and CANN counts as computing exactly the device tasks that belong to a compute op: those
// matched to the op info recorded at launch (msprof's compute task info; torch_npu's DB export
// reads the same table, COMPUTE_TASK_INFO). msprof names a task after that op when it has one,
// and after its task type otherwise: the host type (MEMCPY_ASYNC, EVENT_RECORD,
// PROFILING_ENABLE...), or for FFTS+ subtasks and unknown types the device type, which is then
// also its Task Type (SDMA, Write Value, Notify Wait; older CANN writes "Other" for both). So a
// task is computing when its name is an op's name: not its Task Type, not a task-type
// identifier (upper case, digits, underscores), and not an HCCL op (communication).
bool computeTask(std::string_view type, std::string_view name)
{
    if (name.empty() || name == type || startsWith(name, "hcom_")) return false;
    const bool identifier = std::all_of(name.begin(), name.end(), [](char ch) {
        return (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
    });
    return !identifier;
}

} // namespace

std::uint8_t torchNpuNameClass(std::string_view n)
{
    std::uint8_t c = 0;
    if (startsWith(n, "hcom_")) c |= kNcHcom;
    if (startsWith(n, "ProfilerStep#")) c |= kNcStep;
    return c;
}

void findHcclCollectives(AnalysisContext& ctx, std::vector<Collective>& out)
{
    const Trace& t = ctx.trace;
    const auto& tracks = t.tracks();
    for (TrackId tr = 0; tr < tracks.size(); ++tr) {
        if (ctx.roles[tr] != TrackRole::HcclGroup) continue;
        // hccl_assembler.cpp: each group thread (tid t) is followed by its "Plane N" threads
        // (tids t+1+N): a plane belongs to the nearest group thread below it (the first group
        // when none is below: an odd layout keeps every plane).
        std::vector<std::pair<TrackId, int>> planes;
        const auto& ptracks = t.processes()[tracks[tr].process].tracks;
        auto tidOf = [&](TrackId x) { return textU64(tracks[x].tid).value_or(0); };
        for (TrackId p : ptracks) {
            if (ctx.roles[p] != TrackRole::HcclPlane) continue;
            TrackId owner = kNone, first = kNone;
            for (TrackId g : ptracks) {
                if (ctx.roles[g] != TrackRole::HcclGroup) continue;
                if (first == kNone || tidOf(g) < tidOf(first)) first = g;
                if (tidOf(g) < tidOf(p) && (owner == kNone || tidOf(g) > tidOf(owner))) owner = g;
            }
            if ((owner == kNone ? first : owner) != tr) continue;
            const std::string& n = t.str(tracks[p].name);
            planes.emplace_back(
                p, int(textU64(std::string_view(n).substr(std::min<std::size_t>(5, n.size())))
                           .value_or(std::uint64_t(planes.size()))));
        }
        std::string group = t.str(tracks[tr].name);
        if (startsWith(group, "Group ")) group = group.substr(6, group.find(' ', 6) - 6);
        for (EventId e = tracks[tr].begin; e < tracks[tr].end; ++e) {
            if (!(ctx.classOf(t.slice(e).name) & kNcHcom)) continue;
            addHcclOp(ctx, e, group, planes, out);
        }
    }
}

bool ascendTaskComputing(AnalysisContext& ctx, EventId e)
{
    const Trace& t = ctx.trace;
    const Slice& s = t.slice(e);
    if (ctx.roles[s.track] != TrackRole::AscendDevice) return false;
    if (s.name >= ctx.computeByName.size()) ctx.computeByName.resize(s.name + 1, -1);
    std::int8_t& known = ctx.computeByName[s.name];
    if (known < 0) {
        // One args parse per distinct task name.
        const nlohmann::json a = eventArgs(t, e, ctx.errors);
        known = computeTask(argStr(a, "Task Type", ctx.errors), t.str(s.name)) ? 1 : 0;
    }
    // msprof's memory-copy viewer (memory_copy_viewer.py, CANN of 2024) also writes records on
    // the streams: "MemcopyAsync" with Task Type "other" and "Receive Time" / "Start Time" /
    // "End Time" args. They come from the runtime's copy tracking, not from the task scheduler,
    // have no op info, and are never computing (nor busy: the Overlap Analysis lanes leave
    // them out).
    if (known == 1 && t.argsText(e).find("\"Receive Time\"") != std::string_view::npos)
        return false;
    return known == 1;
}

int torchNpuFlowRank(std::string_view cat)
{
    // Launch flows first (they name the op that started the device work), then torch_npu's
    // op-to-device and task-queue flows. fwdbwd links forward to backward: not a caller.
    if (cat == "HostToDevice") return 0;
    if (cat == "async_npu") return 1;
    if (cat == "async_task_queue") return 2;
    if (cat == "fwdbwd") return -1;
    return 3;
}

EventId torchNpuStackContinuation(const Trace& trace, const std::vector<TrackRole>& roles,
                                  EventId e, const std::unordered_set<EventId>& visited,
                                  const char** kind)
{
    const Slice& s = trace.slice(e);
    const TrackRole role = roles[s.track];
    // A HCCL task belongs to the op on the Group thread whose interval holds it.
    if (role == TrackRole::HcclPlane) {
        const ProcessId p = trace.tracks()[s.track].process;
        for (TrackId t : trace.processes()[p].tracks) {
            if (roles[t] != TrackRole::HcclGroup) continue;
            const EventId op = trace.sliceAt(t, s.start);
            if (op != kNone && !visited.count(op)) {
                *kind = "slice";
                return op;
            }
        }
    }
    // torch_npu's CANN and Python processes share thread ids: one OS thread.
    if (role == TrackRole::Cann) {
        const std::string& tid = trace.tracks()[s.track].tid;
        // In a job, the Python process of the same rank (same name prefix).
        std::string_view rankPrefix;
        torchnpu::processName(trace, trace.tracks()[s.track].process, &rankPrefix);
        for (ProcessId p = 0; p < trace.processes().size(); ++p) {
            std::string_view prefix;
            if (torchnpu::processName(trace, p, &prefix) != "Python" || prefix != rankPrefix)
                continue;
            const TrackId t = trace.findTrack(p, tid);
            if (t == kNone) continue;
            const EventId host = trace.sliceAt(t, s.start);
            if (host != kNone && !visited.count(host)) {
                *kind = "host op";
                return host;
            }
            break;
        }
    }
    return kNone;
}

void hcclFinishCommunication(AnalysisContext& ctx, AnalysisReport& rep)
{
    std::vector<HcclOpTasks> ops;
    for (const Collective& c : rep.collectives) {
        const HcclTasksByOp& tasks = hcclTasksOf(ctx);
        auto it = tasks.find(c.event);
        if (it != tasks.end()) ops.push_back({&c, &it->second});
    }
    rep.matrix = hcclMatrix(ops);
}

const ProducerModel& torchNpuModel()
{
    static const TorchNpuModel model;
    return model;
}

} // namespace rs::analysis
