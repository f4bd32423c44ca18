// Issue 43.6: one export that tells the whole story. For the 8-rank seed job every route (the
// timeline picture, the report page, `ringscope export --annotate-findings` and `--composite`)
// gives every rank (compact rows where needed), the cause marked and the waiters hatched, the
// finding's words with the source frame and the fix, the call stack with the frame to change
// marked, and the step plot; `--finding N` frames the finding's step whole; callouts cover
// neither their event nor leave the picture; the SVG's hatches are lines that a second renderer
// (rsvg-convert, Debian's librsvg2-bin) draws as stripes, not as a black fill.

#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/annotations/findingannotations.h"
#include "core/job/jobloader.h"
#include "tests/testutil.h"
#include "ui/export/exportcomposer.h"
#include "ui/job/jobsession.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

using namespace rs;

namespace {

// The text an SVG draws, its pieces joined by one space.
QString svgText(const QString& file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly)) return {};
    QString all;
    static const QRegularExpression text(QStringLiteral("<text[^>]*>([^<]*)</text>"));
    for (auto it = text.globalMatch(QString::fromUtf8(f.readAll())); it.hasNext();)
        all += it.next().captured(1).trimmed() + QLatin1Char(' ');
    all.replace(QStringLiteral("&gt;"), QStringLiteral(">"));
    all.replace(QStringLiteral("&lt;"), QStringLiteral("<"));
    all.replace(QStringLiteral("&amp;"), QStringLiteral("&"));
    return all.simplified();
}

bool near(const QColor& a, const QColor& b, int tolerance = 60)
{
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) +
               std::abs(a.blue() - b.blue()) <=
           tolerance;
}

} // namespace

class TstExportStory : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    gen::SeedCaseOptions m_seed;
    JobSessionPtr m_job;

    // A composer for the job as the command line and the viewer make it.
    std::unique_ptr<ExportComposer> composer(AnnotationStore& store, const ExportOptions& o)
    {
        const ReportPtr report = m_job->combined;
        store.setTrace(report->trace);
        store.setAutomatic(findingAnnotations(*report));
        auto c = std::make_unique<ExportComposer>(report->trace, report, &store);
        std::vector<int> ranks(report->trace->processes().size(), 0);
        for (ProcessId p = 0; p < ranks.size(); ++p)
            ranks[p] = std::max(0, m_job->job.blockOfProcess(p));
        c->renderer().setProcessRanks(std::move(ranks));
        c->setRankReports(m_job->perRank);
        c->setOptions(o);
        return c;
    }

    const Finding* extraMemcpyFinding() const
    {
        for (const Finding& f : m_job->combined->findings)
            if (f.rule == "collective-extra-memcpy") return &f;
        return nullptr;
    }

