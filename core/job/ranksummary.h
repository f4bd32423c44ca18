#pragma once

// A rank's analysis without its trace: `ringscope analyze RANK --summary-out FILE` writes it
// ("ringscope.ranksummary/1", docs/report-format.md), `ringscope merge` reads summaries back
// into the per-rank reports the job analysis takes (analyzeJob) and prints the job report that
// `ringscope analyze --json JOBFOLDER` prints. It holds the report's collectives, signatures,
// steps, findings with their stacks, matrix and the trace's facts (rank, clock, the events the
// report names), nothing per trace event: it grows with collectives and steps.
// Code: ranksummary.cpp the writer, ranksummaryread.cpp the one-pass reader, the files and their
// discovery, both through the field tables (core/analysis/reportfields.h); ranksummarymerge.cpp
// the merge (docs/scale.md).

#include "core/analysis/report.h"
#include "core/analysis/reportjson.h"
#include "core/job/crossrank.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace rs {

inline constexpr const char* kRankSummarySchema = "ringscope.ranksummary/1";

// The summary of one rank's report (its trace's facts from traceFacts()), compact JSON, keys
// sorted, a field at its default left out; path: the input's path as the job report prints it
// (ReportInput::path).
std::string rankSummaryText(const AnalysisReport& report, const std::string& path);
// Writes it compact to file (through a temporary next to it, renamed at the end, so a task
// killed half-way leaves no summary); false with a message when it cannot be written.
bool writeRankSummary(const ReportInput& input, const std::string& file, std::string* error);

struct RankSummaryRead {
    std::string file;  // the summary as given
    ReportPtr report;  // no trace, facts set; null when the summary was refused
    std::string error; // why it was refused: unreadable, not JSON, another schema version
    // Fields of the wrong JSON type, skipped (the default kept), never thrown; warnings says
    // which keys (one line per key, with its count).
    std::uint64_t badFields = 0;
    std::vector<std::string> warnings;
    bool ok() const { return report != nullptr; }
};

// From the text in one pass (core/jsonfieldreader.h), without a document; every field checked
// for its JSON type (tst_ranksummary compares it with the document reader kept in
// tests/support/summaryoracle.h, field by field).
RankSummaryRead rankSummaryFromText(std::string_view text);
// A file, plain or gzip, read with rankSummaryFromText; error prefixed with the file.
RankSummaryRead readRankSummary(const std::string& file);

// Only what the cross-rank match reads of a summary (its rank, clock and collectives, slim)
// and its options; the rest is checked as JSON and skipped. For `merge` of thousands of ranks.
struct RankSummarySlim {
    std::string file;
    std::string error; // as RankSummaryRead's
    JobRank rank;
    AnalysisOptions options;
    bool ok() const { return error.empty(); }
};
RankSummarySlim readRankSummarySlim(const std::string& file);

// The summaries a user gave: files as they are, folders expanded to their *.ranksummary.json
// files (sorted by name). error names a path that does not exist, or an empty result.
std::vector<std::string> findRankSummaries(const std::vector<std::string>& paths,
                                           std::string* error);

// Whether a path stands for rank summaries: a *.ranksummary.json[.gz] file, or a folder that
// holds such files (what the viewer and `ringscope compare` open as a job without traces).
bool isRankSummaryPath(const std::string& path);

// Summaries in the job's rank order (loadJob's): by rank, a rank-less summary at its position
// in the given order; stable.
void sortByRank(std::vector<RankSummaryRead>& summaries);

// The one merge of summaries, the rule of `analyze` on them: the summaries the paths name
// (findRankSummaries) read in parallel on the WorkPool, put in rank order (sortByRank's), their
// analysis options compared, matched across ranks when they form one job (matchJob,
// core/job/jobpipeline.h) and the job's note on delaying ranks made (nameDelayingRanks). Full
// reads each summary whole and keeps the reports (mergeRankSummaries: the viewer, `compare`);
// Slim reads only what the match needs (RankSummarySlim) and keeps none: `ringscope merge`
// reads each summary again as it writes the report (writeMergedReport*).
enum class MergeMode { Full, Slim };
struct SummaryMerge {
    std::vector<std::string> files;     // the summaries merged (refused ones left out), by rank
    std::vector<RankSummaryRead> ranks; // Full: each as read, by rank; Slim: none
    std::vector<ReportPtr> reports;     // Full: ranks' reports with the job's note written in
    std::optional<JobReport> job;       // when they form one job
    std::vector<std::string> errors;    // a path that does not exist, a summary refused
    // Full: each summary's wrong-type fields (in the order found); then mixed options and not
    // one job. Slim reads no field it would warn about: its reader adds those.
    std::vector<std::string> warnings;

    std::string jobNote; // delayingRanksNote(*job); empty without a job

    // A rank's report read after the merge (Slim) with the job's note on delaying ranks written
    // in, as Full's reports have it: report itself when there is nothing to write.
    ReportPtr withJobNote(ReportPtr report) const;
};
SummaryMerge mergeSummaries(const std::vector<std::string>& paths, MergeMode mode);

// The summaries read (in parallel on the WorkPool), in rank order, and the job analysis of them
// when they form one job (the rule of `analyze`): every rank's report at once, for the viewer
// and `compare`. `ringscope merge` prints the same without holding them (writeMergedReport*).
struct MergedJob {
    std::vector<RankSummaryRead> ranks; // the summaries read, by rank (refused ones left out)
    std::vector<ReportInput> inputs;    // per rank, for writeReportJson / reportToText
    std::optional<JobReport> job;
    std::vector<std::string> errors;   // a summary refused (named), a path that does not exist
    std::vector<std::string> warnings; // wrong-type fields, mixed options, not one job

    const JobReport* jobReport() const { return job ? &*job : nullptr; }
};
MergedJob mergeRankSummaries(const std::vector<std::string>& paths);

// `ringscope merge --json`: what writeReportJson(out, merged.inputs, merged.jobReport()) of
// mergeRankSummaries(paths) writes, in two passes that never hold the ranks' reports: the
// summaries read slim (in parallel) and matched, then each read again in full as the report
// writer reaches it (and let go). Memory: ~100 bytes per rank and collective.
struct MergeOutcome {
    std::size_t ranks = 0;             // summaries merged
    bool job = false;                  // matched as one job
    std::vector<std::string> errors;   // as MergedJob's
    std::vector<std::string> warnings; // as MergedJob's
    std::optional<Severity> worst;     // worstSeverity of the report
};
MergeOutcome writeMergedReportJson(std::ostream& out, const std::vector<std::string>& paths);
// `ringscope merge` without --json: what reportToText(merged.inputs, merged.jobReport()) of
// mergeRankSummaries(paths) prints, in the same two passes (writeReportText).
MergeOutcome writeMergedReportText(std::ostream& out, const std::vector<std::string>& paths);

} // namespace rs
