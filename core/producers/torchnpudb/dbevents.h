#pragma once

// The database's rows as trace events, for dbreader.cpp: msprof's pid layout, args written as
// JSON text, the emitter that feeds a TraceBuilder, and the small tables every piece looks up
// (names, enums, call chains, links). Kept apart so the reader holds only the row reading.

#include "core/tracebuilder.h"
#include "core/traceevent.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rs::torchnpudb {

// msprof's process sort indices (the public text exports' numbering) and its pid layout:
// (pid << 10) | (sort << 5) | device (json_assembler.cpp GetFormatPid). The pids are the
// reader's own; names and sort indices are what the text export shows.
enum Sort : int {
    kSortPython = 0,
    kSortCann = 7,
    kSortHardware = 13,
    kSortFreq = 14,
    kSortHccl = 15,
    kSortHbm = 17,
    kSortLlc = 18,
    kSortNpuMem = 19,
    kSortOverlap = 23,
};
inline std::uint64_t formatPid(std::uint64_t pid, int sort, std::int64_t device)
{
    return (pid << 10) | (std::uint64_t(sort) << 5) | (std::uint64_t(device) & 31);
}

// Blocks of text whose addresses stay put: a partial builder keeps args as views until absorb.
class TextArena {
public:
    TextRef add(std::string_view s)
    {
        if (s.empty()) return {};
        if (m_blocks.empty() || m_blocks.back().capacity() - m_blocks.back().size() < s.size()) {
            m_blocks.emplace_back();
            m_blocks.back().reserve(std::max<std::size_t>(s.size(), 1 << 20));
        }
        std::string& b = m_blocks.back();
        const std::size_t at = b.size();
        b.append(s);
        return {b.data() + at, static_cast<std::uint32_t>(s.size())};
    }

    // Empty again, keeping the first block's capacity for the next piece.
    void clear()
    {
        while (m_blocks.size() > 1)
            m_blocks.pop_back();
        if (!m_blocks.empty()) m_blocks.front().clear();
    }

private:
    std::deque<std::string> m_blocks;
};

// A JSON object written field by field (args): keys are ours, values escaped.
class Args {
public:
    void clear() { m_s.assign(1, '{'); }
    Args& num(std::string_view key, std::int64_t v)
    {
        keyOf(key);
        char buf[24];
        auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_s.append(buf, r.ptr);
        return *this;
    }
    Args& real(std::string_view key, double v)
    {
        keyOf(key);
        if (!std::isfinite(v)) v = 0;
        char buf[32];
        auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_s.append(buf, r.ptr);
        return *this;
    }
    Args& str(std::string_view key, std::string_view v)
    {
        keyOf(key);
        quote(v);
        return *this;
    }
    // A value already written as JSON (a string quoted and escaped once for many rows).
    Args& json(std::string_view key, std::string_view v)
    {
        keyOf(key);
        m_s.append(v);
        return *this;
    }
    const std::string& done()
    {
        m_s.push_back('}');
        return m_s;
    }

    // v as a JSON string, quotes included.
    static std::string quoted(std::string_view v)
    {
        Args a;
        a.m_s.clear();
        a.quote(v);
        return std::move(a.m_s);
    }

private:
    // Keys are the reader's own constants, never in need of an escape: written as they are.
    void keyOf(std::string_view key)
    {
        if (m_s.size() > 1) m_s.push_back(',');
        m_s.push_back('"');
        m_s.append(key);
        m_s.append("\":", 2);
    }
    void quote(std::string_view v)
    {
        m_s.push_back('"');
        // Most text needs no escape: appended whole.
        if (std::none_of(v.begin(), v.end(), [](char c) {
                return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
            })) {
            m_s.append(v);
            m_s.push_back('"');
            return;
        }
        for (char c : v) {
            const auto u = static_cast<unsigned char>(c);
            if (c == '"' || c == '\\') {
                m_s.push_back('\\');
                m_s.push_back(c);
            } else if (c == '\n') {
                m_s.append("\\n");
            } else if (c == '\r') {
                m_s.append("\\r");
            } else if (c == '\t') {
                m_s.append("\\t");
            } else if (u < 0x20) {
                static const char hex[] = "0123456789abcdef";
                m_s.append("\\u00");
                m_s.push_back(hex[u >> 4]);
                m_s.push_back(hex[u & 15]);
            } else {
                m_s.push_back(c);
            }
        }
        m_s.push_back('"');
    }
    std::string m_s = "{";
};

