#include "core/sqlite/sqlitedb.h"

#include <sqlite3.h>

#include <charconv>
#include <cstring>

namespace rs::sqlite {

namespace {

// Steps of the virtual machine between checks of the cancel flag: a few ms of work.
constexpr int kProgressSteps = 100000;

// Before the first connection, once: no global memory statistics (SQLite keeps them under one
// process-wide mutex that every allocation of every connection takes, which serialised the
// loader's parallel readers), and no per-connection mutex (each connection stays on the
// thread that opened it).
void configureOnce()
{
    // A local static's initialisation runs once, thread-safely.
    static const bool configured = [] {
        sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
        sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
        return sqlite3_initialize() == SQLITE_OK;
    }();
    (void)configured;
}

int progressCheck(void* flag)
{
    const auto* cancel = static_cast<const std::atomic<bool>*>(flag);
    return cancel && cancel->load(std::memory_order_relaxed) ? 1 : 0;
}

std::string sqlName(std::string_view table)
{
    std::string q = "\"";
    for (char c : table) {
        if (c == '"') q.push_back('"');
        q.push_back(c);
    }
    q.push_back('"');
    return q;
}

} // namespace

Database::~Database()
{
    if (m_db) sqlite3_close_v2(m_db);
}

Database::Database(Database&& o) noexcept
    : m_db(o.m_db), m_path(std::move(o.m_path)), m_error(std::move(o.m_error)), m_cancel(o.m_cancel)
{
    o.m_db = nullptr;
}

Database& Database::operator=(Database&& o) noexcept
{
    if (this != &o) {
        if (m_db) sqlite3_close_v2(m_db);
        m_db = o.m_db;
        o.m_db = nullptr;
        m_path = std::move(o.m_path);
        m_error = std::move(o.m_error);
        m_cancel = o.m_cancel;
    }
    return *this;
}

bool Database::open(const std::string& path, const std::atomic<bool>* cancel)
{
    configureOnce();
    m_path = path;
    m_cancel = cancel;
    // "unix-none": the unix VFS without file locks. Read-only: nothing is ever written (no
    // journal, no -shm), so a profile still being written by its job is left as it is.
    const int rc = sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READONLY, "unix-none");
    if (rc != SQLITE_OK) {
        m_error = path + ": cannot open as a database (" +
                  (m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc)) + ")";
        if (m_db) sqlite3_close_v2(m_db);
        m_db = nullptr;
        return false;
    }
    sqlite3_extended_result_codes(m_db, 1);
    if (cancel) sqlite3_progress_handler(m_db, kProgressSteps, progressCheck, (void*)cancel);
    // No memory mapping of the file (SQLite's default): mapped pages were as fast as copied ones
    // on a 10M-row database and counted the whole file in the loader's peak RSS
    // (docs/performance.md, "The database export").
    // Opening reads nothing: a file that is no database fails here, on its first page.
    Statement probe = prepare("SELECT count(*) FROM sqlite_master", "sqlite_master");
    if (!probe.valid() || (!probe.step() && probe.failed())) {
        m_error = probe.valid() ? probe.error() : m_error;
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        return false;
    }
    return true;
}

