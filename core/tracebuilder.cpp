#include "core/tracebuilder.h"

#include "core/producers/registry.h"
#include "core/workpool.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <limits>
#include <new>
#include <numeric>
#include <optional>
#include <string_view>
#include <type_traits>

#if __has_include(<sys/mman.h>)
#include <sys/mman.h>
#endif

namespace rs {

namespace {

std::string valueText(const JsonScalar& v)
{
    switch (v.kind) {
    case JsonScalar::Int:
        return std::to_string(static_cast<std::int64_t>(v.bits));
    case JsonScalar::UInt:
        return std::to_string(v.bits);
    case JsonScalar::Bool:
        return v.boolean ? "true" : "false";
    case JsonScalar::Float:
    case JsonScalar::String:
        return std::string(v.text.view());
    default:
        return {};
    }
}

// Numeric ids compare as numbers however they were written ("12" and 12 are one flow).
std::uint64_t idNumber(const std::string& text)
{
    std::uint64_t v = 0;
    const char* b = text.data();
    const char* e = b + text.size();
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        if (auto r = std::from_chars(b + 2, e, v, 16); r.ec == std::errc() && r.ptr == e) return v;
    } else if (auto r = std::from_chars(b, e, v); r.ec == std::errc() && r.ptr == e) {
        return v;
    }
    return std::hash<std::string>{}(text);
}

// The value of text that is exactly how a u64 prints in decimal ("12", not "012" or "+12").
std::optional<std::uint64_t> canonicalDecimal(std::string_view text)
{
    if (text.empty() || text.size() > 20 || (text[0] == '0' && text.size() > 1))
        return std::nullopt;
    std::uint64_t v = 0;
    auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size()) return std::nullopt;
    return v;
}

bool naturalLess(const std::string& a, const std::string& b)
{
    std::int64_t x = 0, y = 0;
    auto ra = std::from_chars(a.data(), a.data() + a.size(), x);
    auto rb = std::from_chars(b.data(), b.data() + b.size(), y);
    const bool na = ra.ec == std::errc() && ra.ptr == a.data() + a.size() && !a.empty();
    const bool nb = rb.ec == std::errc() && rb.ptr == b.data() + b.size() && !b.empty();
    if (na && nb) return x < y;
    if (na != nb) return na; // numbers first
    return a < b;
}

// The track where slices before it are about half: two halves of the per-track work.
TrackId splitTracks(const std::vector<EventId>& first)
{
    const EventId half = first.back() / 2;
    const auto it = std::lower_bound(first.begin(), first.end(), half);
    return static_cast<TrackId>(std::min<std::size_t>(it - first.begin(), first.size() - 1));
}

// A sort index set in a later piece wins, as a later metadata event does.
template <typename T> void takeSortIndex(T& to, const T& from)
{
    if (!from.hasSortIndex) return;
    to.sortIndex = from.sortIndex;
    to.hasSortIndex = true;
}

int phaseRank(char ph)
{
    return ph == 's' ? 0 : ph == 't' ? 1 : 2;
}

// fn(half, from, to) over the two halves of [0, n) at once (half 0 and 1): the finishing
// passes over every slice (a few hundred MB on a 1 GB trace) on both cores.
template <typename Fn> void inHalves(std::size_t n, const Fn& fn)
{
    inParallel([&] { fn(0, std::size_t(0), n / 2); }, [&] { fn(1, n / 2, n); });
}

} // namespace

TraceBuilder::TraceBuilder() : m_trace(std::make_shared<Trace>())
{
    m_trace->m_argsOffsets.push_back(0);
}

TraceBuilder::TraceBuilder(bool partial) : TraceBuilder()
{
    m_partial = partial;
}

TraceBuilder::~TraceBuilder() = default;
TraceBuilder::TraceBuilder(TraceBuilder&&) noexcept = default;
TraceBuilder& TraceBuilder::operator=(TraceBuilder&&) noexcept = default;

void TraceBuilder::addWarning(std::string text)
{
    m_trace->m_warnings.push_back(std::move(text));
}
void TraceBuilder::setPath(std::string path)
{
    m_trace->m_path = std::move(path);
}
void TraceBuilder::setRank(int rank)
{
    m_trace->m_rank = rank;
}
void TraceBuilder::setBytesRead(std::uint64_t bytes)
{
    m_trace->m_stats.bytesRead = bytes;
}
void TraceBuilder::setTruncated(bool truncated)
{
    m_trace->m_stats.truncated = truncated;
}

std::size_t TraceBuilder::estimatedBytes() const
{
    // Sizes, not capacities, so the loader's projection (this / share of file read) grows
    // smoothly; per-item costs include what finish() adds (sort permutation and index,
    // 12 bytes a slice; a Flow and two index entries per flow step).
    const Trace& t = *m_trace;
    std::size_t samples = 0;
    for (const CounterSeries& c : t.m_counters)
        samples += c.ts.size();
    return t.m_slices.size() * (sizeof(Slice) + 12) + t.m_argsText.size() +
           t.m_argsOffsets.size() * 8 + m_flows.size() * (sizeof(PendingFlow) + sizeof(Flow) + 16) +
           t.m_strings.bytes() + m_binds.size() * sizeof(PendingBind) + samples * 16 +
           (m_sliceFrames.size() + m_sliceStacks.size()) * 64;
}

namespace {

constexpr std::size_t kHugePage = 2u << 20;

// Asks for transparent huge pages behind the whole 2 MiB pages of [p, p + bytes).
void adviseHuge([[maybe_unused]] const void* p, [[maybe_unused]] std::size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const auto begin = reinterpret_cast<std::uintptr_t>(p);
    const auto first = (begin + kHugePage - 1) & ~(kHugePage - 1);
    if (first < begin + bytes)
        ::madvise(reinterpret_cast<void*>(first), (begin + bytes - first) & ~(kHugePage - 1),
                  MADV_HUGEPAGE);
#endif
}

// Reserves n elements and asks for transparent huge pages behind them: one fault per 2 MiB
// instead of per 4 KiB as the builder fills them (where the kernel allows it; else a no-op).
template <typename C> void reserveHuge(C& c, std::size_t n)
{
    if (n <= c.capacity()) return;
    c.reserve(n);
    adviseHuge(c.data(), c.capacity() * sizeof(*c.data()));
}

// n elements of a trivial type, not initialised (the caller writes each before reading it),
// on 2 MiB pages where the kernel allows: the finishing passes fill them on two threads, so
// their faults and the kernel's zeroing are shared out too (a value-initialised vector zeroes
// on one thread first, in 4 KiB faults unless reserveHuge'd).
struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
};
template <typename T> std::unique_ptr<T[], FreeDeleter> hugeUninit(std::size_t n)
{
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
    const std::size_t bytes =
        (std::max<std::size_t>(n * sizeof(T), 1) + kHugePage - 1) & ~(kHugePage - 1);
    void* p = std::aligned_alloc(kHugePage, bytes);
    if (!p) throw std::bad_alloc();
    adviseHuge(p, bytes);
    return std::unique_ptr<T[], FreeDeleter>(static_cast<T*>(p));
}

