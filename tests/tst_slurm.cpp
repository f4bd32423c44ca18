// The Slurm path on a real one-node cluster (scripts/slurm/local-cluster: munged, slurmctld and
// slurmd, installed from Debian when missing): an `sbatch --array` job runs the ringscope
// binary on every rank of an 8-rank seed job, and scripts/slurm/analyze-job writes the job
// report that `ringscope analyze --json` writes directly. Skips only where Slurm cannot be
// installed (no root, no apt, no package). Label: slurm (`ctest -L slurm`).
#include "bench/tracegen_seed.h"
#include "core/bytesource.h"
#include "tests/support/processrun.h"
#include "tests/testutil.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <memory>

using namespace rs;
using rs::test::runProcess;

namespace {

constexpr int kRanks = 8;

QString script(const QString& name)
{
    return QStringLiteral(RINGSCOPE_SOURCE_DIR "/scripts/slurm/") + name;
}

QString ringscopeBinary()
{
    return test::binaryDir() + QStringLiteral("/app/ringscope");
}

// A JSON file, plain or gzip (the rank summaries are written gzip).
nlohmann::json readJson(const QString& path, QString* error)
{
    std::string why;
    auto src = ByteSource::open(path.toStdString(), &why);
    if (!src) {
        *error = path + QStringLiteral(": cannot read: ") + QString::fromStdString(why);
        return {};
    }
    std::string data;
    char buf[1 << 16];
    for (std::size_t n; (n = src->read(buf, sizeof buf)) > 0;)
        data.append(buf, n);
    nlohmann::json j = nlohmann::json::parse(data, nullptr, false);
    if (j.is_discarded())
        *error =
            path + QStringLiteral(": not JSON: ") + QString::fromStdString(data.substr(0, 300));
    return j;
}

} // namespace

class TstSlurm : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_state;
    QProcessEnvironment m_env;
    bool m_started = false;
    QString m_job, m_dbJob;

