#include "core/producers/flightrecorder/dump.h"

#include "core/bytesource.h"
#include "core/job/collectivecalls.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <limits>
#include <set>

namespace rs::flightrecorder {

using nlohmann::json;

const char* entryStateName(EntryState s)
{
    return s == EntryState::None ? "unknown" : callStateName(s);
}

const char* rankSourceName(RankSource s)
{
    switch (s) {
    case RankSource::FileName:
        return "file name";
    case RankSource::Membership:
        return "process groups";
    case RankSource::None:
        break;
    }
    return "none";
}

std::string Entry::op() const
{
    return opName(profilingName);
}

std::string opName(std::string_view s)
{
    return callOpName(s);
}

std::int64_t Entry::lastRecord() const
{
    return std::max({timeCreatedNs, timeDiscoveredStartedNs.value_or(0),
                     timeDiscoveredCompletedNs.value_or(0)});
}

std::optional<std::int64_t> dumpTime(const Dump& dump)
{
    if (dump.entries.empty()) return std::nullopt;
    std::int64_t last = 0;
    std::optional<std::int64_t> deadline;
    for (const Entry& e : dump.entries) {
        last = std::max(last, e.lastRecord());
        if (e.completed() || !e.timeoutMs || *e.timeoutMs <= 0) continue;
        // Times and timeouts come from the file: saturating.
        std::int64_t ns = 0, at = 0;
        if (__builtin_mul_overflow(*e.timeoutMs, std::int64_t(1000000), &ns)) ns = INT64_MAX;
        if (__builtin_add_overflow(e.timeCreatedNs, ns, &at)) at = INT64_MAX;
        deadline = std::min(deadline.value_or(at), at);
    }
    return deadline ? std::max(last, *deadline) : last;
}

bool recordsAllToAllSizes(std::string_view v)
{
    const auto dot = v.find('.');
    if (dot == std::string_view::npos) return true;
    int major = 0, minor = 0;
    std::from_chars(v.data(), v.data() + dot, major);
    std::from_chars(v.data() + dot + 1, v.data() + v.size(), minor);
    return !(major < 2 || (major == 2 && minor <= 3));
}

bool Entry::p2p() const
{
    if (isP2p) return *isP2p;
    const std::string o = op();
    return o == "send" || o == "recv";
}

std::optional<int> Dump::rankFromMembership() const
{
    std::optional<std::set<int>> common;
    for (const auto& [name, g] : groups) {
        if (g.ranks.empty()) continue;
        const std::set<int> members(g.ranks.begin(), g.ranks.end());
        if (!common) {
            common = members;
            continue;
        }
        std::set<int> both;
        std::set_intersection(common->begin(), common->end(), members.begin(), members.end(),
                              std::inserter(both, both.end()));
        *common = std::move(both);
    }
    if (!common || common->size() != 1) return std::nullopt;
    return *common->begin();
}

std::optional<int> rankFromFileName(std::string_view path)
{
    if (const auto slash = path.find_last_of('/'); slash != std::string_view::npos)
        path.remove_prefix(slash + 1);
    for (std::string_view ext : {".json", ".pkl", ".pickle"}) {
        if (path.size() > ext.size() && path.ends_with(ext)) {
            path.remove_suffix(ext.size());
            break;
        }
    }
    std::size_t digits = 0;
    while (digits < path.size() && path[path.size() - 1 - digits] >= '0' &&
           path[path.size() - 1 - digits] <= '9')
        ++digits;
    if (digits == 0 || digits > 9) return std::nullopt;
    int rank = 0;
    std::from_chars(path.data() + path.size() - digits, path.data() + path.size(), rank);
    return rank;
}

DumpFormat sniffDump(const char* data, std::size_t size)
{
    if (!data || size == 0) return DumpFormat::None;
    const auto* p = reinterpret_cast<const unsigned char*>(data);
    if (size >= 2 && p[0] == 0x80 && p[1] >= 2 && p[1] <= 5) return DumpFormat::Pickle;
    std::size_t i = 0;
    if (size >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) i = 3; // UTF-8 BOM
    while (i < size && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
        ++i;
    return i < size && p[i] == '{' ? DumpFormat::Json : DumpFormat::None;
}

namespace {

// ---- a pickle's value as JSON, so that one reader serves both forms

struct Converter {
    std::uint64_t budget; // values left: shared (memo) values are copied, so they count again
    std::string error;

    std::string keyText(const PickleValue& k)
    {
        switch (k.kind()) {
        case PickleKind::Str:
            return std::string(k.bytes());
        case PickleKind::Int:
        case PickleKind::BigInt:
        case PickleKind::Bool:
            return k.kind() == PickleKind::Bool ? (k.boolean() ? "True" : "False")
                                                : k.bigIntDecimal();
        case PickleKind::None:
            return "None";
        default:
            return std::string("<") + pickleKindName(k.kind()) + " at byte " +
                   std::to_string(k.offset()) + ">";
        }
    }

    bool convert(const PickleValue& v, json& out)
    {
        if (budget == 0) {
            error = "its shared values expand past the reader's limit of values";
            return false;
        }
        --budget;
        switch (v.kind()) {
        case PickleKind::None:
            out = nullptr;
            return true;
        case PickleKind::Bool:
            out = v.boolean();
            return true;
        case PickleKind::Int:
            out = v.integer();
            return true;
        case PickleKind::BigInt: {
            const std::string dec = v.bigIntDecimal();
            std::uint64_t u = 0;
            const auto [end, ec] = std::from_chars(dec.data(), dec.data() + dec.size(), u);
            if (ec == std::errc() && end == dec.data() + dec.size())
                out = u;
            else
                out = dec; // beyond 64 bits: its exact decimal text
            return true;
        }
        case PickleKind::Float:
            out = v.real();
            return true;
        case PickleKind::Str:
            out = std::string(v.bytes());
            return true;
        case PickleKind::Bytes: {
            const std::string_view b = v.bytes();
            out = json::binary(std::vector<std::uint8_t>(b.begin(), b.end()));
            return true;
        }
        case PickleKind::List:
        case PickleKind::Tuple: {
            out = json::array();
            for (std::size_t i = 0; i < v.size(); ++i) {
                json item;
                if (!convert(v.at(i), item)) return false;
                out.push_back(std::move(item));
            }
            return true;
        }
        case PickleKind::Dict: {
            out = json::object();
            for (std::size_t i = 0; i < v.size(); ++i) {
                json item;
                if (!convert(v.value(i), item)) return false;
                out[keyText(v.key(i))] = std::move(item); // a key set twice: the last wins
            }
            return true;
        }
        }
        return true;
    }
};

// ---- reading the dump's fields, naming the key of anything of the wrong type

const char* typeText(const json& v)
{
    switch (v.type()) {
    case json::value_t::null:
        return "None";
    case json::value_t::object:
        return "a dict";
    case json::value_t::array:
        return "a list";
    case json::value_t::string:
        return "a string";
    case json::value_t::boolean:
        return "a bool";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
        return "an integer";
    case json::value_t::number_float:
        return "a float";
    case json::value_t::binary:
        return "bytes";
    case json::value_t::discarded:
        break;
    }
    return "nothing";
}

std::optional<std::int64_t> asInt(const json& v)
{
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        if (u > std::uint64_t(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
        return std::int64_t(u);
    }
    if (v.is_number_integer()) return v.get<std::int64_t>();
    return std::nullopt;
}

// PyTorch's JSON writes pg_status numbers as text ("13996").
std::optional<std::int64_t> asIntOrText(const json& v)
{
    if (auto i = asInt(v)) return i;
    if (!v.is_string()) return std::nullopt;
    const auto& s = v.get_ref<const std::string&>();
    std::int64_t out = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return out;
}

// A wrong key, counted once per key with the first place it was seen.
class Problems {
public:
    void add(const std::string& key, const std::string& where, const std::string& what)
    {
        auto [it, fresh] = m_byKey.try_emplace(key, Seen{where + ": " + what, 0});
        ++it->second.count;
        if (fresh) m_order.push_back(key);
    }
    void into(std::vector<std::string>& out) const
    {
        for (const std::string& k : m_order) {
            const Seen& s = m_byKey.at(k);
            out.push_back(s.count > 1
                              ? s.first + " (and " + std::to_string(s.count - 1) + " more like it)"
                              : s.first);
        }
    }

private:
    struct Seen {
        std::string first;
        std::uint64_t count;
    };
    std::map<std::string, Seen> m_byKey;
    std::vector<std::string> m_order;
};

std::string expected(const char* what, const json& v)
{
    return std::string("expected ") + what + ", found " + typeText(v);
}

// Members of one group: more than any job has is a damaged or hostile file.
constexpr std::size_t kMaxGroupRanks = std::size_t(1) << 20;

// "[0, 1, 2]" (2.x writes the ranks as text) or a list of ints (1.x).
std::optional<std::vector<int>> readRanks(const json& v)
{
    std::vector<int> out;
    auto push = [&](std::int64_t r) {
        if (r < 0 || r > std::numeric_limits<int>::max() || out.size() >= kMaxGroupRanks)
            return false;
        out.push_back(int(r));
        return true;
    };
    if (v.is_array()) {
        for (const json& r : v) {
            const auto i = asInt(r);
            if (!i || !push(*i)) return std::nullopt;
        }
        return out;
    }
    if (!v.is_string()) return std::nullopt;
    std::string_view s = v.get_ref<const std::string&>();
    auto trim = [](std::string_view t) {
        while (!t.empty() && (t.front() == ' ' || t.front() == '\t'))
            t.remove_prefix(1);
        while (!t.empty() && (t.back() == ' ' || t.back() == '\t'))
            t.remove_suffix(1);
        return t;
    };
    s = trim(s);
    if (s.size() < 2 || s.front() != '[' || s.back() != ']') return std::nullopt;
    s = trim(s.substr(1, s.size() - 2));
    while (!s.empty()) {
        const auto comma = s.find(',');
        const std::string_view item = trim(s.substr(0, comma));
        std::int64_t r = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), r);
        if (item.empty() || ec != std::errc() || end != item.data() + item.size() || !push(r))
            return std::nullopt;
        if (comma == std::string_view::npos) break;
        s = s.substr(comma + 1);
    }
    return out;
}

std::optional<std::vector<std::vector<std::int64_t>>> readShapes(const json& v)
{
    if (!v.is_array()) return std::nullopt;
    std::vector<std::vector<std::int64_t>> out;
    out.reserve(v.size());
    for (const json& shape : v) {
        if (!shape.is_array()) return std::nullopt;
        std::vector<std::int64_t> dims;
        dims.reserve(shape.size());
        for (const json& d : shape) {
            const auto i = asInt(d);
            if (!i) return std::nullopt;
            dims.push_back(*i);
        }
        out.push_back(std::move(dims));
    }
    return out;
}

std::optional<std::vector<std::string>> readStrings(const json& v)
{
    if (!v.is_array()) return std::nullopt;
    std::vector<std::string> out;
    for (const json& s : v) {
        if (!s.is_string()) return std::nullopt;
        out.push_back(s.get<std::string>());
    }
    return out;
}

class DumpReader {
public:
    DumpReader(Dump& d) : m_d(d) {}

    // The top level; false (with `error`) when it is not a dump or its shape is wrong.
    bool read(const json& root, std::string& error, bool& notADump)
    {
        if (!root.is_object() || !root.contains("pg_config") ||
            (!root.contains("entries") && !root.contains("pg_status"))) {
            notADump = true;
            error = std::string("not a Flight Recorder dump: ") +
                    (root.is_object() ? "a dict without pg_config and entries"
                                      : std::string("its top level is ") + typeText(root) +
                                            ", not a dict with pg_config and entries");
            return false;
        }
        if (const auto it = root.find("version"); it != root.end()) {
            if (it->is_string())
                m_d.version = it->get<std::string>();
            else if (it->is_number())
                m_d.version = it->dump(); // 1.x wrote no text here in some builds: keep it
            else
                m_problems.add("version", "version", expected("a string", *it));
        }
        for (const char* key : {"nccl_version", "comm_lib_version"}) {
            const auto it = root.find(key);
            if (it == root.end()) continue;
            if (it->is_string())
                m_d.ncclVersion = it->get<std::string>();
            else
                m_problems.add(key, key, expected("a string", *it));
        }
        const json& pgConfig = root.at("pg_config");
        if (!pgConfig.is_object()) {
            error = "pg_config: " + expected("a dict", pgConfig);
            return false;
        }
        readGroups(pgConfig);
        if (const auto it = root.find("pg_status"); it != root.end()) {
            if (it->is_object())
                readStatus(*it);
            else if (!it->is_null())
                m_problems.add("pg_status", "pg_status", expected("a dict", *it));
        }
        if (const auto it = root.find("entries"); it != root.end() && !it->is_null()) {
            if (!it->is_array()) {
                error = "entries: " + expected("a list", *it);
                return false;
            }
            m_d.entries.reserve(it->size());
            for (std::size_t i = 0; i < it->size(); ++i)
                readEntry((*it)[i], i);
        }
        if (m_skipped)
            m_d.warnings.push_back(std::to_string(m_skipped) + " of " +
                                   std::to_string(m_skipped + m_d.entries.size()) +
                                   " entries skipped (a required key missing or of the wrong "
                                   "type)");
        m_problems.into(m_d.warnings);
        return true;
    }

private:
    void readGroups(const json& pgConfig)
    {
        for (const auto& [key, g] : pgConfig.items()) {
            GroupConfig cfg;
            cfg.name = key;
            const std::string where = "pg_config." + key;
            if (g.is_array()) { // 1.x: {pg_id: [ranks]}
                auto ranks = readRanks(g);
                if (!ranks) {
                    m_problems.add("pg_config.*", where, "not a list of ranks");
                    continue;
                }
                cfg.ranks = std::move(*ranks);
            } else if (g.is_object()) {
                if (const auto n = g.find("name"); n != g.end() && n->is_string())
                    cfg.name = n->get<std::string>();
                if (const auto d = g.find("desc"); d != g.end()) {
                    if (d->is_string())
                        cfg.desc = d->get<std::string>();
                    else
                        m_problems.add("pg_config.*.desc", where + ".desc",
                                       expected("a string", *d));
                }
                const auto r = g.find("ranks");
                auto ranks = r == g.end() ? std::nullopt : readRanks(*r);
                if (!ranks) {
                    m_problems.add("pg_config.*.ranks", where + ".ranks",
                                   r == g.end() ? std::string("missing")
                                                : "not a list of ranks (" + r->dump() + ")");
                    continue;
                }
                cfg.ranks = std::move(*ranks);
            } else {
                m_problems.add("pg_config.*", where, expected("a dict", g));
                continue;
            }
            if (cfg.name != key)
                m_problems.add("pg_config.*.name", where + ".name",
                               "the group's name \"" + cfg.name + "\" differs from its key");
            m_d.groups[key] = std::move(cfg);
        }
    }

    void readStatus(const json& pgStatus)
    {
        for (const auto& item : pgStatus.items()) {
            // Not a structured binding: clang 14 cannot capture one in the lambda below.
            const std::string& key = item.key();
            const json& s = item.value();
            const std::string where = "pg_status." + key;
            std::int64_t pgId = 0;
            const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), pgId);
            if (ec != std::errc() || end != key.data() + key.size()) {
                m_problems.add("pg_status.key", where, "a key that is not a pg_id");
                continue;
            }
            if (!s.is_object()) {
                m_problems.add("pg_status.*", where, expected("a dict", s));
                continue;
            }
            GroupStatus st;
            auto field = [&](const char* name, std::int64_t& out) {
                const auto it = s.find(name);
                if (it == s.end()) return;
                if (auto v = asIntOrText(*it))
                    out = *v;
                else
                    m_problems.add(std::string("pg_status.*.") + name, where + "." + name,
                                   expected("an integer", *it));
            };
            field("last_enqueued_collective", st.lastEnqueued);
            field("last_started_collective", st.lastStarted);
            field("last_completed_collective", st.lastCompleted);
            m_d.status[pgId] = st;
        }
    }

