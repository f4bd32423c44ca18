#pragma once

// Private to core/job/ranksummary*.cpp: what the two summary readers share (the DOM reader in
// ranksummary.cpp, the one-pass reader in ranksummaryread.cpp) so that they read a name, refuse
// a summary and warn about its bad fields in the same words, and the rank order the merge and
// sortByRank share.

#include "core/analysis/report.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rs::summaryschema {

// Names as the writer spells them, read back; an unknown one reads as the default (Other,
// Warning, the registry's "other").
CollectiveKind kindFromName(const std::string& s);
Severity severityFromName(const std::string& s);
std::string producerFromName(const std::string& s);

// Why a document is refused: not an object (type: its JSON type name, nlohmann's), no
// "schema", another schema version.
std::string notAnObjectError(const std::string& type);
std::string noSchemaError();
std::string otherSchemaError(const std::string& version);

// One warning per key of a wrong JSON type, with its count, in key order.
std::vector<std::string> badFieldWarnings(const std::map<std::string, std::uint64_t>& keys);

// A matrix entry as written (its scope, "links" naming one shared set of links) expanded
// into one entry per link, appended to out.
void expandMatrixLinks(const MatrixEntry& head, const std::vector<MatrixEntry>& links,
                       std::vector<MatrixEntry>& out);

// The job's rank order (loadJob's): indices of declared sorted by rank, a rank-less one at its
// position in the given order; stable.
std::vector<std::size_t> rankOrder(const std::vector<std::optional<int>>& declared);

} // namespace rs::summaryschema