private slots:
    void initTestCase()
    {
#if defined(__SANITIZE_ADDRESS__)
        QSKIP("the Slurm path is checked by the Release run; the sanitizer run skips it");
#endif
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        // One cluster directory per build tree, short (munge's socket path is limited to 108
        // bytes) and stable, so a run killed before its cleanup is found and ended by the next.
        const QByteArray tag =
            QCryptographicHash::hash(test::binaryDir().toUtf8(), QCryptographicHash::Sha1)
                .toHex()
                .left(10);
        m_state = QDir::tempPath() + QStringLiteral("/rs-slurm-") + QString::fromLatin1(tag);
        m_env = QProcessEnvironment::systemEnvironment();
        m_env.insert(QStringLiteral("RINGSCOPE_SLURM_DIR"), m_state);
        m_env.insert(QStringLiteral("RINGSCOPE_SLURM_TIMEOUT"), QStringLiteral("60"));
        m_env.insert(QStringLiteral("SLURM_CONF"), m_state + QStringLiteral("/slurm.conf"));
        m_env.insert(QStringLiteral("RINGSCOPE"), ringscopeBinary());
        // Installing slurm-wlm and munge on a clean machine takes about 20 s.
        const auto start = runProcess(script(QStringLiteral("local-cluster")),
                                      {QStringLiteral("start")}, m_env, 600000);
        if (start.code == 3)
            QSKIP(qPrintable(QStringLiteral("no Slurm here: ") + start.err.trimmed()));
        QVERIFY2(start.code == 0, qPrintable(start.describe()));
        m_started = true;

        m_job = m_dir->filePath(QStringLiteral("job"));
        // The 8-rank seed job: rank 2 copies its misaligned AllReduce input, the others wait.
        gen::SeedCaseOptions seed;
        seed.ranks = kRanks;
        seed.badRank = 2;
        QVERIFY(gen::writeSeedCaseJob(m_job.toStdString(), seed));
        // The same job as torch_npu's database export (ascend_pytorch_profiler_N.db per rank).
        m_dbJob = m_dir->filePath(QStringLiteral("db-job"));
        seed.database = true;
        QVERIFY(gen::writeSeedCaseJob(m_dbJob.toStdString(), seed));
    }

    void arrayRunsRingscopeOnEveryRank()
    {
        // One task per rank, each running the binary on its rank's run folder.
        const QString out = m_dir->filePath(QStringLiteral("info"));
        QVERIFY(QDir().mkpath(out));
        QFile batch(m_dir->filePath(QStringLiteral("info-task.sh")));
        QVERIFY(batch.open(QIODevice::WriteOnly));
        batch.write("#!/bin/bash\nset -euo pipefail\n"
                    "\"$RINGSCOPE\" info --json \"$RS_JOB/rank${SLURM_ARRAY_TASK_ID}_ascend_pt\" "
                    ">\"$RS_OUT/task-$SLURM_ARRAY_TASK_ID.json\"\n"
                    "echo \"$SLURM_ARRAY_JOB_ID $SLURM_ARRAY_TASK_ID $SLURM_JOB_PARTITION\" "
                    ">\"$RS_OUT/task-$SLURM_ARRAY_TASK_ID.slurm\"\n");
        batch.close();
        QProcessEnvironment env = m_env;
        env.insert(QStringLiteral("RS_JOB"), m_job);
        env.insert(QStringLiteral("RS_OUT"), out);
        const auto r =
            runProcess(QStringLiteral("sbatch"),
                       {QStringLiteral("--parsable"), QStringLiteral("--wait"),
                        QStringLiteral("--array=0-%1").arg(kRanks - 1),
                        QStringLiteral("--ntasks=1"), QStringLiteral("--time=5"),
                        QStringLiteral("--output=%1/log-%a.txt").arg(out), batch.fileName()},
                       env, 300000);
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const QString jobId = r.out.trimmed().section(QLatin1Char(';'), 0, 0);
        QVERIFY2(QRegularExpression(QStringLiteral("^\\d+$")).match(jobId).hasMatch(),
                 qPrintable(r.out));
        for (int rank = 0; rank < kRanks; ++rank) {
            QString error;
            const nlohmann::json viaSlurm =
                readJson(QStringLiteral("%1/task-%2.json").arg(out).arg(rank), &error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            // Each task ran inside the array job, as its own task.
            QFile tag(QStringLiteral("%1/task-%2.slurm").arg(out).arg(rank));
            QVERIFY(tag.open(QIODevice::ReadOnly));
            QCOMPARE(QString::fromUtf8(tag.readAll()).trimmed(),
                     QStringLiteral("%1 %2 local").arg(jobId).arg(rank));
            // Its output is what the binary says about that rank here.
            const auto direct = runProcess(
                ringscopeBinary(), {QStringLiteral("info"), QStringLiteral("--json"),
                                    QStringLiteral("%1/rank%2_ascend_pt").arg(m_job).arg(rank)});
            QVERIFY2(direct.code == 0, qPrintable(direct.describe()));
            const nlohmann::json expected = nlohmann::json::parse(direct.out.toStdString());
            QCOMPARE(viaSlurm.value("rank", -1), rank);
            QVERIFY(viaSlurm.value("events", 0) > 0);
            QVERIFY2(viaSlurm == expected, qPrintable(QStringLiteral("rank %1 differs").arg(rank)));
        }
    }

    void analyzeJobWritesTheDirectReport()
    {
        const QString out = m_dir->filePath(QStringLiteral("analysis"));
        // Partition, account and time reach sbatch.
        const auto r = runProcess(script(QStringLiteral("analyze-job")),
                                  {QStringLiteral("--partition=local"), QStringLiteral("-A"),
                                   QStringLiteral("ringscope-test"), QStringLiteral("-t"),
                                   QStringLiteral("00:05:00"), m_job, out},
                                  m_env, 600000);
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QCOMPARE(r.out.trimmed(), out + QStringLiteral("/report.json"));

        QFile ranks(out + QStringLiteral("/ranks.txt"));
        QVERIFY(ranks.open(QIODevice::ReadOnly));
        const QStringList inputs =
            QString::fromUtf8(ranks.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(inputs.size(), kRanks);
        for (int rank = 0; rank < kRanks; ++rank)
            QCOMPARE(inputs[rank], QStringLiteral("%1/rank%2_ascend_pt").arg(m_job).arg(rank));

        // One summary per rank task, each the one `analyze RANK --summary-out` writes here.
        for (int task = 0; task < kRanks; ++task) {
            const QString f =
                QStringLiteral("%1/summaries/task-%2.ranksummary.json.gz").arg(out).arg(task);
            QString error;
            const nlohmann::json j = readJson(f, &error);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            QCOMPARE(QString::fromStdString(j.value("schema", std::string())),
                     QStringLiteral("ringscope.ranksummary/1"));
            QCOMPARE(j["trace"].value("rank", -1), task);
            const QString local =
                m_dir->filePath(QStringLiteral("local-%1.ranksummary.json.gz").arg(task));
            const auto direct =
                runProcess(ringscopeBinary(), {QStringLiteral("analyze"), inputs[task],
                                               QStringLiteral("--summary-out"), local});
            QVERIFY2(direct.code == 0, qPrintable(direct.describe()));
            QVERIFY2(j == readJson(local, &error), qPrintable(f));
        }

        // The job report is exactly the direct one.
        QString error;
        const nlohmann::json viaSlurm = readJson(out + QStringLiteral("/report.json"), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const auto direct = runProcess(
            ringscopeBinary(), {QStringLiteral("analyze"), QStringLiteral("--json"), m_job});
        QVERIFY2(direct.code == 0, qPrintable(direct.describe()));
        const nlohmann::json expected = nlohmann::json::parse(direct.out.toStdString());
        QVERIFY(!expected.empty());
        QVERIFY2(viaSlurm == expected,
                 "the report through Slurm differs from `ringscope analyze --json JOB`");

        // The array ran with the options given.
        QFile idFile(out + QStringLiteral("/ranks.jobid"));
        QVERIFY(idFile.open(QIODevice::ReadOnly));
        const QString jobId =
            QString::fromUtf8(idFile.readAll()).trimmed().section(QLatin1Char(';'), 0, 0);
        const auto show =
            runProcess(QStringLiteral("scontrol"),
                       {QStringLiteral("show"), QStringLiteral("job"), jobId}, m_env, 30000);
        QVERIFY2(show.code == 0, qPrintable(show.describe()));
        QVERIFY2(show.out.contains(QLatin1String("Account=ringscope-test")), qPrintable(show.out));
        QVERIFY2(show.out.contains(QLatin1String("Partition=local")), qPrintable(show.out));
        QVERIFY2(show.out.contains(QLatin1String("TimeLimit=00:05:00")), qPrintable(show.out));
        QVERIFY2(show.out.contains(QLatin1String("JobState=COMPLETED")), qPrintable(show.out));
    }

    void analyzeJobWithAMergeJob()
    {
        // --merge-job: the merge runs as a job of its own after the array (afterok).
        const QString out = m_dir->filePath(QStringLiteral("analysis-merge-job"));
        const auto r = runProcess(
            script(QStringLiteral("analyze-job")),
            {QStringLiteral("--merge-job"), QStringLiteral("--time=5"), m_job, out}, m_env, 600000);
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QString error;
        const nlohmann::json viaSlurm = readJson(out + QStringLiteral("/report.json"), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const auto direct = runProcess(
            ringscopeBinary(), {QStringLiteral("analyze"), QStringLiteral("--json"), m_job});
        QVERIFY2(direct.code == 0, qPrintable(direct.describe()));
        QVERIFY2(viaSlurm == nlohmann::json::parse(direct.out.toStdString()),
                 "the report of the merge job differs from `ringscope analyze --json JOB`");
        // The merge ran inside Slurm, after the array.
        QFile mergeId(out + QStringLiteral("/merge.jobid"));
        QVERIFY(mergeId.open(QIODevice::ReadOnly));
        const QString id =
            QString::fromUtf8(mergeId.readAll()).trimmed().section(QLatin1Char(';'), 0, 0);
        const auto show =
            runProcess(QStringLiteral("scontrol"),
                       {QStringLiteral("show"), QStringLiteral("job"), id}, m_env, 30000);
        QVERIFY2(show.code == 0, qPrintable(show.describe()));
        QVERIFY2(show.out.contains(QLatin1String("JobName=ringscope-merge")), qPrintable(show.out));
        QVERIFY2(show.out.contains(QLatin1String("JobState=COMPLETED")), qPrintable(show.out));
    }

    void analyzeJobOfDatabaseRanks()
    {
        // torch_npu's database export goes through the same path: the script finds the ranks
        // as discoverJob does, the report is the direct one.
        const QString out = m_dir->filePath(QStringLiteral("db-analysis"));
        const auto r =
            runProcess(script(QStringLiteral("analyze-job")),
                       {QStringLiteral("-t"), QStringLiteral("5"), m_dbJob, out}, m_env, 600000);
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QFile ranks(out + QStringLiteral("/ranks.txt"));
        QVERIFY(ranks.open(QIODevice::ReadOnly));
        const QStringList inputs =
            QString::fromUtf8(ranks.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(inputs.size(), kRanks);
        for (int rank = 0; rank < kRanks; ++rank)
            QCOMPARE(inputs[rank], QStringLiteral("%1/rank%2_ascend_pt").arg(m_dbJob).arg(rank));
        QString error;
        const nlohmann::json viaSlurm = readJson(out + QStringLiteral("/report.json"), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const auto direct = runProcess(
            ringscopeBinary(), {QStringLiteral("analyze"), QStringLiteral("--json"), m_dbJob});
        QVERIFY2(direct.code == 0, qPrintable(direct.describe()));
        const nlohmann::json expected = nlohmann::json::parse(direct.out.toStdString());
        QVERIFY(!expected["findings"].empty());
        QVERIFY2(viaSlurm == expected,
                 "the report of a database job through Slurm differs from the direct one");
    }

    void analyzeJobReportsAFailedRank()
    {
        // A rank that cannot be read fails its task; the script names it and writes no report.
        const QString job = m_dir->filePath(QStringLiteral("broken-job"));
        QVERIFY(QDir().mkpath(job));
        for (int rank = 0; rank < 2; ++rank)
            QVERIFY(QFile::copy(
                QStringLiteral(RINGSCOPE_SOURCE_DIR "/resources/samples/sample_rank%1.json")
                    .arg(rank),
                QStringLiteral("%1/rank%2.json").arg(job).arg(rank)));
        QFile bad(job + QStringLiteral("/rank2.json"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("this is not a trace");
        bad.close();
        const QString out = m_dir->filePath(QStringLiteral("broken-analysis"));
        const auto r =
            runProcess(script(QStringLiteral("analyze-job")),
                       {QStringLiteral("-t"), QStringLiteral("5"), job, out}, m_env, 600000);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QLatin1String("1 of 3 rank tasks failed: 2")), qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(out + QStringLiteral("/report.json")));
        // With a merge job: Slurm drops it (its dependency can never be met), the script
        // still names the failed task and ends.
        const auto m = runProcess(
            script(QStringLiteral("analyze-job")),
            {QStringLiteral("--merge-job"), QStringLiteral("-t"), QStringLiteral("5"), job, out},
            m_env, 600000);
        QCOMPARE(m.code, 1);
        QVERIFY2(m.err.contains(QLatin1String("1 of 3 rank tasks failed: 2")), qPrintable(m.err));
        QVERIFY(!QFileInfo::exists(out + QStringLiteral("/report.json")));
    }

    void cleanupTestCase()
    {
        if (!m_started) return;
        const auto stop = runProcess(script(QStringLiteral("local-cluster")),
                                     {QStringLiteral("stop")}, m_env, 120000);
        QVERIFY2(stop.code == 0, qPrintable(stop.describe()));
        QVERIFY(!QFileInfo::exists(m_state));
        // Stopping again is harmless.
        const auto again = runProcess(script(QStringLiteral("local-cluster")),
                                      {QStringLiteral("stop")}, m_env, 60000);
        QVERIFY2(again.code == 0, qPrintable(again.describe()));
        QCOMPARE(runProcess(script(QStringLiteral("local-cluster")), {QStringLiteral("status")},
                            m_env, 60000)
                     .code,
                 1);
    }
};

QTEST_MAIN(TstSlurm)
#include "tst_slurm.moc"
