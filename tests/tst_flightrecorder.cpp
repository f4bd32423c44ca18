// PyTorch Flight Recorder dumps (core/producers/flightrecorder): the dump model against what
// Python's pickle reads from the shared dumps, the diagnosis against the reference analyzer's
// answer on both shared scenarios (and the injected faults it does not list), cases made from
// the shared dumps (a dump dropped, a rank's entries cut short, a size, an op or a dtype
// changed at one sequence number), dumps of other versions (PyTorch's JSON form, 2.10's keys,
// 1.x's shape), and hostile files, each refused with a message naming the file.

#include "core/producers/flightrecorder/diagnosis.h"
#include "core/producers/flightrecorder/dump.h"
#include "tests/support/frdumps.h"
#include "tests/support/gzip.h"
#include "tests/support/processrun.h"
#include "tests/testutil.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
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

const char* const kGpuError = rs::test::kFrGpuError;
const char* const kLockGil = rs::test::kFrLockGil;

QString setDir(const char* set)
{
    return rs::test::publicTrace(set);
}

std::vector<Dump> loadSet(const char* set)
{
    return rs::test::loadFrSet(set);
}

// The reference analyzer's table (reference_output.txt): one row per process group.
struct ReferenceRow {
    std::string group, desc, op, size, dtype;
    std::vector<int> missing;
};

std::vector<int> intList(const QString& text)
{
    std::vector<int> out;
    static const QRegularExpression digits("\\d+");
    auto it = digits.globalMatch(text);
    while (it.hasNext())
        out.push_back(it.next().captured().toInt());
    return out;
}

std::vector<ReferenceRow> reference(const char* set)
{
    QFile f(setDir(set) + "/reference_output.txt");
    if (!f.open(QIODevice::ReadOnly)) qFatal("no reference_output.txt");
    std::vector<ReferenceRow> rows;
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    for (const QString& line : lines) {
        const QStringList c = line.split('|');
        if (c.size() < 6 || c[0].trimmed() == "PGID") continue;
        ReferenceRow r;
        r.group = c[0].trimmed().toStdString();
        // "EXPERT_MODEL_PARALLEL_GROUP,0": the description and the analyzer's window number.
        r.desc = c[1].trimmed().section(',', 0, 0).toStdString();
        r.op = c[2].trimmed().toStdString();
        r.size = c[3].trimmed().toStdString();
        r.dtype = c[4].trimmed().toStdString();
        r.missing = intList(c[5]);
        rows.push_back(r);
    }
    return rows;
}

// fault_injection.log: "Fault ranks: [9, 14]".
std::vector<int> injectedRanks(const char* set)
{
    QFile f(setDir(set) + "/fault_injection.log");
    if (!f.open(QIODevice::ReadOnly)) qFatal("no fault_injection.log");
    for (const QString& line : QString::fromUtf8(f.readAll()).split('\n'))
        if (line.startsWith("Fault ranks:")) return intList(line.mid(12));
    return {};
}

std::string sizeText(const std::vector<std::int64_t>& shape)
{
    std::string s;
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? "x" : "") + std::to_string(shape[i]);
    return s;
}

Entry* findEntry(Dump& d, const std::string& group, std::int64_t seq)
{
    for (Entry& e : d.entries)
        if (e.groupName == group && e.collectiveSeqId == seq && !e.p2p()) return &e;
    return nullptr;
}

std::string asPyTorchJson(const Dump& d)
{
    return rs::test::frDumpJson(d);
}

// What two diagnoses say, in one line each, to compare them.
std::string summary(const Diagnosis& g)
{
    std::string s;
    for (const MissingCollective& m : g.missing) {
        s += "missing " + m.group + "#" + std::to_string(m.seq) + " " + m.op + " [";
        for (int r : m.missingRanks)
            s += std::to_string(r) + " ";
        s += "] waiting [";
        for (int r : m.waitingRanks)
            s += std::to_string(r) + " ";
        s += "]\n";
    }
    for (const MismatchedCollective& m : g.mismatches)
        s += "mismatch " + m.group + "#" + std::to_string(m.seq) + " " + m.kind + "\n";
    return s;
}

bool writeFile(const QString& path, const std::string& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) &&
           f.write(bytes.data(), qint64(bytes.size())) == qint64(bytes.size());
}

} // namespace

class TestFlightRecorder : public QObject {
    Q_OBJECT
private slots:
    void readsEveryDump();
    void modelEqualsPython();
    void diagnosisMatchesReference_data();
    void diagnosisMatchesReference();
    void injectedRanksExplained_data();
    void injectedRanksExplained();
    void info();
    void droppedDump();
    void droppedHealthyDump();
    void entriesCutShort();
    void mismatchAtOneSequence();
    void allToAllTotals();
    void pytorchJsonForm();
    void versionOne();
    void versionOnePickle();
    void wrongTypes();
    void hostileFiles();
    void rankFromNames();
    void findings();
};

void TestFlightRecorder::readsEveryDump()
{
    RS_REQUIRE_PUBLIC_TRACES();
    for (const char* set : {kGpuError, kLockGil}) {
        const std::vector<Dump> dumps = loadSet(set);
        for (int rank = 0; rank < 16; ++rank) {
            const Dump& d = dumps[std::size_t(rank)];
            QCOMPARE(d.format, std::string("pickle"));
            QCOMPARE(d.version, std::string("2.9"));
            QCOMPARE(d.ncclVersion, std::string("2.27.3"));
            QCOMPARE(d.rank, std::optional<int>(rank));
            QCOMPARE(d.rankSource, RankSource::FileName);
            // Each rank's process groups hold it alone in common: the fallback agrees.
            QCOMPARE(d.rankFromMembership(), std::optional<int>(rank));
            QVERIFY2(d.warnings.empty(), d.warnings.empty() ? "" : d.warnings[0].c_str());
            QVERIFY(d.groups.count("0"));
            QCOMPARE(d.groups.at("0").ranks.size(), std::size_t(16));
            QVERIFY(!d.status.empty());
            for (const Entry& e : d.entries) {
                QCOMPARE(e.state, EntryState::Scheduled); // dumped with only active entries
                // The expert group's watchdog waits 600 s, the others 180 s.
                QCOMPARE(e.timeoutMs,
                         std::optional<std::int64_t>(
                             e.groupDesc == "EXPERT_MODEL_PARALLEL_GROUP" ? 600000 : 180000));
                QVERIFY(d.groups.count(e.groupName));
            }
        }
    }
}