// Trace events for a builder, times in integer ns (the database's own).
class Emitter {
public:
    Emitter(TraceBuilder& b, TextArena& arena) : m_b(b), m_arena(arena) {}

    void slice(std::uint64_t pid, std::uint64_t tid, std::int64_t start, std::int64_t end,
               std::string_view name, std::string_view cat, std::string_view args,
               std::uint32_t bad = 0)
    {
        TraceEvent ev = base('X', pid, bad);
        setTid(ev, tid);
        ev.ts = integer(start, m_tsBuf);
        // A duration past int64 (times at its ends) is a bad field: the builder clamps it.
        std::int64_t dur = 0;
        if (__builtin_sub_overflow(end, start, &dur)) dur = -1;
        ev.dur = integer(dur, m_durBuf);
        ev.name = view(name);
        ev.cat = view(cat);
        ev.args = m_arena.add(args);
        m_b.addEvent(ev);
    }
    void counter(std::uint64_t pid, std::string_view name, std::int64_t ts, std::string_view args)
    {
        TraceEvent ev = base('C', pid, 0);
        ev.ts = integer(ts, m_tsBuf);
        ev.name = view(name);
        ev.args = m_arena.add(args);
        m_b.addEvent(ev);
    }
    // A flow step: s binds to the slice enclosing ts, f (bp "e") likewise.
    void flow(char ph, std::uint64_t pid, std::uint64_t tid, std::int64_t ts, std::string_view cat,
              std::string_view name, std::int64_t id)
    {
        TraceEvent ev = base(ph, pid, 0);
        setTid(ev, tid);
        ev.ts = integer(ts, m_tsBuf);
        ev.cat = view(cat);
        ev.name = view(name);
        ev.id = integer(id, m_idBuf);
        if (ph == 'f') ev.bp = view("e");
        m_b.addEvent(ev);
    }
    void processMeta(std::uint64_t pid, std::string_view name, int sort, std::string_view label)
    {
        meta(pid, std::nullopt, "process_name", Args().str("name", name).done());
        meta(pid, std::nullopt, "process_sort_index", Args().num("sort_index", sort).done());
        if (!label.empty())
            meta(pid, std::nullopt, "process_labels", Args().str("labels", label).done());
    }
    void threadMeta(std::uint64_t pid, std::uint64_t tid, std::string_view name,
                    std::optional<std::int64_t> sort)
    {
        meta(pid, tid, "thread_name", Args().str("name", name).done());
        if (sort) meta(pid, tid, "thread_sort_index", Args().num("sort_index", *sort).done());
    }
    // A row that gave no event (a time that is no integer): counted as a bad field.
    void skipped(std::uint32_t bad) { m_b.addBadFields(bad); }

private:
    void meta(std::uint64_t pid, std::optional<std::uint64_t> tid, std::string_view what,
              const std::string& args)
    {
        TraceEvent ev = base('M', pid, 0);
        if (tid) setTid(ev, *tid);
        ev.name = view(what);
        ev.args = m_arena.add(args);
        m_b.addEvent(ev);
    }
    TraceEvent base(char ph, std::uint64_t pid, std::uint32_t bad)
    {
        TraceEvent ev;
        m_ph = ph;
        ev.ph = {&m_ph, 1};
        ev.pid = unsignedValue(pid, m_pidBuf);
        ev.badTypes = bad;
        ev.nsTimes = true;
        return ev;
    }
    void setTid(TraceEvent& ev, std::uint64_t tid) { ev.tid = unsignedValue(tid, m_tidBuf); }
    static TextRef view(std::string_view s)
    {
        return {s.data(), static_cast<std::uint32_t>(s.size())};
    }
    // Integers need no text: the builder reads their bits (and prints them when it must).
    static JsonScalar unsignedValue(std::uint64_t v, char*)
    {
        JsonScalar s;
        s.kind = JsonScalar::UInt;
        s.bits = v;
        return s;
    }
    static JsonScalar integer(std::int64_t v, char*)
    {
        JsonScalar s;
        s.kind = v < 0 ? JsonScalar::Int : JsonScalar::UInt;
        s.bits = static_cast<std::uint64_t>(v);
        return s;
    }

    TraceBuilder& m_b;
    TextArena& m_arena;
    char m_ph = 'X';
    char m_pidBuf[24], m_tidBuf[24], m_tsBuf[24], m_durBuf[24], m_idBuf[24];
};

