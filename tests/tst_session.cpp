// The viewer's session (ui/session): what an open of one trace and of a job emits, a second
// open dropping the first's result (one generation token), cancel, a failing open, and the
// analysis redone (a trace again, a job on new offsets); progress pushed onto the GUI thread,
// nothing delivered to a session gone mid-open.
#include "bench/tracegen_large.h"
#include "bench/tracegen_seed.h"
#include "core/cache/modelcache.h"
#include "core/job/jobtrace.h"
#include "core/workpool.h"
#include "ui/session/session.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <utility>

using namespace rs;

namespace {

// The session's signals in the order they came (progress left out: how many is timing).
class Recorder : public QObject {
public:
    explicit Recorder(Session* s)
    {
        connect(s, &Session::opening, this, [this] { order << QStringLiteral("opening"); });
        connect(s, &Session::traceLoaded, this, [this] { order << QStringLiteral("traceLoaded"); });
        connect(s, &Session::traceReplaced, this,
                [this] { order << QStringLiteral("traceReplaced"); });
        connect(s, &Session::analysisStarted, this,
                [this] { order << QStringLiteral("analysisStarted"); });
        connect(s, &Session::analysed, this, [this] { order << QStringLiteral("analysed"); });
        connect(s, &Session::analysisFailed, this,
                [this] { order << QStringLiteral("analysisFailed"); });
        connect(s, &Session::failed, this, [this](const QString& m) {
            order << QStringLiteral("failed");
            message = m;
        });
        connect(s, &Session::cancelled, this, [this] { order << QStringLiteral("cancelled"); });
        connect(s, &Session::progress, this, [this] { ++progress; });
    }
    QStringList order;
    QString message;
    int progress = 0;
};

// Waits until the session has nothing in flight, then a little longer for a late result.
bool settle(Session& s, int ms = 180000)
{
    if (!QTest::qWaitFor([&] { return !s.isLoading() && !s.isAnalysing(); }, ms)) return false;
    QTest::qWait(300);
    return true;
}

} // namespace

