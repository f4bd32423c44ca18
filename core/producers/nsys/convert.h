#pragma once

// Nsight Systems reports (.nsys-rep; .qdrep before nsys 2021.4) are NVIDIA's closed format:
// Ringscope reads their SQLite export. Where `nsys` is on the PATH a report is converted once
// (`nsys export --type sqlite`) into the model cache's folder (core/cache/modelcache.h; a
// temporary folder when no cache is installed) and the export is read; where it is not, the
// message names the command to run.

#include "core/traceloader.h"

#include <string>

namespace rs::nsys {

// Whether a file name is a report's (*.nsys-rep, *.qdrep).
bool isReportName(const std::string& path);

struct Converted {
    std::string file;  // the export (empty on failure)
    std::string error; // for the user, naming the report and the command
    bool cancelled = false;
};
// The export of a report, converted now unless a conversion of this very file (its path, size
// and mtime) is kept. progress (may be null): the conversion's share grows with the export's
// size; cancel stops it. options.cache: where the export goes (else ModelCache::processCache()).
Converted exportOf(const std::string& report, const LoadOptions& options, LoadProgress* progress);

// The command a user runs to convert a report by hand.
std::string exportCommand(const std::string& report);

} // namespace rs::nsys
