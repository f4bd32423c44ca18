// Exported pictures of the seed case: the anomaly's red outline is where the flagged AllReduce
// is (and not on a normal one), annotation labels lie inside the image and carry ink, SVG and
// PDF are written, and `ringscope export` renders headless with the documented exit codes.

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
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>

using namespace rs;

namespace {

ReportPtr seedReport(int rank = 0)
{
    gen::SeedCaseOptions o;
    LoadResult r = test::loadText(gen::seedCaseTrace(o, rank));
    return r.complete() ? analyze(r.trace) : nullptr;
}

bool near(QRgb c, const QColor& want, int tolerance = 40)
{
    return std::abs(qRed(c) - want.red()) + std::abs(qGreen(c) - want.green()) +
               std::abs(qBlue(c) - want.blue()) <=
           tolerance;
}

// Fraction of the pixels on the frame just outside r (device pixels) that have the colour.
double outlineShare(const QImage& img, const QRectF& r, const QColor& colour)
{
    int hits = 0, total = 0;
    const QRect box = r.adjusted(-2, -2, 2, 2).toAlignedRect().intersected(img.rect());
    for (int x = box.left(); x <= box.right(); ++x)
        for (int y : {box.top(), box.top() + 1, box.bottom() - 1, box.bottom()}) {
            ++total;
            hits += near(img.pixel(x, y), colour) ? 1 : 0;
        }
    return total ? double(hits) / total : 0;
}

int darkPixels(const QImage& img, const QRect& r)
{
    int n = 0;
    const QRect box = r.intersected(img.rect());
    for (int y = box.top(); y <= box.bottom(); ++y)
        for (int x = box.left(); x <= box.right(); ++x)
            n += qGray(img.pixel(x, y)) < 100 ? 1 : 0;
    return n;
}

QRectF scaled(const QRectF& r, double s)
{
    return QRectF(r.topLeft() * s, r.size() * s);
}

} // namespace

class TestExport : public QObject {
    Q_OBJECT
private slots:
    void anomalyHighlightAndNotesInPng_data()
    {
        QTest::addColumn<double>("scale");
        QTest::newRow("1x") << 1.0;
        QTest::newRow("2x") << 2.0;
    }