class TstSession : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    QString rankFolder(int rank) const
    {
        return QDir(m_dir.path()).filePath(QStringLiteral("rank%1_ascend_pt").arg(rank));
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        gen::SeedCaseOptions seed;
        seed.ranks = 8;
        seed.steps = 5;
        seed.badSteps = {1, 3};
        seed.badRank = 2;
        QVERIFY(gen::writeSeedCaseJob(m_dir.path().toStdString(), seed));
        QVERIFY(QFileInfo(rankFolder(0)).isDir());
    }

    void analysisWaitsForTheFirstPaint()
    {
        // No view paints here: the analysis starts when the wait runs out, not before.
        {
            Session s;
            s.setFirstPaintWaitMs(400);
            QElapsedTimer opened; // the wait starts after the open, before traceLoaded arrives
            qint64 held = -1;
            connect(&s, &Session::analysed, &s, [&] { held = opened.elapsed(); });
            opened.start();
            s.open({rankFolder(3)});
            QVERIFY(settle(s));
            QVERIFY2(held >= 400, qPrintable(QString::number(held)));
        }
        // A paint releases it: with a wait far longer than the test, the report still comes,
        // and only after the paint.
        {
            Session s;
            s.setFirstPaintWaitMs(600000);
            QElapsedTimer opened;
            qint64 held = -1;
            connect(&s, &Session::traceLoaded, &s,
                    [&] { QTimer::singleShot(300, &s, [&] { s.viewPainted(); }); });
            connect(&s, &Session::analysed, &s, [&] { held = opened.elapsed(); });
            opened.start();
            s.open({rankFolder(3)});
            QVERIFY(settle(s));
            QVERIFY(s.report());
            QVERIFY2(held >= 300, qPrintable(QString::number(held)));
        }
        // A newer open releases the older one's analysis (it is dropped, never awaited).
        {
            Session s;
            s.setFirstPaintWaitMs(600000);
            bool reopened = false;
            connect(&s, &Session::traceLoaded, &s, [&] {
                if (!std::exchange(reopened, true))
                    QTimer::singleShot(0, &s, [&] { s.open({rankFolder(4)}); });
                else
                    s.viewPainted();
            });
            s.open({rankFolder(3)});
            QVERIFY(settle(s));
            QCOMPARE(s.trace()->rank(), std::optional<int>(4));
            QVERIFY(s.report());
        }
    }

    // Issue 43 (the window's wiring): while the analysis waits for the first paint, no pool
    // thread is parked: every thread of the pool runs other work at once.
    void waitingForThePaintParksNoThread()
    {
        Session s;
        s.setFirstPaintWaitMs(600000);
        QSignalSpy loaded(&s, &Session::traceLoaded);
        s.open({rankFolder(3)});
        QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty(), 120000);
        QTRY_VERIFY_WITH_TIMEOUT(!s.isLoading(), 120000); // its load task has ended
        QVERIFY(s.isAnalysing());
        QVERIFY(!s.report());
        const int n = WorkPool::global().threadCount();
        auto running = std::make_shared<std::atomic<int>>(0);
        auto most = std::make_shared<std::atomic<int>>(0);
        for (int i = 0; i < n; ++i)
            WorkPool::global().post([running, most, n] {
                const int now = ++*running;
                int seen = most->load();
                while (now > seen && !most->compare_exchange_weak(seen, now)) {
                }
                // Until every thread has joined in, or a second (a parked thread never would).
                const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
                while (most->load() < n && std::chrono::steady_clock::now() < until)
                    std::this_thread::yield();
                --*running;
            });
        QTRY_COMPARE_WITH_TIMEOUT(running->load(), 0, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(most->load(), n, 10000);
        // The paint starts the analysis.
        s.viewPainted();
        QVERIFY(settle(s));
        QVERIFY(s.report());
    }

    void openTraceShowsTraceThenReport()
    {
        Session s;
        Recorder r(&s);
        QSignalSpy loaded(&s, &Session::traceLoaded);
        s.open({rankFolder(3)});
        QVERIFY(s.isLoading());
        QCOMPARE(s.openingKind(), Session::Kind::Trace);
        QVERIFY(settle(s));
        QCOMPARE(r.order, (QStringList{"opening", "traceLoaded", "analysisStarted", "analysed"}));
        QCOMPARE(loaded.count(), 1);
        QVERIFY(loaded.first().at(0).value<TracePtr>() == s.trace());
        QCOMPARE(s.kind(), Session::Kind::Trace);
        QVERIFY(!s.isJob());
        QVERIFY(s.trace() && s.report());
        QVERIFY(s.report()->trace == s.trace());
        QCOMPARE(s.trace()->rank(), std::optional<int>(3));
        QCOMPARE(s.rankReports().size(), std::size_t(1));
        QVERIFY(s.timelineIndex());
        QVERIFY(!s.report()->collectives.empty());
        QCOMPARE(s.path(), rankFolder(3));
        QCOMPARE(s.openedPaths(), QStringList{rankFolder(3)});
    }

    void openJobOfEightRanks()
    {
        Session s;
        Recorder r(&s);
        s.open({m_dir.path()});
        QCOMPARE(s.openingKind(), Session::Kind::Job);
        QVERIFY(s.isLoading());
        QVERIFY(settle(s));
        // A job's report comes with its merged trace: no separate analysis.
        QCOMPARE(r.order, (QStringList{"opening", "traceLoaded", "analysed"}));
        QVERIFY(r.progress > 0);
        QCOMPARE(s.kind(), Session::Kind::Job);
        QVERIFY(s.isJob());
        QCOMPARE(s.job()->job.rankCount(), std::size_t(8));
        QVERIFY(s.job()->jobReport);
        QCOMPARE(s.rankReports().size(), std::size_t(8));
        QVERIFY(s.trace() == s.job()->job.trace);
        QVERIFY(s.report() == s.job()->combined);
        QVERIFY(s.timelineIndex() == s.job()->timelineIndex);
        QVERIFY(s.jobErrors().isEmpty());

        // New offsets: the same job, a new merged trace with the same ids.
        r.order.clear();
        const quint64 before = s.generation();
        std::vector<TimeNs> offsets(8, 0);
        offsets[2] = 1000;
        QVERIFY(s.setRankOffsets(offsets));
        QVERIFY(s.isRebuilding());
        QVERIFY(settle(s));
        QCOMPARE(r.order, (QStringList{"traceReplaced", "analysed"}));
        QVERIFY(s.generation() > before);
        QCOMPARE(s.job()->job.offsets, offsets);
    }

    void reanalyseTrace()
    {
        Session s;
        s.open({rankFolder(0)});
        QVERIFY(settle(s));
        const ReportPtr first = s.report();
        QVERIFY(first);
        Recorder r(&s);
        s.reanalyse();
        QVERIFY(s.isAnalysing());
        QVERIFY(settle(s));
        QCOMPARE(r.order, (QStringList{"analysisStarted", "analysed"}));
        QVERIFY(s.report() && s.report() != first);
        QVERIFY(s.report()->trace == s.trace());
        QVERIFY(!s.setRankOffsets({0})); // no job open
    }

    // One generation token: whatever an older open still delivers is dropped.
    void secondOpenDropsFirst()
    {
        {
            // A job superseded by a trace.
            Session s;
            Recorder r(&s);
            s.open({m_dir.path()});
            const quint64 first = s.generation();
            s.open({rankFolder(1)});
            QVERIFY(s.generation() > first);
            QVERIFY(settle(s));
            QCOMPARE(r.order, (QStringList{"opening", "opening", "traceLoaded", "analysisStarted",
                                           "analysed"}));
            QVERIFY(!s.isJob());
            QCOMPARE(s.trace()->rank(), std::optional<int>(1));
        }
        {
            // A job superseded by a job of two of its ranks.
            Session s;
            Recorder r(&s);
            s.open({m_dir.path()});
            s.open({rankFolder(4), rankFolder(5)});
            QVERIFY(settle(s));
            QCOMPARE(r.order, (QStringList{"opening", "opening", "traceLoaded", "analysed"}));
            QCOMPARE(s.job()->job.rankIds, (std::vector<int>{4, 5}));
        }
        {
            // A trace superseded by a job, and a re-analysis superseded by an open.
            Session s;
            s.open({rankFolder(6)});
            QVERIFY(settle(s));
            Recorder r(&s);
            s.reanalyse();
            s.open({rankFolder(6), rankFolder(7)});
            QVERIFY(settle(s));
            QCOMPARE(r.order,
                     (QStringList{"analysisStarted", "opening", "traceLoaded", "analysed"}));
            QVERIFY(s.isJob());
        }
    }

    // A report reaches the panes that follow it one per pass of the event loop (a partner's
    // in the same pass), all before analysed(); a newer open gives the rest at once first.
    void reportReachesFollowersOnePerPass()
    {
        Session s;
        QStringList order;
        bool reopen = false;
        QObject timeline, findings, overlay;
        auto* gone = new QObject;
        s.followReport(&timeline, [&] {
            QVERIFY(s.report() && s.isAnalysing());
            order << QStringLiteral("timeline");
            // Posted in the timeline's pass: runs before the next follower's.
            QMetaObject::invokeMethod(
                &timeline,
                [&] {
                    order << QStringLiteral("event loop");
                    if (std::exchange(reopen, false)) s.open({rankFolder(5)});
                },
                Qt::QueuedConnection);
        });
        s.followReport(&findings, [&] { order << QStringLiteral("findings"); });
        s.followReport(gone, [&] { order << QStringLiteral("gone"); });
        s.followReport(
            &overlay, [&] { order << QStringLiteral("overlay"); }, &timeline);
        delete gone;
        connect(&s, &Session::analysed, this, [&] {
            QVERIFY(!s.isAnalysing());
            order << QStringLiteral("analysed");
        });
        s.open({rankFolder(3)});
        QVERIFY(settle(s));
        QCOMPARE(order, (QStringList{"timeline", "overlay", "event loop", "findings", "analysed"}));

        // A job's report, superseded by a new open in the middle of its delivery: the job's
        // followers all have it (the rest at once) before the new open begins.
        order.clear();
        connect(&s, &Session::opening, this, [&] { order << QStringLiteral("opening"); });
        reopen = true;
        s.open({rankFolder(4), rankFolder(6)});
        QVERIFY(settle(s));
        QVERIFY(!s.isJob());
        QCOMPARE(s.trace()->rank(), std::optional<int>(5));
        QCOMPARE(order, (QStringList{"opening", "timeline", "overlay", "event loop", "findings",
                                     "analysed", "opening", "timeline", "overlay", "event loop",
                                     "findings", "analysed"}));
    }

    void cancelStopsTheOpen()
    {
        Session s;
        Recorder r(&s);
        s.open({m_dir.path()});
        s.cancel();
        QVERIFY(settle(s));
        QCOMPARE(r.order, (QStringList{"opening", "cancelled"}));
        QVERIFY(!s.trace());
        QCOMPARE(s.kind(), Session::Kind::None);

        // A trace cancelled while it loads; what was open stays.
        s.open({rankFolder(0)});
        QVERIFY(settle(s));
        const TracePtr open = s.trace();
        QVERIFY(open);
        r.order.clear();
        s.open({m_dir.path()});
        s.cancel();
        QVERIFY(settle(s));
        QCOMPARE(r.order, (QStringList{"opening", "cancelled"}));
        QVERIFY(s.trace() == open);
        QVERIFY(!s.isJob());
    }

    // A trace of a few MiB (several chunks): progress comes while it is read, on the GUI
    // thread, never goes back and ends full.
    void traceProgressOnTheGuiThread()
    {
        const QString big = QDir(m_dir.path()).filePath(QStringLiteral("big.json"));
        tracegen::LargeTraceOptions o;
        o.targetBytes = 24ull << 20;
        o.seed = 1;
        std::string error;
        QVERIFY2(tracegen::writeLargeTrace(big.toStdString(), o, nullptr, &error), error.c_str());
        Session s;
        QList<qint64> done;
        qint64 lastTotal = 0;
        bool onGui = true;
        connect(&s, &Session::progress, this, [&](qint64 d, qint64 total) {
            onGui = onGui && QThread::currentThread() == thread();
            done << d;
            lastTotal = total;
        });
        s.open({big});
        QVERIFY(settle(s));
        QVERIFY(s.trace() && s.report());
        QVERIFY(onGui);
        QVERIFY2(done.size() >= 2, qPrintable(QString::number(done.size())));
        QVERIFY2(done.size() <= 210, qPrintable(QString::number(done.size()))); // throttled
        for (int i = 1; i < done.size(); ++i)
            QVERIFY(done[i] >= done[i - 1]);
        QCOMPARE(done.last(), lastTotal);
        QCOMPARE(lastTotal, QFileInfo(big).size());
    }

    void destroyedMidOpenReceivesNothing()
    {
        int calls = 0;
        {
            Session s;
            connect(&s, &Session::traceLoaded, this, [&] { ++calls; });
            connect(&s, &Session::analysed, this, [&] { ++calls; });
            connect(&s, &Session::progress, this, [&] { ++calls; });
            connect(&s, &Session::cancelled, this, [&] { ++calls; });
            s.open({m_dir.path()});
        } // gone: the open is cancelled and its queued calls are dropped
        QTest::qWait(1000);
        QCOMPARE(calls, 0);
    }

    // A job whose ranks all come from the model cache shows before its analysis ends: its
    // merged trace first (no report, offsets refused), then the same trace analysed, with the
    // report the job has without the cache.
    void reopenedJobShowsBeforeAnalysis()
    {
        QTemporaryDir cacheDir;
        const auto cache = std::make_shared<ModelCache>(cacheDir.path());
        ModelCache::setProcessCache(cache);
        struct Uninstall {
            ~Uninstall() { ModelCache::setProcessCache(nullptr); }
        } uninstall;
        Session first;
        Recorder r1(&first);
        first.open({m_dir.path()});
        QVERIFY(settle(first));
        cache->waitForWrites();
        QCOMPARE(r1.order, (QStringList{"opening", "traceLoaded", "analysed"}));
        const std::uint64_t written = cache->writes();
        QVERIFY(written >= 8u);

        Session s;
        bool early = false, refused = false;
        connect(&s, &Session::traceLoaded, this, [&] {
            early = s.isJob() && s.job()->early() && !s.report() && s.isAnalysing();
            refused = !s.setRankOffsets(s.job()->job.offsets);
        });
        Recorder order(&s);
        s.open({m_dir.path()});
        QVERIFY(settle(s));
        QCOMPARE(cache->hits(), written);
        QCOMPARE(order.order,
                 (QStringList{"opening", "traceLoaded", "analysisStarted", "analysed"}));
        QVERIFY(early);
        QVERIFY(refused);
        QVERIFY(s.isJob() && !s.job()->early() && s.report());
        // The same job as without the cache: its merged trace, its reports.
        const Trace& a = *first.trace();
        const Trace& b = *s.trace();
        QCOMPARE(b.slices().size(), a.slices().size());
        for (EventId e = 0; e < a.slices().size(); ++e)
            QVERIFY(b.slice(e).start == a.slice(e).start && b.slice(e).dur == a.slice(e).dur &&
                    b.str(b.slice(e).name) == a.str(a.slice(e).name));
        QCOMPARE(s.job()->job.offsets, first.job()->job.offsets);
        QCOMPARE(s.report()->collectives.size(), first.report()->collectives.size());
        QCOMPARE(s.report()->findings.size(), first.report()->findings.size());
        for (std::size_t i = 0; i < s.report()->findings.size(); ++i) {
            QCOMPARE(s.report()->findings[i].title, first.report()->findings[i].title);
            QCOMPARE(s.report()->findings[i].events, first.report()->findings[i].events);
        }
        QCOMPARE(flaggedOrder(*s.job()), flaggedOrder(*first.job()));
        QVERIFY(s.setRankOffsets(s.job()->job.offsets)); // analysed: allowed again
        QVERIFY(settle(s));
    }

    void failingOpenSaysWhy()
    {
        Session s;
        Recorder r(&s);
        const QString missing = QDir(m_dir.path()).filePath(QStringLiteral("no_such_trace.json"));
        s.open({missing});
        QVERIFY(settle(s));
        QCOMPARE(r.order, (QStringList{"opening", "failed"}));
        QVERIFY2(r.message.contains(QStringLiteral("no_such_trace.json")), qPrintable(r.message));
        QVERIFY(!s.trace());

        // A job none of whose ranks loads.
        QTemporaryDir bad;
        for (const char* name : {"rank0.pt.trace.json", "rank1.pt.trace.json"}) {
            QFile f(QDir(bad.path()).filePath(QString::fromLatin1(name)));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"traceEvents\": [ this is not json");
        }
        r.order.clear();
        s.open({bad.path()});
        QCOMPARE(s.openingKind(), Session::Kind::Job);
        QVERIFY(settle(s));
        QCOMPARE(r.order, (QStringList{"opening", "failed"}));
        QVERIFY(!r.message.isEmpty());
        QVERIFY(!s.trace());
    }
};

QTEST_MAIN(TstSession)
#include "tst_session.moc"
