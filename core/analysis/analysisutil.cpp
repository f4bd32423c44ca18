#include "core/analysis/analysisutil.h"

#include "core/analysis/producermodel.h"
#include "core/jsontokenizer.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace rs::analysis {

bool startsWith(std::string_view s, std::string_view p)
{
    return s.size() >= p.size() && s.substr(0, p.size()) == p;
}

namespace {

// Lowercase letters and digits only: "all_reduce", "allReduce", "AllReduce" all read "allreduce".
std::string squash(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        if (std::isalnum(static_cast<unsigned char>(c)))
            out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    return out;
}

} // namespace

std::vector<TrackRole> trackRoles(const Trace& trace)
{
    std::vector<TrackRole> roles;
    roles.reserve(trace.tracks().size());
    for (const Track& t : trace.tracks())
        roles.push_back(t.role);
    return roles;
}

void FieldErrors::add(std::string_view key)
{
    auto it = m_byKey.find(key);
    if (it == m_byKey.end()) it = m_byKey.emplace(std::string(key), 0).first;
    ++it->second;
    ++m_total;
}

ArgsMembers::ArgsMembers(std::string_view t)
{
    // Strings and keys without an arena: checked, and kept as written (escapes included).
    JsonTokenizer tk(t.data(), t.data() + t.size());
    const char* end = tk.end();
    const char* p = tk.ws(t.data());
    if (p >= end || *p != '{') {
        // No args, or JSON that is no object (no members, nothing to count), or not JSON.
        const char* q = p < end ? tk.skipValue(p, 0) : nullptr;
        m_complete = p >= end || (q && tk.ws(q) == end);
        return;
    }
    p = tk.ws(p + 1);
    if (p < end && *p == '}') m_complete = tk.ws(p + 1) == end;
    while (p < end && *p == '"') {
        TextRef key;
        if (!(p = tk.string(p, key, nullptr))) return;
        p = tk.ws(p);
        if (p >= end || *p != ':') return;
        p = tk.ws(p + 1);
        if (p >= end) return;
        const char* begin = p;
        Member m{key.view(), {}, Kind::Nested};
        if (*p == '{' || *p == '[') {
            if (!(p = tk.skipValue(p, 1))) return;
            m.value = std::string_view(begin, static_cast<std::size_t>(p - begin));
        } else {
            JsonScalar s;
            if (!(p = tk.scalar(p, s, nullptr))) return;
            m.kind = s.kind == JsonScalar::String                               ? Kind::String
                     : s.kind == JsonScalar::Bool || s.kind == JsonScalar::Null ? Kind::Literal
                                                                                : Kind::Number;
            m.value = m.kind == Kind::Literal
                          ? std::string_view(begin, static_cast<std::size_t>(p - begin))
                          : s.text.view();
        }
        m_members.push_back(m);
        p = tk.ws(p);
        if (p < end && *p == '}') m_complete = tk.ws(p + 1) == end;
        if (p >= end || *p != ',') return;
        p = tk.ws(p + 1);
    }
}

nlohmann::json eventArgs(const Trace& t, EventId e, FieldErrors* err)
{
    bool notJson = false;
    nlohmann::json j = t.args(e, &notJson);
    if (notJson && err) err->add(kArgsNotJson);
    return j;
}

const ArgsMembers::Member* ArgsMembers::find(std::string_view key) const
{
    for (const Member& m : m_members) {
        if (m.key == key) return &m;
    }
    return nullptr;
}

std::optional<std::string_view> ArgsMembers::get(std::string_view key) const
{
    const Member* m = find(key);
    return m ? std::optional<std::string_view>(m->value) : std::nullopt;
}

std::optional<ArgsMembers::Kind> ArgsMembers::kind(std::string_view key) const
{
    const Member* m = find(key);
    return m ? std::optional<Kind>(m->kind) : std::nullopt;
}

std::string ArgsMembers::str(std::string_view key, FieldErrors* err) const
{
    const Member* m = find(key);
    if (!m) return {};
    if (m->kind == Kind::String || m->kind == Kind::Number) return std::string(m->value);
    if (err) err->add(key);
    return {};
}

std::optional<std::uint64_t> ArgsMembers::u64(std::string_view key, FieldErrors* err) const
{
    const Member* m = find(key);
    if (!m) return std::nullopt;
    std::optional<std::uint64_t> v;
    if (m->kind == Kind::String || m->kind == Kind::Number) v = textU64(m->value);
    if (!v && m->kind == Kind::Number) {
        // 2.5 or 1e3: as jsonU64 reads a JSON float (truncated, in range, not negative).
        double d = 0;
        auto [p, ec] = std::from_chars(m->value.data(), m->value.data() + m->value.size(), d);
        if (ec == std::errc() && p == m->value.data() + m->value.size() && d >= 0 &&
            d < 18446744073709551616.0)
            v = static_cast<std::uint64_t>(d);
    }
    if (!v && err && m->kind != Kind::Number) err->add(key);
    return v;
}

std::optional<std::uint64_t> textU64(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s.remove_prefix(2);
        base = 16;
    }
    std::uint64_t out = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
    if (ec == std::errc() && p == s.data() + s.size() && !s.empty()) return out;
    return std::nullopt;
}

std::optional<std::uint64_t> jsonU64(const nlohmann::json& v)
{
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (v.is_number_integer()) {
        const auto x = v.get<std::int64_t>();
        return x >= 0 ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(x)) : std::nullopt;
    }
    if (v.is_number_float()) {
        const double d = v.get<double>();
        // Out of range would be undefined behaviour in the cast.
        if (!(d >= 0) || d >= 18446744073709551616.0) return std::nullopt;
        return static_cast<std::uint64_t>(d);
    }
    if (v.is_string()) return textU64(v.get_ref<const std::string&>());
    return std::nullopt;
}

