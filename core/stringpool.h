#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace rs {

using StrId = std::uint32_t;

// Interns strings: each distinct text is stored once and named by a small id.
// Id 0 is always the empty string, so a zero-initialised field means "no name".
class StringPool {
public:
    StringPool();
    StringPool(const StringPool&) = delete;
    StringPool& operator=(const StringPool&) = delete;
    StringPool(StringPool&&) noexcept = default;
    StringPool& operator=(StringPool&&) noexcept = default;

    StrId intern(std::string_view text);
    // Id of text when already interned, else UINT32_MAX; never inserts.
    StrId find(std::string_view text) const;
    const std::string& str(StrId id) const { return m_strings[id]; }
    std::size_t size() const { return m_strings.size(); }
    std::size_t bytes() const { return m_bytes; }

private:
    // Open addressing over (hash, id) pairs: a lookup touches one slot and, on a hash match,
    // the string; node-based maps cost several cache misses per lookup on large traces.
    struct Slot {
        std::uint64_t hash = 0;
        StrId id = kEmptySlot;
    };
    static constexpr StrId kEmptySlot = 0xffffffffu;
    static std::uint64_t hashOf(std::string_view s) noexcept;
    void grow();

    // deque keeps element addresses stable while it grows.
    std::deque<std::string> m_strings;
    // Ids of recently interned texts by a cheap key (length, first and last eight bytes): a
    // hit is checked against the stored text and skips hashing the whole of it (Kineto's kernel
    // names run to hundreds of bytes, and every event's name and category are interned).
    static constexpr int kRecentBits = 10;
    static std::size_t recentSlot(std::string_view s) noexcept;
    StrId internHashed(std::string_view text);
    std::vector<StrId> m_recent;
    std::vector<Slot> m_slots; // size a power of two, at most half full
    std::size_t m_bytes = 0;
};

} // namespace rs
