#pragma once

// Where a trace's activity is: the span the first view of the timeline fits, instead of the
// trace's whole span (which counters sampled from process start, or one lone marker, can
// stretch to several times the part where anything happens).

#include "core/trace.h"

#include <optional>
#include <utility>

namespace rs {

// The span holding the bulk of the slices on device and communication tracks (Ascend
// Hardware, HCCL, GPU streams; every slice track when there are none): without the small
// groups of slices at either end (at most 1% of them) that an idle gap of a tenth of the span
// separates from the rest (a process-start marker, a lone late slice). A long slice running
// across a gap keeps both sides. nullopt when the trace has no slice.
std::optional<std::pair<TimeNs, TimeNs>> activityExtent(const Trace& trace);

} // namespace rs