    void readEntry(const json& e, std::size_t index)
    {
        const std::string where = "entries[" + std::to_string(index) + "]";
        if (!e.is_object()) {
            m_problems.add("entries[]", where, expected("a dict", e));
            ++m_skipped;
            return;
        }
        Entry out;
        bool ok = true;
        // Required: a wrong or missing one skips the entry.
        auto required = [&](const char* key, const char* what, auto&& read) {
            const auto it = e.find(key);
            if (it == e.end()) {
                m_problems.add(std::string("entries[].") + key, where + "." + key, "missing");
                ok = false;
            } else if (!read(*it)) {
                m_problems.add(std::string("entries[].") + key, where + "." + key,
                               expected(what, *it));
                ok = false;
            }
        };
        // Optional: a wrong one is left out.
        auto optional = [&](const char* key, const char* what, auto&& read) {
            const auto it = e.find(key);
            if (it != e.end() && !read(*it))
                m_problems.add(std::string("entries[].") + key, where + "." + key,
                               expected(what, *it));
        };
        auto intInto = [](std::int64_t& to) {
            return [&to](const json& v) {
                const auto i = asInt(v);
                if (i) to = *i;
                return i.has_value();
            };
        };
        auto timeInto = [](std::optional<std::int64_t>& to) {
            return [&to](const json& v) {
                if (v.is_null()) return true;
                const auto i = asInt(v);
                if (i && *i != 0) to = *i; // JSON writes 0 for "not yet"
                return i.has_value();
            };
        };
        auto boolInto = [](std::optional<bool>& to) {
            return [&to](const json& v) {
                if (v.is_boolean()) to = v.get<bool>();
                return v.is_boolean() || v.is_null();
            };
        };
        auto stringInto = [](std::string& to) {
            return [&to](const json& v) {
                if (v.is_string()) to = v.get<std::string>();
                return v.is_string();
            };
        };

        required("profiling_name", "a string", stringInto(out.profilingName));
        required(e.contains("collective_seq_id") || !e.contains("seq_id") ? "collective_seq_id"
                                                                          : "seq_id",
                 "an integer", intInto(out.collectiveSeqId));
        required("time_created_ns", "an integer", intInto(out.timeCreatedNs));
        optional("pg_id", "an integer", intInto(out.pgId));
        if (e.contains("process_group")) {
            required("process_group", "a (name, description) pair", [&](const json& v) {
                if (!v.is_array() || v.size() != 2 || !v[0].is_string() || !v[1].is_string())
                    return false;
                out.groupName = v[0].get<std::string>();
                out.groupDesc = v[1].get<std::string>();
                return true;
            });
        } else if (out.pgId >= 0) {
            out.groupName = std::to_string(out.pgId); // 1.x: pg_config is keyed by pg_id
        } else {
            m_problems.add("entries[].process_group", where + ".process_group",
                           "missing (and no pg_id)");
            ok = false;
        }
        optional("record_id", "an integer", intInto(out.recordId));
        optional("p2p_seq_id", "an integer", intInto(out.p2pSeqId));
        optional("op_id", "an integer", intInto(out.opId));
        auto shapesInto = [](auto& to) {
            return [&to](const json& v) {
                auto s = readShapes(v);
                if (s) to = std::move(*s);
                return s.has_value();
            };
        };
        auto stringsInto = [](auto& to) {
            return [&to](const json& v) {
                auto s = readStrings(v);
                if (s) to = std::move(*s);
                return s.has_value();
            };
        };
        optional("input_sizes", "a list of shapes", shapesInto(out.inputSizes));
        optional("output_sizes", "a list of shapes", shapesInto(out.outputSizes));
        optional("input_dtypes", "a list of strings", stringsInto(out.inputDtypes));
        optional("output_dtypes", "a list of strings", stringsInto(out.outputDtypes));
        optional("time_discovered_started_ns", "an integer or None",
                 timeInto(out.timeDiscoveredStartedNs));
        optional("time_discovered_completed_ns", "an integer or None",
                 timeInto(out.timeDiscoveredCompletedNs));
        optional("retired", "a bool", boolInto(out.retired));
        optional("is_p2p", "a bool", boolInto(out.isP2p));
        optional("timeout_ms", "an integer", [&](const json& v) {
            const auto i = asInt(v);
            if (i) out.timeoutMs = *i;
            return i.has_value();
        });
        optional("duration_ms", "a number", [&](const json& v) {
            if (v.is_number()) out.durationMs = v.get<double>();
            return v.is_number() || v.is_null();
        });
        optional("thread_id", "a string", [&](const json& v) {
            if (v.is_string())
                out.threadId = v.get<std::string>();
            else if (v.is_number_integer())
                out.threadId = v.dump();
            return v.is_string() || v.is_number_integer();
        });
        optional("thread_name", "a string", stringInto(out.threadName));
        optional("frames", "a list of frames", [&](const json& v) {
            if (!v.is_array()) return false;
            for (const json& f : v) {
                if (!f.is_object()) return false;
                Frame fr;
                if (const auto n = f.find("name"); n != f.end() && n->is_string())
                    fr.name = n->get<std::string>();
                if (const auto n = f.find("filename"); n != f.end() && n->is_string())
                    fr.filename = n->get<std::string>();
                if (const auto n = f.find("line"); n != f.end()) fr.line = asInt(*n).value_or(0);
                out.frames.push_back(std::move(fr));
            }
            return true;
        });
        optional("state", "a string", [&](const json& v) {
            if (!v.is_string()) return false;
            const auto& s = v.get_ref<const std::string&>();
            out.state = s == "scheduled"   ? EntryState::Scheduled
                        : s == "started"   ? EntryState::Started
                        : s == "completed" ? EntryState::Completed
                                           : EntryState::Unknown;
            if (out.state == EntryState::Unknown)
                m_problems.add("entries[].state.value", where + ".state",
                               "unknown state \"" + s + "\"");
            return true;
        });
        if (!e.contains("state")) // before 1.x wrote it: from what the watchdog saw
            out.state = out.timeDiscoveredCompletedNs ? EntryState::Completed
                        : out.timeDiscoveredStartedNs ? EntryState::Started
                                                      : EntryState::Scheduled;
        if (!ok) {
            ++m_skipped;
            return;
        }
        m_d.entries.push_back(std::move(out));
    }

