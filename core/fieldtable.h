#pragma once

// Field tables: one description of a struct's JSON fields -- key, which formats have it, how
// its value is written and read -- that drives both the streaming writer (core/jsonwriter.h)
// and the one-pass reader (core/jsonfieldreader.h) of every format that holds the struct, so
// a new field is one line (docs/architecture.md, "Field tables"). A table lists its fields in
// key order (checked at compile time: the writers print keys sorted); a key may appear twice
// when two formats write it differently (a report's "members" is a count, a summary's a list).
//
// The formats: Report and Job (an input's and the job's elements of ringscope.report/1, every
// field written, null when unknown), Summary (ringscope.ranksummary/1: a field at its default
// left out unless Always; read back through the same table, Slim marking what the slim reader
// of `merge` reads) and Output (the documents of `compare` and `stats`, written only).

#include "core/jsonfieldreader.h"
#include "core/jsonwriter.h"
#include "core/trace.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace rs {

struct TraceFacts;

namespace fields {

enum Flag : std::uint8_t {
    Report = 1,  // ringscope.report/1, an input's element
    Job = 2,     // ringscope.report/1, the job's elements (job findings, cross_rank)
    Summary = 4, // ringscope.ranksummary/1, written and read
    All = Report | Job | Summary,
    Always = 8,  // Summary: written even at its default
    Slim = 16,   // Summary: read by the slim reader too
    Output = 32, // a document without a reader (compare, scaling, stats): every field written
    Extra = 64,  // Output: a field written only when the writer asks for it (format | Extra)
    // Report and Job: left out at its default, as a summary leaves it out: a field only some
    // producers fill (the Flight Recorder's sequence numbers and call states), so the reports
    // of every other trace stay as they were.
    Sparse = 128,
};

// What a write knows beside the struct.
struct WriteContext {
    Flag format = Report;
    // Report: the input's index; Summary matrix: its link set; compare: how many ops.
    std::size_t index = 0;
    const TraceFacts* facts = nullptr; // Report: the events of the input's findings
    const std::vector<std::string>* evidence = nullptr; // Job: a finding's events, written
};

// What a read gives beside the struct.
struct ReadContext {
    static constexpr std::size_t kNoIndex = ~std::size_t(0);
    std::size_t index = kNoIndex; // Summary matrix: the link set named
};

// A tag of a key (its length and three of its bytes) that the reader compares before the key.
constexpr std::uint32_t keyTag(std::string_view k)
{
    if (k.empty()) return 0;
    return static_cast<std::uint32_t>(k.size() & 0xff) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(k[0])) << 8 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(k[k.size() / 2])) << 16 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(k.back())) << 24;
}

struct FieldKey {
    std::string_view name;
    std::uint32_t tag = 0;
    constexpr FieldKey(const char* s) : FieldKey(std::string_view(s)) {}
    constexpr FieldKey(std::string_view s) : name(s), tag(keyTag(s)) {}
};

template <class S> struct Field {
    FieldKey key;
    std::uint8_t flags = All;
    bool (*isDefault)(const S&) = nullptr; // Summary leaves it out then (unless Always)
    void (*write)(JsonWriter&, const S&, const WriteContext&) = nullptr;
    // nullptr: not read (a field of the report only).
    void (*read)(JsonFieldReader&, S&, const JsonPath&, std::string_view, ReadContext&) = nullptr;
};

template <class S, std::size_t N> using Table = std::array<Field<S>, N>;

// Keys that need no escape (plainKey), at most 64 bytes.
template <class S, std::size_t N> constexpr bool plainKeys(const Table<S, N>& t)
{
    for (const Field<S>& f : t) {
        if (f.key.name.empty() || f.key.name.size() > 64) return false;
        for (const char c : f.key.name)
            if (c < 0x20 || c == '"' || c == '\\' || static_cast<unsigned char>(c) >= 0x80)
                return false;
    }
    return true;
}

// Keys sorted as the writers print them, and plain (a stats row keeps its own order: it is
// checked with plainKeys only).
template <class S, std::size_t N> constexpr bool sortedByKey(const Table<S, N>& t)
{
    for (std::size_t i = 1; i < N; ++i)
        if (t[i].key.name < t[i - 1].key.name) return false;
    return plainKeys(t);
}