// (event, flow) pairs made in flow order, sorted by event then flow: a stable sort by the
// event alone, as two 16-bit counting passes (O(n), where a comparison sort of millions of
// pairs was 5% of a torch_npu load).
void sortByEvent(std::vector<std::pair<EventId, std::uint32_t>>& v)
{
    if (std::is_sorted(v.begin(), v.end())) return;
    std::vector<std::pair<EventId, std::uint32_t>> tmp(v.size());
    std::vector<std::size_t> count(65537);
    EventId most = 0;
    for (const auto& p : v)
        most = std::max(most, p.first);
    for (int shift = 0; shift < 32 && (shift == 0 || (most >> shift) != 0); shift += 16) {
        std::fill(count.begin(), count.end(), 0);
        for (const auto& p : v)
            ++count[((p.first >> shift) & 0xffff) + 1];
        for (std::size_t k = 1; k < count.size(); ++k)
            count[k] += count[k - 1];
        for (const auto& p : v)
            tmp[count[(p.first >> shift) & 0xffff]++] = p;
        v.swap(tmp);
    }
}

// Sorts [lo, hi) by insertion while that moves fewer than 8 keys a key on average; false
// (the range partly sorted) past that. Tracks come nearly sorted: Kineto writes an op after the
// ops it encloses, so each key is a few places late, and sorting those tracks took 5% of a load.
template <typename It, typename Less> bool insertionSorted(It lo, It hi, const Less& less)
{
    std::size_t budget = 8 * static_cast<std::size_t>(hi - lo);
    for (It i = lo + 1; i < hi; ++i) {
        if (!less(*i, *(i - 1))) continue;
        auto key = std::move(*i);
        It j = i;
        do {
            *j = std::move(*(j - 1));
            --j;
            if (budget-- == 0) {
                *j = std::move(key);
                return false;
            }
        } while (j > lo && less(key, *(j - 1)));
        *j = std::move(key);
    }
    return true;
}

} // namespace

std::size_t TraceBuilder::projectSize(std::size_t base, std::size_t size, double scale)
{
    // A damaged file can project less than is read, or absurdly more: clamped before the
    // conversion (a negative or huge double to size_t is undefined), the cap answers the rest.
    const std::size_t grown = size - std::min(base, size);
    const double more = static_cast<double>(grown) * (scale * 1.1 - 1);
    return size + (more > 0 ? static_cast<std::size_t>(std::min(more, 0x1p40)) : 0) + 1024;
}

TraceBuilder::Sizes TraceBuilder::sizes() const
{
    const Trace& t = *m_trace;
    return {t.m_slices.size(), t.m_argsText.size(), t.m_argsOffsets.size(), m_flows.size()};
}

void TraceBuilder::reserveAhead(const Sizes& from, double scale, std::size_t capBytes,
                                std::size_t extraSlices)
{
    Trace& t = *m_trace;
    auto ahead = [&](std::size_t base, std::size_t size) { return projectSize(base, size, scale); };
    const std::size_t slices = ahead(from.slices, t.m_slices.size()) + extraSlices,
                      text = ahead(from.text, t.m_argsText.size()),
                      offsets = ahead(from.offsets, t.m_argsOffsets.size()),
                      flows = ahead(from.flows, m_flows.size());
    const std::size_t bytes =
        slices * sizeof(Slice) + text + offsets * 8 + flows * sizeof(PendingFlow);
    if (bytes > capBytes) return; // a projection past the budget: the budget check answers it
    try {
        reserveHuge(t.m_slices, slices);
        reserveHuge(t.m_argsText, text);
        reserveHuge(t.m_argsOffsets, offsets);
        reserveHuge(m_flows, flows);
    } catch (const std::bad_alloc&) {
        // Only a head start (under an address-space limit, say): the arrays grow as before.
    }
}

void TraceBuilder::reserveFor(const Sizes& n, std::size_t capBytes)
{
    const double bytes = double(n.slices) * sizeof(Slice) + double(n.text) + double(n.offsets) * 8 +
                         double(n.flows) * sizeof(PendingFlow);
    if (bytes > double(capBytes)) return;
    try {
        reserveHuge(m_trace->m_slices, n.slices);
        reserveHuge(m_trace->m_argsText, n.text);
        reserveHuge(m_trace->m_argsOffsets, n.offsets);
        reserveHuge(m_flows, n.flows);
    } catch (const std::bad_alloc&) {
        // Only a head start: the arrays grow as they go.
    }
}

TraceBuilder::FlowKey TraceBuilder::flowKey(const JsonScalar& v)
{
    // Ids group by their text (valueText); numbers are not interned (they are most ids).
    if (v.kind == JsonScalar::UInt) return {v.bits, false};
    if (v.kind == JsonScalar::Int && static_cast<std::int64_t>(v.bits) >= 0) return {v.bits, false};
    if (v.kind == JsonScalar::String) {
        if (auto n = canonicalDecimal(v.text.view())) return {*n, false};
    }
    return {m_trace->m_strings.intern(valueText(v)), true};
}

ProcessId TraceBuilder::process(const JsonScalar& pid)
{
    // Numeric pids: a hash of the integer, no text (the hot path of large traces).
    const bool isInt = pid.isInteger();
    const NumericKey nk{kNone, static_cast<std::uint8_t>(pid.kind), isInt ? pid.bits : 0};
    if (isInt) {
        // Events of one process come in runs: the last hit saves the hash lookup.
        if (m_lastPid.value != kNone && m_lastPid.key == nk) return m_lastPid.value;
        if (auto it = m_numericIndex.find(nk); it != m_numericIndex.end()) {
            m_lastPid = {nk, it->second};
            return it->second;
        }
    }
    const ProcessId id = processByText(valueText(pid), isInt);
    if (isInt) m_numericIndex.emplace(nk, id);
    return id;
}

ProcessId TraceBuilder::processByText(std::string text, bool numeric)
{
    if (auto it = m_processIndex.find(text); it != m_processIndex.end()) {
        m_trace->m_processes[it->second].pidIsNumber |= numeric;
        return it->second;
    }
    const auto id = static_cast<ProcessId>(m_trace->m_processes.size());
    Process p;
    p.pid = text;
    p.pidIsNumber = numeric;
    m_trace->m_processes.push_back(std::move(p));
    m_processIndex.emplace(std::move(text), id);
    return id;
}

TrackId TraceBuilder::track(ProcessId p, const std::string& tid, TrackKind kind)
{
    m_key.assign(std::to_string(p));
    m_key.push_back('\x1f');
    m_key.push_back(static_cast<char>('0' + static_cast<int>(kind)));
    m_key.append(tid);
    if (auto it = m_trackIndex.find(m_key); it != m_trackIndex.end()) return it->second;
    const auto id = static_cast<TrackId>(m_trace->m_tracks.size());
    Track t;
    t.process = p;
    t.kind = kind;
    t.tid = tid;
    m_trace->m_tracks.push_back(std::move(t));
    m_openB.emplace_back();
    m_trackIndex.emplace(m_key, id);
    return id;
}

TrackId TraceBuilder::threadTrack(const TraceEvent& ev, ProcessId p)
{
    const JsonScalar& tid = ev.tid;
    if (!tid.isInteger()) return track(p, valueText(tid), TrackKind::Thread);
    const NumericKey nk{p, static_cast<std::uint8_t>(tid.kind), tid.bits};
    if (m_lastTid.value != kNone && m_lastTid.key == nk) return m_lastTid.value;
    if (auto it = m_numericIndex.find(nk); it != m_numericIndex.end()) {
        m_lastTid = {nk, it->second};
        return it->second;
    }
    const TrackId t = track(p, valueText(tid), TrackKind::Thread);
    m_numericIndex.emplace(nk, t);
    return t;
}

