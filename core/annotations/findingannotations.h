#pragma once

// Automatic annotations derived from an analysis: what a user would write by hand on the
// picture they send to the team owning the custom op.

#include "core/analysis/report.h"
#include "core/annotations/annotation.h"

#include <vector>

namespace rs {

inline constexpr const char* kColourAnomaly = "#d62728";   // the anomalous collective
inline constexpr const char* kColourExtraCopy = "#e6760a"; // its extra internal memcpy
inline constexpr const char* kColourSource = "#7b3fb5";    // the source frame of its input

// For every anomalous collective: a note on it (its mode, duration versus the fastest mode and
// the extra memcpy time), a note on each extra internal memcpy (duration, size, alignment) and
// the source frame from the finding's call stack (a note on that slice plus an arrow to the
// collective when the frame is a slice; a line of the collective's note otherwise).
// maxCollectives bounds the output on traces with thousands of flagged ops (0 = all).
std::vector<Annotation> findingAnnotations(const AnalysisReport& report,
                                           std::size_t maxCollectives = 0);

} // namespace rs
