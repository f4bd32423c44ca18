// The memory budget: a trace projected to need more than LoadOptions::maxMemoryBytes is
// refused early, with the estimate in the message; the estimate tracks the real model size.
#include "bench/benchutil.h"
#include "core/traceloader.h"
#include "tests/support/gzip.h"
#include "tests/testutil.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <malloc.h>
#include <string>
#include <unistd.h>

using rs::LoadOptions;
using rs::LoadResult;

using rs::test::gzip;

namespace {

// n events of a typical mix: X with args, counters, flows; about 150 bytes each.
std::string makeTrace(std::size_t n)
{
    std::string text = R"({"traceEvents":[)";
    for (std::size_t i = 0; i < n; ++i) {
        const std::string ts = std::to_string(i * 10);
        switch (i % 4) {
        case 0:
        case 1:
            text += R"({"ph":"X","cat":"kernel","name":"op)" + std::to_string(i % 50) +
                    "\",\"pid\":1,\"tid\":" + std::to_string(i % 8) + R"(,"ts":)" + ts +
                    R"(,"dur":5,"args":{"seq":)" + std::to_string(i) + "}},";
            break;
        case 2:
            text += R"({"ph":"C","name":"mem","pid":1,"ts":)" + ts + R"(,"args":{"used":)" +
                    std::to_string(i) + "}},";
            break;
        default:
            text += R"({"ph":"s","cat":"ac2g","id":)" + std::to_string(i) +
                    R"(,"pid":1,"tid":0,"ts":)" + ts + "},";
            break;
        }
    }
    text.back() = ']';
    text += "}";
    return text;
}

// "needs about 12.3 MiB" (the peak of loading) -> bytes.
double estimateIn(const std::string& error, const char* pattern = "needs about ([0-9.]+) (MiB|GiB)")
{
    const QRegularExpression re(pattern);
    const auto m = re.match(QString::fromStdString(error));
    if (!m.hasMatch()) return -1;
    return m.captured(1).toDouble() * (m.captured(2) == "GiB" ? 1024.0 * 1048576 : 1048576.0);
}

// "(projected; 4.5 MiB for the loaded trace)" -> bytes.
double modelIn(const std::string& error)
{
    return estimateIn(error, "([0-9.]+) (MiB|GiB) for the loaded trace");
}

} // namespace