std::optional<TimeNs> TraceBuilder::time(const JsonScalar& v, const char* field, bool ns)
{
    const auto i = static_cast<std::int64_t>(v.bits);
    if (ns) { // a database's integer ns, exact
        if (v.kind == JsonScalar::Int || v.kind == JsonScalar::UInt)
            if (i <= kMaxAbsTimeNs && i >= -kMaxAbsTimeNs && (v.kind == JsonScalar::Int || i >= 0))
                return i;
        return std::nullopt;
    }
    constexpr std::int64_t kMax = kMaxAbsTimeNs / 1000; // sums and differences stay in int64
    switch (v.kind) {
    case JsonScalar::Int:
        if (i > kMax || i < -kMax) break;
        return i * 1000;
    case JsonScalar::UInt:
        if (v.bits > static_cast<std::uint64_t>(kMax)) break;
        return static_cast<TimeNs>(v.bits) * 1000;
    case JsonScalar::Float:
        // Nearly every µs time is plain digits[.digits]: no trimming or sign to look for.
        if (auto ns = parsePlainMicrosToNs(v.text.view())) return ns;
        if (auto ns = parseMicrosToNs(v.text.view())) return ns;
        break;
    case JsonScalar::String:
        m_sawStringTs = m_sawStringTs || field[0] == 't';
        if (auto ns = parseMicrosToNs(v.text.view())) return ns;
        break;
    default:
        break;
    }
    return std::nullopt;
}

std::uint32_t TraceBuilder::storeArgs(std::string_view text)
{
    if (text.empty()) return kNone;
    if (m_partial) { // the text stays readable until absorb() copies it, once
        m_argRefs.push_back({text.data(), static_cast<std::uint32_t>(text.size())});
        return static_cast<std::uint32_t>(m_argRefs.size() - 1);
    }
    Trace& t = *m_trace;
    t.m_argsText.append(text);
    t.m_argsOffsets.push_back(t.m_argsText.size());
    return static_cast<std::uint32_t>(t.m_argsOffsets.size() - 2);
}

EventId TraceBuilder::pushSlice(const Slice& s)
{
    m_trace->m_slices.push_back(s);
    return static_cast<EventId>(m_trace->m_slices.size() - 1);
}

void TraceBuilder::addEvent(const TraceEvent& ev)
{
    LoadStats& stats = m_trace->m_stats;
    ++stats.events;
    stats.badFields += ev.badTypes; // fields of a type they cannot take
    const std::string_view ph = ev.ph.view();
    // One-letter phases are counted in an array (a map lookup per event is costly); finish()
    // folds them into stats.phases.
    if (ph.size() == 1 && static_cast<unsigned char>(ph[0]) < m_phaseCounts.size())
        ++m_phaseCounts[static_cast<unsigned char>(ph[0])];
    else
        ++stats.phases[ph.empty() ? std::string("(none)") : std::string(ph)];
    const char c = ph.size() == 1 ? ph[0] : '\0';

    const ProcessId p = process(ev.pid);
    ++m_trace->m_processes[p].events;

    if (c == 'M') {
        addMetadataEvent(ev, p);
        return;
    }
    auto ts = time(ev.ts, "ts", ev.nsTimes);
    if (!ts) {
        ++stats.badFields;
        return;
    }
    switch (c) {
    case 'X':
    case 'B':
    case 'i':
    case 'I': {
        TrackId t;
        if ((c == 'i' || c == 'I') && ev.scope.view() == "g")
            t = track(process(JsonScalar{}), std::string(), TrackKind::Thread);
        else if ((c == 'i' || c == 'I') && ev.scope.view() == "p")
            t = track(p, std::string(), TrackKind::Thread);
        else
            t = threadTrack(ev, p);
        ++m_trace->m_tracks[t].events;
        Slice s;
        s.start = *ts;
        s.name = m_trace->m_strings.intern(ev.name.view());
        s.cat = m_trace->m_strings.intern(ev.cat.view());
        s.track = t;
        s.phase = c;
        s.args = storeArgs(ev.args.view());
        if (c == 'X') {
            auto dur =
                ev.dur.present() ? time(ev.dur, "dur", ev.nsTimes) : std::optional<TimeNs>(0);
            if (!dur || *dur < 0 || !ev.dur.present()) {
                ++stats.badFields;
                dur = 0;
            }
            s.dur = *dur; // both within kMaxAbsTimeNs: the end fits
        } else if (c == 'B') {
            s.dur = -1; // open until its E
        } else {
            s.flags |= kSliceInstant;
        }
        const EventId id = pushSlice(s);
        if (c == 'B') m_openB[t].push_back(id);
        if (ev.bindId.present()) m_binds.push_back({flowKey(ev.bindId), id, ev.flowIn, ev.flowOut});
        if (ev.sf.present())
            m_sliceFrames.emplace_back(id, valueText(ev.sf));
        else if (!ev.stack.empty()) {
            std::vector<std::string> frames;
            frames.reserve(ev.stack.size());
            for (const TextRef& f : ev.stack)
                frames.emplace_back(f.view());
            m_sliceStacks.emplace_back(id, std::move(frames));
        }
        break;
    }
    case 'E': {
        const TrackId t = threadTrack(ev, p);
        ++m_trace->m_tracks[t].events;
        if (m_partial && m_openB[t].empty()) // its B may be in an earlier piece
            m_pendingEnds.push_back({t, *ts, ev.args});
        else
            endSlice(m_openB[t], *ts, ev.args.view());
        break;
    }
    case 'C':
        addCounter(ev, p, *ts);
        break;
    case 's':
    case 't':
    case 'f': {
        const TrackId t = threadTrack(ev, p);
        ++m_trace->m_tracks[t].events;
        addFlowStep(ev, t, *ts, m_trace->m_strings.intern(ev.cat.view()));
        break;
    }
    case 'b':
    case 'e':
    case 'n':
        addAsync(ev, p, *ts);
        break;
    default:
        ++stats.unknownPhase;
        break;
    }
}

// A second, different name for one process or thread: the last wins, the user is told. A
// partial builder also keeps the first name it set, for absorb() to compare.
void TraceBuilder::setName(StrId& name, std::vector<StrId>& firsts, std::uint32_t index,
                           const std::string& text)
{
    const StrId id = m_trace->m_strings.intern(text);
    if (name != 0 && name != id) ++m_metaConflicts;
    name = id;
    if (m_partial) {
        if (firsts.size() <= index) firsts.resize(index + 1, kNone);
        if (firsts[index] == kNone) firsts[index] = id;
    }
}

void TraceBuilder::addLabel(Process& p, std::string label)
{
    if (std::find(p.labels.begin(), p.labels.end(), label) == p.labels.end())
        p.labels.push_back(std::move(label));
}

// The top B of open ends at ts (its args from the E when it has none).
void TraceBuilder::endSlice(std::vector<EventId>& open, TimeNs ts, std::string_view args)
{
    if (open.empty()) {
        ++m_trace->m_stats.unmatchedEnd;
        return;
    }
    Slice& s = m_trace->m_slices[open.back()];
    open.pop_back();
    if (ts < s.start) {
        ++m_trace->m_stats.badFields;
        s.dur = 0;
    } else {
        s.dur = ts - s.start;
    }
    if (s.args == kNone) s.args = storeArgs(args);
}