inline std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// "Input Dims" text: digits, commas, separators and spaces only (torch_npu up to 6.0 wrote the
// dims into the inputDtypes column and the types into inputShapes).
inline bool looksLikeDims(std::string_view s)
{
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= '0' && c <= '9') || c == ',' || c == ';' || c == '\r' || c == '\n' ||
               c == ' ' || c == '-';
    });
}

// std::lower_bound of a sorted vector starting from hint, the index the last lookup gave:
// keys that mostly increase cost a few steps (a gallop forward) instead of log n cache misses
// each. less(element, key). hint becomes the answer.
template <typename T, typename Key, typename Less>
std::size_t lowerBoundNear(const std::vector<T>& v, std::size_t& hint, const Key& key, Less less)
{
    std::size_t lo = 0, hi = v.size();
    if (hint < v.size()) {
        if (less(v[hint], key)) {
            lo = hint + 1;
            for (std::size_t step = 1; lo < hi; step *= 2) {
                const std::size_t p = std::min(lo + step - 1, hi - 1);
                if (!less(v[p], key)) {
                    hi = p;
                    break;
                }
                lo = p + 1;
            }
        } else {
            hi = hint;
        }
    }
    const auto it =
        std::lower_bound(v.begin() + std::ptrdiff_t(lo), v.begin() + std::ptrdiff_t(hi), key, less);
    hint = std::size_t(it - v.begin());
    return hint;
}

// An HCCL task's COMMUNICATION_TASK_INFO row (the ids as stored; -1: NULL).
struct CommTask {
    std::int64_t globalTaskId = 0, type = -1, plane = -1, group = -1, notify = -1, src = -1,
                 dst = -1, transport = -1, size = 0, dataType = -1, link = -1;
    bool operator<(const CommTask& o) const { return globalTaskId < o.globalTaskId; }
};

// What every pass shares, read first (small tables).
struct Shared {
    // STRING_IDS in dense banks: msprof's ids from 0, torch_npu's from 1 << 28 and 2 << 28.
    std::vector<std::vector<std::string>> banks = std::vector<std::vector<std::string>>(8);
    std::unordered_map<std::int64_t, std::string> otherStrings; // ids outside the banks
    std::map<std::int64_t, std::string> apiTypes, dataTypes, linkTypes, transportTypes;
    // id -> "frame;\r\nframe..." as a JSON string (quoted and escaped once, for every op)
    std::unordered_map<std::int64_t, std::string> callchains;
    // CONNECTION_IDS: row index -> its values; how many rows name each value.
    // Flat and sorted: millions of rows in a big run, looked up per row.
    std::vector<std::pair<std::int64_t, std::int64_t>> connections; // (row index, value)
    std::vector<std::int64_t> linkedValues;                         // every value, sorted
    // COMMUNICATION_TASK_INFO without an index on globalTaskId (torch_npu creates one): held
    // here sorted, instead of joined per piece (SQLite would index the whole table each time).
    std::vector<CommTask> commTasks;
    bool commInMemory = false;
    std::uint64_t hostPid = 0;
    std::int64_t device = 0; // the rank's device (RANK_DEVICE_MAP), for the HCCL process
    // HCCL groups in the order of their first op: the group thread's tid; planes follow it.
    std::map<std::int64_t, std::int64_t> groupTid;
    std::vector<std::pair<std::int64_t, std::vector<std::int64_t>>> groupPlanes; // in order
    // FFTS+ sub-tasks: (device, stream, task id) and start, sorted, to hide their parents.
    std::vector<std::pair<std::uint64_t, std::int64_t>> subtasks;
    std::optional<int> rank;

