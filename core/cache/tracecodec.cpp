#include "core/cache/tracecodec.h"

#include "core/producers/registry.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <vector>

namespace rs {

namespace {

constexpr std::uint64_t kP1 = 0x9E3779B185EBCA87ull, kP2 = 0xC2B2AE3D27D4EB4Full,
                        kP3 = 0x165667B19E3779F9ull, kP4 = 0x85EBCA77C2B2AE63ull,
                        kP5 = 0x27D4EB2F165667C5ull;

inline std::uint64_t load64(const unsigned char* p)
{
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
inline std::uint32_t load32(const unsigned char* p)
{
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
inline std::uint64_t round64(std::uint64_t acc, std::uint64_t input)
{
    acc += input * kP2;
    acc = std::rotl(acc, 31);
    return acc * kP1;
}
inline std::uint64_t merge64(std::uint64_t acc, std::uint64_t val)
{
    acc ^= round64(0, val);
    return acc * kP1 + kP4;
}

} // namespace

std::uint64_t hash64(const void* data, std::size_t size, std::uint64_t seed)
{
    const auto* p = static_cast<const unsigned char*>(data);
    const unsigned char* const end = p + size;
    std::uint64_t h;
    if (size >= 32) {
        std::uint64_t v1 = seed + kP1 + kP2, v2 = seed + kP2, v3 = seed, v4 = seed - kP1;
        const unsigned char* const limit = end - 32;
        do {
            v1 = round64(v1, load64(p));
            v2 = round64(v2, load64(p + 8));
            v3 = round64(v3, load64(p + 16));
            v4 = round64(v4, load64(p + 24));
            p += 32;
        } while (p <= limit);
        h = std::rotl(v1, 1) + std::rotl(v2, 7) + std::rotl(v3, 12) + std::rotl(v4, 18);
        h = merge64(h, v1);
        h = merge64(h, v2);
        h = merge64(h, v3);
        h = merge64(h, v4);
    } else {
        h = seed + kP5;
    }
    h += size;
    for (; p + 8 <= end; p += 8) {
        h ^= round64(0, load64(p));
        h = std::rotl(h, 27) * kP1 + kP4;
    }
    if (p + 4 <= end) {
        h ^= std::uint64_t(load32(p)) * kP1;
        h = std::rotl(h, 23) * kP2 + kP3;
        p += 4;
    }
    for (; p < end; ++p) {
        h ^= *p * kP5;
        h = std::rotl(h, 11) * kP1;
    }
    h ^= h >> 33;
    h *= kP2;
    h ^= h >> 29;
    h *= kP3;
    h ^= h >> 32;
    return h;
}

namespace {

constexpr char kMagic[8] = {'R', 'S', 'M', 'O', 'D', 'E', 'L', '\0'};
constexpr std::size_t kAlign = 64;

enum SectionId : std::uint32_t {
    kKey,
    kMeta,
    kStrings,
    kSlices,
    kArgsOffsets,
    kArgsText,
    kFlows,
    kFlowOut,
    kFlowIn,
    kEventFrames,
    kTrackMaxDur,
    kStackFrames,
    kKinds,
    kSteps,
    kSectionCount
};

struct FileHeader {
    char magic[8];
    std::uint32_t version;
    std::uint32_t sectionCount;
    std::uint64_t archTag;
    std::uint64_t fileSize;
    std::uint64_t tableChecksum; // of the header (this field 0) and the section table
    std::uint64_t reserved[3];
};
static_assert(sizeof(FileHeader) == 64);

struct SectionEntry {
    std::uint32_t id;
    std::uint32_t reserved;
    std::uint64_t offset;
    std::uint64_t size;
    std::uint64_t checksum;
};
static_assert(sizeof(SectionEntry) == 32);

std::size_t alignUp(std::size_t v)
{
    return (v + kAlign - 1) / kAlign * kAlign;
}

// The small parts of the model, field by field (no padding, no pointers).
class Writer {
public:
    std::string out;
    template <typename T> void pod(const T& v)
    {
        out.append(reinterpret_cast<const char*>(&v), sizeof(T));
    }
    void u8(std::uint8_t v) { pod(v); }
    void u32(std::uint32_t v) { pod(v); }
    void u64(std::uint64_t v) { pod(v); }
    void i64(std::int64_t v) { pod(v); }
    void str(std::string_view s)
    {
        u64(s.size());
        out.append(s);
    }
    template <typename T> void array(const std::vector<T>& v)
    {
        u64(v.size());
        if (!v.empty()) out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
    }
};

// Bounds-checked: any read past the end sets failed and returns zeros.
class Reader {
public:
    Reader(const char* p, std::size_t n) : m_p(p), m_end(p + n) {}
    bool failed = false;
    bool atEnd() const { return m_p == m_end; }
    template <typename T> T pod()
    {
        T v{};
        if (static_cast<std::size_t>(m_end - m_p) < sizeof(T)) {
            failed = true;
            return v;
        }
        std::memcpy(&v, m_p, sizeof(T));
        m_p += sizeof(T);
        return v;
    }
    std::uint8_t u8() { return pod<std::uint8_t>(); }
    std::uint32_t u32() { return pod<std::uint32_t>(); }
    std::uint64_t u64() { return pod<std::uint64_t>(); }
    std::int64_t i64() { return pod<std::int64_t>(); }
    bool boolean() { return u8() != 0; }
    std::string_view view(std::uint64_t n)
    {
        if (n > static_cast<std::uint64_t>(m_end - m_p)) {
            failed = true;
            return {};
        }
        std::string_view s(m_p, n);
        m_p += n;
        return s;
    }
    std::string str() { return std::string(view(u64())); }
    template <typename T> void array(std::vector<T>& v)
    {
        const std::uint64_t n = u64();
        if (n > static_cast<std::uint64_t>(m_end - m_p) / sizeof(T)) {
            failed = true;
            return;
        }
        v.resize(n);
        if (n) std::memcpy(v.data(), m_p, n * sizeof(T));
        m_p += n * sizeof(T);
    }

private:
    const char* m_p;
    const char* m_end;
};

std::string encodeMeta(const Trace& t, bool pathIsSource, const std::vector<Track>& tracks,
                       const std::vector<Process>& processes,
                       const std::vector<CounterSeries>& counters, const LoadStats& st,
                       const std::vector<std::string>& warnings, const nlohmann::json& metadata,
                       const std::string& path, std::optional<int> rank, TimeNs start, TimeNs end)
{
    Writer w;
    w.str(t.producer().id());
    w.u8(pathIsSource);
    w.str(path);
    w.u8(rank.has_value());
    w.i64(rank.value_or(0));
    w.i64(start);
    w.i64(end);
    w.u64(st.events);
    w.u64(st.phases.size());
    for (const auto& [ph, n] : st.phases) {
        w.str(ph);
        w.u64(n);
    }
    w.u64(st.unknownPhase);
    w.u64(st.badFields);
    w.u64(st.unmatchedEnd);
    w.u64(st.unterminated);
    w.u64(st.danglingFlows);
    w.u64(st.bytesRead);
    w.u8(st.truncated);
    w.u64(warnings.size());
    for (const std::string& s : warnings)
        w.str(s);
    // As JSON text: nlohmann's text parser is iterative (a forged file cannot nest it into a
    // stack overflow, as its recursive CBOR reader could). Throws on invalid UTF-8 (no file).
    w.str(metadata.dump());
    const RunFacts& f = t.runFacts();
    w.u8(f.clockBaseNs.has_value());
    w.i64(f.clockBaseNs.value_or(0));
    w.u8(f.worldSize.has_value());
    w.i64(f.worldSize.value_or(0));
    w.u64(f.devices.size());
    for (const std::string& d : f.devices)
        w.str(d);
    w.u64(tracks.size());
    for (const Track& tr : tracks) {
        w.u32(tr.process);
        w.u8(static_cast<std::uint8_t>(tr.kind));
        w.str(tr.tid);
        w.u32(tr.name);
        w.i64(tr.sortIndex);
        w.u8(tr.hasSortIndex);
        w.u32(tr.begin);
        w.u32(tr.end);
        w.u32(tr.maxDepth);
        w.u32(tr.counter);
        w.u64(tr.events);
        w.u8(static_cast<std::uint8_t>(tr.role));
    }
    w.u64(processes.size());
    for (const Process& p : processes) {
        w.str(p.pid);
        w.u8(p.pidIsNumber);
        w.u32(p.name);
        w.u64(p.labels.size());
        for (const std::string& l : p.labels)
            w.str(l);
        w.i64(p.sortIndex);
        w.u8(p.hasSortIndex);
        w.array(p.tracks);
        w.u64(p.events);
    }
    w.u64(counters.size());
    for (const CounterSeries& c : counters) {
        w.u32(c.process);
        w.u32(c.name);
        w.u32(c.key);
        w.array(c.ts);
        w.array(c.values);
    }
    return std::move(w.out);
}

std::string encodeStrings(const StringPool& pool)
{
    Writer w;
    w.u64(pool.size());
    for (StrId i = 0; i < pool.size(); ++i)
        w.str(pool.str(i));
    return std::move(w.out);
}

struct Part {
    SectionId id;
    const char* data;
    std::size_t size;
};

template <typename T> Part part(SectionId id, std::span<const T> v)
{
    return {id, reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T)};
}
template <typename T> Part part(SectionId id, const std::vector<T>& v)
{
    return part(id, std::span<const T>(v));
}

} // namespace

std::uint64_t TraceCodec::archTag()
{
    const std::uint64_t little = std::endian::native == std::endian::little ? 1 : 2;
    return little | std::uint64_t(sizeof(void*)) << 4 | std::uint64_t(sizeof(Slice)) << 12 |
           std::uint64_t(sizeof(Flow)) << 20 | std::uint64_t(sizeof(StackFrame)) << 28 |
           std::uint64_t(offsetof(Slice, parent)) << 36 |
           std::uint64_t(offsetof(Slice, depth)) << 44 |
           std::uint64_t(offsetof(Flow, idText)) << 52;
}

bool TraceCodec::write(const Trace& t, std::string_view key, std::string_view sourceFile, Sink sink,
                       void* context)
{
    std::string meta;
    try {
        meta = encodeMeta(t, t.m_path == sourceFile, t.m_tracks, t.m_processes, t.m_counters,
                          t.m_stats, t.m_warnings, t.m_metadata, t.m_path, t.m_rank, t.m_start,
                          t.m_end);
    } catch (const nlohmann::json::exception&) {
        return false; // metadata that does not print as JSON: this trace is not cached
    }
    const std::string strings = encodeStrings(t.m_strings);
    // Flow has padding: copied field by field over zeros, so no stray heap bytes reach the file.
    std::vector<Flow> flows(t.m_flows.size());
    if (!flows.empty())
        std::memset(static_cast<void*>(flows.data()), 0, flows.size() * sizeof(Flow));
    for (std::size_t i = 0; i < flows.size(); ++i) {
        const Flow& f = t.m_flows[i];
        Flow& o = flows[i];
        o.from = f.from;
        o.to = f.to;
        o.cat = f.cat;
        o.name = f.name;
        o.id = f.id;
        o.idText = f.idText;
        o.idIsText = f.idIsText;
    }
    const std::string_view text = t.argsTextView();
    const Part parts[kSectionCount] = {
        {kKey, key.data(), key.size()},
        {kMeta, meta.data(), meta.size()},
        {kStrings, strings.data(), strings.size()},
        part(kSlices, t.slices()),
        part(kArgsOffsets, t.argsOffsetsView()),
        {kArgsText, text.data(), text.size()},
        part(kFlows, flows),
        part(kFlowOut, t.m_flowOut),
        part(kFlowIn, t.m_flowIn),
        part(kEventFrames, t.m_eventFrames),
        part(kTrackMaxDur, t.m_trackMaxDur),
        part(kStackFrames, t.m_stackFrames),
        part(kKinds, t.kinds()),
        part(kSteps, t.m_steps),
    };
    FileHeader h{};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.version = kVersion;
    h.sectionCount = kSectionCount;
    h.archTag = archTag();
    SectionEntry table[kSectionCount]{};
    std::size_t offset = alignUp(sizeof h + sizeof table);
    for (std::size_t i = 0; i < kSectionCount; ++i) {
        table[i].id = parts[i].id;
        table[i].offset = offset;
        table[i].size = parts[i].size;
        table[i].checksum = hash64(parts[i].data, parts[i].size, parts[i].id);
        offset = alignUp(offset + parts[i].size);
    }
    h.fileSize = offset;
    std::string head(reinterpret_cast<const char*>(&h), sizeof h);
    head.append(reinterpret_cast<const char*>(table), sizeof table);
    const std::uint64_t sum = hash64(head.data(), head.size());
    std::memcpy(head.data() + offsetof(FileHeader, tableChecksum), &sum, sizeof sum);
    static const char zeros[kAlign] = {};
    std::size_t at = head.size();
    if (!sink(context, head.data(), head.size())) return false;
    for (std::size_t i = 0; i < kSectionCount; ++i) {
        if (table[i].offset > at && !sink(context, zeros, table[i].offset - at)) return false;
        at = table[i].offset;
        if (parts[i].size && !sink(context, parts[i].data, parts[i].size)) return false;
        at += parts[i].size;
    }
    if (h.fileSize > at && !sink(context, zeros, h.fileSize - at)) return false;
    return true;
}

void TraceCodec::reseal(char* data, std::size_t size)
{
    const std::size_t headBytes = sizeof(FileHeader) + kSectionCount * sizeof(SectionEntry);
    if (size < headBytes) return;
    for (std::size_t i = 0; i < kSectionCount; ++i) {
        SectionEntry e;
        char* at = data + sizeof(FileHeader) + i * sizeof e;
        std::memcpy(&e, at, sizeof e);
        if (e.offset > size || e.size > size - e.offset) continue;
        e.checksum = hash64(data + e.offset, e.size, i);
        std::memcpy(at, &e, sizeof e);
    }
    std::memset(data + offsetof(FileHeader, tableChecksum), 0, 8);
    const std::uint64_t sum = hash64(data, headBytes);
    std::memcpy(data + offsetof(FileHeader, tableChecksum), &sum, 8);
}

namespace {

// Every index of the model in range, every chain finite: what the viewer and the analyses
// may rely on without checking.
const char* inconsistency(const Trace& t, std::span<const Slice> slices,
                          std::span<const std::uint64_t> offsets, std::string_view text,
                          const std::vector<Track>& tracks, const std::vector<Process>& processes,
                          const std::vector<CounterSeries>& counters,
                          const std::vector<Flow>& flows,
                          const std::vector<std::pair<EventId, std::uint32_t>>& flowOut,
                          const std::vector<std::pair<EventId, std::uint32_t>>& flowIn,
                          const std::vector<std::pair<EventId, std::uint32_t>>& eventFrames,
                          const std::vector<StackFrame>& frames)
{
    if (t.startNs() > t.endNs()) return "span out of order";
    const std::size_t nStr = t.strings().size();
    const std::size_t n = slices.size();
    if (n >= kNone || tracks.size() >= kNone || flows.size() >= kNone) return "too many items";
    const auto str = [&](StrId id) { return id < nStr; };
    const auto opt = [](std::uint32_t v, std::size_t size) { return v == kNone || v < size; };
    for (std::size_t i = 1; i < offsets.size(); ++i)
        if (offsets[i] < offsets[i - 1]) return "args offsets not increasing";
    if (!offsets.empty() && offsets.back() > text.size()) return "args offset past the text";
    for (std::size_t e = 0; e < n; ++e) {
        const Slice& s = slices[e];
        if (!str(s.name) || !str(s.cat)) return "slice string out of range";
        if (s.track >= tracks.size()) return "slice track out of range";
        if (s.parent != kNone && (s.parent >= e || slices[s.parent].track != s.track))
            return "slice parent out of order";
        if (s.args != kNone && std::size_t(s.args) + 1 >= offsets.size())
            return "slice args out of range";
        if (s.dur < 0) return "negative duration";
    }
    for (TrackId i = 0; i < tracks.size(); ++i) {
        const Track& tr = tracks[i];
        if (tr.process >= processes.size() || !str(tr.name)) return "track field out of range";
        if (tr.begin > tr.end || tr.end > n) return "track slice range out of range";
        if (!opt(tr.counter, counters.size())) return "track counter out of range";
        if (static_cast<std::uint8_t>(tr.kind) > static_cast<std::uint8_t>(TrackKind::Counter) ||
            static_cast<std::uint8_t>(tr.role) > static_cast<std::uint8_t>(TrackRole::DeviceMetric))
            return "track kind or role unknown";
        for (EventId e = tr.begin; e < tr.end; ++e) {
            if (slices[e].track != i || slices[e].depth > tr.maxDepth)
                return "slice outside its track";
            if (e > tr.begin && slices[e - 1].start > slices[e].start)
                return "track slices not sorted";
        }
    }
    for (const Process& p : processes) {
        if (!str(p.name)) return "process name out of range";
        for (TrackId tr : p.tracks)
            if (tr >= tracks.size()) return "process track out of range";
    }
    for (const CounterSeries& c : counters)
        if (!opt(c.process, processes.size()) || !str(c.name) || !str(c.key) ||
            c.ts.size() != c.values.size())
            return "counter out of range";
    for (const Flow& f : flows) {
        if (f.from >= n || f.to >= n || !str(f.cat) || !str(f.name) || !str(f.idText))
            return "flow out of range";
        std::uint8_t isText; // read as a byte: a bool holding 2 is undefined behaviour
        std::memcpy(&isText, &f.idIsText, 1);
        if (isText > 1) return "flow flag out of range";
    }
    for (const auto* index : {&flowOut, &flowIn}) {
        for (auto [e, f] : *index)
            if (e >= n || f >= flows.size()) return "flow index out of range";
        // Sorted, and each entry names its flow's own end: lookups and passes rely on both.
        if (!std::is_sorted(index->begin(), index->end())) return "flow index not sorted";
        for (auto [e, f] : *index)
            if (e != (index == &flowOut ? flows[f].from : flows[f].to))
                return "flow index does not match its flow";
    }
    for (auto [e, f] : eventFrames)
        if (e >= n || f >= frames.size()) return "event frame out of range";
    // Frames: names in range, parent chains end (no cycle): each chain walked once.
    std::vector<std::uint8_t> state(frames.size()); // 0 new, 1 on the walk, 2 done
    for (std::size_t i = 0; i < frames.size(); ++i) {
        if (!str(frames[i].name) || !str(frames[i].category)) return "frame out of range";
        if (!opt(frames[i].parent, frames.size())) return "frame parent out of range";
    }
    for (std::size_t i = 0; i < frames.size(); ++i) {
        std::size_t cur = i;
        while (cur != kNone && state[cur] == 0) {
            state[cur] = 1;
            cur = frames[cur].parent;
        }
        if (cur != kNone && state[cur] == 1) return "frame parents form a cycle";
        for (cur = i; cur != kNone && state[cur] == 1; cur = frames[cur].parent)
            state[cur] = 2;
    }
    return nullptr;
}

} // namespace

TracePtr TraceCodec::read(std::shared_ptr<const void> owner, const char* data, std::size_t size,
                          std::string_view key, const std::string& sourceFile, std::string* why)
{
    const auto fail = [&](const char* reason) {
        if (why) *why = reason;
        return TracePtr();
    };
    FileHeader h;
    if (size < sizeof h) return fail("shorter than its header");
    std::memcpy(&h, data, sizeof h);
    if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) return fail("not a model cache file");
    if (h.version != kVersion) return fail("another format version");
    if (h.archTag != archTag()) return fail("another machine architecture");
    if (h.sectionCount != kSectionCount) return fail("unexpected section count");
    if (h.fileSize != size) return fail("truncated or extended");
    const std::size_t headBytes = sizeof h + kSectionCount * sizeof(SectionEntry);
    if (size < headBytes) return fail("truncated section table");
    {
        std::string head(data, headBytes);
        std::memset(head.data() + offsetof(FileHeader, tableChecksum), 0, 8);
        if (hash64(head.data(), head.size()) != h.tableChecksum)
            return fail("header checksum mismatch");
    }
    SectionEntry table[kSectionCount];
    std::memcpy(table, data + sizeof h, sizeof table);
    std::string_view sec[kSectionCount];
    for (std::size_t i = 0; i < kSectionCount; ++i) {
        const SectionEntry& e = table[i];
        if (e.id != i) return fail("section table out of order");
        if (e.offset % kAlign || e.offset < headBytes || e.offset > size ||
            e.size > size - e.offset)
            return fail("section out of the file");
        sec[i] = std::string_view(data + e.offset, e.size);
    }
    if (!key.empty() && sec[kKey] != key) return fail("written for another key");
    for (std::size_t i = 0; i < kSectionCount; ++i)
        if (hash64(sec[i].data(), sec[i].size(), i) != table[i].checksum)
            return fail("section checksum mismatch");

