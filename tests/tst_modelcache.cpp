// The model cache (core/cache, docs/cache.md): outputs identical with and without it, a
// replaced or touched file never served stale, damaged files detected, deleted and rewritten,
// eviction under a cap, --no-cache reading and writing nothing.

#include "bench/tracegen_seed.h"
#include "core/cache/modelcache.h"
#include "core/cache/tracecodec.h"
#include "core/job/jobtrace.h"
#include "core/producers/producer.h"
#include "core/traceinfo.h"
#include "core/traceloader.h"
#include "core/workpool.h"
#include "tests/fuzz/checktrace.h"
#include "tests/support/processrun.h"
#include "tests/testutil.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>

using namespace rs;

namespace {

using Run = test::ProcessRun;

// The CLI with its cache in cacheDir (empty: the option list decides, e.g. --no-cache). wait:
// it writes its cache before it exits (RINGSCOPE_CACHE_WAIT), as the cases that look at the
// folder right after need; else a write still running goes on in a detached child.
Run ringscope(const QStringList& args, const QString& cacheDir, bool wait = true)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("RINGSCOPE_CACHE_DIR", cacheDir);
    if (wait)
        env.insert("RINGSCOPE_CACHE_WAIT", "1");
    else
        env.remove("RINGSCOPE_CACHE_WAIT");
    return test::runProcess(test::binaryDir() + "/app/ringscope", args, env, 300000);
}

QStringList cacheFiles(const QString& dir)
{
    return QDir(dir).entryList({"*.rsmodel"}, QDir::Files, QDir::Name);
}

// A Kineto-like trace of n events with args, big enough for the sampled inner blocks.
std::string kinetoText(int n, int variant = 0)
{
    std::string s = R"({"traceEvents":[)";
    s += R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}},)";
    for (int i = 0; i < n; ++i) {
        s += R"({"ph":"X","name":"op)" + std::to_string(i % 37 + variant) +
             R"(","cat":"cpu_op","pid":1,"tid":)" + std::to_string(1 + i % 3) + R"(,"ts":)" +
             std::to_string(1000 + i * 10) + R"(,"dur":)" + std::to_string(5 + i % 4) +
             R"(,"args":{"External id":)" + std::to_string(i) + R"(,"Input Dims":[[4,)" +
             std::to_string(i % 100) + R"(]]}},)";
        if (i % 50 == 0)
            s += R"({"ph":"s","id":)" + std::to_string(i) + R"(,"pid":1,"tid":1,"ts":)" +
                 std::to_string(1001 + i * 10) +
                 R"(,"cat":"ac2g","name":"flow"},{"ph":"f","bp":"e","id":)" + std::to_string(i) +
                 R"(,"pid":1,"tid":2,"ts":)" + std::to_string(1002 + i * 10) +
                 R"(,"cat":"ac2g","name":"flow"},)";
    }
    s += R"({"ph":"C","name":"mem","pid":1,"ts":1000,"args":{"bytes":12}}]})";
    return s;
}

bool writeFile(const QString& path, const std::string& text)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) &&
           f.write(text.data(), qint64(text.size())) == qint64(text.size());
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Section checksums and the header's made right again after an edit: what a forger would do,
// so the reader's own checks (not the checksums) must reject the edit or cope with it.
void reseal(QByteArray& b)
{
    TraceCodec::reseal(b.data(), std::size_t(b.size()));
}

