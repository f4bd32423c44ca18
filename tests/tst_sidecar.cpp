// The annotation sidecar: round trip, robust event references, atomic saves that survive a
// crash, corrupt and newer files kept as backups, the read-only fallback.

#include "core/annotations/annotationstore.h"
#include "core/annotations/sidecar.h"
#include "core/traceloader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <sys/wait.h>
#include <unistd.h>

using namespace rs;

namespace {

// Two HCCL tracks and a Python thread; `shift` prepends unrelated events so every EventId of
// the second version differs from the first.
std::string traceJson(int shift = 0)
{
    std::string s = R"({"traceEvents":[
 {"ph":"M","name":"process_name","pid":7,"tid":0,"args":{"name":"HCCL"}},
 {"ph":"M","name":"thread_name","pid":7,"tid":0,"args":{"name":"Group 0 Communication"}},
 {"ph":"M","name":"thread_name","pid":7,"tid":1,"args":{"name":"Plane 0"}},
 {"ph":"M","name":"process_name","pid":3,"tid":0,"args":{"name":"Python"}},
)";
    for (int i = 0; i < shift; ++i)
        s += R"( {"ph":"X","name":"early","pid":7,"tid":0,"ts":)" + std::to_string(i) +
             R"(,"dur":0.5},)" + "\n";
    s += R"( {"ph":"X","name":"custom_attention_forward","pid":3,"tid":5,"ts":"1000.000","dur":50},
 {"ph":"X","name":"hcom_allReduce_","pid":7,"tid":0,"ts":"1100.000","dur":200},
 {"ph":"X","name":"hcom_allReduce_","pid":7,"tid":0,"ts":"1400.000","dur":400},
 {"ph":"X","name":"Memcpy","pid":7,"tid":1,"ts":"1400.500","dur":200},
 {"ph":"X","name":"Memcpy","pid":7,"tid":1,"ts":"1650.000","dur":20}
]})";
    return s;
}

TracePtr writeAndLoad(const QString& file, int shift = 0)
{
    QFile f(file);
    if (!f.open(QIODevice::WriteOnly)) return nullptr;
    f.write(QByteArray::fromStdString(traceJson(shift)));
    f.close();
    LoadResult r = loadTrace(file.toStdString());
    return r.complete() ? r.trace : nullptr;
}

EventId findSlice(const Trace& t, const std::string& name, TimeNs start)
{
    for (EventId e = 0; e < t.slices().size(); ++e)
        if (t.str(t.slice(e).name) == name && t.slice(e).start == start) return e;
    return kNone;
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Fills a store with one annotation of each kind; returns the ids.
void addOneOfEach(AnnotationStore& store)
{
    const Trace& t = *store.trace();
    const EventId slow = findSlice(t, "hcom_allReduce_", 1400000);
    const EventId copy = findSlice(t, "Memcpy", 1400500);
    const EventId src = findSlice(t, "custom_attention_forward", 1000000);
    Annotation note;
    note.text = "mode B: extra Memcpy — ask the op owners\nsecond line, ünïcödé";
    note.event = makeEventRef(t, slow);
    store.add(note);
    Annotation point;
    point.text = "step boundary";
    point.timeNs = 1350000;
    store.add(point);
    Annotation range;
    range.kind = AnnotationKind::Range;
    range.text = "slow window";
    range.timeNs = 1400000;
    range.endNs = 1800000;
    range.color = "#ff0000";
    store.add(range);
    Annotation arrow;
    arrow.kind = AnnotationKind::Arrow;
    arrow.text = "allocates the input";
    arrow.event = makeEventRef(t, src);
    arrow.target = makeEventRef(t, copy);
    store.add(arrow);
}

} // namespace

