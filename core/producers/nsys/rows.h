#pragma once

// An Nsight Systems export's rows as trace events, for reader.cpp: the text arena a partial
// builder's args point into, args written as JSON text, the emitter that feeds a TraceBuilder
// (times in the export's integer ns), and the table of StringIds every piece looks names up in.
// (torch_npu's database reader has its own of the first three in torchnpudb/dbevents.h: a
// producer includes no other's headers.)

#include "core/tracebuilder.h"
#include "core/traceevent.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rs::nsys {

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

// A JSON object written field by field: keys are the reader's constants, values escaped.
class Args {
public:
    void clear() { m_s.assign(1, '{'); }
    Args& num(std::string_view key, std::int64_t v)
    {
        keyOf(key);
        char buf[24];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_s.append(buf, r.ptr);
        return *this;
    }
    Args& unum(std::string_view key, std::uint64_t v)
    {
        keyOf(key);
        char buf[24];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_s.append(buf, r.ptr);
        return *this;
    }
    Args& real(std::string_view key, double v)
    {
        keyOf(key);
        if (!std::isfinite(v)) {
            m_s.append("null");
            return *this;
        }
        char buf[32];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_s.append(buf, r.ptr);
        return *this;
    }
    Args& str(std::string_view key, std::string_view v)
    {
        keyOf(key);
        quote(v);
        return *this;
    }
    // [a, b, c] of integers (a kernel's grid and block).
    Args& triple(std::string_view key, std::int64_t a, std::int64_t b, std::int64_t c)
    {
        keyOf(key);
        m_s.push_back('[');
        const std::int64_t v[3] = {a, b, c};
        for (int i = 0; i < 3; ++i) {
            if (i) m_s.push_back(',');
            char buf[24];
            const auto r = std::to_chars(buf, buf + sizeof buf, v[i]);
            m_s.append(buf, r.ptr);
        }
        m_s.push_back(']');
        return *this;
    }
    // Keys of the file's own (a payload's entry names) need quoting like values.
    Args& strKey(std::string_view key, std::string_view v)
    {
        keyText(key);
        quote(v);
        return *this;
    }
    Args& numKey(std::string_view key, std::int64_t v)
    {
        keyText(key);
        char buf[24];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_s.append(buf, r.ptr);
        return *this;
    }
    Args& unumKey(std::string_view key, std::uint64_t v)
    {
        keyText(key);
        char buf[24];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_s.append(buf, r.ptr);
        return *this;
    }
    Args& realKey(std::string_view key, double v)
    {
        keyText(key);
        if (!std::isfinite(v)) {
            m_s.append("null");
            return *this;
        }
        char buf[32];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_s.append(buf, r.ptr);
        return *this;
    }
    bool empty() const { return m_s.size() <= 1; }
    // The object, or an empty view when no field was written (no args).
    std::string_view done()
    {
        if (m_s.size() <= 1) return {};
        m_s.push_back('}');
        return m_s;
    }