    void addString(std::int64_t id, std::string_view value)
    {
        const std::int64_t bank = id >> 28, at = id & ((1 << 28) - 1);
        if (id >= 0 && bank < std::int64_t(banks.size()) && at < (1 << 24)) {
            auto& b = banks[std::size_t(bank)];
            if (b.size() <= std::size_t(at)) b.resize(std::size_t(at) + 1);
            b[std::size_t(at)] = value;
        } else {
            otherStrings[id] = value;
        }
    }
    std::string_view str(std::optional<std::int64_t> id) const
    {
        if (!id) return {};
        const std::int64_t bank = *id >> 28, at = *id & ((1 << 28) - 1);
        if (*id >= 0 && bank < std::int64_t(banks.size()))
            return std::size_t(at) < banks[std::size_t(bank)].size()
                       ? std::string_view(banks[std::size_t(bank)][std::size_t(at)])
                       : std::string_view();
        auto it = otherStrings.find(*id);
        return it == otherStrings.end() ? std::string_view() : std::string_view(it->second);
    }
    // The values of a torch op's CONNECTION_IDS row index.
    // hint: where the caller's last lookup ended (its rows come in order, so the next key is
    // mostly a few places on: lowerBoundNear).
    std::span<const std::pair<std::int64_t, std::int64_t>> valuesOf(std::int64_t index,
                                                                    std::size_t& hint) const
    {
        const std::size_t at = lowerBoundNear(
            connections, hint, index, [](const auto& c, std::int64_t k) { return c.first < k; });
        auto lo = connections.begin() + std::ptrdiff_t(at), hi = lo;
        while (hi != connections.end() && hi->first == index)
            ++hi;
        return {lo, hi};
    }
    // How many rows name a value (0: a connection id no torch op links).
    std::size_t uses(std::int64_t value, std::size_t& hint) const
    {
        const std::size_t at = lowerBoundNear(linkedValues, hint, value,
                                              [](std::int64_t v, std::int64_t k) { return v < k; });
        std::size_t end = at;
        while (end < linkedValues.size() && linkedValues[end] == value)
            ++end;
        return end - at;
    }
    static std::string_view name(const std::map<std::int64_t, std::string>& m,
                                 std::optional<std::int64_t> id)
    {
        if (!id) return {};
        auto it = m.find(*id);
        return it == m.end() ? std::string_view() : std::string_view(it->second);
    }
};

// Tables come in their writer's order, mostly the order wanted: a check costs one pass where a
// sort of sorted millions costs n log n.
template <typename V> void sortIfNeeded(V& v)
{
    if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
}

// The Overlap Analysis lanes (msprof pipeline_overlap_viewer.py): computing = the union of
// the tasks with compute info, communication = the union of the HCCL ops; not overlapped =
// communication - computing; free = the gaps between busy sections. Per device.
struct Lanes {
    using Intervals = std::vector<std::pair<std::int64_t, std::int64_t>>;
    std::map<std::int64_t, Intervals> compute, comm;

    static Intervals merged(Intervals v)
    {
        sortIfNeeded(v);
        Intervals out;
        for (auto [a, b] : v) {
            if (b <= a) continue;
            if (!out.empty() && a <= out.back().second)
                out.back().second = std::max(out.back().second, b);
            else
                out.emplace_back(a, b);
        }
        return out;
    }
    void write(Emitter& e, std::uint64_t hostPid, std::int64_t mainDevice)
    {
        std::set<std::int64_t> devices;
        for (auto& [d, u] : compute)
            devices.insert(d);
        for (auto& [d, u] : comm)
            devices.insert(d);
        for (std::int64_t d : devices) {
            const std::uint64_t pid = formatPid(hostPid, kSortOverlap, d);
            if (d != mainDevice) {
                e.processMeta(pid, "Overlap Analysis", kSortOverlap, "NPU " + std::to_string(d));
                const char* names[] = {"Computing", "Communication",
                                       "Communication(Not Overlapped)", "Free"};
                for (int i = 0; i < 4; ++i)
                    e.threadMeta(pid, std::uint64_t(i), names[i], i);
            }
            const Intervals cu = merged(std::move(compute[d]));
            const Intervals mu = merged(std::move(comm[d]));
            for (const auto& [a, b] : cu)
                e.slice(pid, 0, a, b, "Computing", "", {});
            for (const auto& [a, b] : mu)
                e.slice(pid, 1, a, b, "Communication", "", {});
            // comm minus compute, both sorted and disjoint.
            std::size_t k = 0;
            for (auto [a, b] : mu) {
                while (k < cu.size() && cu[k].second <= a)
                    ++k;
                std::int64_t at = a;
                for (std::size_t j = k; j < cu.size() && cu[j].first < b; ++j) {
                    if (cu[j].first > at)
                        e.slice(pid, 2, at, cu[j].first, "Communication(Not Overlapped)", "", {});
                    at = std::max(at, cu[j].second);
                }
                if (at < b) e.slice(pid, 2, at, b, "Communication(Not Overlapped)", "", {});
            }
            Intervals all = cu;
            all.insert(all.end(), mu.begin(), mu.end());
            const Intervals busy = merged(std::move(all));
            for (std::size_t i = 1; i < busy.size(); ++i)
                e.slice(pid, 3, busy[i - 1].second, busy[i].first, "Free", "", {});
        }
    }
};

} // namespace rs::torchnpudb