class TstMemBudget : public QObject {
    Q_OBJECT
private slots:
    void defaultIsThreeQuartersOfRam()
    {
        const std::uint64_t ram = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                                  static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE));
        const std::uint64_t budget = rs::defaultMemoryBudget();
        QVERIFY(budget > 0);
        QVERIFY(budget >= ram / 100 * 74 && budget <= ram / 100 * 76);
    }

    void refusesWithTheEstimate()
    {
        const std::string text = makeTrace(300000);
        LoadOptions options;
        options.maxMemoryBytes = 4u << 20;
        const LoadResult r = rs::test::loadText(text, options);
        QVERIFY(!r.complete());
        QVERIFY(!r.trace); // refused, not half-built
        QVERIFY2(r.message.find("budget of 4.0 MiB") != std::string::npos, r.message.c_str());
        QVERIFY2(r.message.find("--max-memory") != std::string::npos, r.message.c_str());
        QVERIFY2(estimateIn(r.message) > 4.0 * 1048576, r.message.c_str());
    }

    void estimateTracksTheModel_data()
    {
        QTest::addColumn<bool>("compressed");
        QTest::newRow("json") << false;
        QTest::newRow("gzip") << true;
    }
    void estimateTracksTheModel()
    {
        // Refused early (from a prefix), the projection must still be near the real size.
        QFETCH(bool, compressed);
        const std::string json = makeTrace(400000);
        const std::string text = compressed ? gzip(json) : json;
        const LoadResult full = rs::test::loadText(text);
        QVERIFY2(full.complete(), full.message.c_str());
        const double model =
            static_cast<double>(full.trace->modelBytes() + full.trace->argsBytes());
        LoadOptions options;
        options.maxMemoryBytes = 1u << 20;
        const LoadResult r = rs::test::loadText(text, options);
        QVERIFY(!r.complete());
        const double estimate = modelIn(r.message);
        qInfo("%s: %.1f MB input, model %.1f MiB, refused at %s", compressed ? "gzip" : "json",
              text.size() / 1e6, model / 1048576, r.message.c_str());
        QVERIFY2(estimate > 0, r.message.c_str());
        // Never below the model (the budget would let through what does not fit), and not so
        // far above that a trace that fits is refused.
        QVERIFY2(estimate >= model * 0.9, r.message.c_str());
        QVERIFY2(estimate <= model * 3.0, r.message.c_str());
    }

    void projectionCoversThePeak_data()
    {
        QTest::addColumn<bool>("compressed");
        QTest::addColumn<bool>("tiny");
        QTest::newRow("json") << false << false;
        QTest::newRow("gzip") << true << false;
        QTest::newRow("tiny events, no args") << false << true;
    }
    void projectionCoversThePeak()
    {
        // The budget protects the machine only if what it is compared with covers the peak
        // of a load (the model plus what building it needs for a while), not just the model.
#if defined(__SANITIZE_ADDRESS__)
        QSKIP("ASan's shadow memory and quarantine make resident sizes meaningless");
#endif
        QFETCH(bool, compressed);
        QFETCH(bool, tiny);
        std::string json;
        if (tiny) {
            json = "[";
            for (int i = 0; i < 600000; ++i)
                json += "{\"ph\":\"X\",\"name\":\"k" + std::to_string(i % 7) +
                        "\",\"pid\":1,\"tid\":" + std::to_string(i % 4) +
                        ",\"ts\":" + std::to_string(i) + ",\"dur\":1},";
            json.back() = ']';
        } else {
            json = makeTrace(600000);
        }
        const std::string text = compressed ? gzip(json) : json;
        malloc_trim(0); // earlier tests' freed heap would be reused unseen
        rs::bench::resetPeak();
        const std::uint64_t before = rs::bench::statusBytes("VmRSS");
        {
            const LoadResult full = rs::test::loadText(text);
            QVERIFY2(full.complete(), full.message.c_str());
        }
        const std::uint64_t hwm = rs::bench::statusBytes("VmHWM");
        if (hwm == 0 || before == 0) QSKIP("no /proc/self/status here");
        const double peak = static_cast<double>(hwm - std::min(hwm, before));
        LoadOptions options;
        options.maxMemoryBytes = 1u << 20;
        const LoadResult r = rs::test::loadText(text, options);
        QVERIFY(!r.complete());
        const double projected = estimateIn(r.message);
        qInfo("%s: %.1f MB input, peak during load +%.1f MiB, projected %.1f MiB (%.2fx)",
              QTest::currentDataTag(), text.size() / 1e6, peak / 1048576, projected / 1048576,
              projected / std::max(peak, 1.0));
        QVERIFY2(projected >= peak * 0.9, r.message.c_str());
        QVERIFY2(projected <= peak * 3.0, r.message.c_str());
    }

    void underBudgetLoads()
    {
        const std::string text = makeTrace(100000);
        LoadOptions options;
        options.maxMemoryBytes = 256u << 20;
        const LoadResult r = rs::test::loadText(text, options);
        QVERIFY2(r.complete(), r.message.c_str());
        QCOMPARE(r.trace->stats().events, std::uint64_t(100000));
    }

    void cliMaxMemory()
    {
        const QString exe = rs::test::binaryDir() + "/app/ringscope";
        if (!QFileInfo(exe).isExecutable())
            QSKIP("the ringscope binary is not built in this build dir");
        QTemporaryDir dir;
        const QString path = dir.filePath("big.json");
        const std::string text = makeTrace(300000);
        std::ofstream(path.toStdString())
            .write(text.data(), static_cast<std::streamsize>(text.size()));
        QProcess p;
        p.start(exe, {"info", "--max-memory", "2", path});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY(p.exitCode() != 0);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains("needs about") && err.contains("budget of 2.0 MiB"), qPrintable(err));
        p.start(exe, {"info", "--max-memory", "512", path});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
    }
};

QTEST_GUILESS_MAIN(TstMemBudget)
#include "tst_membudget.moc"
