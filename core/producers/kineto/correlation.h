#pragma once

// CUPTI's (and roctracer's) correlation id: the one number a runtime call and the GPU work it
// launched share in a Kineto trace (args "correlation").

#include "core/producers/producer.h"

#include <cstdint>
#include <optional>

namespace rs::kineto {

// The "correlation" arg of an event, read from its args text (no JSON parse: it runs on many
// events).
std::optional<std::uint64_t> correlationOf(const Trace& trace, EventId e);

// Each GPU kernel, copy or set that no flow reaches, linked to the runtime call with its
// correlation id: Kineto's ac2g flow ends are sometimes missing or written on the host thread
// (TraceLens' MI300X trace), and CUPTI's clocks may start a kernel before its launch ends.
// Costs nothing when every device event has its flow; else one args scan of the device events
// without one and of the runtime calls.
ImpliedFlows launchFlowsByCorrelation(const Trace& trace);

} // namespace rs::kineto
