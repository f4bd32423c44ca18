// The raw reader of SQLite's pages (core/sqlite/rawtable.h) against SQLite
// itself: every value of tables built to reach the file format's corners (every serial type,
// overflow chains, sparse and negative rowids, several b-tree levels, rows written before a
// column was added), then whole databases loaded both ways must give the same model (a
// generated run and the public database runs), and damaged pages must stop a load with a
// message naming the file, the table and the page, keeping the rows before. The view both
// readers read (core/sqlite/dbfile.h) against SQLite's own recovery: a WAL file's committed
// frames as SQLite's checkpoint writes them, a hot journal as SQLite's rollback restores it.

#include "bench/tracegen_db.h"
#include "core/producers/torchnpudb/dbreader.h"
#include "core/sqlite/dbfile.h"
#include "core/sqlite/rawtable.h"
#include "core/sqlite/sqlitedb.h"
#include "core/traceloader.h"
#include "tests/support/modeldump.h"
#include "tests/testutil.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <functional>
#include <random>

using namespace rs;

namespace {

bool exec(sqlite3* db, const std::string& sql)
{
    char* err = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    if (err) {
        qWarning("%s: %s", sql.c_str(), err);
        sqlite3_free(err);
    }
    return rc == SQLITE_OK;
}

// Every row of a table read both ways, column by column, with Statement's calls.
void compareTable(const std::string& path, const std::string& table)
{
    sqlite::Database db;
    QVERIFY2(db.open(path), db.error().c_str());
    const auto info = sqlite::rawTable(db, table);
    QVERIFY2(info, table.c_str());
    std::string why;
    auto pages = sqlite::PageFile::openPath(path, &why);
    QVERIFY2(pages, why.c_str());
    sqlite::TableCursor c(pages, *info, table);
    sqlite::Statement st = db.prepare("SELECT rowid, * FROM " + table + " ORDER BY rowid", table);
    QVERIFY(st.valid());
    const int n = int(info->columns.size());
    std::size_t rows = 0;
    bool ok = c.seek(INT64_MIN);
    while (st.step()) {
        QVERIFY2(ok, c.error().c_str());
        QCOMPARE(c.rowid(), *st.integer(0));
        for (int k = 0; k < n; ++k) {
            QCOMPARE(c.isNull(k), st.isNull(k + 1));
            QCOMPARE(c.integer(k), st.integer(k + 1));
            QCOMPARE(c.real(k), st.real(k + 1));
            QCOMPARE(std::string(c.text(k)), std::string(st.text(k + 1)));
        }
        ++rows;
        ok = c.next();
    }
    QVERIFY(!ok);
    QVERIFY2(!c.failed(), c.error().c_str());
    QVERIFY(rows > 0);
}

QByteArray fileBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeBytes(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

// Every byte of a view.
QByteArray viewBytes(const sqlite::DbFile& f)
{
    QByteArray b(qsizetype(f.size()), '\0');
    f.read(0, b.data(), std::size_t(b.size()));
    return b;
}

// A file and its logs copied as they are at this moment (a writer may be mid-transaction).
bool copyWithLogs(const QString& from, const QString& to)
{
    for (const char* suffix : {"", "-wal", "-journal"})
        if (QFile::exists(from + suffix) && !QFile::copy(from + suffix, to + suffix)) return false;
    return true;
}

bool anyWarning(const LoadResult& r, const std::string& a, const std::string& b = {})
{
    for (const std::string& w : r.warnings)
        if (w.find(a) != std::string::npos && w.find(b) != std::string::npos) return true;
    return false;
}

std::string modelOf(const std::string& path, bool viaSql, LoadResult* out = nullptr)
{
    LoadOptions o;
    o.databaseViaSql = viaSql;
    LoadResult r = torchnpudb::readDatabase(path, std::nullopt, o, nullptr);
    const std::string text = r.trace ? test::dumpModelText(*r.trace) : r.message;
    if (out) *out = std::move(r);
    return text;
}

} // namespace

class TestRawTable : public QObject {
    Q_OBJECT

private slots:
    // Values of every serial type, long text and blobs over overflow pages, rowids sparse and
    // negative, enough rows for three b-tree levels; the rowid column; an added column.
    void valuesMatchSqlite()
    {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/t.db").toStdString();
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        QVERIFY(exec(db, "PRAGMA page_size=512"));
        QVERIFY(exec(db, "CREATE TABLE T (a INTEGER, id INTEGER PRIMARY KEY, b TEXT, c REAL, d)"));
        QVERIFY(exec(db, "CREATE TABLE U (x INTEGER, y)"));
        QVERIFY(exec(db, "BEGIN"));
        std::mt19937_64 rng(7);
        const std::int64_t ints[] = {0,
                                     1,
                                     -1,
                                     127,
                                     -128,
                                     32767,
                                     -32768,
                                     8388607,
                                     -8388608,
                                     2147483647,
                                     INT32_MIN,
                                     140737488355327,
                                     -140737488355328,
                                     INT64_MAX,
                                     INT64_MIN};
        sqlite3_stmt* ins = nullptr;
        QCOMPARE(sqlite3_prepare_v2(db, "INSERT INTO T VALUES (?, ?, ?, ?, ?)", -1, &ins, nullptr),
                 SQLITE_OK);
        std::int64_t id = -5000;
        for (int i = 0; i < 6000; ++i) {
            id += 1 + std::int64_t(rng() % 7);
            sqlite3_bind_int64(ins, 1, ints[i % std::size(ints)]);
            sqlite3_bind_int64(ins, 2, id);
            const int kind = int(rng() % 6);
            std::string text;
            if (kind == 0) text = std::to_string(ints[rng() % std::size(ints)]);
            if (kind == 1) text = std::string(std::size_t(rng() % 3000), char('a' + i % 26));
            if (kind == 2) text = "12x";
            if (kind == 3) text = "2.5";
            if (kind == 5)
                sqlite3_bind_null(ins, 3);
            else
                sqlite3_bind_text(ins, 3, text.c_str(), int(text.size()), SQLITE_TRANSIENT);
            const double reals[] = {0.5, -3.0, 1e300, 123456.789, 100.0};
            if (i % 5 == 4)
                sqlite3_bind_null(ins, 4);
            else
                sqlite3_bind_double(ins, 4, reals[i % 5]);
            if (i % 3 == 0) {
                const std::string blob(std::size_t(rng() % 1500), '\x01');
                sqlite3_bind_blob(ins, 5, blob.data(), int(blob.size()), SQLITE_TRANSIENT);
            } else {
                sqlite3_bind_int64(ins, 5, std::int64_t(rng()));
            }
            QCOMPARE(sqlite3_step(ins), SQLITE_DONE);
            sqlite3_reset(ins);
        }
        sqlite3_finalize(ins);
        for (int i = 0; i < 300; ++i)
            QVERIFY(exec(db, "INSERT INTO U VALUES (" + std::to_string(i) + ", 'v')"));
        QVERIFY(exec(db, "COMMIT"));
        // Rows written before a column was added have fewer values: the rest read as NULL.
        QVERIFY(exec(db, "ALTER TABLE U ADD COLUMN z INTEGER"));
        QVERIFY(exec(db, "INSERT INTO U VALUES (1000, 'w', 5)"));
        sqlite3_close(db);
        compareTable(path, "T");
        compareTable(path, "U");

        // Lookups by rowid, in order and out of it, present and absent.
        sqlite::Database sdb;
        QVERIFY(sdb.open(path));
        const auto info = sqlite::rawTable(sdb, "T");
        QVERIFY(info);
        QCOMPARE(info->rowidColumn, 1);
        std::string why;
        sqlite::TableCursor c(sqlite::PageFile::openPath(path, &why), *info, "T");
        std::set<std::int64_t> have;
        sqlite::Statement st = sdb.prepare("SELECT id FROM T", "T");
        while (st.step())
            have.insert(*st.integer(0));
        std::vector<std::int64_t> keys;
        for (std::int64_t k = -5100; k < id + 100; k += 3)
            keys.push_back(k);
        std::vector<std::int64_t> shuffled = keys;
        std::shuffle(shuffled.begin(), shuffled.end(), rng);
        for (const auto& order : {keys, shuffled})
            for (std::int64_t k : order) {
                const bool found = c.find(k);
                QCOMPARE(found, have.count(k) == 1);
                if (found) QCOMPARE(c.rowid(), k);
            }
        QVERIFY(!c.failed());
        // A seek lands on the first rowid at or after the key.
        QVERIFY(c.seek(*have.begin() + 1));
        QCOMPARE(c.rowid(), *std::next(have.begin()));
        QVERIFY(!c.seek(id + 1));
        QVERIFY(!c.failed());
    }

