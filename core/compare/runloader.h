#pragma once

// From a path to a run digest: discover the ranks (a trace, a rank folder or a job folder),
// load them in parallel, analyse each, match them across ranks when they form one job, digest,
// and free the traces. The command line and the scaling view use it; a run's peak memory is
// that of loading it, and runs load one after another. A path of rank summaries (a folder of
// *.ranksummary.json[.gz], or one such file) is read as `ringscope merge` reads it, without
// traces: its digest has no ops (RunDigest::opsAvailable).

#include "core/analysis/report.h"
#include "core/compare/rundigest.h"
#include "core/job/jobloader.h"
#include "core/traceloader.h"

#include <optional>
#include <string>
#include <vector>

namespace rs {

struct RunLoadOptions {
    LoadOptions load;
    AnalysisOptions analysis;
};

// nullopt when nothing of the run could be read. errors receives one line per problem (a
// rank that failed, a path with no trace); they are also in the digest's errors.
std::optional<RunDigest> loadRunDigest(const std::string& path, const RunLoadOptions& options,
                                       std::vector<std::string>* errors,
                                       JobProgress* progress = nullptr);

// A run of rank summaries (files, or folders of them) named `name`; nullopt when none could be
// read. They keep the analysis options they were written with.
std::optional<RunDigest> loadSummaryRunDigest(const std::vector<std::string>& summaries,
                                              const std::string& name,
                                              std::vector<std::string>* errors);

} // namespace rs