class TestSidecar : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void cleanup()
    {
        QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/sidecars")
            .removeRecursively();
    }

    void roundTrip()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("trace_view.json");
        TracePtr trace = writeAndLoad(file);
        QVERIFY(trace);
        AnnotationStore store;
        QCOMPARE(store.open(trace).status, SidecarStatus::Missing);
        QSignalSpy dirty(&store, &AnnotationStore::dirtyChanged);
        addOneOfEach(store);
        store.setShowAutomatic(false);
        QVERIFY(store.isDirty());
        QCOMPARE(dirty.count(), 1);
        const SidecarSaveResult saved = store.save();
        QVERIFY2(saved.ok, qPrintable(saved.message));
        QCOMPARE(saved.path, file + ".ringscope.json");
        QVERIFY(!saved.usedFallback);
        QVERIFY(!store.isDirty());
        QVERIFY(readAll(saved.path).contains("\"schema\": \"ringscope.annotations/1\""));

        AnnotationStore reopened;
        const SidecarLoadResult r = reopened.open(trace);
        QCOMPARE(r.status, SidecarStatus::Loaded);
        QCOMPARE(reopened.annotations().size(), store.annotations().size());
        for (std::size_t i = 0; i < store.annotations().size(); ++i)
            QVERIFY(reopened.annotations()[i] == store.annotations()[i]);
        QVERIFY(!reopened.showAutomatic());
        QVERIFY(!reopened.isDirty());
        // A new annotation gets a fresh id, not one already in the file.
        Annotation more;
        more.timeNs = 1;
        const std::uint64_t id = reopened.add(more);
        for (std::size_t i = 0; i + 1 < reopened.annotations().size(); ++i)
            QVERIFY(reopened.annotations()[i].id != id);
    }

    // EventIds change between versions; references by track + name + start survive.
    void referencesSurviveRenumbering()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("t.json");
        TracePtr v1 = writeAndLoad(file);
        QVERIFY(v1);
        AnnotationStore store;
        store.open(v1);
        addOneOfEach(store);
        QVERIFY(store.save().ok);
        const EventId slow1 = findSlice(*v1, "hcom_allReduce_", 1400000);

        TracePtr v2 = writeAndLoad(file, 5); // the same trace with 5 events before
        QVERIFY(v2);
        const EventId slow2 = findSlice(*v2, "hcom_allReduce_", 1400000);
        QVERIFY(slow1 != slow2);
        AnnotationStore reopened;
        QCOMPARE(reopened.open(v2).status, SidecarStatus::Loaded);
        const auto& items = reopened.annotations();
        QCOMPARE(reopened.anchor(items[0].id).event, slow2);
        QVERIFY(reopened.anchor(items[0].id).resolved);
        const AnnotationAnchor arrow = reopened.anchor(items[3].id);
        QVERIFY(arrow.resolved);
        QCOMPARE(arrow.event, findSlice(*v2, "custom_attention_forward", 1000000));
        QCOMPARE(arrow.target, findSlice(*v2, "Memcpy", 1400500));
        QCOMPARE(reopened.anchor(items[2].id).start, TimeNs(1400000));
        QCOMPARE(reopened.anchor(items[2].id).end, TimeNs(1800000));

        // A reference to an event that is not in the trace stays, unresolved, and is saved.
        Annotation ghost;
        ghost.event = makeEventRef(*v2, slow2);
        ghost.event.name = "no_such_op";
        const std::uint64_t gid = reopened.add(ghost);
        QVERIFY(!reopened.anchor(gid).resolved);
        QVERIFY(reopened.save().ok);
        AnnotationStore third;
        third.open(v2);
        QCOMPARE(third.annotations().size(), std::size_t(5));
    }

    void resolveToleratesRoundingAndPidChange()
    {
        QTemporaryDir dir;
        TracePtr t = writeAndLoad(dir.filePath("t.json"));
        QVERIFY(t);
        const EventId copy = findSlice(*t, "Memcpy", 1400500);
        EventRef r = makeEventRef(*t, copy);
        r.startNs += 400; // a loader rounding to the microsecond
        QCOMPARE(resolveEventRef(*t, r), copy);
        r.startNs += 5000; // too far: not the same event
        QCOMPARE(resolveEventRef(*t, r), kNone);
        r = makeEventRef(*t, copy);
        r.pid = "3170820576"; // device pid renumbered; labels still match
        QCOMPARE(resolveEventRef(*t, r), copy);
    }

    // Keys written by a newer 1.x Ringscope survive a load and save by this one.
    void unknownKeysAreKept()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("t.json");
        TracePtr t = writeAndLoad(file);
        QVERIFY(t);
        const QByteArray text = R"({"schema":"ringscope.annotations/1","future":{"a":1},
          "settings":{"showFindingAnnotations":true,"futureKnob":[1,2]},
          "annotations":[{"id":4,"kind":"note","text":"x","timeNs":5,"pinned":true}]})";
        QFile f(file + ".ringscope.json");
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
        f.close();
        AnnotationStore store;
        QCOMPARE(store.open(t).status, SidecarStatus::Loaded);
        store.setShowAutomatic(false);
        QVERIFY(store.save().ok);
        const auto j = nlohmann::json::parse(readAll(file + ".ringscope.json").toStdString());
        QCOMPARE(j["future"]["a"].get<int>(), 1);
        // Inside "settings" too: a newer viewer's settings survive a save by this one.
        QVERIFY(j["settings"]["futureKnob"] == nlohmann::json::array({1, 2}));
        QCOMPARE(j["settings"]["showFindingAnnotations"].get<bool>(), false);
        QCOMPARE(j["annotations"][0]["pinned"].get<bool>(), true);
        QCOMPARE(j["annotations"][0]["id"].get<int>(), 4);
    }

    // A save abandoned between the temporary file and the rename changes nothing.
    void abandonedSaveKeepsPrevious()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("t.json");
        TracePtr t = writeAndLoad(file);
        QVERIFY(t);
        AnnotationStore store;
        store.open(t);
        addOneOfEach(store);
        QVERIFY(store.save().ok);
        const QByteArray before = readAll(file + ".ringscope.json");
        store.remove(store.annotations().front().id);
        const SidecarSaveResult r = store.save([] { return false; });
        QVERIFY(!r.ok);
        QVERIFY(store.isDirty());
        QCOMPARE(readAll(file + ".ringscope.json"), before);
        // No temporary file left behind, and nothing written to the fallback either.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 2);
        QVERIFY(!QFileInfo::exists(fallbackSidecarPathFor(file)));
    }

    // The process is killed after writing and flushing the temporary file, before the rename.
    void killedSaveKeepsPrevious()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("t.json");
        TracePtr t = writeAndLoad(file);
        QVERIFY(t);
        AnnotationStore store;
        store.open(t);
        addOneOfEach(store);
        QVERIFY(store.save().ok);
        const QByteArray before = readAll(file + ".ringscope.json");
        store.clear();
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            store.save([] {
                ::_exit(42); // dies here, like a crash or kill -9
                return true;
            });
            ::_exit(0);
        }
        int status = 0;
        QCOMPARE(waitpid(child, &status, 0), child);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 42);
        QCOMPARE(readAll(file + ".ringscope.json"), before);
        AnnotationStore reopened;
        QCOMPARE(reopened.open(t).status, SidecarStatus::Loaded);
        QCOMPARE(reopened.annotations().size(), std::size_t(4));
    }

    void corruptSidecarIsBackedUpNotOverwritten()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("t.json");
        TracePtr t = writeAndLoad(file);
        QVERIFY(t);
        const QString side = file + ".ringscope.json";
        const QByteArray garbage = "{\"schema\":\"ringscope.annotations/1\",\"annotations\":[{";
        QFile f(side);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(garbage);
        f.close();
        AnnotationStore store;
        const SidecarLoadResult r = store.open(t);
        QCOMPARE(r.status, SidecarStatus::Corrupt);
        QVERIFY(!r.message.isEmpty());
        QVERIFY(r.message.contains(r.backupPath));
        QCOMPARE(readAll(r.backupPath), garbage);
        QVERIFY(store.annotations().empty());
        addOneOfEach(store);
        QVERIFY(store.save().ok);
        QCOMPARE(readAll(r.backupPath), garbage); // still there after the save
        QCOMPARE(AnnotationStore().open(t).status, SidecarStatus::Loaded);
    }

    void newerSchemaIsNotClobbered()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("t.json");
        TracePtr t = writeAndLoad(file);
        QVERIFY(t);
        const QByteArray newer = R"({"schema":"ringscope.annotations/2","annotations":[]})";
        QFile f(file + ".ringscope.json");
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(newer);
        f.close();
        AnnotationStore store;
        const SidecarLoadResult r = store.open(t);
        QCOMPARE(r.status, SidecarStatus::Unsupported);
        QVERIFY(r.message.contains("newer"));
        QCOMPARE(readAll(r.backupPath), newer);
    }

    void malformedEntriesAreSkippedAndKept()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("t.json");
        TracePtr t = writeAndLoad(file);
        QVERIFY(t);
        const QByteArray text = R"({"schema":"ringscope.annotations/1","annotations":[
            {"id":1,"kind":"note","text":"ok","timeNs":5},
            {"id":2,"kind":"sticker"},
            {"id":3,"kind":"range","text":"no end","timeNs":5}]})";
        QFile f(file + ".ringscope.json");
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
        f.close();
        AnnotationStore store;
        const SidecarLoadResult r = store.open(t);
        QCOMPARE(r.status, SidecarStatus::Loaded);
        QCOMPARE(r.skipped, 2);
        QCOMPARE(store.annotations().size(), std::size_t(1));
        QCOMPARE(readAll(r.backupPath), text);
    }

    // The trace's folder cannot be written: the sidecar goes to the data folder and is found
    // there on reopen; the old one next to the trace is untouched.
    // Every field of an annotation given every JSON type: a required field of the wrong type
    // skips that entry (counted), an optional one takes its default and is counted, nothing
    // throws out of the reader, and the other annotations are kept.
    void everyFieldEveryType()
    {
        const char* values[] = {"null", "true", "0", "-1", "1.5", "\"\"", "\"x\"", "[]", "{}"};
        const std::string event = "{\"pid\":\"1\",\"tid\":\"1\",\"name\":\"a\",\"startNs\":5}";
        const std::string base[] = {
            "{\"id\":1,\"kind\":\"note\",\"text\":\"t\",\"timeNs\":5,\"color\":\"#fff\"}",
            "{\"id\":2,\"kind\":\"range\",\"text\":\"t\",\"timeNs\":5,\"endNs\":9}",
            "{\"id\":3,\"kind\":\"arrow\",\"event\":" + event + ",\"target\":" + event + "}",
            "{\"id\":4,\"kind\":\"note\",\"event\":" + event + "}"};
        const char* keys[] = {"id",    "kind",   "text",  "timeNs",  "endNs",
                              "event", "target", "color", "created", "modified"};
        const char* eventKeys[] = {"pid",     "tid",   "name",  "startNs", "trackKind",
                                   "process", "track", "durNs", "depth"};
        auto load = [](const std::string& entry) {
            const std::string file = std::string("{\"schema\":\"") + rs::kSidecarSchema +
                                     "\",\"settings\":{\"showFindingAnnotations\":[]},"
                                     "\"annotations\":[" +
                                     entry + ",{\"id\":9,\"kind\":\"note\",\"timeNs\":1}]}";
            bool unsupported = false;
            int skipped = 0;
            const rs::SidecarData d =
                rs::sidecarFromJson(QByteArray::fromStdString(file), &unsupported, &skipped);
            return std::make_pair(d.annotations.size(), skipped);
        };
        for (const std::string& b : base) {
            for (const char* key : keys) {
                for (const char* v : values) {
                    auto j = nlohmann::json::parse(b);
                    j[key] = nlohmann::json::parse(v);
                    std::pair<std::size_t, int> got;
                    try {
                        got = load(j.dump());
                    } catch (const std::exception& e) {
                        QFAIL((j.dump() + ": threw " + e.what()).c_str());
                    }
                    QVERIFY2(got.first + std::size_t(got.second) == 2, j.dump().c_str());
                }
            }
            if (b.find("event") == std::string::npos) continue;
            for (const char* key : eventKeys) {
                for (const char* v : values) {
                    auto j = nlohmann::json::parse(b);
                    j["event"][key] = nlohmann::json::parse(v);
                    std::pair<std::size_t, int> got;
                    try {
                        got = load(j.dump());
                    } catch (const std::exception& e) {
                        QFAIL((j.dump() + ": threw " + e.what()).c_str());
                    }
                    QVERIFY2(got.first + std::size_t(got.second) == 2, j.dump().c_str());
                }
            }
        }
        // An optional field of another type no longer costs the annotation.
        auto j = nlohmann::json::parse(base[0]);
        j["color"] = 5;
        j["text"] = nlohmann::json::array();
        QCOMPARE(load(j.dump()).first, std::size_t(2));
    }

    void readOnlyFolderFallsBack()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("t.json");
        TracePtr t = writeAndLoad(file);
        QVERIFY(t);
        AnnotationStore store;
        store.open(t);
        addOneOfEach(store);
        QVERIFY(store.save().ok);
        const QByteArray before = readAll(file + ".ringscope.json");

        QFile::setPermissions(dir.path(), QFile::ReadOwner | QFile::ExeOwner);
        QFile probe(dir.filePath("probe"));
        const bool stillWritable = probe.open(QIODevice::WriteOnly);
        if (stillWritable) {
            // Running as root, permissions do not stop writes: block the rename instead with a
            // directory where the temporary file would be created.
            probe.close();
            probe.remove();
            QFile::setPermissions(dir.path(),
                                  QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        }
        store.clear();
        Annotation only;
        only.text = "only";
        only.timeNs = 7;
        store.add(only);
        SidecarSaveResult r;
        if (stillWritable) {
            // Simulate the read-only target by making the primary save fail.
            const QString sidecar = file + ".ringscope.json";
            QVERIFY(QFile::rename(sidecar, sidecar + ".keep"));
            QVERIFY(QDir().mkpath(sidecar + "/x"));
            r = store.save();
            QVERIFY(QDir(sidecar).removeRecursively());
            QVERIFY(QFile::rename(sidecar + ".keep", sidecar));
            QFile old(sidecar);
            QVERIFY(old.open(QIODevice::ReadWrite));
            old.setFileTime(QDateTime::currentDateTime().addSecs(-60),
                            QFileDevice::FileModificationTime);
        } else {
            r = store.save();
            QFile::setPermissions(dir.path(),
                                  QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        }
        QVERIFY2(r.ok, qPrintable(r.message));
        QVERIFY(r.usedFallback);
        QCOMPARE(r.path, fallbackSidecarPathFor(file));
        QCOMPARE(readAll(file + ".ringscope.json"), before);
        AnnotationStore reopened;
        const SidecarLoadResult lr = reopened.open(t);
        QCOMPARE(lr.status, SidecarStatus::Loaded);
        QCOMPARE(lr.path, fallbackSidecarPathFor(file));
        QCOMPARE(reopened.annotations().size(), std::size_t(1));
        QCOMPARE(reopened.annotations()[0].text, std::string("only"));
    }

    void storeEditsAndAutomatic()
    {
        QTemporaryDir dir;
        TracePtr t = writeAndLoad(dir.filePath("t.json"));
        QVERIFY(t);
        AnnotationStore store;
        store.open(t);
        Annotation a;
        a.text = "first";
        a.timeNs = 10;
        const std::uint64_t id = store.add(a);
        Annotation edited = *store.find(id);
        edited.text = "second";
        QVERIFY(store.update(edited));
        QCOMPARE(store.find(id)->text, std::string("second"));
        QVERIFY(!store.find(id)->created.empty());
        Annotation autoNote;
        autoNote.text = "auto";
        autoNote.timeNs = 3;
        store.setAutomatic({autoNote});
        QCOMPARE(store.visible().size(), std::size_t(2));
        QVERIFY(store.automatic()[0].automatic);
        QVERIFY(store.automatic()[0].id != id);
        store.setShowAutomatic(false);
        QCOMPARE(store.visible().size(), std::size_t(1));
        // Automatic annotations are never written to the sidecar.
        QVERIFY(!sidecarToJson({store.annotations(), true, {}}, t.get()).contains("auto"));
        QVERIFY(store.remove(id));
        QVERIFY(!store.remove(id));
        QVERIFY(store.annotations().empty());
    }
};

QTEST_GUILESS_MAIN(TestSidecar)
#include "tst_sidecar.moc"