    // What the raw reader leaves to SQLite: WITHOUT ROWID tables, added columns with a
    // default. (A WAL file it reads: its view shows it as a rollback one.)
    void leavesToSqlite()
    {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/t.db").toStdString();
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        QVERIFY(exec(db, "CREATE TABLE W (k INTEGER PRIMARY KEY, v) WITHOUT ROWID"));
        QVERIFY(exec(db, "CREATE TABLE D (k INTEGER)"));
        QVERIFY(exec(db, "INSERT INTO D VALUES (1)"));
        QVERIFY(exec(db, "ALTER TABLE D ADD COLUMN v INTEGER DEFAULT 7"));
        QVERIFY(exec(db, "CREATE TABLE P (k INTEGER PRIMARY KEY DESC, v)"));
        sqlite3_close(db);
        sqlite::Database sdb;
        QVERIFY(sdb.open(path));
        QVERIFY(!sqlite::rawTable(sdb, "W"));
        QVERIFY(!sqlite::rawTable(sdb, "D"));
        QVERIFY(!sqlite::rawTable(sdb, "Missing"));
        const auto p = sqlite::rawTable(sdb, "P");
        QVERIFY(p);
        QCOMPARE(p->rowidColumn, -1);

        const std::string wal = (dir.path() + "/w.db").toStdString();
        QCOMPARE(sqlite3_open(wal.c_str(), &db), SQLITE_OK);
        QVERIFY(exec(db, "PRAGMA journal_mode=WAL"));
        QVERIFY(exec(db, "CREATE TABLE T (a)"));
        sqlite3_close(db);
        std::string why;
        QVERIFY2(sqlite::PageFile::openPath(wal, &why), why.c_str());
        QVERIFY(!sqlite::PageFile::openPath((dir.path() + "/none.db").toStdString(), &why));
        const char junk[200] = "not a database";
        QVERIFY(!sqlite::PageFile::openBytes(junk, sizeof junk, &why));
    }

