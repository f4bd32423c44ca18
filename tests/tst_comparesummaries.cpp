// Comparing runs from rank summaries (issue 17.2): a folder of ringscope.ranksummary/1 files
// (or a list of them) on either side of `ringscope compare` gives the step, collective,
// communication and findings comparison the traces give, and says its ops are not available
// (a summary holds no per-op device time) instead of showing them as zeros.
#include "bench/tracegen_seed.h"
#include "core/compare/comparereport.h"
#include "core/compare/runloader.h"
#include "core/job/ranksummary.h"
#include "tests/support/outputjson.h"
#include "tests/support/processrun.h"
#include "tests/support/summaryfixture.h"
#include "tests/testutil.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace rs;
using nlohmann::json;
using rs::test::compareToJson;
using rs::test::runSummaryJson;
using rs::test::scalingToJson;

namespace {

// As `ringscope compare` loads a side.
RunDigest digestPath(const QString& path)
{
    std::vector<std::string> errors;
    auto d = loadRunDigest(path.toStdString(), {}, &errors);
    if (!d || !errors.empty())
        qWarning("%s: %s", qPrintable(path), errors.empty() ? "?" : errors[0].c_str());
    return d ? *d : RunDigest{};
}

// The comparison without what differs by construction: the ops a summary cannot know, where
// each side came from (its path, its source) and its world size (Kineto's is in the trace's
// metadata, not in a summary; checked apart).
json comparable(json j)
{
    j.erase("ops");
    j.erase("ops_available");
    for (const char* side : {"before", "after"})
        for (const char* key : {"path", "device_ns", "source", "ops_available", "world_size"})
            j[side].erase(key);
    return j;
}

// The text between the run lines and the ops: the step table, collectives and findings.
std::string middle(const std::string& text)
{
    const std::size_t from = text.find("\n\n");
    const std::size_t to = text.find("\n  ops");
    return from == std::string::npos || to == std::string::npos ? std::string()
                                                                : text.substr(from, to - from);
}

QString ringscopeBinary()
{
    return test::binaryDir() + QStringLiteral("/app/ringscope");
}

} // namespace

class TstCompareSummaries : public QObject {
    Q_OBJECT
private slots:
    void summariesCompareAsTraces_data()
    {
        QTest::addColumn<bool>("kineto");
        QTest::newRow("torch_npu") << false;
        QTest::newRow("kineto") << true;
    }

