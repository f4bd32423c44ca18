#pragma once

#include "core/traceloader.h"

#include <nlohmann/json.hpp>

#include <string>

namespace rs {

// Summary of a loaded trace for `ringscope info`: producer, rank, counts per phase,
// processes and threads, time span and warnings.
nlohmann::json traceInfoJson(const Trace& trace, const std::string& path);
std::string traceInfoText(const Trace& trace, const std::string& path);

// A pid or tid as JSON: a number when it was written as one (exact up to 2^64), else text.
nlohmann::json idJson(const std::string& text, bool numeric);

} // namespace rs