    void anomalyHighlightAndNotesInPng()
    {
        QFETCH(double, scale);
        ReportPtr report = seedReport();
        QVERIFY(report);
        const Trace& trace = *report->trace;
        const Collective* bad = nullptr;
        const Collective* good = nullptr;
        for (const Collective& c : report->collectives) {
            if (c.anomalous && !bad) bad = &c;
            if (!c.anomalous && !c.waiting && !good) good = &c;
        }
        QVERIFY(bad && good);

        AnnotationStore store;
        store.setTrace(report->trace);
        store.setAutomatic(findingAnnotations(*report));
        QVERIFY(!store.automatic().empty());
        Annotation note;
        note.text = "Custom op allocates with torch.empty: please align to 512 B "
                    "(this note is long on purpose, to wrap and to be clamped)";
        note.event = makeEventRef(trace, bad->event);
        const std::uint64_t noteId = store.add(note);
        Annotation range;
        range.kind = AnnotationKind::Range;
        range.text = "slow step";
        range.timeNs = bad->start;
        range.endNs = bad->start + bad->dur;
        store.add(range);

        // The bad op and the good one before it, with some context on both sides.
        const TimeNs t0 = std::min(good->start, bad->start) - 50'000'000;
        const TimeNs t1 = bad->start + bad->dur + 50'000'000;
        ExportComposer composer(report->trace, report, &store);
        ExportOptions o;
        o.width = 1400;
        o.scale = scale;
        o.t0 = t0;
        o.t1 = t1;
        o.focus = bad->event;
        composer.setOptions(o);
        QTemporaryDir dir;
        const QString file = dir.filePath("seed.png");
        QString error;
        QVERIFY2(composer.writeTimeline(file, &error), qPrintable(error));
        QImage img(file);
        QVERIFY(!img.isNull());
        const QSizeF logical = composer.timelineSize();
        QCOMPARE(img.size(), (logical * scale).toSize());

        const TimelineGeometry& g = composer.lastGeometry();
        const QPointF origin = composer.lastTimelineOrigin();
        const QRectF badRect = g.eventRect(bad->event).translated(origin);
        const QRectF goodRect = g.eventRect(good->event).translated(origin);
        QVERIFY(!badRect.isEmpty() && !goodRect.isEmpty());
        QVERIFY(QRectF(QPointF(0, 0), logical).contains(badRect.center()));
        const QColor anomaly = composer.renderer().style().anomaly;
        const double onBad = outlineShare(img, scaled(badRect, scale), anomaly);
        const double onGood = outlineShare(img, scaled(goodRect, scale), anomaly);
        QVERIFY2(onBad > 0.3, qPrintable(QString("anomaly outline share %1").arg(onBad)));
        QVERIFY2(onGood < 0.05, qPrintable(QString("normal op share %1").arg(onGood)));

        // Every label is inside the image and has text drawn in it; the user's note is there.
        const QRectF image(QPointF(0, 0), logical);
        bool sawNote = false, sawAuto = false;
        for (const PaintedAnnotation& a : composer.lastAnnotations()) {
            if (a.label.isEmpty()) continue;
            QVERIFY2(image.contains(a.label), qPrintable(QString("label %1,%2 %3x%4 outside")
                                                             .arg(a.label.x())
                                                             .arg(a.label.y())
                                                             .arg(a.label.width())
                                                             .arg(a.label.height())));
            QVERIFY(darkPixels(img, scaled(a.label, scale).toAlignedRect()) > 20 * scale);
            sawNote |= a.id == noteId;
            sawAuto |= store.find(a.id) && store.find(a.id)->automatic;
        }
        QVERIFY(sawNote);
        QVERIFY(sawAuto);
        // No two labels overlap.
        const auto& painted = composer.lastAnnotations();
        for (std::size_t i = 0; i < painted.size(); ++i)
            for (std::size_t j = i + 1; j < painted.size(); ++j)
                if (!painted[i].label.isEmpty() && !painted[j].label.isEmpty())
                    QVERIFY(!painted[i].label.intersects(painted[j].label));
    }

    void findingAnnotationsSayWhat()
    {
        ReportPtr report = seedReport();
        QVERIFY(report);
        const auto items = findingAnnotations(*report);
        int collectiveNotes = 0, copyNotes = 0;
        for (const Annotation& a : items) {
            if (a.text.find("mode B") != std::string::npos) {
                ++collectiveNotes;
                QVERIFY2(a.text.find("extra Memcpy") != std::string::npos, a.text.c_str());
            }
            if (a.text.rfind("extra Memcpy", 0) == 0 || a.text.rfind("extra ", 0) == 0) ++copyNotes;
        }
        int anomalous = 0;
        for (const Collective& c : report->collectives)
            anomalous += c.anomalous ? 1 : 0;
        QCOMPARE(collectiveNotes, anomalous);
        QVERIFY(copyNotes >= anomalous);
        bool source = false;
        for (const Annotation& a : items)
            source |= a.text.find("custom_attention_forward") != std::string::npos;
        QVERIFY(source);
        // Rank 1 only waits: nothing to annotate.
        ReportPtr other = seedReport(1);
        QVERIFY(other);
        QVERIFY(findingAnnotations(*other).empty());
    }

