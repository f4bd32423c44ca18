#pragma once

// The analysis model of a Flight Recorder trace (model.cpp).

#include "core/analysis/producermodel.h"

namespace rs::flightrecorder {

const analysis::ProducerModel& model();

} // namespace rs::flightrecorder
