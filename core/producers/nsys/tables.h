#pragma once

// Reading one table of an export row by row, the same way for the direct page reader
// (core/sqlite/rawtable.h: the big tables without SQL) and for SQLite's queries (a table the
// page reader does not read, a database in WAL mode): the reader asks for columns by name, a
// column the table lacks reads as NULL, and RowView answers with sqlite::Statement's meaning.

#include "core/sqlite/rawtable.h"
#include "core/sqlite/sqlitedb.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rs::nsys {

// One row as the reader asked for it: column i is the i-th name asked.
class RowView {
public:
    RowView(const sqlite::TableCursor& c, const std::vector<int>& index)
        : m_cursor(&c), m_index(&index)
    {}
    explicit RowView(const sqlite::Statement& st) : m_statement(&st) {}

    [[gnu::always_inline]] std::optional<std::int64_t> integer(int i) const
    {
        if (m_cursor) {
            const int k = (*m_index)[std::size_t(i)];
            return k < 0 ? std::nullopt : m_cursor->integer(k);
        }
        return m_statement->integer(i);
    }
    std::optional<double> real(int i) const
    {
        if (m_cursor) {
            const int k = (*m_index)[std::size_t(i)];
            return k < 0 ? std::nullopt : m_cursor->real(k);
        }
        return m_statement->real(i);
    }
    std::string_view text(int i) const
    {
        if (m_cursor) {
            const int k = (*m_index)[std::size_t(i)];
            return k < 0 ? std::string_view() : m_cursor->text(k);
        }
        return m_statement->text(i);
    }
    bool isNull(int i) const
    {
        if (m_cursor) {
            const int k = (*m_index)[std::size_t(i)];
            return k < 0 || m_cursor->isNull(k);
        }
        return m_statement->isNull(i);
    }
    // The row's rowid (raw reads only; 0 through SQL, which the reader never asks).
    std::int64_t rowid() const { return m_cursor ? m_cursor->rowid() : 0; }

private:
    const sqlite::TableCursor* m_cursor = nullptr;
    const std::vector<int>* m_index = nullptr;
    const sqlite::Statement* m_statement = nullptr;
};

// A table's columns as the reader asks for them, resolved once against the file's schema.
struct TableRead {
    std::string table;
    std::vector<std::string> names;          // asked, in the order RowView numbers them
    std::vector<int> index;                  // the table's column per name; -1 when it has none
    std::optional<sqlite::RawTableInfo> raw; // when the page reader reads the table
    bool present = false;

    // Whether the table has the named column.
    bool has(std::string_view name) const;
};

// Resolves the columns of a table (absent: present false). raw: use the page reader when the
// file and the table allow.
TableRead resolveTable(sqlite::Database& db, const std::string& table,
                       std::initializer_list<const char*> names, bool raw);
// The query of a table's asked columns (NULL for those it lacks), rowids lo..hi when given.
std::string selectSql(const TableRead& t,
                      std::optional<std::pair<std::int64_t, std::int64_t>> range);

constexpr std::uint64_t kRowsPerCheck = 1 << 14;

// Reads the rows with rowids lo..hi (all rows without a range) in rowid order, through the
// page reader where it reads the table, else as a query. row(const RowView&) is called per
// row; false with *error set when the read stopped (damage: the rows before were read; a
// cancel: "loading was cancelled"). cancel is checked every few thousand rows.
template <typename Row>
bool scan(sqlite::Database& db, const std::shared_ptr<const sqlite::PageFile>& pages,
          const TableRead& t, std::optional<std::pair<std::int64_t, std::int64_t>> range,
          const std::atomic<bool>* cancel, std::string* error, Row&& row)
{
    if (!t.present) return true;
    auto stopped = [&] { return cancel && cancel->load(std::memory_order_relaxed); };
    std::uint64_t n = 0;
    if (t.raw && pages) {
        sqlite::TableCursor c(pages, *t.raw, t.table);
        int last = -1;
        for (int k : t.index)
            last = std::max(last, k);
        c.limitColumns(std::size_t(last + 1));
        const RowView view(c, t.index);
        for (bool ok = c.seek(range ? range->first : INT64_MIN);
             ok && (!range || c.rowid() <= range->second); ok = c.next()) {
            row(view);
            if (++n % kRowsPerCheck == 0 && stopped()) {
                *error = "loading was cancelled";
                return false;
            }
        }
        if (c.failed()) *error = c.error();
        return !c.failed();
    }
    sqlite::Statement st = db.prepare(selectSql(t, range), t.table);
    if (!st.valid()) {
        *error = db.error();
        return false;
    }
    const RowView view(st);
    while (st.step()) {
        row(view);
        if (++n % kRowsPerCheck == 0 && stopped()) {
            *error = "loading was cancelled";
            return false;
        }
    }
    if (st.failed()) {
        *error = st.error();
        return false;
    }
    return true;
}

// The lowest and highest rowid of a table ({1, 0} when it is empty or absent).
std::pair<std::int64_t, std::int64_t> rowidRange(sqlite::Database& db, const std::string& table);

} // namespace rs::nsys