    Dump& m_d;
    Problems m_problems;
    std::uint64_t m_skipped = 0;
};

void decideRank(Dump& d)
{
    const std::optional<int> byName = rankFromFileName(d.path);
    const std::optional<int> byGroups = d.rankFromMembership();
    if (byName) {
        d.rank = byName;
        d.rankSource = RankSource::FileName;
        if (byGroups && *byGroups != *byName)
            d.warnings.push_back("the file name says rank " + std::to_string(*byName) +
                                 " but its process groups all hold rank " +
                                 std::to_string(*byGroups) + " only (the file name is used)");
    } else if (byGroups) {
        d.rank = byGroups;
        d.rankSource = RankSource::Membership;
    }
}

} // namespace

DumpResult parseDump(const char* data, std::size_t size, const std::string& path,
                     const DumpOptions& options)
{
    DumpResult r;
    const DumpFormat format = sniffDump(data, size);
    if (format == DumpFormat::None) {
        r.notADump = true;
        r.error = path + ": " +
                  (size == 0 ? std::string("the file is empty")
                             : "not a Flight Recorder dump: neither a pickle (protocol 2 to 5) "
                               "nor a JSON object");
        return r;
    }
    if (size > options.maxBytes) {
        r.error = path + ": " + std::to_string(size) + " bytes, more than the " +
                  std::to_string(options.maxBytes) + " a Flight Recorder dump is read up to";
        return r;
    }
    json root;
    if (format == DumpFormat::Pickle) {
        const PickleResult p = parsePickle(data, size, path, options.pickle);
        if (!p.ok()) {
            r.error = p.message;
            return r;
        }
        Converter c{options.pickle.maxValues, {}};
        if (!c.convert(p.root(), root)) {
            r.error = path + ": " + c.error;
            return r;
        }
    } else {
        struct TooDeep {};
        const int maxDepth = options.maxJsonDepth;
        try {
            root = json::parse(
                data, data + size,
                [maxDepth](int depth, json::parse_event_t, json&) {
                    if (depth > maxDepth) throw TooDeep{};
                    return true;
                },
                true);
        } catch (const TooDeep&) {
            r.error = path + ": JSON nested deeper than " + std::to_string(maxDepth) +
                      " levels (a Flight Recorder dump has 5)";
            return r;
        } catch (const json::exception& e) {
            r.error = path + ": not valid JSON: " + e.what();
            return r;
        }
    }
    Dump d;
    d.path = path;
    d.format = format == DumpFormat::Pickle ? "pickle" : "json";
    DumpReader reader(d);
    std::string why;
    if (!reader.read(root, why, r.notADump)) {
        r.error = path + ": " + why;
        return r;
    }
    decideRank(d);
    r.dump = std::move(d);
    return r;
}

