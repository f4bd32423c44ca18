#pragma once

// SQLite's file format read directly (https://www.sqlite.org/fileformat2.html), for the big
// scans of a profiler database: a rowid table's leaf cells decoded in place, without SQLite's
// virtual machine and its per-column calls, which were a third of a database load's time
// (docs/performance.md, "The database export"). It reads the view of dbfile.h (a WAL file's
// committed frames applied, a hot journal played back), the one SQLite reads too.
//
// Damage is checked as SQLite's b-tree rules require, and at least as strictly as SQLite's own
// reading checks it: page types (a table's pages, its leaves all at one depth, interior pages
// and non-root pages never empty), cell pointers and cells inside the page past its pointer
// array, payloads and overflow chains within the file, keys in order (within a page and
// within the bounds its parent gives), no page reached twice. The first damage stops a scan
// with a message naming the file, the table and the page; the rows before it were read.
// What it does not read (a text encoding other than UTF-8, WITHOUT ROWID tables, columns with
// defaults) the caller reads through SQL: rawTable() says which.
//
// Costs: a scan reads each leaf page once (one pread); find() of keys that mostly increase
// reads a leaf per leaf's worth of keys; a page path is kept per cursor.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace rs::sqlite {

class Database;
class DbFile;

// The pages of a database's view (dbfile.h), read with pread (thread-safe).
class PageFile {
public:
    // nullptr with *why set when the file is not one this reader reads.
    static std::shared_ptr<const PageFile> open(std::shared_ptr<const DbFile> file,
                                                std::string* why);
    static std::shared_ptr<const PageFile> openPath(const std::string& path, std::string* why);
    static std::shared_ptr<const PageFile> openBytes(const void* data, std::size_t size,
                                                     std::string* why);
    PageFile(const PageFile&) = delete;
    PageFile& operator=(const PageFile&) = delete;

    std::uint32_t pageSize() const { return m_pageSize; }
    std::uint32_t usableSize() const { return m_usable; }
    std::uint32_t pageCount() const { return m_pageCount; }
    const std::string& name() const;
    const DbFile& file() const { return *m_file; }
    // Page n (1-based) into buf (pageSize bytes); false when past the end or unreadable.
    bool read(std::uint32_t n, std::uint8_t* buf) const;
    // " (from the -wal)" or " (from the -journal)" for a page a log holds; else empty.
    std::string origin(std::uint32_t page) const;

private:
    PageFile() = default;
    bool readHeader(std::string* why);

    std::shared_ptr<const DbFile> m_file;
    std::uint32_t m_pageSize = 0, m_usable = 0, m_pageCount = 0;
};

// A rowid table as the reader sees it: its root page and columns, the INTEGER PRIMARY KEY
// column (stored as the rowid) if any.
struct RawTableInfo {
    std::uint32_t root = 0;
    std::vector<std::string> columns;
    // Columns of REAL affinity: SQLite stores a whole value there as an integer and reads it
    // back as a real.
    std::vector<bool> real;
    int rowidColumn = -1;
    int column(std::string_view name) const; // index, or -1
};

// What the file's schema says of a table, through SQLite (the schema is small); nullopt when
// it is absent or not a plain rowid table whose records this reader can decode.
std::optional<RawTableInfo> rawTable(Database& db, std::string_view table);

// A cursor over a rowid table's b-tree, in rowid order.
class TableCursor {
public:
    TableCursor(std::shared_ptr<const PageFile> file, const RawTableInfo& table,
                std::string tableName);

    // Decodes only the first n columns of each row (a reader that needs no more); the others
    // then read as NULL.
    void limitColumns(std::size_t n) { m_columnCount = std::min(n, m_real.size()); }

    // The first row with a rowid >= key; false at the end or on damage (failed()).
    bool seek(std::int64_t key);
    // The next row; false at the end or on damage.
    bool next();
    // The row whose rowid is key: false when there is none (or on damage).
    bool find(std::int64_t key);

    std::int64_t rowid() const { return m_rowid; }
    bool failed() const { return !m_error.empty(); }
    // "<file>: table <T>, page <P>: <what>" (the page with " (from the -wal)" when a log
    // holds it).
    const std::string& error() const { return m_error; }

