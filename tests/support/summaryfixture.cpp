#include "tests/support/summaryfixture.h"

#include "core/job/jobloader.h"
#include "core/job/jobpipeline.h"
#include "core/job/ranksummary.h"

#include <filesystem>

namespace rs::test {

std::vector<std::string> writeJobSummaries(const std::string& job, const std::string& dir,
                                           std::string* error, bool gzipOdd)
{
    std::string discoverError;
    const std::vector<RankInput> ranks = discoverJob({job}, &discoverError);
    if (ranks.empty()) {
        if (error) *error = discoverError.empty() ? job + ": no rank found" : discoverError;
        return {};
    }
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::vector<std::string> files;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        // app/cmd_analyze.cpp with --summary-out: the rank's path through the pipeline, the
        // trace let go once analysed, the one report written.
        PipelineOptions options;
        options.keepTraces = false;
        const PipelineResult result = runPipeline(std::vector<std::string>{ranks[i].path}, options);
        const std::vector<ReportInput> inputs = result.reportInputs();
        const std::string file = dir + "/task-" + std::to_string(i) + ".ranksummary.json" +
                                 (gzipOdd && i % 2 ? ".gz" : "");
        std::string writeError;
        if (inputs.size() != 1 || !writeRankSummary(inputs.front(), file, &writeError)) {
            if (error)
                *error = ranks[i].path + ": " +
                         (!writeError.empty()     ? writeError
                          : result.errors.empty() ? std::string("not one rank")
                                                  : result.errors.front());
            return {};
        }
        files.push_back(file);
    }
    return files;
}

} // namespace rs::test
