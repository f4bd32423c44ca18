#pragma once

// The report as a document (nlohmann::json): the oracle the streaming writer is checked against
// (writeReportJson prints reportToJson(inputs, job).dump(2) byte for byte, tst_analysis_report),
// and a convenient form for tests that look into a report. Not in core: nothing ships it.

#include "core/analysis/reportjson.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace rs {

// With a job (several ranks), its findings join "findings" (with "rank": null and "ranks")
// and its matched collectives fill "cross_rank".
nlohmann::json reportToJson(const std::vector<ReportInput>& inputs, const JobReport* job = nullptr);

} // namespace rs
