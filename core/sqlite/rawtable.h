#pragma once

// SQLite's file format read directly (https://www.sqlite.org/fileformat2.html), for the big
// scans of a profiler database: a rowid table's leaf cells decoded in place, without SQLite's
// virtual machine and its per-column calls, which were a third of a database load's time
// (docs/performance.md, "The database export"). Read-only, on its own file descriptor; every
// page, cell and record is bounds-checked, and a damaged one stops the scan with a message.
// What it does not read (a WAL database, a text encoding other than UTF-8, WITHOUT ROWID
// tables, columns with defaults) the caller reads through SQL: rawTable() says which.
//
// Costs: a scan reads each leaf page once (one pread); find() of keys that mostly increase
// reads a leaf per leaf's worth of keys; a page path is kept per cursor.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rs::sqlite {

class Database;

// The pages of a database file, read with pread (thread-safe), or of an image in memory.
class PageFile {
public:
    // nullptr with *why set when the file is not one this reader reads.
    static std::shared_ptr<const PageFile> openPath(const std::string& path, std::string* why);
    static std::shared_ptr<const PageFile> openBytes(const void* data, std::size_t size,
                                                     std::string* why);
    ~PageFile();
    PageFile(const PageFile&) = delete;
    PageFile& operator=(const PageFile&) = delete;

    std::uint32_t pageSize() const { return m_pageSize; }
    std::uint32_t usableSize() const { return m_usable; }
    std::uint32_t pageCount() const { return m_pageCount; }
    const std::string& name() const { return m_name; }
    // Page n (1-based) into buf (pageSize bytes); false when past the end or unreadable.
    bool read(std::uint32_t n, std::uint8_t* buf) const;

private:
    PageFile() = default;
    bool readHeader(const std::uint8_t* head, std::uint64_t fileSize, std::string* why);

    std::string m_name;
    int m_fd = -1;
    std::vector<std::uint8_t> m_bytes; // an image in memory (m_fd < 0)
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
    bool fail(const std::string& what);

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
    // A scan's guards against a damaged tree: rowids must increase, pages are finite.
    std::int64_t m_last = 0;
    bool m_hasLast = false;
    std::uint64_t m_pagesRead = 0;
    // The current record: its payload (in place on the page, or assembled from overflow)
    const std::uint8_t* m_payload = nullptr;
    std::uint32_t m_payloadSize = 0;
    std::vector<std::uint8_t> m_overflow;
    std::vector<Value> m_values;
    std::size_t m_recordColumns = 0;
    mutable char m_number[32];
    std::string m_error;
};

} // namespace rs::sqlite
