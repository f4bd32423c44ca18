#pragma once

#include "core/trace.h"

#include <string>
#include <vector>

namespace rs::test {

// A canonical, deterministic text of everything a loaded Trace holds, in sections. Strings are
// written as text (never as StrId), so two models compare equal when they say the same thing
// however their strings were numbered; the order of slices, tracks, processes and flows is
// kept, because callers see it. The path is left out (it depends on where a file lives).
struct ModelSection {
    std::string name;  // "slices", "flows", ...
    std::size_t count; // lines in the section
    std::string text;  // one line per item, '\n'-terminated
};

std::vector<ModelSection> dumpModel(const Trace& trace);
// All sections as one text, each under a "[name]" header line.
std::string dumpModelText(const Trace& trace);

// Hex SHA-256 of text (the goldens keep its first 128 bits).
std::string sha256Hex(const std::string& text);

} // namespace rs::test
