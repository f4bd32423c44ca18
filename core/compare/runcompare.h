#pragma once

// Before/after comparison of two runs and scaling efficiency across card counts, computed from
// run digests (core/compare/rundigest.h). Every delta is after - before. Definitions in
// docs/compare.md; the JSON forms ("ringscope.compare/1", "ringscope.scaling/1") are in
// core/compare/comparereport.h.

#include "core/compare/rundigest.h"

#include <optional>
#include <string>
#include <vector>

namespace rs {

struct StepDelta {
    int step = 0;
    std::optional<TimeNs> beforeNs, afterNs; // mean over the ranks; none when the side lacks it
    std::optional<TimeNs> deltaNs() const
    {
        return beforeNs && afterNs ? std::optional<TimeNs>(*afterNs - *beforeNs) : std::nullopt;
    }
};

struct CollectiveDelta {
    CollectiveKind kind = CollectiveKind::Other;
    std::string pattern;      // the before side's name pattern (the after side's when only it)
    std::string afterPattern; // the after side's, when it calls the op otherwise
    // How the two sides' groups were paired: "pattern" (the same op name pattern), "shape"
    // (another producer's name for the same op: kind, group size, payload and order match),
    // or "" when only one side has the group.
    std::string matchedBy;
    int beforeCount = 0, afterCount = 0;
    std::optional<TimeNs> beforeMeanNs, afterMeanNs; // none when the side has no such op
    TimeNs beforeExtraMemcpyNs = 0, afterExtraMemcpyNs = 0;
    std::optional<TimeNs> deltaNs() const
    {
        return beforeMeanNs && afterMeanNs ? std::optional<TimeNs>(*afterMeanNs - *beforeMeanNs)
                                           : std::nullopt;
    }
};

// A finding key on both sides: which run has it and how often.
struct FindingChange {
    FindingDigest finding; // the after side's when it has one, else the before side's
    int beforeCount = 0, afterCount = 0;
};

struct OpDelta {
    std::string name;
    TimeNs beforeNs = 0, afterNs = 0;
    std::uint64_t beforeCount = 0, afterCount = 0;
    TimeNs deltaNs() const { return afterNs - beforeNs; }
};

// A delta within the noise of the measurement: under 1 µs (the resolution of Kineto's
// microsecond clock) or under 0.5% of the before value. Such deltas are neutral: neither
// faster nor slower, and a percentage that rounds to 0.0 carries no sign.
bool withinNoise(TimeNs delta, std::optional<TimeNs> before = std::nullopt);
inline constexpr TimeNs kNoiseFloorNs = 1000;
inline constexpr double kNoiseFraction = 0.005;

struct RunComparison {
    RunDigest before, after;
    std::optional<TimeNs> stepDeltaNs() const
    {
        return before.stepMeanNs && after.stepMeanNs
                   ? std::optional<TimeNs>(*after.stepMeanNs - *before.stepMeanNs)
                   : std::nullopt;
    }
    // 100 x delta / before mean; none without steps on both sides or with a zero before mean.
    std::optional<double> stepDeltaPct() const;

    std::vector<StepDelta> steps;             // every step number of either side, ascending
    std::vector<CollectiveDelta> collectives; // largest |change of total time| first
    std::vector<FindingChange> resolved;      // keys only before
    std::vector<FindingChange> added;         // keys only after ("findings_new")
    std::vector<FindingChange> persisting;    // keys on both sides
    // Findings of a rule the other side's producer cannot evaluate (HCCL's per-task time info
    // behind sync-dominated: a Kineto trace has none): neither resolved nor new.
    std::vector<FindingChange> notComparable;
    // The runs come from different producers (torch_npu against Kineto): collectives are
    // matched by what they do, kernel names of ops do not match.
    bool crossProducer = false;
    std::vector<OpDelta> ops; // every op name, largest |delta| first
    // Both sides know their ops. A side of rank summaries does not (a summary holds no per-op
    // device time): ops is then empty, which means "not available", not "no change".
    bool opsAvailable = true;
};

RunComparison compareRuns(RunDigest before, RunDigest after);
// The same from loaded sides (digests them).
RunComparison compareRuns(const RunSide& before, const RunSide& after);

struct ScalingPoint {
    std::string path;
    int cards = 0;
    std::optional<TimeNs> stepMeanNs;
    // Strong: (cards0 x T0) / (cards x T); weak: T0 / T. A fraction (1 = ideal); none when a
    // step time or a card count is missing.
    std::optional<double> efficiency;
    std::optional<double> speedup; // T0 / T
};

// Runs in the order given; the first is the baseline.
std::vector<ScalingPoint> scalingOf(const std::vector<RunDigest>& runs, bool weak);

} // namespace rs
