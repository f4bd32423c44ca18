#include "core/job/jobtrace.h"

#include "core/job/jobloader.h"

#include <algorithm>
#include <numeric>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace rs {

namespace {

// Numeric pids compare as numbers of any length; others after them, as text (the timeline's
// order within one trace).
bool pidLess(const Process& a, const Process& b)
{
    if (a.pidIsNumber != b.pidIsNumber) return a.pidIsNumber;
    if (a.pidIsNumber && a.pid.size() != b.pid.size()) return a.pid.size() < b.pid.size();
    return a.pid < b.pid;
}

template <typename T> int blockOf(const std::vector<T>& base, T id)
{
    if (base.size() < 2 || id >= base.back()) return -1;
    auto it = std::upper_bound(base.begin(), base.end() - 1, id);
    return static_cast<int>(it - base.begin()) - 1;
}

} // namespace

int JobTrace::blockOfEvent(EventId e) const
{
    return e == kNone ? -1 : blockOf(eventBase, e);
}

int JobTrace::blockOfProcess(ProcessId p) const
{
    return p == kNone ? -1 : blockOf(processBase, p);
}

int JobTrace::blockOfTrack(TrackId t) const
{
    return t == kNone ? -1 : blockOf(trackBase, t);
}

int JobTrace::blockOfRank(int rank) const
{
    for (std::size_t i = 0; i < rankIds.size(); ++i)
        if (rankIds[i] == rank) return static_cast<int>(i);
    return -1;
}

// The one place that writes a Trace outside the loader (friend of Trace).
class JobTraceMerger {
public:
    static TracePtr shell(const Trace& t)
    {
        auto s = std::make_shared<Trace>();
        s->m_path = t.m_path;
        s->m_producer = t.m_producer;
        s->m_rank = t.m_rank;
        s->m_start = t.m_start;
        s->m_end = t.m_end;
        s->m_metadata = t.m_metadata;
        s->m_facts = t.m_facts;
        s->m_warnings = t.m_warnings;
        s->m_stats = t.m_stats;
        return s;
    }