bool Database::openBytes(const std::string& name, const void* data, std::size_t size)
{
    configureOnce();
    m_path = name;
    if (sqlite3_open_v2(":memory:", &m_db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        m_error = name + ": cannot open an in-memory database";
        return false;
    }
    sqlite3_extended_result_codes(m_db, 1);
    auto* copy = static_cast<unsigned char*>(sqlite3_malloc64(size ? size : 1));
    if (!copy) {
        m_error = name + ": out of memory";
        return false;
    }
    if (size) std::memcpy(copy, data, size);
    const int rc =
        sqlite3_deserialize(m_db, "main", copy, sqlite3_int64(size), sqlite3_int64(size),
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
    if (rc != SQLITE_OK) {
        m_error = describe("", rc);
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        return false;
    }
    Statement probe = prepare("SELECT count(*) FROM sqlite_master", "sqlite_master");
    if (!probe.valid() || (!probe.step() && probe.failed())) {
        m_error = probe.valid() ? probe.error() : m_error;
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        return false;
    }
    return true;
}

std::string Database::describe(std::string_view table, int code) const
{
    std::string what = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(code);
    if ((code & 0xff) == SQLITE_INTERRUPT) what = "cancelled";
    std::string s = m_path;
    if (!table.empty()) s += ": table " + std::string(table);
    s += ": ";
    switch (code & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
        s += "the database is damaged or truncated (" + what + ")";
        break;
    default:
        s += what;
        break;
    }
    return s;
}

bool Database::hasTable(std::string_view table) const
{
    if (!m_db) return false;
    sqlite3_stmt* st = nullptr;
    const char* sql = "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?1";
    if (sqlite3_prepare_v2(m_db, sql, -1, &st, nullptr) != SQLITE_OK) return false;
    sqlite3_bind_text(st, 1, table.data(), int(table.size()), SQLITE_TRANSIENT);
    const bool found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

bool Database::hasIndexOn(std::string_view table, std::string_view column) const
{
    if (!m_db) return false;
    std::vector<std::string> indexes;
    sqlite3_stmt* st = nullptr;
    const std::string list = "PRAGMA index_list(" + sqlName(table) + ")";
    if (sqlite3_prepare_v2(m_db, list.c_str(), -1, &st, nullptr) != SQLITE_OK) return false;
    while (sqlite3_step(st) == SQLITE_ROW)
        if (const auto* n = sqlite3_column_text(st, 1))
            indexes.emplace_back(reinterpret_cast<const char*>(n));
    sqlite3_finalize(st);
    for (const std::string& index : indexes) {
        const std::string info = "PRAGMA index_info(" + sqlName(index) + ")";
        if (sqlite3_prepare_v2(m_db, info.c_str(), -1, &st, nullptr) != SQLITE_OK) continue;
        bool first = false;
        if (sqlite3_step(st) == SQLITE_ROW) { // seqno 0: the index's first column
            const auto* n = sqlite3_column_text(st, 2);
            first = n && std::string_view(reinterpret_cast<const char*>(n)) == column;
        }
        sqlite3_finalize(st);
        if (first) return true;
    }
    return false;
}

std::vector<std::string> Database::columns(std::string_view table) const
{
    std::vector<std::string> out;
    if (!m_db) return out;
    sqlite3_stmt* st = nullptr;
    const std::string sql = "PRAGMA table_info(" + sqlName(table) + ")";
    if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return out;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const auto* n = sqlite3_column_text(st, 1);
        if (n) out.emplace_back(reinterpret_cast<const char*>(n));
    }
    sqlite3_finalize(st);
    return out;
}

Statement Database::prepare(std::string_view sql, std::string_view table)
{
    if (!m_db) return {};
    sqlite3_stmt* st = nullptr;
    const int rc = sqlite3_prepare_v2(m_db, sql.data(), int(sql.size()), &st, nullptr);
    if (rc != SQLITE_OK) {
        m_error = describe(table, rc);
        if (st) sqlite3_finalize(st);
        return {};
    }
    return Statement(this, st, std::string(table));
}

Statement::~Statement()
{
    if (m_stmt) sqlite3_finalize(m_stmt);
}

Statement::Statement(Statement&& o) noexcept
    : m_db(o.m_db), m_stmt(o.m_stmt), m_table(std::move(o.m_table)), m_error(std::move(o.m_error))
{
    o.m_stmt = nullptr;
}

Statement& Statement::operator=(Statement&& o) noexcept
{
    if (this != &o) {
        if (m_stmt) sqlite3_finalize(m_stmt);
        m_db = o.m_db;
        m_stmt = o.m_stmt;
        o.m_stmt = nullptr;
        m_table = std::move(o.m_table);
        m_error = std::move(o.m_error);
    }
    return *this;
}

bool Statement::step()
{
    if (!m_stmt || !m_error.empty()) return false;
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) m_error = m_db->describe(m_table, rc);
    return false;
}

int Statement::columnCount() const
{
    return m_stmt ? sqlite3_column_count(m_stmt) : 0;
}

bool Statement::isNull(int col) const
{
    return sqlite3_column_type(m_stmt, col) == SQLITE_NULL;
}

std::optional<std::int64_t> Statement::integer(int col) const
{
    switch (sqlite3_column_type(m_stmt, col)) {
    case SQLITE_INTEGER:
        return sqlite3_column_int64(m_stmt, col);
    case SQLITE_TEXT: {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, col));
        const int n = sqlite3_column_bytes(m_stmt, col);
        std::int64_t v = 0;
        if (!p || n <= 0) return std::nullopt;
        auto [end, ec] = std::from_chars(p, p + n, v);
        if (ec != std::errc() || end != p + n) return std::nullopt;
        return v;
    }
    default:
        return std::nullopt;
    }
}

std::optional<double> Statement::real(int col) const
{
    switch (sqlite3_column_type(m_stmt, col)) {
    case SQLITE_INTEGER:
    case SQLITE_FLOAT:
        return sqlite3_column_double(m_stmt, col);
    case SQLITE_TEXT: {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, col));
        const int n = sqlite3_column_bytes(m_stmt, col);
        double v = 0;
        if (!p || n <= 0) return std::nullopt;
        auto [end, ec] = std::from_chars(p, p + n, v);
        if (ec != std::errc() || end != p + n) return std::nullopt;
        return v;
    }
    default:
        return std::nullopt;
    }
}

std::string_view Statement::text(int col) const
{
    const auto* p = sqlite3_column_text(m_stmt, col);
    const int n = sqlite3_column_bytes(m_stmt, col);
    if (!p || n <= 0) return {};
    return std::string_view(reinterpret_cast<const char*>(p), std::size_t(n));
}

} // namespace rs::sqlite
