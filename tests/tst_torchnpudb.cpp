// torch_npu's database export (core/producers/torchnpudb): the public 2-rank runs at levels 0
// and 2, opened as a user would (rank folder, output folder, the .db file, the job folder) from
// a copy without analysis.db, and compared with what torch_npu computed in analysis.db: steps
// (StepTraceTime) within 2%, communication (CommAnalyzerTime, CommAnalyzerBandwidth,
// CommAnalyzerMatrix) within 1% or 2 µs, the tolerances the text export is held to. Every
// journal mode the export meets (WAL with and without a -wal, a read-only folder, a live
// writer, a crashed writer's -journal) gives the original file's model and analysis.

#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/job/jobloader.h"
#include "core/job/jobpipeline.h"
#include "core/producers/producer.h"
#include "core/sqlite/sqlitedb.h"
#include "core/traceinfo.h"
#include "tests/support/modeldump.h"
#include "tests/support/processrun.h"
#include "tests/testutil.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <sqlite3.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>

using namespace rs;

namespace {

// A rank folder copied without analysis.db: the answer must come from the profiler db alone.
bool copyRun(const QString& from, const QString& to)
{
    QDirIterator it(from, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString f = it.next();
        if (QFileInfo(f).fileName() == "analysis.db") continue;
        const QString rel = QDir(from).relativeFilePath(f);
        if (!QDir().mkpath(QFileInfo(to + "/" + rel).path())) return false;
        if (!QFile::copy(f, to + "/" + rel)) return false;
    }
    return true;
}

QByteArray fileBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool writeBytes(const QString& path, const QByteArray& bytes)
{
    QFile::remove(path);
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

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

// The tables' last rows that the WAL fixtures move into the log.
constexpr const char* kLoggedTables[] = {"TASK", "PYTORCH_API"};

std::string columnsOf(sqlite3* db, const char* table)
{
    std::string out;
    sqlite3_stmt* st = nullptr;
    const std::string sql = std::string("PRAGMA table_info(") + table + ")";
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return out;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (!out.empty()) out += ", ";
        out += reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
    return out;
}

// WAL mode as a finished profile leaves it: SQLite checkpoints and deletes the -wal at close.
bool toWal(const QString& path)
{
    sqlite3* db = nullptr;
    const bool ok = sqlite3_open(path.toUtf8().constData(), &db) == SQLITE_OK &&
                    exec(db, "PRAGMA journal_mode=WAL");
    sqlite3_close(db);
    return ok && !QFile::exists(path + "-wal");
}

// WAL mode as a running job (or one that crashed before a checkpoint) leaves it: the last rows
// of TASK and PYTORCH_API taken out of the main file (in rollback mode), then written again in
// WAL mode, committed and never checkpointed. The main file alone lacks them; its -wal holds
// them, with the same rowids and values.
bool toWalWithFrames(const QString& path)
{
    sqlite3* db = nullptr;
    bool ok = sqlite3_open(path.toUtf8().constData(), &db) == SQLITE_OK;
    for (const char* t : kLoggedTables)
        ok = ok &&
             exec(db, std::string("CREATE TEMP TABLE keep_") + t +
                          " AS SELECT rowid AS rs_rowid, * " + "FROM main." + t +
                          " WHERE rowid > (SELECT max(rowid) - 64 FROM main." + t + ")") &&
             exec(db, std::string("DELETE FROM main.") + t +
                          " WHERE rowid IN (SELECT rs_rowid FROM keep_" + t + ")");
    ok = ok && exec(db, "PRAGMA journal_mode=WAL") && exec(db, "PRAGMA wal_autocheckpoint=0") &&
         sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr) == SQLITE_OK;
    for (const char* t : kLoggedTables) {
        const std::string cols = columnsOf(db, t);
        ok = ok &&
             exec(db, std::string("INSERT INTO main.") + t + " (rowid, " + cols +
                          ") SELECT rs_rowid, " + cols + " FROM keep_" + t + " ORDER BY rs_rowid");
    }
    sqlite3_close(db);
    return ok && QFileInfo(path + "-wal").size() > 32;
}

// A writer that stopped mid-transaction: its changes partly in the file (the cache spilled
// them), the pages they replaced in its -journal. The file and journal copied at that moment.
bool toHotJournal(const QString& path)
{
    sqlite3* db = nullptr;
    const QString at = path + ".crash";
    bool ok = sqlite3_open(path.toUtf8().constData(), &db) == SQLITE_OK &&
              exec(db, "PRAGMA cache_size=10") && exec(db, "BEGIN") &&
              exec(db, "DELETE FROM TASK") && exec(db, "DELETE FROM PYTORCH_API") &&
              exec(db, "DELETE FROM CANN_API") && QFile::copy(path, at) &&
              QFile::copy(path + "-journal", at + "-journal");
    exec(db, "ROLLBACK");
    sqlite3_close(db);
    const QByteArray before = fileBytes(path);
    ok = ok && fileBytes(at) != before && QFile::remove(path) && QFile::rename(at, path) &&
         QFile::rename(at + "-journal", path + "-journal");
    return ok;
}

// The analysis JSON without its warnings (a hot journal adds one).
QByteArray withoutWarnings(const QByteArray& json)
{
    nlohmann::json j = nlohmann::json::parse(json.toStdString(), nullptr, false);
    std::function<void(nlohmann::json&)> strip = [&](nlohmann::json& v) {
        if (v.is_object()) {
            v.erase("warnings");
            for (auto& [k, x] : v.items())
                strip(x);
        } else if (v.is_array()) {
            for (auto& x : v)
                strip(x);
        }
    };
    strip(j);
    return QByteArray::fromStdString(j.dump(1));
}

struct Oracle {
    // StepTraceTime: step -> column -> µs.
    std::map<int, std::map<std::string, double>> steps;
    // CommAnalyzerTime: op -> column -> ms.
    std::map<std::string, std::map<std::string, double>> time;
    struct Band {
        std::string op, transport;
        double sizeMb, timeMs, gbps, largeRatio;
        int count; // tasks of this packet size
    };
    std::vector<Band> bandwidth;
    struct Link {
        std::string opGroup, opName, transport;
        int src, dst;
        double sizeMb, timeMs, gbps;
    };
    std::vector<Link> matrix;
};

Oracle readOracle(const QString& analysisDb)
{
    Oracle o;
    sqlite::Database db;
    if (!db.open(analysisDb.toStdString())) return o;
    auto rows = [&](const char* table, const char* sql, auto&& fn) {
        if (!db.hasTable(table)) return;
        sqlite::Statement st = db.prepare(sql, table);
        while (st.valid() && st.step())
            fn(st);
    };
    rows("StepTraceTime",
         "SELECT step, computing, communication_not_overlapped, overlapped, communication, free "
         "FROM StepTraceTime",
         [&](sqlite::Statement& st) {
             auto& s = o.steps[int(st.integer(0).value_or(-1))];
             const char* cols[] = {"computing", "communication_not_overlapped", "overlapped",
                                   "communication", "free"};
             for (int i = 0; i < 5; ++i)
                 s[cols[i]] = st.real(i + 1).value_or(NAN);
         });
    rows("CommAnalyzerTime",
         "SELECT hccl_op_name, elapse_time, transit_time, wait_time, synchronization_time, "
         "idle_time FROM CommAnalyzerTime",
         [&](sqlite::Statement& st) {
             auto& t = o.time[std::string(st.text(0))];
             const char* cols[] = {"elapse", "transit", "wait", "synchronization", "idle"};
             for (int i = 0; i < 5; ++i)
                 t[cols[i]] = st.real(i + 1).value_or(NAN);
         });
    rows("CommAnalyzerBandwidth",
         "SELECT hccl_op_name, transport_type, transit_size, transit_time, bandwidth, "
         "large_packet_ratio, count FROM CommAnalyzerBandwidth",
         [&](sqlite::Statement& st) {
             o.bandwidth.push_back({std::string(st.text(0)), std::string(st.text(1)),
                                    st.real(2).value_or(NAN), st.real(3).value_or(NAN),
                                    st.real(4).value_or(NAN), st.real(5).value_or(NAN),
                                    int(st.integer(6).value_or(0))});
         });
    rows("CommAnalyzerMatrix",
         "SELECT hccl_op_name, op_name, transport_type, src_rank, dst_rank, transit_size, "
         "transit_time, bandwidth FROM CommAnalyzerMatrix",
         [&](sqlite::Statement& st) {
             o.matrix.push_back({std::string(st.text(0)), std::string(st.text(1)),
                                 std::string(st.text(2)), int(st.integer(3).value_or(-1)),
                                 int(st.integer(4).value_or(-1)), st.real(5).value_or(NAN),
                                 st.real(6).value_or(NAN), st.real(7).value_or(NAN)});
         });
    return o;
}

// Within 1% or 2 µs (the time breakdown's tolerance against the text export's files).
bool timeClose(double gotNs, double wantMs)
{
    const double want = wantMs * 1e6;
    return std::abs(gotNs - want) <= std::max(2000.0, 0.01 * std::abs(want));
}

bool close(double got, double want)
{
    return std::abs(got - want) <= std::max(1e-4, 0.01 * std::abs(want));
}

const Collective* byName(const AnalysisReport& rep, const std::string& name)
{
    for (const Collective& c : rep.collectives)
        if (c.name == name) return &c;
    return nullptr;
}

const TransferStat* transfer(const Collective& c, const std::string& name)
{
    for (const TransferStat& t : c.transfers)
        if (t.name == name) return &t;
    return nullptr;
}

} // namespace

