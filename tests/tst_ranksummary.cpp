// Per-rank summaries (ringscope.ranksummary/1) and `ringscope merge`: a job's report merged from
// summaries equals the one analysed from the traces (in core and through the binary, on the
// 8-rank seed job in both producers' shapes and on the public Level1 ranks), a summary is small
// next to its trace, another schema version is refused, and a field of the wrong JSON type is
// counted, never thrown. mergeSummaries' two modes (Full, Slim) agree.
#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/analysis/reportjson.h"
#include "core/job/crossrank.h"
#include "core/job/jobloader.h"
#include "core/job/jobpipeline.h"
#include "core/job/ranksummary.h"
#include "core/workpool.h"
#include "tests/support/processrun.h"
#include "tests/support/reportoracle.h"
#include "tests/support/summaryfixture.h"
#include "tests/support/summaryoracle.h"
#include "tests/testutil.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <variant>

using namespace rs;
using nlohmann::json;
using rs::test::rankSummaryFromJson;
using rs::test::rankSummaryToJson;
using rs::test::runProcess;

namespace {

QString ringscopeBinary()
{
    return test::binaryDir() + QStringLiteral("/app/ringscope");
}

// The binary's checks need app/ringscope; a tests-only build tree (a sanitizer run of this
// test alone) has none, and skips them with this.
#define RS_REQUIRE_BINARY()                                                                        \
    do {                                                                                           \
        if (!QFileInfo::exists(ringscopeBinary()))                                                 \
            QSKIP("no app/ringscope in this build tree: the command-line checks need it");         \
    } while (0)

struct Loaded {
    std::vector<ReportInput> inputs;
    std::vector<ReportPtr> reports;
};

Loaded loadAndAnalyze(const std::vector<std::string>& paths)
{
    std::string error;
    const auto ranks = discoverJob(paths, &error);
    const JobLoadResult loaded = loadJob(ranks);
    Loaded out;
    for (const TracePtr& t : loaded.traces) {
        out.reports.push_back(analyze(t));
        out.inputs.push_back({t->path(), out.reports.back()});
    }
    return out;
}

// The job report as analyze prints it, from reports (traces or summaries).
json jobJson(const std::vector<ReportInput>& inputs, const std::vector<ReportPtr>& reports)
{
    const JobReport job = analyzeJob(reports);
    return reportToJson(inputs, reports.size() > 1 ? &job : nullptr);
}

// Each report through its summary text and back.
Loaded throughSummaries(const Loaded& direct)
{
    std::vector<RankSummaryRead> read;
    for (const ReportInput& in : direct.inputs) {
        const std::string text = rankSummaryToJson(*in.report, in.path).dump();
        RankSummaryRead s = rankSummaryFromJson(json::parse(text));
        read.push_back(std::move(s));
    }
    sortByRank(read);
    Loaded out;
    for (const RankSummaryRead& s : read) {
        if (!s.ok()) continue;
        out.reports.push_back(s.report);
        out.inputs.push_back({s.report->facts->path, s.report});
    }
    return out;
}

// First difference between two JSON values, for a readable failure.
std::string firstDifference(const json& a, const json& b, const std::string& at = "")
{
    if (a.type() != b.type()) return at + ": " + a.dump() + " vs " + b.dump();
    if (a.is_object()) {
        for (const auto& [k, v] : a.items()) {
            if (!b.contains(k)) return at + "." + k + ": missing on the right";
            const std::string d = firstDifference(v, b[k], at + "." + k);
            if (!d.empty()) return d;
        }
        for (const auto& [k, v] : b.items())
            if (!a.contains(k)) return at + "." + k + ": missing on the left";
        return {};
    }
    if (a.is_array()) {
        if (a.size() != b.size())
            return at + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) +
                   " elements";
        for (std::size_t i = 0; i < a.size(); ++i) {
            const std::string d = firstDifference(a[i], b[i], at + "[" + std::to_string(i) + "]");
            if (!d.empty()) return d;
        }
        return {};
    }
    return a == b ? std::string() : at + ": " + a.dump() + " vs " + b.dump();
}

qint64 fileBytes(const std::string& path)
{
    const ResolvedPath r = resolveTracePath(path);
    return QFileInfo(QString::fromStdString(r.file.empty() ? path : r.file)).size();
}

// Every leaf of a JSON value, as a path of keys and indices.
using Path = std::vector<std::variant<std::string, std::size_t>>;
void leaves(const json& v, Path& at, std::vector<Path>& out)
{
    if (v.is_object()) {
        for (const auto& [k, x] : v.items()) {
            at.emplace_back(k);
            leaves(x, at, out);
            at.pop_back();
        }
    } else if (v.is_array() && !v.empty()) {
        for (std::size_t i = 0; i < v.size(); ++i) {
            at.emplace_back(i);
            leaves(v[i], at, out);
            at.pop_back();
        }
    } else {
        out.push_back(at);
    }
}
// The leaves that differ in their path once array indices are ignored, the first two and the
// last of each: every field of every element type, without repeating the same field of the
// thousand-th collective (the differential test below gives each leaf every JSON type).
std::vector<Path> distinctLeaves(const std::vector<Path>& paths)
{
    std::map<std::string, std::vector<std::size_t>> byShape;
    for (std::size_t i = 0; i < paths.size(); ++i) {
        std::string shape;
        for (const auto& k : paths[i])
            shape += std::holds_alternative<std::string>(k) ? "." + std::get<std::string>(k) : "[]";
        byShape[shape].push_back(i);
    }
    std::vector<std::size_t> keep;
    for (const auto& [shape, list] : byShape) {
        for (std::size_t j = 0; j < list.size() && j < 2; ++j)
            keep.push_back(list[j]);
        if (list.size() > 2) keep.push_back(list.back());
    }
    std::sort(keep.begin(), keep.end());
    std::vector<Path> out;
    for (std::size_t i : keep)
        out.push_back(paths[i]);
    return out;
}