private slots:
    void initTestCase()
    {
        m_seed.ranks = 8;
        QVERIFY(gen::writeSeedCaseJob(m_dir.path().toStdString(), m_seed));
        std::string error;
        const auto inputs = discoverJob({m_dir.path().toStdString()}, &error);
        QCOMPARE(inputs.size(), std::size_t(8));
        m_job = buildJobSession(inputs, m_dir.path().toStdString(), nullptr);
        QVERIFY(m_job && m_job->combined && m_job->job.trace);
    }

    void jobPictureTellsTheStory_data()
    {
        QTest::addColumn<bool>("composite");
        QTest::addColumn<bool>("oneFinding");
        QTest::newRow("timeline, whole job") << false << false;
        QTest::newRow("report page, whole job") << true << false;
        QTest::newRow("timeline, one finding") << false << true;
        QTest::newRow("report page, one finding") << true << true;
    }

    void jobPictureTellsTheStory()
    {
        QFETCH(bool, composite);
        QFETCH(bool, oneFinding);
        AnnotationStore store;
        ExportOptions o; // the whole trace, the default width and height limit
        if (oneFinding) {
            // --finding N: its step, framed whole.
            const Finding* f = extraMemcpyFinding();
            QVERIFY(f);
            std::tie(o.t0, o.t1) = findingRange(*m_job->combined, *f);
            o.focus = f->events.front();
        }
        auto c = composer(store, o);
        store.setShowAutomatic(true);
        c->fitRanksToHeight(composite);
        const QString file = m_dir.filePath(QStringLiteral("story-%1-%2.svg")
                                                .arg(composite ? "report" : "timeline")
                                                .arg(oneFinding ? "finding" : "job"));
        QString error;
        QVERIFY2(composite ? c->writeComposite(file, &error) : c->writeTimeline(file, &error),
                 qPrintable(error));
        const QString text = svgText(file);
        // The finding's words: the cause, the source frame, the fix and the frame marked.
        const Finding* f = c->storyFinding();
        QVERIFY(f);
        QCOMPARE(f->rule, std::string("collective-extra-memcpy"));
        QVERIFY2(text.contains(QStringLiteral("Root cause")), qPrintable(text));
        QVERIFY(text.contains(QString::fromStdString(f->title).simplified()));
        QVERIFY(text.contains(QStringLiteral("custom_attention_forward")));
        QVERIFY(text.contains(QStringLiteral("allocate aligned here")));
        QVERIFY(text.contains(QStringLiteral("Fix: The collective copied its input")) ||
                text.contains(QStringLiteral("Fix:")));
        QVERIFY(text.contains(QStringLiteral("Allocate the tensor aligned")));
        // The heading names the collective whose frames these are, never one of its tasks.
        QVERIFY2(text.contains(QStringLiteral("Call stack of hcom_allReduce")), qPrintable(text));
        QVERIFY(!text.contains(QStringLiteral("Call stack of Reduce_Inline")));
        QVERIFY(!text.contains(QStringLiteral("Call stack of Memcpy")));
        // The step plot is there.
        QVERIFY(!c->lastStepPlotSize().isEmpty());
        QVERIFY(c->lastStoryRect().height() > 200);
        // The marks: the cause outlined, the waiters hatched (the legend lists what is drawn).
        QVERIFY(text.contains(QStringLiteral("anomalous (extra Memcpy)")));
        QVERIFY(text.contains(QStringLiteral("waiting for a slower peer")));
        // Every rank: its collectives' row whole in the picture's tracks.
        const TimelineGeometry& g = c->lastGeometry();
        const QRectF plot = g.plotRect();
        std::set<int> shown;
        for (std::size_t i = 0; i < g.layout->rows().size(); ++i) {
            const TimelineRow& row = g.layout->rows()[i];
            const QRectF r = g.rowRect(int(i));
            if (row.role == RowRole::Communication && r.top() >= plot.top() - 0.5 &&
                r.bottom() <= plot.bottom() + 0.5)
                shown.insert(row.rank);
        }
        QCOMPARE(int(shown.size()), m_seed.ranks);
        // Callouts inside the picture, over none of the events they point to.
        const QSizeF size = composite ? c->compositeSize() : c->timelineSize();
        const QRectF picture(QPointF(0, 0), size);
        int labels = 0;
        for (const PaintedAnnotation& a : c->lastAnnotations()) {
            if (a.label.isEmpty()) continue;
            ++labels;
            QVERIFY2(picture.contains(a.label), qPrintable(store.find(a.id)->text.c_str()));
            QVERIFY2(!a.label.intersects(a.anchor.adjusted(0.5, 0.5, -0.5, -0.5)),
                     qPrintable(store.find(a.id)->text.c_str()));
        }
        // Zoomed on one finding's step there is room for the callouts; over the whole job
        // in compact rows they may all keep to their outlines.
        if (oneFinding) QVERIFY(labels > 0);
    }

    // --finding N, the report image of a selected finding: its step over every rank, whole.
    void findingFramesItsStepWhole()
    {
        const Finding* f = extraMemcpyFinding();
        QVERIFY(f);
        const ReportPtr report = m_job->combined;
        const Collective* c = report->collectiveOf(f->events.front());
        QVERIFY(c && c->step);
        const auto [t0, t1] = findingRange(*report, *f);
        TimeNs a = 0, b = 0;
        int ranks = 0;
        for (const StepStats& st : report->steps) {
            if (st.step != *c->step) continue;
            QVERIFY2(
                st.start >= t0 && st.end <= t1,
                qPrintable(QStringLiteral("rank %1's step outside").arg(st.rank.value_or(-1))));
            a = ranks ? std::min(a, st.start) : st.start;
            b = ranks ? std::max(b, st.end) : st.end;
            ++ranks;
        }
        QCOMPARE(ranks, m_seed.ranks);
        // Framed, not lost in the trace: at most a tenth of the step around it.
        QVERIFY((t1 - t0) <= (b - a) * 11 / 10 + 2'000'000);
        QVERIFY(f->start >= t0 && f->end <= t1);
    }

    // The SVG's hatching is line segments (no mask, no pattern fill) and a second renderer
    // draws them as stripes over the fill, not a solid block.
    void svgHatchesInEveryRenderer()
    {
        AnnotationStore store;
        ExportOptions o;
        o.width = 1400;
        const Finding* f = extraMemcpyFinding();
        QVERIFY(f);
        std::tie(o.t0, o.t1) = findingRange(*m_job->combined, *f);
        auto c = composer(store, o);
        c->fitRanksToHeight(false);
        const QString file = m_dir.filePath("hatch.svg");
        QString error;
        QVERIFY2(c->writeTimeline(file, &error), qPrintable(error));
        QFile svgFile(file);
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        const QByteArray svg = svgFile.readAll();
        QVERIFY2(!svg.contains("<mask"), "hatching written as a mask");
        QVERIFY(!svg.contains("<pattern"));
        // A waiter's op on screen: its rectangle in the picture.
        const ReportPtr report = m_job->combined;
        const TimelineGeometry& g = c->lastGeometry();
        QRectF waiter;
        for (const Collective& x : report->collectives)
            if (x.waiting && x.start >= o.t0 && x.start + x.dur <= o.t1) {
                const QRectF r = g.eventRect(x.event);
                if (!r.isEmpty() && g.plotRect().contains(r.center()) && r.width() > 40 &&
                    r.height() > 6) {
                    waiter = r.translated(c->lastTimelineOrigin());
                    break;
                }
            }
        QVERIFY(!waiter.isEmpty());
        const QString rsvg = QStandardPaths::findExecutable(QStringLiteral("rsvg-convert"));
        if (rsvg.isEmpty())
            QSKIP("rsvg-convert is not installed (Debian's librsvg2-bin, scripts/deps)");
        const QString png = m_dir.filePath("hatch-rsvg.png");
        const QSize size = c->timelineSize().toSize();
        QProcess p;
        p.start(rsvg, {"-w", QString::number(size.width()), "-h", QString::number(size.height()),
                       "-o", png, file});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        QImage img(png);
        QVERIFY(!img.isNull());
        QCOMPARE(img.size(), size);
        // Inside the waiter (a margin off its edges): the waiting fill and the hatch's ink
        // both, and far from all black.
        const TimelineStyle& st = c->renderer().style();
        int fill = 0, ink = 0, black = 0, all = 0;
        const QRect inner = waiter.adjusted(3, 3, -3, -3).toAlignedRect().intersected(img.rect());
        for (int y = inner.top(); y <= inner.bottom(); ++y)
            for (int x = inner.left(); x <= inner.right(); ++x) {
                const QColor px = img.pixelColor(x, y);
                ++all;
                fill += near(px, st.waiting, 40);
                ink += near(px, st.waitHatch, 90);
                black += qGray(px.rgb()) < 30;
            }
        QVERIFY(all > 50);
        QVERIFY2(fill > all / 4, qPrintable(QStringLiteral("fill %1 of %2").arg(fill).arg(all)));
        QVERIFY2(ink > all / 20, qPrintable(QStringLiteral("hatch %1 of %2").arg(ink).arg(all)));
        QVERIFY2(black < all / 10,
                 qPrintable(QStringLiteral("black %1 of %2").arg(black).arg(all)));
    }

    // The command line's routes: the annotated timeline and the report page of the job.
    void commandLineRoutes()
    {
        const QString exe = test::binaryDir() + "/app/ringscope";
        if (!QFile::exists(exe)) QSKIP("the ringscope binary is not built");
        for (const bool composite : {false, true}) {
            const QString out = m_dir.filePath(composite ? "cli-report.svg" : "cli-timeline.svg");
            QStringList args{"export", m_dir.path(), "--out", out, "--annotate-findings"};
            if (composite)
                args << "--composite"
                     << "--finding"
                     << "1";
            QProcess p;
            p.start(exe, args);
            QVERIFY(p.waitForFinished(180000));
            QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
            const QString text = svgText(out);
            QVERIFY2(text.contains(QStringLiteral("custom_attention_forward")), qPrintable(text));
            QVERIFY(text.contains(QStringLiteral("allocate aligned here")));
            for (int r = 0; r < m_seed.ranks; ++r)
                QVERIFY2(text.contains(QStringLiteral("Rank %1").arg(r)), qPrintable(text));
        }
    }
};

QTEST_MAIN(TstExportStory)
#include "tst_exportstory.moc"
