#include "core/stats/stats.h"

#include "core/analysis/analysisutil.h"
#include "core/analysis/producermodel.h"
#include "core/compare/rundigest.h"
#include "core/fieldtable.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <unordered_map>

namespace rs {

const char* statsGroupName(StatsGroup g)
{
    switch (g) {
    case StatsGroup::Kernel:
        return "kernel";
    case StatsGroup::Op:
        return "op";
    case StatsGroup::Collective:
        return "collective";
    case StatsGroup::Step:
        return "step";
    case StatsGroup::Memcpy:
        return "memcpy";
    }
    return "kernel";
}

std::optional<StatsGroup> parseStatsGroup(std::string_view name)
{
    for (StatsGroup g : {StatsGroup::Kernel, StatsGroup::Op, StatsGroup::Collective,
                         StatsGroup::Step, StatsGroup::Memcpy})
        if (name == statsGroupName(g)) return g;
    return std::nullopt;
}

bool statsGroupOnDevice(StatsGroup g)
{
    return g == StatsGroup::Kernel || g == StatsGroup::Collective || g == StatsGroup::Memcpy;
}

namespace {

using Range = std::optional<std::pair<TimeNs, TimeNs>>;

// Calls f(e, clippedStart, clippedDur) for the slices of a track in the range, in start order.
// In the range: start < end of range and end > its start (a zero-length slice: it starts in
// it). The first candidate comes from the track's sorted slices by binary search.
template <class F> void forEachInRange(const Trace& t, TrackId tr, const Range& range, F&& f)
{
    const Track& track = t.tracks()[tr];
    const auto sl = t.slices();
    if (!range) {
        for (EventId e = track.begin; e < track.end; ++e)
            if (!(sl[e].flags & kSliceInstant)) f(e, sl[e].start, sl[e].dur);
        return;
    }
    const auto [a, b] = *range;
    // end >= a: a slice that ends exactly at a is skipped below, a zero-length one at a kept.
    EventId e = t.firstSliceEndingAfter(tr, a - 1);
    if (e == kNone) return;
    for (; e < track.end; ++e) {
        const Slice& s = sl[e];
        if (s.start >= b) break;
        if (s.flags & kSliceInstant) continue;
        if (s.dur > 0 ? s.end() <= a : s.start < a) continue;
        const TimeNs cs = std::max(s.start, a);
        f(e, cs, std::min(s.end(), b) - cs);
    }
}

// The tracks of one source in scope and their roles; what each slice is comes from the model
// (Trace::kinds, decided by its producer at load).
class SourceScan {
public:
    SourceScan(const StatsSource& src, const StatsScope& scope)
        : m_t(*src.trace), m_roles(analysis::trackRoles(m_t)), m_kinds(m_t.kinds())
    {
        const TrackId n = TrackId(m_t.tracks().size());
        m_end = std::min(src.trackEnd, n);
        m_begin = std::min(src.trackBegin, m_end);
        m_inScope.assign(n, 0);
        if (scope.tracks) {
            for (TrackId tr : *scope.tracks)
                if (tr >= m_begin && tr < m_end) m_inScope[tr] = 1;
        } else {
            std::fill(m_inScope.begin() + m_begin, m_inScope.begin() + m_end, 1);
        }
        for (TrackId tr = m_begin; tr < m_end; ++tr)
            if (m_t.tracks()[tr].kind == TrackKind::Counter) m_inScope[tr] = 0;
        // The copies the analysis found inside collectives (Kineto's cudaMemcpyAsync inside
        // vllm::all_reduce, HCCL's Memcpy tasks).
        if (src.report)
            for (const Collective& c : src.report->collectives)
                for (const InternalCopy& ic : c.copies)
                    m_internal.push_back(ic.event);
        std::sort(m_internal.begin(), m_internal.end());
    }

    const Trace& trace() const { return m_t; }
    TrackId begin() const { return m_begin; }
    TrackId end() const { return m_end; }
    bool inScope(TrackId tr) const { return tr < m_inScope.size() && m_inScope[tr]; }
    TrackRole role(TrackId tr) const { return m_roles[tr]; }