void TraceBuilder::addMetadataEvent(const TraceEvent& ev, ProcessId p)
{
    nlohmann::json args = nlohmann::json::parse(ev.args.view(), nullptr, false);
    if (!args.is_object()) {
        ++m_trace->m_stats.badFields;
        return;
    }
    Process& proc = m_trace->m_processes[p];
    auto sortIndex = [&](int& out, bool& has) {
        auto it = args.find("sort_index");
        if (it != args.end() && it->is_number_integer()) {
            out = it->get<int>();
            has = true;
        } else {
            ++m_trace->m_stats.badFields;
        }
    };
    const auto nameIt = args.find("name");
    const bool hasName = nameIt != args.end() && nameIt->is_string();
    const std::string_view evName = ev.name.view();
    if (evName == "process_name") {
        if (hasName) setName(proc.name, m_firstProcName, p, nameIt->get<std::string>());
    } else if (evName == "process_labels") {
        auto it = args.find("labels");
        if (it != args.end() && it->is_string()) {
            const std::string all = it->get<std::string>();
            std::size_t start = 0;
            while (start <= all.size()) {
                std::size_t comma = all.find(',', start);
                if (comma == std::string::npos) comma = all.size();
                if (comma > start) addLabel(proc, all.substr(start, comma - start));
                start = comma + 1;
            }
        }
    } else if (evName == "process_sort_index") {
        sortIndex(proc.sortIndex, proc.hasSortIndex);
    } else if (evName == "thread_name" || evName == "thread_sort_index") {
        const TrackId t = threadTrack(ev, p);
        Track& tr = m_trace->m_tracks[t];
        ++tr.events;
        if (evName == "thread_name" && hasName)
            setName(tr.name, m_firstTrackName, t, nameIt->get<std::string>());
        else if (evName == "thread_sort_index")
            sortIndex(tr.sortIndex, tr.hasSortIndex);
    }
}

CounterSeries& TraceBuilder::series(const CounterKey& key)
{
    auto [it, added] =
        m_counterIndex.emplace(key, static_cast<std::uint32_t>(m_trace->m_counters.size()));
    if (added) {
        CounterSeries& s = m_trace->m_counters.emplace_back();
        s.process = key.process;
        s.name = key.name;
        s.key = key.key;
    }
    return m_trace->m_counters[it->second];
}

void TraceBuilder::addCounter(const TraceEvent& ev, ProcessId p, TimeNs ts)
{
    nlohmann::json args = nlohmann::json::parse(ev.args.view(), nullptr, false);
    if (!args.is_object()) {
        ++m_trace->m_stats.badFields;
        return;
    }
    std::string name(ev.name.view());
    if (ev.id.present()) {
        name.push_back(' '); // not " " + text: GCC 12 warns (-Wrestrict) on that inlined
        name.append(valueText(ev.id));
    }
    const StrId nameId = m_trace->m_strings.intern(name);
    for (auto it = args.begin(); it != args.end(); ++it) {
        double v;
        if (it->is_number()) {
            v = it->get<double>();
        } else if (it->is_string()) {
            const std::string& s = it->get_ref<const std::string&>();
            char* end = nullptr;
            v = std::strtod(s.c_str(), &end);
            if (end == s.c_str() || *end != '\0') {
                ++m_trace->m_stats.badFields;
                continue;
            }
        } else {
            ++m_trace->m_stats.badFields;
            continue;
        }
        if (!std::isfinite(v)) {
            ++m_trace->m_stats.badFields;
            continue;
        }
        CounterSeries& s = series({p, nameId, m_trace->m_strings.intern(it.key())});
        s.ts.push_back(ts);
        s.values.push_back(v);
    }
}

void TraceBuilder::addFlowStep(const TraceEvent& ev, TrackId t, TimeNs ts, StrId cat)
{
    const JsonScalar& idv = ev.id.present() ? ev.id : ev.bindId;
    if (!idv.present()) {
        ++m_trace->m_stats.badFields;
        return;
    }
    PendingFlow f;
    f.cat = cat;
    f.id = flowKey(idv);
    f.track = t;
    f.ts = ts;
    f.phase = ev.ph.p[0];
    // Chrome: s and t bind to the enclosing slice; f to the next slice unless bp is "e".
    f.enclosing = f.phase != 'f' || ev.bp.view() == "e";
    m_flows.push_back(f);
}

void TraceBuilder::addAsync(const TraceEvent& ev, ProcessId p, TimeNs ts)
{
    const std::string_view name = ev.name.view(), cat = ev.cat.view();
    const TrackId t =
        track(p, name.empty() ? std::string("async") : std::string(name), TrackKind::Async);
    ++m_trace->m_tracks[t].events;
    const char c = ev.ph.p[0];
    // The pid as text (its length first), not the process id: keys of a piece are the whole
    // trace's keys, so absorb() takes them as they are.
    const std::string& pid = m_trace->m_processes[p].pid;
    m_key.assign(std::to_string(pid.size()));
    m_key.push_back(':');
    m_key.append(pid);
    m_key.append(cat);
    m_key.push_back('\x1f');
    m_key.append(valueText(ev.id));
    m_key.push_back('\x1f');
    m_key.append(name);
    if (c == 'b') {
        Slice s;
        s.start = ts;
        s.dur = -1;
        s.name = m_trace->m_strings.intern(name);
        s.cat = m_trace->m_strings.intern(cat);
        s.track = t;
        s.phase = 'b';
        s.flags = kSliceAsync;
        s.args = storeArgs(ev.args.view());
        const EventId id = pushSlice(s);
        auto [it, inserted] = m_openAsync.emplace(m_key, id);
        if (inserted && m_partial) m_pendingAsync.push_back({m_key, ts, true});
        if (!inserted && it->second != kNone) { // same id begun twice: close the older one
            Slice& old = m_trace->m_slices[it->second];
            old.dur = std::max<TimeNs>(0, ts - old.start);
            ++m_trace->m_stats.badFields;
        }
        it->second = id;
    } else if (c == 'e') {
        auto it = m_openAsync.find(m_key);
        if (it == m_openAsync.end() && m_partial) { // its b may be in an earlier piece
            m_pendingAsync.push_back({m_key, ts, false});
            m_openAsync.emplace(m_key, kNone);
            return;
        }
        if (it == m_openAsync.end() || it->second == kNone) {
            ++m_trace->m_stats.unmatchedEnd;
            return;
        }
        Slice& s = m_trace->m_slices[it->second];
        s.dur = std::max<TimeNs>(0, ts - s.start);
        if (m_partial) // absorb() needs to know it ended here
            it->second = kNone;
        else
            m_openAsync.erase(it);
    } else {
        Slice s;
        s.start = ts;
        s.name = m_trace->m_strings.intern(name);
        s.cat = m_trace->m_strings.intern(cat);
        s.track = t;
        s.phase = 'n';
        s.flags = kSliceAsync | kSliceInstant;
        s.args = storeArgs(ev.args.view());
        pushSlice(s);
    }
}

void TraceBuilder::addMetadata(const std::string& key, nlohmann::json value)
{
    if (key == "stackFrames") {
        m_stackFramesJson = std::move(value);
        return;
    }
    if (key == "distributedInfo" && value.is_object()) {
        auto it = value.find("rank");
        if (it != value.end() && it->is_number_integer() && !m_trace->m_rank)
            m_trace->m_rank = it->get<int>();
    }
    m_trace->m_metadata[key] = std::move(value);
}

