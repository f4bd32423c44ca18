#pragma once

// The stable report of `ringscope analyze --json` ("ringscope.report/1", documented in
// docs/report-format.md) and its readable text form.

#include "core/analysis/report.h"
#include "core/job/crossrank.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace rs {

// One analysed input: the path as the user gave it and its report.
struct ReportInput {
    std::string path;
    ReportPtr report;
};

// What `analyze --json` and `merge --json` print (docs/report-format.md): keys sorted, two
// spaces of indent, written as text without building the document (a merged job of
// thousands of ranks is gigabytes of it): memory is a batch of inputs' text, the smaller
// sections wait in a temporary file.
void writeReportJson(std::ostream& out, const std::vector<ReportInput>& inputs,
                     const JobReport* job = nullptr);
// The same with the inputs given one at a time: input(i) is called once per i < count, from
// several threads at once, and its report is let go when written (`ringscope merge` reads each
// rank summary again there). A job whose `ranks` are null (a slim match, analyzeJob on
// JobRanks) takes its findings' evidence from input(i) as rank i.
using ReportInputSource = std::function<ReportInput(std::size_t)>;
void writeReportJson(std::ostream& out, std::size_t count, const ReportInputSource& input,
                     const JobReport* job = nullptr);
std::string reportToText(const std::vector<ReportInput>& inputs, const JobReport* job = nullptr);
// The same text with the inputs given one at a time (as writeReportJson's source): each
// input's part is written as it comes and its report let go; the job's part keeps only sums
// over the inputs (`ringscope merge` without --json reads each rank summary there).
void writeReportText(std::ostream& out, std::size_t count, const ReportInputSource& input,
                     const JobReport* job = nullptr);

// Highest finding severity over the inputs (and the job); nullopt when there is no finding.
std::optional<Severity> worstSeverity(const std::vector<ReportInput>& inputs,
                                      const JobReport* job = nullptr);

} // namespace rs