    auto t = std::make_shared<Trace>();
    // Strings: interned in order, so ids are the file's (a repeated string would not be).
    {
        Reader r(sec[kStrings].data(), sec[kStrings].size());
        const std::uint64_t count = r.u64();
        if (count == 0 || count > sec[kStrings].size()) return fail("bad string count");
        for (std::uint64_t i = 0; i < count && !r.failed; ++i) {
            const std::string_view s = r.view(r.u64());
            if (!r.failed && t->m_strings.intern(s) != i) return fail("strings repeat");
        }
        if (r.failed || !r.atEnd()) return fail("strings section damaged");
    }
    {
        Reader r(sec[kMeta].data(), sec[kMeta].size());
        const std::string producer = r.str();
        const Producer& p = producers::byId(producer);
        if (p.id() != producer) return fail("unknown producer");
        t->m_producer = &p;
        const bool pathIsSource = r.boolean();
        t->m_path = r.str();
        if (pathIsSource) t->m_path = sourceFile;
        const bool hasRank = r.boolean();
        const std::int64_t rank = r.i64();
        if (hasRank) {
            if (rank < INT32_MIN || rank > INT32_MAX) return fail("rank out of range");
            t->m_rank = static_cast<int>(rank);
        }
        t->m_start = r.i64();
        t->m_end = r.i64();
        LoadStats& st = t->m_stats;
        st.events = r.u64();
        const std::uint64_t phases = r.u64();
        for (std::uint64_t i = 0; i < phases && !r.failed; ++i) {
            std::string ph = r.str();
            st.phases[std::move(ph)] = r.u64();
        }
        st.unknownPhase = r.u64();
        st.badFields = r.u64();
        st.unmatchedEnd = r.u64();
        st.unterminated = r.u64();
        st.danglingFlows = r.u64();
        st.bytesRead = r.u64();
        st.truncated = r.boolean();
        const std::uint64_t warnings = r.u64();
        for (std::uint64_t i = 0; i < warnings && !r.failed; ++i)
            t->m_warnings.push_back(r.str());
        const std::string metadata = r.str();
        if (r.failed) return fail("meta section damaged");
        t->m_metadata = nlohmann::json::parse(metadata, nullptr, false);
        if (t->m_metadata.is_discarded()) return fail("metadata damaged");
        RunFacts& f = t->m_facts;
        const bool hasBase = r.boolean();
        const std::int64_t base = r.i64();
        if (hasBase) f.clockBaseNs = base;
        const bool hasWorld = r.boolean();
        const std::int64_t world = r.i64();
        if (hasWorld) {
            if (world < 0 || world > INT32_MAX) return fail("world size out of range");
            f.worldSize = static_cast<int>(world);
        }
        const std::uint64_t devices = r.u64();
        for (std::uint64_t i = 0; i < devices && !r.failed; ++i)
            f.devices.push_back(r.str());
        const std::uint64_t tracks = r.u64();
        for (std::uint64_t i = 0; i < tracks && !r.failed; ++i) {
            Track tr;
            tr.process = r.u32();
            tr.kind = static_cast<TrackKind>(r.u8());
            tr.tid = r.str();
            tr.name = r.u32();
            tr.sortIndex = static_cast<int>(r.i64());
            tr.hasSortIndex = r.boolean();
            tr.begin = r.u32();
            tr.end = r.u32();
            const std::uint32_t depth = r.u32();
            if (depth > 0xffff) return fail("track depth out of range");
            tr.maxDepth = static_cast<std::uint16_t>(depth);
            tr.counter = r.u32();
            tr.events = r.u64();
            tr.role = static_cast<TrackRole>(r.u8());
            t->m_tracks.push_back(std::move(tr));
        }
        const std::uint64_t procs = r.u64();
        for (std::uint64_t i = 0; i < procs && !r.failed; ++i) {
            Process p;
            p.pid = r.str();
            p.pidIsNumber = r.boolean();
            p.name = r.u32();
            const std::uint64_t labels = r.u64();
            for (std::uint64_t l = 0; l < labels && !r.failed; ++l)
                p.labels.push_back(r.str());
            p.sortIndex = static_cast<int>(r.i64());
            p.hasSortIndex = r.boolean();
            r.array(p.tracks);
            p.events = r.u64();
            t->m_processes.push_back(std::move(p));
        }
        const std::uint64_t counters = r.u64();
        for (std::uint64_t i = 0; i < counters && !r.failed; ++i) {
            CounterSeries c;
            c.process = r.u32();
            c.name = r.u32();
            c.key = r.u32();
            r.array(c.ts);
            r.array(c.values);
            t->m_counters.push_back(std::move(c));
        }
        if (r.failed || !r.atEnd()) return fail("meta section damaged");
    }
    // The small arrays are copied (the public API hands out vectors of them); the big three
    // stay in the map.
    const auto copy = [&](SectionId id, auto& v) {
        using T = typename std::decay_t<decltype(v)>::value_type;
        if (sec[id].size() % sizeof(T)) return false;
        v.resize(sec[id].size() / sizeof(T));
        if (!v.empty()) std::memcpy(static_cast<void*>(v.data()), sec[id].data(), sec[id].size());
        return true;
    };
    if (!copy(kFlows, t->m_flows) || !copy(kFlowOut, t->m_flowOut) || !copy(kFlowIn, t->m_flowIn) ||
        !copy(kEventFrames, t->m_eventFrames) || !copy(kTrackMaxDur, t->m_trackMaxDur) ||
        !copy(kStackFrames, t->m_stackFrames) || !copy(kSteps, t->m_steps))
        return fail("array section of a wrong size");
    if (sec[kSlices].size() % sizeof(Slice) || sec[kArgsOffsets].size() % 8)
        return fail("array section of a wrong size");
    // Sections start 64-byte aligned in a page-aligned map (or an aligned buffer).
    if (reinterpret_cast<std::uintptr_t>(sec[kSlices].data()) % alignof(Slice) ||
        reinterpret_cast<std::uintptr_t>(sec[kArgsOffsets].data()) % 8)
        return fail("misaligned data");
    const std::span<const Slice> slices(reinterpret_cast<const Slice*>(sec[kSlices].data()),
                                        sec[kSlices].size() / sizeof(Slice));
    const std::span<const std::uint64_t> offsets(
        reinterpret_cast<const std::uint64_t*>(sec[kArgsOffsets].data()),
        sec[kArgsOffsets].size() / 8);
    const std::span<const SliceKind> kinds(reinterpret_cast<const SliceKind*>(sec[kKinds].data()),
                                           sec[kKinds].size());
    if (kinds.size() != slices.size()) return fail("slice kinds of a wrong size");
    for (SliceKind k : kinds)
        if (static_cast<std::uint8_t>(k) >= kSliceKindCount) return fail("slice kind unknown");
    for (std::size_t i = 0; i < t->m_steps.size(); ++i) {
        const EventId e = t->m_steps[i].event;
        if (e >= kinds.size() || kinds[e] != SliceKind::Step ||
            (i > 0 && t->m_steps[i - 1].event >= e))
            return fail("steps out of order or not steps");
    }
    if (const char* bad = inconsistency(*t, slices, offsets, sec[kArgsText], t->m_tracks,
                                        t->m_processes, t->m_counters, t->m_flows, t->m_flowOut,
                                        t->m_flowIn, t->m_eventFrames, t->m_stackFrames))
        return fail(bad);
    t->m_backing = std::move(owner);
    t->m_mappedSlices = slices;
    t->m_mappedKinds = kinds;
    t->m_mappedArgsOffsets = offsets;
    t->m_mappedArgsText = sec[kArgsText];
    // Empty sections point at the map too: a non-null owner marks the trace as mapped even
    // when it has no slices (m_backing is what the accessors test).
    if (!t->m_backing) t->m_backing = std::make_shared<int>(0);
    return t;
}

} // namespace rs
