#include "core/producers/nsys/tables.h"

#include <algorithm>

namespace rs::nsys {

bool TableRead::has(std::string_view name) const
{
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == name) return index[i] >= 0;
    return false;
}

TableRead resolveTable(sqlite::Database& db, const std::string& table,
                       std::initializer_list<const char*> names, bool raw)
{
    TableRead t;
    t.table = table;
    t.present = db.hasTable(table);
    const std::vector<std::string> have =
        t.present ? db.columns(table) : std::vector<std::string>();
    for (const char* n : names) {
        t.names.emplace_back(n);
        const auto it = std::find(have.begin(), have.end(), n);
        t.index.push_back(it == have.end() ? -1 : int(it - have.begin()));
    }
    if (t.present && raw) {
        t.raw = sqlite::rawTable(db, table);
        // The page reader numbers the columns as the schema lists them: look them up there.
        if (t.raw)
            for (std::size_t i = 0; i < t.names.size(); ++i)
                t.index[i] = t.index[i] < 0 ? -1 : t.raw->column(t.names[i]);
    }
    return t;
}

std::string selectSql(const TableRead& t,
                      std::optional<std::pair<std::int64_t, std::int64_t>> range)
{
    std::string sql = "SELECT ";
    for (std::size_t i = 0; i < t.names.size(); ++i) {
        if (i) sql += ", ";
        if (t.index[i] < 0) {
            sql += "NULL";
            continue;
        }
        sql += '"';
        sql += t.names[i]; // the reader's own names: no quote inside
        sql += '"';
    }
    sql += " FROM \"" + t.table + "\"";
    if (range)
        sql += " WHERE rowid BETWEEN " + std::to_string(range->first) + " AND " +
               std::to_string(range->second);
    return sql;
}

std::pair<std::int64_t, std::int64_t> rowidRange(sqlite::Database& db, const std::string& table)
{
    if (!db.hasTable(table)) return {1, 0};
    // One min() or max() per query: SQLite answers it from the b-tree's edge, not a scan.
    auto end = [&](const char* fn) -> std::optional<std::int64_t> {
        sqlite::Statement st =
            db.prepare(std::string("SELECT ") + fn + "(rowid) FROM \"" + table + "\"", table);
        if (!st.valid() || !st.step()) return std::nullopt;
        return st.integer(0);
    };
    const auto lo = end("min"), hi = end("max");
    if (!lo || !hi) return {1, 0};
    return {*lo, *hi};
}

} // namespace rs::nsys
