#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

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
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept
        {
            return std::hash<std::string_view>{}(s);
        }
    };
    // deque keeps element addresses stable, so the map can key on views of them.
    std::deque<std::string> m_strings;
    std::unordered_map<std::string_view, StrId, Hash, std::equal_to<>> m_index;
    std::size_t m_bytes = 0;
};

} // namespace rs
