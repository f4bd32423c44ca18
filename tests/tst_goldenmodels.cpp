// Golden models: what the loader builds from every public trace, from generated traces and from
// the committed odd inputs, recorded as a count and a SHA-256 per section of a canonical dump
// (tests/support/modeldump.h). A change to the loader that changes any model fails here; if the
// change is meant (a bug fixed), rewrite the goldens and say which changed and why.
//   RINGSCOPE_GOLDEN=write        rewrite tests/data/golden/models.txt from this build
//   RINGSCOPE_GOLDEN_DUMP=DIR     also write each full dump to DIR (diff two builds' dumps)
#include "bench/tracegen_large.h"
#include "bench/tracegen_seed.h"
#include "core/traceloader.h"
#include "tests/support/gzip.h"
#include "tests/support/modeldump.h"
#include "tests/testutil.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

using namespace rs;

namespace {

struct Case {
    std::string name;
    std::function<LoadResult()> load;
};

std::string generated(tracegen::Shape shape, std::uint64_t bytes)
{
    std::FILE* f = std::tmpfile();
    if (!f) return {};
    tracegen::LargeTraceOptions o;
    o.shape = shape;
    o.targetBytes = bytes;
    std::string text;
    if (tracegen::writeLargeTrace(f, o, nullptr)) {
        text.resize(static_cast<std::size_t>(std::ftell(f)));
        std::rewind(f);
        if (std::fread(text.data(), 1, text.size(), f) != text.size()) text.clear();
    }
    std::fclose(f);
    return text;
}

std::string readFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return f.readAll().toStdString();
}

LoadResult fromMemory(const std::string& text, const std::string& name)
{
    return loadTraceFromMemory(text.data(), text.size(), {}, name);
}

// A file written to a temporary folder (gzip goes through the file path of the loader).
LoadResult fromFile(const std::string& bytes, const char* name)
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(name).toStdString();
    std::ofstream(path, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return loadTrace(path);
}

std::vector<Case> cases()
{
    std::vector<Case> out;
    // Real traces (only when ../shared is there).
    if (!test::publicTracesDir().isEmpty()) {
        const QDir root(test::publicTracesDir());
        QDirIterator it(root.path(), {"trace_view.json", "*.json.gz"}, QDir::Files,
                        QDirIterator::Subdirectories);
        std::vector<std::string> files;
        while (it.hasNext())
            files.push_back(root.relativeFilePath(it.next()).toStdString());
        std::sort(files.begin(), files.end());
        for (const std::string& rel : files) {
            const std::string path = root.filePath(QString::fromStdString(rel)).toStdString();
            out.push_back({"public/" + rel, [path] { return loadTrace(path); }});
        }
    }
    // The seed case, both shapes, two ranks.
    for (bool kineto : {false, true}) {
        for (int rank : {0, 1}) {
            gen::SeedCaseOptions o;
            o.kineto = kineto;
            out.push_back(
                {std::string("gen/seed_") + (kineto ? "kineto" : "torch_npu") + "_rank" +
                     std::to_string(rank),
                 [o, rank] { return fromMemory(gen::seedCaseTrace(o, rank), "<seed>"); }});
        }
    }
    // Small large-traces of both shapes, plain and gzip, whole and cut.
    for (auto shape : {tracegen::Shape::Kineto, tracegen::Shape::TorchNpu}) {
        const std::string tag = shape == tracegen::Shape::Kineto ? "kineto" : "torch_npu";
        out.push_back({"gen/large_" + tag + "_2M",
                       [shape] { return fromMemory(generated(shape, 2 << 20), "<large>"); }});
        out.push_back({"gen/large_" + tag + "_2M.gz", [shape] {
                           return fromFile(test::gzip(generated(shape, 2 << 20)), "l.json.gz");
                       }});
        out.push_back({"gen/large_" + tag + "_2M_cut", [shape] {
                           const std::string t = generated(shape, 2 << 20);
                           return fromMemory(t.substr(0, t.size() * 2 / 3), "<cut>");
                       }});
        out.push_back({"gen/large_" + tag + "_2M_cut.gz", [shape] {
                           const std::string gz = test::gzip(generated(shape, 2 << 20));
                           return fromFile(gz.substr(0, gz.size() / 2), "c.json.gz");
                       }});
    }
    // The JSON oddities file, whole, cut and with a bad byte in the middle.
    const std::string tricky = readFile(test::testDataPath("parallel_tricky.json"));
    out.push_back({"data/parallel_tricky.json", [tricky] { return fromMemory(tricky, "<t>"); }});
    out.push_back({"data/parallel_tricky.json_cut",
                   [tricky] { return fromMemory(tricky.substr(0, tricky.size() / 2), "<t>"); }});
    out.push_back({"data/parallel_tricky.json_bad", [tricky] {
                       std::string t = tricky;
                       t[t.size() * 2 / 3] = '\x01';
                       return fromMemory(t, "<t>");
                   }});
    // Committed odd inputs: hostile samples and fuzz seeds.
    for (const char* folder : {"hostile", "../fuzz/corpus"}) {
        const QDir dir(test::testDataPath(folder));
        for (const QString& f : dir.entryList(QDir::Files, QDir::Name)) {
            if (f.endsWith(".md")) continue;
            const std::string path = dir.filePath(f).toStdString();
            const std::string tag =
                std::string(folder).find("fuzz") != std::string::npos ? "fuzz/" : "hostile/";
            out.push_back({tag + f.toStdString(), [path] { return loadTrace(path); }});
        }
    }
    return out;
}