    // Tracks whose slices make the busy time of a group's base.
    bool busyTrack(TrackId tr, bool device) const
    {
        const TrackRole r = m_roles[tr];
        return device ? isDeviceRole(r) : isHostRole(r);
    }
    // Tracks a group's members can be on.
    bool groupTrack(TrackId tr, StatsGroup by) const
    {
        const TrackRole r = m_roles[tr];
        switch (by) {
        case StatsGroup::Kernel:
            return isStreamRole(r);
        case StatsGroup::Memcpy: // a collective's own copies too (HCCL's Memcpy tasks)
            return isStreamRole(r) || r == TrackRole::HcclPlane;
        case StatsGroup::Collective:
            return r == TrackRole::HcclGroup || r == TrackRole::GpuStream;
        case StatsGroup::Op:
        case StatsGroup::Step:
            return r == TrackRole::Host;
        }
        return false;
    }

    // Whether slice e on a track of groupTrack() belongs to the group (collectives without a
    // report: by kind).
    bool member(EventId e, StatsGroup by) const
    {
        const SliceKind k = m_kinds[e];
        switch (by) {
        case StatsGroup::Kernel:
            return k == SliceKind::Kernel || k == SliceKind::Collective;
        case StatsGroup::Memcpy:
            return isCopyOrSet(k);
        case StatsGroup::Collective:
            return k == SliceKind::Collective;
        case StatsGroup::Op:
            return k == SliceKind::HostOp || k == SliceKind::Annotation;
        case StatsGroup::Step:
            return k == SliceKind::Step;
        }
        return false;
    }