json& at(json& v, const Path& p)
{
    json* x = &v;
    for (const auto& k : p)
        x = std::holds_alternative<std::string>(k) ? &(*x)[std::get<std::string>(k)]
                                                   : &(*x)[std::get<std::size_t>(k)];
    return *x;
}

} // namespace

class TstRankSummary : public QObject {
    Q_OBJECT
private slots:
    void mergeEqualsDirect_data()
    {
        QTest::addColumn<bool>("kineto");
        QTest::newRow("torch_npu") << false;
        QTest::newRow("kineto") << true;
    }

    void mergeEqualsDirect()
    {
        QFETCH(bool, kineto);
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 8;
        o.badRank = 5;
        o.kineto = kineto;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        const Loaded direct = loadAndAnalyze({dir.path().toStdString()});
        QCOMPARE(direct.reports.size(), std::size_t(8));
        const json expected = jobJson(direct.inputs, direct.reports);
        // The job part is there to compare: rank 5 delays the bad steps.
        QVERIFY(!expected["cross_rank"].empty());
        bool named = false;
        for (const json& c : expected["cross_rank"])
            named = named || c["delaying_rank"] == 5;
        QVERIFY(named);

        const Loaded merged = throughSummaries(direct);
        QCOMPARE(merged.reports.size(), std::size_t(8));
        for (const ReportPtr& r : merged.reports) {
            QVERIFY(!r->trace);
            QVERIFY(r->facts);
        }
        const json got = jobJson(merged.inputs, merged.reports);
        QVERIFY2(got == expected, firstDifference(got, expected).c_str());
        // The streamed writer prints the document's own dump, byte for byte.
        {
            const JobReport jm = analyzeJob(merged.reports);
            std::ostringstream streamed;
            writeReportJson(streamed, merged.inputs, &jm);
            QCOMPARE(QString::fromStdString(streamed.str()),
                     QString::fromStdString(expected.dump(2) + "\n"));
        }
        // The text report is the same too.
        const JobReport jd = analyzeJob(direct.reports), jm = analyzeJob(merged.reports);
        QCOMPARE(QString::fromStdString(reportToText(merged.inputs, &jm)),
                 QString::fromStdString(reportToText(direct.inputs, &jd)));

        // A summary holds no trace event: it is small next to the trace. The seed ranks are
        // tiny (6 steps, 40-160 KB), and their text (verdicts, titles, recommendations, stacks)
        // is most of a summary: gzip (a FILE.gz name) keeps it under 10%.
        for (const ReportInput& in : direct.inputs) {
            const qint64 trace = fileBytes(in.report->trace->path());
            QVERIFY(trace > 0);
            std::string error;
            const QString plain = dir.filePath(QStringLiteral("s.ranksummary.json"));
            const QString gz = plain + QStringLiteral(".gz");
            QVERIFY(writeRankSummary(in, plain.toStdString(), &error));
            QVERIFY(writeRankSummary(in, gz.toStdString(), &error));
            const qint64 plainBytes = QFileInfo(plain).size(), gzBytes = QFileInfo(gz).size();
            qInfo("%s rank %d: trace %lld bytes, summary %lld bytes (%.1f%%), gzip %lld (%.1f%%)",
                  kineto ? "kineto" : "torch_npu", *reportRank(*in.report),
                  static_cast<long long>(trace), static_cast<long long>(plainBytes),
                  100.0 * double(plainBytes) / double(trace), static_cast<long long>(gzBytes),
                  100.0 * double(gzBytes) / double(trace));
            QVERIFY2(double(gzBytes) <= 0.10 * double(trace),
                     qPrintable(QStringLiteral("gzip summary %1 bytes, trace %2 bytes")
                                    .arg(gzBytes)
                                    .arg(trace)));
            // Both read back to the same report.
            const RankSummaryRead a = readRankSummary(plain.toStdString());
            const RankSummaryRead b = readRankSummary(gz.toStdString());
            QVERIFY2(a.ok() && b.ok(), (a.error + b.error).c_str());
            QCOMPARE(reportToJson({{in.path, a.report}}), reportToJson({{in.path, b.report}}));
            QCOMPARE(reportToJson({{in.path, a.report}}), reportToJson({in}));
        }
    }