    // A WAL file's view: the committed frames applied, as SQLite's own checkpoint writes them
    // into the file (a copy of it, recovered by SQLite), an uncommitted transaction's frames
    // not; nothing written or created beside it; both readers read it alike.
    void walViewMatchesSqlite()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("w.db");
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
        QVERIFY(exec(db, "PRAGMA page_size=1024"));
        QVERIFY(exec(db, "CREATE TABLE T (a INTEGER, b TEXT)"));
        QVERIFY(exec(db,
                     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE "
                     "i < 3000) INSERT INTO T SELECT i, printf('%0*d', i % 7 * 300, i) FROM n"));
        // WAL from here: nothing checkpointed, the log kept at close.
        QVERIFY(exec(db, "PRAGMA journal_mode=WAL"));
        QVERIFY(exec(db, "PRAGMA wal_autocheckpoint=0"));
        QCOMPARE(sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr), SQLITE_OK);
        QVERIFY(exec(db, "DELETE FROM T WHERE a % 5 = 0"));
        QVERIFY(exec(db, "UPDATE T SET b = b || 'x' WHERE a % 7 = 1"));
        QVERIFY(exec(db, "WITH RECURSIVE n(i) AS (SELECT 3001 UNION ALL SELECT i + 1 FROM n "
                         "WHERE i < 5000) INSERT INTO T SELECT i, printf('%0*d', i % 11 * 400, "
                         "i) FROM n"));
        QVERIFY(exec(db, "CREATE TABLE U (x INTEGER)")); // the schema (page 1) in the log
        QVERIFY(exec(db, "INSERT INTO U VALUES (1), (2)"));
        // A transaction not committed: the cache spills its pages into the log.
        QVERIFY(exec(db, "PRAGMA cache_size=10"));
        QVERIFY(exec(db, "BEGIN"));
        QVERIFY(exec(db, "DELETE FROM T WHERE a < 2500"));
        QVERIFY(exec(db, "INSERT INTO U VALUES (3)"));
        const QString copy = dir.filePath("c.db");
        QVERIFY(copyWithLogs(path, copy));
        QVERIFY(exec(db, "ROLLBACK"));
        sqlite3_close(db);
        const QByteArray main = fileBytes(copy), wal = fileBytes(copy + "-wal");
        QVERIFY(wal.size() > 32);

