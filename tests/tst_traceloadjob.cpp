// TraceLoadJob: one trace loaded on the WorkPool, progress and the result as queued calls on the
// GUI thread (no polling timer, no thread of its own), superseded loads dropped.
#include "bench/tracegen_large.h"
#include "core/traceloadjob.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <memory>

using namespace rs;

class TstTraceLoadJob : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_big;   // a few MiB: several chunks, so progress comes more than once
    QString m_small; // one chunk

    static QString write(const QString& path, std::uint64_t bytes, std::uint64_t seed)
    {
        tracegen::LargeTraceOptions o;
        o.targetBytes = bytes;
        o.seed = seed;
        std::string error;
        if (!tracegen::writeLargeTrace(path.toStdString(), o, nullptr, &error)) return {};
        return path;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_big = write(m_dir.filePath("big.json"), 24ull << 20, 1);
        m_small = write(m_dir.filePath("small.json"), 256ull << 10, 2);
        QVERIFY(!m_big.isEmpty() && !m_small.isEmpty());
    }

    void loadsOnThePoolAndReportsOnTheGuiThread()
    {
        TraceLoadJob job;
        QList<qint64> done;
        qint64 lastTotal = 0;
        bool progressOnGui = true;
        connect(&job, &TraceLoadJob::progress, this, [&](qint64 d, qint64 total) {
            progressOnGui = progressOnGui && QThread::currentThread() == thread();
            done << d;
            lastTotal = total;
        });
        bool finishedOnGui = false;
        std::shared_ptr<LoadResult> result;
        QString finishedPath;
        connect(&job, &TraceLoadJob::finished, this,
                [&](const QString& path, std::shared_ptr<LoadResult> r) {
                    finishedOnGui = QThread::currentThread() == thread();
                    finishedPath = path;
                    result = std::move(r);
                });
        job.start(m_big);
        QVERIFY(job.isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(result != nullptr, 60000);
        QVERIFY(!job.isRunning());
        QVERIFY(finishedOnGui);
        QVERIFY(progressOnGui);
        QCOMPARE(finishedPath, m_big);
        QVERIFY2(result->complete(), result->message.c_str());
        QVERIFY(result->trace);
        // Progress came while loading (not only at the end), never went back, and ended full.
        QVERIFY2(done.size() >= 2, qPrintable(QString::number(done.size())));
        for (int i = 1; i < done.size(); ++i)
            QVERIFY(done[i] >= done[i - 1]);
        QCOMPARE(done.last(), lastTotal);
        QCOMPARE(lastTotal, QFileInfo(m_big).size());
    }

    void aNewLoadSupersedesTheOldOne()
    {
        TraceLoadJob job;
        QStringList finished;
        std::shared_ptr<LoadResult> last;
        connect(&job, &TraceLoadJob::finished, this,
                [&](const QString& path, std::shared_ptr<LoadResult> r) {
                    finished << path;
                    last = std::move(r);
                });
        job.start(m_big);
        job.start(m_small); // the big one is cancelled and its result dropped
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 60000);
        QTest::qWait(200); // nothing more arrives
        QCOMPARE(finished, QStringList{m_small});
        QVERIFY(last && last->complete());
    }

    void cancelEndsWithACancelledResult()
    {
        TraceLoadJob job;
        std::shared_ptr<LoadResult> result;
        connect(&job, &TraceLoadJob::finished, this,
                [&](const QString&, std::shared_ptr<LoadResult> r) { result = std::move(r); });
        job.start(m_big);
        job.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(result != nullptr, 60000);
        QVERIFY(result->cancelled());
        QVERIFY(!job.isRunning());
    }

    void destroyedMidLoadReceivesNothing()
    {
        int calls = 0;
        {
            TraceLoadJob job;
            connect(&job, &TraceLoadJob::finished, this, [&] { ++calls; });
            connect(&job, &TraceLoadJob::progress, this, [&] { ++calls; });
            job.start(m_big);
        } // gone: the load is cancelled and its queued calls are dropped
        QTest::qWait(500);
        QCOMPARE(calls, 0);
    }

    void aMissingFileFails()
    {
        TraceLoadJob job;
        std::shared_ptr<LoadResult> result;
        connect(&job, &TraceLoadJob::finished, this,
                [&](const QString&, std::shared_ptr<LoadResult> r) { result = std::move(r); });
        job.start(m_dir.filePath("nope.json"));
        QTRY_VERIFY_WITH_TIMEOUT(result != nullptr, 10000);
        QVERIFY(result->failed());
        QVERIFY(!result->message.empty());
    }
};

QTEST_GUILESS_MAIN(TstTraceLoadJob)
#include "tst_traceloadjob.moc"