void TraceBuilder::absorb(TraceBuilder& part)
{
    Trace& g = *m_trace;
    Trace& l = *part.m_trace;
    // Strings in the piece's order of first use: new ones get the ids one builder gives them.
    std::vector<StrId> str(l.m_strings.size());
    for (StrId i = 0; i < str.size(); ++i)
        str[i] = g.m_strings.intern(l.m_strings.str(i));
    // A name set in the piece: a conflict when its first differs from the name before it.
    auto rename = [&](StrId& name, const std::vector<StrId>& firsts, std::size_t i, StrId last) {
        if (i >= firsts.size() || firsts[i] == kNone) return;
        if (name != 0 && name != str[firsts[i]]) ++m_metaConflicts;
        name = str[last];
    };
    std::vector<ProcessId> proc(l.m_processes.size());
    for (ProcessId i = 0; i < proc.size(); ++i) {
        Process& lp = l.m_processes[i];
        proc[i] = processByText(lp.pid, lp.pidIsNumber);
        Process& gp = g.m_processes[proc[i]];
        gp.events += lp.events;
        rename(gp.name, part.m_firstProcName, i, lp.name);
        takeSortIndex(gp, lp);
        for (std::string& label : lp.labels)
            addLabel(gp, std::move(label));
    }
    std::vector<TrackId> trk(l.m_tracks.size());
    for (TrackId i = 0; i < trk.size(); ++i) {
        const Track& lt = l.m_tracks[i];
        trk[i] = track(proc[lt.process], lt.tid, lt.kind);
        Track& gt = g.m_tracks[trk[i]];
        gt.events += lt.events;
        rename(gt.name, part.m_firstTrackName, i, lt.name);
        takeSortIndex(gt, lt);
    }
    // Slices, their args text copied once, here.
    const auto base = static_cast<EventId>(g.m_slices.size());
    const auto argsBase = static_cast<std::uint32_t>(g.m_argsOffsets.size() - 1);
    for (const TextRef& a : part.m_argRefs) {
        g.m_argsText.append(a.p, a.n);
        g.m_argsOffsets.push_back(g.m_argsText.size());
    }
    for (Slice s : l.m_slices) {
        s.name = str[s.name];
        s.cat = str[s.cat];
        s.track = trk[s.track];
        if (s.args != kNone) s.args += argsBase;
        g.m_slices.push_back(s);
    }
    LoadStats& st = g.m_stats;
    // Ends whose begin came before the piece, then the piece's begins still open.
    for (const PendingEnd& e : part.m_pendingEnds)
        endSlice(m_openB[trk[e.track]], e.ts, e.args.view());
    for (TrackId i = 0; i < trk.size(); ++i) {
        for (EventId id : part.m_openB[i])
            m_openB[trk[i]].push_back(base + id);
    }
    // Async: a key's first b/e in the piece meets the state before it; then the piece's state.
    for (const PendingAsync& a : part.m_pendingAsync) {
        auto it = m_openAsync.find(a.key);
        if (it != m_openAsync.end() && it->second != kNone) {
            Slice& s = g.m_slices[it->second];
            s.dur = std::max<TimeNs>(0, a.ts - s.start);
            if (a.begin) ++st.badFields; // begun twice: the older one closed here
        } else if (!a.begin) {
            ++st.unmatchedEnd;
        }
    }
    for (const auto& [key, id] : part.m_openAsync) {
        if (id == kNone)
            m_openAsync.erase(key);
        else
            m_openAsync[key] = base + id;
    }
    // Counters, appended to the series of the same process, name and key.
    for (CounterSeries& c : l.m_counters) {
        CounterSeries& gs = series({proc[c.process], str[c.name], str[c.key]});
        gs.ts.insert(gs.ts.end(), c.ts.begin(), c.ts.end());
        gs.values.insert(gs.values.end(), c.values.begin(), c.values.end());
    }
    // Flow steps and bind ids.
    auto flowId = [&](FlowKey k) {
        if (k.text) k.value = str[k.value];
        return k;
    };
    for (PendingFlow f : part.m_flows) {
        f.id = flowId(f.id);
        f.cat = str[f.cat];
        f.track = trk[f.track];
        m_flows.push_back(f);
    }
    for (PendingBind b : part.m_binds) {
        b.id = flowId(b.id);
        b.slice += base;
        m_binds.push_back(b);
    }
    for (auto& [slice, id] : part.m_sliceFrames)
        m_sliceFrames.emplace_back(base + slice, std::move(id));
    for (auto& [slice, names] : part.m_sliceStacks)
        m_sliceStacks.emplace_back(base + slice, std::move(names));
    // Counts.
    st.events += l.m_stats.events;
    st.unknownPhase += l.m_stats.unknownPhase;
    st.badFields += l.m_stats.badFields;
    st.unmatchedEnd += l.m_stats.unmatchedEnd;
    for (const auto& [ph, n] : l.m_stats.phases)
        st.phases[ph] += n;
    for (std::size_t c = 0; c < m_phaseCounts.size(); ++c)
        m_phaseCounts[c] += part.m_phaseCounts[c];
    m_sawStringTs = m_sawStringTs || part.m_sawStringTs;
    m_metaConflicts += part.m_metaConflicts;
}

void TraceBuilder::recycle()
{
    TraceBuilder fresh(true);
    std::swap(fresh.m_trace->m_slices, m_trace->m_slices);
    std::swap(fresh.m_argRefs, m_argRefs);
    std::swap(fresh.m_flows, m_flows);
    *this = std::move(fresh);
    m_trace->m_slices.clear();
    m_argRefs.clear();
    m_flows.clear();
}

TimeNs TraceBuilder::closeOpenSlices()
{
    std::vector<Slice>& slices = m_trace->m_slices;
    TimeNs ends[2] = {std::numeric_limits<TimeNs>::min(), std::numeric_limits<TimeNs>::min()};
    std::uint64_t opens[2] = {0, 0};
    inHalves(slices.size(), [&](int h, std::size_t a, std::size_t b) {
        // Locals, stored once: the two halves' results share a cache line.
        TimeNs e = std::numeric_limits<TimeNs>::min();
        std::uint64_t o = 0;
        for (std::size_t i = a; i < b; ++i) {
            const Slice& s = slices[i];
            e = std::max(e, s.dur >= 0 ? s.end() : s.start);
            o += s.dur < 0;
        }
        ends[h] = e;
        opens[h] = o;
    });
    const TimeNs end = std::max(ends[0], ends[1]);
    const std::uint64_t open = opens[0] + opens[1];
    if (open) {
        for (Slice& s : slices) {
            if (s.dur < 0) {
                s.dur = end - s.start;
                s.flags |= kSliceUnterminated;
            }
        }
    }
    m_trace->m_stats.unterminated = open;
    if (open)
        addWarning(std::to_string(open) +
                   " slice(s) begun (B/b) but never ended; drawn up to the end of the trace");
    if (m_trace->m_stats.unmatchedEnd)
        addWarning(std::to_string(m_trace->m_stats.unmatchedEnd) +
                   " end event(s) (E/e) without a matching begin were ignored");
    return end;
}