void TestFlightRecorder::modelEqualsPython()
{
    RS_REQUIRE_PUBLIC_TRACES();
    const QString python = rs::test::findTool("python3");
    if (python.isEmpty()) QSKIP("python3 is not on the PATH");
    // Python's pickle.load of every shared dump (trusted files, read by Python here only as the
    // oracle), as JSON, field by field against the model.
    QStringList paths;
    for (const char* set : {kGpuError, kLockGil})
        for (int rank = 0; rank < 16; ++rank)
            paths << setDir(set) + QString("/_dump_%1").arg(rank);
    const rs::test::ProcessRun run = rs::test::runProcess(
        python, QStringList{"-c", "import json, pickle, sys\n"
                                  "for p in sys.argv[1:]:\n"
                                  "    print(json.dumps(pickle.load(open(p, 'rb'))))\n"} +
                    paths);
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    const QStringList lines = run.out.split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), paths.size());
    std::size_t entries = 0;
    for (int i = 0; i < paths.size(); ++i) {
        const J py = J::parse(lines[i].toStdString());
        const DumpResult r = readDump(paths[i].toStdString());
        QVERIFY2(r.ok(), r.error.c_str());
        const Dump& d = *r.dump;
        QCOMPARE(d.version, py["version"].get<std::string>());
        QCOMPARE(d.groups.size(), py["pg_config"].size());
        for (const auto& [name, g] : py["pg_config"].items()) {
            QCOMPARE(d.groups.at(name).desc, g["desc"].get<std::string>());
            QCOMPARE(QString::fromStdString(g["ranks"].get<std::string>()),
                     QString("[%1]").arg([&] {
                         QStringList s;
                         for (int x : d.groups.at(name).ranks)
                             s << QString::number(x);
                         return s.join(", ");
                     }()));
        }
        QCOMPARE(d.status.size(), py["pg_status"].size());
        for (const auto& [id, s] : py["pg_status"].items()) {
            const GroupStatus& st = d.status.at(std::stoll(id));
            QCOMPARE(st.lastEnqueued, s["last_enqueued_collective"].get<std::int64_t>());
            QCOMPARE(st.lastStarted, s["last_started_collective"].get<std::int64_t>());
            QCOMPARE(st.lastCompleted, s["last_completed_collective"].get<std::int64_t>());
        }
        QCOMPARE(d.entries.size(), py["entries"].size());
        for (std::size_t k = 0; k < d.entries.size(); ++k) {
            const Entry& e = d.entries[k];
            const J& p = py["entries"][k];
            QCOMPARE(e.recordId, p["record_id"].get<std::int64_t>());
            QCOMPARE(e.pgId, p["pg_id"].get<std::int64_t>());
            QCOMPARE(e.groupName, p["process_group"][0].get<std::string>());
            QCOMPARE(e.groupDesc, p["process_group"][1].get<std::string>());
            QCOMPARE(e.collectiveSeqId, p["collective_seq_id"].get<std::int64_t>());
            QCOMPARE(e.p2pSeqId, p["p2p_seq_id"].get<std::int64_t>());
            QCOMPARE(e.opId, p["op_id"].get<std::int64_t>());
            QCOMPARE(e.profilingName, p["profiling_name"].get<std::string>());
            QCOMPARE(e.timeCreatedNs, p["time_created_ns"].get<std::int64_t>());
            QVERIFY(J(e.inputSizes) == p["input_sizes"]);
            QVERIFY(J(e.outputSizes) == p["output_sizes"]);
            QVERIFY(J(e.inputDtypes) == p["input_dtypes"]);
            QVERIFY(J(e.outputDtypes) == p["output_dtypes"]);
            QCOMPARE(std::string(entryStateName(e.state)), p["state"].get<std::string>());
            QVERIFY(p["time_discovered_started_ns"].is_null() && !e.timeDiscoveredStartedNs);
            QVERIFY(p["time_discovered_completed_ns"].is_null() && !e.timeDiscoveredCompletedNs);
            QCOMPARE(e.retired, std::optional<bool>(p["retired"].get<bool>()));
            QCOMPARE(e.isP2p, std::optional<bool>(p["is_p2p"].get<bool>()));
            QCOMPARE(e.timeoutMs, std::optional<std::int64_t>(p["timeout_ms"].get<std::int64_t>()));
            QCOMPARE(e.threadId, p["thread_id"].get<std::string>());
            QCOMPARE(e.threadName, p["thread_name"].get<std::string>());
            ++entries;
        }
    }
    QVERIFY(entries > 400);
}

void TestFlightRecorder::diagnosisMatchesReference_data()
{
    QTest::addColumn<QString>("set");
    QTest::newRow("gpu_error") << QString(kGpuError);
    QTest::newRow("lock_gil") << QString(kLockGil);
}

