#pragma once

// Nsight Systems' analysis model: Kineto's (the reader writes Kineto's categories for GPU work
// and CUDA calls: collectives are the host ranges that launched NCCL kernels, with the copies
// they launched), reached by the launch flows the reader draws by correlationId, NCCL's own NVTX
// ranges (ncclAllReduce, ncclSend...) as host ops of their kind, and the bytes NCCL's NVTX
// payload states ("Message size [bytes]").

#include "core/analysis/producermodel.h"

namespace rs::analysis {

const ProducerModel& nsysModel();

} // namespace rs::analysis
