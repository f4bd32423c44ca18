#pragma once

// The rules that judge what the producers extracted and make findings. They know no producer
// (only the roles of tracks, the shared vocabulary) and write no text themselves
// (presentation.h). Thresholds and rule ids: docs/analysis.md.

#include "core/analysis/producers/producer.h"

namespace rs::analysis::rules {

// Signature groups, duration modes, baselines; marks collectives anomalous or waiting, their
// extra copies, and writes the group summaries and verdicts.
void judgeCollectives(AnalysisReport& rep, const AnalysisContext& ctx);
// collective-extra-memcpy, collective-waiting, unaligned-transfer-size, unaligned-address.
// Sorts ctx.unaligned.
void collectiveFindings(AnalysisReport& rep, AnalysisContext& ctx);

} // namespace rs::analysis::rules
