#pragma once

// Flight Recorder dumps for tests: the shared scenarios read, and a dump written back as
// PyTorch's JSON form (FlightRecorder::dump_json), so cases made in code from the shared dumps
// go through the files a job reads.

#include "core/producers/flightrecorder/dump.h"

#include <QString>

#include <string>
#include <vector>

namespace rs::test {

inline constexpr const char* kFrGpuError = "pytorch_flight_recorder_gpu_error_16rank";
inline constexpr const char* kFrLockGil = "pytorch_flight_recorder_lock_gil_16rank";

// The 16 dumps of a shared scenario, by rank (qFatal when one does not read).
std::vector<flightrecorder::Dump> loadFrSet(const char* set);

// PyTorch's JSON form of a dump (version "2.10", comm_lib_version, pg_status numbers as text, 0
// for a time not yet seen, no `entries` when there are none, keys a reader does not know).
std::string frDumpJson(const flightrecorder::Dump& d);

// Writes each dump with a rank as dir/_dump_<rank>.json; false when one cannot be written.
bool writeFrJob(const QString& dir, const std::vector<flightrecorder::Dump>& dumps);

} // namespace rs::test
