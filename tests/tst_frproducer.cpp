// The Flight Recorder producer (core/producers/flightrecorder/producer.cpp) through the job
// pipeline and the command line: a folder of dumps is a job whose report has the call rules'
// findings (collective-missing, collective-mismatch) with the fields issue 45 names, on both
// shared scenarios against the reference analyzer's answer, on cases made in code from the
// shared dumps (written back as PyTorch's JSON form), the job trace's flows across member
// ranks, the calls' Python frames, `info`, and hostile files refused with exit 2 and a message
// naming the file.

#include "core/job/jobpipeline.h"
#include "core/job/jobtrace.h"
#include "core/producers/flightrecorder/diagnosis.h"
#include "tests/support/frdumps.h"
#include "tests/support/processrun.h"
#include "tests/testutil.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

using namespace rs;
using namespace rs::flightrecorder;
using J = nlohmann::json;
using namespace std::string_literals;

namespace {

QString ringscopeBinary()
{
    return test::binaryDir() + QStringLiteral("/app/ringscope");
}

test::ProcessRun cli(const QStringList& args)
{
    return test::runProcess(ringscopeBinary(), args + QStringList{"--no-cache"});
}

// `analyze --json` of paths, parsed (a finding that is an error is no failure of the run).
J analyzeJson(const QStringList& paths)
{
    const test::ProcessRun r = cli(QStringList{"analyze", "--json"} + paths);
    if (r.code != 0 && r.code != 1) qFatal("analyze: %s", qPrintable(r.describe()));
    return J::parse(r.out.toStdString());
}

std::vector<J> findingsOf(const J& report, const std::string& rule)
{
    std::vector<J> out;
    for (const J& f : report["findings"])
        if (f["rule"] == rule) out.push_back(f);
    return out;
}

std::vector<int> ints(const J& v)
{
    return v.is_array() ? v.get<std::vector<int>>() : std::vector<int>{};
}

// reference_output.txt's one row: group, description, op, size, dtype, missing ranks.
QStringList referenceRow(const char* set)
{
    QFile f(test::publicTrace(set) + "/reference_output.txt");
    if (!f.open(QIODevice::ReadOnly)) qFatal("no reference_output.txt");
    for (const QString& line : QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts)) {
        QStringList c = line.split('|');
        if (c.size() < 6 || c[0].trimmed() == "PGID") continue;
        for (QString& x : c)
            x = x.trimmed();
        c[1] = c[1].section(',', 0, 0); // "EXPERT_MODEL_PARALLEL_GROUP,0"
        return c;
    }
    return {};
}

Entry* findEntry(Dump& d, const std::string& group, std::int64_t seq)
{
    for (Entry& e : d.entries)
        if (e.groupName == group && e.collectiveSeqId == seq && !e.p2p()) return &e;
    return nullptr;
}

bool writeFile(const QString& path, const std::string& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) &&
           f.write(bytes.data(), qint64(bytes.size())) == qint64(bytes.size());
}

} // namespace

