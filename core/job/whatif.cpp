#include "core/job/whatif.h"

#include "core/jsonwriter.h"
#include "core/timeconv.h"
#include "core/trackrole.h"

#include <QRegularExpression>
#include <QString>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>

namespace rs {

namespace {

constexpr TimeNs kNever = std::numeric_limits<TimeNs>::min();

// One device event of a step on one rank: a kernel, copy or set on a stream, or a collective.
struct Node {
    std::size_t rank = 0; // index into the traces
    TrackId track = kNone;
    EventId event = kNone;
    std::int64_t collective = -1; // its index in the rank's report
    TimeNs start = 0, end = 0;    // measured, job clock
    TimeNs launchEnd = kNever;    // its host launch's end (the host is not replayed)
    double factor = 1.;           // its duration (a collective: its exchange) times this
    TimeNs extra = 0;             // a collective's extra internal memcpy, kept or removed
    std::int64_t streamPrev = -1; // the node before it on its track
    std::int64_t otherPrev = -1;  // the last node of its rank's other tracks ended before it
    // Replayed.
    TimeNs start2 = 0, ready2 = 0, end2 = 0;
    bool done = false, endDone = false;
};

class Replay {
public:
    // merged: traces[i] is the job's merged trace, rank i its tracks from merged->trackBase,
    // its reports already on the job clock.
    Replay(const std::vector<TracePtr>& traces, const std::vector<ReportPtr>& reports,
           const JobReport* job, const WhatIfChange& change, const JobTrace* merged = nullptr)
        : m_traces(traces), m_reports(reports), m_job(job), m_change(change), m_merged(merged)
    {
        for (const WhatIfChange::Scale& s : change.scale)
            m_globs.emplace_back(
                QRegularExpression::fromWildcard(QString::fromStdString(s.glob), Qt::CaseSensitive),
                s.factor);
        if (job) {
            for (std::size_t i = 0; i < job->collectives.size(); ++i)
                for (const RankOp& op : job->collectives[i].ops)
                    m_instanceOf[{op.report, op.collective}] = i;
        }
    }

    WhatIfResult run()
    {
        // Each step: its span on every rank that has it.
        std::map<int, std::vector<std::pair<std::size_t, const StepStats*>>> steps;
        for (std::size_t r = 0; r < m_reports.size(); ++r)
            if (m_reports[r] && r < m_traces.size() && m_traces[r])
                for (const StepStats& s : m_reports[r]->steps)
                    if (s.end > s.start) steps[s.step].emplace_back(r, &s);
        WhatIfResult out;
        for (const auto& [step, spans] : steps) {
            const StepPrediction p = replayStep(step, spans);
            out.steps.push_back(p);
            out.totalMeasuredNs += p.measuredNs;
            out.totalPredictedNs += p.predictedNs;
        }
        return out;
    }

private:
    TimeNs offset(std::size_t r) const
    {
        if (m_merged) return 0; // the merged trace is on the job clock already
        return m_job && r < m_job->offsets.size() ? m_job->offsets[r] : 0;
    }
    bool changes(std::size_t r) const
    {
        if (!m_change.rank) return true;
        const std::optional<int> id = m_job && r < m_job->rankIds.size()
                                          ? std::optional<int>(m_job->rankIds[r])
                                          : reportRank(*m_reports[r]);
        return id == m_change.rank;
    }
    double factorOf(std::size_t r, const std::string& name) const
    {
        double f = 1.;
        if (!changes(r)) return f;
        const QString n = QString::fromStdString(name);
        for (const auto& [re, factor] : m_globs)
            if (re.match(n).hasMatch()) f = factor;
        return f;
    }

