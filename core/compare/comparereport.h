#pragma once

// The stable outputs of `ringscope compare` (docs/compare.md): the "ringscope.compare/1" and
// "ringscope.scaling/1" JSON documents (streamed from field tables, core/fieldtable.h; their
// bytes pinned by tests/data/golden/cli) and their short text forms for bug reports. Fields may
// be added; none is renamed or removed.

#include "core/compare/runcompare.h"

#include <cstddef>
#include <string>
#include <vector>

namespace rs {

// ringscope.compare/1, keys sorted, two spaces of indent, without a final newline; topOps: how
// many of the largest op changes "ops" lists (0: all).
std::string compareJson(const RunComparison& c, std::size_t topOps = 20);
std::string compareToText(const RunComparison& c, std::size_t topOps = 10);

// ringscope.scaling/1, as compareJson.
std::string scalingJson(const std::vector<ScalingPoint>& runs, bool weak);
std::string scalingToText(const std::vector<ScalingPoint>& runs, bool weak);

} // namespace rs