    // Appends one rank's trace to the merged one.
    static void append(Trace& m, const Trace& t, int rank, const std::string& prefix, TimeNs offset,
                       bool first, bool& spanSet)
    {
        const EventId eBase = static_cast<EventId>(m.m_slices.size());
        const TrackId tBase = static_cast<TrackId>(m.m_tracks.size());
        const ProcessId pBase = static_cast<ProcessId>(m.m_processes.size());
        const auto cBase = static_cast<std::uint32_t>(m.m_counters.size());
        const auto fBase = static_cast<std::uint32_t>(m.m_flows.size());
        const auto sfBase = static_cast<std::uint32_t>(m.m_stackFrames.size());
        const auto aBase =
            static_cast<std::uint32_t>(m.m_argsOffsets.empty() ? 0 : m.m_argsOffsets.size() - 1);

        // Strings: one id map per rank; most names repeat across ranks and are stored once.
        std::vector<StrId> sid(t.m_strings.size());
        for (StrId i = 0; i < sid.size(); ++i)
            sid[i] = m.m_strings.intern(t.m_strings.str(i));

        for (Slice s : t.slices()) {
            s.start += offset;
            s.name = sid[s.name];
            s.cat = sid[s.cat];
            if (s.track != kNone) s.track += tBase;
            if (s.parent != kNone) s.parent += eBase;
            if (s.args != kNone) s.args += aBase;
            m.m_slices.push_back(s);
        }
        // Each rank's kinds and steps as its producer decided them (a job may mix producers).
        const auto kinds = t.kinds();
        m.m_kinds.insert(m.m_kinds.end(), kinds.begin(), kinds.end());
        for (StepMark st : t.m_steps) {
            st.event += eBase;
            m.m_steps.push_back(st);
        }
        // Args: append the text; offsets continue from the end of what is there.
        if (!t.argsOffsetsView().empty()) {
            const std::uint64_t textBase = m.m_argsText.size();
            if (!m.m_argsOffsets.empty()) m.m_argsOffsets.pop_back();
            for (std::uint64_t o : t.argsOffsetsView())
                m.m_argsOffsets.push_back(o + textBase);
            m.m_argsText.append(t.argsTextView());
        }

        for (Track tr : t.m_tracks) {
            if (tr.process != kNone) tr.process += pBase;
            tr.name = sid[tr.name];
            tr.begin += eBase;
            tr.end += eBase;
            if (tr.counter != kNone) tr.counter += cBase;
            m.m_tracks.push_back(std::move(tr));
        }
        for (TrackId i = 0; i < t.m_tracks.size(); ++i)
            m.m_trackMaxDur.push_back(i < t.m_trackMaxDur.size() ? t.m_trackMaxDur[i] : 0);

        // Processes: renamed by rank, sort index = position in the rank's own order.
        std::vector<ProcessId> order(t.m_processes.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](ProcessId a, ProcessId b) {
            const Process& pa = t.m_processes[a];
            const Process& pb = t.m_processes[b];
            const int sa = pa.hasSortIndex ? pa.sortIndex : 0;
            const int sb = pb.hasSortIndex ? pb.sortIndex : 0;
            if (sa != sb) return sa < sb;
            return pidLess(pa, pb);
        });
        std::vector<int> position(order.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            position[order[i]] = static_cast<int>(i);
        for (ProcessId p = 0; p < t.m_processes.size(); ++p) {
            Process proc = t.m_processes[p];
            proc.name = m.m_strings.intern(prefix + t.processLabel(p));
            proc.hasSortIndex = true;
            proc.sortIndex = static_cast<int>(pBase) + position[p];
            for (TrackId& tr : proc.tracks)
                tr += tBase;
            m.m_processes.push_back(std::move(proc));
        }

        for (const CounterSeries& c : t.m_counters) {
            CounterSeries n;
            n.process = c.process == kNone ? kNone : c.process + pBase;
            n.name = sid[c.name];
            n.key = sid[c.key];
            n.ts.reserve(c.ts.size());
            for (TimeNs v : c.ts)
                n.ts.push_back(v + offset);
            n.values = c.values;
            m.m_counters.push_back(std::move(n));
        }

        for (Flow f : t.m_flows) {
            if (f.from != kNone) f.from += eBase;
            if (f.to != kNone) f.to += eBase;
            f.cat = sid[f.cat];
            f.name = sid[f.name];
            f.idText = sid[f.idText];
            m.m_flows.push_back(f);
        }
        // Blocks are appended in id order, so the (slice, flow) indexes stay sorted.
        for (auto [e, f] : t.m_flowOut)
            m.m_flowOut.emplace_back(e + eBase, f + fBase);
        for (auto [e, f] : t.m_flowIn)
            m.m_flowIn.emplace_back(e + eBase, f + fBase);

        for (StackFrame sf : t.m_stackFrames) {
            sf.name = sid[sf.name];
            sf.category = sid[sf.category];
            if (sf.parent != kNone) sf.parent += sfBase;
            m.m_stackFrames.push_back(sf);
        }
        for (auto [e, f] : t.m_eventFrames)
            m.m_eventFrames.emplace_back(e + eBase, f + sfBase);

        // Span, statistics and warnings of the whole job.
        const bool hasEvents = t.m_end > t.m_start || !t.slices().empty();
        if (hasEvents) {
            m.m_start = spanSet ? std::min(m.m_start, t.m_start + offset) : t.m_start + offset;
            m.m_end = spanSet ? std::max(m.m_end, t.m_end + offset) : t.m_end + offset;
            spanSet = true;
        }
        LoadStats& st = m.m_stats;
        st.events += t.m_stats.events;
        for (const auto& [ph, n] : t.m_stats.phases)
            st.phases[ph] += n;
        st.unknownPhase += t.m_stats.unknownPhase;
        st.badFields += t.m_stats.badFields;
        st.unmatchedEnd += t.m_stats.unmatchedEnd;
        st.unterminated += t.m_stats.unterminated;
        st.danglingFlows += t.m_stats.danglingFlows;
        st.bytesRead += t.m_stats.bytesRead;
        st.truncated = st.truncated || t.m_stats.truncated;
        for (const std::string& w : t.m_warnings)
            m.m_warnings.push_back("rank " + std::to_string(rank) + ": " + w);
        if (first) m.m_producer = t.m_producer;
        nlohmann::json md = t.m_metadata;
        md["rank"] = rank;
        md["path"] = t.m_path;
        m.m_metadata["ranks"].push_back(std::move(md));
    }

