#pragma once

// Oracles of the rank summary (ringscope.ranksummary/1): the document reader the one-pass
// reader replaced, and the summary as a document for tests that edit it.

#include "core/job/ranksummary.h"

#include <nlohmann/json.hpp>

namespace rs::test {

// From a parsed document: every field checked for its JSON type, a wrong one counted and
// skipped; the same result as rankSummaryFromText(text) (tst_ranksummary).
RankSummaryRead rankSummaryFromJson(const nlohmann::json& j);

// rankSummaryText(report, path) parsed.
inline nlohmann::json rankSummaryToJson(const AnalysisReport& report, const std::string& path)
{
    return nlohmann::json::parse(rankSummaryText(report, path));
}

} // namespace rs::test