// ---- Writing and reading an object through its table.

template <class S, std::size_t N>
void writeObject(JsonWriter& w, const S& s, const Table<S, N>& table, const WriteContext& ctx)
{
    w.beginObject();
    for (const Field<S>& f : table) {
        if (!(f.flags & ctx.format)) continue;
        if ((ctx.format == Summary ? !(f.flags & Always) : (f.flags & Sparse) != 0) &&
            f.isDefault && f.isDefault(s))
            continue;
        w.plainKey(f.key.name);
        f.write(w, s, ctx);
    }
    w.endObject();
}

// The summary's fields of a table by the tag of their key: open addressing in 128 slots (a
// field's index + 1, 0 empty), built when the table compiles; a lookup is a probe or two.
constexpr std::size_t keySlot(std::uint32_t tag)
{
    return static_cast<std::uint32_t>(tag * 0x9E3779B1u) >> 25;
}
template <class S, std::size_t N>
constexpr std::array<std::uint8_t, 128> keyIndex(const Table<S, N>& t)
{
    static_assert(N < 100, "a table of at most 100 fields");
    std::array<std::uint8_t, 128> slots{};
    for (std::size_t i = 0; i < N; ++i) {
        // (Not t[i].read: GCC with -fsanitize=undefined refuses a function pointer's
        // comparison with null in a constant expression; readMembers checks it.)
        if (!(t[i].flags & Summary)) continue;
        std::size_t h = keySlot(t[i].key.tag);
        while (slots[h])
            h = (h + 1) & 127;
        slots[h] = static_cast<std::uint8_t>(i + 1);
    }
    return slots;
}
template <const auto& T> inline constexpr auto kKeyIndex = keyIndex(T);

// The summary's field of this key in table T, or nullptr.
template <const auto& T> const auto* summaryField(std::string_view key)
{
    const std::uint32_t tag = keyTag(key);
    for (std::size_t h = keySlot(tag); kKeyIndex<T>[h]; h = (h + 1) & 127) {
        const auto& f = T[kKeyIndex<T>[h] - 1];
        if (f.key.tag == tag && f.key.name == key) return &f;
    }
    return static_cast<decltype(&T[0])>(nullptr);
}

// The members of the object the reader is at (it checked that it is one) into s, through table
// T; at: the object's path. Unknown keys are skipped.
template <const auto& T, class S>
void readMembers(JsonFieldReader& rd, S& s, const JsonPath& at, ReadContext& ctx)
{
    rd.members([&](std::string_view k) {
        const auto* f = summaryField<T>(k);
        if (!f || !f->read || (rd.slim() && !(f->flags & Slim))) return rd.skip();
        f->read(rd, s, at, k, ctx);
    });
}

// The member `key` of the object at `at`, an object read into s in place; another type is
// counted (at key) and skipped.
template <const auto& T, class S>
void readObject(JsonFieldReader& rd, S& s, const JsonPath& at, std::string_view key,
                ReadContext& ctx)
{
    const JsonPath path{&at, key};
    if (rd.peek() != '{') {
        rd.skip();
        return rd.wrong(path);
    }
    readMembers<T>(rd, s, path, ctx);
}

// A list of objects at (at, key) into v, each read through table T; an element that is no
// object is counted (at key[]) and skipped.
template <const auto& T, class E>
void readList(JsonFieldReader& rd, std::vector<E>& v, const JsonPath& at, std::string_view key,
              ReadContext& ctx)
{
    v.clear();
    const JsonPath element{&at, key, true};
    rd.array(at, key, [&](std::size_t) {
        if (rd.peek() != '{') {
            rd.skip();
            return rd.wrong(element);
        }
        E x{};
        readMembers<T>(rd, x, element, ctx);
        v.push_back(std::move(x));
    });
}

// ---- Values by type: how a member of type T is written, read, and when it is its default.

template <class T> struct Value;