    static void reserve(Trace& m, std::size_t slices, std::size_t tracks, std::size_t procs,
                        std::size_t text)
    {
        m.m_slices.reserve(slices);
        m.m_kinds.reserve(slices);
        m.m_tracks.reserve(tracks);
        m.m_processes.reserve(procs);
        m.m_argsText.reserve(text);
    }

    static std::shared_ptr<Trace> create(const std::string& path)
    {
        auto m = std::make_shared<Trace>();
        m->m_path = path;
        m->m_metadata = nlohmann::json::object();
        m->m_metadata["ranks"] = nlohmann::json::array();
        return m;
    }

    // A copy of the merged trace with flows from -> to added (both merged ids), each with its
    // name, in the category given; flagged in its metadata so it is done once.
    static TracePtr withFlows(const Trace& t, const JobTrace& job,
                              const std::vector<std::pair<EventId, EventId>>& links,
                              const std::vector<std::string>& names, const std::string& category)
    {
        auto copy = shifted(t, job, std::vector<TimeNs>(job.rankCount(), 0));
        auto m = std::const_pointer_cast<Trace>(copy);
        const StrId cat = m->m_strings.intern(category);
        for (std::size_t i = 0; i < links.size(); ++i) {
            const auto [from, to] = links[i];
            Flow f;
            f.from = from;
            f.to = to;
            f.cat = cat;
            f.name = m->m_strings.intern(names[i]);
            f.id = i + 1;
            const auto index = static_cast<std::uint32_t>(m->m_flows.size());
            m->m_flows.push_back(f);
            m->m_flowOut.emplace_back(from, index);
            m->m_flowIn.emplace_back(to, index);
            m->m_slices[from].flags |= kSliceFlowOut;
            m->m_slices[to].flags |= kSliceFlowIn;
        }
        std::sort(m->m_flowOut.begin(), m->m_flowOut.end());
        std::sort(m->m_flowIn.begin(), m->m_flowIn.end());
        m->m_metadata["call_flows"] = true;
        return copy;
    }

    // The same merged trace with block b shifted by delta[b].
    static TracePtr shifted(const Trace& t, const JobTrace& job, const std::vector<TimeNs>& delta)
    {
        auto m = std::make_shared<Trace>();
        for (StrId i = 0; i < t.m_strings.size(); ++i)
            m->m_strings.intern(t.m_strings.str(i)); // same ids: interned in the same order
        m->m_slices.assign(t.slices().begin(), t.slices().end());
        m->m_kinds.assign(t.kinds().begin(), t.kinds().end());
        m->m_steps = t.m_steps;
        m->m_tracks = t.m_tracks;
        m->m_processes = t.m_processes;
        m->m_counters = t.m_counters;
        m->m_flows = t.m_flows;
        m->m_flowOut = t.m_flowOut;
        m->m_flowIn = t.m_flowIn;
        m->m_argsText = t.argsTextView();
        m->m_argsOffsets.assign(t.argsOffsetsView().begin(), t.argsOffsetsView().end());
        m->m_stackFrames = t.m_stackFrames;
        m->m_eventFrames = t.m_eventFrames;
        m->m_trackMaxDur = t.m_trackMaxDur;
        m->m_metadata = t.m_metadata;
        m->m_path = t.m_path;
        m->m_producer = t.m_producer;
        m->m_rank = t.m_rank;
        m->m_stats = t.m_stats;
        m->m_warnings = t.m_warnings;
        bool any = false;
        for (std::size_t b = 0; b < job.rankCount(); ++b) {
            const TimeNs d = delta[b];
            for (EventId e = job.eventBase[b]; e < job.eventBase[b + 1]; ++e)
                m->m_slices[e].start += d;
            for (ProcessId p = job.processBase[b]; p < job.processBase[b + 1]; ++p)
                for (TrackId tr : m->m_processes[p].tracks) {
                    const Track& track = m->m_tracks[tr];
                    if (track.counter != kNone)
                        for (TimeNs& v : m->m_counters[track.counter].ts)
                            v += d;
                }
            // Span from the shell's own span plus the new offset.
            const Trace& shell = *job.shells[b];
            if (shell.m_end > shell.m_start || job.eventBase[b + 1] > job.eventBase[b]) {
                const TimeNs s = shell.m_start + job.offsets[b] + d;
                const TimeNs e = shell.m_end + job.offsets[b] + d;
                m->m_start = any ? std::min(m->m_start, s) : s;
                m->m_end = any ? std::max(m->m_end, e) : e;
                any = true;
            }
        }
        return m;
    }
};