        std::string error;
        auto view = sqlite::DbFile::open(copy.toStdString(), &error);
        QVERIFY2(view, error.c_str());
        QCOMPARE(view->journal(), sqlite::DbFile::Journal::Wal);
        QVERIFY(view->walFrames() > 0 && view->logPages() > 0);
        QVERIFY(view->warnings().empty());
        // SQLite's own reading: a copy recovered and checkpointed by SQLite into its file.
        const QString ref = dir.filePath("r.db");
        QVERIFY(copyWithLogs(copy, ref));
        QCOMPARE(sqlite3_open(ref.toUtf8().constData(), &db), SQLITE_OK);
        QVERIFY(exec(db, "PRAGMA wal_checkpoint(TRUNCATE)"));
        sqlite3_close(db);
        QByteArray want = fileBytes(ref);
        want[18] = want[19] = 1; // the view shows it as a rollback-mode file
        QCOMPARE(viewBytes(*view).size(), want.size());
        QVERIFY(viewBytes(*view) == want);
        // The same from an image in memory.
        auto mem = sqlite::DbFile::fromBytes("m.db", main.toStdString(), wal.toStdString());
        QVERIFY(viewBytes(*mem) == want);
        // Nothing changed or created beside the copy.
        QVERIFY(fileBytes(copy) == main && fileBytes(copy + "-wal") == wal);
        QVERIFY(!QFile::exists(copy + "-shm") && !QFile::exists(copy + "-journal"));
        // Both readers read the view: U exists only in the log, its row 3 was never committed.
        compareTable(copy.toStdString(), "T");
        compareTable(copy.toStdString(), "U");
        sqlite::Database sdb;
        QVERIFY(sdb.open(copy.toStdString()));
        sqlite::Statement st = sdb.prepare("SELECT count(*), max(x) FROM U", "U");
        QVERIFY(st.step());
        QCOMPARE(*st.integer(0), 2);
        QCOMPARE(*st.integer(1), 2);
    }

    // A hot journal (a writer that stopped mid-transaction, its changes partly in the file):
    // the view restores what the journal saved, the bytes SQLite's rollback restores, with a
    // warning; the file and its journal are left as they are.
    void hotJournalMatchesSqlite()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("j.db");
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
        QVERIFY(exec(db, "PRAGMA page_size=1024"));
        QVERIFY(exec(db, "CREATE TABLE T (a INTEGER, b TEXT)"));
        QVERIFY(exec(db,
                     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE "
                     "i < 4000) INSERT INTO T SELECT i, printf('%0*d', i % 9 * 200, i) FROM n"));
        sqlite3_close(db);
        const QByteArray committed = fileBytes(path);
        QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
        QVERIFY(exec(db, "PRAGMA cache_size=10")); // changes spill into the file
        QVERIFY(exec(db, "BEGIN"));
        QVERIFY(exec(db, "DELETE FROM T WHERE a % 2 = 0"));
        QVERIFY(exec(db, "INSERT INTO T SELECT a + 10000, b || b FROM T"));
        const QString copy = dir.filePath("c.db");
        QVERIFY(copyWithLogs(path, copy));
        QVERIFY(exec(db, "ROLLBACK"));
        sqlite3_close(db);
        const QByteArray main = fileBytes(copy), journal = fileBytes(copy + "-journal");
        QVERIFY2(main != committed, "the writer had changed the file");
        QVERIFY(journal.size() > 512);

        std::string error;
        auto view = sqlite::DbFile::open(copy.toStdString(), &error);
        QVERIFY2(view, error.c_str());
        QCOMPARE(view->journal(), sqlite::DbFile::Journal::HotJournal);
        QCOMPARE(view->warnings().size(), std::size_t(1));
        const std::string& w = view->warnings().front();
        QVERIFY2(w.find(copy.toStdString()) != std::string::npos &&
                     w.find("-journal") != std::string::npos &&
                     w.find("last committed state") != std::string::npos,
                 w.c_str());
        QVERIFY(viewBytes(*view) == committed);
        // SQLite's own rollback of another copy restores the same bytes.
        const QString ref = dir.filePath("r.db");
        QVERIFY(copyWithLogs(copy, ref));
        QCOMPARE(sqlite3_open(ref.toUtf8().constData(), &db), SQLITE_OK);
        QVERIFY(exec(db, "SELECT count(*) FROM T"));
        sqlite3_close(db);
        QVERIFY(fileBytes(ref) == committed);
        QVERIFY(viewBytes(*sqlite::DbFile::fromBytes("m.db", main.toStdString(), {},
                                                     journal.toStdString())) == committed);
        // Read, not rolled back: the copy and its journal as they were.
        compareTable(copy.toStdString(), "T");
        QVERIFY(fileBytes(copy) == main && fileBytes(copy + "-journal") == journal);
        // A journal whose header was zeroed at commit (journal_mode=PERSIST) is no hot one.
        QByteArray zeroed = journal;
        std::fill(zeroed.begin(), zeroed.begin() + 28, '\0');
        QVERIFY(writeBytes(copy + "-journal", zeroed));
        view = sqlite::DbFile::open(copy.toStdString(), &error);
        QVERIFY(view && view->journal() == sqlite::DbFile::Journal::None);
        const QByteArray asIs = viewBytes(*view); // the pages its header counts
        QVERIFY(asIs.left(main.size()) == main.left(asIs.size()));
    }

    // Damage made in both public database runs (issue 47): each a partial model whose load
    // names the file, the table and the page; the two readers give the same model or the
    // load says why not (here it always names the damage).
    void damageNamesThePage_data()
    {
        QTest::addColumn<QString>("level");
        QTest::newRow("level0") << "level0";
        QTest::newRow("level2") << "level2";
    }
    void damageNamesThePage()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        QFETCH(QString, level);
        const QString original = test::publicTrace(
            "ascend_torchnpu_db_" + level +
            "_2rank/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db");
        const QByteArray good = fileBytes(original);
        QVERIFY(good.size() > 8192);
        LoadResult whole;
        modelOf(original.toStdString(), false, &whole);
        QVERIFY(whole.complete());
        QTemporaryDir dir;
        const qsizetype ps = (uchar(good[16]) << 8) | uchar(good[17]);
        // Pages of a table in b-tree order, as SQLite's dbstat lists them.
        auto pagesOf = [](const QString& file, const char* table, const char* type) {
            std::vector<std::uint32_t> out;
            sqlite3* db = nullptr;
            if (sqlite3_open_v2(file.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) ==
                SQLITE_OK) {
                sqlite3_stmt* st = nullptr;
                const std::string sql = std::string("SELECT pageno FROM dbstat WHERE name = '") +
                                        table + "' AND pagetype = '" + type + "' ORDER BY path";
                if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK)
                    while (sqlite3_step(st) == SQLITE_ROW)
                        out.push_back(std::uint32_t(sqlite3_column_int64(st, 0)));
                sqlite3_finalize(st);
            }
            sqlite3_close(db);
            return out;
        };
        const std::vector<std::uint32_t> leaves = pagesOf(original, "TASK", "leaf");
        QVERIFY(leaves.size() >= 3);
        // Cut at a middle page of the torch ops, past every page of the schema (without it
        // nothing reads).
        std::uint32_t schema = 0;
        for (const char* type : {"internal", "leaf"})
            for (std::uint32_t p : pagesOf(original, "sqlite_schema", type))
                schema = std::max(schema, p);
        const auto ops = pagesOf(original, "PYTORCH_API", "leaf");
        QVERIFY(!ops.empty());
        const std::uint32_t cutOps = ops[ops.size() / 2];
        QVERIFY(cutOps > schema + 1);
        const std::uint32_t leaf = leaves[leaves.size() / 2];
        const qsizetype at = qsizetype(leaf - 1) * ps;
        auto pointer = [&](const QByteArray& b, int i) {
            return (uchar(b[at + 8 + 2 * i]) << 8) | uchar(b[at + 9 + 2 * i]);
        };
        auto setPointer = [&](QByteArray& b, int i, int v) {
            b[at + 8 + 2 * i] = char(v >> 8);
            b[at + 9 + 2 * i] = char(v & 0xff);
        };
        struct Case {
            const char* name;
            std::function<QByteArray(const QString&)> make; // the damaged file's bytes
            const char* table;
            std::function<std::uint32_t()> page;
            const char* what;
        };
        const std::vector<Case> cases = {
            {"cell pointer past the page",
             [&](const QString&) {
                 QByteArray b = good;
                 setPointer(b, 2, 0x1ff0);
                 return b;
             },
             "TASK", [&] { return leaf; }, "a cell pointer points off the page's cells"},
            {"two rows out of order",
             [&](const QString&) {
                 QByteArray b = good;
                 const int a = pointer(b, 1), c = pointer(b, 3);
                 setPointer(b, 1, c);
                 setPointer(b, 3, a);
                 return b;
             },
             "TASK", [&] { return leaf; }, "rows out of order"},
            {"a page of the wrong type",
             [&](const QString&) {
                 QByteArray b = good;
                 b[at] = char(0x0a); // an index leaf
                 return b;
             },
             "TASK", [&] { return leaf; }, "not a table b-tree page"},
            {"a truncated file",
             [&](const QString&) { return good.left(qsizetype(cutOps - 1) * ps); }, "PYTORCH_API",
             [&] { return 0u; }, "the file ends before it"},
            {"an overflow chain into a loop",
             [&](const QString& file) {
                 // A long value makes a chain of overflow pages; its second page then points
                 // back to its first.
                 QByteArray none;
                 if (!writeBytes(file, good)) return none;
                 sqlite3* db = nullptr;
                 if (sqlite3_open(file.toUtf8().constData(), &db) != SQLITE_OK) return none;
                 const bool ok = exec(db, "UPDATE PYTORCH_API SET inputShapes = "
                                          "'x' || hex(zeroblob(10000)) WHERE rowid = (SELECT "
                                          "rowid "
                                          "FROM PYTORCH_API LIMIT 1 OFFSET 100)");
                 sqlite3_close(db);
                 const auto chain = pagesOf(file, "PYTORCH_API", "overflow");
                 if (!ok || chain.size() < 3) return none;
                 QByteArray b = fileBytes(file);
                 const qsizetype second = qsizetype(chain[1] - 1) * ps;
                 for (int k = 0; k < 4; ++k)
                     b[second + k] = char(chain[0] >> (24 - 8 * k));
                 return b;
             },
             "PYTORCH_API", [&] { return 0u; }, "an overflow chain reaches page"},
        };
        for (const Case& c : cases) {
            const QString sub = dir.filePath(QString(c.name).replace(' ', '_'));
            QVERIFY(QDir().mkpath(sub));
            const QString file = sub + "/ascend_pytorch_profiler_1.db";
            const QByteArray bad = c.make(file);
            QVERIFY2(!bad.isEmpty(), c.name);
            QVERIFY(writeBytes(file, bad));
            LoadResult raw, sql;
            const std::string a = modelOf(file.toStdString(), false, &raw);
            const std::string b = modelOf(file.toStdString(), true, &sql);
            QVERIFY2(raw.status == LoadStatus::Partial, (std::string(c.name) + ": " + a).c_str());
            // Named in the load's warnings: the file, the table, the page and the damage.
            const std::string page = c.page() ? ", page " + std::to_string(c.page()) : ", page ";
            const std::string named = file.toStdString() + ": table " + c.table + page;
            QVERIFY2(anyWarning(raw, named, c.what),
                     (std::string(c.name) + ": " + raw.message).c_str());
            QVERIFY(anyWarning(raw, "the rows after it are not read"));
            QVERIFY(raw.message.find(file.toStdString()) != std::string::npos);
            // A partial model: fewer slices than the whole file's, but some.
            QVERIFY(raw.trace && !raw.trace->slices().empty());
            QVERIFY(raw.trace->slices().size() < whole.trace->slices().size());
            // The differential: the same model, or the load names why not.
            QVERIFY(a == b || !raw.complete());
            qInfo("%s: %s", c.name, raw.message.c_str());
        }
    }

    // The fuzzer's finding (issue 47: ../shared/fuzz-findings/dbrows-raw-vs-sql.bin, kept in
    // tests/fuzz/corpus-db): rank 1's level-2 database with about 4,400 bytes changed. Both
    // readers used to complete with different models and no word; now the load names the
    // damage, and the models agree or it says why not.
    void fuzzFindingNamesTheDamage()
    {
        const QByteArray input = fileBytes(
            QStringLiteral(RINGSCOPE_SOURCE_DIR "/tests/fuzz/corpus-db/dbrows-raw-vs-sql"));
        QVERIFY(input.size() > 1000 && input[0] == '\x01');
        const QByteArray image = input.mid(1);
        LoadOptions o;
        const std::string name = "ascend_pytorch_profiler_1.db";
        const LoadResult raw =
            torchnpudb::readDatabaseBytes(image.data(), std::size_t(image.size()), name, o);
        o.databaseViaSql = true;
        const LoadResult sql =
            torchnpudb::readDatabaseBytes(image.data(), std::size_t(image.size()), name, o);
        QVERIFY2(raw.status == LoadStatus::Partial, raw.message.c_str());
        QVERIFY2(anyWarning(raw, name + ": table ", ", page "), raw.message.c_str());
        QVERIFY(raw.trace && !raw.trace->slices().empty());
        const bool same = test::dumpModelText(*raw.trace) ==
                          (sql.trace ? test::dumpModelText(*sql.trace) : sql.message);
        QVERIFY(same || !raw.complete());
        for (const std::string& w : raw.warnings)
            qInfo("%s", w.c_str());
    }

    // A generated run loads to the same model both ways.
    void generatedRunMatchesSql()
    {
        QTemporaryDir dir;
        tracegen::DbRunOptions o;
        o.targetRows = 150'000;
        tracegen::DbRunStats stats;
        std::string error;
        QVERIFY2(tracegen::writeDbRun(dir.path().toStdString(), o, &stats, &error), error.c_str());
        LoadResult raw, sql;
        const std::string a = modelOf(stats.dbPath, false, &raw);
        const std::string b = modelOf(stats.dbPath, true, &sql);
        QCOMPARE(raw.status, LoadStatus::Complete);
        QCOMPARE(sql.status, LoadStatus::Complete);
        QVERIFY(raw.trace->slices().size() > 50'000);
        QVERIFY(a == b);
    }

    // The public database runs (both levels, both ranks) load to the same model both ways.
    void publicRunsMatchSql()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        int files = 0;
        for (const char* level : {"level0", "level2"}) {
            QDirIterator it(test::publicTrace(QString("ascend_torchnpu_db_") + level + "_2rank"),
                            {"ascend_pytorch_profiler_*.db"}, QDir::Files,
                            QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const std::string path = it.next().toStdString();
                LoadResult raw;
                const std::string a = modelOf(path, false, &raw);
                QCOMPARE(raw.status, LoadStatus::Complete);
                QVERIFY2(a == modelOf(path, true), path.c_str());
                ++files;
            }
        }
        QCOMPARE(files, 4);
    }

    // A damaged leaf in the middle of TASK: the load is partial, the message names the file
    // and the table, the rows before it are kept; the file past a page boundary cut off: the
    // same; never a crash or a hang.
    void damagedPagesStopWithAMessage()
    {
        QTemporaryDir dir;
        tracegen::DbRunOptions o;
        o.targetRows = 60'000;
        tracegen::DbRunStats stats;
        std::string error;
        QVERIFY2(tracegen::writeDbRun(dir.path().toStdString(), o, &stats, &error), error.c_str());
        QFile f(QString::fromStdString(stats.dbPath));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray good = f.readAll();
        f.close();
        // TASK's leaves: find one past its root through the raw reader's own view.
        sqlite::Database db;
        QVERIFY(db.open(stats.dbPath));
        const auto info = sqlite::rawTable(db, "TASK");
        QVERIFY(info);
        std::string why;
        auto pages = sqlite::PageFile::openPath(stats.dbPath, &why);
        QVERIFY(pages);
        const std::uint32_t ps = pages->pageSize();
        // A leaf of TASK somewhere in the middle of its rows: the page holding a middle rowid.
        sqlite::TableCursor c(pages, *info, "TASK");
        std::vector<std::uint32_t> leafPages;
        std::uint8_t buf[65536];
        for (std::uint32_t p = 2; p <= pages->pageCount(); ++p)
            if (pages->read(p, buf) && buf[0] == 0x0d) leafPages.push_back(p);
        QVERIFY(leafPages.size() > 10);
        int damaged = 0;
        for (std::uint32_t p : {leafPages[leafPages.size() / 2], leafPages.back()}) {
            QByteArray bad = good;
            // A cell pointer aimed past the page, and the cell count raised.
            bad[qsizetype((p - 1) * ps + 3)] = char(0x7f);
            bad[qsizetype((p - 1) * ps + 8)] = char(0xff);
            const QString badPath = dir.path() + QString("/bad%1.db").arg(p);
            QFile out(badPath);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(bad);
            out.close();
            LoadResult r;
            modelOf(badPath.toStdString(), false, &r);
            QVERIFY(r.status != LoadStatus::Complete || r.trace);
            if (r.status == LoadStatus::Partial) {
                ++damaged;
                QVERIFY2(r.message.find(badPath.toStdString()) != std::string::npos,
                         r.message.c_str());
                QVERIFY2(r.message.find("table ") != std::string::npos, r.message.c_str());
                QVERIFY(r.trace && !r.trace->slices().empty());
            }
        }
        QVERIFY(damaged > 0);
        // Cut off: every size from the middle of the file, a page at a time, ends.
        for (qsizetype cut = good.size() / 2; cut < good.size(); cut += good.size() / 7) {
            const QString cutPath = dir.path() + QString("/cut%1.db").arg(cut);
            QFile out(cutPath);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(good.left(cut));
            out.close();
            LoadResult r;
            modelOf(cutPath.toStdString(), false, &r);
            if (r.status != LoadStatus::Complete)
                QVERIFY2(!r.message.empty(), "a load that stopped says why");
        }
    }
};

QTEST_GUILESS_MAIN(TestRawTable)
#include "tst_rawtable.moc"
