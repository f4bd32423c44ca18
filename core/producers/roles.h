#pragma once

// Role rules more than one producer uses.

#include "core/trace.h"

#include <vector>

namespace rs::producers {

// Kineto-style role from the categories of a track's first slices (names are optional there):
// kernels, copies and GPU annotations make a GPU stream; cpu_op, runtime and Python calls a
// host thread.
TrackRole roleFromCategories(const Trace& trace, TrackId t);
// Counter tracks of a process that holds device work (a GPU or Ascend stream) measure the
// device: their role becomes DeviceMetric.
void markDeviceCounters(const Trace& trace, std::vector<TrackRole>& roles);

} // namespace rs::producers