TracePtr rankShell(const Trace& trace)
{
    return JobTraceMerger::shell(trace);
}

JobTrace mergeRanks(std::vector<TracePtr> traces, std::vector<TimeNs> offsets,
                    const std::string& path)
{
    JobTrace job;
    offsets.resize(traces.size(), 0);
    auto merged = JobTraceMerger::create(path);
    std::size_t slices = 0, tracks = 0, procs = 0, text = 0;
    bool spanSet = false;
    for (const TracePtr& t : traces) {
        slices += t->slices().size();
        tracks += t->tracks().size();
        procs += t->processes().size();
        text += t->argsBytes();
    }
    // Reserve once: growth would briefly hold 1.5-2x the slices.
    JobTraceMerger::reserve(*merged, slices, tracks, procs, text);
    for (std::size_t r = 0; r < traces.size(); ++r) {
        const Trace& t = *traces[r];
        const int rank = rankIdOf(t, r);
        job.rankIds.push_back(rank);
        job.offsets.push_back(offsets[r]);
        job.eventBase.push_back(static_cast<EventId>(merged->slices().size()));
        job.trackBase.push_back(static_cast<TrackId>(merged->tracks().size()));
        job.processBase.push_back(static_cast<ProcessId>(merged->processes().size()));
        job.shells.push_back(rankShell(t));
        // Traces of one rank given twice (unrelated files) keep apart by their position.
        const bool dup =
            std::find(job.rankIds.begin(), job.rankIds.end() - 1, rank) != job.rankIds.end() - 1;
        const std::string prefix =
            (dup ? "Trace " + std::to_string(r + 1) + " (rank " + std::to_string(rank) + ")"
                 : "Rank " + std::to_string(rank)) +
            " \xc2\xb7 ";
        JobTraceMerger::append(*merged, t, rank, prefix, offsets[r], r == 0, spanSet);
        // Frees the rank's model when we held the last reference. glibc keeps freed heap pages
        // of worker-thread arenas resident; trimming returns them, so the peak stays at about
        // the job plus one rank instead of two jobs.
        const bool last = traces[r].use_count() == 1;
        traces[r].reset();
#ifdef __GLIBC__
        if (last) malloc_trim(0);
#else
        (void)last;
#endif
    }
    job.eventBase.push_back(static_cast<EventId>(merged->slices().size()));
    job.trackBase.push_back(static_cast<TrackId>(merged->tracks().size()));
    job.processBase.push_back(static_cast<ProcessId>(merged->processes().size()));
    job.trace = std::move(merged);
    return job;
}

JobTrace reoffsetJob(const JobTrace& job, const std::vector<TimeNs>& offsets)
{
    JobTrace out = job;
    std::vector<TimeNs> delta(job.rankCount(), 0);
    for (std::size_t b = 0; b < job.rankCount() && b < offsets.size(); ++b) {
        delta[b] = offsets[b] - job.offsets[b];
        out.offsets[b] = offsets[b];
    }
    out.trace = JobTraceMerger::shifted(*job.trace, job, delta);
    return out;
}

JobTrace withCallFlows(const JobTrace& job, const JobReport& report,
                       const std::vector<ReportPtr>& rankReports)
{
    if (!job.trace) return job;
    const nlohmann::json& md = job.trace->metadata();
    if (md.is_object() && md.contains("call_flows")) return job;
    std::vector<std::pair<EventId, EventId>> links;
    std::vector<std::string> names;
    const std::size_t slices = job.trace->slices().size();
    for (const CrossRankCollective& x : report.collectives) {
        if (!x.seq || x.ops.size() < 2) continue;
        std::vector<std::pair<int, EventId>> members; // (rank, merged event), by rank
        for (const RankOp& op : x.ops) {
            if (op.report >= rankReports.size() || op.report >= job.rankCount()) continue;
            const auto& local = rankReports[op.report]->collectives;
            if (op.collective >= local.size()) continue;
            const EventId e = job.toMerged(op.report, local[op.collective].event);
            if (e < slices) members.emplace_back(op.rank, e);
        }
        std::sort(members.begin(), members.end());
        for (std::size_t k = 1; k < members.size(); ++k) {
            links.emplace_back(members[k - 1].second, members[k].second);
            names.push_back(x.group + " #" + std::to_string(*x.seq));
        }
    }
    if (links.empty()) return job;
    JobTrace out = job;
    out.trace = JobTraceMerger::withFlows(*job.trace, job, links, names, "collective call");
    return out;
}