    void svgPdfAndComposite()
    {
        ReportPtr report = seedReport();
        QVERIFY(report);
        AnnotationStore store;
        store.setTrace(report->trace);
        Annotation at;
        at.text = "look here";
        at.timeNs = report->trace->startNs() + 1'000'000;
        store.add(at);
        ExportComposer composer(report->trace, report, &store);
        QTemporaryDir dir;
        QString error;
        QVERIFY2(composer.writeTimeline(dir.filePath("t.svg"), &error), qPrintable(error));
        QFile svg(dir.filePath("t.svg"));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray svgText = svg.readAll();
        QVERIFY(svgText.contains("<svg"));
        QVERIFY(svgText.contains("look here"));
        QVERIFY2(composer.writeTimeline(dir.filePath("t.pdf"), &error), qPrintable(error));
        QFile pdf(dir.filePath("t.pdf"));
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QVERIFY(pdf.read(5) == "%PDF-");
        QVERIFY(!composer.writeTimeline(dir.filePath("t.bmp"), &error));
        QVERIFY(error.contains(".png"));

        QVERIFY2(composer.writeComposite(dir.filePath("c.png"), &error), qPrintable(error));
        QImage img(dir.filePath("c.png"));
        QCOMPARE(img.size(), composer.compositeSize().toSize());
    }

