// The job view on the 8-rank seed job (issue 12.3): the call stack reaches the Python frame as
// on one rank, finding labels stay on their rank's rows, N visits the delaying rank first, the
// Ranks heatmap opens on the culprit metric, compact rows, the Warnings pane and File > Export.
#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/job/jobtrace.h"
#include "tests/support/openwait.h"
#include "tests/testutil.h"
#include "ui/annotations/annotationcontroller.h"
#include "ui/heatmap/rankstepheatmap.h"
#include "ui/mainwindow.h"
#include "ui/panes/callstackpane.h"
#include "ui/panes/detailspane.h"
#include "ui/panes/warningspane.h"
#include "ui/timeline/timelineview.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

using namespace rs;
using rs::test::openAndWait;

namespace {

bool hasFrame(const std::vector<StackEntry>& chain, const std::string& text)
{
    return std::any_of(chain.begin(), chain.end(),
                       [&](const StackEntry& s) { return s.text.find(text) != std::string::npos; });
}

} // namespace

class TstJobViewer : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    gen::SeedCaseOptions m_seed;
    std::unique_ptr<MainWindow> m_w;

    // Rank `rank`'s anomalous or waiting collective in the seed's first bad step.
    const Collective* flagged(int rank, bool anomalous) const
    {
        const JobSessionPtr s = m_w->jobSession();
        for (const Collective& c : m_w->report()->collectives)
            if (s->job.blockOfEvent(c.event) == rank && c.step == int(m_seed.stepBase) + 1 &&
                (anomalous ? c.anomalous : c.waiting))
                return &c;
        return nullptr;
    }