// Orders processes and tracks for display and renumbers them so ids follow that order.
std::array<std::vector<EventId>, 2> TraceBuilder::sortTracksAndSlices()
{
    Trace& tr = *m_trace;
    // Process order: sort index, then pid (numeric when numeric).
    std::vector<ProcessId> porder(tr.m_processes.size());
    std::iota(porder.begin(), porder.end(), 0);
    std::stable_sort(porder.begin(), porder.end(), [&](ProcessId a, ProcessId b) {
        const Process& x = tr.m_processes[a];
        const Process& y = tr.m_processes[b];
        if (x.sortIndex != y.sortIndex) return x.sortIndex < y.sortIndex;
        return naturalLess(x.pid, y.pid);
    });
    std::vector<ProcessId> pnew(porder.size());
    for (std::size_t i = 0; i < porder.size(); ++i)
        pnew[porder[i]] = static_cast<ProcessId>(i);

    std::vector<TrackId> torder(tr.m_tracks.size());
    std::iota(torder.begin(), torder.end(), 0);
    std::stable_sort(torder.begin(), torder.end(), [&](TrackId a, TrackId b) {
        const Track& x = tr.m_tracks[a];
        const Track& y = tr.m_tracks[b];
        if (x.process != y.process) return pnew[x.process] < pnew[y.process];
        if (x.kind != y.kind) return x.kind < y.kind;
        if (x.sortIndex != y.sortIndex) return x.sortIndex < y.sortIndex;
        return naturalLess(x.tid, y.tid);
    });
    std::vector<TrackId> tnew(torder.size());
    for (std::size_t i = 0; i < torder.size(); ++i)
        tnew[torder[i]] = static_cast<TrackId>(i);

    std::vector<Process> procs(tr.m_processes.size());
    for (std::size_t i = 0; i < porder.size(); ++i)
        procs[i] = std::move(tr.m_processes[porder[i]]);
    std::vector<Track> tracks(tr.m_tracks.size());
    for (std::size_t i = 0; i < torder.size(); ++i) {
        tracks[i] = std::move(tr.m_tracks[torder[i]]);
        tracks[i].process = pnew[tracks[i].process];
        procs[tracks[i].process].tracks.push_back(static_cast<TrackId>(i));
    }
    tr.m_processes = std::move(procs);
    tr.m_tracks = std::move(tracks);
    std::array<std::vector<EventId>, 2> counts;
    counts.fill(std::vector<EventId>(tr.m_tracks.size(), 0));
    inHalves(tr.m_slices.size(), [&](int h, std::size_t a, std::size_t b) {
        std::vector<EventId>& c = counts[h];
        for (std::size_t i = a; i < b; ++i) {
            const TrackId t = tnew[tr.m_slices[i].track];
            tr.m_slices[i].track = t;
            ++c[t];
        }
    });
    for (PendingFlow& f : m_flows)
        f.track = tnew[f.track];
    for (CounterSeries& c : tr.m_counters)
        c.process = pnew[c.process];

    // Counter tracks: one per series, after the process's other tracks.
    for (std::uint32_t i = 0; i < tr.m_counters.size(); ++i) {
        Track t;
        t.process = tr.m_counters[i].process;
        t.kind = TrackKind::Counter;
        t.tid = tr.str(tr.m_counters[i].name);
        t.counter = i;
        t.events = tr.m_counters[i].ts.size();
        const auto id = static_cast<TrackId>(tr.m_tracks.size());
        tr.m_tracks.push_back(std::move(t));
        tr.m_processes[tr.m_counters[i].process].tracks.push_back(id);
    }
    // Counters can arrive out of order: sort each series by time.
    for (CounterSeries& c : tr.m_counters) {
        if (std::is_sorted(c.ts.begin(), c.ts.end())) continue;
        std::vector<std::size_t> idx(c.ts.size());
        std::iota(idx.begin(), idx.end(), 0);
        std::stable_sort(idx.begin(), idx.end(), [&](auto a, auto b) { return c.ts[a] < c.ts[b]; });
        std::vector<TimeNs> ts(idx.size());
        std::vector<double> vs(idx.size());
        for (std::size_t i = 0; i < idx.size(); ++i) {
            ts[i] = c.ts[idx[i]];
            vs[i] = c.values[idx[i]];
        }
        c.ts = std::move(ts);
        c.values = std::move(vs);
    }
    for (std::vector<EventId>& c : counts) // the counter tracks hold no slices
        c.resize(tr.m_tracks.size(), 0);
    return counts;
}

void TraceBuilder::nestSlices(TrackId from, TrackId to)
{
    Trace& tr = *m_trace;
    std::vector<EventId> stack;
    std::vector<TimeNs> laneEnd;
    for (TrackId t = from; t < to; ++t) {
        Track& track = tr.m_tracks[t];
        stack.clear();
        laneEnd.clear();
        TimeNs maxDur = 0;
        for (EventId i = track.begin; i < track.end; ++i) {
            Slice& s = tr.m_slices[i];
            maxDur = std::max(maxDur, s.dur);
            if (track.kind == TrackKind::Async) {
                // Async slices overlap freely: pack them into the first free lane.
                std::size_t lane = 0;
                while (lane < laneEnd.size() && laneEnd[lane] > s.start)
                    ++lane;
                if (lane == laneEnd.size()) laneEnd.push_back(0);
                laneEnd[lane] = std::max(s.end(), s.start + 1);
                s.depth = static_cast<std::uint16_t>(std::min<std::size_t>(lane, 0xffff));
            } else {
                // Pop what ended before this starts; a zero-length parent still holds its
                // instants at the same time.
                while (!stack.empty()) {
                    const Slice& top = tr.m_slices[stack.back()];
                    if (top.end() > s.start ||
                        (top.dur == 0 && top.start == s.start && !(top.flags & kSliceInstant)))
                        break;
                    stack.pop_back();
                }
                if (!stack.empty()) {
                    s.parent = stack.back();
                    if (s.end() > tr.m_slices[stack.back()].end()) s.flags |= kSlicePartialOverlap;
                }
                s.depth = static_cast<std::uint16_t>(std::min<std::size_t>(stack.size(), 0xffff));
                stack.push_back(i);
            }
            track.maxDepth = std::max(track.maxDepth, s.depth);
        }
        tr.m_trackMaxDur[t] = maxDur;
    }
}

// The flow steps in the order of one stable sort by (category, id, phase, time). Producers
// number flows as they go, so a category's steps mostly come in order already: Kineto's whole
// array, torch_npu's three categories interleaved. The steps are split by category (a stable
// counting pass, when there are several) and only a category out of order is sorted; a
// comparison sort of 3M steps was 0.3-0.6 s of a torch_npu load.
template <typename Less> void TraceBuilder::sortFlowSteps(const Less& flowLess)
{
    if (std::is_sorted(m_flows.begin(), m_flows.end(), flowLess)) return;
    // Two halves sorted at once, then merged: stable, so the order of one stable sort.
    auto sortRange = [&](auto first, auto last) {
        if (std::is_sorted(first, last, flowLess)) return;
        const auto half = first + (last - first) / 2;
        inParallel([&] { std::stable_sort(first, half, flowLess); },
                   [&] { std::stable_sort(half, last, flowLess); });
        std::inplace_merge(first, half, last, flowLess);
    };
    constexpr std::size_t kMaxCategories = 64;       // beyond: one sort of the whole
    std::vector<std::pair<StrId, std::size_t>> cats; // category, its steps (then its offset)
    std::size_t last = 0;
    for (const PendingFlow& f : m_flows) {
        if (last < cats.size() && cats[last].first == f.cat) {
            ++cats[last].second;
            continue;
        }
        last = 0;
        while (last < cats.size() && cats[last].first != f.cat)
            ++last;
        if (last == cats.size()) {
            if (cats.size() == kMaxCategories) return sortRange(m_flows.begin(), m_flows.end());
            cats.emplace_back(f.cat, 0);
        }
        ++cats[last].second;
    }
    if (cats.size() > 1) {
        std::sort(cats.begin(), cats.end());
        std::size_t offset = 0;
        for (auto& [cat, n] : cats)
            offset += std::exchange(n, offset);
        std::vector<PendingFlow> byCat(m_flows.size());
        std::size_t hit = 0;
        for (const PendingFlow& f : m_flows) {
            if (cats[hit].first != f.cat)
                hit = static_cast<std::size_t>(
                    std::lower_bound(cats.begin(), cats.end(),
                                     std::make_pair(f.cat, std::size_t(0))) -
                    cats.begin());
            byCat[cats[hit].second++] = f;
        }
        m_flows = std::move(byCat);
    }
    std::size_t from = 0;
    for (const auto& [cat, end] : cats) { // the offsets are now each category's end
        sortRange(m_flows.begin() + static_cast<std::ptrdiff_t>(from),
                  m_flows.begin() + static_cast<std::ptrdiff_t>(end));
        from = end;
    }
}

