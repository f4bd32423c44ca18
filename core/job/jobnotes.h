#pragma once

// What only the job knows, written back into the ranks' findings: a rank's sync-dominated
// finding (its HCCL ops waited for peers) names the ranks the job says delayed them.

#include "core/job/crossrank.h"

#include <string>
#include <vector>

namespace rs {

// Replaces each report holding a "sync-dominated" finding by a copy whose recommendation names
// the delaying ranks of the job's collectives (or says no single rank delays them). The job's
// own `ranks` are updated to the copies. Idempotent: the text is rebuilt, never appended.
void nameDelayingRanks(std::vector<ReportPtr>& reports, JobReport& job);

// Its parts, for a report read after the match (ringscope merge): the recommendation of the
// job, whether a report needs it, and writing it in.
std::string delayingRanksNote(const JobReport& job);
bool needsDelayingRanksNote(const AnalysisReport& report, const std::string& text);
void applyDelayingRanksNote(AnalysisReport& report, const std::string& text);

} // namespace rs
