#pragma once

// What the viewer says about flagged collectives, once for every pane: a flagged op is a
// cause (its own extra internal Memcpy, or its unaligned transfers) or a waiter (it only waited
// for a slower peer); the counts ("2 causes · 14 waiting"), the words for one op ("cause: rank
// 0 copies its input" / "waits 200 ms for rank 0") and the finding an event is evidence of.

#include "core/analysis/report.h"
#include "core/job/crossrank.h"

#include <QString>

#include <optional>

namespace rs::flagged {

enum class Role : std::uint8_t { None, Cause, Waiting };

// Cause: anomalous (the extra copy), or unaligned transfers on an op that did not wait.
// Waiting: waited for a peer, no copy of its own. None: not flagged.
Role roleOf(const Collective& c);
// The role of an event: of the collective whose op it is (a task of one: None).
Role roleOf(const AnalysisReport& report, EventId e);

struct Counts {
    int causes = 0, waiting = 0;
    int total() const { return causes + waiting; }
};
Counts count(const AnalysisReport& report);
// "2 causes · 14 waiting", "1 cause", "3 waiting", "none flagged".
QString countText(const Counts& c);

// The finding to show for an event: the rank's own error or warning about its op (it has the
// call stack to the frame to change), then the job's finding about its instance, then the
// finding whose main evidence it is, then any finding that lists it (a task: its
// collective's). -1 when none.
int findingOf(const AnalysisReport& report, EventId e);

// What the op does, for the status bar ("cause 1 of 2: …", "waiting 3 of 14: …"): "rank 0
// copies its input (extra Memcpy 200 ms)", "rank 2 sends 3 unaligned transfers", "rank 3 waits
// 200 ms for rank 0", "rank 3 waits 200 ms for a slower rank". rank: the op's rank; instance:
// its cross-rank instance in a job (names whom it waited for).
QString describe(const Collective& c, std::optional<int> rank,
                 const CrossRankCollective* instance = nullptr);

// The rule's word for the frame to change in a call stack: "allocate aligned here" for the
// copy and alignment findings, empty for the others.
QString fixMark(const Finding& f);

} // namespace rs::flagged
