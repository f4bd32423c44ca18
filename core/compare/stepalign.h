#pragma once

// Time axes of two runs aligned by step: a time of one run maps to the same offset into the
// same step of the other (step N of one over step N of the other). Steps pair by number when
// the runs share step numbers, else by order (a rerun that profiled steps 10-15 against one
// that profiled 40-45). Pure arithmetic; O(log steps) per mapping.

#include "core/analysis/report.h"

#include <optional>
#include <utility>
#include <vector>

namespace rs {

// Where a step starts in one run: the earliest device busy start over its ranks (the host
// step start when no rank has device work in it), and where it ends (latest busy end).
struct StepAnchor {
    int step = 0;
    TimeNs start = 0, end = 0;
};

// Anchors of every step number in the reports (one per rank, any clock they share), sorted.
std::vector<StepAnchor> stepAnchors(const std::vector<ReportPtr>& reports);

class StepAlignment {
public:
    StepAlignment() = default;
    StepAlignment(std::vector<StepAnchor> a, std::vector<StepAnchor> b);

    bool valid() const { return !m_pairs.empty(); }
    bool byNumber() const { return m_byNumber; }
    // Paired anchors (a side, b side), in a's order.
    const std::vector<std::pair<StepAnchor, StepAnchor>>& pairs() const { return m_pairs; }

    // The time of the other side at the same offset into the paired step: the step that
    // starts last at or before pickAt (default t; the first pair before the first step).
    // fromA: t is on a. A view maps its left edge picking by its centre, so the step in
    // the middle of the screen lines up.
    std::optional<TimeNs> map(TimeNs t, bool fromA, std::optional<TimeNs> pickAt = {}) const;
    // The pair of a step number of side a (fromA) or b, by number or order.
    std::optional<std::pair<StepAnchor, StepAnchor>> pairOf(int step, bool fromA) const;

private:
    std::vector<std::pair<StepAnchor, StepAnchor>> m_pairs;
    std::vector<std::size_t> m_byB; // indices into m_pairs sorted by the b anchor's start
    bool m_byNumber = false;
};

} // namespace rs