class TestFrProducer : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (!QFileInfo::exists(ringscopeBinary())) QSKIP("the ringscope binary is not built");
    }

    void matchesReference_data()
    {
        QTest::addColumn<QString>("set");
        QTest::newRow("gpu_error") << QString(test::kFrGpuError);
        QTest::newRow("lock_gil") << QString(test::kFrLockGil);
    }

    // analyze --json on a folder of dumps: exactly the reference's group and missing ranks,
    // and the injected ranks explained by their own dumps.
    void matchesReference()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        QFETCH(QString, set);
        const std::string s = set.toStdString();
        const J rep = analyzeJson({test::publicTrace(s.c_str())});
        QCOMPARE(rep["inputs"].size(), std::size_t(16));
        const QStringList ref = referenceRow(s.c_str());
        QCOMPARE(ref.size(), 6);
        const std::vector<J> missing = findingsOf(rep, "collective-missing");
        QCOMPARE(missing.size(), std::size_t(1));
        const J& f = missing.front();
        QCOMPARE(f["severity"], J("error"));
        QCOMPARE(QString::fromStdString(f["group"]), ref[0]);
        QCOMPARE(QString::fromStdString(f["group_desc"]), ref[1]);
        QCOMPARE(QString::fromStdString(f["op"]), ref[2]);
        QCOMPARE(f["sizes"], J::parse("[[2048, 5120]]"));
        QCOMPARE(ref[3], QString("2048x5120"));
        QCOMPARE(QString::fromStdString(f["dtypes"][0]), ref[4]);
        QCOMPARE(ints(f["missing_ranks"]), (std::vector<int>{9, 14}));
        QCOMPARE(ref[5], QString("9,14"));
        QCOMPARE(ints(f["waiting_ranks"]), (std::vector<int>{8, 10, 11, 12, 13, 15}));
        QCOMPARE(f["seq"], J(s == test::kFrGpuError ? 44791 : 45265));
        QVERIFY(f["waited_ns"].get<std::int64_t>() > 0);
        QVERIFY(f["end_ns"].get<std::int64_t>() > f["start_ns"].get<std::int64_t>());
        QVERIFY2(f["title"].get<std::string>().starts_with(
                     "Ranks 9 and 14 never entered all_to_all #" +
                     std::to_string(f["seq"].get<int>()) + " of EXPERT_MODEL_PARALLEL_GROUP 72"),
                 f.dump().c_str());
        // Its evidence: a waiting member's call.
        QVERIFY(!f["events"].empty());
        const std::string why = f["recommendation"];
        if (s == test::kFrLockGil) {
            // The GIL held: no collective in flight on 9 and 14, their dumps are empty.
            QCOMPARE(ints(f["empty_ranks"]), (std::vector<int>{9, 14}));
            QVERIFY(why.find("rank 9's dump has no entries") != std::string::npos);
        } else {
            // A GPU error: their own dumps stop at an older call.
            QVERIFY(!f.contains("empty_ranks"));
            QVERIFY(why.find("rank 9's last recorded call is _all_gather_base #87760") !=
                    std::string::npos);
        }
        QVERIFY(findingsOf(rep, "collective-mismatch").empty());
        // The per-rank reports: recorded calls with their state, sequence number and sizes.
        const J& c = rep["collectives"][0];
        QCOMPARE(c["state"], J("scheduled"));
        QVERIFY(c.contains("seq") && c.contains("input_sizes") && c.contains("group_desc"));
    }

    // info: the dump's format, version, rank source, groups with entries and states.
    void info()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        const test::ProcessRun r = cli(
            {"info", "--json", test::publicTrace(test::kFrLockGil) + QStringLiteral("/_dump_8")});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const J j = J::parse(r.out.toStdString());
        const J& t = j.is_array() ? j[0] : j;
        QCOMPARE(t["producer"], J("flight_recorder"));
        const J& d = t["details"];
        QCOMPARE(d["version"], J("2.9"));
        QCOMPARE(d["rank_source"], J("file name"));
        QCOMPARE(d["states"]["scheduled"], d["entries"]);
        bool expert = false;
        for (const J& g : d["groups"])
            if (g["name"] == "72") {
                expert = true;
                QCOMPARE(g["desc"], J("EXPERT_MODEL_PARALLEL_GROUP"));
                QVERIFY(g["entries"].get<int>() > 0);
            }
        QVERIFY(expert);
        // An empty dump (rank 9 held the GIL) reads, with a warning that says so.
        const test::ProcessRun empty =
            cli({"info", test::publicTrace(test::kFrLockGil) + QStringLiteral("/_dump_9")});
        QVERIFY2(empty.code == 0, qPrintable(empty.describe()));
        QVERIFY(empty.out.contains("the dump has no entries"));
    }

    // A dump lost: rank 9 is missing everywhere, and said to have left no dump.
    void droppedDump()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        std::vector<Dump> dumps = test::loadFrSet(test::kFrGpuError);
        dumps.erase(dumps.begin() + 9);
        QTemporaryDir dir;
        QVERIFY(test::writeFrJob(dir.path(), dumps));
        const J rep = analyzeJson({dir.path()});
        QCOMPARE(rep["inputs"].size(), std::size_t(15));
        const std::vector<J> missing = findingsOf(rep, "collective-missing");
        QCOMPARE(missing.size(), std::size_t(1));
        QCOMPARE(ints(missing[0]["missing_ranks"]), (std::vector<int>{9, 14}));
        QCOMPARE(ints(missing[0]["absent_ranks"]), std::vector<int>{9});
        QVERIFY(missing[0]["title"].get<std::string>().find("rank 9 left no dump") !=
                std::string::npos);
    }

    // One rank's entries cut short: it looks stopped where its record ends; the root stays.
    void entriesCutShort()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        std::vector<Dump> dumps = test::loadFrSet(test::kFrGpuError);
        dumps[12].entries.resize(2);
        QTemporaryDir dir;
        QVERIFY(test::writeFrJob(dir.path(), dumps));
        const std::vector<J> missing = findingsOf(analyzeJson({dir.path()}), "collective-missing");
        QCOMPARE(missing.size(), std::size_t(2));
        // The first by time is the root: written first.
        QCOMPARE(ints(missing[0]["missing_ranks"]), (std::vector<int>{9, 14}));
        QCOMPARE(ints(missing[1]["missing_ranks"]), std::vector<int>{12});
        QCOMPARE(missing[1]["group"], J("64"));
        QCOMPARE(missing[1]["seq"], J(14960));
    }

    // One rank's size changed at one sequence number: a collective-mismatch with its fields.
    void mismatchedSize()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        std::vector<Dump> dumps = test::loadFrSet(test::kFrGpuError);
        Entry* e = findEntry(dumps[10], "37", 87761);
        QVERIFY(e);
        e->inputSizes = {{7, 7}};
        QTemporaryDir dir;
        QVERIFY(test::writeFrJob(dir.path(), dumps));
        const J rep = analyzeJson({dir.path()});
        const std::vector<J> mm = findingsOf(rep, "collective-mismatch");
        QCOMPARE(mm.size(), std::size_t(1));
        QCOMPARE(mm[0]["mismatch"], J("size"));
        QCOMPARE(mm[0]["group"], J("37"));
        QCOMPARE(mm[0]["seq"], J(87761));
        QCOMPARE(mm[0]["op"], J("nccl:_reduce_scatter_base"));
        QVERIFY(std::count(mm[0]["ranks"].begin(), mm[0]["ranks"].end(), J(10)));
        QVERIFY(!std::count(mm[0]["matching_ranks"].begin(), mm[0]["matching_ranks"].end(), J(10)));
        QVERIFY(!mm[0]["events"].empty());
        // The hang itself is still found.
        QCOMPARE(findingsOf(rep, "collective-missing").size(), std::size_t(1));
    }

    // The viewer's job trace: a flow joins each call's members (by group and sequence number),
    // and a call's Python frames are its stack.
    void flowsAndFrames()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        std::vector<Dump> dumps = test::loadFrSet(test::kFrGpuError);
        Entry* e = findEntry(dumps[8], "72", 44791);
        QVERIFY(e);
        e->frames = {{"forward", "moe/layer.py", 120}, {"train_step", "train.py", 40}};
        QTemporaryDir dir;
        QVERIFY(test::writeFrJob(dir.path(), dumps));
        PipelineOptions options;
        const PipelineResult p = runPipeline({dir.path().toStdString()}, options);
        QVERIFY(p.job);
        QCOMPARE(p.traces.size(), std::size_t(16));
        const JobTrace job = mergeRanks(p.traces, {});
        const JobTrace linked = withCallFlows(job, *p.job, p.reports);
        QVERIFY(linked.trace != job.trace);
        const Trace& t = *linked.trace;
        std::size_t named = 0;
        for (const Flow& f : t.flows())
            if (t.str(f.name) == "72 #44791") ++named;
        // all_to_all #44791 of group 72: entered by 6 of its 8 members, joined in rank order.
        QCOMPARE(named, std::size_t(5));
        // Done once: the same job again is left as it is.
        QVERIFY(withCallFlows(linked, *p.job, p.reports).trace == linked.trace);
        // The frames, outermost first in the trace (the dump writes the innermost first).
        const Trace& r8 = *p.traces[8];
        bool found = false;
        for (EventId ev = 0; ev < r8.slices().size(); ++ev) {
            const std::uint32_t frame = r8.eventStackFrame(ev);
            if (frame == kNone) continue;
            found = true;
            QCOMPARE(r8.str(r8.stackFrames()[frame].name),
                     std::string("moe/layer.py(120): forward"));
        }
        QVERIFY(found);
    }

    // Hostile files: refused with a message naming the file, exit 2 when nothing was read.
    void hostile()
    {
        QTemporaryDir dir;
        auto binUnicode = [](const std::string& text) {
            std::string s = "X";
            for (int i = 0; i < 4; ++i)
                s += char((text.size() >> (8 * i)) & 0xff);
            return s + text;
        };
        // {'pg_config': {}, 'entries': os.system('true')}: would run a command in Python.
        const std::string head =
            "\x80\x02}q\x00("s + binUnicode("pg_config") + "}" + binUnicode("entries");
        struct Case {
            const char* name;
            std::string bytes;
            const char* says;
        };
        // Lists in lists, 100000 deep (EMPTY_LIST, then each APPENDed to the one before).
        const std::string deep = head + std::string(100000, ']') + std::string(99999, 'a') + "u.";
        const std::vector<Case> cases = {
            {"_dump_0", head + "cposix\nsystem\n" + binUnicode("true") + "\x85Ru.",
             "opcode GLOBAL (0x63) refused"},
            {"_dump_1", head + "\x8c\x05posix\x8c\x06system\x93" + binUnicode("true") + "\x85Ru.",
             "opcode STACK_GLOBAL (0x93) refused"},
            {"_dump_2", head.substr(0, head.size() - 3), "truncated"},
            {"_dump_3", deep, "deep"},
            {"_dump_4", head + "X\xff\xff\xff\x7f" + "abc", "truncated"},
            {"_dump_5",
             "\x80\x02}q\x00("s + binUnicode("version") + binUnicode("9.0") +
                 binUnicode("pg_config") + "}u.",
             "entries"},
        };
        for (const Case& c : cases) {
            const QString path = dir.filePath(c.name);
            QVERIFY(writeFile(path, c.bytes));
            const test::ProcessRun r = cli({"analyze", path});
            QVERIFY2(r.code == 2, qPrintable(c.name + (": " + r.describe())));
            QVERIFY2(r.err.contains(path), qPrintable(r.err));
            QVERIFY2(r.err.contains(c.says, Qt::CaseInsensitive), qPrintable(r.err));
        }
        // A folder of them alone: nothing read, exit 2, every file named.
        const test::ProcessRun all = cli({"analyze", dir.path()});
        QVERIFY2(all.code == 2, qPrintable(all.describe()));
        QVERIFY2(all.err.contains("_dump_0") && all.err.contains("GLOBAL"), qPrintable(all.err));
        if (test::publicTracesDir().isEmpty()) return;
        // Beside good dumps (rank 0's is the GLOBAL one): the job is read without it and its
        // report written; the bad file is named, and the exit status says an input failed.
        QTemporaryDir job;
        std::vector<Dump> dumps = test::loadFrSet(test::kFrLockGil);
        dumps.erase(dumps.begin());
        QVERIFY(test::writeFrJob(job.path(), dumps));
        QVERIFY(QFile::copy(dir.filePath("_dump_0"), job.filePath("_dump_0")));
        const test::ProcessRun mixed = cli({"analyze", "--json", job.path()});
        QVERIFY2(mixed.code == 2, qPrintable(mixed.describe()));
        QVERIFY2(mixed.err.contains(job.filePath("_dump_0")) && mixed.err.contains("GLOBAL"),
                 qPrintable(mixed.err));
        const J rep = J::parse(mixed.out.toStdString());
        QCOMPARE(rep["inputs"].size(), std::size_t(15));
        // The hang, and rank 0 counted absent where its groups wait (it may have entered).
        const std::vector<J> missing = findingsOf(rep, "collective-missing");
        QCOMPARE(missing.size(), std::size_t(2));
        std::vector<std::vector<int>> found;
        for (const J& f : missing)
            found.push_back(ints(f["missing_ranks"]));
        std::sort(found.begin(), found.end());
        QCOMPARE(found, (std::vector<std::vector<int>>{{0}, {9, 14}}));
    }
};

QTEST_GUILESS_MAIN(TestFrProducer)
#include "tst_frproducer.moc"
