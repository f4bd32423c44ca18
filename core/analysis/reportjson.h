#pragma once

// The stable report of `ringscope analyze --json` ("ringscope.report/1", documented in
// docs/report-format.md) and its readable text form.

#include "core/analysis/report.h"
#include "core/job/crossrank.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace rs {

// One analysed input: the path as the user gave it and its report.
struct ReportInput {
    std::string path;
    ReportPtr report;
};

// With a job (several ranks), its findings join "findings" (with "rank": null and "ranks")
// and its matched collectives fill "cross_rank".
nlohmann::json reportToJson(const std::vector<ReportInput>& inputs, const JobReport* job = nullptr);
// What `analyze --json` and `merge --json` print: reportToJson(inputs, job).dump(2) and a
// newline.
void writeReportJson(std::ostream& out, const std::vector<ReportInput>& inputs,
                     const JobReport* job = nullptr);
std::string reportToText(const std::vector<ReportInput>& inputs, const JobReport* job = nullptr);

// Highest finding severity over the inputs (and the job); nullopt when there is no finding.
std::optional<Severity> worstSeverity(const std::vector<ReportInput>& inputs,
                                      const JobReport* job = nullptr);

} // namespace rs