    static std::string quoted(std::string_view v)
    {
        Args a;
        a.m_s.clear();
        a.quote(v);
        return std::move(a.m_s);
    }

private:
    void keyOf(std::string_view key)
    {
        if (m_s.size() > 1) m_s.push_back(',');
        m_s.push_back('"');
        m_s.append(key);
        m_s.append("\":", 2);
    }
    void keyText(std::string_view key)
    {
        if (m_s.size() > 1) m_s.push_back(',');
        quote(key);
        m_s.push_back(':');
    }
    void quote(std::string_view v)
    {
        m_s.push_back('"');
        for (char c : v) {
            const auto u = static_cast<unsigned char>(c);
            if (c == '"' || c == '\\') {
                m_s.push_back('\\');
                m_s.push_back(c);
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

// Trace events for a builder, times in integer ns (the export's own).
class Emitter {
public:
    Emitter(TraceBuilder& b, TextArena& arena) : m_b(b), m_arena(arena) {}

    // A complete slice; sf: its innermost stack frame's id (stackFrames), empty for none.
    void slice(std::uint64_t pid, std::uint64_t tid, std::int64_t start, std::int64_t end,
               std::string_view name, std::string_view cat, std::string_view args,
               std::string_view sf = {})
    {
        TraceEvent ev = base('X', pid);
        ev.tid = number(tid);
        ev.ts = signedNumber(start);
        // A duration past int64 (times at its ends) is a bad field: the builder counts it.
        std::int64_t dur = 0;
        if (__builtin_sub_overflow(end, start, &dur)) dur = -1;
        ev.dur = signedNumber(dur);
        ev.name = view(name);
        ev.cat = view(cat);
        ev.args = m_arena.add(args);
        if (!sf.empty()) {
            ev.sf.kind = JsonScalar::String;
            ev.sf.text = m_arena.add(sf);
        }
        m_b.addEvent(ev);
    }
    // A slice whose end the capture did not see (an NVTX range still open at its end): the
    // builder closes it at the trace's end and counts it.
    void begin(std::uint64_t pid, std::uint64_t tid, std::int64_t start, std::string_view name,
               std::string_view cat, std::string_view args)
    {
        TraceEvent ev = base('B', pid);
        ev.tid = number(tid);
        ev.ts = signedNumber(start);
        ev.name = view(name);
        ev.cat = view(cat);
        ev.args = m_arena.add(args);
        m_b.addEvent(ev);
    }
    // An instant on a thread (an NVTX mark).
    void instant(std::uint64_t pid, std::uint64_t tid, std::int64_t ts, std::string_view name,
                 std::string_view cat, std::string_view args)
    {
        TraceEvent ev = base('i', pid);
        ev.tid = number(tid);
        ev.ts = signedNumber(ts);
        ev.name = view(name);
        ev.cat = view(cat);
        ev.args = m_arena.add(args);
        m_b.addEvent(ev);
    }
    // A flow step: s binds to the slice enclosing ts, f (bp "e") likewise.
    void flow(char ph, std::uint64_t pid, std::uint64_t tid, std::int64_t ts, std::string_view cat,
              std::uint64_t id)
    {
        TraceEvent ev = base(ph, pid);
        ev.tid = number(tid);
        ev.ts = signedNumber(ts);
        ev.cat = view(cat);
        ev.name = view(cat);
        ev.id = number(id);
        if (ph == 'f') ev.bp = view("e");
        m_b.addEvent(ev);
    }
    void processMeta(std::uint64_t pid, std::string_view name, int sort, std::string_view label)
    {
        Args a;
        meta(pid, std::nullopt, "process_name", a.str("name", name).done());
        a.clear();
        meta(pid, std::nullopt, "process_sort_index", a.num("sort_index", sort).done());
        a.clear();
        if (!label.empty())
            meta(pid, std::nullopt, "process_labels", a.str("labels", label).done());
    }
    void threadMeta(std::uint64_t pid, std::uint64_t tid, std::string_view name, std::int64_t sort)
    {
        Args a;
        if (!name.empty()) meta(pid, tid, "thread_name", a.str("name", name).done());
        a.clear();
        meta(pid, tid, "thread_sort_index", a.num("sort_index", sort).done());
    }
    // A row that gave no event (a time that is no integer, an end before its start).
    void skipped(std::uint32_t bad) { m_b.addBadFields(bad); }

private:
    void meta(std::uint64_t pid, std::optional<std::uint64_t> tid, std::string_view what,
              std::string_view args)
    {
        TraceEvent ev = base('M', pid);
        if (tid) ev.tid = number(*tid);
        ev.name = view(what);
        ev.args = m_arena.add(args);
        m_b.addEvent(ev);
    }
    TraceEvent base(char ph, std::uint64_t pid)
    {
        TraceEvent ev;
        m_ph = ph;
        ev.ph = {&m_ph, 1};
        ev.pid = number(pid);
        ev.nsTimes = true;
        return ev;
    }
    static TextRef view(std::string_view s)
    {
        return {s.data(), static_cast<std::uint32_t>(s.size())};
    }
    static JsonScalar number(std::uint64_t v)
    {
        JsonScalar s;
        s.kind = JsonScalar::UInt;
        s.bits = v;
        return s;
    }
    static JsonScalar signedNumber(std::int64_t v)
    {
        JsonScalar s;
        s.kind = v < 0 ? JsonScalar::Int : JsonScalar::UInt;
        s.bits = static_cast<std::uint64_t>(v);
        return s;
    }

    TraceBuilder& m_b;
    TextArena& m_arena;
    char m_ph = 'X';
};

// StringIds: the export's names by id. Dense ids (the usual export) index an array; a sparse
// table (a cut-down copy keeps few of millions of ids) is searched sorted.
class StringTable {
public:
    void reserve(std::size_t n) { m_pairs.reserve(n); }
    void add(std::int64_t id, std::string_view value)
    {
        m_pairs.emplace_back(id, m_texts.size());
        m_texts.emplace_back(value);
    }
    // After the last add: sorted, and dense when the ids allow.
    void finish()
    {
        if (!std::is_sorted(m_pairs.begin(), m_pairs.end()))
            std::stable_sort(m_pairs.begin(), m_pairs.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
        if (m_pairs.empty()) return;
        const std::int64_t lo = m_pairs.front().first, hi = m_pairs.back().first;
        if (lo >= 0 && std::uint64_t(hi) < 2 * m_pairs.size() + 4096) {
            m_dense.assign(std::size_t(hi) + 1, kAbsent);
            for (const auto& [id, at] : m_pairs)
                m_dense[std::size_t(id)] = std::uint32_t(at);
        }
    }
    // The text of an id; nullopt when the table has no such row.
    std::optional<std::string_view> find(std::int64_t id) const
    {
        if (!m_dense.empty()) {
            if (id < 0 || std::uint64_t(id) >= m_dense.size() ||
                m_dense[std::size_t(id)] == kAbsent)
                return std::nullopt;
            return std::string_view(m_texts[m_dense[std::size_t(id)]]);
        }
        auto it = std::lower_bound(m_pairs.begin(), m_pairs.end(), id,
                                   [](const auto& p, std::int64_t k) { return p.first < k; });
        if (it == m_pairs.end() || it->first != id) return std::nullopt;
        return std::string_view(m_texts[it->second]);
    }
    std::size_t size() const { return m_texts.size(); }

private:
    static constexpr std::uint32_t kAbsent = 0xffffffffu;
    std::vector<std::pair<std::int64_t, std::size_t>> m_pairs;
    std::deque<std::string> m_texts; // addresses stay put
    std::vector<std::uint32_t> m_dense;
};

} // namespace rs::nsys