    // A copy inside a collective: one the analysis found there, or a collective's own task.
    bool internalCopy(EventId e) const
    {
        return m_roles[m_t.slice(e).track] == TrackRole::HcclPlane ||
               std::binary_search(m_internal.begin(), m_internal.end(), e);
    }

private:
    const Trace& m_t;
    std::vector<TrackRole> m_roles;
    std::span<const SliceKind> m_kinds;
    std::vector<EventId> m_internal; // sorted
    std::vector<std::uint8_t> m_inScope;
    TrackId m_begin = 0, m_end = 0;
};

std::string collectiveName(CollectiveKind k, std::string_view name)
{
    return std::string(collectiveKindName(k)) + " " + collectivePattern(name);
}

// Calls f(event, clippedStart, clippedDur, name) for every member of the group in scope.
template <class F>
void scanSource(SourceScan& scan, const StatsSource& src, const StatsOptions& o, F&& f)
{
    const Trace& t = scan.trace();
    const auto& range = o.scope.range;
    if (o.by == StatsGroup::Collective && src.report) {
        // The analysis' collectives (what `analyze` counts), by kind and name pattern.
        for (const Collective& c : src.report->collectives) {
            if (c.event >= t.slices().size()) continue;
            const Slice& s = t.slice(c.event);
            if (!scan.inScope(s.track)) continue;
            TimeNs cs = s.start, cd = s.dur;
            if (range) {
                const auto [a, b] = *range;
                if (s.start >= b || (s.dur > 0 ? s.end() <= a : s.start < a)) continue;
                cs = std::max(s.start, a);
                cd = std::min(s.end(), b) - cs;
            }
            f(c.event, cs, cd, collectiveName(c.kind, t.str(s.name)));
        }
        return;
    }
    for (TrackId tr = scan.begin(); tr < scan.end(); ++tr) {
        if (!scan.inScope(tr) || !scan.groupTrack(tr, o.by)) continue;
        forEachInRange(t, tr, range, [&](EventId e, TimeNs cs, TimeNs cd) {
            const Slice& s = t.slice(e);
            if (!scan.member(e, o.by)) return;
            if (o.by == StatsGroup::Collective)
                f(e, cs, cd, collectiveName(analysis::kindFromName(t.str(s.name)), t.str(s.name)));
            else
                f(e, cs, cd, s.name);
        });
    }
}

// Union length of the busy intervals of a source's tracks in scope.
TimeNs busyTime(const SourceScan& scan, const StatsOptions& o)
{
    const Trace& t = scan.trace();
    const bool device = statsGroupOnDevice(o.by);
    std::vector<std::pair<TimeNs, TimeNs>> all;
    std::vector<std::size_t> runs; // start of each track's (sorted, disjoint) run in `all`
    for (TrackId tr = scan.begin(); tr < scan.end(); ++tr) {
        if (!scan.inScope(tr) || !scan.busyTrack(tr, device)) continue;
        const std::size_t first = all.size();
        forEachInRange(t, tr, o.scope.range, [&](EventId, TimeNs cs, TimeNs cd) {
            if (cd <= 0) return;
            // Slices of a track come in start order: merge as they come.
            if (all.size() > first && cs <= all.back().second)
                all.back().second = std::max(all.back().second, cs + cd);
            else
                all.emplace_back(cs, cs + cd);
        });
        if (all.size() > first) runs.push_back(first);
    }
    // Merge the sorted runs pairwise (n log tracks), then take the union.
    runs.push_back(all.size()); // runs: boundaries, first 0, last all.size()
    while (runs.size() > 2) {
        std::vector<std::size_t> next{runs[0]};
        for (std::size_t i = 0; i + 2 < runs.size(); i += 2) {
            std::inplace_merge(all.begin() + std::ptrdiff_t(runs[i]),
                               all.begin() + std::ptrdiff_t(runs[i + 1]),
                               all.begin() + std::ptrdiff_t(runs[i + 2]));
            next.push_back(runs[i + 2]);
        }
        if ((runs.size() - 1) % 2 == 1) next.push_back(runs.back()); // odd run left as is
        runs = std::move(next);
    }
    TimeNs busy = 0, curS = 0, curE = 0;
    bool open = false;
    for (const auto& [s, e] : all) {
        if (open && s <= curE) {
            curE = std::max(curE, e);
            continue;
        }
        if (open) busy += curE - curS;
        curS = s;
        curE = e;
        open = true;
    }
    if (open) busy += curE - curS;
    return busy;
}

struct Acc {
    std::uint64_t count = 0;
    TimeNs total = 0, min = std::numeric_limits<TimeNs>::max(), max = 0;
    void add(TimeNs d)
    {
        ++count;
        total += d;
        min = std::min(min, d);
        max = std::max(max, d);
    }
    void add(const Acc& o)
    {
        count += o.count;
        total += o.total;
        min = std::min(min, o.min);
        max = std::max(max, o.max);
    }
};

int rankKey(const StatsSource& s, std::size_t index)
{
    return s.rank.value_or(int(index));
}

} // namespace

StatsTable computeStats(std::span<const StatsSource> sources, const StatsOptions& options)
{
    StatsTable table;
    table.by = options.by;
    table.perRank = options.perRank;
    table.range = options.scope.range;
    // (rank or INT_MIN, name, internal copy) -> figures.
    std::map<std::tuple<int, std::string, bool>, Acc> rows;
    const bool copies = options.by == StatsGroup::Memcpy;
    std::map<int, TimeNs> busyByRank;
    for (std::size_t i = 0; i < sources.size(); ++i) {
        const StatsSource& src = sources[i];
        if (!src.trace) continue;
        SourceScan scan(src, options.scope);
        const int rk = options.perRank ? rankKey(src, i) : std::numeric_limits<int>::min();
        std::map<std::pair<StrId, bool>, Acc> byName;
        std::unordered_map<std::string, Acc> byText;
        scanSource(scan, src, options, [&](EventId e, TimeNs, TimeNs cd, const auto& key) {
            if constexpr (std::is_same_v<std::decay_t<decltype(key)>, std::string>)
                byText[key].add(cd);
            else
                byName[{key, copies && scan.internalCopy(e)}].add(cd);
        });
        for (const auto& [id, a] : byName)
            rows[{rk, src.trace->str(id.first), id.second}].add(a);
        for (const auto& [text, a] : byText)
            rows[{rk, text, false}].add(a);
        const TimeNs busy = busyTime(scan, options);
        busyByRank[rankKey(src, i)] += busy;
        table.busyNs += busy;
    }
    for (const auto& [r, b] : busyByRank)
        table.rankBusyNs.emplace_back(r, b);
    table.rows.reserve(rows.size());
    for (const auto& [key, a] : rows) {
        StatsRow row;
        row.name = std::get<1>(key);
        if (options.perRank) row.rank = std::get<0>(key);
        if (copies) row.internal = std::get<2>(key);
        row.count = a.count;
        row.totalNs = a.total;
        row.minNs = a.count ? a.min : 0;
        row.maxNs = a.max;
        row.meanNs = a.count ? double(a.total) / double(a.count) : 0.0;
        const TimeNs base = options.perRank ? busyByRank[std::get<0>(key)] : table.busyNs;
        row.percent = base > 0 ? 100.0 * double(a.total) / double(base) : 0.0;
        table.rows.push_back(std::move(row));
    }
    std::sort(table.rows.begin(), table.rows.end(), [](const StatsRow& a, const StatsRow& b) {
        if (a.totalNs != b.totalNs) return a.totalNs > b.totalNs;
        if (a.name != b.name) return a.name < b.name;
        if (a.rank != b.rank) return a.rank < b.rank;
        return a.internal < b.internal;
    });
    return table;
}

StatsTable computeStats(const Trace& trace, const AnalysisReport* report,
                        const StatsOptions& options)
{
    StatsSource s;
    s.trace = &trace;
    s.report = report;
    s.rank = trace.rank();
    return computeStats(std::span<const StatsSource>(&s, 1), options);
}

std::vector<StatsOccurrence> statsOccurrences(std::span<const StatsSource> sources,
                                              const StatsOptions& options, const std::string& name,
                                              std::optional<int> rank, std::optional<bool> internal)
{
    std::vector<StatsOccurrence> out;
    for (std::size_t i = 0; i < sources.size(); ++i) {
        const StatsSource& src = sources[i];
        if (!src.trace || (rank && rankKey(src, i) != *rank)) continue;
        SourceScan scan(src, options.scope);
        const StrId id = src.trace->strings().find(name);
        scanSource(scan, src, options, [&](EventId e, TimeNs cs, TimeNs cd, const auto& key) {
            bool match = false;
            if constexpr (std::is_same_v<std::decay_t<decltype(key)>, std::string>)
                match = key == name;
            else
                match = key == id && (!internal || scan.internalCopy(e) == *internal);
            if (match) out.push_back({i, e, cs, cd});
        });
    }
    std::sort(out.begin(), out.end(), [](const StatsOccurrence& a, const StatsOccurrence& b) {
        return a.start != b.start ? a.start < b.start : a.event < b.event;
    });
    return out;
}

namespace {

using namespace fields;

// A row's fields in the order printed (docs/stats.md); "rank" with --per-rank only.
constexpr auto kRowFields = std::to_array<Field<StatsRow>>({
    member<&StatsRow::name>("name", Output),
    member<&StatsRow::count>("count", Output),
    member<&StatsRow::totalNs>("total_ns", Output),
    member<&StatsRow::meanNs>("mean_ns", Output),
    member<&StatsRow::minNs>("min_ns", Output),
    member<&StatsRow::maxNs>("max_ns", Output),
    member<&StatsRow::percent>("percent", Output),
    member<&StatsRow::rank>("rank", Extra),
});
static_assert(plainKeys(kRowFields));
// By memcpy, whether a row's copies are inside a collective.
constexpr auto kCopyRowFields = std::to_array<Field<StatsRow>>({
    member<&StatsRow::name>("name", Output),
    member<&StatsRow::count>("count", Output),
    member<&StatsRow::totalNs>("total_ns", Output),
    member<&StatsRow::meanNs>("mean_ns", Output),
    member<&StatsRow::minNs>("min_ns", Output),
    member<&StatsRow::maxNs>("max_ns", Output),
    member<&StatsRow::percent>("percent", Output),
    member<&StatsRow::internal>("internal", Output),
    member<&StatsRow::rank>("rank", Extra),
});
static_assert(plainKeys(kCopyRowFields));

} // namespace

std::string statsJson(const StatsTable& table)
{
    std::string text;
    JsonWriter w(text, true);
    w.beginObject();
    w.key("by");
    w.string(statsGroupName(table.by));
    w.key("busy_ns");
    w.integer(table.busyNs);
    w.key("range");
    if (table.range) {
        w.beginArray();
        w.item();
        w.integer(table.range->first);
        w.item();
        w.integer(table.range->second);
        w.endArray();
    } else {
        w.null();
    }
    w.key("rows");
    const WriteContext ctx{static_cast<Flag>(table.perRank ? Output | Extra : Output)};
    w.array(table.rows.size(), [&](std::size_t i) {
        if (table.by == StatsGroup::Memcpy)
            writeObject(w, table.rows[i], kCopyRowFields, ctx);
        else
            writeObject(w, table.rows[i], kRowFields, ctx);
    });
    w.endObject();
    return text;
}

std::string csvField(std::string_view s)
{
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

namespace {

std::string fixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

// Display width of UTF-8 text (code points; the names and units here are not wide).
std::size_t width(std::string_view s)
{
    std::size_t n = 0;
    for (unsigned char c : s)
        n += (c & 0xc0) != 0x80;
    return n;
}

std::string cut(const std::string& s, std::size_t max)
{
    if (width(s) <= max) return s;
    std::string out;
    std::size_t n = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if ((c & 0xc0) != 0x80 && ++n > max - 1) break;
        out += s[i];
    }
    return out + "\xe2\x80\xa6"; // …
}

} // namespace

std::string statsToCsv(const StatsTable& table)
{
    std::ostringstream o;
    const bool copies = table.by == StatsGroup::Memcpy;
    if (table.perRank) o << "rank,";
    o << "name,count,total_ns,mean_ns,min_ns,max_ns,percent" << (copies ? ",internal" : "") << "\n";
    for (const StatsRow& r : table.rows) {
        if (table.perRank) o << (r.rank ? std::to_string(*r.rank) : "") << ",";
        o << csvField(r.name) << "," << r.count << "," << r.totalNs << "," << fixed(r.meanNs, 1)
          << "," << r.minNs << "," << r.maxNs << "," << fixed(r.percent, 4);
        if (copies) o << "," << (r.internal.value_or(false) ? "true" : "false");
        o << "\n";
    }
    return o.str();
}

std::string statsToText(const StatsTable& table)
{
    std::ostringstream o;
    o << statsGroupName(table.by) << ": " << table.rows.size() << " row"
      << (table.rows.size() == 1 ? "" : "s") << ", "
      << (statsGroupOnDevice(table.by) ? "device" : "host") << " busy "
      << formatDuration(table.busyNs);
    if (table.range)
        o << ", range " << table.range->first << ":" << table.range->second << " ("
          << formatDuration(table.range->second - table.range->first) << ")";
    o << "\n";
    if (table.rows.empty()) return o.str();
    constexpr std::size_t kNameMax = 72; // kernel names run to hundreds of characters
    std::vector<std::vector<std::string>> cells;
    std::vector<std::string> head;
    if (table.perRank) head.push_back("rank");
    for (const char* h : {"name", "count", "total", "mean", "min", "max", "percent"})
        head.push_back(h);
    const bool copies = table.by == StatsGroup::Memcpy;
    if (copies) head.push_back("where");
    cells.push_back(head);
    for (const StatsRow& r : table.rows) {
        std::vector<std::string> c;
        if (table.perRank) c.push_back(r.rank ? std::to_string(*r.rank) : "-");
        c.push_back(cut(r.name, kNameMax));
        c.push_back(formatCount(r.count));
        c.push_back(formatDuration(r.totalNs));
        c.push_back(formatDuration(TimeNs(std::llround(r.meanNs))));
        c.push_back(formatDuration(r.minNs));
        c.push_back(formatDuration(r.maxNs));
        c.push_back(fixed(r.percent, 1) + " %");
        if (copies) c.push_back(r.internal.value_or(false) ? "in collective" : "ordinary");
        cells.push_back(std::move(c));
    }
    std::vector<std::size_t> w(head.size(), 0);
    for (const auto& row : cells)
        for (std::size_t i = 0; i < row.size(); ++i)
            w[i] = std::max(w[i], width(row[i]));
    const std::size_t nameCol = table.perRank ? 1 : 0;
    for (const auto& row : cells) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            const std::string pad(w[i] - width(row[i]), ' ');
            if (i > 0) line += "  ";
            // Names left-aligned, numbers right-aligned.
            line += i == nameCol ? row[i] + (i + 1 < row.size() ? pad : "") : pad + row[i];
        }
        o << line << "\n";
    }
    return o.str();
}

} // namespace rs