void TraceBuilder::bindFlows(const std::vector<EventId>& newIndex)
{
    Trace& tr = *m_trace;
    auto bind = [&](const PendingFlow& f, std::vector<std::size_t>& hints) -> EventId {
        if (f.track >= tr.m_tracks.size()) return kNone;
        std::size_t* hint = &hints[f.track];
        if (f.enclosing) {
            if (EventId e = tr.sliceAt(f.track, f.ts, hint); e != kNone) return e;
        }
        // The first slice starting at or after the step: the next slice of an f step; for an
        // enclosing step only one starting exactly there (producers put steps at the start).
        auto sl = tr.trackSlices(f.track);
        const std::size_t k = f.ts == std::numeric_limits<TimeNs>::min()
                                  ? 0
                                  : tr.upperBoundNear(f.track, f.ts - 1, hint);
        if (k == sl.size() || (f.enclosing && sl[k].start != f.ts)) return kNone;
        return tr.m_tracks[f.track].begin + static_cast<EventId>(k);
    };
    // Every step bound before the steps are grouped by id: in the order they were read, a
    // track's steps mostly come in time order, so each search starts where the last one on
    // its track ended (sliceAt from scratch was 5-6% of a torch_npu load). Two halves at once.
    auto bindRange = [&](std::size_t from, std::size_t to) {
        std::vector<std::size_t> hints(tr.m_tracks.size(), SIZE_MAX);
        for (std::size_t i = from; i < to; ++i)
            m_flows[i].bound = bind(m_flows[i], hints);
    };
    inParallel([&] { bindRange(0, m_flows.size() / 2); },
               [&] { bindRange(m_flows.size() / 2, m_flows.size()); });

    auto flowLess = [](const PendingFlow& a, const PendingFlow& b) {
        if (a.cat != b.cat) return a.cat < b.cat;
        if (a.id != b.id) return a.id < b.id;
        if (phaseRank(a.phase) != phaseRank(b.phase))
            return phaseRank(a.phase) < phaseRank(b.phase);
        return a.ts < b.ts;
    };
    sortFlowSteps(flowLess);
    auto sameId = [&](std::size_t a, std::size_t b) {
        return m_flows[a].cat == m_flows[b].cat && m_flows[a].id == m_flows[b].id;
    };
    // Slice flags by atomic or: two groups may share a slice.
    auto addFlow = [&](std::vector<Flow>& out, EventId from, EventId to, StrId cat, FlowKey id) {
        Flow fl;
        fl.from = from;
        fl.to = to;
        fl.cat = cat;
        fl.name = cat;
        fl.idIsText = id.text;
        fl.idText = id.text ? static_cast<StrId>(id.value) : 0;
        fl.id = id.text ? idNumber(tr.str(fl.idText)) : id.value;
        std::atomic_ref(tr.m_slices[from].flags).fetch_or(kSliceFlowOut, std::memory_order_relaxed);
        std::atomic_ref(tr.m_slices[to].flags).fetch_or(kSliceFlowIn, std::memory_order_relaxed);
        out.push_back(fl);
    };
    // The steps of each flow id bound (a lookup in the finished slices) and chained: the ids in
    // two halves at once, cut between two ids; the flows of the first half come first.
    struct Chained {
        std::vector<Flow> flows;
        std::uint64_t dangling = 0;
    } halves[2];
    auto chain = [&](std::size_t from, std::size_t to, Chained& out) {
        for (std::size_t i = from; i < to;) {
            std::size_t j = i;
            while (j < to && sameId(i, j))
                ++j;
            // Steps of one flow id: s, then t in time order, then every f (torch_npu reuses
            // one string id for a launch and several device tasks).
            EventId source = kNone;
            for (std::size_t k = i; k < j; ++k) {
                const PendingFlow& f = m_flows[k];
                const EventId e = f.bound;
                if (e == kNone) {
                    ++out.dangling;
                    continue;
                }
                if (f.phase == 's') {
                    source = e;
                } else if (source == kNone) {
                    ++out.dangling;
                } else if (source != e) {
                    addFlow(out.flows, source, e, f.cat, f.id);
                    if (f.phase == 't') source = e;
                }
            }
            i = j;
        }
    };
    std::size_t split = m_flows.size() / 2;
    while (split > 0 && split < m_flows.size() && sameId(split - 1, split))
        ++split;
    // A half makes fewer flows than it has steps: reserved so, on 2 MiB pages, they never
    // grow by copying (the untouched rest of the reservation is never resident).
    inParallel(
        [&] {
            reserveHuge(halves[0].flows, split);
            chain(0, split, halves[0]);
        },
        [&] {
            reserveHuge(halves[1].flows, m_flows.size() - split);
            chain(split, m_flows.size(), halves[1]);
        });
    const std::uint64_t dangling = halves[0].dangling + halves[1].dangling;
    // Exactly sized (no shrinking copy below); the v2 flows, rare, grow it.
    tr.m_flows.clear();
    reserveHuge(tr.m_flows, halves[0].flows.size() + halves[1].flows.size());
    tr.m_flows.insert(tr.m_flows.end(), halves[0].flows.begin(), halves[0].flows.end());
    tr.m_flows.insert(tr.m_flows.end(), halves[1].flows.begin(), halves[1].flows.end());
    halves[0].flows = {};
    halves[1].flows = {};
    // Flow v2: bind ids on slices; flow_out starts, flow_in ends.
    std::stable_sort(
        m_binds.begin(), m_binds.end(), [&](const PendingBind& a, const PendingBind& b) {
            if (a.id != b.id) return a.id < b.id;
            return tr.m_slices[newIndex[a.slice]].start < tr.m_slices[newIndex[b.slice]].start;
        });
    const StrId v2cat = tr.m_strings.intern("flow");
    for (std::size_t i = 0; i < m_binds.size();) {
        std::size_t j = i;
        while (j < m_binds.size() && m_binds[j].id == m_binds[i].id)
            ++j;
        EventId source = kNone;
        for (std::size_t k = i; k < j; ++k) {
            const EventId e = newIndex[m_binds[k].slice];
            if (m_binds[k].in && source != kNone && source != e)
                addFlow(tr.m_flows, source, e, v2cat, m_binds[k].id);
            if (m_binds[k].out) source = e;
        }
        i = j;
    }
    tr.m_stats.danglingFlows = dangling;
    if (dangling)
        addWarning(std::to_string(dangling) +
                   " flow step(s) point to no slice or have no start; they are not drawn");
    tr.m_flowOut.reserve(tr.m_flows.size());
    tr.m_flowIn.reserve(tr.m_flows.size());
    for (std::uint32_t i = 0; i < tr.m_flows.size(); ++i) {
        tr.m_flowOut.emplace_back(tr.m_flows[i].from, i);
        tr.m_flowIn.emplace_back(tr.m_flows[i].to, i);
    }
    inParallel([&] { sortByEvent(tr.m_flowOut); }, [&] { sortByEvent(tr.m_flowIn); });
    // Grown by push_back: drop the slack (a flow costs 48 bytes here, per event that matters).
    tr.m_flows.shrink_to_fit();
    tr.m_flowOut.shrink_to_fit();
    tr.m_flowIn.shrink_to_fit();
    m_flows.clear();
    m_flows.shrink_to_fit();
}

