// A job opened from rank summaries (issue 17.2, the viewer's part): a folder of
// *.ranksummary.json[.gz] opens as a job without its traces, with the Ranks heatmap on the
// culprit, the job's findings, every rank's steps and the collectives on each rank's rows; a
// rank's own trace opens on demand when the path its summary recorded is there.
#include "bench/tracegen_seed.h"
#include "core/job/jobpipeline.h"
#include "core/job/ranksummary.h"
#include "core/job/summarytrace.h"
#include "tests/support/openwait.h"
#include "ui/heatmap/rankstepheatmap.h"
#include "ui/mainwindow.h"
#include "ui/timeline/timelineview.h"

#include <QAction>
#include <QDir>
#include <QFontMetricsF>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <set>

using namespace rs;
using rs::test::openAndWait;

namespace {} // namespace

class TstSummaryJob : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    gen::SeedCaseOptions m_seed;
    QString m_job, m_summaries;
    PipelineResult m_direct;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RingscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_summaryjob"));
        QSettings().clear();
        // The 8-rank seed job with two copying ranks in step 2 and one in step 4.
        m_seed.ranks = 8;
        m_seed.badRanks = {{2, {1, 5}}, {4, {6}}};
        m_job = m_dir.filePath(QStringLiteral("job"));
        m_summaries = m_dir.filePath(QStringLiteral("summaries"));
        QVERIFY(gen::writeSeedCaseJob(m_job.toStdString(), m_seed));
        QVERIFY(QDir().mkpath(m_summaries));
        m_direct = runPipeline({m_job.toStdString()}, PipelineOptions{});
        QCOMPARE(m_direct.reports.size(), std::size_t(8));
        const std::vector<ReportInput> inputs = m_direct.reportInputs();
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            std::string error;
            const QString file = QStringLiteral("%1/task-%2.ranksummary.json%3")
                                     .arg(m_summaries)
                                     .arg(i)
                                     .arg(i % 2 ? QStringLiteral(".gz") : QString());
            QVERIFY2(writeRankSummary(inputs[i], file.toStdString(), &error), error.c_str());
        }
    }

    void summaryRankTraceNamesTheCollectives()
    {
        // Each collective's op is an event of the rank's small trace, with its name and times.
        const RankSummaryRead r = readRankSummary(
            (m_summaries + QStringLiteral("/task-1.ranksummary.json.gz")).toStdString());
        QVERIFY2(r.ok(), r.error.c_str());
        const SummaryRank s = summaryRankTrace(r.report);
        QVERIFY2(s.trace, s.error.c_str());
        QCOMPARE(s.trace->rank(), std::optional<int>(1));
        QCOMPARE(s.tracePath, r.report->facts->path);
        QVERIFY(!s.report->collectives.empty());
        for (std::size_t i = 0; i < s.report->collectives.size(); ++i) {
            const Collective& c = s.report->collectives[i];
            QVERIFY(c.event != kNone && c.event < s.trace->slices().size());
            const Slice& sl = s.trace->slice(c.event);
            const EventFacts* named = r.report->facts->slice(r.report->collectives[i].event);
            QVERIFY(named);
            QCOMPARE(s.trace->str(sl.name), named->name);
            QCOMPARE(sl.start, r.report->collectives[i].start);
            QCOMPARE(sl.dur, r.report->collectives[i].dur);
            QCOMPARE(s.report->collectiveOf(c.event), &c);
        }
        // Its findings' evidence points at events of that trace.
        for (const Finding& f : s.report->findings)
            for (EventId e : f.events)
                QVERIFY(e < s.trace->slices().size());
        QVERIFY(!summaryRankTrace(nullptr).trace);
    }

    void folderOfSummariesOpensAsJob()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, {m_summaries}));
        QVERIFY(w.isJob());
        const JobSessionPtr s = w.jobSession();
        QVERIFY(s->fromSummaries());
        QCOMPARE(s->job.rankCount(), std::size_t(8));
        QVERIFY(s->jobReport);
        // The job's analysis is the one of the traces: same delayed instances, same findings.
        QCOMPARE(s->jobReport->findings.size(), m_direct.job->findings.size());
        for (std::size_t i = 0; i < s->jobReport->findings.size(); ++i)
            QCOMPARE(QString::fromStdString(s->jobReport->findings[i].title),
                     QString::fromStdString(m_direct.job->findings[i].title));
        // Findings pane: the job's findings are in what it shows.
        int jobFindings = 0;
        for (const Finding& f : w.report()->findings)
            jobFindings += f.rule == "job-rank-delays-collective";
        QCOMPARE(jobFindings, 2);
        // Steps of every rank.
        std::set<int> stepRanks;
        for (const StepStats& st : w.report()->steps)
            if (st.rank) stepRanks.insert(*st.rank);
        QCOMPARE(stepRanks.size(), std::size_t(8));
        // Ranks heatmap: on the culprit metric, hot only where a rank copied.
        RankStepHeatmap* hm = w.heatmap();
        QCOMPARE(hm->metric(), RankStepHeatmap::Metric::ExtraMemcpy);
        const auto& steps = hm->steps();
        QCOMPARE(steps.size(), std::size_t(m_seed.steps));
        for (std::size_t si = 0; si < steps.size(); ++si)
            for (int r = 0; r < 8; ++r) {
                const bool copies =
                    gen::copiesInStep(m_seed, int(si), r) &&
                    std::count(m_seed.badSteps.begin(), m_seed.badSteps.end(), int(si)) > 0;
                const double v = hm->valueMs(r, int(si));
                QVERIFY2(copies ? v > 100 : v < 1,
                         qPrintable(QStringLiteral("rank %1 step %2: %3").arg(r).arg(si).arg(v)));
            }
        // The collectives are on each rank's rows, marked.
        int anomalous = 0;
        for (const Collective& c : w.report()->collectives) {
            QVERIFY(c.event < w.trace()->slices().size());
            anomalous += c.anomalous;
        }
        QCOMPARE(anomalous, 3);

        // Every rank's trace is here: each opens on demand, as a trace of its own.
        const std::vector<int> reachable = w.reachableRankTraces();
        QCOMPARE(reachable.size(), std::size_t(8));
        QVERIFY(w.openRankTraceAction()->isEnabled());
        QSignalSpy analysed(&w, &MainWindow::analysisFinished);
        QVERIFY(w.openRankTrace(5));
        QVERIFY(analysed.wait(180000));
        QVERIFY(!w.isJob());
        QCOMPARE(w.trace()->rank(), std::optional<int>(5));
        QVERIFY(w.trace()->slices().size() > 100);
    }

    void rankLabelsAreWhole()
    {
        // "Rank 7 · Summary (no trace)" was cut in the label column: it widens to hold the
        // group labels (bold, after the triangle, before the pin's room).
        MainWindow w;
        w.resize(1280, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, {m_summaries}));
        const TimelineView* tl = w.timeline();
        const TimelineGeometry g = tl->timelineGeometry();
        QFont bold = tl->font();
        bold.setBold(true);
        const QFontMetricsF bfm(bold);
        const Trace& t = *w.trace();
        int summaries = 0;
        for (ProcessId p = 0; p < t.processes().size(); ++p) {
            const QString label = QString::fromStdString(t.processLabel(p));
            summaries += label.contains(QStringLiteral("Summary (no trace)"));
            // What paintLabelRows gives a header's text, a pinned one's included.
            QCOMPARE(bfm.elidedText(label, Qt::ElideRight, g.labelWidth - 22 - 18), label);
        }
        QCOMPARE(summaries, 8);
        QVERIFY(g.labelWidth <= TimelineView::kMaxAutoLabelWidth);
    }

    void unreachableTracesAreNotOffered()
    {
        // The traces moved away (summaries copied off the cluster): the job still opens, the
        // action is off and asking for a rank's trace says why.
        const QString moved = m_dir.filePath(QStringLiteral("moved"));
        QVERIFY(QDir().rename(m_job, moved));
        MainWindow w;
        QVERIFY(openAndWait(w, {m_summaries}));
        QVERIFY(w.isJob());
        QCOMPARE(w.jobSession()->job.rankCount(), std::size_t(8));
        QVERIFY(w.reachableRankTraces().empty());
        QVERIFY(!w.openRankTraceAction()->isEnabled());
        QVERIFY(!w.openRankTrace(3));
        QVERIFY(w.isJob());
        QVERIFY(QDir().rename(moved, m_job));
    }
};

QTEST_MAIN(TstSummaryJob)
#include "tst_summaryjob.moc"