// "case section count hash" lines of one case.
std::vector<std::string> goldenLines(const std::string& name, const LoadResult& r,
                                     const QString& dumpDir)
{
    std::vector<std::string> lines;
    if (!r.trace) {
        lines.push_back(name + " result 0 none");
        return lines;
    }
    lines.push_back(name + " result 1 trace");
    for (const test::ModelSection& s : test::dumpModel(*r.trace))
        lines.push_back(name + " " + s.name + " " + std::to_string(s.count) + " " +
                        test::sha256Hex(s.text).substr(0, 32));
    if (!dumpDir.isEmpty()) {
        QString file = QString::fromStdString(name);
        file.replace('/', "__");
        std::ofstream(QDir(dumpDir).filePath(file + ".dump").toStdString())
            << test::dumpModelText(*r.trace);
    }
    return lines;
}

QString goldenPath()
{
    return test::testDataPath("golden/models.txt");
}

} // namespace

class TstGoldenModels : public QObject {
    Q_OBJECT
private slots:
    void modelsMatchTheGoldens()
    {
        const bool write = qgetenv("RINGSCOPE_GOLDEN") == "write";
        const QString dumpDir = qEnvironmentVariable("RINGSCOPE_GOLDEN_DUMP");
        if (!dumpDir.isEmpty()) QDir().mkpath(dumpDir);
        const std::vector<Case> all = cases();
        if (write && test::publicTracesDir().isEmpty())
            QFAIL("RINGSCOPE_GOLDEN=write needs ../shared/traces/public (the goldens cover it)");

        std::map<std::string, std::vector<std::string>> golden; // case -> its lines
        {
            std::ifstream in(goldenPath().toStdString());
            std::string line;
            while (std::getline(in, line)) {
                if (line.empty() || line[0] == '#') continue;
                golden[line.substr(0, line.find(' '))].push_back(line);
            }
        }
        std::ostringstream written;
        written << "# Golden models (tests/tst_goldenmodels.cpp): case section count sha256 of "
                   "the section's canonical dump.\n"
                   "# Rewrite with RINGSCOPE_GOLDEN=write; list why in the commit.\n";
        int checked = 0;
        QStringList failures;
        for (const Case& c : all) {
            const std::vector<std::string> lines = goldenLines(c.name, c.load(), dumpDir);
            for (const std::string& l : lines)
                written << l << "\n";
            if (write) continue;
            const auto it = golden.find(c.name);
            if (it == golden.end()) {
                failures << QString::fromStdString(c.name + ": no golden");
                continue;
            }
            if (it->second != lines) {
                QString diff = QString::fromStdString(c.name) + ": differs in";
                for (const std::string& l : lines)
                    if (std::find(it->second.begin(), it->second.end(), l) == it->second.end())
                        diff += " " + QString::fromStdString(l.substr(c.name.size() + 1));
                failures << diff;
            }
            ++checked;
        }
        if (write) {
            std::ofstream(goldenPath().toStdString()) << written.str();
            qInfo("wrote %zu cases to %s", all.size(), qPrintable(goldenPath()));
            return;
        }
        if (test::publicTracesDir().isEmpty())
            qInfo("../shared/traces/public is absent: its goldens are not checked");
        QVERIFY2(failures.isEmpty(),
                 qPrintable("models changed (RINGSCOPE_GOLDEN_DUMP=DIR writes full dumps to "
                            "diff):\n  " +
                            failures.join("\n  ")));
        QVERIFY(checked >= 30);
    }

    // The dump itself must see a change in any section, or the goldens prove nothing.
    void dumpSeesEveryField()
    {
        const std::string base =
            R"({"traceEvents":[{"ph":"X","name":"a","cat":"c","pid":1,"tid":2,"ts":1,"dur":5,)"
            R"("args":{"k":1},"sf":"1"},{"ph":"C","name":"m","pid":1,"ts":2,"args":{"v":3}},)"
            R"({"ph":"s","id":7,"pid":1,"tid":2,"ts":2,"cat":"f"},)"
            R"({"ph":"X","name":"b","pid":1,"tid":3,"ts":8,"dur":1},)"
            R"({"ph":"f","id":7,"pid":1,"tid":3,"ts":8,"cat":"f","bp":"e"}],)"
            R"("stackFrames":{"1":{"name":"fr","category":"py"}},"otherData":{"x":1}})";
        auto sections = [](const std::string& text) {
            std::map<std::string, std::string> m;
            const LoadResult r = loadTraceFromMemory(text.data(), text.size());
            if (r.trace)
                for (const test::ModelSection& s : test::dumpModel(*r.trace))
                    m[s.name] = s.text;
            return m;
        };
        const auto ref = sections(base);
        QVERIFY(!ref.empty());
        struct Edit {
            const char* from;
            const char* to;
            const char* section;
        };
        for (const Edit& e :
             {Edit{"\"dur\":5", "\"dur\":6", "slices"}, Edit{"\"k\":1", "\"k\":2", "args"},
              Edit{"\"v\":3", "\"v\":4", "counters"}, Edit{"\"py\"", "\"px\"", "frames"},
              Edit{"\"x\":1", "\"x\":2", "metadata"},
              Edit{"\"tid\":3,\"ts\":8,\"dur\"", "\"tid\":4,\"ts\":8,\"dur\"", "tracks"},
              Edit{"\"id\":7,\"pid\":1,\"tid\":3", "\"id\":8,\"pid\":1,\"tid\":3", "flows"},
              Edit{"\"ts\":1,", "\"ts\":0,", "meta"}}) {
            std::string changed = base;
            const auto at = changed.find(e.from);
            QVERIFY2(at != std::string::npos, e.from);
            changed.replace(at, std::strlen(e.from), e.to);
            const auto now = sections(changed);
            QVERIFY2(now.at(e.section) != ref.at(e.section), e.from);
        }
    }
};

QTEST_GUILESS_MAIN(TstGoldenModels)
#include "tst_goldenmodels.moc"
