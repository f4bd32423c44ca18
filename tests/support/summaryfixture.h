#pragma once

// Rank summaries of a job, written as `ringscope analyze RANK --summary-out FILE` writes them
// (one rank at a time through the pipeline, its trace let go once analysed): the fixture of
// the tests that open, merge or compare summaries.

#include <string>
#include <vector>

namespace rs::test {

// One summary per rank of `job` (discoverJob's ranks, in their order) into dir, named
// task-N.ranksummary.json (".gz" added for odd N when gzipOdd), as scripts/slurm/analyze-job
// names them. Returns the files in rank order; empty when a rank could not be analysed or
// written (error says why).
std::vector<std::string> writeJobSummaries(const std::string& job, const std::string& dir,
                                           std::string* error, bool gzipOdd = false);

} // namespace rs::test