    // The rank's nodes of the step [s, e): device events starting in it.
    void addNodes(std::size_t r, const StepStats& st)
    {
        const Trace& t = *m_traces[r];
        const AnalysisReport& rep = *m_reports[r];
        const TimeNs off = offset(r);
        const auto sl = t.slices();
        const std::size_t first = m_nodes.size();
        TrackId trBegin = 0, trEnd = TrackId(t.tracks().size());
        if (m_merged && r + 1 < m_merged->trackBase.size()) {
            trBegin = m_merged->trackBase[r];
            trEnd = std::min<TrackId>(trEnd, m_merged->trackBase[r + 1]);
        }
        for (TrackId tr = trBegin; tr < trEnd; ++tr) {
            if (!isStreamRole(t.role(tr))) continue;
            const auto slices = t.trackSlices(tr);
            auto it = std::lower_bound(slices.begin(), slices.end(), st.start,
                                       [](const Slice& s, TimeNs v) { return s.start < v; });
            for (; it != slices.end() && it->start < st.end; ++it) {
                const auto e = static_cast<EventId>(&*it - sl.data());
                const SliceKind k = t.kind(e);
                if (k != SliceKind::Kernel && k != SliceKind::Copy && k != SliceKind::Memset)
                    continue;
                if (rep.collectiveOf(e)) continue; // a collective's own task
                Node n;
                n.rank = r;
                n.track = tr;
                n.event = e;
                n.start = it->start + off;
                n.end = it->end() + off;
                n.factor = factorOf(r, t.str(it->name));
                m_nodes.push_back(n);
            }
        }
        for (std::size_t i = 0; i < rep.collectives.size(); ++i) {
            const Collective& c = rep.collectives[i];
            if (c.start < st.start || c.start >= st.end) continue;
            Node n;
            n.rank = r;
            n.track = c.event < sl.size() ? sl[c.event].track : kNone;
            n.event = c.event;
            n.collective = std::int64_t(i);
            n.start = c.start + off;
            n.end = c.start + c.dur + off;
            n.extra = std::min(c.extraMemcpyNs, c.dur);
            n.factor = factorOf(r, c.name);
            m_nodes.push_back(n);
        }
        // Launches: the host slices whose flows reach the event.
        for (std::size_t i = first; i < m_nodes.size(); ++i) {
            Node& n = m_nodes[i];
            if (n.event >= sl.size()) continue;
            for (std::uint32_t f : t.flowsTo(n.event)) {
                const EventId from = t.flows()[f].from;
                if (from >= sl.size() || isDeviceRole(t.role(sl[from].track))) continue;
                n.launchEnd = std::max(n.launchEnd, sl[from].end() + off);
            }
        }
    }

    StepPrediction replayStep(int step,
                              const std::vector<std::pair<std::size_t, const StepStats*>>& spans)
    {
        m_nodes.clear();
        m_index.clear();
        for (const auto& [r, st] : spans)
            addNodes(r, *st);
        std::sort(m_nodes.begin(), m_nodes.end(), [](const Node& a, const Node& b) {
            return a.start != b.start ? a.start < b.start : a.end < b.end;
        });
        // Dependencies: the previous node of its track, and the one of its rank's other tracks
        // that ended last before it started.
        std::map<std::pair<std::size_t, TrackId>, std::int64_t> lastOnTrack;
        std::map<std::size_t, std::vector<std::int64_t>> byRank;
        for (std::size_t i = 0; i < m_nodes.size(); ++i) {
            Node& n = m_nodes[i];
            auto [it, added] = lastOnTrack.emplace(std::make_pair(n.rank, n.track), -1);
            n.streamPrev = it->second;
            it->second = std::int64_t(i);
            byRank[n.rank].push_back(std::int64_t(i));
            if (n.collective >= 0) m_index[{n.rank, std::size_t(n.collective)}] = i;
        }
        for (auto& [r, list] : byRank) {
            // Among the rank's earlier nodes (by start) of other tracks, the one ending last
            // at or before this start; a rank's streams interleave, so the last few hundred
            // nodes hold it.
            for (std::size_t k = 0; k < list.size(); ++k) {
                Node& n = m_nodes[std::size_t(list[k])];
                TimeNs best = kNever;
                const std::size_t stop = k > 256 ? k - 256 : 0;
                for (std::size_t j = k; j-- > stop;) {
                    const Node& o = m_nodes[std::size_t(list[j])];
                    if (o.track == n.track || o.end > n.start || o.end <= best) continue;
                    best = o.end;
                    n.otherPrev = list[j];
                }
            }
        }
        for (std::size_t i = 0; i < m_nodes.size(); ++i)
            replayStart(i);
        // The step ends when its last device event does, moved as that event moved; its start
        // stays where it was.
        TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = kNever, hi2 = kNever;
        for (const auto& [r, st] : spans) {
            const TimeNs off = offset(r);
            lo = std::min(lo, st->start + off);
            TimeNs shift = 0, lastEnd = kNever;
            for (std::size_t i = 0; i < m_nodes.size(); ++i) {
                const Node& n = m_nodes[i];
                if (n.rank != r || n.end < lastEnd) continue;
                lastEnd = n.end;
                shift = endOf(i) - n.end;
            }
            hi = std::max(hi, st->end + off);
            hi2 = std::max(hi2, st->end + off + shift);
        }
        StepPrediction p;
        p.step = step;
        p.measuredNs = hi - lo;
        p.predictedNs = std::max<TimeNs>(0, hi2 - lo);
        return p;
    }

