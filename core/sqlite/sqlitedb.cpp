#include "core/sqlite/sqlitedb.h"

#include "core/sqlite/dbfile.h"

#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <new>

namespace rs::sqlite {

namespace {

// Steps of the virtual machine between checks of the cancel flag: a few ms of work.
constexpr int kProgressSteps = 100000;

// ---- The VFS that serves SQLite a DbFile's view ("ringscope-view")
//
// The main database file is the view: its bytes from DbFile::read, its size the view's, and
// immutable (SQLITE_IOCAP_IMMUTABLE: SQLite then takes no lock and looks for no journal, -wal
// or -shm). Temporary files (sorts) are SQLite's own default VFS's.

constexpr const char* kViewVfs = "ringscope-view";
sqlite3_vfs* g_base = nullptr; // the default VFS
sqlite3_vfs g_view{};
// The view a connection is being opened on (sqlite3_open_v2 opens the main file on the
// calling thread, before it returns).
thread_local const std::shared_ptr<const DbFile>* t_opening = nullptr;

struct ViewFile {
    sqlite3_file base;
    std::shared_ptr<const DbFile> file;
};

ViewFile* view(sqlite3_file* f)
{
    return reinterpret_cast<ViewFile*>(f);
}

int viewClose(sqlite3_file* f)
{
    view(f)->file.~shared_ptr();
    return SQLITE_OK;
}

int viewRead(sqlite3_file* f, void* buf, int amount, sqlite3_int64 offset)
{
    if (amount < 0 || offset < 0) return SQLITE_IOERR_READ;
    // Past the end the bytes read as zeros: what SQLite expects of a short read.
    return view(f)->file->read(std::uint64_t(offset), buf, std::size_t(amount))
               ? SQLITE_OK
               : SQLITE_IOERR_SHORT_READ;
}

int viewWrite(sqlite3_file*, const void*, int, sqlite3_int64)
{
    return SQLITE_READONLY;
}

int viewTruncate(sqlite3_file*, sqlite3_int64)
{
    return SQLITE_READONLY;
}

int viewSync(sqlite3_file*, int)
{
    return SQLITE_OK;
}

int viewFileSize(sqlite3_file* f, sqlite3_int64* size)
{
    *size = sqlite3_int64(view(f)->file->size());
    return SQLITE_OK;
}

int viewLock(sqlite3_file*, int)
{
    return SQLITE_OK;
}

int viewCheckReservedLock(sqlite3_file*, int* out)
{
    *out = 0;
    return SQLITE_OK;
}

int viewFileControl(sqlite3_file*, int, void*)
{
    return SQLITE_NOTFOUND;
}

int viewSectorSize(sqlite3_file*)
{
    return 4096;
}

int viewDeviceCharacteristics(sqlite3_file*)
{
    return SQLITE_IOCAP_IMMUTABLE;
}

// Version 1: no shared memory and no memory map, so SQLite never asks for either.
const sqlite3_io_methods kViewMethods = {1,
                                         viewClose,
                                         viewRead,
                                         viewWrite,
                                         viewTruncate,
                                         viewSync,
                                         viewFileSize,
                                         viewLock,
                                         viewLock,
                                         viewCheckReservedLock,
                                         viewFileControl,
                                         viewSectorSize,
                                         viewDeviceCharacteristics,
                                         nullptr,
                                         nullptr,
                                         nullptr,
                                         nullptr,
                                         nullptr,
                                         nullptr};

int vfsOpen(sqlite3_vfs*, const char* name, sqlite3_file* f, int flags, int* outFlags)
{
    if (!(flags & SQLITE_OPEN_MAIN_DB)) return g_base->xOpen(g_base, name, f, flags, outFlags);
    f->pMethods = nullptr;
    if (!t_opening || !*t_opening) return SQLITE_CANTOPEN;
    new (&view(f)->file) std::shared_ptr<const DbFile>(*t_opening);
    f->pMethods = &kViewMethods;
    if (outFlags)
        *outFlags = (flags & ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_READONLY;
    return SQLITE_OK;
}

int vfsDelete(sqlite3_vfs*, const char* name, int sync)
{
    return g_base->xDelete(g_base, name, sync);
}

int vfsAccess(sqlite3_vfs*, const char* name, int flags, int* out)
{
    // The view's journals are applied already: SQLite is told there are none.
    const std::string_view n = name ? name : "";
    for (std::string_view suffix : {"-journal", "-wal", "-shm"})
        if (n.size() >= suffix.size() && n.substr(n.size() - suffix.size()) == suffix) {
            *out = 0;
            return SQLITE_OK;
        }
    return g_base->xAccess(g_base, name, flags, out);
}

int vfsFullPathname(sqlite3_vfs*, const char* name, int n, char* out)
{
    // The name as given: the view is opened by its object, not looked up by its path.
    sqlite3_snprintf(n, out, "%s", name);
    return SQLITE_OK;
}

void* vfsDlOpen(sqlite3_vfs*, const char* name)
{
    return g_base->xDlOpen(g_base, name);
}

void vfsDlError(sqlite3_vfs*, int n, char* out)
{
    g_base->xDlError(g_base, n, out);
}

void (*vfsDlSym(sqlite3_vfs*, void* lib, const char* symbol))(void)
{
    return g_base->xDlSym(g_base, lib, symbol);
}

void vfsDlClose(sqlite3_vfs*, void* lib)
{
    g_base->xDlClose(g_base, lib);
}

int vfsRandomness(sqlite3_vfs*, int n, char* out)
{
    return g_base->xRandomness(g_base, n, out);
}

int vfsSleep(sqlite3_vfs*, int us)
{
    return g_base->xSleep(g_base, us);
}

int vfsCurrentTime(sqlite3_vfs*, double* t)
{
    return g_base->xCurrentTime(g_base, t);
}

int vfsGetLastError(sqlite3_vfs*, int n, char* out)
{
    return g_base->xGetLastError ? g_base->xGetLastError(g_base, n, out) : 0;
}

int vfsCurrentTimeInt64(sqlite3_vfs*, sqlite3_int64* t)
{
    if (g_base->iVersion >= 2 && g_base->xCurrentTimeInt64)
        return g_base->xCurrentTimeInt64(g_base, t);
    double d = 0;
    const int rc = g_base->xCurrentTime(g_base, &d);
    *t = sqlite3_int64(d * 86400000.0);
    return rc;
}

// Before the first connection, once: no global memory statistics (SQLite keeps them under one
// process-wide mutex that every allocation of every connection takes, which serialised the
// loader's parallel readers), no per-connection mutex (each connection stays on the thread
// that opened it), and the view VFS registered.
void configureOnce()
{
    // A local static's initialisation runs once, thread-safely.
    static const bool configured = [] {
        sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
        sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
        if (sqlite3_initialize() != SQLITE_OK) return false;
        g_base = sqlite3_vfs_find(nullptr);
        if (!g_base) return false;
        g_view.iVersion = 2;
        g_view.szOsFile = std::max(g_base->szOsFile, int(sizeof(ViewFile)));
        g_view.mxPathname = g_base->mxPathname;
        g_view.zName = kViewVfs;
        g_view.xOpen = vfsOpen;
        g_view.xDelete = vfsDelete;
        g_view.xAccess = vfsAccess;
        g_view.xFullPathname = vfsFullPathname;
        g_view.xDlOpen = vfsDlOpen;
        g_view.xDlError = vfsDlError;
        g_view.xDlSym = vfsDlSym;
        g_view.xDlClose = vfsDlClose;
        g_view.xRandomness = vfsRandomness;
        g_view.xSleep = vfsSleep;
        g_view.xCurrentTime = vfsCurrentTime;
        g_view.xGetLastError = vfsGetLastError;
        g_view.xCurrentTimeInt64 = vfsCurrentTimeInt64;
        return sqlite3_vfs_register(&g_view, 0) == SQLITE_OK;
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
    : m_db(o.m_db), m_file(std::move(o.m_file)), m_path(std::move(o.m_path)),
      m_error(std::move(o.m_error)), m_cancel(o.m_cancel)
{
    o.m_db = nullptr;
}

Database& Database::operator=(Database&& o) noexcept
{
    if (this != &o) {
        if (m_db) sqlite3_close_v2(m_db);
        m_db = o.m_db;
        o.m_db = nullptr;
        m_file = std::move(o.m_file);
        m_path = std::move(o.m_path);
        m_error = std::move(o.m_error);
        m_cancel = o.m_cancel;
    }
    return *this;
}

bool Database::open(const std::string& path, const std::atomic<bool>* cancel)
{
    std::string why;
    auto file = DbFile::open(path, &why);
    if (!file) {
        m_path = path;
        m_error = path + ": cannot open as a database (" + why + ")";
        return false;
    }
    return open(std::move(file), cancel);
}

bool Database::open(std::shared_ptr<const DbFile> file, const std::atomic<bool>* cancel)
{
    configureOnce();
    m_path = file->name();
    m_cancel = cancel;
    m_file = std::move(file);
    // Read-only through the view VFS: nothing is ever written, locked or created (no journal,
    // no -shm), so a profile still being written by its job is left as it is.
    t_opening = &m_file;
    const int rc = sqlite3_open_v2(m_path.empty() ? "(memory)" : m_path.c_str(), &m_db,
                                   SQLITE_OPEN_READONLY, kViewVfs);
    t_opening = nullptr;
    if (rc != SQLITE_OK) {
        m_error = m_path + ": cannot open as a database (" +
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
    const std::string_view bytes(static_cast<const char*>(data), data ? size : 0);
    return open(DbFile::fromBytes(name, bytes));
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