std::shared_ptr<Trace> TraceBuilder::finish()
{
    Trace& tr = *m_trace;
    for (std::size_t c = 0; c < m_phaseCounts.size(); ++c) {
        if (m_phaseCounts[c])
            tr.m_stats.phases[std::string(1, static_cast<char>(c))] += m_phaseCounts[c];
    }
    if (!tr.m_rank) tr.m_rank = m_fallbackRank;
    const TimeNs lastEnd = closeOpenSlices();
    // Counted in two halves at once as the tracks are renumbered.
    std::array<std::vector<EventId>, 2> counts = sortTracksAndSlices();

    // Sort slices by (track, start, longer first, file order): bucket them by track (a
    // counting sort keeps file order), then sort each track alone, on two threads. Tracks are
    // often in order already. The keys are contiguous: comparing through the 40-byte slices
    // would miss the cache on every comparison.
    const std::size_t n = tr.m_slices.size();
    const std::size_t nt = tr.m_tracks.size();
    // Filled in the same two halves: the first half's slices of a track go first.
    std::vector<EventId> first(nt + 1, 0); // slices of track t: [first[t], first[t + 1])
    for (std::size_t t = 0; t < nt; ++t)
        first[t + 1] = first[t] + counts[0][t] + counts[1][t];
    struct SortKey {
        TimeNs start;
        TimeNs dur;
        EventId index;
    };
    // Not value-initialised: the fill below writes every key, on two threads (a zeroing pass
    // here was 30 ms of a 1 GB load on one thread, its page faults included).
    auto keys = hugeUninit<SortKey>(n);
    for (std::size_t t = 0; t < nt; ++t) { // counts become where each half fills
        counts[1][t] = first[t] + counts[0][t];
        counts[0][t] = first[t];
    }
    inHalves(n, [&](int h, std::size_t a, std::size_t b) {
        std::vector<EventId>& fill = counts[h];
        for (std::size_t i = a; i < b; ++i) {
            const Slice& s = tr.m_slices[i];
            keys[fill[s.track]++] = {s.start, s.dur, static_cast<EventId>(i)};
        }
    });
    const TrackId split = splitTracks(first);
    auto less = [](const SortKey& x, const SortKey& y) {
        if (x.start != y.start) return x.start < y.start;
        if (x.dur != y.dur) return x.dur > y.dur;
        return x.index < y.index;
    };
    auto sortTracks = [&](TrackId a, TrackId b) {
        for (TrackId t = a; t < b; ++t) {
            SortKey *lo = keys.get() + first[t], *hi = keys.get() + first[t + 1];
            if (!std::is_sorted(lo, hi, less) && !insertionSorted(lo, hi, less))
                std::sort(lo, hi, less);
        }
    };
    // Gathered (sequential writes) rather than permuted in place: the slices are copied out as
    // the tracks sort, then gathered back into their own array, so no new vector is zeroed on
    // one thread first.
    std::vector<EventId> newIndex(n);
    {
        auto unsorted = hugeUninit<Slice>(n);
        auto copyOut = [&](std::size_t a, std::size_t b) {
            std::copy(tr.m_slices.begin() + std::ptrdiff_t(a),
                      tr.m_slices.begin() + std::ptrdiff_t(b), unsorted.get() + a);
        };
        auto gather = [&](std::size_t a, std::size_t b) {
            for (std::size_t i = a; i < b; ++i) {
                tr.m_slices[i] = unsorted[keys[i].index];
                newIndex[keys[i].index] = static_cast<EventId>(i);
            }
        };
        inParallel([&] { sortTracks(0, split); }, [&] { copyOut(0, n / 2); });
        inParallel([&] { sortTracks(split, TrackId(nt)); }, [&] { copyOut(n / 2, n); });
        inParallel([&] { gather(0, n / 2); }, [&] { gather(n / 2, n); });
    }
    keys.reset();
    for (TrackId t = 0; t < nt; ++t) {
        Track& track = tr.m_tracks[t];
        const bool any = first[t] != first[t + 1];
        track.begin = any ? first[t] : 0;
        track.end = any ? first[t + 1] : 0;
    }
    tr.m_trackMaxDur.assign(nt, 0);
    inParallel([&] { nestSlices(0, split); }, [&] { nestSlices(split, TrackId(nt)); });
    bindFlows(newIndex);
    resolveStackFrames(newIndex);
    // Who wrote it: the source says (a database), else the registry asks the producers what the
    // content shows. Its roles of the tracks are decided once, here.
    tr.m_producer = m_producer ? m_producer : &producers::recognise(tr, {m_sawStringTs});
    const std::vector<TrackRole> roles = tr.m_producer->trackRoles(tr);
    for (std::size_t t = 0; t < nt && t < roles.size(); ++t)
        tr.m_tracks[t].role = roles[t];
    // And what each slice is, and what the run states: decided here once, read from the model.
    {
        SliceClasses classes;
        tr.m_producer->classify(tr, classes);
        classes.kinds.resize(n, SliceKind::Other);
        tr.m_kinds = std::move(classes.kinds);
        tr.m_steps = std::move(classes.steps);
        addImpliedFlows(tr.m_producer->impliedFlows(tr));
        tr.m_facts = tr.m_producer->runFacts(tr);
    }

    // Time span over slices and counters: the slices' last end is known since they were
    // closed, their first start is a track's first slice (each track sorted by start).
    TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = lastEnd;
    for (const Track& t : tr.m_tracks)
        if (t.begin != t.end) lo = std::min(lo, tr.m_slices[t.begin].start);
    for (const CounterSeries& c : tr.m_counters) {
        if (!c.ts.empty()) {
            lo = std::min(lo, c.ts.front());
            hi = std::max(hi, c.ts.back());
        }
    }
    if (lo > hi) lo = hi = 0;
    tr.m_start = lo;
    tr.m_end = hi;

    LoadStats& st = tr.m_stats;
    if (m_metaConflicts)
        addWarning(std::to_string(m_metaConflicts) +
                   " conflicting metadata event(s) renamed a process or thread; the last name "
                   "is used");
    if (st.unknownPhase)
        addWarning(std::to_string(st.unknownPhase) +
                   " event(s) with an unknown phase were skipped");
    if (st.badFields)
        addWarning(std::to_string(st.badFields) +
                   " event(s) had a missing or bad field (ts, dur, id, args); they were skipped "
                   "or clamped");
    // No shrink_to_fit for the slices, the args text and its offsets: their unused capacity
    // was never touched, so it is not resident (Trace::modelBytes counts their sizes), while a
    // shrinking copy would hold them twice at the peak (the slices' copy was 60 ms of a 1 GB
    // load, the offsets' 14 ms, on one thread).
    return std::move(m_trace);
}

} // namespace rs
