// `ringscope analyze --json` of every public trace and of the generated seed-case jobs
// (torch_npu and Kineto, 1 and 8 ranks) against golden reports in tests/data/golden/. They
// pin the report while the analysis is restructured: a change to a golden file is a change of
// the report and must be intended (say so in the commit). To rewrite them after an intended
// change: RINGSCOPE_UPDATE_GOLDEN=1 ./tst_analysis_golden (then review `git diff`).

#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/analysis/reportjson.h"
#include "core/job/crossrank.h"
#include "core/job/jobloader.h"
#include "core/job/jobpipeline.h"
#include "tests/support/reportoracle.h"
#include "tests/testutil.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

using namespace rs;

namespace {

// What `ringscope analyze PATH --json` does (app/cmd_analyze.cpp), in process.
nlohmann::json analyzeLikeCli(const std::string& path, const std::string& prefix)
{
    const PipelineResult result = runPipeline(std::vector<std::string>{path}, {});
    for (const std::string& e : result.errors)
        qWarning("%s", e.c_str());
    std::vector<ReportInput> inputs;
    for (const ReportInput& in : result.reportInputs()) {
        std::string p = in.path;
        // Paths differ between machines: keep them relative to the folder given.
        if (p.rfind(prefix, 0) == 0) p = "<dir>" + p.substr(prefix.size());
        inputs.push_back({p, in.report});
    }
    return reportToJson(inputs, result.jobReport());
}

// Differences between two JSON values, as "path: got vs want" lines (at most `limit`).
// Integers compare exactly; floating values within 1e-9 relative (the same double printed
// and read back may differ in the last digit).
void diff(const nlohmann::json& got, const nlohmann::json& want, const std::string& path,
          std::vector<std::string>& out, std::size_t limit = 20)
{
    if (out.size() >= limit) return;
    auto line = [&](const std::string& what) { out.push_back(path + ": " + what); };
    if (got.is_number() && want.is_number()) {
        if (got.is_number_float() || want.is_number_float()) {
            const double a = got.get<double>(), b = want.get<double>();
            if (std::abs(a - b) > 1e-9 * std::max(std::abs(a), std::abs(b)))
                line(got.dump() + " vs " + want.dump());
        } else if (got != want) {
            line(got.dump() + " vs " + want.dump());
        }
        return;
    }
    if (got.type() != want.type()) {
        line(std::string("type ") + got.type_name() + " vs " + want.type_name() + " (" +
             got.dump().substr(0, 80) + " vs " + want.dump().substr(0, 80) + ")");
        return;
    }
    if (got.is_object()) {
        for (const auto& [k, v] : want.items()) {
            if (!got.contains(k))
                line("missing key " + k);
            else
                diff(got[k], v, path + "." + k, out, limit);
        }
        for (const auto& [k, v] : got.items()) {
            if (!want.contains(k)) line("added key " + k);
        }
        return;
    }
    if (got.is_array()) {
        if (got.size() != want.size()) {
            const nlohmann::json& longer = got.size() > want.size() ? got : want;
            const std::size_t first = std::min(got.size(), want.size());
            line("size " + std::to_string(got.size()) + " vs " + std::to_string(want.size()) +
                 " (first extra: " + longer[first].dump().substr(0, 200) + ")");
        }
        for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i)
            diff(got[i], want[i], path + "[" + std::to_string(i) + "]", out, limit);
        return;
    }
    if (got != want) line(got.dump().substr(0, 200) + " vs " + want.dump().substr(0, 200));
}

void checkGolden(const nlohmann::json& report, const QString& name)
{
    const QString file = test::testDataPath("golden/" + name + ".json");
    if (qEnvironmentVariableIsSet("RINGSCOPE_UPDATE_GOLDEN")) {
        QDir().mkpath(QFileInfo(file).absolutePath());
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(QByteArray::fromStdString(report.dump(1) + "\n"));
        qInfo("wrote %s", qPrintable(file));
        return;
    }
    QFile f(file);
    QVERIFY2(f.open(QIODevice::ReadOnly),
             qPrintable(file + " is missing (RINGSCOPE_UPDATE_GOLDEN=1 writes it)"));
    const nlohmann::json want = nlohmann::json::parse(f.readAll().toStdString());
    std::vector<std::string> lines;
    diff(report, want, "$", lines);
    QString msg = name + " differs from its golden report (got vs golden; after an intended "
                         "change, RINGSCOPE_UPDATE_GOLDEN=1 rewrites it):";
    for (const std::string& l : lines)
        msg += "\n  " + QString::fromStdString(l);
    QVERIFY2(lines.empty(), qPrintable(msg));
}

} // namespace

class TestAnalysisGolden : public QObject {
    Q_OBJECT

private slots:
    void publicTraces_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("level1_2rank_job") << "ascend_torchnpu_level1_2rank";
        QTest::newRow("level1_rank0") << "ascend_torchnpu_level1_2rank/rank0_ascend_pt";
        for (const test::PublicTraceCase& c : test::publicSingleRankTraces())
            QTest::newRow(c.tag) << QString::fromUtf8(c.path);
    }

    void publicTraces()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        QFETCH(QString, path);
        const std::string dir = test::publicTracesDir().toStdString();
        const nlohmann::json rep = analyzeLikeCli(test::publicTrace(path).toStdString(), dir);
        QVERIFY(!rep["inputs"].empty());
        checkGolden(rep, QString("public_") + QTest::currentDataTag());
    }

    void seedJobs_data()
    {
        QTest::addColumn<bool>("kineto");
        QTest::addColumn<int>("ranks");
        QTest::newRow("seed_torchnpu_1") << false << 1;
        QTest::newRow("seed_torchnpu_8") << false << 8;
        QTest::newRow("seed_kineto_1") << true << 1;
        QTest::newRow("seed_kineto_8") << true << 8;
    }

    void seedJobs()
    {
        QFETCH(bool, kineto);
        QFETCH(int, ranks);
        // As `gen_trace --seed-case --ranks N [--kineto]` writes them.
        gen::SeedCaseOptions o;
        o.kineto = kineto;
        o.ranks = ranks;
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        const nlohmann::json rep =
            analyzeLikeCli(dir.path().toStdString(), dir.path().toStdString());
        QCOMPARE(int(rep["inputs"].size()), ranks);
        checkGolden(rep, QTest::currentDataTag());
    }
};

QTEST_GUILESS_MAIN(TestAnalysisGolden)
#include "tst_analysis_golden.moc"
