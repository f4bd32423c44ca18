// Every output of the command line, byte for byte, against golden files in
// tests/data/golden/cli/: info, analyze (JSON and text, a job and one rank), stats, compare
// (two runs, summaries, scaling), merge (JSON and text) and the rank summary files, on a
// generated 8-rank seed job and on the public traces (skipped when ../shared is absent). The
// JSON writers are streamed from field tables (docs/architecture.md): these files, not a JSON
// library's formatting, are their reference. A change to a golden file is a change of an
// output: make it on purpose, review the diff by hand, and say so in the commit. To rewrite
// them: RINGSCOPE_UPDATE_GOLDEN=1 ./tst_outputgolden (RINGSCOPE_GOLDEN_BIN=PATH runs another
// `ringscope`, e.g. an older build, to write the goldens it printed).

#include "bench/tracegen_seed.h"
#include "tests/support/processrun.h"
#include "tests/testutil.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace rs;

namespace {

QString ringscopeBinary()
{
    const QString other = qEnvironmentVariable("RINGSCOPE_GOLDEN_BIN");
    return other.isEmpty() ? test::binaryDir() + "/app/ringscope" : other;
}

// One run of the CLI in workDir; "" when it failed (the failure is the test's).
QByteArray run(const QStringList& args, const QString& workDir, bool* ok)
{
    // No model cache (merge reads no trace and has no cache option).
    const QStringList all = args.front() == "merge" ? args : args + QStringList{"--no-cache"};
    const test::ProcessRun r = test::runProcess(
        ringscopeBinary(), all, QProcessEnvironment::systemEnvironment(), 300000, workDir);
    // analyze and merge exit 1 when a finding is an error (--fail-on's default): an output.
    *ok = r.code == 0 || r.code == 1;
    if (!*ok) qWarning("ringscope %s: %s", qPrintable(args.join(' ')), qPrintable(r.describe()));
    return r.out.toUtf8();
}

// out against golden/cli/<name>; the work folder's absolute path written as <dir>, the public
// traces' as <public> (paths differ between machines).
void checkGolden(QByteArray out, const QString& name, const QString& workDir)
{
    out.replace(QDir(workDir).absolutePath().toUtf8(), "<dir>");
    if (!test::publicTracesDir().isEmpty())
        out.replace(QDir(test::publicTracesDir()).absolutePath().toUtf8(), "<public>");
    const QString file = test::testDataPath("golden/cli/" + name);
    if (qEnvironmentVariableIsSet("RINGSCOPE_UPDATE_GOLDEN")) {
        QDir().mkpath(QFileInfo(file).absolutePath());
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(out);
        return;
    }
    QFile f(file);
    QVERIFY2(f.open(QIODevice::ReadOnly),
             qPrintable(file + " is missing (RINGSCOPE_UPDATE_GOLDEN=1 writes it)"));
    const QByteArray want = f.readAll();
    if (out == want) return;
    qsizetype at = 0;
    while (at < out.size() && at < want.size() && out[at] == want[at])
        ++at;
    const qsizetype from = std::max<qsizetype>(0, at - 80);
    QFAIL(qPrintable(
        QStringLiteral("%1 differs from its golden file at byte %2 (%3 vs %4 bytes)"
                       "\n  got:    %5\n  golden: %6")
            .arg(name)
            .arg(at)
            .arg(out.size())
            .arg(want.size())
            .arg(QString::fromUtf8(out.mid(from, 160)), QString::fromUtf8(want.mid(from, 160)))));
}

struct Case {
    QString name;     // golden file name
    QStringList args; // paths relative to the work folder
};

void runCases(const std::vector<Case>& cases, const QString& workDir)
{
    for (const Case& c : cases) {
        bool ok = false;
        const QByteArray out = run(c.args, workDir, &ok);
        QVERIFY2(ok, qPrintable(c.name));
        checkGolden(out, c.name, workDir);
        if (QTest::currentTestFailed()) return;
    }
}

} // namespace

