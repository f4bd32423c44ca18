#pragma once

// Databases made in tests (hostile cases, fixtures of torch_npu's database export).

#include <QString>

#include <string>

namespace rs::test {

// Creates (or extends) the SQLite file at path by running sql (statements separated by ';').
// Returns the error text, empty on success.
std::string execSql(const QString& path, const std::string& sql);

// A string as an SQL literal ('it''s').
std::string sqlQuote(const std::string& s);

} // namespace rs::test