namespace {

void shiftEvents(std::vector<EventId>& v, EventId base)
{
    for (EventId& e : v)
        if (e != kNone) e += base;
}

void remapFinding(Finding& f, EventId base, TimeNs offset)
{
    shiftEvents(f.events, base);
    for (StackEntry& s : f.stack)
        if (s.event != kNone) s.event += base;
    if (f.end > f.start || f.start != 0) {
        f.start += offset;
        f.end += offset;
    }
}

} // namespace

AnalysisReport remapReport(const AnalysisReport& report, const JobTrace& job, std::size_t block)
{
    const EventId base = job.eventBase[block];
    const TimeNs off = job.offsets[block];
    const int rank = job.rankIds[block];
    AnalysisReport r = report;
    r.trace = job.trace;
    for (Collective& c : r.collectives) {
        if (c.event != kNone) c.event += base;
        if (c.hostEvent != kNone) c.hostEvent += base;
        c.rank = rank;
        c.start += off;
        shiftEvents(c.tasks, base);
        for (InternalCopy& ic : c.copies) {
            if (ic.event != kNone) ic.event += base;
            ic.start += off;
        }
    }
    for (StepStats& s : r.steps) {
        s.rank = rank;
        if (s.event != kNone) s.event += base;
        s.start += off;
        s.end += off;
        s.busyStart += off;
        s.busyEnd += off;
    }
    for (Finding& f : r.findings) {
        remapFinding(f, base, off);
        if (!f.rank && f.ranks.empty()) f.rank = rank;
    }
    // The matrix keeps its src/dst (group ranks); its tasks move into the merged ids. It stays
    // in the per-rank reports: combineReports() leaves it out (its task lists are large).
    for (MatrixEntry& m : r.matrix) {
        m.rank = rank;
        shiftEvents(m.tasks, base);
    }
    for (auto& [e, m] : r.markIndex)
        e += base;
    for (auto& [e, c] : r.collectiveIndex)
        e += base;
    return r;
}

Finding remapJobFinding(const Finding& finding, const JobTrace& job)
{
    Finding f = finding;
    const int b = f.eventsRank ? job.blockOfRank(*f.eventsRank) : -1;
    if (b < 0) {
        f.events.clear(); // no trace to point into
        f.stack.clear();
        return f;
    }
    remapFinding(f, job.eventBase[static_cast<std::size_t>(b)],
                 job.offsets[static_cast<std::size_t>(b)]);
    return f;
}

namespace {

// The ranks that delayed an instance (cross_rank[].delaying_ranks).
std::vector<int> delayersOf(const CrossRankCollective& x)
{
    std::vector<int> out = x.delayingRanks;
    if (out.empty() && x.delayingRank) out.push_back(*x.delayingRank);
    return out;
}

std::string rankNames(const std::vector<int>& ranks)
{
    std::string s = ranks.size() > 1 ? "ranks " : "rank ";
    for (std::size_t i = 0; i < ranks.size(); ++i)
        s += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[i]);
    return s;
}