template <class T>
requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) struct Value<T> {
    static bool isDefault(const T& v) { return v == 0; }
    static void write(JsonWriter& w, const T& v) { w.integer(v); }
    static void read(JsonFieldReader& rd, T& v, const JsonPath& at, std::string_view k)
    {
        rd.integer(v, at, k);
    }
};
template <> struct Value<bool> {
    static bool isDefault(bool v) { return !v; }
    static void write(JsonWriter& w, bool v) { w.boolean(v); }
    static void read(JsonFieldReader& rd, bool& v, const JsonPath& at, std::string_view k)
    {
        rd.flag(v, at, k);
    }
};
template <> struct Value<double> {
    static bool isDefault(double v) { return !std::isfinite(v); } // NaN: unknown
    static void write(JsonWriter& w, double v) { w.real(v); }
    static void read(JsonFieldReader& rd, double& v, const JsonPath& at, std::string_view k)
    {
        rd.real(v, at, k);
    }
};
template <> struct Value<std::string> {
    static bool isDefault(const std::string& v) { return v.empty(); }
    static void write(JsonWriter& w, const std::string& v) { w.string(v); }
    static void read(JsonFieldReader& rd, std::string& v, const JsonPath& at, std::string_view k)
    {
        rd.text(v, at, k);
    }
};
template <class T>
requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) struct Value<std::optional<T>> {
    static bool isDefault(const std::optional<T>& v) { return !v; }
    static void write(JsonWriter& w, const std::optional<T>& v)
    {
        if (v)
            w.integer(*v);
        else
            w.null();
    }
    static void read(JsonFieldReader& rd, std::optional<T>& v, const JsonPath& at,
                     std::string_view k)
    {
        rd.optInteger(v, at, k);
    }
};
template <> struct Value<std::optional<bool>> {
    static bool isDefault(const std::optional<bool>& v) { return !v; }
    static void write(JsonWriter& w, const std::optional<bool>& v)
    {
        if (v)
            w.boolean(*v);
        else
            w.null();
    }
    static void read(JsonFieldReader& rd, std::optional<bool>& v, const JsonPath& at,
                     std::string_view k)
    {
        if (rd.isNull()) return rd.skip();
        bool x = false;
        const std::uint64_t before = rd.bad;
        rd.flag(x, at, k);
        if (rd.bad == before) v = x;
    }
};
template <> struct Value<std::optional<std::string>> {
    static bool isDefault(const std::optional<std::string>& v) { return !v; }
    static void write(JsonWriter& w, const std::optional<std::string>& v)
    {
        if (v)
            w.string(*v);
        else
            w.null();
    }
    static void read(JsonFieldReader& rd, std::optional<std::string>& v, const JsonPath& at,
                     std::string_view k)
    {
        rd.optText(v, at, k);
    }
};
template <> struct Value<std::vector<std::string>> {
    static bool isDefault(const std::vector<std::string>& v) { return v.empty(); }
    static void write(JsonWriter& w, const std::vector<std::string>& v)
    {
        w.array(v.size(), [&](std::size_t i) { w.string(v[i]); });
    }
    static void read(JsonFieldReader& rd, std::vector<std::string>& v, const JsonPath& at,
                     std::string_view k)
    {
        v.clear();
        rd.scalars(at, k, [&](const JsonScalar& s) {
            if (s.kind != JsonScalar::String) return false;
            v.emplace_back(s.text.view());
            return true;
        });
    }
};
template <> struct Value<std::vector<int>> {
    static bool isDefault(const std::vector<int>& v) { return v.empty(); }
    static void write(JsonWriter& w, const std::vector<int>& v) { w.integers(v); }
    static void read(JsonFieldReader& rd, std::vector<int>& v, const JsonPath& at,
                     std::string_view k)
    {
        v.clear();
        rd.scalars(at, k, [&](const JsonScalar& s) {
            // Any integer in an int's range.
            const std::int64_t x = JsonFieldReader::asInt64(s);
            if (!JsonFieldReader::isInt(s) || x < std::numeric_limits<int>::min() ||
                x > std::numeric_limits<int>::max())
                return false;
            v.push_back(static_cast<int>(x));
            return true;
        });
    }
};

