#include "core/analysis/producermodel.h"

#include "core/producers/producer.h"

#include <algorithm>

namespace rs::analysis {

std::vector<EventId> AnalysisContext::launchesOf(EventId device) const
{
    std::vector<EventId> out;
    auto it = std::lower_bound(launch.begin(), launch.end(), std::make_pair(device, 0u));
    for (; it != launch.end() && it->first == device; ++it)
        out.push_back(it->second);
    return out;
}

const ProducerModel& producerModel(const Trace& trace)
{
    return trace.producer().analysis();
}

namespace {

// Args that hold buffer addresses, as producers name them.
const char* const kAddressKeys[] = {"src",     "dst",      "Addr",       "addr",       "address",
                                    "Address", "src addr", "dst addr",   "src_addr",   "dst_addr",
                                    "srcAddr", "dstAddr",  "input addr", "output addr"};

} // namespace

// The keys are every producer's guesses at an address ("src" can also be a device's name), so a
// value that is no number is not counted as a bad field.
void checkAddresses(const ArgsMembers& a, std::uint64_t align, bool* misaligned,
                    std::uint64_t* badAddress)
{
    for (const char* k : kAddressKeys) {
        auto v = a.u64(k);
        if (v && align > 0 && *v % align != 0) {
            *misaligned = true;
            if (badAddress && *badAddress == 0) *badAddress = *v;
        }
    }
}

std::optional<std::uint64_t> checkAddresses(const nlohmann::json& a, std::uint64_t align,
                                            bool* misaligned, std::uint64_t* badAddress)
{
    std::optional<std::uint64_t> first;
    if (!a.is_object()) return first;
    for (const char* k : kAddressKeys) {
        auto v = argU64(a, k, nullptr);
        if (!v) continue;
        if (!first) first = v;
        if (align > 0 && *v % align != 0) {
            *misaligned = true;
            if (badAddress && *badAddress == 0) *badAddress = *v;
        }
    }
    return first;
}

} // namespace rs::analysis
