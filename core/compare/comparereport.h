#pragma once

// The stable outputs of `ringscope compare` (docs/compare.md): the "ringscope.compare/1" and
// "ringscope.scaling/1" JSON documents and their short text forms for bug reports. Fields may
// be added; none is renamed or removed.

#include "core/compare/runcompare.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace rs {

// topOps: how many of the largest op changes "ops" lists (0: all).
nlohmann::json compareToJson(const RunComparison& c, std::size_t topOps = 20);
std::string compareToText(const RunComparison& c, std::size_t topOps = 10);

// The summary object of one run ("before" / "after").
nlohmann::json runSummaryJson(const RunDigest& d);

nlohmann::json scalingToJson(const std::vector<ScalingPoint>& runs, bool weak);
std::string scalingToText(const std::vector<ScalingPoint>& runs, bool weak);

} // namespace rs