    // A dependency's constraint on a start: its replayed end plus the gap it had, where it was
    // the one that held the event back; else only that it comes first (a measured overlap kept).
    void replayStart(std::size_t i)
    {
        Node& n = m_nodes[i];
        if (n.done) return;
        n.done = true;
        TimeNs bindEnd = kNever;
        int binding = -1; // 0 stream, 1 other stream, 2 launch
        const TimeNs ends[3] = {n.streamPrev >= 0 ? m_nodes[std::size_t(n.streamPrev)].end : kNever,
                                n.otherPrev >= 0 ? m_nodes[std::size_t(n.otherPrev)].end : kNever,
                                n.launchEnd};
        for (int d = 0; d < 3; ++d)
            if (ends[d] != kNever && ends[d] > bindEnd) {
                bindEnd = ends[d];
                binding = d;
            }
        TimeNs s = binding < 0 ? n.start : kNever;
        for (int d = 0; d < 3; ++d) {
            if (ends[d] == kNever) continue;
            const TimeNs now = d == 0   ? endOf(std::size_t(n.streamPrev))
                               : d == 1 ? endOf(std::size_t(n.otherPrev))
                                        : n.launchEnd; // the host is not replayed
            const TimeNs gap = n.start - ends[d];
            s = std::max(s, now + (d == binding ? gap : std::min<TimeNs>(gap, 0)));
        }
        n.start2 = s;
        const bool remove = m_change.removeInternalMemcpy && changes(n.rank);
        n.ready2 = n.start2 + (n.collective >= 0 && !remove ? n.extra : 0);
    }

    // The replayed end: a kernel's start plus its (scaled) length; a collective's exchange
    // after its last member was ready.
    TimeNs endOf(std::size_t i)
    {
        Node& n = m_nodes[i];
        replayStart(i);
        if (n.endDone) return n.end2;
        n.endDone = true;
        if (n.collective < 0) {
            n.end2 = n.start2 + TimeNs(double(n.end - n.start) * n.factor + 0.5);
            return n.end2;
        }
        // Members: the instance's ops whose nodes are in this step; others keep their times.
        TimeNs ready = n.start + n.extra, ready2 = n.ready2;
        const auto inst = m_instanceOf.find({n.rank, std::size_t(n.collective)});
        if (inst != m_instanceOf.end()) {
            for (const RankOp& op : m_job->collectives[inst->second].ops) {
                ready = std::max(ready, op.ready);
                const auto m = m_index.find({op.report, std::size_t(op.collective)});
                if (m == m_index.end()) {
                    ready2 = std::max(ready2, op.ready);
                    continue;
                }
                Node& o = m_nodes[m->second];
                if (!o.done && m->second != i) replayStart(m->second);
                ready2 = std::max(ready2, o.ready2);
            }
        }
        const TimeNs exchange = std::max<TimeNs>(0, n.end - ready);
        n.end2 = ready2 + TimeNs(double(exchange) * n.factor + 0.5);
        return n.end2;
    }

    const std::vector<TracePtr>& m_traces;
    const std::vector<ReportPtr>& m_reports;
    const JobReport* m_job;
    const WhatIfChange& m_change;
    const JobTrace* m_merged = nullptr;
    std::vector<std::pair<QRegularExpression, double>> m_globs;
    std::map<std::pair<std::size_t, std::size_t>, std::size_t> m_instanceOf;
    std::vector<Node> m_nodes;
    std::map<std::pair<std::size_t, std::size_t>, std::size_t> m_index; // (rank, coll) -> node
};

} // namespace

WhatIfResult whatIf(const std::vector<TracePtr>& traces, const std::vector<ReportPtr>& reports,
                    const JobReport* job, const WhatIfChange& change)
{
    return Replay(traces, reports, job, change).run();
}

WhatIfResult whatIf(const JobTrace& merged, const std::vector<ReportPtr>& reports,
                    const JobReport* job, const WhatIfChange& change)
{
    if (!merged.trace || merged.trackBase.size() < reports.size() + 1) return {};
    const std::vector<TracePtr> traces(reports.size(), merged.trace);
    return Replay(traces, reports, job, change, &merged).run();
}

std::string whatIfJson(const WhatIfResult& r)
{
    std::string out;
    JsonWriter w(out, true);
    w.beginObject();
    w.key("steps");
    w.array(r.steps.size(), [&](std::size_t i) {
        const StepPrediction& p = r.steps[i];
        w.beginObject();
        w.key("measured_ns");
        w.integer(p.measuredNs);
        w.key("predicted_ns");
        w.integer(p.predictedNs);
        w.key("step");
        w.integer(p.step);
        w.endObject();
    });
    w.key("total_measured_ns");
    w.integer(r.totalMeasuredNs);
    w.key("total_predicted_ns");
    w.integer(r.totalPredictedNs);
    w.endObject();
    return out;
}

std::string whatIfText(const WhatIfResult& r)
{
    std::string out = "step        measured   predicted      saving\n";
    char line[160];
    auto row = [&](const std::string& name, TimeNs m, TimeNs p) {
        const double pct = m > 0 ? 100.0 * double(m - p) / double(m) : 0.0;
        std::snprintf(line, sizeof line, "%-8s  %10s  %10s  %10s (%.1f%%)\n", name.c_str(),
                      formatDuration(m).c_str(), formatDuration(p).c_str(),
                      formatDuration(m - p).c_str(), pct);
        out += line;
    };
    for (const StepPrediction& p : r.steps)
        row(std::to_string(p.step), p.measuredNs, p.predictedNs);
    row("total", r.totalMeasuredNs, r.totalPredictedNs);
    return out;
}

} // namespace rs