    void summariesCompareAsTraces()
    {
        QFETCH(bool, kineto);
        // Job A: rank 0 copies in steps 2 and 4. Job B: rank 5 copies in step 3 (so findings
        // are resolved, new and persisting).
        QTemporaryDir root;
        gen::SeedCaseOptions o;
        o.ranks = 8;
        o.kineto = kineto;
        o.badSteps = {2, 4};
        const QString a = root.filePath(QStringLiteral("a")),
                      b = root.filePath(QStringLiteral("b"));
        QVERIFY(gen::writeSeedCaseJob(a.toStdString(), o));
        o.badRank = 5;
        o.badSteps = {3};
        QVERIFY(gen::writeSeedCaseJob(b.toStdString(), o));
        const QString sa = root.filePath(QStringLiteral("a-summaries"));
        const QString sb = root.filePath(QStringLiteral("b-summaries"));
        std::string error;
        const auto filesA =
            test::writeJobSummaries(a.toStdString(), sa.toStdString(), &error, true);
        QVERIFY2(filesA.size() == 8, error.c_str());
        QVERIFY2(test::writeJobSummaries(b.toStdString(), sb.toStdString(), &error).size() == 8,
                 error.c_str());
        QVERIFY(isRankSummaryPath(sa.toStdString()) && isRankSummaryPath(filesA[1]));
        QVERIFY(!isRankSummaryPath(a.toStdString()));

        const RunDigest da = digestPath(a), db = digestPath(b);
        const RunDigest dsa = digestPath(sa), dsb = digestPath(sb);
        QVERIFY(!da.fromSummaries && dsa.fromSummaries);
        QCOMPARE(dsa.rankIds, da.rankIds);
        QCOMPARE(dsa.producer, da.producer);
        QCOMPARE(dsa.cards, 8);
        // torch_npu's world size is in the metadata beside the trace the summary names; a
        // Kineto summary does not carry distributedInfo.
        QCOMPARE(dsa.worldSize, kineto ? std::nullopt : std::optional<int>(8));
        // A list of summary files is the same run as their folder.
        {
            std::vector<std::string> errors;
            const auto listed = loadSummaryRunDigest(filesA, sa.toStdString(), &errors);
            QVERIFY(listed && errors.empty());
            QCOMPARE(runSummaryJson(*listed), runSummaryJson(dsa));
        }

        const RunComparison traces = compareRuns(da, db);
        QVERIFY(traces.opsAvailable && !traces.ops.empty());
        const json jt = compareToJson(traces, 0);
        QVERIFY(!jt["findings_resolved"].empty() && !jt["findings_new"].empty() &&
                !jt["findings_persisting"].empty());
        QCOMPARE(jt["ops_available"], json(true));
        QCOMPARE(jt["before"]["source"], json("traces"));
        QVERIFY(jt["before"]["device_ns"].get<TimeNs>() > 0);
        const std::string tt = compareToText(traces, 0);

        struct Case {
            const char* name;
            const RunDigest &before, &after;
            const char* says;
        };
        const Case cases[] = {{"A's summaries vs B's traces", dsa, db, "before is"},
                              {"A's traces vs B's summaries", da, dsb, "after is"},
                              {"both from summaries", dsa, dsb, "both runs are"}};
        for (const Case& x : cases) {
            const RunComparison c = compareRuns(x.before, x.after);
            const json j = compareToJson(c, 0);
            QVERIFY2(comparable(j) == comparable(jt), x.name);
            // Ops: not available, never zeros or "no change".
            QVERIFY2(!c.opsAvailable && c.ops.empty(), x.name);
            QCOMPARE(j["ops_available"], json(false));
            QVERIFY(j["ops"].empty());
            for (const char* side : {"before", "after"}) {
                const RunDigest& d = std::string(side) == "before" ? x.before : x.after;
                QCOMPARE(j[side]["source"], json(d.fromSummaries ? "summaries" : "traces"));
                QCOMPARE(j[side]["ops_available"], json(!d.fromSummaries));
                QCOMPARE(j[side]["device_ns"].is_null(), d.fromSummaries);
                const json world =
                    d.fromSummaries && kineto ? json(nullptr) : jt[side]["world_size"];
                QCOMPARE(j[side]["world_size"], world);
            }
            const std::string text = compareToText(c, 0);
            QVERIFY2(text.find(std::string("ops: not available: ") + x.says + " rank summaries") !=
                         std::string::npos,
                     text.c_str());
            QVERIFY2(text.find("ops, largest changes") == std::string::npos, text.c_str());
            QVERIFY2(text.find(", rank summaries)") != std::string::npos, text.c_str());
            QCOMPARE(QString::fromStdString(middle(text)), QString::fromStdString(middle(tt)));
            QVERIFY(!middle(text).empty());
        }

        // Scaling from summaries: the same step time and cards, so the same efficiency.
        const auto fromTraces = scalingOf({da, db}, false);
        const auto fromSummaries = scalingOf({dsa, dsb}, false);
        QCOMPARE(fromSummaries[1].stepMeanNs, fromTraces[1].stepMeanNs);
        QCOMPARE(fromSummaries[1].cards, fromTraces[1].cards);
        QCOMPARE(*fromSummaries[1].efficiency, *fromTraces[1].efficiency);
    }

    void commandTakesSummaries()
    {
        if (!QFileInfo::exists(ringscopeBinary()))
            QSKIP("no app/ringscope in this build tree: the command-line checks need it");
        QTemporaryDir root;
        gen::SeedCaseOptions o;
        o.ranks = 4;
        o.steps = 4;
        o.badSteps = {1, 3};
        const QString a = root.filePath(QStringLiteral("a")),
                      b = root.filePath(QStringLiteral("b"));
        QVERIFY(gen::writeSeedCaseJob(a.toStdString(), o));
        o.badSteps.clear();
        QVERIFY(gen::writeSeedCaseJob(b.toStdString(), o));
        const QString sa = root.filePath(QStringLiteral("a-summaries"));
        std::string error;
        QVERIFY2(test::writeJobSummaries(a.toStdString(), sa.toStdString(), &error).size() == 4,
                 error.c_str());
        const auto r = test::runProcess(
            ringscopeBinary(), {QStringLiteral("compare"), sa, b, QStringLiteral("--json")});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const json got = json::parse(r.out.toStdString());
        const json want = compareToJson(compareRuns(digestPath(sa), digestPath(b)), 20);
        QCOMPARE(QString::fromStdString(got.dump(1)), QString::fromStdString(want.dump(1)));
        QCOMPARE(got["before"]["source"], json("summaries"));
        QCOMPARE(got["ops_available"], json(false));
        const auto text = test::runProcess(ringscopeBinary(), {QStringLiteral("compare"), b, sa});
        QVERIFY2(text.code == 0, qPrintable(text.describe()));
        QVERIFY2(text.out.contains(QLatin1String("ops: not available: after is rank summaries")),
                 qPrintable(text.out));
        // A folder with nothing readable in it is refused, as a run without a trace is.
        const QString empty = root.filePath(QStringLiteral("empty.ranksummary.json"));
        QFile f(empty);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{");
        f.close();
        const auto bad = test::runProcess(ringscopeBinary(), {QStringLiteral("compare"), empty, b});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains(QLatin1String("not JSON")), qPrintable(bad.err));
    }
};

QTEST_MAIN(TstCompareSummaries)
#include "tst_comparesummaries.moc"
