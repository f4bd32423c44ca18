// The raw reader of SQLite's pages (core/sqlite/rawtable.h) against SQLite
// itself: every value of tables built to reach the file format's corners (every serial type,
// overflow chains, sparse and negative rowids, several b-tree levels, rows written before a
// column was added), then whole databases loaded both ways must give the same model (a
// generated run and the public database runs), and damaged pages must stop a load with a
// message naming the file and the table, keeping the rows before.

#include "bench/tracegen_db.h"
#include "core/producers/torchnpudb/dbreader.h"
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

    // What the raw reader leaves to SQLite: WAL files, WITHOUT ROWID tables, added columns
    // with a default.
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
        QVERIFY(!sqlite::PageFile::openPath(wal, &why));
        QCOMPARE(why, std::string("WAL mode"));
        QVERIFY(!sqlite::PageFile::openPath((dir.path() + "/none.db").toStdString(), &why));
        const char junk[200] = "not a database";
        QVERIFY(!sqlite::PageFile::openBytes(junk, sizeof junk, &why));
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
