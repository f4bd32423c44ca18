// The critical path over the timeline (ui/timeline/criticalpathlayer.h, issue 44.3): on the
// seed job the layer's segments sit on the merged trace's events, the renderer draws bands
// where the path is in view and nothing outside it, a rank jump draws a connector, the work of
// a frame is bounded by its pixels however many segments are in view, one rank has its own
// path, and the export draws the path exactly where the view's painter does.

#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/analysis/criticalpath.h"
#include "core/annotations/annotationstore.h"
#include "core/job/jobpipeline.h"
#include "tests/support/processrun.h"
#include "tests/testutil.h"
#include "ui/export/exportcomposer.h"
#include "ui/job/jobsession.h"
#include "ui/theme/theme.h"
#include "ui/timeline/criticalpathlayer.h"
#include "ui/timeline/timelinerenderer.h"

#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace rs;

namespace {

JobSessionPtr seedSession(QTemporaryDir& dir, const gen::SeedCaseOptions& o)
{
    if (!gen::writeSeedCaseJob(dir.path().toStdString(), o)) return nullptr;
    PipelineOptions p;
    p.crossRank = false; // the job session matches on its own offsets, as the viewer does
    PipelineResult r = runPipeline({dir.path().toStdString()}, p);
    if (r.traces.size() != std::size_t(o.ranks)) return nullptr;
    return buildJobSession(std::move(r), dir.path().toStdString());
}

QImage paint(const TimelineRenderer& r, const TimelineGeometry& g)
{
    QImage img(g.size.toSize(), QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::white);
    QPainter p(&img);
    r.paint(p, g);
    return img;
}

void setPath(TimelineRenderer& r, std::shared_ptr<const CriticalPathLayer> layer)
{
    r.setPathOverlay([layer](QPainter& p, const TimelineGeometry& g, const TimelineRenderer& x) {
        layer->paint(p, g, x);
    });
}

// Pixels that differ between two images of one size, within a rectangle.
int differing(const QImage& a, const QImage& b, const QRect& in)
{
    int n = 0;
    for (int y = in.top(); y <= in.bottom(); ++y)
        for (int x = in.left(); x <= in.right(); ++x)
            n += a.pixel(x, y) != b.pixel(x, y);
    return n;
}

} // namespace

class TstCriticalPathOverlay : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    gen::SeedCaseOptions m_seed;
    JobSessionPtr m_job;
    std::shared_ptr<const CriticalPathLayer> m_layer;

    // The first mode-B step (rank badRank copies 200 ms; the others wait).
    int badStep() const { return int(m_seed.stepBase) + m_seed.badSteps.front(); }

