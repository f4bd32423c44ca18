#pragma once

// A thin RAII layer over libsqlite3 for reading a profiler database. SQLite reads the view of
// the file that dbfile.h takes (its -wal's committed frames or its hot -journal applied),
// through a VFS of ours that serves those bytes and nothing else: read-only, without locks,
// a -shm or a journal, so a database a running job is still writing is neither blocked nor
// changed, and a folder that cannot be written opens as any other. Every error names the file
// (and the table, where there is one).

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace rs::sqlite {

class DbFile;
class Statement;

class Database {
public:
    Database() = default;
    ~Database();
    Database(Database&& o) noexcept;
    Database& operator=(Database&& o) noexcept;
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    // Opens a file read-only without locking (DbFile::open: as of now); false and error()
    // when it cannot (not a file, not a database). cancel, when given, interrupts a query in
    // progress once it is set.
    bool open(const std::string& path, const std::atomic<bool>* cancel = nullptr);
    // Opens a view already taken: the connections of one load share it, so they all read the
    // same moment of the file.
    bool open(std::shared_ptr<const DbFile> file, const std::atomic<bool>* cancel = nullptr);
    // Opens bytes in memory as a database (tests and fuzzing). The bytes are copied.
    bool openBytes(const std::string& name, const void* data, std::size_t size);
    bool isOpen() const { return m_db != nullptr; }
    const std::string& path() const { return m_path; }
    const std::string& error() const { return m_error; }
    // The view this connection reads (null until opened).
    const std::shared_ptr<const DbFile>& file() const { return m_file; }

    bool hasTable(std::string_view table) const;
    // Whether an index of the table starts with that column (a join on it is a lookup).
    bool hasIndexOn(std::string_view table, std::string_view column) const;
    // Column names of a table (empty when it has none or is absent).
    std::vector<std::string> columns(std::string_view table) const;
    // Prepares a query; on failure the statement is invalid and error() names the table.
    Statement prepare(std::string_view sql, std::string_view table);
    // The last SQLite error, with the file and table named.
    std::string describe(std::string_view table, int code) const;

private:
    friend class Statement;
    sqlite3* m_db = nullptr;
    std::shared_ptr<const DbFile> m_file;
    std::string m_path;
    std::string m_error;
    const std::atomic<bool>* m_cancel = nullptr;
};

// A prepared query stepped row by row.
class Statement {
public:
    Statement() = default;
    ~Statement();
    Statement(Statement&& o) noexcept;
    Statement& operator=(Statement&& o) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    bool valid() const { return m_stmt != nullptr; }
    // Next row: true while there is one. false at the end or on an error (failed() says).
    bool step();
    bool failed() const { return !m_error.empty(); }
    const std::string& error() const { return m_error; }

    int columnCount() const;
    bool isNull(int col) const;
    // The column as a 64-bit integer: integers as they are, text of a decimal integer read
    // exactly (torch_npu stores PYTORCH_API's times as TEXT), anything else nullopt.
    std::optional<std::int64_t> integer(int col) const;
    std::optional<double> real(int col) const; // integers and reals; text that is a number
    std::string_view text(int col) const;      // text and blobs as bytes; numbers as text

private:
    friend class Database;
    Statement(Database* db, sqlite3_stmt* stmt, std::string table)
        : m_db(db), m_stmt(stmt), m_table(std::move(table))
    {}
    Database* m_db = nullptr;
    sqlite3_stmt* m_stmt = nullptr;
    std::string m_table;
    std::string m_error;
};

} // namespace rs::sqlite