DumpResult readDump(const std::string& path, const DumpOptions& options)
{
    DumpResult r;
    std::string error;
    const std::unique_ptr<FileBytes> f = FileBytes::open(path, &error);
    if (!f) {
        r.error = error;
        return r;
    }
    if (f->mapped()) {
        if (f->fileSize() > options.maxBytes) {
            r.error = path + ": " + std::to_string(f->fileSize()) + " bytes, more than the " +
                      std::to_string(options.maxBytes) + " a Flight Recorder dump is read up to";
            return r;
        }
        return parseDump(f->data(), std::size_t(f->fileSize()), path, options);
    }
    // gzip (or a file the system would not map): its bytes, up to the limit.
    ByteSource* s = f->stream();
    s->setUncompressedLimit(options.maxBytes + 1);
    std::string bytes;
    char buf[1 << 16];
    while (std::size_t n = s->read(buf, sizeof buf)) {
        bytes.append(buf, n);
        if (bytes.size() > options.maxBytes) {
            r.error = path + ": its data expands past the " + std::to_string(options.maxBytes) +
                      " bytes a Flight Recorder dump is read up to";
            return r;
        }
    }
    if (!s->error().empty()) {
        r.error = path + ": " + s->error();
        return r;
    }
    return parseDump(bytes.data(), bytes.size(), path, options);
}

} // namespace rs::flightrecorder