// Tensor shapes: a list of lists of integers ([[2048, 5120]]).
template <> struct Value<std::vector<std::vector<std::int64_t>>> {
    using Type = std::vector<std::vector<std::int64_t>>;
    static bool isDefault(const Type& v) { return v.empty(); }
    static void write(JsonWriter& w, const Type& v)
    {
        w.array(v.size(), [&](std::size_t i) { w.integers(v[i]); });
    }
    static void read(JsonFieldReader& rd, Type& v, const JsonPath& at, std::string_view k)
    {
        v.clear();
        const JsonPath element{&at, k, true};
        rd.array(at, k, [&](std::size_t) {
            const auto shape = rd.tuple();
            if (!shape || !std::all_of(shape->begin(), shape->end(), JsonFieldReader::isInt))
                return rd.wrong(element);
            std::vector<std::int64_t> dims;
            for (const JsonScalar& d : *shape)
                dims.push_back(JsonFieldReader::asInt64(d));
            v.push_back(std::move(dims));
        });
    }
};

template <class> struct MemberOf;
template <class S, class T> struct MemberOf<T S::*> {
    using Struct = S;
    using Type = T;
};

// ---- Field makers.

// A member written and read as its type says.
template <auto M> constexpr auto member(std::string_view key, std::uint8_t flags = All)
{
    using S = typename MemberOf<decltype(M)>::Struct;
    using T = typename MemberOf<decltype(M)>::Type;
    return Field<S>{
        key, flags, [](const S& s) { return Value<T>::isDefault(s.*M); },
        [](JsonWriter& w, const S& s, const WriteContext&) { Value<T>::write(w, s.*M); },
        [](JsonFieldReader& rd, S& s, const JsonPath& at, std::string_view k, ReadContext&) {
            Value<T>::read(rd, s.*M, at, k);
        }};
}

// An event id: kNone (no event) is its default.
template <auto M> constexpr auto eventId(std::string_view key, std::uint8_t flags)
{
    using S = typename MemberOf<decltype(M)>::Struct;
    return Field<S>{key, flags, [](const S& s) { return s.*M == kNone; },
                    [](JsonWriter& w, const S& s, const WriteContext&) { w.integer(s.*M); },
                    [](JsonFieldReader& rd, S& s, const JsonPath& at, std::string_view k,
                       ReadContext&) { rd.integer(s.*M, at, k); }};
}

// An optional struct written through its own table: null (Report) or left out (Summary) when
// absent; read when an object, null keeping it absent.
template <auto M, const auto& Nested>
constexpr auto object(std::string_view key, std::uint8_t flags = All)
{
    using S = typename MemberOf<decltype(M)>::Struct;
    return Field<S>{
        key, flags, [](const S& s) { return !(s.*M); },
        [](JsonWriter& w, const S& s, const WriteContext& ctx) {
            if (s.*M)
                writeObject(w, *(s.*M), Nested, ctx);
            else
                w.null();
        },
        [](JsonFieldReader& rd, S& s, const JsonPath& at, std::string_view k, ReadContext& ctx) {
            if (rd.isNull()) return rd.skip();
            const JsonPath path{&at, k};
            if (rd.peek() != '{') {
                rd.skip();
                return rd.wrong(path);
            }
            typename std::remove_cvref_t<decltype(s.*M)>::value_type x{};
            readMembers<Nested>(rd, x, path, ctx);
            s.*M = std::move(x);
        }};
}

// A list of structs, each written through its own table; an element that is no object is
// counted (at key[]) and skipped.
template <auto M, const auto& Nested>
constexpr auto objects(std::string_view key, std::uint8_t flags = All)
{
    using S = typename MemberOf<decltype(M)>::Struct;
    return Field<S>{key, flags, [](const S& s) { return (s.*M).empty(); },
                    [](JsonWriter& w, const S& s, const WriteContext& ctx) {
                        const auto& v = s.*M;
                        w.array(v.size(),
                                [&](std::size_t i) { writeObject(w, v[i], Nested, ctx); });
                    },
                    [](JsonFieldReader& rd, S& s, const JsonPath& at, std::string_view k,
                       ReadContext& ctx) { readList<Nested>(rd, s.*M, at, k, ctx); }};
}

} // namespace fields
} // namespace rs