private slots:
    void initTestCase()
    {
        m_seed.ranks = 4;
        m_seed.steps = 4;
        m_seed.badSteps = {1};
        m_seed.badRank = 2;
        m_job = seedSession(m_dir, m_seed);
        QVERIFY(m_job && m_job->jobReport);
        m_layer = CriticalPathLayer::forJob(*m_job);
        QVERIFY(m_layer);
    }

    // Every step's path is the job's, on the merged trace: each segment's event holds it,
    // and the bands keep the segments' times and ranks.
    void layerMapsTheJobPath()
    {
        QCOMPARE(m_layer->paths().size(), m_job->jobReport->criticalPath.size());
        QCOMPARE(int(m_layer->steps().size()), m_seed.steps);
        const Trace& t = *m_job->job.trace;
        int mapped = 0;
        for (std::size_t i = 0; i < m_layer->paths().size(); ++i) {
            const StepPath& p = m_layer->paths()[i];
            QVERIFY2(checkStepPath(p).empty(), checkStepPath(p).c_str());
            const CriticalPathLayer::Step& st = m_layer->steps()[i];
            QCOMPARE(st.bands.size(), p.segments.size());
            for (std::size_t k = 0; k < p.segments.size(); ++k) {
                const PathSegment& s = p.segments[k];
                const PathBand& b = st.bands[k];
                QCOMPARE(b.start, s.start);
                QCOMPARE(b.end, s.end);
                QVERIFY(s.rank);
                QCOMPARE(b.block, m_job->job.blockOfRank(*s.rank));
                QVERIFY2(b.track != kNone, "every band has a row");
                if (s.event == kNone) continue;
                QCOMPARE(m_job->job.blockOfEvent(s.event), b.block);
                // A host or launch segment is named by its host slice and runs on to the work
                // it launched; the others lie within their event.
                if (s.kind == PathKind::Host || s.kind == PathKind::Launch) continue;
                const Slice& x = t.slice(s.event);
                QVERIFY2(x.start <= s.start && s.end <= x.end(),
                         qPrintable(QString::fromStdString(s.name)));
                ++mapped;
            }
        }
        QVERIFY(mapped > 0);
        // The mode-B step runs through the copying rank's internal memcpy.
        const StepPath* bad = m_layer->path(badStep());
        QVERIFY(bad);
        bool memcpy = false;
        for (const PathSegment& s : bad->segments)
            memcpy = memcpy || (s.kind == PathKind::InternalMemcpy && s.rank == m_seed.badRank);
        QVERIFY(memcpy);
    }

    // The mode-B step in view: the bands change the picture in the plot, a connector marks the
    // jump to the copying rank, and each kind's ink is on screen at its segment.
    void drawsBandsInView()
    {
        TimelineRenderer r;
        r.setTrace(m_job->job.trace, m_job->timelineIndex);
        r.setProcessRanks(blockOfProcesses(*m_job));
        const StepPath* bad = m_layer->path(badStep());
        const TimeNs pad = (bad->end - bad->start) / 20;
        const TimelineGeometry g =
            r.geometry(QSizeF(1400, r.contentHeight() + 40), bad->start - pad, bad->end + pad, 0);
        const QImage plain = paint(r, g);
        setPath(r, m_layer);
        const QImage withPath = paint(r, g);
        const CriticalPathLayer::Stats stats = m_layer->lastStats();
        QVERIFY(stats.pieces > 0);
        QVERIFY2(stats.rankJumps > 0, "the path jumps to the copying rank");
        const QRect plot = g.plotRect().toAlignedRect().intersected(plain.rect());
        QVERIFY(differing(plain, withPath, plot) > 0);
        // Outside the plot (labels, ruler) nothing changes.
        QCOMPARE(differing(plain, withPath, QRect(0, 0, int(g.labelWidth) - 1, plain.height())), 0);
        QCOMPARE(differing(plain, withPath, QRect(0, 0, plain.width(), int(g.rulerHeight) - 1)), 0);
        // The internal memcpy's band: its strip at the foot of its row in its kind's ink.
        const ThemePalette& pal = ThemePalette::light();
        bool found = false;
        for (const PathBand& b :
             m_layer->steps()[std::size_t(badStep() - int(m_seed.stepBase))].bands) {
            if (b.kind != PathKind::InternalMemcpy) continue;
            const QRectF row = g.depthRect(b.track, b.depth);
            QVERIFY(!row.isNull());
            const int x = int((g.xOf(b.start) + g.xOf(b.end)) / 2);
            const int y = int(row.bottom()) - 2;
            QCOMPARE(QColor(withPath.pixel(x, y)),
                     CriticalPathLayer::kindColor(PathKind::InternalMemcpy, pal));
            found = true;
        }
        QVERIFY(found);
    }

    // Nothing of the path in view: nothing looked at, nothing drawn, the same picture.
    void cullsOutsideTheView()
    {
        TimelineRenderer r;
        r.setTrace(m_job->job.trace, m_job->timelineIndex);
        r.setProcessRanks(blockOfProcesses(*m_job));
        const TimeNs first = m_layer->steps().front().start;
        const TimelineGeometry g =
            r.geometry(QSizeF(1000, 400), first - 50'000'000, first - 10'000'000, 0);
        const QImage plain = paint(r, g);
        setPath(r, m_layer);
        const QImage withPath = paint(r, g);
        QCOMPARE(m_layer->lastStats().visited, std::size_t(0));
        QCOMPARE(m_layer->lastStats().pieces, std::size_t(0));
        QCOMPARE(differing(plain, withPath, plain.rect()), 0);
        // Zoomed into the middle of one segment: that one only.
        const PathBand& mid = m_layer->steps().front().bands.front();
        const TimeNs c = mid.start + (mid.end - mid.start) / 2;
        const TimelineGeometry z =
            r.geometry(QSizeF(1000, r.contentHeight() + 40), c - 10, c + 10, 0);
        paint(r, z);
        QCOMPARE(m_layer->lastStats().visited, std::size_t(1));
        QCOMPARE(m_layer->lastStats().pieces, std::size_t(1));
    }

    // 400,000 segments of 10 ns in view at 1000 px: the work is the pixels', not the segments'.
    void workIsBoundedByPixels()
    {
        const TracePtr trace = m_job->job.trace;
        StepPath p;
        p.step = 1;
        const StepPath& real = m_layer->paths().front();
        p.start = real.start;
        const int n = 400'000;
        const PathSegment& model = real.segments.front();
        for (int i = 0; i < n; ++i) {
            PathSegment s = model;
            s.kind = PathKind(i % kPathKinds);
            s.start = p.start + TimeNs(i) * 10;
            s.end = s.start + 10;
            p.segments.push_back(s);
        }
        p.end = p.segments.back().end;
        p.byKind[0] = p.end - p.start;
        const auto layer = std::make_shared<const CriticalPathLayer>(
            trace, std::vector<StepPath>{p},
            [this](std::optional<int> rank) { return m_job->job.blockOfRank(rank.value_or(0)); });
        TimelineRenderer r;
        r.setTrace(trace, m_job->timelineIndex);
        r.setProcessRanks(blockOfProcesses(*m_job));
        setPath(r, layer);
        const TimelineGeometry g =
            r.geometry(QSizeF(1000, r.contentHeight() + 40), p.start, p.end, 0);
        paint(r, g);
        // A column holds at most one merged run, give or take the rounding of its edges.
        const double columns = g.plotRect().width();
        const CriticalPathLayer::Stats s = layer->lastStats();
        QVERIFY2(s.pieces > columns / 2 && double(s.pieces) <= columns * 1.25,
                 qPrintable(QString("%1 pieces, %2 columns").arg(s.pieces).arg(columns)));
        QVERIFY2(double(s.visited) <= columns * 1.25, qPrintable(QString::number(s.visited)));
        // Building the layer is linear too: 400,000 bands with no event of their own.
        QElapsedTimer t;
        t.start();
        std::vector<StepPath> many{p};
        for (PathSegment& x : many.front().segments)
            x.event = kNone;
        const CriticalPathLayer big(trace, std::move(many));
        QVERIFY2(t.elapsed() < 5000, qPrintable(QString::number(t.elapsed())));
        QCOMPARE(big.steps().front().bands.size(), std::size_t(n));
    }

    // One rank alone: its own path, drawn on its own rows.
    void oneRankHasItsOwnPath()
    {
        const ReportPtr rep = m_job->localReports.front();
        QVERIFY(rep);
        LoadResult lr = test::loadText(gen::seedCaseTrace(m_seed, 0));
        QVERIFY(lr.trace);
        const ReportPtr own = analyze(lr.trace);
        const auto layer = CriticalPathLayer::forReport(*own);
        QCOMPARE(int(layer->paths().size()), m_seed.steps);
        for (const StepPath& p : layer->paths()) {
            QVERIFY2(checkStepPath(p).empty(), checkStepPath(p).c_str());
            for (const PathSegment& s : p.segments)
                QVERIFY(s.event == kNone || s.event < lr.trace->slices().size());
        }
        TimelineRenderer r;
        r.setTrace(lr.trace);
        setPath(r, layer);
        const StepPath& p = layer->paths().front();
        paint(r, r.geometry(QSizeF(1200, r.contentHeight() + 40), p.start, p.end, 0));
        QVERIFY(layer->lastStats().pieces > 0);
        QCOMPARE(layer->lastStats().rankJumps, std::size_t(0));
    }

    // The export's timeline with the path differs from the plain one only where the layer
    // paints: every changed pixel is one the path alone paints over a blank page.
    void exportDrawsThePathWhereItIs()
    {
        AnnotationStore store;
        store.setTrace(m_job->combined->trace);
        ExportOptions o;
        o.width = 1400;
        o.story = false;
        o.maxAutoHeight = 20000;
        const StepPath* bad = m_layer->path(badStep());
        o.t0 = bad->start - 10'000'000;
        o.t1 = bad->end + 10'000'000;
        auto render = [&](bool path, QImage* pathOnly) {
            ExportComposer c(m_job->combined->trace, m_job->combined, &store);
            c.setOptions(o);
            c.renderer().setProcessRanks(blockOfProcesses(*m_job));
            if (path) setPath(c.renderer(), m_layer);
            const QSizeF size = c.timelineSize();
            QImage img(size.toSize(), QImage::Format_ARGB32_Premultiplied);
            img.fill(Qt::white);
            {
                QPainter p(&img);
                c.paintTimeline(p, size);
            }
            if (pathOnly) {
                // The layer alone, where the export's timeline was.
                *pathOnly = QImage(size.toSize(), QImage::Format_ARGB32_Premultiplied);
                pathOnly->fill(Qt::transparent);
                QPainter p(pathOnly);
                p.translate(c.lastTimelineOrigin());
                p.setClipRect(c.lastGeometry().plotRect());
                m_layer->paint(p, c.lastGeometry(), c.renderer());
            }
            return std::make_pair(img,
                                  c.lastGeometry().plotRect().translated(c.lastTimelineOrigin()));
        };
        QImage only;
        const auto [plain, plot] = render(false, nullptr);
        const auto [withPath, plot2] = render(true, &only);
        QCOMPARE(plain.size(), withPath.size());
        QCOMPARE(plot, plot2);
        // The footer's time stamp may tick between the two: compare above it.
        const QRect area(0, 0, plain.width(), int(plot.bottom()));
        int changed = 0, outside = 0;
        for (int y = area.top(); y < area.bottom(); ++y)
            for (int x = 0; x < area.width(); ++x) {
                if (plain.pixel(x, y) == withPath.pixel(x, y)) continue;
                ++changed;
                outside += qAlpha(only.pixel(x, y)) == 0;
            }
        QVERIFY(changed > 1000);
        QCOMPARE(outside, 0);
    }

    // `ringscope export --critical-path`: in the help, and a picture unlike the plain one.
    void cliFlag()
    {
        const QString exe = test::binaryDir() + "/app/ringscope";
        if (!QFileInfo::exists(exe)) QSKIP("the ringscope binary is not built");
        QProcess help;
        help.start(exe, {"export", "--help"});
        QVERIFY(help.waitForFinished(60000));
        QVERIFY(QString::fromUtf8(help.readAllStandardOutput()).contains("--critical-path"));
        QTemporaryDir out;
        const QString plainFile = out.filePath("plain.png"), pathFile = out.filePath("path.png");
        const QString step = QString::number(badStep());
        for (const auto& [file, flag] :
             {std::make_pair(plainFile, false), std::make_pair(pathFile, true)}) {
            QStringList args{"export", m_dir.path(), "--out", file, "--step", step, "--no-story"};
            if (flag) args << "--critical-path";
            QProcess p;
            p.setProcessEnvironment(QProcessEnvironment::systemEnvironment());
            p.start(exe, args);
            QVERIFY(p.waitForFinished(180000));
            QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        }
        const QImage a(plainFile), b(pathFile);
        QVERIFY(!a.isNull() && !b.isNull());
        QCOMPARE(a.size(), b.size());
        QVERIFY(differing(a, b, QRect(0, 0, a.width(), a.height() - 30)) > 1000);
    }
};

QTEST_MAIN(TstCriticalPathOverlay)
#include "tst_criticalpathoverlay.moc"