class TestOutputGolden : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        if (!QFileInfo(ringscopeBinary()).isExecutable())
            QSKIP("no ringscope binary (build the app target)");
    }

    void seedJob()
    {
        // 8 ranks, 3 steps: every section of every output, small enough to read in a diff.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        gen::SeedCaseOptions o;
        o.ranks = 8;
        o.steps = 3;
        o.badSteps = {1};
        o.badRanks = {{1, {2, 5}}};
        QVERIFY(gen::writeSeedCaseJob(dir.filePath("job").toStdString(), o));
        gen::SeedCaseOptions fixed = o; // the same run with the misaligned input fixed
        fixed.badSteps.clear();
        fixed.badRanks.clear();
        QVERIFY(gen::writeSeedCaseJob(dir.filePath("fixed").toStdString(), fixed));
        gen::SeedCaseOptions two = fixed;
        two.ranks = 2;
        QVERIFY(gen::writeSeedCaseJob(dir.filePath("two").toStdString(), two));
        gen::SeedCaseOptions kineto = o;
        kineto.kineto = true;
        kineto.ranks = 2;
        kineto.badRanks.clear();
        QVERIFY(gen::writeSeedCaseJob(dir.filePath("kineto").toStdString(), kineto));

        const QString d = dir.path();
        std::vector<Case> cases = {
            {"seed8_info.json", {"info", "--json", "job"}},
            {"seed8_info.txt", {"info", "job"}},
            {"seed8_analyze.json", {"analyze", "--json", "job"}},
            {"seed8_analyze.txt", {"analyze", "job"}},
            {"seed8_rank2_analyze.json", {"analyze", "--json", "job/rank2_ascend_pt"}},
            {"seed8_stats.json", {"stats", "--json", "job"}},
            {"seed8_stats_collective.json",
             {"stats", "--json", "--by", "collective", "--per-rank", "job"}},
            {"seed8_stats.txt", {"stats", "job"}},
            {"seed8_compare.json", {"compare", "--json", "job", "fixed"}},
            {"seed8_compare.txt", {"compare", "job", "fixed"}},
            {"seed8_scaling.json", {"compare", "--json", "--scaling", "two", "fixed"}},
            {"kineto2_analyze.json", {"analyze", "--json", "kineto"}},
            {"kineto2_stats.json", {"stats", "--json", "kineto"}},
        };
        QVERIFY(QDir(d).mkpath("sums"));
        for (int r = 0; r < 8; ++r) {
            const QString rank = QStringLiteral("job/rank%1_ascend_pt").arg(r);
            const QString file = QStringLiteral("sums/rank%1.ranksummary.json").arg(r);
            bool ok = false;
            run({"analyze", rank, "--summary-out", file}, d, &ok);
            QVERIFY2(ok, qPrintable(rank));
        }
        for (int r : {0, 2, 7}) {
            QFile f(dir.filePath(QStringLiteral("sums/rank%1.ranksummary.json").arg(r)));
            QVERIFY(f.open(QIODevice::ReadOnly));
            checkGolden(f.readAll(), QStringLiteral("seed8_rank%1.ranksummary.json").arg(r), d);
        }
        // merge prints what analyze printed of the traces, byte for byte: the same goldens.
        cases.push_back({"seed8_analyze.json", {"merge", "--json", "sums"}});
        cases.push_back({"seed8_analyze.txt", {"merge", "sums"}});
        cases.push_back({"seed8_compare_summaries.json", {"compare", "--json", "sums", "fixed"}});
        runCases(cases, d);
    }

    void publicTraces_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("level1_2rank") << "ascend_torchnpu_level1_2rank";
        QTest::newRow("db_level0_2rank") << "ascend_torchnpu_db_level0_2rank";
        QTest::newRow("db_level2_2rank") << "ascend_torchnpu_db_level2_2rank";
        // Flight Recorder dumps of a hung 16-rank job: the call findings and their fields.
        QTest::newRow("fr_gpu_error") << "pytorch_flight_recorder_gpu_error_16rank";
        QTest::newRow("fr_lock_gil") << "pytorch_flight_recorder_lock_gil_16rank";
        // Nsight Systems' exports; the 2-GPU file is a 2-rank job.
        QTest::newRow("nsys_2gpu_nccl") << "nsys_2gpu_nccl_nsysai";
        QTest::newRow("nsys_cloverleaf") << "nsys_cloverleaf_2024_pipit";
        QTest::newRow("nsys_graphs_2025") << "nsys_graphs_2025_flameox";
        QTest::newRow("nsys_h200_nvtx") << "nsys_h200_nvtx_fuser";
        for (const test::PublicTraceCase& c : test::publicSingleRankTraces())
            QTest::newRow(c.tag) << QString::fromUtf8(c.path);
    }

    void publicTraces()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        QFETCH(QString, path);
        const QString tag = QStringLiteral("public_") + QTest::currentDataTag();
        const QString dir = test::publicTracesDir();
        runCases({{tag + "_info.json", {"info", "--json", path}},
                  {tag + "_analyze.json", {"analyze", "--json", path}},
                  {tag + "_analyze.txt", {"analyze", path}},
                  {tag + "_stats.json", {"stats", "--json", path}}},
                 dir);
    }

    void publicJob()
    {
        // A real job through its rank summaries, and two runs compared.
        RS_REQUIRE_PUBLIC_TRACES();
        const QString pub = test::publicTracesDir();
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString d = dir.path();
        QVERIFY(QDir(d).mkpath("sums"));
        for (int r = 0; r < 2; ++r) {
            // Run in the public folder: the summaries name the traces by relative paths.
            bool ok = false;
            run({"analyze", QStringLiteral("ascend_torchnpu_level1_2rank/rank%1_ascend_pt").arg(r),
                 "--summary-out",
                 dir.filePath(QStringLiteral("sums/rank%1.ranksummary.json").arg(r))},
                pub, &ok);
            QVERIFY(ok);
        }
        QFile f(dir.filePath("sums/rank1.ranksummary.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        checkGolden(f.readAll(), "public_level1_rank1.ranksummary.json", d);
        runCases({{"public_level1_merge.json", {"merge", "--json", "sums"}},
                  {"public_level1_merge.txt", {"merge", "sums"}}},
                 d);
        runCases({{"public_compare_level1_db2.json",
                   {"compare", "--json", "ascend_torchnpu_level1_2rank",
                    "ascend_torchnpu_db_level2_2rank"}},
                  {"public_compare_level1_db2.txt",
                   {"compare", "ascend_torchnpu_level1_2rank", "ascend_torchnpu_db_level2_2rank"}}},
                 pub);
    }
};

QTEST_GUILESS_MAIN(TestOutputGolden)
#include "tst_outputgolden.moc"