// A rank that only waited cannot tell from its own trace whom it waited for; the job can. The
// verdict names the delaying rank(s) and the job finding that explains the delay.
void nameDelayers(AnalysisReport& out, const JobTrace& job,
                  const std::vector<ReportPtr>& rankReports, const JobReport& jobReport)
{
    for (const CrossRankCollective& x : jobReport.collectives) {
        const std::vector<int> delayers = delayersOf(x);
        if (delayers.empty()) continue;
        TimeNs from = 0, to = 0;
        bool any = false;
        for (const RankOp& op : x.ops) {
            from = any ? std::min(from, op.start) : op.start;
            to = any ? std::max(to, op.end) : op.end;
            any = true;
        }
        const Finding* finding = nullptr;
        for (const Finding& f : out.findings)
            if (f.rule == "job-rank-delays-collective" && !f.ranks.empty() &&
                std::find(delayers.begin(), delayers.end(), f.ranks.front()) != delayers.end() &&
                f.start < to && f.end > from) {
                finding = &f;
                break;
            }
        std::string because = "waited for " + rankNames(delayers);
        if (!x.cause.empty()) because += " (" + x.cause + ")";
        if (finding) because += ": see the job finding \"" + finding->title + "\"";
        for (const RankOp& op : x.ops) {
            if (std::find(delayers.begin(), delayers.end(), op.rank) != delayers.end()) continue;
            if (op.report >= rankReports.size() || op.report >= job.rankCount()) continue;
            const auto& local = rankReports[op.report]->collectives;
            if (op.collective >= local.size()) continue;
            const Collective* c =
                out.collectiveOf(job.toMerged(op.report, local[op.collective].event));
            if (!c || !c->waiting) continue;
            std::string& v =
                out.collectives[static_cast<std::size_t>(c - out.collectives.data())].verdict;
            // "..., look at the other ranks." is what one rank could say; the job knows.
            const std::size_t at = v.find(", look at the other ranks.");
            if (at != std::string::npos)
                v = v.substr(0, at) + "; it " + because + ".";
            else
                v += (v.empty() ? "It " : " It ") + because + ".";
        }
    }
}

} // namespace

ReportPtr combineReports(const JobTrace& job, const std::vector<ReportPtr>& rankReports,
                         const JobReport* jobReport, std::vector<ReportPtr>* perRank)
{
    auto out = std::make_shared<AnalysisReport>();
    out->trace = job.trace;
    if (!rankReports.empty()) out->options = rankReports.front()->options;
    std::vector<std::uint32_t> collBase, sigBase;
    std::vector<Finding> rankFindings;
    for (std::size_t b = 0; b < rankReports.size() && b < job.rankCount(); ++b) {
        auto r = std::make_shared<AnalysisReport>(remapReport(*rankReports[b], job, b));
        collBase.push_back(static_cast<std::uint32_t>(out->collectives.size()));
        sigBase.push_back(static_cast<std::uint32_t>(out->signatures.size()));
        for (Collective c : r->collectives) {
            c.signature += sigBase.back();
            out->collectives.push_back(std::move(c));
        }
        for (SignatureGroup g : r->signatures) {
            g.label = "Rank " + std::to_string(job.rankIds[b]) + " \xc2\xb7 " + g.label;
            for (std::uint32_t& m : g.members)
                m += collBase.back();
            out->signatures.push_back(std::move(g));
        }
        out->steps.insert(out->steps.end(), r->steps.begin(), r->steps.end());
        rankFindings.insert(rankFindings.end(), r->findings.begin(), r->findings.end());
        // Blocks come in id order: the concatenated indexes stay sorted.
        out->markIndex.insert(out->markIndex.end(), r->markIndex.begin(), r->markIndex.end());
        for (auto [e, c] : r->collectiveIndex)
            out->collectiveIndex.emplace_back(e, c + collBase.back());
        if (perRank) perRank->push_back(std::move(r));
    }
    // Collectives sorted by start (the contract); indices pointing at them follow.
    const std::size_t n = out->collectives.size();
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return out->collectives[a].start < out->collectives[b].start;
    });
    std::vector<std::uint32_t> newIndex(n);
    std::vector<Collective> sorted;
    sorted.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        newIndex[order[i]] = i;
        sorted.push_back(std::move(out->collectives[order[i]]));
    }
    out->collectives = std::move(sorted);
    for (SignatureGroup& g : out->signatures)
        for (std::uint32_t& m : g.members)
            m = newIndex[m];
    for (auto& [e, c] : out->collectiveIndex)
        c = newIndex[c];
    std::stable_sort(out->steps.begin(), out->steps.end(),
                     [](const StepStats& a, const StepStats& b) {
                         if (a.step != b.step) return a.step < b.step;
                         return a.rank.value_or(0) < b.rank.value_or(0);
                     });
    // Job findings first: they say which rank to look at; then every rank's own.
    if (jobReport)
        for (const Finding& f : jobReport->findings)
            out->findings.push_back(remapJobFinding(f, job));
    out->findings.insert(out->findings.end(), rankFindings.begin(), rankFindings.end());
    std::stable_sort(out->findings.begin(), out->findings.end(),
                     [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
    if (jobReport) nameDelayers(*out, job, rankReports, *jobReport);
    return out;
}

} // namespace rs
