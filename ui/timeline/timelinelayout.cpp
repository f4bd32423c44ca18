#include "ui/timeline/timelinelayout.h"

#include "core/analysis/activity.h"

#include <QRegularExpression>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <map>
#include <string>

namespace rs {

TimelineIndex::TimelineIndex(TracePtr trace)
    : m_trace(std::move(trace)), m_activity(activityExtent(*m_trace))
{
    const Trace& tr = *m_trace;
    const auto& tracks = tr.tracks();
    m_rowBegin.assign(tracks.size() + 1, 0);
    // Depth counts first (trust the slices, not only Track::maxDepth).
    std::vector<std::uint32_t> depths(tracks.size(), 0);
    for (TrackId t = 0; t < tracks.size(); ++t) {
        std::uint32_t d = 0;
        if (tracks[t].kind != TrackKind::Counter)
            for (const Slice& s : tr.trackSlices(t))
                d = std::max<std::uint32_t>(d, s.depth + 1u);
        depths[t] = d;
        m_rowBegin[t + 1] = m_rowBegin[t] + d;
    }
    m_rowOffset.assign(m_rowBegin.back() + 1, 0);
    // Counting sort by depth inside each track keeps the start order.
    std::vector<std::uint32_t> count;
    std::uint32_t base = 0;
    for (TrackId t = 0; t < tracks.size(); ++t) {
        const std::uint32_t r0 = m_rowBegin[t];
        count.assign(depths[t], 0);
        auto sl = tr.trackSlices(t);
        if (depths[t])
            for (const Slice& s : sl)
                ++count[s.depth];
        for (std::uint32_t d = 0; d < depths[t]; ++d) {
            m_rowOffset[r0 + d] = base;
            base += count[d];
        }
    }
    m_rowOffset.back() = base;
    m_order.resize(base);
    std::vector<std::uint8_t> breakCode(base), durCode(base);
    std::vector<std::uint32_t> fill(m_rowOffset.begin(), m_rowOffset.end() - 1);
    // Per row, the end of its last slice so far: rows fill in start order.
    std::vector<TimeNs> lastEnd(m_rowBegin.back(), 0);
    for (TrackId t = 0; t < tracks.size(); ++t) {
        if (!depths[t]) continue;
        const Track& track = tracks[t];
        for (EventId e = track.begin; e < track.end; ++e) {
            const Slice& s = tr.slice(e);
            const std::uint32_t r = m_rowBegin[t] + s.depth;
            const std::uint32_t pos = fill[r]++;
            m_order[pos] = e;
            // The first slice of a row has no gap before it.
            const TimeNs gap = pos > m_rowOffset[r] ? s.start - lastEnd[r] : 0;
            breakCode[pos] = lodCode(std::max(s.dur, gap));
            durCode[pos] = lodCode(s.dur);
            lastEnd[r] = s.end();
        }
    }
    m_breakLod.build(std::move(breakCode));
    m_durLod.build(std::move(durCode));
    // Busy prefix of each depth-0 row, one entry per kBusyBlock slices (and one at the end).
    m_busyBegin.assign(tracks.size() + 1, 0);
    for (TrackId t = 0; t < tracks.size(); ++t) {
        const auto r = row(t, 0);
        m_busyBegin[t + 1] = m_busyBegin[t] + static_cast<std::uint32_t>(r.size() / kBusyBlock + 1);
    }
    m_busyPrefix.assign(m_busyBegin.back(), 0);
    for (TrackId t = 0; t < tracks.size(); ++t) {
        const auto r = row(t, 0);
        TimeNs sum = 0;
        for (std::size_t i = 0; i < r.size(); ++i) {
            if (i % kBusyBlock == 0) m_busyPrefix[m_busyBegin[t] + i / kBusyBlock] = sum;
            sum += tr.slice(r[i]).dur;
        }
        if (r.size() % kBusyBlock == 0) m_busyPrefix[m_busyBegin[t] + r.size() / kBusyBlock] = sum;
    }
}

TimeNs TimelineIndex::busyBefore(TrackId t, TimeNs time) const
{
    const auto r = row(t, 0);
    if (r.empty()) return 0;
    const Trace& tr = *m_trace;
    // Slices [0, k) end by `time`; slice k may straddle it.
    const std::size_t k = firstEndingAfter(r, time);
    TimeNs sum = m_busyPrefix[m_busyBegin[t] + k / kBusyBlock];
    for (std::size_t i = k / kBusyBlock * kBusyBlock; i < k; ++i)
        sum += tr.slice(r[i]).dur;
    if (k < r.size()) {
        const Slice& s = tr.slice(r[k]);
        if (s.start < time) sum += time - s.start;
    }
    return sum;
}

void TimelineIndex::busyBeforeEach(TrackId t, std::span<const TimeNs> times,
                                   std::span<TimeNs> out) const
{
    const auto r = row(t, 0);
    const Trace& tr = *m_trace;
    const std::size_t n = r.size();
    std::size_t k = 0; // first slice not ended by the current time
    TimeNs sumK = 0;   // busy time of r[0, k)
    for (std::size_t i = 0; i < times.size() && i < out.size(); ++i) {
        const TimeNs time = times[i];
        auto endsBy = [&](std::size_t j) { return tr.slice(r[j]).end() <= time; };
        if (k < n && endsBy(k)) {
            std::size_t lo = k, hi = k + 1, step = 1; // endsBy(lo); answer in (lo, hi]
            while (hi < n && endsBy(hi)) {
                lo = hi;
                step *= 2;
                hi = std::min(n, lo + step);
            }
            const auto it =
                std::partition_point(r.begin() + static_cast<std::ptrdiff_t>(lo) + 1,
                                     r.begin() + static_cast<std::ptrdiff_t>(hi),
                                     [&](EventId e) { return tr.slice(e).end() <= time; });
            const std::size_t k2 = static_cast<std::size_t>(it - r.begin());
            if (k2 - k <= 2 * kBusyBlock) {
                for (std::size_t j = k; j < k2; ++j)
                    sumK += tr.slice(r[j]).dur;
            } else {
                sumK = m_busyPrefix[m_busyBegin[t] + k2 / kBusyBlock];
                for (std::size_t j = k2 / kBusyBlock * kBusyBlock; j < k2; ++j)
                    sumK += tr.slice(r[j]).dur;
            }
            k = k2;
        }
        TimeNs v = sumK;
        if (k < n) {
            const Slice& s = tr.slice(r[k]);
            if (s.start < time) v += time - s.start;
        }
        out[i] = v;
    }
}

TimeNs TimelineIndex::busyIn(TrackId t, TimeNs a, TimeNs b) const
{
    if (b <= a || t + 1 >= m_busyBegin.size()) return 0;
    return busyBefore(t, b) - busyBefore(t, a);
}

std::span<const EventId> TimelineIndex::row(TrackId t, int depth) const
{
    if (t + 1 >= m_rowBegin.size() || depth < 0 || depth >= depthCount(t)) return {};
    const std::uint32_t r = m_rowBegin[t] + static_cast<std::uint32_t>(depth);
    return std::span<const EventId>(m_order).subspan(m_rowOffset[r],
                                                     m_rowOffset[r + 1] - m_rowOffset[r]);
}

std::size_t TimelineIndex::firstEndingAfter(std::span<const EventId> row, TimeNs time) const
{
    const Trace& tr = *m_trace;
    auto it = std::partition_point(row.begin(), row.end(),
                                   [&](EventId e) { return tr.slice(e).end() <= time; });
    return static_cast<std::size_t>(it - row.begin());
}

std::size_t TimelineIndex::firstStartingAt(std::span<const EventId> row, TimeNs time) const
{
    const Trace& tr = *m_trace;
    auto it = std::partition_point(row.begin(), row.end(),
                                   [&](EventId e) { return tr.slice(e).start < time; });
    return static_cast<std::size_t>(it - row.begin());
}

std::size_t TimelineIndex::firstStartingAtNear(std::span<const EventId> row, std::size_t from,
                                               std::size_t guess, TimeNs time) const
{
    const Trace& tr = *m_trace;
    const std::size_t n = row.size();
    auto before = [&](std::size_t i) { return tr.slice(row[i]).start < time; };
    if (from >= n || !before(from)) return from;
    // Invariant: row[lo] starts before time; the answer is in (lo, hi].
    if (from + 1 >= n) return n;
    std::size_t lo = from, hi = n;
    const std::size_t g = std::clamp(guess, from + 1, n - 1);
    if (!before(g)) {
        hi = g;
        for (std::size_t step = 1; hi - lo > step; step *= 2) { // gallop back towards from
            if (before(hi - step)) {
                lo = hi - step;
                break;
            }
            hi -= step;
        }
    } else {
        lo = g;
        for (std::size_t step = 1; lo + step < n; step *= 2) { // gallop forward
            if (!before(lo + step)) {
                hi = lo + step;
                break;
            }
            lo += step;
        }
    }
    auto it = std::partition_point(row.begin() + static_cast<std::ptrdiff_t>(lo) + 1,
                                   row.begin() + static_cast<std::ptrdiff_t>(hi),
                                   [&](EventId e) { return tr.slice(e).start < time; });
    return static_cast<std::size_t>(it - row.begin());
}

std::size_t TimelineIndex::foldBlockEnd(std::span<const EventId> row, std::size_t i,
                                        std::size_t end, TimeNs minNs) const
{
    end = std::min(end, row.size());
    if (i + 1 >= end) return end;
    const Trace& tr = *m_trace;
    const std::size_t base = baseOf(row);
    const std::uint8_t c = lodCode(minNs);
    for (std::size_t m = i + 1;; ++m) {
        // Codes below c are below minNs; codes above it are above; equal ones need the slices.
        m = m_breakLod.firstAtLeast(base + m, base + end, c) - base;
        if (m >= end || m_breakLod.at(base + m) > c) return m;
        const Slice& a = tr.slice(row[m - 1]);
        const Slice& b = tr.slice(row[m]);
        if (std::max(b.dur, b.start - a.end()) >= minNs) return m;
    }
}

std::size_t TimelineIndex::longestIn(std::span<const EventId> row, std::size_t from,
                                     std::size_t to) const
{
    to = std::min(to, row.size());
    if (from + 1 >= to) return from;
    const std::size_t base = baseOf(row);
    const std::uint8_t best = m_durLod.maxIn(base + from, base + to);
    return m_durLod.firstAtLeast(base + from, base + to, best) - base;
}

std::size_t TimelineIndex::bytes() const
{
    return m_order.capacity() * sizeof(EventId) + m_rowBegin.capacity() * 4 +
           m_rowOffset.capacity() * 4 + m_breakLod.bytes() + m_durLod.bytes() +
           m_busyPrefix.capacity() * sizeof(TimeNs) + m_busyBegin.capacity() * 4;
}

namespace {

// Numeric pids compare as numbers of any length; others after them, as text.
bool pidLess(const Process& a, const Process& b)
{
    if (a.pidIsNumber != b.pidIsNumber) return a.pidIsNumber;
    if (a.pidIsNumber && a.pid.size() != b.pid.size()) return a.pid.size() < b.pid.size();
    return a.pid < b.pid;
}

} // namespace

TimelineLayout::TimelineLayout(const TimelineIndex& index, const std::vector<bool>& collapsed,
                               const std::vector<bool>& trackVisible)
    : TimelineLayout(index, LayoutOptions{collapsed, trackVisible, {}, {}, {}})
{}

TimelineLayout::TimelineLayout(const TimelineIndex& index, const LayoutOptions& o)
{
    const Trace& trace = index.trace();
    const auto& procs = trace.processes();
    const auto& tracks = trace.tracks();
    m_trackRow.assign(tracks.size(), -1);
    const bool filtered = o.trackVisible.size() == tracks.size();
    auto flag = [](const std::vector<bool>& v, std::size_t i) { return i < v.size() && v[i]; };
    m_processRow.assign(procs.size(), -1);
    m_order.reserve(procs.size());
    for (ProcessId p = 0; p < procs.size(); ++p)
        m_order.push_back(p);
    std::stable_sort(m_order.begin(), m_order.end(), [&](ProcessId a, ProcessId b) {
        const Process& pa = procs[a];
        const Process& pb = procs[b];
        const int sa = pa.hasSortIndex ? pa.sortIndex : 0;
        const int sb = pb.hasSortIndex ? pb.sortIndex : 0;
        if (sa != sb) return sa < sb;
        return pidLess(pa, pb);
    });
    auto hasContent = [&](TrackId t) {
        const Track& tr = tracks[t];
        return tr.kind == TrackKind::Counter ? tr.counter != kNone : tr.end > tr.begin;
    };
    double y = 0;
    auto addTrack = [&](ProcessId p, TrackId t, bool pinned, bool alone) {
        const Track& tr = tracks[t];
        TimelineRow row;
        row.process = p;
        row.track = t;
        row.y = y;
        row.pinned = pinned;
        row.alone = alone;
        if (tr.kind == TrackKind::Counter) {
            row.kind = RowKind::Counter;
            row.height = kCounterHeight;
        } else {
            const int depths = index.depthCount(t);
            row.kind = RowKind::Slices;
            row.depths = depths;
            row.height = depths * kSliceRowHeight + kTrackGap;
        }
        m_trackRow[t] = static_cast<int>(m_rows.size());
        m_rows.push_back(row);
        y += row.height;
    };
    auto addGroup = [&](ProcessId p, bool pinned) {
        std::vector<TrackId> visible;
        for (TrackId t : procs[p].tracks) {
            if (!hasContent(t)) continue;
            const bool pinnedAlone = !pinned && flag(o.pinnedTracks, t);
            if (pinnedAlone) continue; // shown in the band
            if (!pinned && filtered && !o.trackVisible[t]) continue;
            visible.push_back(t);
        }
        if (visible.empty()) return;
        TimelineRow header{RowKind::ProcessHeader, p, kNone, y, kHeaderHeight, 0};
        header.pinned = pinned;
        header.firstTrack = static_cast<std::uint32_t>(m_groupTracks.size());
        header.trackCount = static_cast<std::uint32_t>(visible.size());
        m_groupTracks.insert(m_groupTracks.end(), visible.begin(), visible.end());
        m_processRow[p] = static_cast<int>(m_rows.size());
        m_rows.push_back(header);
        y += kHeaderHeight;
        if (flag(o.collapsed, p)) return;
        for (TrackId t : visible)
            addTrack(p, t, pinned, false);
    };
    // The pinned band: whole groups, then single tracks.
    for (ProcessId p : m_order)
        if (flag(o.pinnedProcesses, p)) addGroup(p, true);
    for (ProcessId p : m_order) {
        if (flag(o.pinnedProcesses, p)) continue;
        for (TrackId t : procs[p].tracks)
            if (flag(o.pinnedTracks, t) && hasContent(t)) addTrack(p, t, true, true);
    }
    m_pinnedHeight = y;
    m_firstScrolling = static_cast<int>(m_rows.size());
    if (o.compactRows.empty()) {
        for (ProcessId p : m_order)
            if (!flag(o.pinnedProcesses, p)) addGroup(p, false);
    } else {
        // Rank after rank, no group headers: every rank in a few rows.
        int lastRank = -1;
        for (const CompactRow& cr : o.compactRows) {
            const TrackId t = cr.track;
            if (t >= tracks.size() || m_trackRow[t] >= 0 || !hasContent(t)) continue;
            const ProcessId p = tracks[t].process;
            if (p == kNone || flag(o.pinnedProcesses, p) || flag(o.pinnedTracks, t)) continue;
            if (filtered && !o.trackVisible[t]) continue;
            const double before = y;
            addTrack(p, t, false, false);
            TimelineRow& row = m_rows.back();
            row.rank = cr.rank;
            row.rankFirst = cr.rank != lastRank;
            row.role = cr.role;
            lastRank = cr.rank;
            if (row.kind == RowKind::Slices && cr.depths > 0) {
                row.firstDepth = std::clamp(cr.firstDepth, 0, std::max(0, row.depths - 1));
                row.depths = std::min(cr.depths, row.depths - row.firstDepth);
                row.height = row.depths * kSliceRowHeight + kTrackGap;
                y = before + row.height;
            }
        }
    }
    m_height = y;
    if (filtered)
        for (TrackId t = 0; t < tracks.size(); ++t)
            m_hidden += hasContent(t) && !o.trackVisible[t] && !flag(o.pinnedTracks, t) &&
                                !flag(o.pinnedProcesses, tracks[t].process)
                            ? 1
                            : 0;
}

TrackClass trackClass(const Trace& trace, TrackId t)
{
    auto deviceLike = [](TrackRole r) {
        return isDeviceRole(r) || r == TrackRole::DeviceMetric || r == TrackRole::Derived;
    };
    const TrackRole role = trace.role(t);
    if (isCommunicationRole(role)) return TrackClass::Communication;
    // The kind of the track's process: its other threads (an HCCL thread with no name) are
    // of the kind its group and planes are.
    bool device = deviceLike(role);
    const ProcessId p = trace.tracks()[t].process;
    if (p != kNone)
        for (TrackId o : trace.processes()[p].tracks) {
            if (isCommunicationRole(trace.role(o))) return TrackClass::Communication;
            device = device || deviceLike(trace.role(o));
        }
    return device ? TrackClass::Device : TrackClass::Host;
}

std::vector<bool> trackFilterMask(const Trace& trace, const TrackFilterSpec& f, QString* regexError)
{
    if (regexError) regexError->clear();
    if (!f.active()) return {};
    const auto& tracks = trace.tracks();
    std::vector<bool> out(tracks.size(), false);
    const QString text = QString::fromStdString(f.text);
    QRegularExpression re;
    if (f.regex && !text.isEmpty()) {
        re = QRegularExpression(text, QRegularExpression::CaseInsensitiveOption);
        if (!re.isValid()) {
            if (regexError) *regexError = re.errorString();
            return out; // nothing matches a pattern that is not one
        }
    }
    auto matches = [&](const std::string& label) {
        const QString l = QString::fromStdString(label);
        return f.regex ? re.match(l).hasMatch() : l.contains(text, Qt::CaseInsensitive);
    };
    for (TrackId t = 0; t < tracks.size(); ++t) {
        const TrackClass c = trackClass(trace, t);
        const bool kind = c == TrackClass::Host     ? f.host
                          : c == TrackClass::Device ? f.device
                                                    : f.communication;
        if (!kind) continue;
        if (text.isEmpty()) {
            out[t] = true;
            continue;
        }
        const ProcessId p = tracks[t].process;
        out[t] = matches(trace.trackLabel(t)) || (p != kNone && matches(trace.processLabel(p)));
    }
    return out;
}

namespace {

// Per rank (group) the tracks compact mode keeps: communication, busiest compute, and the row
// of the flagged ops' extra copies (kNone when it has none).
struct CompactPicks {
    TrackId communication = kNone, compute = kNone, copies = kNone;
};

std::vector<CompactPicks> compactPicks(const Trace& trace, const AnalysisReport* report,
                                       const std::vector<int>& processGroup)
{
    const auto& tracks = trace.tracks();
    const std::size_t n = tracks.size();
    auto groupOf = [&](TrackId t) {
        const ProcessId p = tracks[t].process;
        return p != kNone && p < processGroup.size() ? std::max(0, processGroup[p]) : 0;
    };
    std::size_t groups = 1;
    for (int g : processGroup)
        groups = std::max<std::size_t>(groups, static_cast<std::size_t>(std::max(0, g)) + 1);

    // What the report says each track holds: collectives, and extra copies of flagged ones.
    std::vector<double> collectives(n, 0), flaggedCopy(n, 0);
    if (report && report->trace.get() == &trace) {
        const auto& slices = trace.slices();
        for (const Collective& c : report->collectives) {
            if (c.event < slices.size() && slices[c.event].track < n)
                collectives[slices[c.event].track] += 1;
            if (!c.anomalous) continue;
            for (const InternalCopy& copy : c.copies)
                if (copy.extra && copy.event < slices.size() && slices[copy.event].track < n)
                    flaggedCopy[slices[copy.event].track] += static_cast<double>(copy.dur);
        }
    }

    struct Best { // the two highest scores
        TrackId track = kNone, second = kNone;
        double score = -1, secondScore = -1;
        void offer(TrackId t, double s)
        {
            if (s > score) {
                second = track;
                secondScore = score;
                score = s;
                track = t;
            } else if (s > secondScore) {
                secondScore = s;
                second = t;
            }
        }
        TrackId bestOtherThan(TrackId t) const { return track == t ? second : track; }
    };
    std::vector<Best> comm(groups), compute(groups), flagged(groups);
    for (TrackId t = 0; t < n; ++t) {
        if (tracks[t].kind == TrackKind::Counter || tracks[t].end <= tracks[t].begin) continue;
        const std::size_t g = static_cast<std::size_t>(groupOf(t));
        const TrackRole role = trace.role(t);
        // Collectives first; without a report the group thread over its planes.
        if (collectives[t] > 0)
            comm[g].offer(t, 1e12 + collectives[t]);
        else if (isCommunicationRole(role))
            comm[g].offer(t, role == TrackRole::HcclGroup ? 1 : 0);
        if (isStreamRole(role)) {
            double busy = 0; // top-level time: nested slices would count twice
            for (const Slice& s : trace.trackSlices(t))
                if (s.parent == kNone) busy += static_cast<double>(s.dur);
            compute[g].offer(t, busy);
        }
        if (flaggedCopy[t] > 0) flagged[g].offer(t, flaggedCopy[t]);
    }
    std::vector<CompactPicks> out(groups);
    for (std::size_t g = 0; g < groups; ++g) {
        out[g].communication = comm[g].track;
        // The compute row is another track than the communication one (Kineto puts NCCL
        // kernels on a GPU stream).
        out[g].compute = compute[g].bestOtherThan(comm[g].track);
        out[g].copies = flagged[g].track;
    }
    return out;
}

} // namespace

std::vector<bool> compactTrackFilter(const Trace& trace, const AnalysisReport* report,
                                     const std::vector<int>& processGroup)
{
    std::vector<bool> out(trace.tracks().size(), false);
    for (const CompactPicks& g : compactPicks(trace, report, processGroup))
        for (const TrackId t : {g.communication, g.compute, g.copies})
            if (t != kNone) out[t] = true;
    return out;
}

std::vector<CompactRow> compactRankRows(const Trace& trace, const AnalysisReport* report,
                                        const std::vector<int>& processGroup)
{
    const auto& tracks = trace.tracks();
    const std::vector<CompactPicks> picks = compactPicks(trace, report, processGroup);
    auto groupOf = [&](TrackId t) {
        const ProcessId p = tracks[t].process;
        return p != kNone && p < processGroup.size() ? std::max(0, processGroup[p]) : 0;
    };
    // Steps: per rank the (track, depth) holding most of its ProfilerStep slices.
    std::vector<std::map<std::pair<TrackId, int>, int>> steps(picks.size());
    if (report && report->trace.get() == &trace)
        for (const StepStats& st : report->steps) {
            if (st.event == kNone || st.event >= trace.slices().size()) continue;
            const Slice& s = trace.slice(st.event);
            const auto g = static_cast<std::size_t>(groupOf(s.track));
            if (g < steps.size()) ++steps[g][{s.track, int(s.depth)}];
        }
    std::vector<CompactRow> out;
    for (std::size_t g = 0; g < picks.size(); ++g) {
        const int rank = static_cast<int>(g);
        std::pair<TrackId, int> step{kNone, 0};
        int most = 0;
        for (const auto& [at, count] : steps[g])
            if (count > most) {
                most = count;
                step = at;
            }
        const CompactPicks& p = picks[g];
        if (step.first != kNone && step.first != p.communication && step.first != p.compute &&
            step.first != p.copies)
            out.push_back({rank, step.first, step.second, 1, RowRole::Steps});
        if (p.communication != kNone)
            out.push_back({rank, p.communication, 0, 0, RowRole::Communication});
        if (p.copies != kNone) out.push_back({rank, p.copies, 0, 0, RowRole::Copies});
        if (p.compute != kNone) out.push_back({rank, p.compute, 0, 0, RowRole::Compute});
    }
    return out;
}

int TimelineLayout::rowAt(double y) const
{
    auto it = std::upper_bound(m_rows.begin(), m_rows.end(), y,
                               [](double v, const TimelineRow& r) { return v < r.y; });
    if (it == m_rows.begin()) return -1;
    --it;
    return y < it->y + it->height ? static_cast<int>(it - m_rows.begin()) : -1;
}

} // namespace rs