    void mergeCommandEqualsAnalyze()
    {
        // Through the binary: analyze --summary-out per rank, merge the folder, as analyze-job.
        RS_REQUIRE_BINARY();
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 8;
        o.badRank = 3;
        const QString job = dir.filePath(QStringLiteral("job"));
        const QString out = dir.filePath(QStringLiteral("summaries"));
        QVERIFY(gen::writeSeedCaseJob(job.toStdString(), o));
        QVERIFY(QDir().mkpath(out));
        std::string error;
        const auto ranks = discoverJob({job.toStdString()}, &error);
        QCOMPARE(ranks.size(), std::size_t(8));
        for (std::size_t i = 0; i < ranks.size(); ++i) {
            const auto r =
                runProcess(ringscopeBinary(),
                           {QStringLiteral("analyze"), QString::fromStdString(ranks[i].path),
                            QStringLiteral("--summary-out"),
                            QStringLiteral("%1/task-%2.ranksummary.json").arg(out).arg(i)});
            QVERIFY2(r.code == 0, qPrintable(r.describe()));
        }
        const auto direct = runProcess(ringscopeBinary(),
                                       {QStringLiteral("analyze"), QStringLiteral("--json"), job});
        QVERIFY2(direct.code == 0, qPrintable(direct.describe()));
        const auto merged =
            runProcess(ringscopeBinary(), {QStringLiteral("merge"), out, QStringLiteral("--json")});
        QVERIFY2(merged.code == 0, qPrintable(merged.describe()));
        const json a = json::parse(merged.out.toStdString());
        const json b = json::parse(direct.out.toStdString());
        QVERIFY2(a == b, firstDifference(a, b).c_str());
        // The same bytes, even.
        QCOMPARE(merged.out, direct.out);
        // Text, and the files given one by one in any order.
        QStringList files = QDir(out).entryList({QStringLiteral("*.ranksummary.json")});
        std::reverse(files.begin(), files.end());
        QStringList args{QStringLiteral("merge")};
        for (const QString& f : files)
            args << out + QLatin1Char('/') + f;
        const auto text = runProcess(ringscopeBinary(), args);
        QVERIFY2(text.code == 0, qPrintable(text.describe()));
        const auto directText = runProcess(ringscopeBinary(), {QStringLiteral("analyze"), job});
        QCOMPARE(text.out, directText.out);
        // --fail-on as analyze: the seed job has an error finding.
        const auto fail =
            runProcess(ringscopeBinary(), {QStringLiteral("merge"), out,
                                           QStringLiteral("--fail-on"), QStringLiteral("error")});
        QCOMPARE(fail.code, 1);

        // --summary-out takes one rank.
        const auto many = runProcess(ringscopeBinary(), {QStringLiteral("analyze"), job,
                                                         QStringLiteral("--summary-out"),
                                                         dir.filePath(QStringLiteral("x.json"))});
        QCOMPARE(many.code, 2);
        QVERIFY2(many.err.contains(QLatin1String("one rank")), qPrintable(many.err));
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("x.json"))));
    }

    void publicLevel1RanksMerge()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        const QString run = test::publicTrace(QStringLiteral("ascend_torchnpu_level1_2rank"));
        const Loaded direct = loadAndAnalyze({run.toStdString()});
        QCOMPARE(direct.reports.size(), std::size_t(2));
        const json expected = jobJson(direct.inputs, direct.reports);
        QVERIFY(!expected["cross_rank"].empty());
        const Loaded merged = throughSummaries(direct);
        const json got = jobJson(merged.inputs, merged.reports);
        QVERIFY2(got == expected, firstDifference(got, expected).c_str());
        for (const ReportPtr& r : direct.reports) {
            const std::size_t summary = rankSummaryToJson(*r, r->trace->path()).dump().size();
            const qint64 trace = fileBytes(r->trace->path());
            qInfo("%s: summary %zu bytes, trace %lld bytes (%.2f%%)", r->trace->path().c_str(),
                  summary, static_cast<long long>(trace), 100.0 * double(summary) / double(trace));
            QVERIFY(double(summary) <= 0.05 * double(trace));
        }
    }

    void publicTracesRoundTrip_data()
    {
        QTest::addColumn<QString>("set");
        for (const QString& d : test::publicSets())
            QTest::newRow(qPrintable(d)) << QDir(test::publicTracesDir()).filePath(d);
    }
    void publicTracesRoundTrip()
    {
        // Every public trace alone: its report through a summary is its report.
        RS_REQUIRE_PUBLIC_TRACES();
        QFETCH(QString, set);
        RS_SKIP_UNREAD_SET(set);
        std::string error;
        const auto ranks = discoverJob({set.toStdString()}, &error);
        for (const RankInput& in : ranks) {
            const Loaded direct = loadAndAnalyze({in.path});
            if (direct.reports.size() != 1) continue;
            const json expected = reportToJson(direct.inputs);
            const Loaded merged = throughSummaries(direct);
            QCOMPARE(merged.reports.size(), std::size_t(1));
            const json got = reportToJson(merged.inputs);
            QVERIFY2(got == expected, (in.path + ": " + firstDifference(got, expected)).c_str());
            std::ostringstream streamed;
            writeReportJson(streamed, direct.inputs);
            QVERIFY2(streamed.str() == expected.dump(2) + "\n", in.path.c_str());
            const std::size_t summary =
                rankSummaryToJson(*direct.reports[0], in.path).dump().size();
            const qint64 trace = fileBytes(in.path);
            qInfo("%s: %zu collectives, summary %zu bytes, trace file %lld bytes (%.2f%%)",
                  in.path.c_str(), direct.reports[0]->collectives.size(), summary,
                  static_cast<long long>(trace), 100.0 * double(summary) / double(trace));
        }
    }

    void otherVersionRefused()
    {
        QCOMPARE(std::string(kRankSummarySchema), std::string("ringscope.ranksummary/1"));
        json j = rankSummaryToJson(AnalysisReport{}, "x");
        j["schema"] = "ringscope.ranksummary/2";
        const RankSummaryRead r = rankSummaryFromJson(j);
        QVERIFY(!r.ok());
        QVERIFY2(r.error.find("ringscope.ranksummary/2") != std::string::npos, r.error.c_str());
        QVERIFY2(r.error.find("reads ringscope.ranksummary/1") != std::string::npos,
                 r.error.c_str());
        j.erase("schema");
        QVERIFY(!rankSummaryFromJson(j).ok());
        QVERIFY(!rankSummaryFromJson(json::array()).ok());
        // A report is not a summary.
        QVERIFY(!rankSummaryFromJson(json{{"schema", "ringscope.report/1"}}).ok());

        // Through merge: a refused or cut file is named, the others are merged, exit 2.
        RS_REQUIRE_BINARY();
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 2;
        QVERIFY(gen::writeSeedCaseJob(dir.filePath(QStringLiteral("job")).toStdString(), o));
        const Loaded direct = loadAndAnalyze({dir.filePath(QStringLiteral("job")).toStdString()});
        QCOMPARE(direct.reports.size(), std::size_t(2));
        std::string error;
        const QString good = dir.filePath(QStringLiteral("rank0.ranksummary.json"));
        QVERIFY2(writeRankSummary(direct.inputs[0], good.toStdString(), &error), error.c_str());
        json other = rankSummaryToJson(*direct.reports[1], direct.inputs[1].path);
        other["schema"] = "ringscope.ranksummary/9";
        QFile f(dir.filePath(QStringLiteral("rank1.ranksummary.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(other.dump()));
        f.close();
        QFile cut(dir.filePath(QStringLiteral("rank2.ranksummary.json")));
        QVERIFY(cut.open(QIODevice::WriteOnly));
        cut.write(
            QByteArray::fromStdString(rankSummaryToJson(*direct.reports[1], "x").dump()).left(200));
        cut.close();
        const auto r2 = runProcess(ringscopeBinary(),
                                   {QStringLiteral("merge"), QStringLiteral("--json"), dir.path()});
        QCOMPARE(r2.code, 2);
        QVERIFY2(r2.err.contains(QLatin1String("rank1.ranksummary.json: a ringscope.ranksummary/9 "
                                               "summary; this ringscope reads "
                                               "ringscope.ranksummary/1")),
                 qPrintable(r2.err));
        QVERIFY2(r2.err.contains(QLatin1String("rank2.ranksummary.json: not JSON")),
                 qPrintable(r2.err));
        const json partial = json::parse(r2.out.toStdString());
        QCOMPARE(partial["inputs"].size(), std::size_t(1));
        const auto none = runProcess(ringscopeBinary(),
                                     {QStringLiteral("merge"), dir.filePath(QStringLiteral("no"))});
        QCOMPARE(none.code, 2);
        QVERIFY2(none.err.contains(QLatin1String("no such file")), qPrintable(none.err));
    }

    void wrongTypesCountedNeverThrown()
    {
        // Every leaf of a real summary replaced by an object, an array, a string, a negative
        // and a fractional number in turn: read without throwing, the field counted when its
        // type cannot mean the value, the rest of the summary kept.
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 2;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        const Loaded direct = loadAndAnalyze({dir.path().toStdString()});
        QVERIFY(!direct.reports.empty());
        json summary = rankSummaryToJson(*direct.reports[0], direct.inputs[0].path);
        const std::size_t collectives = direct.reports[0]->collectives.size();
        std::vector<Path> paths;
        Path p;
        leaves(summary, p, paths);
        QVERIFY(paths.size() > 100);
        int checked = 0;
        for (const Path& leaf : paths) {
            if (leaf.size() == 1 && std::get<std::string>(leaf[0]) == "schema") continue;
            const json original = at(summary, leaf);
            for (const json& bad : {json::object({{"x", 1}}), json::array({1, 2}), json("text"),
                                    json(-7), json(2.5)}) {
                if (bad.type() == original.type() ||
                    (bad.is_number() && original.is_number_float()) ||
                    (bad.is_string() && original.is_string()))
                    continue;
                json j = summary;
                at(j, leaf) = bad;
                RankSummaryRead r;
                try {
                    r = rankSummaryFromJson(j);
                } catch (const std::exception& e) {
                    QFAIL(
                        qPrintable(QStringLiteral("threw on %1: %2")
                                       .arg(QString::fromStdString(j.dump()).left(80), e.what())));
                }
                QVERIFY(r.ok());
                // A negative number is fine where a signed value is (start_ns, rank, step).
                if (bad.is_number_integer() && original.is_number_integer()) continue;
                QVERIFY2(r.badFields >= 1,
                         qPrintable(QStringLiteral("%1 -> %2 not counted")
                                        .arg(QString::fromStdString(original.dump()),
                                             QString::fromStdString(bad.dump()))));
                QVERIFY(!r.warnings.empty());
                // Only that one element may be lost.
                QVERIFY(r.report->collectives.size() + 1 >= collectives);
                ++checked;
            }
        }
        QVERIFY(checked > 300);
        // A clean summary has none.
        const RankSummaryRead clean = rankSummaryFromJson(summary);
        QCOMPARE(clean.badFields, std::uint64_t(0));
        QVERIFY(clean.warnings.empty());
    }

    void oneReaderEqualsDomReader()
    {
        // The one-pass reader (readRankSummary, merge) against the DOM reader it replaced:
        // every leaf of real summaries (both producers, a copying rank) given every JSON type
        // gives the same report, the same bad-field count and the same warnings.
        QTemporaryDir dir;
        int compared = 0;
        std::string text; // a real summary, for the cuts below
        for (bool kineto : {false, true}) {
            gen::SeedCaseOptions o;
            o.ranks = 2;
            o.badRank = 1;
            o.kineto = kineto;
            const QString job = dir.filePath(kineto ? QStringLiteral("k") : QStringLiteral("n"));
            QVERIFY(gen::writeSeedCaseJob(job.toStdString(), o));
            const Loaded direct = loadAndAnalyze({job.toStdString()});
            QCOMPARE(direct.reports.size(), std::size_t(2));
            const json summary = rankSummaryToJson(*direct.reports[1], direct.inputs[1].path);
            text = summary.dump();
            std::vector<Path> paths;
            Path p;
            leaves(summary, p, paths);
            paths = distinctLeaves(paths);
            auto same = [&](const json& j, const QString& what) {
                const RankSummaryRead a = rankSummaryFromJson(j);
                RankSummaryRead b;
                try {
                    b = rankSummaryFromText(j.dump());
                } catch (const std::exception& e) {
                    QFAIL(qPrintable(QStringLiteral("threw on %1: %2").arg(what, e.what())));
                }
                QVERIFY2(a.ok() == b.ok(),
                         qPrintable(what + QStringLiteral(": ") +
                                    QString::fromStdString(a.error + " | " + b.error)));
                QCOMPARE(QString::fromStdString(b.error), QString::fromStdString(a.error));
                if (!a.ok()) return;
                QVERIFY2(a.badFields == b.badFields,
                         qPrintable(QStringLiteral("%1: %2 vs %3 bad fields")
                                        .arg(what)
                                        .arg(a.badFields)
                                        .arg(b.badFields)));
                QVERIFY2(a.warnings == b.warnings, qPrintable(what));
                const json ra = reportToJson({{"x", a.report}}),
                           rb = reportToJson({{"x", b.report}});
                QVERIFY2(ra == rb, qPrintable(what + QStringLiteral(": ") +
                                              QString::fromStdString(firstDifference(rb, ra))));
                // The slim read gives the match what the full one gives it.
                QCOMPARE(jobRankOf(*b.report).collectives.size(), b.report->collectives.size());
                ++compared;
            };
            same(summary, QStringLiteral("clean"));
            const json types[] = {json::object({{"x", 1}}),
                                  json::array({1, 2}),
                                  json("text"),
                                  json(-7),
                                  json(2.5),
                                  json(nullptr),
                                  json(true),
                                  json(std::uint64_t(18446744073709551615ull)),
                                  json(1e300),
                                  json::array(),
                                  json::object()};
            for (const Path& leaf : paths) {
                for (const json& bad : types) {
                    json j = summary;
                    at(j, leaf) = bad;
                    same(j, QString::fromStdString(j.dump()).left(60) + QStringLiteral("... at ") +
                                QString::number(compared));
                }
            }
            // Whole sections of the wrong type, and not an object at all.
            for (const char* key : {"trace", "options", "collectives", "signatures", "steps",
                                    "findings", "link_sets", "matrix", "events", "warnings"}) {
                for (const json& bad : types) {
                    json j = summary;
                    j[key] = bad;
                    same(j, QString::fromLatin1(key));
                }
            }
            for (const json& bad : types)
                same(bad, QStringLiteral("document"));
        }
        qInfo("%d summaries compared", compared);
        QVERIFY(compared > 1000);
        // Text that is not JSON, cut anywhere: refused, never thrown.
        for (std::size_t cut = 0; cut < text.size(); ++cut) {
            const RankSummaryRead r = rankSummaryFromText(text.substr(0, cut));
            QVERIFY(!r.ok());
        }
        QVERIFY(rankSummaryFromText(text).ok());
    }

    void writerEqualsDocumentDump()
    {
        // The direct writer against nlohmann's dump(2), on values the report's formats differ
        // on: NaN and infinities (null), -0.0, tiny and huge doubles, integral doubles,
        // escapes, control characters, UTF-8, empty strings and lists, absent optionals.
        auto rep = std::make_shared<AnalysisReport>();
        auto facts = std::make_shared<TraceFacts>();
        facts->path = "p\"a\\t\th\u0001\x7f";
        facts->rank = -3;
        facts->warnings = {"w\n1", ""};
        facts->slices = {{1, "évent \xe2\x80\xa8", -5, 7}, {4, "x", 0, 0}};
        rep->facts = facts;
        rep->options.linkPeaks = {{"HCCS", 28.5}, {"Zeta", NAN}, {"AAA", 1e-300}};
        rep->warnings = {"a \"quoted\" warning"};
        rep->badFields = 3;
        const double values[] = {NAN,       INFINITY,
                                 -INFINITY, -0.0,
                                 0.0,       1.0,
                                 0.1,       1e-7,
                                 1e21,      123456789012345678.0,
                                 5e-324,    1.7976931348623157e308,
                                 -2.5};
        for (std::size_t i = 0; i < std::size(values); ++i) {
            Collective c;
            c.event = static_cast<EventId>(i);
            c.name = i % 2 ? "name\b\f\r" : "";
            c.rank = i % 3 ? std::optional<int>(int(i)) : std::nullopt;
            c.step = i % 2 ? std::optional<int>(-int(i)) : std::nullopt;
            c.mode = i % 4 ? std::optional<int>(1) : std::nullopt;
            c.start = -1'700'000'000'000'000'000LL;
            c.count = ~std::uint64_t(0);
            c.algbwGbps = values[i];
            c.busbwGbps = values[(i + 1) % std::size(values)];
            if (i % 2) c.transfers.push_back({"HCCS", 10, 3, 2, values[i], NAN, 0.5});
            if (i % 3 == 0) {
                CommTimeInfo t;
                t.waitRatio = values[i];
                c.timeInfo = t;
            }
            if (i % 3 == 1) c.link = LinkAssumption{"NVLink", values[i], 0.25, "basis ✓"};
            rep->collectives.push_back(c);
        }
        SignatureGroup g;
        g.label = "AllReduce · 4,194,304 × FP32";
        g.members = {0, 1};
        g.modes = {{1, 2, 3, 4, 5}};
        rep->signatures.push_back(g);
        rep->signatures.push_back(SignatureGroup{});
        MatrixEntry m;
        m.gbps = NAN;
        rep->matrix.push_back(m);
        m.opName = "op";
        m.rank = 2;
        m.gbps = 3.25;
        rep->matrix.push_back(m);
        rep->steps.push_back(StepStats{});
        Finding f;
        f.title = "t\u001f";
        f.events = {1, 2, 4};
        f.stack = {{"frame", 1, "python"}, {"", kNone, ""}};
        rep->findings.push_back(f);
        rep->findings.push_back(Finding{});
        auto other = std::make_shared<AnalysisReport>(); // no trace, no facts
        other->collectives.push_back(rep->collectives[1]);
        other->findings.push_back(f);
        const std::vector<ReportInput> inputs = {{"a", rep}, {"b", other}, {"c", rep}};
        JobReport job;
        job.ranks = {rep, other, rep};
        job.rankIds = {-3, 1, 7};
        CrossRankCollective x;
        x.name = "x\ty";
        x.ops = {RankOp{}, RankOp{}};
        x.delayingRanks = {1, 2};
        x.delayingRank = 2;
        job.collectives = {x, CrossRankCollective{}};
        Finding jf = f;
        jf.ranks = {1, 2, 3};
        jf.eventsRank = -3;
        jf.step = 4;
        job.findings = {jf, Finding{}};
        for (const JobReport* j :
             {static_cast<const JobReport*>(nullptr), static_cast<const JobReport*>(&job)}) {
            std::ostringstream streamed;
            writeReportJson(streamed, inputs, j);
            const std::string expected = reportToJson(inputs, j).dump(2) + "\n";
            QCOMPARE(QString::fromStdString(streamed.str()), QString::fromStdString(expected));
        }
        // A slim job (null ranks): the evidence comes from the inputs as they are written.
        JobReport slimJob = job;
        slimJob.ranks.assign(3, nullptr);
        std::ostringstream streamed;
        writeReportJson(
            streamed, inputs.size(), [&](std::size_t i) { return inputs[i]; }, &slimJob);
        QCOMPARE(QString::fromStdString(streamed.str()),
                 QString::fromStdString(reportToJson(inputs, &job).dump(2) + "\n"));
        // Invalid UTF-8 is refused as nlohmann refuses it.
        auto broken = std::make_shared<AnalysisReport>();
        broken->warnings = {"\xff\xfe"};
        std::ostringstream out;
        QVERIFY_THROWS_EXCEPTION(nlohmann::json::type_error, writeReportJson(out, {{"x", broken}}));
    }

    void streamingMergeEqualsAnalyze_data()
    {
        QTest::addColumn<bool>("kineto");
        QTest::newRow("torch_npu") << false;
        QTest::newRow("kineto") << true;
    }

    void streamingMergeEqualsAnalyze()
    {
        // The 8-rank seed job with several copying ranks per step (gen_trace --bad-ranks
        // 2=1+5,4=2+3+6): `merge --json` (two passes, slim match) prints `analyze --json`.
        QFETCH(bool, kineto);
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 8;
        o.kineto = kineto;
        o.badRanks = {{2, {1, 5}}, {4, {2, 3, 6}}};
        const QString jobDir = dir.filePath(QStringLiteral("job"));
        QVERIFY(gen::writeSeedCaseJob(jobDir.toStdString(), o));
        const PipelineResult direct = runPipeline({jobDir.toStdString()}, PipelineOptions{});
        QCOMPARE(direct.reports.size(), std::size_t(8));
        QVERIFY(direct.job);
        std::ostringstream expected;
        writeReportJson(expected, direct.reportInputs(), direct.jobReport());
        const json e = json::parse(expected.str());
        // Two and three ranks delay the bad steps.
        std::set<std::size_t> delaying;
        for (const json& c : e["cross_rank"])
            delaying.insert(c["delaying_ranks"].size());
        QVERIFY(delaying.count(2) && delaying.count(3));

        const QString out = dir.filePath(QStringLiteral("summaries"));
        QVERIFY(QDir().mkpath(out));
        const std::vector<ReportInput> inputs = direct.reportInputs();
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            std::string error;
            // Half plain, half gzip, as a Slurm array may write them.
            const QString name = QStringLiteral("%1/task-%2.ranksummary.json%3")
                                     .arg(out)
                                     .arg(7 - i)
                                     .arg(i % 2 ? QStringLiteral(".gz") : QString());
            QVERIFY2(writeRankSummary(inputs[i], name.toStdString(), &error), error.c_str());
        }
        std::ostringstream merged;
        const MergeOutcome m = writeMergedReportJson(merged, {out.toStdString()});
        QVERIFY(m.errors.empty());
        QVERIFY(m.warnings.empty());
        QVERIFY(m.job);
        QCOMPARE(m.ranks, std::size_t(8));
        QVERIFY2(merged.str() == expected.str(),
                 firstDifference(json::parse(merged.str()), e).c_str());
        QCOMPARE(m.worst, worstSeverity(inputs, direct.jobReport()));
        // And the in-memory merge (text output) agrees.
        const MergedJob full = mergeRankSummaries({out.toStdString()});
        std::ostringstream again;
        writeReportJson(again, full.inputs, full.jobReport());
        QVERIFY(again.str() == expected.str());
        // The slim match is the full one.
        std::vector<JobRank> slim;
        for (const ReportPtr& r : direct.reports)
            slim.push_back(jobRankOf(*r));
        const JobReport a = analyzeJob(slim), b = analyzeJob(direct.reports);
        QCOMPARE(a.collectives.size(), b.collectives.size());
        QCOMPARE(a.findings.size(), b.findings.size());
        for (std::size_t i = 0; i < a.findings.size(); ++i)
            QCOMPARE(QString::fromStdString(a.findings[i].title),
                     QString::fromStdString(b.findings[i].title));
    }

    void streamedWriterEdgeCases()
    {
        // Nothing, and an input with nothing in it: still the document's dump.
        for (const std::vector<ReportInput>& inputs :
             {std::vector<ReportInput>{},
              std::vector<ReportInput>{{"empty", std::make_shared<AnalysisReport>()}}}) {
            std::ostringstream streamed;
            writeReportJson(streamed, inputs);
            QCOMPARE(QString::fromStdString(streamed.str()),
                     QString::fromStdString(reportToJson(inputs).dump(2) + "\n"));
        }
    }

    void textMergeStreams_data()
    {
        QTest::addColumn<bool>("kineto");
        QTest::addColumn<bool>("cutRank");
        QTest::addColumn<QString>("golden");
        QTest::newRow("torch_npu") << false << false << QStringLiteral("merge_text_torchnpu_8");
        QTest::newRow("torch_npu, rank 3's summary cut")
            << false << true << QStringLiteral("merge_text_torchnpu_8_failed");
        QTest::newRow("kineto") << true << false << QStringLiteral("merge_text_kineto_8");
    }

    void textMergeStreams()
    {
        // `merge` without --json reads the summaries in two passes as --json does
        // (writeMergedReportText): the text of the one-pass merge that held every report
        // (mergeRankSummaries + reportToText, kept as the oracle), byte for byte, and the text
        // `ringscope merge` printed before it streamed (tests/data/golden/merge_text_*.txt,
        // written by that binary on the same generated job; paths as <dir>).
        QFETCH(bool, kineto);
        QFETCH(bool, cutRank);
        QFETCH(QString, golden);
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 8;
        o.kineto = kineto;
        const QString job = dir.filePath(QStringLiteral("job"));
        const QString sums = dir.filePath(QStringLiteral("summaries"));
        QVERIFY(gen::writeSeedCaseJob(job.toStdString(), o));
        std::string error;
        const std::vector<std::string> files =
            test::writeJobSummaries(job.toStdString(), sums.toStdString(), &error);
        QVERIFY2(files.size() == 8, error.c_str());
        if (cutRank) {
            // A summary cut half-way (a disk full, a copy interrupted): refused, the rest merged.
            QFile f(QString::fromStdString(files[3]));
            QVERIFY(f.open(QIODevice::ReadWrite));
            QVERIFY(f.resize(f.size() / 2));
        }
        const std::vector<std::string> paths{sums.toStdString()};
        std::ostringstream streamed;
        const MergeOutcome m = writeMergedReportText(streamed, paths);
        const MergedJob old = mergeRankSummaries(paths);
        QCOMPARE(QString::fromStdString(streamed.str()),
                 QString::fromStdString(reportToText(old.inputs, old.jobReport())));
        QCOMPARE(m.ranks, std::size_t(cutRank ? 7 : 8));
        QCOMPARE(m.errors.size(), std::size_t(cutRank ? 1 : 0));
        QCOMPARE(m.errors, old.errors);
        QVERIFY(m.job);
        QCOMPARE(m.worst, worstSeverity(old.inputs, old.jobReport()));

        QString text = QString::fromStdString(streamed.str());
        text.replace(job, QStringLiteral("<dir>"));
        const QString file = test::testDataPath(QStringLiteral("golden/%1.txt").arg(golden));
        if (qEnvironmentVariableIsSet("RINGSCOPE_UPDATE_GOLDEN")) {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(text.toUtf8());
            return;
        }
        QFile f(file);
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(file));
        QCOMPARE(text, QString::fromUtf8(f.readAll()));
    }

    void mergeModesAgree()
    {
        // mergeSummaries' two modes are one merge: the same summaries in one rank order, the
        // same errors, the job matched alike (matchJob on the reports or on the slim ranks);
        // Full's warnings are its reads' then Slim's, and a report read after the slim merge
        // gets the note on delaying ranks that Full's reports have.
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 8;
        o.badRanks = {{2, {1, 5}}, {4, {2, 3, 6}}};
        const QString job = dir.filePath(QStringLiteral("job"));
        const QString sums = dir.filePath(QStringLiteral("summaries"));
        QVERIFY(gen::writeSeedCaseJob(job.toStdString(), o));
        std::string error;
        const std::vector<std::string> files =
            test::writeJobSummaries(job.toStdString(), sums.toStdString(), &error, true);
        QVERIFY2(files.size() == 8, error.c_str());
        {
            // Rank 6: a field of the wrong type (warned when read whole); rank 7: cut.
            QFile f(QString::fromStdString(files[6]));
            QVERIFY(f.open(QIODevice::ReadOnly));
            json j = json::parse(f.readAll().toStdString());
            f.close();
            j["trace"]["events"] = "many";
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(QByteArray::fromStdString(j.dump()));
        }
        const std::string cut = sums.toStdString() + "/task-9.ranksummary.json";
        {
            QFile in(QString::fromStdString(files[0]));
            QVERIFY(in.open(QIODevice::ReadOnly));
            QFile out(QString::fromStdString(cut));
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(in.readAll().left(100));
        }
        const std::vector<std::string> paths{sums.toStdString()};
        const SummaryMerge full = mergeSummaries(paths, MergeMode::Full);
        const SummaryMerge slim = mergeSummaries(paths, MergeMode::Slim);
        QCOMPARE(full.files, slim.files);
        QCOMPARE(full.files.size(), std::size_t(8));
        QCOMPARE(full.ranks.size(), std::size_t(8));
        QCOMPARE(full.reports.size(), std::size_t(8));
        QVERIFY(slim.ranks.empty() && slim.reports.empty());
        QCOMPARE(full.errors, slim.errors);
        QCOMPARE(full.errors.size(), std::size_t(1));
        QVERIFY(full.job && slim.job);
        QCOMPARE(full.job->collectives.size(), slim.job->collectives.size());
        QCOMPARE(full.job->findings.size(), slim.job->findings.size());
        QCOMPARE(full.jobNote, slim.jobNote);
        QVERIFY(!full.jobNote.empty());
        QVERIFY(full.warnings.size() > slim.warnings.size());
        QCOMPARE(
            std::vector<std::string>(full.warnings.end() - std::ptrdiff_t(slim.warnings.size()),
                                     full.warnings.end()),
            slim.warnings);
        int noted = 0;
        for (std::size_t i = 0; i < full.files.size(); ++i) {
            QCOMPARE(full.ranks[i].file, full.files[i]);
            const ReportPtr read = readRankSummary(slim.files[i]).report;
            const ReportPtr withNote = slim.withJobNote(read);
            noted += withNote != read;
            QCOMPARE(withNote->findings.size(), full.reports[i]->findings.size());
            for (std::size_t k = 0; k < withNote->findings.size(); ++k)
                QCOMPARE(withNote->findings[k].recommendation,
                         full.reports[i]->findings[k].recommendation);
        }
        QVERIFY(noted > 0);
    }

    void textWriterHoldsABatch()
    {
        // writeReportText lets each input's report go once worded: of 200 inputs, never more
        // than a batch (8 per pool thread, at least 16, as writeReportJson) are alive at once.
        std::atomic<int> alive{0}, most{0};
        const auto base = std::make_shared<AnalysisReport>();
        base->findings.push_back({});
        base->findings.back().rule = "sync-dominated";
        base->findings.back().rank = 1;
        const std::size_t count = 200;
        std::vector<ReportInput> all;
        std::ostringstream streamed;
        writeReportText(streamed, count, [&](std::size_t i) -> ReportInput {
            const int now = ++alive;
            for (int m = most.load(); now > m && !most.compare_exchange_weak(m, now);) {
            }
            auto copy = std::shared_ptr<const AnalysisReport>(new AnalysisReport(*base),
                                                              [&](const AnalysisReport* r) {
                                                                  --alive;
                                                                  delete r;
                                                              });
            return {"input " + std::to_string(i), copy};
        });
        QCOMPARE(alive.load(), 0);
        const int batch = std::max(16, 8 * WorkPool::global().threadCount());
        QVERIFY2(most.load() <= batch, qPrintable(QString::number(most.load())));
        for (std::size_t i = 0; i < count; ++i)
            all.push_back({"input " + std::to_string(i), base});
        QCOMPARE(QString::fromStdString(streamed.str()), QString::fromStdString(reportToText(all)));
    }

    void foldersAndOrder()
    {
        QTemporaryDir dir;
        std::string error;
        QVERIFY(findRankSummaries({dir.path().toStdString()}, &error).empty());
        QVERIFY2(error.find("no *.ranksummary.json") != std::string::npos, error.c_str());
        // Rank order as loadJob's: by rank, a rank-less one at its place.
        std::vector<RankSummaryRead> v(3);
        for (int i = 0; i < 3; ++i) {
            auto rep = std::make_shared<AnalysisReport>();
            auto facts = std::make_shared<TraceFacts>();
            facts->rank = 2 - i;
            facts->path = std::to_string(i);
            rep->facts = facts;
            v[i].report = rep;
        }
        sortByRank(v);
        QCOMPARE(v[0].report->facts->path, std::string("2"));
        QCOMPARE(v[2].report->facts->path, std::string("0"));
    }
};

QTEST_MAIN(TstRankSummary)
#include "tst_ranksummary.moc"
