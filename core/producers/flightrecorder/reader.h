#pragma once

// One rank's Flight Recorder dump as a trace (the producer's read()): a process "Flight
// Recorder", one track per process group with entries (named by its description and name,
// "EXPERT_MODEL_PARALLEL_GROUP 72", in that order), each entry a slice from time_created_ns to
// when it was seen completed, or, still scheduled or started, to the dump (dumpTime: the
// dump's own time is not written), named by its profiling name with its state when not
// completed ("nccl:all_to_all (scheduled)"), its fields in the args (the keys
// kArgs lists), its Python frames as the slice's stack. The dump's facts (format, version,
// rank and where it came from, the groups with pg_status) are the trace's metadata under
// kMetadataKey, which only this producer reads.

#include "core/producers/flightrecorder/dump.h"
#include "core/traceloader.h"

#include <optional>
#include <string>

namespace rs {
class Producer;
}

namespace rs::flightrecorder {

inline constexpr const char* kMetadataKey = "flight_recorder";
inline constexpr const char* kProcessName = "Flight Recorder";

// The trace of a dump read already (the producer reads the file with readDump first).
LoadResult dumpTrace(const Dump& dump, const Producer& producer, std::optional<int> rankHint);

// Reads a dump file into a trace: a file that is not a dump, or one refused (a pickle opcode
// that is not plain data, truncated, over a limit), fails with the reader's message.
LoadResult readDumpTrace(const std::string& path, const Producer& producer,
                         const LoadOptions& options, LoadProgress* progress);

} // namespace rs::flightrecorder
