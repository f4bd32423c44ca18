#pragma once

// Helpers shared by the analysis sources (not part of the public contract).

#include "core/analysis/report.h"
#include "core/trace.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rs::analysis {

// The roles of a trace's tracks (Track::role, decided by its producer at load), indexed by
// TrackId: the analysis keeps them beside its other per-track state.
std::vector<TrackRole> trackRoles(const Trace& trace);

// Args of the wrong JSON type met by the analysis (a "count" that is an object, a "size(Byte)"
// that is true): counted per key and reported as a warning, never thrown.
class FieldErrors {
public:
    void add(std::string_view key);
    std::uint64_t total() const { return m_total; }
    const std::map<std::string, std::uint64_t, std::less<>>& byKey() const { return m_byKey; }

private:
    std::map<std::string, std::uint64_t, std::less<>> m_byKey;
    std::uint64_t m_total = 0;
};

// The top-level members of an args object's text as the project's tokenizer scans them
// (core/jsontokenizer.h), without building a DOM: HCCL tasks carry a dozen scalar args each and
// there can be millions of them. Nested values are kept as raw text; keys and strings with
// escapes as written. Text that is not JSON ends the members at the first error.
class ArgsMembers {
public:
    enum class Kind : std::uint8_t { String, Number, Literal, Nested }; // literal: true/false/null

    explicit ArgsMembers(std::string_view objectText);
    // The text read whole: an object to its closing brace, other JSON, or no text (no args).
    // False for text that is not JSON, which the loader keeps (it checks args for structure
    // only): count it with kArgsNotJson.
    bool complete() const { return m_complete; }
    // The value's text (strings without quotes, unescaped only when they have no escapes).
    std::optional<std::string_view> get(std::string_view key) const;
    std::optional<Kind> kind(std::string_view key) const;
    // A string (a number reads as its text); anything else is a bad field and reads "".
    std::string str(std::string_view key, FieldErrors* err = nullptr) const;
    // A non-negative integer, as a number or a decimal / hex string. Present as anything else but
    // a number is a bad field; a number out of range (-1 for "none") reads nullopt uncounted.
    std::optional<std::uint64_t> u64(std::string_view key, FieldErrors* err = nullptr) const;

private:
    struct Member {
        std::string_view key, value;
        Kind kind;
    };
    const Member* find(std::string_view key) const;
    std::vector<Member> m_members;
    bool m_complete = false;
};

// The FieldErrors key of an event's args text that is not JSON.
inline constexpr std::string_view kArgsNotJson = "args that are not JSON";

// An event's args parsed; empty when it has none. Args text that is not JSON (the loader
// checks args for structure only, core/jsontokenizer.h) reads empty and is counted in *err.
nlohmann::json eventArgs(const Trace& t, EventId e, FieldErrors* err);

bool startsWith(std::string_view s, std::string_view p);

// Unsigned integer from decimal or hex text ("0x80").
std::optional<std::uint64_t> textU64(std::string_view s);

// Unsigned integer from a JSON number or a decimal / hex string; nullopt otherwise.
std::optional<std::uint64_t> jsonU64(const nlohmann::json& v);
std::string jsonStr(const nlohmann::json& obj, const char* key);
// Typed reads of an args object's member: absent reads empty; present with a type that cannot
// mean the value (an object, an array, a bool, null; a non-numeric string for a number) is
// counted in *err and reads empty. A number where a string is expected reads as its text; a
// number out of range for a count (negative) reads empty, uncounted (a value, not a type).
std::string argStr(const nlohmann::json& obj, std::string_view key, FieldErrors* err);
std::optional<std::uint64_t> argU64(const nlohmann::json& obj, std::string_view key,
                                    FieldErrors* err);

// Collective kind from a name such as "hcom_allReduce__586_0_1", "nccl:all_reduce",
// "ncclKernel_AllReduce_RING_LL_Sum_float", "allreduce"; Other when not recognised.
CollectiveKind kindFromName(std::string_view name);
// Bytes per element of a dtype as traces write it ("FP32", "Float", "c10::BFloat16"...); 0 if
// unknown.
int dtypeBytes(std::string_view dtype);

// Union length of intervals (sorted or not).
TimeNs unionLength(std::vector<std::pair<TimeNs, TimeNs>> iv);
// Sorted, merged intervals.
std::vector<std::pair<TimeNs, TimeNs>> mergeIntervals(std::vector<std::pair<TimeNs, TimeNs>> iv);
// Length of the intersection of two merged interval lists.
TimeNs intersectionLength(const std::vector<std::pair<TimeNs, TimeNs>>& a,
                          const std::vector<std::pair<TimeNs, TimeNs>>& b);

// 1-D clustering of values: sorted ascending, split where the gap to the next value is large
// relative to the values. Returns the cluster index of each input value (0 = lowest).
std::vector<int> clusterLevels(const std::vector<TimeNs>& values, int* clusters = nullptr);

} // namespace rs::analysis
