#include "core/stringpool.h"

#include <limits>

namespace rs {

StringPool::StringPool()
{
    intern(std::string_view());
}

StrId StringPool::intern(std::string_view text)
{
    if (auto it = m_index.find(text); it != m_index.end())
        return it->second;
    const auto id = static_cast<StrId>(m_strings.size());
    const std::string& stored = m_strings.emplace_back(text);
    m_index.emplace(std::string_view(stored), id);
    m_bytes += stored.capacity() + sizeof(std::string) + 32;
    return id;
}

StrId StringPool::find(std::string_view text) const
{
    auto it = m_index.find(text);
    return it == m_index.end() ? std::numeric_limits<StrId>::max() : it->second;
}

} // namespace rs