private slots:
    void initTestCase()
    {
        m_seed.ranks = 8;
        m_seed.steps = 5;
        m_seed.badSteps = {1, 3};
        m_seed.badRank = 2;
        m_w = test::openSeedJobWindow(QStringLiteral("tst_jobviewer"), m_dir.path(), m_seed);
        QVERIFY(m_w);
        QCOMPARE(m_w->jobSession()->job.rankCount(), std::size_t(8));
        // A job opens compact (issue 26.2, tst_jobopen); these checks are of the expanded
        // groups, compact mode is turned on where it is meant.
        QVERIFY(m_w->compactAction()->isChecked());
        m_w->compactAction()->setChecked(false);
    }

    void cleanupTestCase() { m_w.reset(); }

    // The job's Call stack pane shows what one rank's shows: the chain to the Python frame.
    void callStackReachesPythonInJob()
    {
        const JobSessionPtr s = m_w->jobSession();
        for (int rank : {0, 2}) {
            const Collective* c = flagged(rank, rank == m_seed.badRank);
            QVERIFY2(c, qPrintable(QStringLiteral("rank %1").arg(rank)));
            const std::vector<StackEntry> job = callStack(*m_w->trace(), c->event, 256);
            QVERIFY2(hasFrame(job, "custom_attention_forward"),
                     qPrintable(QStringLiteral("rank %1: %2 frames").arg(rank).arg(job.size())));
            // The same op in the rank opened alone: the same frames.
            LoadResult lr = test::loadText(gen::seedCaseTrace(m_seed, rank));
            QVERIFY(lr.trace);
            const EventId local = s->job.toLocal(std::size_t(rank), c->event);
            const std::vector<StackEntry> one = callStack(*lr.trace, local, 256);
            QCOMPARE(job.size(), one.size());
            for (std::size_t i = 0; i < one.size(); ++i) {
                QCOMPARE(job[i].text, one[i].text);
                QCOMPARE(job[i].kind, one[i].kind);
            }
        }

        // In the pane: the header counts the rows shown, a "call stack" frame with a slice
        // selects it, and a shorter chain leaves no rows behind.
        const Collective* c = flagged(0, false);
        m_w->selectEvent(c->event);
        CallStackPane* pane = m_w->callStackPane();
        m_w->bottomTabs()->setCurrentWidget(pane);
        QTreeWidget* tree = pane->tree();
        QVERIFY(QTest::qWaitForWindowExposed(tree));
        // The panes unfold as the event is selected: clicked once they are laid out (folded
        // when the job opened, they were 0 px high).
        QTRY_VERIFY(tree->viewport()->height() > 100);
        const int rows = tree->topLevelItemCount();
        QVERIFY(rows >= 8);
        QCOMPARE(rows, int(pane->entries().size()));
        QVERIFY2(pane->text().contains(QStringLiteral("%1 frames").arg(rows)),
                 qPrintable(pane->text()));
        int frameRow = -1;
        for (int i = 0; i < rows; ++i)
            if (pane->entries()[std::size_t(i)].kind == "call stack" &&
                pane->entries()[std::size_t(i)].text.find("custom_attention_forward") !=
                    std::string::npos)
                frameRow = i;
        QVERIFY(frameRow >= 0);
        const EventId frameEvent = pane->entries()[std::size_t(frameRow)].event;
        QVERIFY(frameEvent != kNone);
        QVERIFY(m_w->trace()
                    ->str(m_w->trace()->slice(frameEvent).name)
                    .find("custom_attention_forward") != std::string::npos);
        QCOMPARE(s->job.blockOfEvent(frameEvent), 0);
        QTreeWidgetItem* item = tree->topLevelItem(frameRow);
        tree->scrollToItem(item);
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {},
                          tree->visualItemRect(item).center());
        QTRY_COMPARE(m_w->timeline()->selectedEvent(), frameEvent);
        QCOMPARE(pane->event(), frameEvent);
        QCOMPARE(tree->topLevelItemCount(), int(pane->entries().size()));
        QVERIFY2(pane->text().startsWith(QString::fromStdString(
                     m_w->trace()->str(m_w->trace()->slice(frameEvent).name))),
                 qPrintable(pane->text()));
        QVERIFY2(tree->topLevelItemCount() < rows, qPrintable(pane->text()));
        QVERIFY(pane->text().contains(QStringLiteral("%1 frames").arg(tree->topLevelItemCount())));
    }

    // The same on the Kineto/NCCL shape: a job's chain equals the rank's own.
    void callStackSameInKinetoJob()
    {
        gen::SeedCaseOptions o = m_seed;
        o.kineto = true;
        o.ranks = 4;
        std::vector<TracePtr> ranks, alone;
        for (int r = 0; r < o.ranks; ++r) {
            const std::string text = gen::seedCaseTrace(o, r);
            LoadResult a = test::loadText(text), b = test::loadText(text);
            QVERIFY(a.trace && b.trace);
            ranks.push_back(a.trace);
            alone.push_back(b.trace);
        }
        const JobTrace job = mergeRanks(ranks, {});
        ranks.clear();
        int compared = 0;
        for (int r = 0; r < o.ranks; ++r) {
            const ReportPtr rep = analyze(alone[std::size_t(r)]);
            for (const Collective& c : rep->collectives) {
                const auto one = callStack(*alone[std::size_t(r)], c.event, 256);
                const auto merged =
                    callStack(*job.trace, job.toMerged(std::size_t(r), c.event), 256);
                QCOMPARE(merged.size(), one.size());
                for (std::size_t i = 0; i < one.size(); ++i)
                    QCOMPARE(merged[i].text, one[i].text);
                QVERIFY2(hasFrame(one, "custom_attention_forward"),
                         qPrintable(QString::number(one.size())));
                ++compared;
            }
        }
        QVERIFY(compared >= o.ranks);
    }

    void heatmapOpensOnCulpritMetric()
    {
        RankStepHeatmap* hm = m_w->heatmap();
        QCOMPARE(hm->metric(), RankStepHeatmap::Metric::ExtraMemcpy);
        // Only the copying rank's bad steps are hot.
        const auto& steps = hm->steps();
        for (std::size_t si = 0; si < steps.size(); ++si) {
            const bool bad =
                std::count(m_seed.badSteps.begin(), m_seed.badSteps.end(), int(si)) > 0;
            for (int r = 0; r < 8; ++r) {
                const double v = hm->valueMs(r, int(si));
                if (bad && r == m_seed.badRank)
                    QVERIFY2(v > 100, qPrintable(QString::number(v)));
                else
                    QVERIFY2(
                        v < 1,
                        qPrintable(
                            QStringLiteral("rank %1 step %2: %3").arg(r).arg(steps[si]).arg(v)));
            }
        }
    }

    // Finding labels: on their rank's rows, naming the rank, never overlapping; a View toggle.
    void findingLabelsStayOnTheirRank()
    {
        const JobSessionPtr s = m_w->jobSession();
        TimelineView* tl = m_w->timeline();
        AnnotationController* ac = m_w->annotations();
        const Collective* bad = flagged(m_seed.badRank, true);
        QVERIFY(bad);
        int checkedFrames = 0, labelsSeen = 0, namedRank = 0;
        const auto check = [&](const char* where) {
            tl->repaint();
            QCoreApplication::processEvents();
            const TimelineGeometry g = tl->timelineGeometry();
            std::vector<QRectF> boxes;
            for (const PaintedAnnotation& pa : ac->lastPainted()) {
                const Annotation* a = ac->store()->find(pa.id);
                QVERIFY(a);
                if (!a->automatic || pa.label.isEmpty()) continue;
                ++labelsSeen;
                namedRank += a->text.rfind("Rank ", 0) == 0;
                // Its rank's rows on screen.
                const EventId e = ac->store()->anchor(pa.id).event;
                QVERIFY(e != kNone);
                const int rank = s->job.blockOfEvent(e);
                QVERIFY2(QString::fromStdString(a->text).startsWith(
                             QStringLiteral("Rank %1 \u00b7 ").arg(rank)),
                         a->text.c_str());
                double top = 1e9, bottom = -1e9;
                const auto& rows = g.layout->rows();
                for (std::size_t i = 0; i < rows.size(); ++i)
                    if (s->job.blockOfProcess(rows[i].process) == rank) {
                        top = std::min(top, g.rowRect(int(i)).top());
                        bottom = std::max(bottom, g.rowRect(int(i)).bottom());
                    }
                QVERIFY2(pa.label.top() >= top - 0.5 && pa.label.bottom() <= bottom + 0.5,
                         qPrintable(QStringLiteral("%1: rank %2 label %3..%4 outside rows %5..%6")
                                        .arg(where)
                                        .arg(rank)
                                        .arg(pa.label.top())
                                        .arg(pa.label.bottom())
                                        .arg(top)
                                        .arg(bottom)));
                QVERIFY(g.plotRect().contains(pa.label));
                for (const QRectF& b : boxes)
                    QVERIFY2(!b.intersects(pa.label), where);
                boxes.push_back(pa.label);
            }
            ++checkedFrames;
        };
        // The whole job, the bad step, and the bad rank's op with its rows in view.
        tl->showAll();
        check("all");
        const TimeNs pad = bad->dur;
        tl->zoomToRange(bad->start - pad, bad->start + bad->dur + pad);
        check("step");
        tl->selectEvent(bad->event, true);
        check("selected");
        QVERIFY(!tl->timelineGeometry().eventRect(bad->event).isEmpty());
        QCOMPARE(checkedFrames, 3);
        QVERIFY(labelsSeen > 0);
        QCOMPARE(namedRank, labelsSeen);
        // The View menu toggles them.
        QAction* toggle = nullptr;
        for (QAction* m : m_w->menuBar()->actions())
            if (m->menu() && m->text().remove('&') == QStringLiteral("View"))
                for (QAction* a : m->menu()->actions())
                    if (a->isCheckable() &&
                        a->text().remove('&').contains(QStringLiteral("finding")))
                        toggle = a;
        QVERIFY(toggle);
        QVERIFY(toggle->isChecked());
        toggle->trigger();
        tl->repaint();
        for (const PaintedAnnotation& pa : ac->lastPainted())
            QVERIFY(!ac->store()->find(pa.id)->automatic);
        toggle->trigger();
        QVERIFY(toggle->isChecked());
    }

    // N goes to the rank that delayed the collective first, then to the ranks that waited.
    void nextFlaggedVisitsDelayingRankFirst()
    {
        const JobSessionPtr s = m_w->jobSession();
        TimelineView* tl = m_w->timeline();
        tl->selectEvent(kNone);
        tl->showAll();
        for (int bad : m_seed.badSteps) {
            const int step = int(m_seed.stepBase) + bad;
            QVERIFY(tl->selectNextFlagged(+1));
            const Collective* first = m_w->report()->collectiveOf(tl->selectedEvent());
            QVERIFY(first);
            QVERIFY(first->step == step);
            QCOMPARE(s->job.blockOfEvent(first->event), m_seed.badRank);
            QVERIFY(first->anomalous);
            std::set<int> waited;
            for (int i = 0; i < m_seed.ranks - 1; ++i) {
                QVERIFY(tl->selectNextFlagged(+1));
                const Collective* c = m_w->report()->collectiveOf(tl->selectedEvent());
                QVERIFY(c);
                QVERIFY(c->step == step);
                QVERIFY(c->waiting);
                const int rank = s->job.blockOfEvent(c->event);
                QVERIFY(rank != m_seed.badRank);
                waited.insert(rank);
                // The waiting verdict names the delaying rank and the job finding.
                const QString v = QString::fromStdString(c->verdict);
                QVERIFY2(v.contains(QStringLiteral("waited for rank %1").arg(m_seed.badRank)),
                         qPrintable(v));
                QVERIFY2(
                    v.contains(QStringLiteral("job finding \"Rank %1 delays").arg(m_seed.badRank)),
                    qPrintable(v));
                QVERIFY(!v.contains(QStringLiteral("look at the other ranks")));
            }
            QCOMPARE(int(waited.size()), m_seed.ranks - 1);
        }
        // P walks back the same way.
        QVERIFY(tl->selectNextFlagged(-1));
        QVERIFY(m_w->report()->collectiveOf(tl->selectedEvent())->waiting);
    }

    // The waiting verdict in the Details pane links the job finding: clicking it goes there.
    void waitingVerdictLinksTheJobFinding()
    {
        const int waiter = (m_seed.badRank + 1) % m_seed.ranks;
        const Collective* c = flagged(waiter, false);
        QVERIFY(c);
        TimelineView* tl = m_w->timeline();
        tl->selectEvent(c->event, true);
        auto* details = m_w->findChild<DetailsPane*>(QStringLiteral("details"));
        QVERIFY(details);
        QLabel* verdict = nullptr;
        for (QLabel* l : details->findChildren<QLabel*>())
            if (l->text().contains(QLatin1String("href=\"finding:"))) verdict = l;
        QVERIFY2(verdict, qPrintable(details->text()));
        QVERIFY(verdict->isVisibleTo(details));
        const QRegularExpressionMatch m =
            QRegularExpression(QStringLiteral("href=\"finding:(\\d+)\"")).match(verdict->text());
        QVERIFY(m.hasMatch());
        const int index = m.captured(1).toInt();
        const auto& findings = m_w->report()->findings;
        QVERIFY(index >= 0 && index < int(findings.size()));
        const Finding& f = findings[std::size_t(index)];
        QCOMPARE(QString::fromStdString(f.rule), QStringLiteral("job-rank-delays-collective"));
        QVERIFY(!f.ranks.empty());
        QCOMPARE(f.ranks.front(), m_seed.badRank);
        // The plain text (copy, tests) has no markup.
        QVERIFY(!details->text().contains(QLatin1String("<a ")));
        emit verdict->linkActivated(QStringLiteral("finding:%1").arg(index));
        QVERIFY(!f.events.empty());
        QCOMPARE(tl->selectedEvent(), f.events.front());
        QCOMPARE(m_w->jobSession()->job.blockOfEvent(tl->selectedEvent()), m_seed.badRank);
    }

    // Two ranks copying in one step: both come first, the verdicts of the others name both.
    void nextFlaggedWithTwoDelayingRanks()
    {
        QTemporaryDir dir;
        gen::SeedCaseOptions o = m_seed;
        o.ranks = 4;
        o.badSteps = {1};
        o.badRanks = {{1, {1, 2}}};
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(openAndWait(w, {dir.path()}));
        QVERIFY(w.isJob());
        const JobSessionPtr s = w.jobSession();
        TimelineView* tl = w.timeline();
        tl->selectEvent(kNone);
        tl->showAll();
        std::vector<int> order;
        for (int i = 0; i < o.ranks; ++i) {
            QVERIFY(tl->selectNextFlagged(+1));
            const Collective* c = w.report()->collectiveOf(tl->selectedEvent());
            QVERIFY(c);
            QVERIFY(c->step == int(o.stepBase) + 1);
            order.push_back(s->job.blockOfEvent(c->event));
            if (i < 2) {
                QVERIFY(c->anomalous);
            } else {
                QVERIFY(c->waiting);
                const QString v = QString::fromStdString(c->verdict);
                QVERIFY2(v.contains(QStringLiteral("waited for ranks 1 and 2")), qPrintable(v));
                QVERIFY2(v.contains(QStringLiteral("job finding \"Ranks 1, 2 delay")),
                         qPrintable(v));
            }
        }
        QCOMPARE(order, (std::vector<int>{1, 2, 0, 3}));
    }

    // Compact: per rank its steps, its communication row, the flagged ops' row and its
    // compute row.
    void compactKeepsThreeRowsPerRank()
    {
        const JobSessionPtr s = m_w->jobSession();
        TimelineView* tl = m_w->timeline();
        m_w->compactAction()->setChecked(true);
        const Trace& t = *m_w->trace();
        std::map<int, int> rows;
        std::map<int, std::set<TrackId>> shown;
        for (const TimelineRow& row : tl->renderer().layout()->rows()) {
            if (row.kind == RowKind::ProcessHeader) continue;
            const int rank = s->job.blockOfTrack(row.track);
            ++rows[rank];
            shown[rank].insert(row.track);
        }
        QCOMPARE(int(rows.size()), m_seed.ranks);
        for (const auto& [rank, n] : rows) {
            QVERIFY2(n <= 4, qPrintable(QStringLiteral("rank %1: %2 rows").arg(rank).arg(n)));
            QVERIFY(n >= 3);
        }
        QCOMPARE(rows[m_seed.badRank], 4);
        // Every collective and every extra copy of a flagged one stays visible.
        for (const Collective& c : m_w->report()->collectives) {
            QVERIFY(shown[s->job.blockOfEvent(c.event)].count(t.slice(c.event).track));
            if (c.anomalous)
                for (const InternalCopy& copy : c.copies)
                    if (copy.extra)
                        QVERIFY(tl->renderer().layout()->rowOfTrack(t.slice(copy.event).track) >=
                                0);
        }
        m_w->compactAction()->setChecked(false);
    }

    // File > Export: every expanded track whatever the scroll (or the visible area when asked);
    // the dialog starts in the job's folder and proposes a name with the job and the finding.
    void exportCoversAllTracksRegardlessOfScroll()
    {
        TimelineView* tl = m_w->timeline();
        AnnotationController* ac = m_w->annotations();
        const Collective* bad = flagged(m_seed.badRank, true);
        QVERIFY(bad);
        tl->selectEvent(bad->event, true);
        tl->showAll();
        // Scroll to the middle of the job (rank 3-4).
        auto* bar = tl->findChild<QScrollBar*>();
        QVERIFY(bar);
        QVERIFY(bar->maximum() > 0);
        bar->setValue(bar->maximum() / 2);
        QVERIFY(tl->scrollY() > 0);
        QTemporaryDir out;
        const QString all = out.filePath(QStringLiteral("all.svg"));
        QString error;
        ac->setVisibleAreaOnly(false);
        QVERIFY2(ac->exportTo(all, 1, false, &error), qPrintable(error));
        QFile f(all);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray svg = f.readAll();
        for (int r = 0; r < m_seed.ranks; ++r)
            QVERIFY2(svg.contains(QStringLiteral("Rank %1 ").arg(r).toUtf8()),
                     qPrintable(QStringLiteral("rank %1 missing").arg(r)));
        // The picture is as tall as every track.
        QVERIFY(svg.contains("height=\""));
        // The visible area only: what the view shows, not rank 0's rows.
        const QString vis = out.filePath(QStringLiteral("visible.svg"));
        ac->setVisibleAreaOnly(true);
        QVERIFY2(ac->exportTo(vis, 1, false, &error), qPrintable(error));
        ac->setVisibleAreaOnly(false);
        QFile fv(vis);
        QVERIFY(fv.open(QIODevice::ReadOnly));
        const QByteArray svgVis = fv.readAll();
        QVERIFY(!svgVis.contains("Rank 0 "));
        QVERIFY(svgVis.size() < svg.size());

        // PNG: the image grows with the tracks.
        const QString png = out.filePath(QStringLiteral("all.png"));
        QVERIFY2(ac->exportTo(png, 1, false, &error), qPrintable(error));
        QImage img(png);
        QVERIFY(!img.isNull());
        QVERIFY2(
            img.height() >= tl->renderer().contentHeight(),
            qPrintable(
                QStringLiteral("%1 < %2").arg(img.height()).arg(tl->renderer().contentHeight())));

        // The save dialog's folder and name.
        QSettings().remove(QStringLiteral("export/lastDir"));
        QCOMPARE(QFileInfo(ac->exportDirectory()).absoluteFilePath(),
                 QFileInfo(m_dir.path()).absoluteFilePath());
        const QString name = ac->exportFileName(QStringLiteral("png"), 1, false);
        QVERIFY2(name.contains(
                     QStringLiteral("-job-rank%1-step%2-").arg(m_seed.badRank).arg(*bad->step)),
                 qPrintable(name));
        // The finding the picture tells (the rank's own, with the source frame).
        QVERIFY2(name.contains(QStringLiteral("collective-extra-memcpy")), qPrintable(name));
        QVERIFY(name.endsWith(QStringLiteral("timeline.png")));
        QSettings().setValue(QStringLiteral("export/lastDir"), out.path());
        QCOMPARE(ac->exportDirectory(), out.path());
        QSettings().remove(QStringLiteral("export/lastDir"));
    }

    // A rank cut short: the Warnings pane says which rank, where it was cut and what was kept.
    void warningsPaneListsTruncatedRank()
    {
        QTemporaryDir dir;
        gen::SeedCaseOptions o = m_seed;
        o.ranks = 4;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        const QString cut =
            dir.path() + QStringLiteral("/rank3_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json");
        QFile f(cut);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.resize(f.size() / 2));
        f.close();
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(openAndWait(w, {dir.path()}));
        QVERIFY(w.isJob());
        const WarningsPane* pane = w.warningsPane();
        const WarningEntry* hit = nullptr;
        for (const WarningEntry& e : pane->entries())
            if (e.rank == QStringLiteral("3") &&
                e.text.contains(QStringLiteral("truncated at byte")))
                hit = &e;
        QVERIFY2(hit, qPrintable(pane->text()));
        const std::uint64_t kept = w.jobSession()->job.shells[3]->stats().events;
        QVERIFY(kept > 0);
        QVERIFY2(hit->text.contains(QLocale().toString(qulonglong(kept)) +
                                    QStringLiteral(" events kept")),
                 qPrintable(hit->text));
        QCOMPARE(pane->tree()->topLevelItemCount(), int(pane->entries().size()));
        for (const WarningEntry& e : pane->entries())
            QVERIFY2(e.rank == QStringLiteral("3") || e.rank.isEmpty(), qPrintable(pane->text()));
        // The status bar's count opens the pane.
        QPushButton* button = w.warningsButton();
        QVERIFY(button->isVisible());
        QVERIFY(button->text().contains(QString::number(pane->entries().size())));
        QTest::mouseClick(button, Qt::LeftButton);
        QCOMPARE(w.bottomTabs()->currentWidget(), static_cast<QWidget*>(w.warningsPane()));
    }

    // The README's pictures (docs/images/job.png, job-ranks.png): the job with the delaying
    // rank's AllReduce selected (N from the start), its call stack; the Ranks tab.
    // Compact mode hides the Python row the automatic "misaligned input" arrow starts from:
    // the arrow is not drawn (it would start at the top of the plot and cross the other
    // ranks), nor the label of the hidden slice; expanded, both are, on their rank's rows.
    void compactSkipsArrowsFromHiddenRows()
    {
        TimelineView* tl = m_w->timeline();
        AnnotationController* ac = m_w->annotations();
        const JobSessionPtr s = m_w->jobSession();
        const Collective* bad = flagged(m_seed.badRank, true);
        QVERIFY(bad);
        tl->selectEvent(kNone);
        const TimeNs pad = bad->dur;
        int hiddenEnds = 0, drawn = 0;
        const auto check = [&](const char* where) {
            tl->zoomToRange(bad->start - pad, bad->start + bad->dur + pad);
            tl->revealEvent(bad->event); // rank 2's rows on screen
            tl->repaint();
            QCoreApplication::processEvents();
            const TimelineGeometry g = tl->timelineGeometry();
            for (const PaintedAnnotation& pa : ac->lastPainted()) {
                const Annotation* a = ac->store()->find(pa.id);
                if (!a || !a->automatic) continue;
                const AnnotationAnchor an = ac->store()->anchor(pa.id);
                if (an.event == kNone) continue;
                const bool hidden = g.eventRect(an.event).isNull() ||
                                    (a->kind == AnnotationKind::Arrow && an.target != kNone &&
                                     g.eventRect(an.target).isNull());
                if (hidden) {
                    ++hiddenEnds;
                    QVERIFY2(pa.dropped && pa.label.isEmpty(), where);
                    if (a->kind == AnnotationKind::Arrow) QVERIFY2(pa.anchor.isEmpty(), where);
                    continue;
                }
                // Drawn arrows off screen (another rank scrolled away) have no anchor.
                if (a->kind != AnnotationKind::Arrow || pa.anchor.isNull()) continue;
                ++drawn;
                // Both ends on the rows of one rank: the arrow stays there.
                QCOMPARE(s->job.blockOfEvent(an.event), s->job.blockOfEvent(an.target));
                QVERIFY(!pa.dropped && pa.anchor.height() > 0);
                const QRectF from = g.eventRect(an.event), to = g.eventRect(an.target);
                QVERIFY(pa.anchor.top() >= std::min(from.top(), to.top()) - 1);
                QVERIFY(pa.anchor.bottom() <= std::max(from.bottom(), to.bottom()) + 1);
            }
        };
        check("expanded");
        QVERIFY(drawn > 0);
        m_w->compactAction()->setChecked(true);
        hiddenEnds = 0;
        check("compact");
        QVERIFY(hiddenEnds > 0); // the arrow from the Python row, and that row's label
        m_w->compactAction()->setChecked(false);
    }

    // The "extra Memcpy" label and the others keep off the selected op's name.
    void labelsLeaveTheSelectedNameReadable()
    {
        TimelineView* tl = m_w->timeline();
        AnnotationController* ac = m_w->annotations();
        const Collective* bad = flagged(m_seed.badRank, true);
        QVERIFY(bad);
        int frames = 0;
        for (const double context : {0.05, 0.5, 1.0}) {
            tl->selectEvent(bad->event, true);
            const TimeNs pad = static_cast<TimeNs>(double(bad->dur) * context);
            tl->zoomToRange(bad->start - pad, bad->start + bad->dur + pad);
            tl->selectEvent(bad->event, true);
            tl->repaint();
            QCoreApplication::processEvents();
            const TimelineGeometry g = tl->timelineGeometry();
            const QRectF name = tl->renderer().sliceTextRect(g, bad->event, tl->font());
            QVERIFY(!name.isEmpty());
            int labels = 0;
            for (const PaintedAnnotation& pa : ac->lastPainted()) {
                if (pa.label.isEmpty()) continue;
                ++labels;
                QVERIFY2(!pa.label.intersects(name), ac->store()->find(pa.id)->text.c_str());
            }
            QVERIFY(labels > 0);
            ++frames;
        }
        QCOMPARE(frames, 3);
        tl->selectEvent(kNone);
    }

    void screenshots()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(openAndWait(w, {m_dir.path()}));
        TimelineView* tl = w.timeline();
        w.compactAction()->setChecked(true);
        tl->selectEvent(kNone);
        tl->showAll();
        QVERIFY(tl->selectNextFlagged(+1));
        const Collective* c = w.report()->collectiveOf(tl->selectedEvent());
        QVERIFY(c && c->anomalous);
        // The bad step, with a margin so the waiting ranks' ops show whole.
        const TimeNs pad = c->dur / 2;
        tl->zoomToRange(c->start - pad, c->start + c->dur + pad);
        w.bottomTabs()->setCurrentWidget(w.callStackPane());
        QTest::qWait(50);
        const QString job = QDir(test::binaryDir()).filePath(QStringLiteral("job.png"));
        QVERIFY(w.grab().save(job));
        w.bottomTabs()->setCurrentWidget(w.heatmap());
        QTest::qWait(50);
        const QString ranks = QDir(test::binaryDir()).filePath(QStringLiteral("job-ranks.png"));
        QVERIFY(w.grab().save(ranks));
        QVERIFY(QFileInfo(job).size() > 10000 && QFileInfo(ranks).size() > 10000);
    }
};

QTEST_MAIN(TstJobViewer)
#include "tst_jobviewer.moc"