std::string jsonStr(const nlohmann::json& obj, const char* key)
{
    if (!obj.is_object()) return {};
    auto it = obj.find(key);
    if (it == obj.end()) return {};
    if (it->is_string()) return it->get<std::string>();
    if (it->is_number()) return it->dump();
    return {};
}

std::string argStr(const nlohmann::json& obj, std::string_view key, FieldErrors* err)
{
    if (!obj.is_object()) return {};
    auto it = obj.find(key);
    if (it == obj.end()) return {};
    if (it->is_string()) return it->get<std::string>();
    if (it->is_number()) return it->dump();
    if (err) err->add(key);
    return {};
}

std::optional<std::uint64_t> argU64(const nlohmann::json& obj, std::string_view key,
                                    FieldErrors* err)
{
    if (!obj.is_object()) return std::nullopt;
    auto it = obj.find(key);
    if (it == obj.end()) return std::nullopt;
    auto v = jsonU64(*it);
    // A number out of range (-1 for "none") is a value, not a type, error: not counted.
    if (!v && err && !it->is_number()) err->add(key);
    return v;
}

CollectiveKind kindFromName(std::string_view name)
{
    std::string s = squash(name);
    // Drop producer prefixes so "ncclkernel..." / "hcom..." read as the kind.
    for (std::string_view p : {"ncclkernel", "nccldevkernel", "rcclkernel", "hcom", "nccl", "gloo",
                               "c10d", "hccl", "ascendcl", "vllm", "symmmem", "multimem"}) {
        if (startsWith(s, p)) s.erase(0, p.size());
    }
    struct Key {
        const char* text;
        CollectiveKind kind;
    };
    // Order matters: "allreduce" before "reduce", "reducescatter" before "reduce".
    static const Key keys[] = {
        {"allreduce", CollectiveKind::AllReduce}, {"reducescatter", CollectiveKind::ReduceScatter},
        {"allgather", CollectiveKind::AllGather}, {"alltoall", CollectiveKind::AllToAll},
        {"broadcast", CollectiveKind::Broadcast}, {"barrier", CollectiveKind::Barrier},
        {"sendrecv", CollectiveKind::Send},       {"receive", CollectiveKind::Recv},
        {"recv", CollectiveKind::Recv},           {"send", CollectiveKind::Send},
        {"reduce", CollectiveKind::Reduce},
    };
    for (const Key& k : keys) {
        if (s.find(k.text) != std::string::npos) return k.kind;
    }
    return CollectiveKind::Other;
}

int dtypeBytes(std::string_view dtype)
{
    const std::string s = squash(dtype);
    auto has = [&](const char* p) { return s.find(p) != std::string::npos; };
    if (has("bfloat16") || has("bf16") || has("half") || has("fp16") || has("float16") ||
        has("int16") || has("short"))
        return 2;
    if (has("float64") || has("double") || has("fp64") || has("int64") || has("long") ||
        has("uint64"))
        return 8;
    if (has("fp32") || has("float") || has("int32") || has("uint32") || s == "int") return 4;
    if (has("int8") || has("uint8") || has("byte") || has("bool") || has("char") || has("fp8"))
        return 1;
    return 0;
}

std::vector<std::pair<TimeNs, TimeNs>> mergeIntervals(std::vector<std::pair<TimeNs, TimeNs>> iv)
{
    std::sort(iv.begin(), iv.end());
    std::vector<std::pair<TimeNs, TimeNs>> out;
    for (const auto& [a, b] : iv) {
        if (b <= a) continue;
        if (!out.empty() && a <= out.back().second)
            out.back().second = std::max(out.back().second, b);
        else
            out.emplace_back(a, b);
    }
    return out;
}

TimeNs unionLength(std::vector<std::pair<TimeNs, TimeNs>> iv)
{
    TimeNs total = 0;
    const auto merged = mergeIntervals(std::move(iv));
    for (const auto& [a, b] : merged)
        total += b - a;
    return total;
}

TimeNs intersectionLength(const std::vector<std::pair<TimeNs, TimeNs>>& a,
                          const std::vector<std::pair<TimeNs, TimeNs>>& b)
{
    TimeNs total = 0;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const TimeNs lo = std::max(a[i].first, b[j].first);
        const TimeNs hi = std::min(a[i].second, b[j].second);
        if (hi > lo) total += hi - lo;
        if (a[i].second < b[j].second)
            ++i;
        else
            ++j;
    }
    return total;
}

std::vector<int> clusterLevels(const std::vector<TimeNs>& values, int* clusters)
{
    std::vector<std::size_t> order(values.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](auto x, auto y) { return values[x] < values[y]; });
    std::vector<int> level(values.size(), 0);
    int cur = 0;
    for (std::size_t k = 0; k < order.size(); ++k) {
        if (k > 0) {
            const TimeNs a = values[order[k - 1]], b = values[order[k]];
            // A gap of a quarter of the larger value separates modes (200 ms vs 400 ms: 50%),
            // while run-to-run jitter of a few percent stays in one mode. Below a microsecond
            // nothing is a mode of its own.
            if (b - a > b / 4 && b - a > 1000) ++cur;
        }
        level[order[k]] = cur;
    }
    if (clusters) *clusters = values.empty() ? 0 : cur + 1;
    return level;
}

} // namespace rs::analysis