class TestTorchNpuDb : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;

    // The public run copied once without analysis.db; the rank folder's path.
    QString run(const QString& level, int rank)
    {
        const QString to = m_tmp.path() + "/" + level;
        const QString rankDir = to + QString("/rank%1_ascend_pt").arg(rank);
        if (!QDir(to).exists())
            copyRun(test::publicTrace("ascend_torchnpu_db_" + level + "_2rank"), to);
        return rankDir;
    }

    ReportPtr analyzeRun(const QString& path)
    {
        LoadResult r = loadTrace(path.toStdString());
        if (!r.complete()) qWarning("%s: %s", qPrintable(path), r.message.c_str());
        return r.complete() ? analyze(r.trace) : nullptr;
    }

private slots:
    void init() { RS_REQUIRE_PUBLIC_TRACES(); }

    void runs_data()
    {
        QTest::addColumn<QString>("level");
        QTest::addColumn<int>("rank");
        QTest::newRow("level0 rank0") << "level0" << 0;
        QTest::newRow("level0 rank1") << "level0" << 1;
        QTest::newRow("level2 rank0") << "level2" << 0;
        QTest::newRow("level2 rank1") << "level2" << 1;
    }

    // The timeline the text export shows, from the database alone.
    void opensEveryWay_data() { runs_data(); }
    void opensEveryWay()
    {
        QFETCH(QString, level);
        QFETCH(int, rank);
        const QString dir = run(level, rank);
        QVERIFY(!QFile::exists(dir + "/ASCEND_PROFILER_OUTPUT/analysis.db"));
        const QString db =
            dir + QString("/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_%1.db").arg(rank);
        for (const QString& path : {dir, dir + "/ASCEND_PROFILER_OUTPUT", db}) {
            LoadResult r = loadTrace(path.toStdString());
            QVERIFY2(r.complete(), qPrintable(path + ": " + QString::fromStdString(r.message)));
            const Trace& t = *r.trace;
            QCOMPARE(t.producer().id(), std::string_view("torch_npu_db"));
            QCOMPARE(t.producer().name(), std::string_view("torch_npu"));
            QCOMPARE(t.rank(), std::optional<int>(rank));
            QCOMPARE(t.path(), db.toStdString());
            QVERIFY(t.warnings().empty());
            std::map<std::string, int> procs;
            for (const Process& p : t.processes())
                ++procs[t.str(p.name)];
            for (const char* p : {"Python", "CANN", "Ascend Hardware", "HCCL", "Overlap Analysis"})
                QVERIFY2(procs.count(p), p);
            // Roles decided at load, as for the text export.
            std::map<TrackRole, int> roles;
            for (const Track& tr : t.tracks())
                ++roles[tr.role];
            QVERIFY(roles[TrackRole::Host] > 0);
            QVERIFY(roles[TrackRole::Cann] > 0);
            QVERIFY(roles[TrackRole::AscendDevice] > 0);
            QCOMPARE(roles[TrackRole::HcclGroup], 1);
            // Exact ns times: the first hcom op as COMMUNICATION_OP holds it.
            bool found = false;
            for (const Slice& s : t.slices())
                if (t.str(s.name) == (level == "level2" ? "hcom_allReduce__865_0_1" : "")) {
                    QCOMPARE(s.start, TimeNs(rank == 0 ? 1736414119678212551 : s.start));
                    found = true;
                }
            QVERIFY(found || level == "level0");
            // Flows: launches to tasks and torch ops to their tasks.
            std::map<std::string, int> flows;
            for (const Flow& f : t.flows())
                ++flows[t.str(f.cat)];
            QVERIFY(flows["HostToDevice"] > 100);
            QVERIFY(flows["async_npu"] > 100);
            QVERIFY(flows["async_task_queue"] > 100);
        }
    }

    void collectives_data() { runs_data(); }
    void collectives()
    {
        QFETCH(QString, level);
        QFETCH(int, rank);
        ReportPtr rep = analyzeRun(run(level, rank));
        QVERIFY(rep);
        QCOMPARE(int(rep->collectives.size()), 4);
        for (const Collective& c : rep->collectives) {
            QCOMPARE(c.kind, CollectiveKind::AllReduce);
            QCOMPARE(c.algorithm, std::string("MESH-RING"));
            QCOMPARE(c.dtype, std::string("FP32"));
            QCOMPARE(c.bytes, c.count * 4);
            QCOMPARE(c.step, std::optional<int>(50));
            QVERIFY(c.hostEvent != kNone);
            if (level == "level2") {
                // The Memcpy tasks of COMMUNICATION_TASK_INFO inside the op, with their sizes.
                QCOMPARE(c.memcpyCount, 9);
                QCOMPARE(c.groupSize, 8);
                QVERIFY(!c.transfers.empty());
            } else {
                QCOMPARE(c.memcpyCount, 0); // level0 keeps no HCCL tasks
            }
        }
        // The HCCL op's call stack reaches the Python op that launched it.
        const auto chain = callStack(*rep->trace, rep->collectives.front().event);
        QVERIFY(chain.size() >= 2);
    }

    void stepsMatchAnalysisDb_data() { runs_data(); }
    void stepsMatchAnalysisDb()
    {
        QFETCH(QString, level);
        QFETCH(int, rank);
        ReportPtr rep = analyzeRun(run(level, rank));
        QVERIFY(rep);
        const Oracle o = readOracle(test::publicTrace(
            QString(
                "ascend_torchnpu_db_%1_2rank/rank%2_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db")
                .arg(level)
                .arg(rank)));
        QVERIFY(!o.steps.empty());
        QCOMPARE(rep->steps.size(), o.steps.size());
        for (const StepStats& s : rep->steps) {
            QVERIFY(o.steps.count(s.step));
            const auto& want = o.steps.at(s.step);
            const std::pair<const char*, TimeNs> cols[] = {
                {"computing", s.computing},
                {"communication_not_overlapped", s.communicationNotOverlapped},
                {"overlapped", s.overlapped},
                {"communication", s.communication},
                {"free", s.free}};
            for (const auto& [name, ns] : cols) {
                const double got = double(ns) / 1000.0, w = want.at(name);
                QVERIFY2(std::abs(got - w) <= 0.02 * std::abs(w) + 0.001,
                         qPrintable(QString("step %1 %2: %3 µs, analysis.db %4 µs")
                                        .arg(s.step)
                                        .arg(name)
                                        .arg(got, 0, 'f', 3)
                                        .arg(w, 0, 'f', 3)));
            }
        }
    }

    void communicationMatchesAnalysisDb_data()
    {
        QTest::addColumn<int>("rank");
        QTest::newRow("level2 rank0") << 0;
        QTest::newRow("level2 rank1") << 1;
    }
    void communicationMatchesAnalysisDb()
    {
        QFETCH(int, rank);
        ReportPtr rep = analyzeRun(run("level2", rank));
        QVERIFY(rep);
        const Oracle o = readOracle(test::publicTrace(
            QString("ascend_torchnpu_db_level2_2rank/rank%1_ascend_pt/ASCEND_PROFILER_OUTPUT/"
                    "analysis.db")
                .arg(rank)));
        QCOMPARE(o.time.size(), std::size_t(4));
        int values = 0, within = 0;
        auto check = [&](bool ok, const QString& what) {
            ++values;
            within += ok;
            if (!ok) qInfo("off: %s", qPrintable(what));
        };
        for (const auto& [op, cols] : o.time) {
            const Collective* c = byName(*rep, op);
            QVERIFY2(c && c->timeInfo, op.c_str());
            const CommTimeInfo& t = *c->timeInfo;
            const std::pair<const char*, TimeNs> times[] = {
                {"elapse", t.elapseNs},
                {"transit", t.transitNs},
                {"wait", t.waitNs},
                {"synchronization", t.synchronizationNs},
                {"idle", t.idleNs}};
            for (const auto& [k, ns] : times)
                check(timeClose(double(ns), cols.at(k)), QString("%1 %2: %3 ns, analysis.db %4 ms")
                                                             .arg(op.c_str(), k)
                                                             .arg(ns)
                                                             .arg(cols.at(k)));
        }
        // Per op and transport: size, time and bandwidth (one row per packet size).
        std::set<std::pair<std::string, std::string>> seen;
        for (const Oracle::Band& b : o.bandwidth) {
            if (!seen.insert({b.op, b.transport}).second) continue;
            const Collective* c = byName(*rep, b.op);
            QVERIFY2(c, b.op.c_str());
            const TransferStat* got = transfer(*c, b.transport);
            if (b.sizeMb == 0) {
                QVERIFY(!got || got->bytes == 0);
                continue;
            }
            QVERIFY2(got, (b.op + " " + b.transport).c_str());
            check(std::abs(double(got->bytes) - b.sizeMb * 1e6) <= 0.5,
                  QString::fromStdString(b.op + " " + b.transport + " size"));
            check(timeClose(double(got->ns), b.timeMs),
                  QString::fromStdString(b.op + " " + b.transport + " time"));
            check(close(got->gbps(), b.gbps),
                  QString::fromStdString(b.op + " " + b.transport + " bandwidth"));
            // SDMA aggregates the links: no packet ratio of its own (as for communication.json).
            if (b.transport == "SDMA")
                QVERIFY(std::isnan(got->largePacketRatio));
            else
                check(close(got->largePacketRatio, b.largeRatio),
                      QString::fromStdString(b.op + " " + b.transport + " large packets"));
        }
        // The matrix: per op group and link.
        for (const Oracle::Link& l : o.matrix) {
            const MatrixEntry* got = nullptr;
            for (const MatrixEntry& m : rep->matrix)
                if (m.opGroup == l.opGroup && m.src == l.src && m.dst == l.dst) got = &m;
            const QString what = QString("%1 %2-%3").arg(l.opGroup.c_str()).arg(l.src).arg(l.dst);
            QVERIFY2(got, qPrintable(what));
            QCOMPARE(got->transport, l.transport);
            check(std::abs(double(got->bytes) - l.sizeMb * 1e6) <= 0.5, what + " size");
            check(timeClose(double(got->ns), l.timeMs), what + " time");
            check(close(got->gbps, l.gbps), what + " bandwidth");
            if (!l.opName.empty()) QCOMPARE(got->opName.value_or("?"), l.opName);
        }
        QCOMPARE(rep->matrix.size(), o.matrix.size());
        QVERIFY(values > 100);
        // At least 99% of the values within tolerance (as for the text export's files).
        QVERIFY2(within * 100 >= values * 99,
                 qPrintable(QString("%1 of %2").arg(within).arg(values)));
    }

    // A job folder of database ranks, and one that mixes a text rank with a database rank.
    void jobs()
    {
        const QString dir = run("level2", 0);
        std::string error;
        auto inputs = discoverJob({QFileInfo(dir).path().toStdString()}, &error);
        QCOMPARE(int(inputs.size()), 2);
        QCOMPARE(inputs[0].rank, std::optional<int>(0));
        QCOMPARE(inputs[1].rank, std::optional<int>(1));
        JobLoadResult job = loadJob(inputs);
        QVERIFY(job.errors.empty());
        QCOMPARE(int(job.traces.size()), 2);
        QVERIFY(formsOneJob(job.traces));

        QTemporaryDir mixed;
        QVERIFY(copyRun(test::publicTrace("ascend_torchnpu_level1_2rank/rank0_ascend_pt"),
                        mixed.path() + "/rank0_ascend_pt"));
        QVERIFY(copyRun(dir.section('/', 0, -2) + "/rank1_ascend_pt",
                        mixed.path() + "/rank1_ascend_pt"));
        inputs = discoverJob({mixed.path().toStdString()}, &error);
        QCOMPARE(int(inputs.size()), 2);
        job = loadJob(inputs);
        QVERIFY(job.errors.empty());
        QCOMPARE(job.traces[0]->producer().id(), std::string_view("torch_npu"));
        QCOMPARE(job.traces[1]->producer().id(), std::string_view("torch_npu_db"));
        QVERIFY(formsOneJob(job.traces));
    }

    // The 8-rank seed job written as torch_npu's database export analyses as its text export
    // does: the same collectives, modes and flagged copies, steps to the ns, the delaying rank.
    // Only the buffer addresses are not in the database: the misaligned copy is then caught by
    // its size instead.
    void seedJobAsDatabase()
    {
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 8;
        QVERIFY(gen::writeSeedCaseJob((dir.path() + "/text").toStdString(), o));
        o.database = true;
        QVERIFY(gen::writeSeedCaseJob((dir.path() + "/db").toStdString(), o));
        QVERIFY(QFile::exists(dir.path() + "/db/rank3_ascend_pt/ASCEND_PROFILER_OUTPUT/"
                                           "ascend_pytorch_profiler_3.db"));
        QVERIFY(!QFile::exists(dir.path() + "/db/rank3_ascend_pt/ASCEND_PROFILER_OUTPUT/"
                                            "trace_view.json"));
        PipelineOptions po;
        const PipelineResult text = runPipeline({(dir.path() + "/text").toStdString()}, po);
        const PipelineResult db = runPipeline({(dir.path() + "/db").toStdString()}, po);
        QVERIFY(db.errors.empty());
        QCOMPARE(db.reports.size(), std::size_t(8));
        QVERIFY(text.job && db.job);
        for (std::size_t r = 0; r < 8; ++r) {
            const AnalysisReport& t = *text.reports[r];
            const AnalysisReport& d = *db.reports[r];
            QCOMPARE(d.trace->producer().id(), std::string_view("torch_npu_db"));
            QCOMPARE(d.collectives.size(), t.collectives.size());
            for (std::size_t i = 0; i < t.collectives.size(); ++i) {
                const Collective& a = t.collectives[i];
                const Collective& b = d.collectives[i];
                QCOMPARE(b.name, a.name);
                QCOMPARE(b.start, a.start);
                QCOMPARE(b.dur, a.dur);
                QCOMPARE(b.anomalous, a.anomalous);
                QCOMPARE(b.waiting, a.waiting);
                QCOMPARE(b.mode, a.mode);
                QCOMPARE(b.memcpyCount, a.memcpyCount);
                QCOMPARE(b.extraMemcpyNs, a.extraMemcpyNs);
                QCOMPARE(b.step, a.step);
                QCOMPARE(b.bytes, a.bytes);
                QVERIFY(b.hostEvent != kNone);
            }
            QCOMPARE(d.steps.size(), t.steps.size());
            for (std::size_t i = 0; i < t.steps.size(); ++i) {
                QCOMPARE(d.steps[i].computing, t.steps[i].computing);
                QCOMPARE(d.steps[i].communication, t.steps[i].communication);
                QCOMPARE(d.steps[i].overlapped, t.steps[i].overlapped);
                QCOMPARE(d.steps[i].free, t.steps[i].free);
            }
            auto rules = [](const AnalysisReport& rep) {
                std::multiset<std::string> out;
                for (const Finding& f : rep.findings)
                    out.insert(f.rule == "unaligned-address" ? "unaligned-transfer-size" : f.rule);
                return out;
            };
            QCOMPARE(rules(d), rules(t));
        }
        QCOMPARE(db.job->findings.size(), text.job->findings.size());
        for (std::size_t i = 0; i < text.job->findings.size(); ++i) {
            QCOMPARE(db.job->findings[i].rule, text.job->findings[i].rule);
            QCOMPARE(db.job->findings[i].title, text.job->findings[i].title);
        }
        // The flagged op's stack still reaches the custom op through the database's call chains.
        const AnalysisReport& r0 = *db.reports[0];
        bool custom = false;
        for (const Finding& f : r0.findings)
            for (const StackEntry& e : f.stack)
                custom |= e.text.find("custom_attention_forward") != std::string::npos;
        QVERIFY(custom);
    }

    // Every journal mode a torch_npu database meets (issue 40), made in a copy of both public
    // runs and converted in place: each loads to the original's model (both ranks), and the
    // CLI's analyze --json of the job folder is the original's byte for byte (stats too).
    void journalModes_data()
    {
        QTest::addColumn<QString>("level");
        QTest::newRow("level0") << "level0";
        QTest::newRow("level2") << "level2";
    }
    void journalModes()
    {
        QFETCH(QString, level);
        const QString bin = test::binaryDir() + "/app/ringscope";
        const bool haveCli = QFileInfo(bin).isExecutable();
        QTemporaryDir tmp;
        const QString job = tmp.path() + "/job";
        QVERIFY(copyRun(test::publicTrace("ascend_torchnpu_db_" + level + "_2rank"), job));
        auto dbOf = [&](int rank) {
            return job + QString("/rank%1_ascend_pt/ASCEND_PROFILER_OUTPUT/"
                                 "ascend_pytorch_profiler_%1.db")
                             .arg(rank);
        };
        QByteArray originals[2];
        for (int rank : {0, 1}) {
            QFile::setPermissions(dbOf(rank), QFile::ReadOwner | QFile::WriteOwner);
            originals[rank] = fileBytes(dbOf(rank));
        }
        auto restore = [&] {
            bool ok = true;
            for (int rank : {0, 1}) {
                for (const char* log : {"-wal", "-shm", "-journal"})
                    QFile::remove(dbOf(rank) + log);
                ok = ok && writeBytes(dbOf(rank), originals[rank]);
            }
            return ok;
        };
        // Both ranks' models; with warnings given, their warnings apart from the rest.
        auto models = [&](std::vector<std::string>* warnings = nullptr) {
            std::string out;
            for (int rank : {0, 1}) {
                const LoadResult r = loadTrace(dbOf(rank).toStdString());
                if (!r.complete()) return "rank " + std::to_string(rank) + ": " + r.message;
                for (const test::ModelSection& sec : test::dumpModel(*r.trace))
                    if (!warnings || sec.name != "warnings")
                        out += "[" + sec.name + "]\n" + sec.text;
                if (warnings)
                    warnings->insert(warnings->end(), r.warnings.begin(), r.warnings.end());
            }
            return out;
        };
        auto cli = [&](const QStringList& args) {
            if (!haveCli) return QByteArray();
            const test::ProcessRun r = test::runProcess(bin, args);
            return (r.code == 0 ? r.out : r.describe()).toUtf8();
        };
        auto analyzeJson = [&] { return cli({"analyze", "--json", "--no-cache", job}); };
        auto statsJson = [&] {
            return cli({"stats", "--json", "--no-cache", job, "--by", "collective"});
        };
        auto infoJson = [&] { return cli({"info", "--json", "--no-cache", job}); };
        const std::string original = models();
        std::vector<std::string> none;
        const std::string originalApart = models(&none);
        QVERIFY(none.empty());
        const QByteArray originalJson = analyzeJson(), originalStats = statsJson(),
                         originalInfo = infoJson();
        QVERIFY(!haveCli || originalJson.startsWith("{"));

        struct Mode {
            const char* name;
            std::function<bool(const QString&)> make;
        };
        const Mode modes[] = {
            {"WAL mode, no -wal (a finished profile)", toWal},
            {"WAL mode, an empty -wal",
             [](const QString& p) {
                 return toWal(p) && QFile(p + "-wal").open(QIODevice::WriteOnly);
             }},
            {"WAL mode, committed frames in the -wal, no -shm",
             [](const QString& p) { return toWalWithFrames(p) && QFile::remove(p + "-shm"); }},
            {"WAL mode, committed frames in the -wal and a -shm", toWalWithFrames},
        };
        for (const Mode& m : modes) {
            QVERIFY(restore());
            for (int rank : {0, 1})
                QVERIFY2(m.make(dbOf(rank)), m.name);
            QVERIFY2(models() == original, m.name);
            QVERIFY2(analyzeJson() == originalJson, m.name);
            QVERIFY2(statsJson() == originalStats, m.name);
            QVERIFY2(infoJson() == originalInfo, m.name);
        }
        // The timeline exported from the last of them (a job folder of WAL databases).
        if (haveCli) {
            const QString png = tmp.path() + "/wal.png";
            const QByteArray said = cli({"export", "--no-cache", job, "--out", png});
            QVERIFY2(!said.startsWith("exit "), said.constData());
            QVERIFY(QFileInfo(png).size() > 1000);
        }
        // The fixture's frames matter: the main file alone lacks rows.
        {
            QVERIFY(restore() && toWalWithFrames(dbOf(1)));
            const QByteArray wal = fileBytes(dbOf(1) + "-wal");
            QVERIFY(QFile::remove(dbOf(1) + "-wal") && QFile::remove(dbOf(1) + "-shm"));
            QVERIFY(models() != original);
            QVERIFY(writeBytes(dbOf(1) + "-wal", wal));
            QVERIFY(models() == original);
        }

        // A folder that cannot be written (a read-only cluster file system): the same answers,
        // and nothing created in it (no -shm, no journal). As root the mode is not enforced;
        // that nothing is created is checked all the same.
        QVERIFY(restore());
        for (int rank : {0, 1})
            QVERIFY(toWalWithFrames(dbOf(rank)) && QFile::remove(dbOf(rank) + "-shm"));
        const QString out1 = QFileInfo(dbOf(1)).path();
        const QStringList listed = QDir(out1).entryList(QDir::Files, QDir::Name);
        const auto mode = QFile::permissions(out1);
        QVERIFY(QFile::setPermissions(out1, QFile::ReadOwner | QFile::ExeOwner | QFile::ReadGroup |
                                                QFile::ExeGroup | QFile::ReadOther |
                                                QFile::ExeOther));
        const std::string readOnly = models();
        const QByteArray readOnlyJson = analyzeJson();
        const QStringList after = QDir(out1).entryList(QDir::Files, QDir::Name);
        QFile::setPermissions(out1, mode);
        QVERIFY(readOnly == original);
        QVERIFY(readOnlyJson == originalJson);
        QCOMPARE(after, listed);

        // A live writer holding the database open in WAL mode and committing while Ringscope
        // reads (into a table of its own): the same model, never blocked, the file untouched.
        if (QStandardPaths::findExecutable("python3").isEmpty()) {
            qWarning("python3 not found: the live writer case is skipped (scripts/deps)");
        } else {
            QProcess writer;
            writer.start("python3",
                         {"-c",
                          "import sqlite3, sys, time\n"
                          "con = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                          "con.execute('PRAGMA wal_autocheckpoint=0')\n"
                          "con.execute('CREATE TABLE IF NOT EXISTS writer (x INTEGER)')\n"
                          "print('ready', flush=True)\n"
                          "n = 0\n"
                          "while n < 200000:\n"
                          "    con.execute('INSERT INTO writer VALUES (?)', (n,))\n"
                          "    n += 1\n"
                          "    time.sleep(0.002)\n",
                          dbOf(1)});
            QVERIFY(writer.waitForStarted(10000));
            QVERIFY(writer.waitForReadyRead(20000));
            const qint64 walBefore = QFileInfo(dbOf(1) + "-wal").size();
            const QByteArray mainBefore = fileBytes(dbOf(1));
            QElapsedTimer timer;
            timer.start();
            const std::string live = models();
            const QByteArray liveJson = analyzeJson();
            const qint64 elapsed = timer.elapsed();
            QThread::msleep(50);
            const qint64 walAfter = QFileInfo(dbOf(1) + "-wal").size();
            writer.kill();
            writer.waitForFinished(10000);
            QVERIFY2(walAfter > walBefore, "the writer committed while the database was read");
            QVERIFY(live == original);
            QVERIFY(liveJson == originalJson);
            QVERIFY(elapsed < 60000);
            QVERIFY(fileBytes(dbOf(1)) == mainBefore); // never checkpointed by a reader
        }

        // A -journal left by a writer that stopped mid-transaction: the last committed state,
        // with a warning naming the file; the file and its journal left as they were.
        QVERIFY(restore());
        for (int rank : {0, 1})
            QVERIFY(toHotJournal(dbOf(rank)));
        const QByteArray crashed = fileBytes(dbOf(1)), journal = fileBytes(dbOf(1) + "-journal");
        std::vector<std::string> warnings;
        QVERIFY(models(&warnings) == originalApart);
        QCOMPARE(int(warnings.size()), 2);
        for (const std::string& w : warnings)
            QVERIFY2(w.find("was being written") != std::string::npos &&
                         w.find("-journal") != std::string::npos &&
                         w.find(job.toStdString()) != std::string::npos,
                     w.c_str());
        const QByteArray crashedJson = analyzeJson();
        QVERIFY(!haveCli || crashedJson.contains("was being written"));
        QVERIFY(withoutWarnings(crashedJson) == withoutWarnings(originalJson));
        QVERIFY(fileBytes(dbOf(1)) == crashed && fileBytes(dbOf(1) + "-journal") == journal);
    }

    // The database is read as it is: never written, never locked (a job may still write it).
    void readOnlyWithoutLocks()
    {
        const QString db =
            run("level2", 1) + "/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db";
        const QByteArray before = [&] {
            QFile f(db);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        }();
        // A writer holds an exclusive lock for as long as the load takes.
        sqlite::Database writer;
        QVERIFY(writer.open(db.toStdString()) || true);
        QProcess sqlite;
        sqlite.start("sqlite3", {db});
        const bool haveCli = sqlite.waitForStarted(3000);
        if (haveCli) {
            sqlite.write("PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; SELECT 1;\n");
            QVERIFY(sqlite.waitForReadyRead(5000));
        }
        QElapsedTimer timer;
        timer.start();
        LoadResult r = loadTrace(db.toStdString());
        QVERIFY2(r.complete(), r.message.c_str());
        QVERIFY(timer.elapsed() < 30000);
        if (haveCli) {
            sqlite.write("ROLLBACK;\n.quit\n");
            sqlite.waitForFinished(5000);
        }
        QFile f(db);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), before);
        QVERIFY(!QFile::exists(db + "-journal"));
        QVERIFY(!QFile::exists(db + "-wal"));
    }

    // Every command of the command line on a job of database ranks: what scripts and CI run.
    void commandLine()
    {
        const QString bin = test::binaryDir() + "/app/ringscope";
        if (!QFileInfo(bin).isExecutable()) QSKIP("the ringscope binary is not built");
        const QString job = QFileInfo(run("level2", 0)).path();
        auto ringscope = [&](const QStringList& args) {
            const test::ProcessRun r = test::runProcess(bin, args);
            if (r.code != 0) qWarning("%s", qPrintable(r.describe()));
            return r;
        };
        test::ProcessRun r = ringscope({"info", "--json", job});
        QCOMPARE(r.code, 0);
        const nlohmann::json info = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(info.size(), std::size_t(2));
        QCOMPARE(info[1]["format"].get<std::string>(), std::string("sqlite"));
        r = ringscope({"analyze", "--json", job});
        QCOMPARE(r.code, 0);
        const nlohmann::json rep = nlohmann::json::parse(r.out.toStdString());
        QCOMPARE(rep["collectives"].size(), std::size_t(8));
        QCOMPARE(rep["cross_rank"].size(), std::size_t(4)); // the 4 ops matched across the 2 ranks
        r = ringscope({"stats", job, "--by", "collective", "--json"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("hcom_allReduce"));
        // Summaries and their merge give the direct report.
        QTemporaryDir out;
        for (int rank = 0; rank < 2; ++rank)
            QCOMPARE(
                ringscope({"analyze", job + QString("/rank%1_ascend_pt").arg(rank), "--summary-out",
                           out.filePath(QString("r%1.ranksummary.json").arg(rank))})
                    .code,
                0);
        r = ringscope({"merge", out.path(), "--json"});
        QCOMPARE(r.code, 0);
        QCOMPARE(nlohmann::json::parse(r.out.toStdString())["cross_rank"], rep["cross_rank"]);
        // Compare with itself: nothing changed.
        r = ringscope({"compare", job, job, "--json"});
        QCOMPARE(r.code, 0);
        // Exports of the timeline and of the report.
        for (const QString& file : {out.filePath("t.png"), out.filePath("t.svg")}) {
            QCOMPARE(ringscope({"export", job, "--out", file}).code, 0);
            QVERIFY(QFileInfo(file).size() > 1000);
        }
        QCOMPARE(ringscope({"export", job, "--composite", "--out", out.filePath("r.png")}).code, 0);
        QVERIFY(QFileInfo(out.filePath("r.png")).size() > 1000);
    }

    // A damaged database (the fuzzer's finding of issue 47, a public database with 4,400 bytes
    // changed) in a rank folder: info and analyze load what is readable, exit 0 and say what is
    // damaged, naming the file, the table and the page: on stderr, in info's warnings and in
    // analyze --json's warnings (the viewer's Warnings pane lists the same trace warnings).
    void damageReachesTheCommandLine()
    {
        const QString bin = test::binaryDir() + "/app/ringscope";
        if (!QFileInfo(bin).isExecutable()) QSKIP("the ringscope binary is not built");
        const QByteArray input = fileBytes(
            QStringLiteral(RINGSCOPE_SOURCE_DIR "/tests/fuzz/corpus-db/dbrows-raw-vs-sql"));
        QVERIFY(input.size() > 1000);
        QTemporaryDir dir;
        const QString rank = dir.path() + "/rank1_ascend_pt";
        QVERIFY(QDir().mkpath(rank + "/ASCEND_PROFILER_OUTPUT"));
        const QString db = rank + "/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db";
        QVERIFY(writeBytes(db, input.mid(1)));
        const QString named = db + ": table PYTORCH_API, page 159: rows out of order";
        test::ProcessRun r = test::runProcess(bin, {"info", "--json", "--no-cache", rank});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.err.contains("warning: " + named), qPrintable(r.err));
        const nlohmann::json info = nlohmann::json::parse(r.out.toStdString());
        bool listed = false;
        for (const auto& w : info["warnings"])
            listed |= QString::fromStdString(w.get<std::string>()).startsWith(named);
        QVERIFY(listed);
        QVERIFY(info["events"].get<std::int64_t>() > 1000);
        r = test::runProcess(bin, {"analyze", "--json", "--no-cache", rank});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(named), qPrintable(r.out.left(2000)));
    }

    // info --json fields of a database rank.
    void info()
    {
        const std::string path = run("level2", 0).toStdString();
        LoadResult r = loadTrace(path);
        QVERIFY(r.complete());
        const nlohmann::json j = traceInfoJson(*r.trace, path);
        QCOMPARE(j["producer"].get<std::string>(), std::string("torch_npu"));
        QCOMPARE(j["format"].get<std::string>(), std::string("sqlite"));
        QCOMPARE(j["rank"].get<int>(), 0);
    }
};

QTEST_GUILESS_MAIN(TestTorchNpuDb)
#include "tst_torchnpudb.moc"
