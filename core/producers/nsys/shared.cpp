#include "core/producers/nsys/shared.h"

#include <cctype>
#include <charconv>
#include <cstring>

namespace rs::nsys {

namespace {

std::uint64_t le64(const unsigned char* p)
{
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = v << 8 | p[i];
    return v;
}

// Bytes of an NVTX payload entry type on LP64 (nvToolsExtPayload.h); 0: not read.
int typeBytes(std::int64_t type)
{
    switch (type) {
    case 1:  // char
    case 2:  // unsigned char
    case 11: // int8
    case 12: // uint8
        return 1;
    case 3:  // short
    case 4:  // unsigned short
    case 13: // int16
    case 14: // uint16
        return 2;
    case 5:  // int
    case 6:  // unsigned int
    case 15: // int32
    case 16: // uint32
    case 19: // float
        return 4;
    case 7:  // long
    case 8:  // unsigned long
    case 9:  // long long
    case 10: // unsigned long long
    case 17: // int64
    case 18: // uint64
    case 20: // double
    case 22: // size_t
    case 23: // address
        return 8;
    default:
        return 0;
    }
}

bool isSigned(std::int64_t type)
{
    return type == 1 || type == 3 || type == 5 || type == 7 || type == 9 || type == 11 ||
           type == 13 || type == 15 || type == 17;
}

// Calls fn(entry, integer or nullopt, real or nullopt) for each entry the payload holds.
template <typename Fn>
bool forEachEntry(const std::map<std::pair<std::int64_t, std::int64_t>, PayloadSchema>& schemas,
                  std::int64_t domain, std::string_view blob, Fn&& fn)
{
    constexpr std::size_t kHeader = 32;
    if (blob.size() < kHeader) return false;
    const auto* p = reinterpret_cast<const unsigned char*>(blob.data());
    const std::int64_t schemaId = std::int64_t(le64(p + 8));
    auto it = schemas.find({domain, schemaId});
    if (it == schemas.end()) return false;
    const std::size_t size = blob.size() - kHeader;
    for (const PayloadEntry& e : it->second.entries) {
        const int n = typeBytes(e.type);
        if (n == 0 || e.offset < 0 || std::uint64_t(e.offset) + std::uint64_t(n) > size) continue;
        const unsigned char* v = p + kHeader + e.offset;
        if (e.type == 19) {
            float f;
            std::memcpy(&f, v, 4);
            fn(e, std::optional<std::int64_t>(), std::optional<double>(f));
        } else if (e.type == 20) {
            double d;
            std::memcpy(&d, v, 8);
            fn(e, std::optional<std::int64_t>(), std::optional<double>(d));
        } else {
            std::uint64_t x = 0;
            for (int i = n - 1; i >= 0; --i)
                x = x << 8 | v[i];
            if (isSigned(e.type) && n < 8 && (x >> (n * 8 - 1)) & 1) x |= ~0ull << (n * 8);
            fn(e, std::optional<std::int64_t>(std::int64_t(x)), std::optional<double>());
        }
    }
    return true;
}

} // namespace

bool Shared::decodePayload(std::int64_t domain, std::string_view blob, Args& args) const
{
    return forEachEntry(
        schemas, domain, blob,
        [&](const PayloadEntry& e, std::optional<std::int64_t> i, std::optional<double> r) {
            if (i && !isSigned(e.type))
                args.unumKey(e.name, std::uint64_t(*i));
            else if (i)
                args.numKey(e.name, *i);
            else if (r)
                args.realKey(e.name, *r);
        });
}

std::vector<std::pair<std::string, std::int64_t>>
Shared::payloadIntegers(std::int64_t domain, std::string_view blob) const
{
    std::vector<std::pair<std::string, std::int64_t>> out;
    forEachEntry(schemas, domain, blob,
                 [&](const PayloadEntry& e, std::optional<std::int64_t> i, std::optional<double>) {
                     if (i) out.emplace_back(e.name, *i);
                 });
    return out;
}

std::optional<TorchOpName> splitTorchOpName(std::string_view text)
{
    // The first field PyTorch appends (torch/csrc/profiler/util.cpp getNvtxStr): seq, op_id,
    // sizes or input_op_ids, each ", key = value".
    std::size_t cut = std::string_view::npos;
    for (std::string_view key : {", seq = ", ", op_id = ", ", sizes = ", ", input_op_ids = "}) {
        const std::size_t at = text.find(key);
        if (at != std::string_view::npos && at > 0) cut = std::min(cut, at);
    }
    if (cut == std::string_view::npos) return std::nullopt;
    TorchOpName out;
    out.name = text.substr(0, cut);
    std::string_view rest = text.substr(cut + 2);
    while (!rest.empty()) {
        const std::size_t eq = rest.find(" = ");
        if (eq == std::string_view::npos) return std::nullopt;
        const std::string_view key = rest.substr(0, eq);
        rest.remove_prefix(eq + 3);
        // The value runs to the next ", " outside brackets.
        int depth = 0;
        std::size_t end = 0;
        for (; end < rest.size(); ++end) {
            const char c = rest[end];
            if (c == '[') ++depth;
            if (c == ']') --depth;
            if (depth == 0 && c == ',' && end + 1 < rest.size() && rest[end + 1] == ' ') break;
        }
        out.fields.emplace_back(key, rest.substr(0, end));
        rest.remove_prefix(std::min(rest.size(), end + 2));
    }
    return out;
}

std::optional<int> stepOf(std::string_view name)
{
    constexpr std::string_view profiler = "ProfilerStep#";
    auto digits = [](std::string_view s) -> std::optional<int> {
        int n = 0;
        const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
        if (ec != std::errc() || p == s.data() || n < 0) return std::nullopt;
        return n;
    };
    if (name.starts_with(profiler)) {
        // PyTorch's own mark: its number, whatever follows (emit_nvtx appends fields).
        return digits(name.substr(profiler.size()));
    }
    std::string lower;
    for (char c : name.substr(0, 64))
        lower.push_back(char(std::tolower(static_cast<unsigned char>(c))));
    std::string_view s = lower;
    if (name.size() > 64) return std::nullopt;
    for (std::string_view p :
         {"train_step", "train step", "trainstep", "iteration", "step", "iter"})
        if (s.starts_with(p)) {
            s.remove_prefix(p.size());
            while (!s.empty() && (s.front() == ' ' || s.front() == '_' || s.front() == '#' ||
                                  s.front() == ':' || s.front() == '=' || s.front() == '-'))
                s.remove_prefix(1);
            if (s.empty() || s.size() > 9) return std::nullopt;
            for (char c : s)
                if (c < '0' || c > '9') return std::nullopt;
            return digits(s);
        }
    return std::nullopt;
}

std::string_view apiName(std::string_view name)
{
    const std::size_t v = name.rfind("_v");
    if (v == std::string_view::npos || v == 0 || v + 2 == name.size()) return name;
    for (std::size_t i = v + 2; i < name.size(); ++i)
        if (name[i] < '0' || name[i] > '9') return name;
    return name.substr(0, v);
}

} // namespace rs::nsys
