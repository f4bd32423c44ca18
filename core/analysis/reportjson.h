#pragma once

// The stable report of `ringscope analyze --json` ("ringscope.report/1", documented in
// docs/report-format.md) and its readable text form.

#include "core/analysis/report.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace rs {

// One analysed input: the path as the user gave it and its report.
struct ReportInput {
    std::string path;
    ReportPtr report;
};

nlohmann::json reportToJson(const std::vector<ReportInput>& inputs);
std::string reportToText(const std::vector<ReportInput>& inputs);

// Highest finding severity over the inputs; nullopt when there is no finding.
std::optional<Severity> worstSeverity(const std::vector<ReportInput>& inputs);

// The traces a user path stands for: itself when it resolves to one trace, else the traces
// (torch_npu run folders, *.json, *.json.gz) directly inside a job folder, sorted.
std::vector<std::string> expandTracePaths(const std::string& path);

} // namespace rs
