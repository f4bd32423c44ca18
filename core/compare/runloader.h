#pragma once

// From a path to a run digest: discover the ranks (a trace, a rank folder or a job folder),
// load them in parallel, analyse each, match them across ranks when they form one job, digest,
// and free the traces. The command line and the scaling view use it; a run's peak memory is
// that of loading it, and runs load one after another.

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

} // namespace rs
