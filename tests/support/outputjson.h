#pragma once

// The documents of `compare` parsed, for tests that read their fields (the writers stream
// text; their bytes are checked against tests/data/golden/cli by tst_outputgolden).

#include "core/compare/comparereport.h"

#include <nlohmann/json.hpp>

namespace rs::test {

inline nlohmann::json compareToJson(const RunComparison& c, std::size_t topOps = 20)
{
    return nlohmann::json::parse(compareJson(c, topOps));
}

inline nlohmann::json scalingToJson(const std::vector<ScalingPoint>& runs, bool weak)
{
    return nlohmann::json::parse(scalingJson(runs, weak));
}

// The summary object of one run, as "before" holds it.
inline nlohmann::json runSummaryJson(const RunDigest& d)
{
    RunComparison c;
    c.before = d;
    return compareToJson(c)["before"];
}

} // namespace rs::test