    // The current row's columns by table index, with sqlite::Statement's meaning: integer()
    // of an integer or of text holding exactly one, real() of a number or numeric text.
    bool isNull(int col) const;
    [[gnu::always_inline]] std::optional<std::int64_t> integer(int col) const
    {
        // The common case inline: an integer stored in an integer column.
        if (col >= 0 && col != m_rowidColumn && std::size_t(col) < m_recordColumns) {
            const Value v = m_values[std::size_t(col)];
            if (v.type >= 1 && v.type <= 6 && !m_real[std::size_t(col)]) {
                const std::uint8_t* p = m_payload + v.offset;
                switch (v.type) {
                case 1:
                    return std::int8_t(p[0]);
                case 2:
                    return std::int16_t(p[0] << 8 | p[1]);
                case 3:
                    return std::int32_t((std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 |
                                         std::uint32_t(p[2]) << 8)) >>
                           8;
                case 4:
                    return std::int32_t(std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 |
                                        std::uint32_t(p[2]) << 8 | p[3]);
                default: {
                    const int n = v.type == 5 ? 6 : 8;
                    std::uint64_t x = p[0] & 0x80 ? ~0ull : 0;
                    for (int i = 0; i < n; ++i)
                        x = x << 8 | p[i];
                    return std::int64_t(x);
                }
                }
            }
        }
        return integerSlow(col);
    }
    std::optional<double> real(int col) const;
    std::string_view text(int col) const;
    // The column's value as SQLite turns it into a rowid to look a row up by (numeric
    // affinity: an integer, a real that is exactly one, text that reads as one); nullopt when
    // it does not, and then SQLite finds no row either.
    std::optional<std::int64_t> rowidKey(int col) const;

private:
    struct Level {
        std::uint32_t page = 0;
        std::vector<std::uint8_t> data;
        int header = 0; // offset of the b-tree page header (100 on page 1)
        int cells = 0;  // cell count
        int cell = 0;   // current cell; on an interior page, cells means the right child
        bool leaf = false;
        bool keysKnown = false; // a leaf's first and last rowid, for find()
        std::int64_t firstKey = 0, lastKey = 0;
        // The keys its parent allows under it: (lo, hi]
        bool hasLo = false, hasHi = false;
        std::int64_t lo = 0, hi = 0;
    };
    struct Value {
        std::uint32_t type = 0; // serial type (a record is at most SQLite's 10^9 bytes)
        std::uint32_t offset = 0;
    };

    std::optional<std::int64_t> integerSlow(int col) const;
    bool load(int depth, std::uint32_t page);
    bool descend(int depth, std::uint32_t page, std::optional<std::int64_t> key);
    bool enterCell(); // decodes the leaf cell at the top level's cursor
    bool settle();    // onto the current leaf cell, or the next one across pages
    std::int64_t leafKey(const Level& l, int cell, bool* ok) const;
    // Child i of interior level l (the right child for i == cells) with its key bounds.
    bool child(int depth, int i, std::uint32_t* page);
    bool claim(std::uint32_t page); // a page reached by this scan: false the second time
    bool fail(std::uint32_t page, const std::string& what);

    std::shared_ptr<const PageFile> m_file;
    std::string m_table;
    int m_rowidColumn = -1;
    std::size_t m_columnCount = 0;
    std::vector<char> m_real;
    std::vector<Level> m_path; // root .. leaf
    int m_depth = 0;           // levels in use
    std::uint32_t m_root = 0;
    std::int64_t m_rowid = 0;
    bool m_valid = false;
    // A scan's guards against a damaged tree: rowids must increase, no page is reached twice,
    // every leaf is at one depth.
    std::int64_t m_last = 0;
    bool m_hasLast = false;
    bool m_scanning = false;
    std::unordered_set<std::uint32_t> m_seen;
    int m_leafDepth = -1;
    // The current record: its payload (in place on the page, or assembled from overflow)
    const std::uint8_t* m_payload = nullptr;
    std::uint32_t m_payloadSize = 0;
    std::vector<std::uint8_t> m_overflow;
    std::vector<Value> m_values;
    std::size_t m_recordColumns = 0;
    mutable char m_number[32];
    std::string m_error;
};

// Rows read by cursors, seen as a query's row with sqlite::Statement's calls: column i of the
// select is column cols[i].col of a cursor (a join's side reads as NULLs where it found no
// row; col -1 reads as NULL). A database reader's row code then serves both readers.
struct RawRow {
    struct Col {
        const TableCursor* cursor = nullptr;
        int col = -1;
        const bool* found = nullptr; // a joined table's row, when there is one
    };
    std::vector<Col> cols;

    // Inlined: a call returning an optional through memory stalled on its store (GCC 12).
    [[gnu::always_inline]] const Col* at(int i) const
    {
        const Col& c = cols[std::size_t(i)];
        return c.cursor && (!c.found || *c.found) ? &c : nullptr;
    }
    bool isNull(int i) const
    {
        const Col* c = at(i);
        return !c || c->cursor->isNull(c->col);
    }
    [[gnu::always_inline]] std::optional<std::int64_t> integer(int i) const
    {
        const Col* c = at(i);
        return c ? c->cursor->integer(c->col) : std::nullopt;
    }
    std::optional<double> real(int i) const
    {
        const Col* c = at(i);
        return c ? c->cursor->real(c->col) : std::nullopt;
    }
    std::string_view text(int i) const
    {
        const Col* c = at(i);
        return c ? c->cursor->text(c->col) : std::string_view();
    }
};

} // namespace rs::sqlite
