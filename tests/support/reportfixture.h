#pragma once

// Hand-built analysis reports for the plot tests: the seed case's figures without a trace.

#include "core/analysis/report.h"

#include <memory>

namespace rs::test {

// Seed case, one rank: steps 10..15 of ~320 ms computing; communication 195..410 ms; one
// AllReduce per step (mode A ~193 ms, mode B ~401 ms with one extra ~200 ms Memcpy: anomalous)
// plus two 2.5 ms AllGathers per step (a second signature group). Step 12's AllReduce carries
// a small baseline memcpy. rank shifts computing by rank * 1.5 ms so ranks differ.
// The trace is null: event ids are made up (steps 100+, collectives 1000+, copies 5000+).
std::shared_ptr<AnalysisReport> seedCaseReport(int rank = 0);

} // namespace rs::test