// Everything a model holds, as text: two models are the same when these are.
std::string fingerprint(const Trace& t)
{
    std::string s = traceInfoJson(t, "x").dump();
    std::uint64_t h = 0;
    for (const Slice& sl : t.slices())
        h = hash64(&sl, sizeof sl, h);
    for (EventId e = 0; e < t.slices().size(); ++e) {
        const std::string_view a = t.argsText(e);
        h = hash64(a.data(), a.size(), h);
    }
    for (const Flow& f : t.flows()) { // field by field: Flow has padding
        const std::uint64_t fields[] = {f.from, f.to, f.cat, f.name, f.id, f.idText, f.idIsText};
        h = hash64(fields, sizeof fields, h);
    }
    for (StrId i = 0; i < t.strings().size(); ++i)
        h = hash64(t.str(i).data(), t.str(i).size(), h);
    for (const CounterSeries& c : t.counters())
        h = hash64(c.values.data(), c.values.size() * 8, h ^ c.ts.size());
    for (EventId e = 0; e < t.slices().size(); e += 7) {
        h ^= t.flowsFrom(e).size() * 31 + t.flowsTo(e).size() + t.eventStackFrame(e);
    }
    h = hash64(t.kinds().data(), t.kinds().size(), h);
    for (const StepMark& m : t.steps())
        s += std::to_string(m.event) + "#" + std::to_string(m.number) + ";";
    const RunFacts& f = t.runFacts();
    s +=
        std::to_string(f.clockBaseNs.value_or(-1)) + "/" + std::to_string(f.worldSize.value_or(-1));
    for (const std::string& d : f.devices)
        s += "/" + d;
    for (const Track& tr : t.tracks())
        s += tr.tid + "/" + std::to_string(int(tr.role)) + "/" + std::to_string(tr.maxDepth) + ";";
    s += t.metadata().dump() + std::to_string(h) + std::to_string(t.stackFrames().size());
    for (const std::string& w : t.warnings())
        s += w;
    return s;
}

// Uses every part of a model a reader may touch (the hostile cases must not crash here).
void exercise(const Trace& t)
{
    (void)traceInfoJson(t, "x");
    for (EventId e = 0; e < t.slices().size(); ++e) {
        (void)t.argsText(e);
        (void)t.eventStackFrame(e);
        (void)sliceKindName(t.kind(e));
    }
    for (const StepMark& m : t.steps())
        (void)t.slice(m.event);
    for (TrackId tr = 0; tr < t.tracks().size(); ++tr) {
        (void)t.trackLabel(tr);
        (void)t.sliceAt(tr, t.startNs() + (t.endNs() - t.startNs()) / 2);
        (void)t.firstSliceEndingAfter(tr, t.startNs());
    }
    for (const StackFrame& f : t.stackFrames()) {
        std::uint32_t cur = f.parent;
        for (int i = 0; cur != kNone && i < 1000000; ++i)
            cur = t.stackFrames()[cur].parent;
    }
}

} // namespace

