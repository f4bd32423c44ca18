#include "core/producers/runfacts.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

namespace rs::producers {

namespace {

std::optional<int> positiveInt(const nlohmann::json& v)
{
    if (v.is_number_integer() || v.is_number_unsigned()) {
        const auto n = v.get<long long>();
        if (n > 0 && n < (1 << 24)) return int(n);
    } else if (v.is_string()) {
        // Some writers stringify numbers.
        const std::string& s = v.get_ref<const std::string&>();
        if (!s.empty() && s.size() < 9 &&
            std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); })) {
            const int n = std::stoi(s);
            if (n > 0) return n;
        }
    }
    return std::nullopt;
}

std::optional<int> worldSizeInFile(const std::filesystem::path& file)
{
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    if (ec || size > (4u << 20)) return std::nullopt;
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded()) return std::nullopt;
    return worldSizeInMetadata(j);
}

} // namespace

std::optional<int> worldSizeInMetadata(const nlohmann::json& md)
{
    if (!md.is_object()) return std::nullopt;
    for (const char* key : {"distributedInfo", "distributed_args"}) {
        auto it = md.find(key);
        if (it == md.end() || !it->is_object()) continue;
        if (auto w = it->find("world_size"); w != it->end())
            if (auto n = positiveInt(*w)) return n;
    }
    if (auto w = md.find("world_size"); w != md.end())
        if (auto n = positiveInt(*w)) return n;
    // torch_npu's parallel_group_info: {"group": {"global_ranks": [0, 1, ...]}, ...}.
    if (auto g = md.find("parallel_group_info"); g != md.end() && g->is_object()) {
        int highest = -1;
        for (const auto& [name, group] : g->items()) {
            if (!group.is_object()) continue;
            auto ranks = group.find("global_ranks");
            if (ranks == group.end() || !ranks->is_array()) continue;
            for (const auto& r : *ranks)
                if (r.is_number_integer() && r.get<long long>() >= 0 &&
                    r.get<long long>() < (1 << 24))
                    highest = std::max(highest, int(r.get<long long>()));
        }
        if (highest >= 0) return highest + 1;
    }
    return std::nullopt;
}

std::optional<int> worldSizeInFiles(const std::vector<std::string>& files)
{
    for (const std::string& file : files)
        if (auto n = worldSizeInFile(file)) return n;
    return std::nullopt;
}

RunFacts chromeTraceFacts(const Trace& trace)
{
    RunFacts f;
    const nlohmann::json& md = trace.metadata();
    if (!md.is_object()) return f;
    if (auto it = md.find("baseTimeNanoseconds"); it != md.end() && it->is_number_integer())
        f.clockBaseNs = it->get<TimeNs>();
    f.worldSize = worldSizeInMetadata(md);
    if (auto it = md.find("deviceProperties"); it != md.end() && it->is_array())
        for (const nlohmann::json& d : *it)
            if (d.is_object())
                if (auto n = d.find("name"); n != d.end() && n->is_string())
                    f.devices.push_back(n->get<std::string>());
    return f;
}

} // namespace rs::producers