    void commandLine()
    {
        const QString exe = test::binaryDir() + "/app/ringscope";
        if (!QFile::exists(exe)) QSKIP("the ringscope binary is not built");
        QTemporaryDir dir;
        const QString trace = dir.filePath("rank0.json");
        {
            QFile f(trace);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(gen::seedCaseTrace({}, 0)));
        }
        auto run = [&](const QStringList& args) {
            QProcess p;
            p.start(exe, QStringList{"export"} + args);
            p.waitForFinished(120000);
            return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        };
        const QString out = dir.filePath("f.png");
        QCOMPARE(run({trace, "--out", out, "--finding", "1", "--annotate-findings"}), 0);
        QVERIFY(!QImage(out).isNull());
        QCOMPARE(run({trace, "--out", dir.filePath("s.svg"), "--step", "42", "--width", "900"}), 0);
        QCOMPARE(run({trace, "--out", dir.filePath("r.pdf"), "--range", "0:1.5s"}), 0);
        QCOMPARE(run({trace, "--out", dir.filePath("c.png"), "--composite", "--finding", "1"}), 0);
        QCOMPARE(QImage(dir.filePath("c.png")).width(), 1600);
        // RS_KEEP_EXPORTS=DIR keeps the trace and the pictures to look at.
        if (const QString keep = qEnvironmentVariable("RS_KEEP_EXPORTS"); !keep.isEmpty())
            for (const QString& f : QDir(dir.path()).entryList(QDir::Files))
                QFile::copy(dir.filePath(f), QDir(keep).filePath(f));
        QCOMPARE(run({dir.filePath("missing.json"), "--out", out}), 2);
        QCOMPARE(run({trace, "--out", dir.filePath("x.gif")}), 2);
        QCOMPARE(run({trace}), 2);
        QCOMPARE(run({trace, "--out", out, "--range", "5:1"}), 2);
        QCOMPARE(run({trace, "--out", out, "--finding", "99"}), 2);
        QCOMPARE(run({trace, "--out", out, "--step", "7"}), 2);
        QCOMPARE(run({trace, "--out", out, "--step", "42", "--finding", "1"}), 2);
    }

    // Issue 26.9: a job's export shows every rank, in the compact job layout when the tracks
    // do not fit the height asked for (--height honoured).
    void jobExportShowsEveryRank()
    {
        QTemporaryDir dir;
        gen::SeedCaseOptions o;
        o.ranks = 8;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        std::string error;
        const auto inputs = discoverJob({dir.path().toStdString()}, &error);
        QCOMPARE(inputs.size(), std::size_t(8));
        const JobSessionPtr s = buildJobSession(inputs, dir.path().toStdString(), nullptr);
        QVERIFY(s && s->job.trace);
        const ReportPtr report = s->combined;
        AnnotationStore store;
        store.setTrace(report->trace);
        store.setAutomatic(findingAnnotations(*report));
        for (const int height : {1200, 700}) {
            ExportComposer composer(report->trace, report, &store);
            std::vector<int> ranks(report->trace->processes().size(), 0);
            for (ProcessId p = 0; p < ranks.size(); ++p)
                ranks[p] = std::max(0, s->job.blockOfProcess(p));
            composer.renderer().setProcessRanks(ranks);
            ExportOptions opt;
            opt.width = 1600;
            opt.height = height;
            opt.focus = report->findings.front().events.front();
            opt.t0 = report->findings.front().start - 100'000'000;
            opt.t1 = report->findings.front().end + 100'000'000;
            composer.setOptions(opt);
            const QString note = composer.fitRanksToHeight();
            QVERIFY2(note.contains(QStringLiteral("compact")), qPrintable(note));
            QString err;
            const QString file = dir.filePath(QStringLiteral("job%1.png").arg(height));
            QVERIFY2(composer.writeTimeline(file, &err), qPrintable(err));
            QCOMPARE(QImage(file).height(), height);
            // Every rank has its collectives' row whole inside the picture's tracks.
            const TimelineGeometry& g = composer.lastGeometry();
            const QRectF plot = g.plotRect();
            std::set<int> shown;
            for (std::size_t i = 0; i < g.layout->rows().size(); ++i) {
                const TimelineRow& row = g.layout->rows()[i];
                const QRectF r = g.rowRect(int(i));
                if (row.role == RowRole::Communication && r.top() >= plot.top() - 0.5 &&
                    r.bottom() <= plot.bottom() + 0.5)
                    shown.insert(row.rank);
            }
            QCOMPARE(int(shown.size()), 8);
            // Labels stay in free space: none covers a bar.
            const std::vector<QRectF> bars = composer.renderer().occupiedRects(g);
            for (const PaintedAnnotation& a : composer.lastAnnotations()) {
                if (a.label.isEmpty()) continue;
                const QRectF local = a.label.translated(-composer.lastTimelineOrigin());
                for (const QRectF& b : bars)
                    QVERIFY2(!local.intersects(b), qPrintable(store.find(a.id)->text.c_str()));
            }
        }
        // The command line says so and honours --height.
        const QString exe = test::binaryDir() + "/app/ringscope";
        if (!QFile::exists(exe)) QSKIP("the ringscope binary is not built");
        QProcess p;
        const QString out = dir.filePath("cli.png");
        p.start(exe, {"export", dir.path() + "/", "--out", out, "--finding", "1",
                      "--annotate-findings", "--height", "1200"});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(p.readAllStandardError().contains("to show all 8 ranks"));
        QCOMPARE(QImage(out).size(), QSize(1600, 1200));
    }

    // Issue 26.10: the report shows its evidence whole: the source frame's name, the finding
    // titles (wrapped, never "…"), step labels that do not run together, the spread table
    // inside its room.
    void compositeShowsEvidenceWhole_data()
    {
        QTest::addColumn<int>("steps");
        QTest::newRow("6 steps") << 6;
        QTest::newRow("40 steps") << 40;
    }
    void compositeShowsEvidenceWhole()
    {
        QFETCH(int, steps);
        gen::SeedCaseOptions o;
        o.ranks = 2;
        o.steps = steps;
        LoadResult r = test::loadText(gen::seedCaseTrace(o, 0));
        QVERIFY(r.complete());
        const ReportPtr report = analyze(r.trace);
        AnnotationStore store;
        store.setTrace(report->trace);
        store.setAutomatic(findingAnnotations(*report));
        ExportComposer composer(report->trace, report, &store);
        ExportOptions opt;
        opt.width = 1000;
        opt.height = 800;
        const Finding& f = report->findings.front();
        opt.focus = f.events.front();
        opt.t0 = f.start - (f.end - f.start) / 2;
        opt.t1 = f.end + (f.end - f.start) / 2;
        composer.setOptions(opt);
        QTemporaryDir dir;
        QString err;
        QVERIFY2(composer.writeComposite(dir.filePath("c.svg"), &err), qPrintable(err));
        QFile svg(dir.filePath("c.svg"));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        // The text the picture draws, in order, one space between its pieces.
        QString all;
        static const QRegularExpression text(QStringLiteral("<text[^>]*>([^<]*)</text>"));
        for (auto it = text.globalMatch(QString::fromUtf8(svg.readAll())); it.hasNext();)
            all += it.next().captured(1).trimmed() + QLatin1Char(' ');
        all.replace(QStringLiteral("&gt;"), QStringLiteral(">"));
        all = all.simplified();
        QVERIFY2(all.contains(QStringLiteral("custom_attention_forward")), qPrintable(all));
        QVERIFY(all.contains(QStringLiteral("attention.py(57)")));
        // The title block's findings: the top three of those in the range.
        int listed = 0;
        for (const Finding& g : report->findings) {
            if (g.end < opt.t0 || g.start > opt.t1 || listed == 3) continue;
            ++listed;
            const QString title = QString::fromStdString(g.title).simplified();
            QVERIFY2(all.contains(title), qPrintable(title));
        }
        QVERIFY(listed > 0);
        // Step numbers apart from each other; the spread table inside the plot, apart from
        // the other texts.
        const auto texts = composer.lastStepPlotTexts();
        const QRect plotRect(QPoint(0, 0), composer.lastStepPlotSize());
        // Tick labels of one axis row (the steps under the lower chart share a top).
        std::map<int, std::vector<QRect>> rows;
        for (const plots::PlotText& t : texts)
            if (t.kind == plots::PlotText::TickLabel) rows[t.rect.top()].push_back(t.rect);
        std::size_t most = 0;
        for (const auto& [top, rects] : rows) {
            most = std::max(most, rects.size());
            for (std::size_t i = 0; i < rects.size(); ++i)
                for (std::size_t j = i + 1; j < rects.size(); ++j)
                    QVERIFY2(
                        !rects[i].adjusted(-2, 0, 2, 0).intersects(rects[j]),
                        qPrintable(QStringLiteral("%1 steps: tick labels overlap").arg(steps)));
        }
        QVERIFY(most >= 3);
        bool spread = false;
        for (const plots::PlotText& t : texts) {
            if (t.kind != plots::PlotText::TextElement || !t.text.startsWith("Spread")) continue;
            spread = true;
            QVERIFY2(plotRect.contains(t.rect),
                     qPrintable(QStringLiteral("spread %1,%2 %3x%4 in %5x%6")
                                    .arg(t.rect.x())
                                    .arg(t.rect.y())
                                    .arg(t.rect.width())
                                    .arg(t.rect.height())
                                    .arg(plotRect.width())
                                    .arg(plotRect.height())));
            for (const plots::PlotText& u : texts)
                if (u.owner != t.owner && u.kind != plots::PlotText::LegendItem)
                    QVERIFY2(!t.rect.intersects(u.rect), qPrintable(u.text));
        }
        QVERIFY(spread);
    }

    // Every option the help text mentions is one the command defines (no `--event`).
    void helpNamesRealOptions()
    {
        const QString exe = test::binaryDir() + "/app/ringscope";
        if (!QFile::exists(exe)) QSKIP("the ringscope binary is not built");
        QProcess p;
        p.start(exe, {"export", "--help"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QString help = QString::fromUtf8(p.readAllStandardOutput());
        // Definitions: the option column of the lines that start with a dash.
        QSet<QString> defined;
        const QRegularExpression name(QStringLiteral("--([a-z][a-z-]*)"));
        for (const QString& line : help.split('\n')) {
            if (!line.trimmed().startsWith('-')) continue;
            const QString column = line.trimmed().section(QStringLiteral("  "), 0, 0);
            for (auto it = name.globalMatch(column); it.hasNext();)
                defined.insert(it.next().captured(1));
        }
        QVERIFY2(defined.contains("composite") && defined.contains("finding"), qPrintable(help));
        for (auto it = name.globalMatch(help); it.hasNext();) {
            const QString used = it.next().captured(1);
            QVERIFY2(defined.contains(used),
                     qPrintable("--" + used + " is not an option:\n" + help));
        }
        QVERIFY(!help.contains("--event"));
    }
};

QTEST_MAIN(TestExport)
#include "tst_export.moc"