class TestModelCache : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_job; // the 8-rank seed job

    QString cacheDir(const char* name) const { return m_dir.filePath(QString("cache-") + name); }

    // Loads path through a cache in dir; waits for its write.
    LoadResult load(const std::shared_ptr<ModelCache>& cache, const QString& path)
    {
        LoadOptions o;
        o.cache = cache;
        LoadResult r = loadTrace(path.toStdString(), o);
        cache->waitForWrites();
        return r;
    }

    QString onlyFile(const QString& dir)
    {
        const QStringList files = cacheFiles(dir);
        return files.size() == 1 ? dir + "/" + files.front() : QString();
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_job = m_dir.filePath("job8");
        gen::SeedCaseOptions o;
        o.ranks = 8;
        QVERIFY(gen::writeSeedCaseJob(m_job.toStdString(), o));
    }

    // A model read back from the cache is the model built from the text, and mapped.
    void sameModel_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("kineto-text") << QString("kineto");
        QTest::newRow("seed-rank0") << m_job + "/rank0_ascend_pt";
        if (!test::publicTracesDir().isEmpty()) {
            QDirIterator it(test::publicTracesDir(), {"*.json", "*.json.gz", "*.db"}, QDir::Files,
                            QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString f = it.next();
                if (f.contains("profiler_info") || f.contains("metadata") ||
                    f.contains("analysis") || f.contains("communication"))
                    continue;
                const ResolvedPath where = resolveTracePath(f.toStdString());
                if (where.error.empty() && where.file == f.toStdString())
                    QTest::newRow(qPrintable(QDir(test::publicTracesDir()).relativeFilePath(f)))
                        << f;
            }
        }
    }
    void sameModel()
    {
        QFETCH(QString, path);
        if (path == "kineto") {
            path = m_dir.filePath("same.json");
            QVERIFY(writeFile(path, kinetoText(3000)));
        }
        const QString dir = cacheDir("same") + QString::number(qHash(path));
        auto cache = std::make_shared<ModelCache>(dir);
        const LoadResult first = load(cache, path);
        QVERIFY2(first.complete(), first.message.c_str());
        QCOMPARE(cache->writes(), 1u);
        const LoadResult second = load(cache, path);
        QVERIFY2(second.complete(), second.message.c_str());
        QVERIFY2(cache->hits() == 1, cache->lastRejection().c_str());
        QVERIFY(second.trace->mapped());
        QVERIFY(!first.trace->mapped());
        QCOMPARE(second.warnings, first.warnings);
        QCOMPARE(second.resolvedPath, first.resolvedPath);
        QCOMPARE(fingerprint(*second.trace), fingerprint(*first.trace));
        QCOMPARE(std::string(second.trace->producer().id()),
                 std::string(first.trace->producer().id()));
        QCOMPARE(second.trace->rank(), first.trace->rank());
    }

    // info --json and analyze --json print the same bytes without the cache, when writing it
    // and when reading it.
    void cliIdentical_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("path");
        QTest::newRow("info job8") << "info" << m_job;
        QTest::newRow("analyze job8") << "analyze" << m_job;
        if (!test::publicTracesDir().isEmpty()) {
            for (const QString& d : test::publicSets()) {
                QTest::newRow(qPrintable("info " + d))
                    << "info" << test::publicTracesDir() + "/" + d;
                QTest::newRow(qPrintable("analyze " + d))
                    << "analyze" << test::publicTracesDir() + "/" + d;
            }
        }
    }
    void cliIdentical()
    {
        QFETCH(QString, command);
        QFETCH(QString, path);
        if (!QFileInfo(test::binaryDir() + "/app/ringscope").isExecutable())
            QSKIP("the ringscope binary is not built");
        RS_SKIP_UNREAD_SET(path);
        const QString dir = cacheDir("cli") + QString::number(qHash(command + path));
        const Run plain = ringscope({command, path, "--json", "--no-cache"}, dir);
        QVERIFY(!QDir(dir).exists());
        const Run writing = ringscope({command, path, "--json"}, dir);
        const QStringList written = cacheFiles(dir);
        QVERIFY(!written.isEmpty());
        const Run reading = ringscope({command, path, "--json"}, dir);
        QCOMPARE(cacheFiles(dir), written);
        QCOMPARE(writing.code, plain.code);
        QCOMPARE(reading.code, plain.code);
        QCOMPARE(writing.out, plain.out);
        QCOMPARE(reading.out, plain.out);
        QCOMPARE(reading.err, plain.err);
    }

    // The job's ranks are cached one by one.
    void jobPerRank()
    {
        const QString dir = cacheDir("job");
        auto cache = std::make_shared<ModelCache>(dir);
        for (int i = 0; i < 8; ++i)
            QVERIFY(load(cache, m_job + QString("/rank%1_ascend_pt").arg(i)).complete());
        QCOMPARE(cacheFiles(dir).size(), 8);
        QVERIFY(load(cache, m_job + "/rank5_ascend_pt").trace->mapped());
        QCOMPARE(cache->hits(), 1u);
    }

    // The viewer merges a job's ranks (JobTraceMerger reads them through their views): mapped
    // ranks merge into the same job trace as parsed ones, and it moves to other offsets alike.
    void mergedJob()
    {
        const QString dir = cacheDir("merge");
        auto cache = std::make_shared<ModelCache>(dir);
        std::vector<TracePtr> parsed, mapped;
        for (int i = 0; i < 8; ++i) {
            const QString rank = m_job + QString("/rank%1_ascend_pt").arg(i);
            parsed.push_back(load(cache, rank).trace);
            mapped.push_back(load(cache, rank).trace);
            QVERIFY(mapped.back()->mapped());
        }
        const std::vector<TimeNs> offsets{0, 10, 20, 30, 40, 50, 60, 70};
        const JobTrace a = mergeRanks(parsed, offsets, "job");
        const JobTrace b = mergeRanks(mapped, offsets, "job");
        QCOMPARE(fingerprint(*b.trace), fingerprint(*a.trace));
        const std::vector<TimeNs> moved{5, 0, 0, 0, 0, 0, 0, 1000};
        QCOMPARE(fingerprint(*reoffsetJob(b, moved).trace),
                 fingerprint(*reoffsetJob(a, moved).trace));
    }

    // A replaced file is never served: same size, its mtime restored, one sampled byte
    // changed; a touched file (mtime only) is a miss too.
    void staleness()
    {
        const QString path = m_dir.filePath("stale.json");
        const std::string text = kinetoText(4000);
        QVERIFY(text.size() > 300000);
        QVERIFY(writeFile(path, text));
        auto cache = std::make_shared<ModelCache>(cacheDir("stale"));
        QVERIFY(load(cache, path).complete());
        QVERIFY(load(cache, path).trace->mapped());
        QCOMPARE(cache->hits(), 1u);

        // Same size, one digit changed in the head block, mtime put back.
        struct stat before {};
        QCOMPARE(::stat(path.toLocal8Bit().constData(), &before), 0);
        std::string changed = text;
        const std::size_t at = changed.find("\"dur\":5");
        QVERIFY(at != std::string::npos && at < 65536);
        changed[at + 6] = '6';
        QVERIFY(writeFile(path, changed));
        const timespec times[2] = {before.st_atim, before.st_mtim};
        QCOMPARE(::utimensat(AT_FDCWD, path.toLocal8Bit().constData(), times, 0), 0);
        const LoadResult replaced = load(cache, path);
        QCOMPARE(cache->hits(), 1u);
        QVERIFY(!replaced.trace->mapped());
        QCOMPARE(replaced.trace->slices()[0].dur, 6000);

        // The sampled hash alone tells the two contents apart.
        {
            QFile a(path);
            QVERIFY(a.open(QIODevice::ReadOnly));
            const std::uint64_t now = ModelCache::sampleHash(a.handle(), changed.size());
            QVERIFY(writeFile(path, text));
            QFile b(path);
            QVERIFY(b.open(QIODevice::ReadOnly));
            QVERIFY(ModelCache::sampleHash(b.handle(), text.size()) != now);
            QVERIFY(writeFile(path, changed));
        }
        QVERIFY(load(cache, path).complete());
        QVERIFY(load(cache, path).trace->mapped());
        const std::uint64_t hits = cache->hits();

        // Touched: new mtime, same bytes.
        timespec later[2] = {{0, UTIME_OMIT}, {0, 0}};
        ::clock_gettime(CLOCK_REALTIME, &later[1]);
        later[1].tv_sec += 5;
        QCOMPARE(::utimensat(AT_FDCWD, path.toLocal8Bit().constData(), later, 0), 0);
        QVERIFY(!load(cache, path).trace->mapped());
        QCOMPARE(cache->hits(), hits);
    }

    // Truncated, a flipped byte, another version, another architecture: detected, ignored
    // (the trace is parsed), deleted, and written anew.
    void corruption_data()
    {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("reason");
        QTest::newRow("truncated") << "truncate"
                                   << "truncated";
        QTest::newRow("flipped byte") << "flip"
                                      << "checksum";
        QTest::newRow("version") << "version"
                                 << "version";
        QTest::newRow("architecture") << "arch"
                                      << "architecture";
        QTest::newRow("forged index") << "forge"
                                      << "";
        QTest::newRow("forged flow index") << "forgeflow"
                                           << "flow index";
        QTest::newRow("empty") << "empty"
                               << "";
    }
    void corruption()
    {
        QFETCH(QString, damage);
        QFETCH(QString, reason);
        const QString path = m_dir.filePath("damaged.json");
        // With flows that bind (kinetoText's end at no slice): "forgeflow" damages their index.
        const std::string flows =
            R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":5},)"
            R"({"ph":"X","name":"b","pid":1,"tid":2,"ts":10,"dur":5},)"
            R"({"ph":"X","name":"c","pid":1,"tid":2,"ts":20,"dur":5},)"
            R"({"ph":"s","id":1,"pid":1,"tid":1,"ts":2,"cat":"ac2g"},)"
            R"({"ph":"f","id":1,"pid":1,"tid":2,"ts":20,"cat":"ac2g","bp":"e"}]})";
        QVERIFY(writeFile(path, damage == "forgeflow" ? flows : kinetoText(2000)));
        const QString dir = cacheDir("damage") + damage;
        auto cache = std::make_shared<ModelCache>(dir);
        const LoadResult fresh = load(cache, path);
        const QString file = onlyFile(dir);
        QVERIFY(!file.isEmpty());
        QByteArray b = readAll(file);
        if (damage == "truncate") {
            b.chop(100);
        } else if (damage == "flip") {
            b[b.size() / 2] = char(b[b.size() / 2] ^ 0x10);
        } else if (damage == "version") {
            b[8] = char(b[8] + 1);
            reseal(b);
        } else if (damage == "arch") {
            b[16] = char(b[16] ^ 3);
            reseal(b);
        } else if (damage == "forge") {
            // The first slice's track far out of range, checksums made right.
            std::uint64_t offset = 0;
            std::memcpy(&offset, b.constData() + 64 + 3 * 32 + 8, 8);
            const std::uint32_t bad = 0x7fffffff;
            std::memcpy(b.data() + offset + offsetof(Slice, track), &bad, 4);
            reseal(b);
        } else if (damage == "forgeflow") {
            // The flows-into index's first entry names another slice than its flow's end (in
            // range, checksums made right): lookups and the analysis rely on it.
            QCOMPARE(fresh.trace->flows().size(), std::size_t(1));
            std::uint64_t offset = 0, size = 0;
            std::memcpy(&offset, b.constData() + 64 + 8 * 32 + 8, 8); // section 8: flows in
            std::memcpy(&size, b.constData() + 64 + 8 * 32 + 16, 8);
            QCOMPARE(size, std::uint64_t(8));
            EventId e = 0;
            std::memcpy(&e, b.constData() + offset, 4);
            e = e == 0 ? 1 : 0;
            std::memcpy(b.data() + offset, &e, 4);
            reseal(b);
        } else {
            b.clear();
        }
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(b);
        }
        const LoadResult again = load(cache, path);
        QVERIFY(again.complete());
        QVERIFY(!again.trace->mapped());
        QCOMPARE(cache->rejected(), 1u);
        QVERIFY2(cache->lastRejection().find(reason.toStdString()) != std::string::npos,
                 cache->lastRejection().c_str());
        QCOMPARE(fingerprint(*again.trace), fingerprint(*fresh.trace));
        // Rewritten: the next load maps it.
        QCOMPARE(cache->writes(), 2u);
        QVERIFY(load(cache, path).trace->mapped());
    }

    // Random damage with the checksums made right: the reader rejects it or returns a model
    // every accessor can walk.
    void hostileForged()
    {
        const QString path = m_dir.filePath("hostile.json");
        QVERIFY(writeFile(path, kinetoText(300)));
        const QString dir = cacheDir("hostile");
        auto cache = std::make_shared<ModelCache>(dir);
        QVERIFY(load(cache, path).complete());
        const QByteArray good = readAll(onlyFile(dir));
        std::mt19937 rng(28);
        int accepted = 0;
        for (int round = 0; round < 3000; ++round) {
            QByteArray b = good;
            const int edits = 1 + int(rng() % 4);
            for (int e = 0; e < edits; ++e) {
                const std::size_t at = rng() % std::size_t(b.size());
                if (rng() % 3 == 0)
                    b[at] = char(rng());
                else
                    b[at] = char(b[at] ^ (1 << (rng() % 8)));
            }
            if (rng() % 8 == 0) b.truncate(int(rng() % std::size_t(b.size())));
            if (rng() % 4) reseal(b);
            // An aligned copy, as a map would be.
            auto buffer = std::shared_ptr<std::uint64_t[]>(new std::uint64_t[b.size() / 8 + 1]);
            std::memcpy(buffer.get(), b.constData(), std::size_t(b.size()));
            std::string why;
            const TracePtr t = TraceCodec::read(buffer, reinterpret_cast<const char*>(buffer.get()),
                                                std::size_t(b.size()), {}, "x", &why);
            if (t) {
                ++accepted;
                exercise(*t);
                fuzz::checkTrace(*t); // the fuzz targets' invariants (aborts when one fails)
            } else {
                QVERIFY(!why.empty());
            }
        }
        qInfo("%d of 3000 forged files read as a model", accepted);
    }

    // Least recently used files go first when the directory is over the cap.
    void eviction()
    {
        QStringList paths;
        for (int i = 0; i < 3; ++i) {
            paths << m_dir.filePath(QString("evict%1.json").arg(i));
            QVERIFY(writeFile(paths.back(), kinetoText(2000, i)));
        }
        const QString dir = cacheDir("evict");
        {
            auto probe = std::make_shared<ModelCache>(dir + "-probe");
            QVERIFY(load(probe, paths[0]).complete());
        }
        const qint64 one = QFileInfo(onlyFile(dir + "-probe")).size();
        QVERIFY(one > 0);
        auto cache = std::make_shared<ModelCache>(dir, std::uint64_t(one * 5 / 2));
        QVERIFY(load(cache, paths[0]).complete());
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        QVERIFY(load(cache, paths[1]).complete());
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        QVERIFY(load(cache, paths[0]).trace->mapped()); // used again: now the newest
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        QVERIFY(load(cache, paths[2]).complete()); // over the cap: paths[1]'s file goes
        QCOMPARE(cacheFiles(dir).size(), 2);
        QVERIFY(load(cache, paths[0]).trace->mapped());
        QVERIFY(load(cache, paths[2]).trace->mapped());
        QVERIFY(!load(cache, paths[1]).trace->mapped());

        // A cap of 0 keeps nothing.
        auto none = std::make_shared<ModelCache>(dir + "-none", 0);
        QVERIFY(load(none, paths[0]).complete());
        QVERIFY(cacheFiles(dir + "-none").isEmpty());
    }

    // A write handed to a detached child (what the command line does as it exits): it stops
    // here (nothing written by this process, no temporary file left) and the child writes the
    // same model. The pool's threads are held so that the write is still queued when handed.
    void detachedWrite()
    {
        const QString path = m_dir.filePath("detach.json");
        QVERIFY(writeFile(path, kinetoText(4000)));
        const QString dir = cacheDir("detach");
        auto cache = std::make_shared<ModelCache>(dir);
        std::atomic<bool> release{false};
        std::atomic<int> held{0};
        const int threads = WorkPool::global().threadCount();
        for (int i = 0; i < threads; ++i)
            WorkPool::global().post([&] {
                ++held;
                while (!release)
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                --held;
            });
        LoadOptions o;
        o.cache = cache;
        const LoadResult parsed = loadTrace(path.toStdString(), o);
        QVERIFY(parsed.complete());
        const bool detached = cache->detachWrites();
        release = true;
        QVERIFY(detached);
        QVERIFY(!cache->detachWrites()); // once
        cache->waitForWrites();
        QCOMPARE(cache->writes(), 0u);
        QTRY_COMPARE_WITH_TIMEOUT(held.load(), 0, 10000);
        // The child renames its file into place when it is whole.
        QTRY_COMPARE_WITH_TIMEOUT(cacheFiles(dir).size(), qsizetype(1), 30000);
        QVERIFY(QDir(dir).entryList({"*.tmp"}, QDir::Files).isEmpty());
        auto reader = std::make_shared<ModelCache>(dir);
        const LoadResult hit = load(reader, path);
        QVERIFY2(reader->hits() == 1, reader->lastRejection().c_str());
        QVERIFY(hit.trace->mapped());
        QCOMPARE(fingerprint(*hit.trace), fingerprint(*parsed.trace));
        // Nothing pending: nothing to hand over.
        QVERIFY(!reader->detachWrites());
    }

    // The command line does not wait for its write: the file comes (from this process or its
    // detached child) and the next run reads it, with the same output.
    void cliDetached()
    {
        if (!QFileInfo(test::binaryDir() + "/app/ringscope").isExecutable())
            QSKIP("the ringscope binary is not built");
        const QString path = m_dir.filePath("clidetach.json");
        QVERIFY(writeFile(path, kinetoText(20000)));
        const QString dir = cacheDir("clidetach");
        const Run plain = ringscope({"info", path, "--json", "--no-cache"}, dir);
        const Run writing = ringscope({"info", path, "--json"}, dir, false);
        QCOMPARE(writing.code, 0);
        QCOMPARE(writing.out, plain.out);
        QTRY_COMPARE_WITH_TIMEOUT(cacheFiles(dir).size(), qsizetype(1), 30000);
        const QStringList written = cacheFiles(dir);
        const Run reading = ringscope({"info", path, "--json"}, dir, false);
        QCOMPARE(reading.out, plain.out);
        QCOMPARE(cacheFiles(dir), written);
        QVERIFY(QDir(dir).entryList({"*.tmp"}, QDir::Files).isEmpty());
    }

    // --no-cache neither writes nor reads (a damaged file stays as it is); --cache-size is
    // checked; the viewer-less loads of tests use no cache at all.
    void noCache()
    {
        if (!QFileInfo(test::binaryDir() + "/app/ringscope").isExecutable())
            QSKIP("the ringscope binary is not built");
        const QString path = m_dir.filePath("nocache.json");
        QVERIFY(writeFile(path, kinetoText(500)));
        const QString dir = cacheDir("nocache");
        QCOMPARE(ringscope({"info", path, "--json", "--no-cache"}, dir).code, 0);
        QVERIFY(!QDir(dir).exists());
        QCOMPARE(ringscope({"info", path, "--json"}, dir).code, 0);
        const QString file = onlyFile(dir);
        QVERIFY(!file.isEmpty());
        QByteArray b = readAll(file);
        b[b.size() - 1] = char(b[b.size() - 1] ^ 1);
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(b);
        }
        for (const char* cmd : {"info", "analyze", "stats"}) {
            QStringList args{cmd, path, "--no-cache"};
            if (QString(cmd) == "stats")
                args << "--by"
                     << "op";
            QCOMPARE(ringscope(args, dir).code, 0);
        }
        QCOMPARE(readAll(file), b);
        QCOMPARE(ringscope({"info", path, "--cache-size", "lots"}, dir).code, 2);
        QCOMPARE(ringscope({"info", path, "--cache-size", "0"}, dir).code, 0);
        QVERIFY(ModelCache::processCache() == nullptr);
        QCOMPARE(ModelCache::parseSize("4G").value_or(0), 4ull << 30);
        QCOMPARE(ModelCache::parseSize("512").value_or(0), 512ull << 20);
        QCOMPARE(ModelCache::parseSize("64 KiB").value_or(0), 64ull << 10);
        QVERIFY(!ModelCache::parseSize("-1"));
    }
};

QTEST_GUILESS_MAIN(TestModelCache)
#include "tst_modelcache.moc"
