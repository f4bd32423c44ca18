#pragma once

// The analysis model of traces of unknown origin: every producer's conventions at once.

#include "core/analysis/producermodel.h"

namespace rs::analysis {

const ProducerModel& genericModel();

} // namespace rs::analysis
