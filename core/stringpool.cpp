#include "core/stringpool.h"

#include <cstring>
#include <limits>

namespace rs {

StringPool::StringPool()
{
    m_slots.resize(1024);
    intern(std::string_view());
}

std::uint64_t StringPool::hashOf(std::string_view s) noexcept
{
    // Eight bytes a multiply, then a finaliser that brings the high bits down to the low ones
    // the table indexes by. Kineto's kernel names run to hundreds of bytes and every event's
    // name and category are interned: std::hash (two multiplies and shifts a word) was 2-3% of
    // a load.
    std::uint64_t h = 0x9e3779b97f4a7c15ull ^ s.size();
    const char* p = s.data();
    std::size_t n = s.size();
    for (; n >= 8; p += 8, n -= 8) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    }
    if (n) {
        std::uint64_t w = 0;
        std::memcpy(&w, p, n);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
    }
    h ^= h >> 32;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    return h;
}

void StringPool::grow()
{
    std::vector<Slot> old(m_slots.size() * 2);
    old.swap(m_slots);
    const std::size_t mask = m_slots.size() - 1;
    for (const Slot& s : old) {
        if (s.id == kEmptySlot) continue;
        std::size_t i = s.hash & mask;
        while (m_slots[i].id != kEmptySlot)
            i = (i + 1) & mask;
        m_slots[i] = s;
    }
}

std::size_t StringPool::recentSlot(std::string_view s) noexcept
{
    const char* p = s.data();
    const std::size_t n = s.size();
    std::uint64_t a = n, b = 0;
    if (n >= 8) {
        std::memcpy(&a, p, 8);
        std::memcpy(&b, p + n - 8, 8);
    } else if (n >= 4) {
        std::uint32_t x, y;
        std::memcpy(&x, p, 4);
        std::memcpy(&y, p + n - 4, 4);
        a = x;
        b = y;
    } else if (n > 0) {
        a = std::uint64_t(std::uint8_t(p[0])) | std::uint64_t(std::uint8_t(p[n / 2])) << 8 |
            std::uint64_t(std::uint8_t(p[n - 1])) << 16;
    }
    const std::uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ull) ^ n) * 0xff51afd7ed558ccdull;
    return static_cast<std::size_t>(h >> (64 - kRecentBits));
}

StrId StringPool::intern(std::string_view text)
{
    if (m_slots.empty()) // moved from
        m_slots.resize(1024);
    if (m_recent.empty()) m_recent.assign(std::size_t(1) << kRecentBits, kEmptySlot);
    StrId& recent = m_recent[recentSlot(text)];
    // The stored text decides (the key is shared by many texts): a miss goes the long way.
    if (recent < m_strings.size()) {
        const std::string& s = m_strings[recent];
        if (std::string_view(s) == text) // (an empty text may come with a null pointer)
            return recent;
    }
    recent = internHashed(text);
    return recent;
}

StrId StringPool::internHashed(std::string_view text)
{
    const std::uint64_t h = hashOf(text);
    const std::size_t mask = m_slots.size() - 1;
    std::size_t i = h & mask;
    for (; m_slots[i].id != kEmptySlot; i = (i + 1) & mask) {
        if (m_slots[i].hash == h && m_strings[m_slots[i].id] == text) return m_slots[i].id;
    }
    const auto id = static_cast<StrId>(m_strings.size());
    const std::string& stored = m_strings.emplace_back(text);
    m_slots[i] = {h, id};
    m_bytes += stored.capacity() + sizeof(std::string) + 32;
    if (m_strings.size() * 2 > m_slots.size()) grow();
    return id;
}

StrId StringPool::find(std::string_view text) const
{
    if (m_slots.empty()) return std::numeric_limits<StrId>::max();
    const std::uint64_t h = hashOf(text);
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t i = h & mask; m_slots[i].id != kEmptySlot; i = (i + 1) & mask) {
        if (m_slots[i].hash == h && m_strings[m_slots[i].id] == text) return m_slots[i].id;
    }
    return std::numeric_limits<StrId>::max();
}

} // namespace rs