void TestFlightRecorder::diagnosisMatchesReference()
{
    RS_REQUIRE_PUBLIC_TRACES();
    QFETCH(QString, set);
    const std::string s = set.toStdString();
    const Diagnosis g = diagnose(loadSet(s.c_str()));
    const std::vector<ReferenceRow> ref = reference(s.c_str());
    QCOMPARE(ref.size(), std::size_t(1));
    // Exactly the reference's process group and missing ranks, with its op, size and dtype.
    QCOMPARE(g.missing.size(), ref.size());
    const MissingCollective& m = g.missing.front();
    QCOMPARE(m.group, ref[0].group);
    QCOMPARE(m.groupDesc, ref[0].desc);
    QCOMPARE(m.op, ref[0].op);
    QVERIFY(!m.sizes.empty());
    QCOMPARE(sizeText(m.sizes[0]), ref[0].size);
    QVERIFY(!m.dtypes.empty());
    QCOMPARE(m.dtypes[0], ref[0].dtype);
    QCOMPARE(m.missingRanks, ref[0].missing);
    // The rest of the finding: the members that waited, the call, the time.
    QCOMPARE(m.groupRanks, (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
    QCOMPARE(m.waitingRanks, (std::vector<int>{8, 10, 11, 12, 13, 15}));
    QCOMPARE(m.seq, std::int64_t(s == kGpuError ? 44791 : 45265));
    QCOMPARE(m.waiting.size(), std::size_t(6));
    QVERIFY(m.sinceNs > 0);
    // Until the dump: the first watchdog deadline of a waiting member's calls (180 s after an
    // entry of its 180 s groups made just before this one).
    QVERIFY2(m.waitedNs > 179'000'000'000 && m.waitedNs < 181'000'000'000,
             std::to_string(m.waitedNs).c_str());
    QCOMPARE(m.timeoutMs, std::optional<std::int64_t>(600000));
    QVERIFY2(m.title.starts_with("Ranks 9 and 14 never entered all_to_all #" +
                                 std::to_string(m.seq) +
                                 " of EXPERT_MODEL_PARALLEL_GROUP 72; the 6 other members "
                                 "(8, 10-13, 15) waited for them"),
             m.title.c_str());
    QVERIFY(m.recommendation.find("timeout is 600 s") != std::string::npos);
    // No member called anything else at the same sequence number.
    QVERIFY(g.mismatches.empty());
    QVERIFY2(g.warnings.empty(), g.warnings.empty() ? "" : g.warnings[0].c_str());
}

void TestFlightRecorder::injectedRanksExplained_data()
{
    diagnosisMatchesReference_data();
}

void TestFlightRecorder::injectedRanksExplained()
{
    RS_REQUIRE_PUBLIC_TRACES();
    QFETCH(QString, set);
    const std::string s = set.toStdString();
    const std::vector<Dump> dumps = loadSet(s.c_str());
    const Diagnosis g = diagnose(dumps);
    const std::vector<int> injected = injectedRanks(s.c_str());
    QCOMPARE(injected, (std::vector<int>{9, 14}));
    // The injected ranks the reference does not list (none in these two scenarios: it lists
    // both), and every injected rank, are explained by the diagnosis from their own dumps.
    const std::vector<int> listed = reference(s.c_str())[0].missing;
    std::vector<int> unlisted;
    std::set_difference(injected.begin(), injected.end(), listed.begin(), listed.end(),
                        std::back_inserter(unlisted));
    QVERIFY(unlisted.empty());
    const MissingCollective& m = g.missing.front();
    for (int r : injected) {
        QVERIFY(std::count(m.missingRanks.begin(), m.missingRanks.end(), r));
        if (s == kLockGil) {
            // The GIL was held: no collective in flight, an empty dump, said so.
            QVERIFY(dumps[std::size_t(r)].empty());
            QVERIFY(std::count(m.emptyDumpRanks.begin(), m.emptyDumpRanks.end(), r));
        } else {
            // A GPU error: the rank's own dump stops before the call; its last recorded call
            // is older than the one the others entered, and still not completed.
            QVERIFY(!dumps[std::size_t(r)].empty());
            const auto it = std::find_if(m.lastCalls.begin(), m.lastCalls.end(),
                                         [&](const LastCall& c) { return c.rank == r; });
            QVERIFY(it != m.lastCalls.end());
            QCOMPARE(it->op, std::string("nccl:_all_gather_base"));
            QCOMPARE(it->seq, std::int64_t(87760));
            QCOMPARE(it->state, EntryState::Scheduled);
            QVERIFY(it->createdNs < m.sinceNs);
            // It entered the group's calls before this one, never this one.
            const Entry* before = nullptr;
            for (const Entry& e : dumps[std::size_t(r)].entries)
                if (e.groupName == "72") before = &e;
            QVERIFY(before && before->collectiveSeqId == m.seq - 1);
        }
    }
    if (s == kLockGil) {
        QCOMPARE(m.emptyDumpRanks, (std::vector<int>{9, 14}));
        QVERIFY(m.lastCalls.empty());
        QVERIFY(m.recommendation.find("rank 9's dump has no entries") != std::string::npos);
    } else {
        QVERIFY(m.emptyDumpRanks.empty());
        QCOMPARE(m.lastCalls.size(), std::size_t(2));
        QVERIFY(m.recommendation.find("rank 9's last recorded call is _all_gather_base #87760 "
                                      "of TENSOR_MODEL_PARALLEL_GROUP 37 (scheduled") !=
                std::string::npos);
    }
}

void TestFlightRecorder::info()
{
    RS_REQUIRE_PUBLIC_TRACES();
    for (const char* set : {kGpuError, kLockGil}) {
        const std::vector<Dump> dumps = loadSet(set);
        const JobInfo info = diagnose(dumps).info;
        QCOMPARE(info.ranks.size(), std::size_t(16));
        std::size_t entries = 0;
        for (const Dump& d : dumps)
            entries += d.entries.size();
        QCOMPARE(info.entries, entries);
        QCOMPARE(info.states.size(), std::size_t(1));
        QCOMPARE(info.states.at("scheduled"), entries);
        QCOMPARE(info.versions, std::vector<std::string>{"2.9"});
        QVERIFY(info.absentRanks.empty());
        QCOMPARE(info.emptyRanks,
                 (set == std::string(kLockGil) ? std::vector<int>{9, 14} : std::vector<int>{}));
        for (const RankInfo& r : info.ranks) {
            QCOMPARE(r.entries, dumps[std::size_t(r.rank)].entries.size());
            QCOMPARE(r.empty, r.entries == 0);
            QVERIFY(!r.absent);
        }
        const auto g = std::find_if(info.groups.begin(), info.groups.end(),
                                    [](const GroupInfo& x) { return x.name == "72"; });
        QVERIFY(g != info.groups.end());
        QCOMPARE(g->label(), std::string("EXPERT_MODEL_PARALLEL_GROUP 72"));
        QCOMPARE(g->ranks, (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
        QCOMPARE(g->ranksWithEntries, set == std::string(kLockGil)
                                          ? (std::vector<int>{8, 10, 11, 12, 13, 15})
                                          : (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
        // Every process group of every rank, once: the same name with other members is another
        // group (TENSOR_MODEL_PARALLEL_GROUP 35 on ranks 0-3, 36 on 4-7...).
        std::set<std::pair<std::string, std::vector<int>>> seen;
        for (const Dump& d : dumps)
            for (const auto& [name, cfg] : d.groups)
                seen.insert({name, cfg.ranks});
        QCOMPARE(info.groups.size(), seen.size());
    }
}

void TestFlightRecorder::droppedDump()
{
    RS_REQUIRE_PUBLIC_TRACES();
    // Rank 9's dump is lost: the others still show it never came, and say its dump is absent.
    std::vector<Dump> dumps = loadSet(kGpuError);
    dumps.erase(dumps.begin() + 9);
    const Diagnosis g = diagnose(dumps);
    QCOMPARE(g.info.absentRanks, std::vector<int>{9});
    QVERIFY(g.info.ranks[9].absent);
    QCOMPARE(g.missing.size(), std::size_t(1));
    const MissingCollective& m = g.missing.front();
    QCOMPARE(m.group, std::string("72"));
    QCOMPARE(m.seq, std::int64_t(44791));
    QCOMPARE(m.missingRanks, (std::vector<int>{9, 14}));
    QCOMPARE(m.absentDumpRanks, std::vector<int>{9});
    QCOMPARE(m.lastCalls.size(), std::size_t(1)); // rank 14's
    QVERIFY(m.recommendation.find("rank 9 left no dump") != std::string::npos);
    QVERIFY2(m.title.starts_with("Ranks 9 and 14 did not enter all_to_all #44791 of "
                                 "EXPERT_MODEL_PARALLEL_GROUP 72 (rank 9 left no dump: not known "
                                 "to have entered); the 6 other members"),
             m.title.c_str());
}

void TestFlightRecorder::droppedHealthyDump()
{
    RS_REQUIRE_PUBLIC_TRACES();
    // A healthy rank's dump lost (rank 3): its group members wait at calls it may well have
    // entered; the finding says the dump is absent and that it cannot be told.
    std::vector<Dump> dumps = loadSet(kLockGil);
    dumps.erase(dumps.begin() + 3);
    const Diagnosis g = diagnose(dumps);
    QCOMPARE(g.info.absentRanks, std::vector<int>{3});
    QCOMPARE(g.missing.size(), std::size_t(2));
    const MissingCollective* three = nullptr;
    for (const MissingCollective& m : g.missing) {
        if (m.missingRanks == std::vector<int>{3})
            three = &m;
        else
            QCOMPARE(m.missingRanks, (std::vector<int>{9, 14}));
    }
    QVERIFY(three);
    QCOMPARE(three->absentDumpRanks, std::vector<int>{3});
    QCOMPARE(three->groupDesc, std::string("TENSOR_MODEL_PARALLEL_GROUP"));
    QCOMPARE(three->group, std::string("35"));
    QCOMPARE(three->seq, std::int64_t(84920));
    QCOMPARE(three->waitingRanks, (std::vector<int>{0, 1, 2}));
    QVERIFY(three->recommendation.find("cannot be told") != std::string::npos);
    QVERIFY2(three->title.starts_with("Rank 3 left no dump and is not known to have entered "
                                      "broadcast #84920 of TENSOR_MODEL_PARALLEL_GROUP 35; the 3 "
                                      "other members (0-2) waited for it"),
             three->title.c_str());
}

void TestFlightRecorder::entriesCutShort()
{
    RS_REQUIRE_PUBLIC_TRACES();
    // Rank 12's dump keeps its first two entries only (all_to_all #44791 and #44792 of group
    // 72), as if its ring buffer had been cut there. Its pg_status still says it enqueued group
    // 72 up to #44796, so it is not blamed for #44793-#44796; of the groups it has no entry of
    // left, the first call the others wait at is all_reduce #14960 of
    // TENSOR_AND_DATA_PARALLEL_GROUP_WITH_CP 64: a rank whose record ends looks stopped there.
    // The root (the first finding by time) is still ranks 9 and 14.
    std::vector<Dump> dumps = loadSet(kGpuError);
    dumps[12].entries.resize(2);
    const Diagnosis g = diagnose(dumps);
    QCOMPARE(g.missing.size(), std::size_t(2));
    QCOMPARE(g.missing[0].missingRanks, (std::vector<int>{9, 14}));
    QCOMPARE(g.missing[0].seq, std::int64_t(44791));
    QCOMPARE(g.missing[1].missingRanks, std::vector<int>{12});
    QCOMPARE(g.missing[1].group, std::string("64"));
    QCOMPARE(g.missing[1].seq, std::int64_t(14960));
    QVERIFY(g.missing[1].sinceNs > g.missing[0].sinceNs);
    QCOMPARE(g.missing[1].lastCalls.size(), std::size_t(1));
    QCOMPARE(g.missing[1].lastCalls[0].seq, std::int64_t(44792));
    // Without its pg_status, the calls of group 72 it no longer holds are blamed on it too,
    // and the first of those (#44793) comes before #14960.
    dumps[12].status.clear();
    const Diagnosis bare = diagnose(dumps);
    QCOMPARE(bare.missing.size(), std::size_t(2));
    QCOMPARE(bare.missing[1].missingRanks, std::vector<int>{12});
    QCOMPARE(bare.missing[1].group, std::string("72"));
    QCOMPARE(bare.missing[1].seq, std::int64_t(44793));
}

void TestFlightRecorder::mismatchAtOneSequence()
{
    RS_REQUIRE_PUBLIC_TRACES();
    const std::vector<Dump> base = loadSet(kGpuError);
    const std::string before = summary(diagnose(base));
    // A size: rank 10's _reduce_scatter_base #87761 of group 37 with another input size.
    {
        std::vector<Dump> dumps = base;
        Entry* e = findEntry(dumps[10], "37", 87761);
        QVERIFY(e);
        QCOMPARE(e->op(), std::string("_reduce_scatter_base"));
        e->inputSizes = {{8192, 1, 4096}};
        const Diagnosis g = diagnose(dumps);
        QCOMPARE(g.mismatches.size(), std::size_t(1));
        const MismatchedCollective& m = g.mismatches[0];
        QCOMPARE(m.group, std::string("37"));
        QCOMPARE(m.groupDesc, std::string("TENSOR_MODEL_PARALLEL_GROUP"));
        QCOMPARE(m.seq, std::int64_t(87761));
        QCOMPARE(m.kind, std::string("size"));
        QCOMPARE(m.ranks(), std::vector<int>{10});
        QCOMPARE(m.matchingRanks, (std::vector<int>{8, 11})); // 9 never entered it
        QCOMPARE(m.calls[0].inputSizes, (std::vector<std::vector<std::int64_t>>{{8192, 1, 4096}}));
        QCOMPARE(m.inputSizes, (std::vector<std::vector<std::int64_t>>{{8192, 1, 5120}}));
        QVERIFY2(m.title.starts_with("Rank 10 called other sizes than ranks 8, 11 at "
                                     "_reduce_scatter_base #87761 of TENSOR_MODEL_PARALLEL_GROUP "
                                     "37 (Expected input sizes: '[[8192, 1, 5120]]' does not "
                                     "match found input sizes: '[[8192, 1, 4096]]')"),
                 m.title.c_str());
        // The hang's diagnosis is the same.
        QCOMPARE(summary(g), before + "mismatch 37#87761 size\n");
    }
    // An op: rank 11 called all_reduce where the others called _all_gather_base #87762.
    {
        std::vector<Dump> dumps = base;
        Entry* e = findEntry(dumps[11], "37", 87762);
        QVERIFY(e);
        e->profilingName = "nccl:all_reduce";
        const Diagnosis g = diagnose(dumps);
        QCOMPARE(g.mismatches.size(), std::size_t(1));
        QCOMPARE(g.mismatches[0].kind, std::string("op"));
        QCOMPARE(g.mismatches[0].ranks(), std::vector<int>{11});
        QCOMPARE(g.mismatches[0].op, std::string("nccl:_all_gather_base"));
        QVERIFY(g.mismatches[0].calls[0].detail.find("'all_reduce'") != std::string::npos);
    }
    // A dtype: rank 8's broadcast #87767 in Int.
    {
        std::vector<Dump> dumps = base;
        Entry* e = findEntry(dumps[8], "37", 87767);
        QVERIFY(e);
        e->inputDtypes = {"Int"};
        e->outputDtypes = {"Int"};
        const Diagnosis g = diagnose(dumps);
        QCOMPARE(g.mismatches.size(), std::size_t(1));
        QCOMPARE(g.mismatches[0].kind, std::string("dtype"));
        QCOMPARE(g.mismatches[0].ranks(), std::vector<int>{8});
    }
    // Sizes an all_gather cannot have: output not pg size times the input.
    {
        std::vector<Dump> dumps = base;
        for (int r : {8, 10, 11}) {
            Entry* e = findEntry(dumps[std::size_t(r)], "37", 87762);
            QVERIFY(e);
            QCOMPARE(e->op(), std::string("_all_gather_base"));
            if (r == 11) e->outputSizes = {{4096, 1, 5120}};
        }
        const Diagnosis g = diagnose(dumps);
        QCOMPARE(g.mismatches.size(), std::size_t(1));
        QCOMPARE(g.mismatches[0].ranks(), std::vector<int>{11});
        QCOMPARE(g.mismatches[0].kind, std::string("size"));
    }
}

void TestFlightRecorder::allToAllTotals()
{
    RS_REQUIRE_PUBLIC_TRACES();
    // A two-member group made from a real all_to_all entry: sizes may differ per rank, but
    // what all send must be what all receive once every member's entry is there.
    const DumpResult r = readDump((setDir(kGpuError) + "/_dump_8").toStdString());
    QVERIFY(r.ok());
    Entry a2a = *findEntry(const_cast<Dump&>(*r.dump), "72", 44791);
    a2a.groupName = "7";
    a2a.groupDesc = "EXPERT";
    auto dumpOf = [&](int rank, std::vector<std::vector<std::int64_t>> in,
                      std::vector<std::vector<std::int64_t>> out) {
        Dump d;
        d.path = "made/_dump_" + std::to_string(rank);
        d.version = "2.9";
        d.rank = rank;
        d.groups["7"] = {"7", "EXPERT", {0, 1}};
        Entry e = a2a;
        e.inputSizes = std::move(in);
        e.outputSizes = std::move(out);
        d.entries.push_back(e);
        return d;
    };
    const Diagnosis fine =
        diagnose({dumpOf(0, {{100, 4}}, {{60, 4}}), dumpOf(1, {{50, 4}}, {{90, 4}})});
    QVERIFY(fine.mismatches.empty());
    const Diagnosis bad =
        diagnose({dumpOf(0, {{100, 4}}, {{60, 4}}), dumpOf(1, {{50, 4}}, {{80, 4}})});
    QCOMPARE(bad.mismatches.size(), std::size_t(1));
    QCOMPARE(bad.mismatches[0].kind, std::string("size"));
    QCOMPARE(bad.mismatches[0].ranks(), (std::vector<int>{0, 1}));
    QVERIFY(bad.mismatches[0].matchingRanks.empty());
    QCOMPARE(bad.mismatches[0].calls[0].detail,
             std::string("total input numel 600 does not match total output numel 560"));
    // Dumps before 2.4 wrote no all_to_all sizes: not checked (PyTorch's analyzer does the same).
    std::vector<Dump> old = {dumpOf(0, {{100, 4}}, {{60, 4}}), dumpOf(1, {{50, 4}}, {{80, 4}})};
    for (Dump& d : old)
        d.version = "2.3";
    QVERIFY(diagnose(old).mismatches.empty());
}

void TestFlightRecorder::pytorchJsonForm()
{
    RS_REQUIRE_PUBLIC_TRACES();
    // Every shared dump rewritten as PyTorch's JSON (with 2.10's keys): the same model and the
    // same diagnosis.
    for (const char* set : {kGpuError, kLockGil}) {
        const std::vector<Dump> pickles = loadSet(set);
        std::vector<Dump> jsons;
        for (const Dump& p : pickles) {
            const std::string text = asPyTorchJson(p);
            const DumpResult r = parseDump(text.data(), text.size(), p.path + ".json");
            QVERIFY2(r.ok(), r.error.c_str());
            const Dump& d = *r.dump;
            QCOMPARE(d.format, std::string("json"));
            QCOMPARE(d.version, std::string("2.10"));
            QCOMPARE(d.ncclVersion, p.ncclVersion);
            QCOMPARE(d.rank, p.rank); // "_dump_3.json": the suffix is set aside
            QVERIFY2(d.warnings.empty(), d.warnings.empty() ? "" : d.warnings[0].c_str());
            QCOMPARE(d.entries.size(), p.entries.size());
            for (std::size_t k = 0; k < d.entries.size(); ++k) {
                QCOMPARE(d.entries[k].collectiveSeqId, p.entries[k].collectiveSeqId);
                QCOMPARE(d.entries[k].timeCreatedNs, p.entries[k].timeCreatedNs);
                QCOMPARE(d.entries[k].inputSizes, p.entries[k].inputSizes);
                QVERIFY(!d.entries[k].timeDiscoveredStartedNs); // 0: not yet
            }
            for (const auto& [id, s] : p.status)
                QCOMPARE(d.status.at(id).lastEnqueued, s.lastEnqueued);
            jsons.push_back(*r.dump);
        }
        QCOMPARE(summary(diagnose(jsons)), summary(diagnose(pickles)));
    }
}

void TestFlightRecorder::versionOne()
{
    // A 1.x dump: `seq_id`, no process_group (the group is the pg_id, which keys pg_config:
    // {pg_id: [ranks]}), no dtypes, no is_p2p, no pg_status. Two ranks, rank 1 short of #5.
    auto dump = [](int rank, int lastSeq) {
        J entries = J::array();
        for (int seq = 1; seq <= lastSeq; ++seq)
            entries.push_back({{"record_id", seq},
                               {"pg_id", 0},
                               {"seq_id", seq},
                               {"op_id", seq},
                               {"profiling_name", "nccl:all_reduce"},
                               {"time_created_ns", 1000 * seq + rank},
                               {"input_sizes", {{1024}}},
                               {"output_sizes", {{1024}}},
                               {"state", seq < 4 ? "completed" : "scheduled"},
                               {"time_discovered_started_ns", nullptr},
                               {"time_discovered_completed_ns", seq < 4 ? J(2000 * seq) : J()},
                               {"retired", false},
                               {"frames",
                                {{{"name", "all_reduce"},
                                  {"filename", "distributed_c10d.py"},
                                  {"line", 2050}}}}});
        return J{{"version", "1.4"}, {"pg_config", {{"0", {0, 1}}}}, {"entries", entries}}.dump();
    };
    std::vector<Dump> dumps;
    for (const auto& [rank, last] : {std::pair{0, 6}, std::pair{1, 4}}) {
        const std::string text = dump(rank, last);
        const DumpResult r =
            parseDump(text.data(), text.size(), "v1/nccl_trace_rank_" + std::to_string(rank));
        QVERIFY2(r.ok(), r.error.c_str());
        QVERIFY2(r.dump->warnings.empty(),
                 r.dump->warnings.empty() ? "" : r.dump->warnings[0].c_str());
        QCOMPARE(r.dump->version, std::string("1.4"));
        QCOMPARE(r.dump->groups.at("0").ranks, (std::vector<int>{0, 1}));
        QCOMPARE(r.dump->entries.front().groupName, std::string("0"));
        QCOMPARE(r.dump->entries.front().frames.size(), std::size_t(1));
        QCOMPARE(r.dump->entries.front().frames[0].line, std::int64_t(2050));
        QVERIFY(!r.dump->entries.front().p2p());
        dumps.push_back(*r.dump);
    }
    const Diagnosis g = diagnose(dumps);
    QCOMPARE(g.missing.size(), std::size_t(1));
    QCOMPARE(g.missing[0].missingRanks, std::vector<int>{1});
    QCOMPARE(g.missing[0].seq, std::int64_t(5));
    QCOMPARE(g.missing[0].group, std::string("0"));
    QCOMPARE(g.info.groups[0].label(), std::string("group 0"));
    QVERIFY(g.missing[0].title.starts_with("Rank 1 never entered all_reduce #5 of group 0"));
}

void TestFlightRecorder::versionOnePickle()
{
    const QString python = rs::test::findTool("python3");
    if (python.isEmpty()) QSKIP("python3 is not on the PATH");
    // 1.x as PyTorch pickled it: pg_config's keys are ints.
    QTemporaryDir dir;
    const QString path = dir.filePath("_dump_1");
    const rs::test::ProcessRun run = rs::test::runProcess(
        python, {"-c",
                 "import pickle, sys\n"
                 "e = {'record_id': 0, 'pg_id': 3, 'seq_id': 7, 'op_id': 7,\n"
                 "     'profiling_name': 'nccl:broadcast', 'time_created_ns': 10**18,\n"
                 "     'input_sizes': [[4]], 'output_sizes': [[4]], 'state': 'scheduled',\n"
                 "     'time_discovered_started_ns': None, 'time_discovered_completed_ns': None,\n"
                 "     'retired': False, 'frames': []}\n"
                 "d = {'entries': [e], 'version': '1.4', 'pg_config': {3: [0, 1, 2]}}\n"
                 "open(sys.argv[1], 'wb').write(pickle.dumps(d, protocol=2))\n",
                 path});
    QVERIFY2(run.code == 0, qPrintable(run.describe()));
    const DumpResult r = readDump(path.toStdString());
    QVERIFY2(r.ok(), r.error.c_str());
    QCOMPARE(r.dump->rank, std::optional<int>(1));
    QCOMPARE(r.dump->groups.at("3").ranks, (std::vector<int>{0, 1, 2}));
    QCOMPARE(r.dump->entries.size(), std::size_t(1));
    QCOMPARE(r.dump->entries[0].groupName, std::string("3"));
    QCOMPARE(r.dump->entries[0].collectiveSeqId, std::int64_t(7));
    QCOMPARE(r.dump->entries[0].timeCreatedNs, std::int64_t(1000000000000000000));
}

void TestFlightRecorder::wrongTypes()
{
    auto read = [](const J& j) {
        const std::string t = j.dump();
        return parseDump(t.data(), t.size(), "bad/_dump_0");
    };
    const J entry = {{"profiling_name", "nccl:all_reduce"},
                     {"process_group", {"0", "default_pg"}},
                     {"collective_seq_id", 1},
                     {"time_created_ns", 5}};
    const J config = {{"0", {{"name", "0"}, {"desc", "default_pg"}, {"ranks", "[0, 1]"}}}};
    // Top level: refused, naming the key.
    const DumpResult list = read({{"pg_config", J::array()}, {"entries", J::array()}});
    QVERIFY(!list.ok());
    QCOMPARE(list.error, std::string("bad/_dump_0: pg_config: expected a dict, found a list"));
    const DumpResult entries = read({{"pg_config", config}, {"entries", {{"a", 1}}}});
    QCOMPARE(entries.error, std::string("bad/_dump_0: entries: expected a list, found a dict"));
    // An entry's required key of the wrong type: that entry skipped, the others kept, said so.
    J bad = entry;
    bad["collective_seq_id"] = "12";
    J noName = entry;
    noName.erase("profiling_name");
    J odd = entry;
    odd["input_sizes"] = "[[1]]"; // optional: the key left out, the entry kept
    odd["state"] = "lost";
    const DumpResult r =
        read({{"pg_config", config}, {"entries", {entry, bad, bad, noName, odd}}, {"version", 3}});
    QVERIFY2(r.ok(), r.error.c_str());
    QCOMPARE(r.dump->entries.size(), std::size_t(2));
    QCOMPARE(r.dump->version, std::string("3"));
    QCOMPARE(r.dump->entries[1].state, EntryState::Unknown);
    QVERIFY(r.dump->entries[1].inputSizes.empty());
    const std::vector<std::string>& w = r.dump->warnings;
    auto has = [&](const std::string& text) {
        return std::any_of(w.begin(), w.end(), [&](const std::string& x) { return x == text; });
    };
    QVERIFY2(has("3 of 5 entries skipped (a required key missing or of the wrong type)"),
             w.empty() ? "" : w[0].c_str());
    QVERIFY(has("entries[1].collective_seq_id: expected an integer, found a string (and 1 more "
                "like it)"));
    QVERIFY(has("entries[3].profiling_name: missing"));
    QVERIFY(has("entries[4].input_sizes: expected a list of shapes, found a string"));
    QVERIFY(has("entries[4].state: unknown state \"lost\""));
    // A group's ranks that are not a list of ranks: the group left out, said so.
    J cfg = config;
    cfg["1"] = {{"name", "1"}, {"desc", "x"}, {"ranks", "[0, one]"}};
    const DumpResult g = read({{"pg_config", cfg}, {"entries", J::array()}});
    QVERIFY(g.ok());
    QCOMPARE(g.dump->groups.size(), std::size_t(1));
    QCOMPARE(g.dump->warnings.size(), std::size_t(1));
    QVERIFY(g.dump->warnings[0].starts_with("pg_config.1.ranks: not a list of ranks"));
    // Not a dump at all: a JSON trace, a pickle of something else.
    const DumpResult trace = read({{"traceEvents", J::array()}});
    QVERIFY(trace.notADump);
    QVERIFY(trace.error.find("not a Flight Recorder dump") != std::string::npos);
    const std::string listPickle = "\x80\x02]q\x00."s;
    const DumpResult p = parseDump(listPickle.data(), listPickle.size(), "x.pkl");
    QVERIFY(p.notADump);
    QCOMPARE(p.error, std::string("x.pkl: not a Flight Recorder dump: its top level is a list, "
                                  "not a dict with pg_config and entries"));
}

void TestFlightRecorder::hostileFiles()
{
    QTemporaryDir dir;
    auto readBytes = [&](const QString& name, const std::string& bytes) {
        const QString path = dir.filePath(name);
        if (!writeFile(path, bytes)) qFatal("cannot write");
        return readDump(path.toStdString());
    };
    // A pickle that would run a command if Python loaded it: {'entries': os.system('true')}.
    auto binUnicode = [](const std::string& text) {
        std::string s = "X";
        for (int i = 0; i < 4; ++i)
            s += char((text.size() >> (8 * i)) & 0xff);
        return s + text;
    };
    const std::string evil = "\x80\x02}q\x00"s + binUnicode("entries") + "q\x01" +
                             "cposix\nsystem\n" + "q\x02" + binUnicode("true") +
                             "q\x03\x85q\x04Rq\x05s.";
    const DumpResult e = readBytes("_dump_0", evil);
    QVERIFY(!e.ok());
    QVERIFY2(e.error.starts_with(dir.filePath("_dump_0").toStdString() +
                                 ": byte 19: opcode GLOBAL (0x63) refused: it imports a Python "
                                 "object"),
             e.error.c_str());
    // Empty, garbage, a JSON nesting bomb, shared values that expand without end.
    QCOMPARE(readBytes("_dump_1", "").error,
             dir.filePath("_dump_1").toStdString() + ": the file is empty");
    QVERIFY(readBytes("_dump_2", "\x7f"
                                 "ELF...")
                .notADump);
    const DumpResult deep = readBytes("_dump_3", "{\"pg_config\": " + std::string(100000, '['));
    QVERIFY(deep.error.find("JSON nested deeper than 64 levels") != std::string::npos);
    // 40 levels of a list holding the level below twice: 2^40 values once expanded.
    std::string laughs = "\x80\x02}(" + binUnicode("pg_config") + "}" + binUnicode("entries");
    laughs += "N";
    for (int i = 0; i < 40; ++i)
        laughs += "q" + std::string(1, char(i)) + "h" + std::string(1, char(i)) + "\x86";
    laughs += "u.";
    const DumpResult bomb = readBytes("_dump_4", laughs);
    QVERIFY(!bomb.ok());
    QVERIFY2(bomb.error.find("expand past the reader's limit") != std::string::npos,
             bomb.error.c_str());
    if (rs::test::publicTracesDir().isEmpty()) return;
    // A real dump cut short, and gzipped (read as the plain one).
    QFile f(setDir(kGpuError) + "/_dump_9");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const std::string whole = f.readAll().toStdString();
    const DumpResult cut = readBytes("_dump_9", whole.substr(0, whole.size() / 2));
    QVERIFY(!cut.ok());
    QVERIFY(cut.error.starts_with(dir.filePath("_dump_9").toStdString() + ": byte "));
    QVERIFY(cut.error.find("truncated") != std::string::npos);
    const DumpResult gz = readBytes("_dump_10", rs::test::gzip(whole));
    QVERIFY2(gz.ok(), gz.error.c_str());
    QCOMPARE(gz.dump->entries.size(), std::size_t(20));
    QCOMPARE(gz.dump->rank, std::optional<int>(10)); // the file name, not its content (9)
    QCOMPARE(gz.dump->warnings.size(), std::size_t(1));
    QCOMPARE(gz.dump->warnings[0], std::string("the file name says rank 10 but its process "
                                               "groups all hold rank 9 only (the file name is "
                                               "used)"));
    // A size limit.
    DumpOptions tiny;
    tiny.maxBytes = 1000;
    QVERIFY(readDump(dir.filePath("_dump_10").toStdString(), tiny).error.find("expands past") !=
            std::string::npos);
    QVERIFY(
        readDump((setDir(kGpuError) + "/_dump_9").toStdString(), tiny).error.find("more than") !=
        std::string::npos);
    QVERIFY(readDump(dir.filePath("missing").toStdString()).error.find("missing") !=
            std::string::npos);
}

void TestFlightRecorder::rankFromNames()
{
    QCOMPARE(rankFromFileName("/shared/fr/_dump_0"), std::optional<int>(0));
    QCOMPARE(rankFromFileName("/tmp/nccl_trace_rank_12"), std::optional<int>(12));
    QCOMPARE(rankFromFileName("_dump_3.json"), std::optional<int>(3));
    QCOMPARE(rankFromFileName("x/_dump_7.pkl"), std::optional<int>(7));
    QCOMPARE(rankFromFileName("dump"), std::nullopt);
    QCOMPARE(rankFromFileName("12/dump"), std::nullopt);
    QCOMPARE(rankFromFileName("_dump_1234567890"), std::nullopt);
    RS_REQUIRE_PUBLIC_TRACES();
    // No digits in the name: the process groups say (rank 9: the only rank all its groups
    // hold, e.g. EXPERT_DATA_PARALLEL_GROUP [9]).
    QFile f(setDir(kLockGil) + "/_dump_9");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray b = f.readAll();
    const DumpResult r = parseDump(b.constData(), std::size_t(b.size()), "copies/hung-rank.pkl");
    QVERIFY(r.ok());
    QCOMPARE(r.dump->rank, std::optional<int>(9));
    QCOMPARE(r.dump->rankSource, RankSource::Membership);
    // Neither: left out of the job with a warning.
    Dump nameless = *r.dump;
    nameless.rank.reset();
    const Diagnosis g = diagnose({nameless});
    QCOMPARE(g.warnings.size(), std::size_t(1));
    QVERIFY(g.warnings[0].find("left out") != std::string::npos);
    // The same rank twice: the second left out.
    const Diagnosis twice = diagnose({*r.dump, *r.dump});
    QCOMPARE(twice.warnings.size(), std::size_t(1));
    QVERIFY(twice.warnings[0].find("rank 9 is copies/hung-rank.pkl already") != std::string::npos);
}

void TestFlightRecorder::findings()
{
    RS_REQUIRE_PUBLIC_TRACES();
    const Diagnosis g = diagnose(loadSet(kGpuError));
    const Finding f = toFinding(g.missing.front());
    QCOMPARE(f.rule, std::string("collective-missing"));
    QCOMPARE(f.severity, Severity::Error);
    QCOMPARE(f.title, g.missing.front().title);
    QCOMPARE(f.ranks, (std::vector<int>{9, 14, 8, 10, 11, 12, 13, 15}));
    QCOMPARE(f.start, g.missing.front().sinceNs);
    QVERIFY(f.end > f.start);
    QVERIFY(!f.rank);
}

QTEST_GUILESS_MAIN(TestFlightRecorder)
#include "tst_flightrecorder.moc"
