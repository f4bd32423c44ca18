// The install tree as a desktop sees it: `cmake --install` of this build into a temporary
// prefix, then the file layout, the installed binary, the desktop entry and AppStream file
// (validated by the freedesktop tools), the MIME types (through GIO, as file managers resolve
// them, and Qt), the man page against the binary's own --help, and a desktop launch of a trace.
#include "tests/support/processrun.h"
#include "tests/testutil.h"
#include "ui/appidentity.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QImage>
#include <QMimeDatabase>
#include <QProcess>
#include <QRegularExpression>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QXmlStreamReader>

#include <csignal>
#include <memory>
#include <zlib.h>

using namespace rs;
using rs::test::findTool;
using rs::test::runProcess;

namespace {

const QString kId = QString::fromLatin1(kAppId);
const QStringList kMimeTypes = {QStringLiteral("application/x-kineto-trace+json"),
                                QStringLiteral("application/x-kineto-trace+gzip"),
                                QStringLiteral("application/x-torch-npu-trace+json"),
                                QStringLiteral("application/x-pytorch-flight-recorder")};

QString readText(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QString gunzipText(const QString& path)
{
    gzFile f = gzopen(QFile::encodeName(path).constData(), "rb");
    if (!f) return {};
    QByteArray out;
    char buf[65536];
    int n = 0;
    while ((n = gzread(f, buf, sizeof buf)) > 0)
        out.append(buf, n);
    gzclose(f);
    return QString::fromUtf8(out);
}

bool writeFile(const QString& path, const QByteArray& data)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(data) == data.size();
}

// Key=value lines of the [Desktop Entry] group.
QMap<QString, QString> desktopEntry(const QString& path)
{
    QMap<QString, QString> keys;
    bool inGroup = false;
    for (const QString& line : readText(path).split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1Char('['))) {
            inGroup = line == QLatin1String("[Desktop Entry]");
            continue;
        }
        const qsizetype eq = line.indexOf(QLatin1Char('='));
        if (inGroup && eq > 0) keys.insert(line.left(eq).trimmed(), line.mid(eq + 1).trimmed());
    }
    return keys;
}

QStringList mimeTypesDeclared(const QString& xmlPath)
{
    QFile f(xmlPath);
    if (!f.open(QIODevice::ReadOnly)) return {};
    QXmlStreamReader xml(&f);
    QStringList types;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("mime-type"))
            types << xml.attributes().value(QLatin1String("type")).toString();
    }
    return types;
}

// Elements' texts of an XML file, by element name, in document order.
QMultiMap<QString, QString> xmlTexts(const QString& path, QMap<QString, QString>* firstRelease)
{
    QFile f(path);
    QMultiMap<QString, QString> texts;
    if (!f.open(QIODevice::ReadOnly)) return texts;
    QXmlStreamReader xml(&f);
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement()) continue;
        const QString name = xml.name().toString();
        if (name == QLatin1String("release") && firstRelease->isEmpty()) {
            for (const auto& a : xml.attributes())
                firstRelease->insert(a.name().toString(), a.value().toString());
        }
        if (name == QLatin1String("content_rating"))
            texts.insert(name, xml.attributes().value(QLatin1String("type")).toString());
        else if (name == QLatin1String("id") || name == QLatin1String("launchable") ||
                 name == QLatin1String("image") || name == QLatin1String("mediatype") ||
                 name == QLatin1String("binary") || name == QLatin1String("summary"))
            texts.insert(name, xml.readElementText().trimmed());
    }
    return texts;
}

// Man source to plain text: the escapes the generator writes.
QString unroff(QString s)
{
    s.replace(QStringLiteral("\\-"), QStringLiteral("-"));
    s.remove(QRegularExpression(QStringLiteral("\\\\f[BIRP]")));
    s.replace(QStringLiteral("\\&"), QString());
    s.replace(QStringLiteral("\\e"), QStringLiteral("\\"));
    return s;
}

// Subcommands named in `ringscope --help`: the word after "ringscope " at the start of a line.
QStringList helpSubcommands(const QString& help)
{
    static const QRegularExpression re(
        QStringLiteral("^\\s*(?:Usage:\\s*)?ringscope\\s+([a-z][a-z0-9-]*)\\b"),
        QRegularExpression::MultilineOption);
    QStringList subs;
    for (auto it = re.globalMatch(help); it.hasNext();) {
        const QString s = it.next().captured(1);
        if (!subs.contains(s)) subs << s;
    }
    return subs;
}

QProcessEnvironment headlessEnv()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    return env;
}

// Pids of running processes whose executable is `exe` (the temporary prefix's binary is ours).
QList<qint64> processesOf(const QString& exe)
{
    QList<qint64> pids;
    const QString want = QFileInfo(exe).canonicalFilePath();
    for (const QString& d : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool ok = false;
        const qint64 pid = d.toLongLong(&ok);
        if (ok && QFileInfo(QStringLiteral("/proc/%1/exe").arg(d)).symLinkTarget() == want)
            pids << pid;
    }
    return pids;
}

} // namespace

class TstInstall : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> m_prefix;
    std::unique_ptr<QTemporaryDir> m_work;
    QString share(const QString& rel) const
    {
        return m_prefix->filePath(QStringLiteral("share/") + rel);
    }
    QString bin() const { return m_prefix->filePath(QStringLiteral("bin/ringscope")); }

private slots:
    void initTestCase()
    {
#if defined(__SANITIZE_ADDRESS__)
        QSKIP("packaging is checked by the Release run; the sanitizer run skips it");
#endif
        m_prefix = std::make_unique<QTemporaryDir>();
        m_work = std::make_unique<QTemporaryDir>();
        QVERIFY(m_prefix->isValid() && m_work->isValid());
        const auto r = runProcess(QStringLiteral(RINGSCOPE_CMAKE_COMMAND),
                                  {QStringLiteral("--install"), test::binaryDir(),
                                   QStringLiteral("--prefix"), m_prefix->path()});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        // The MIME database as the package's trigger would build it, found before the system's
        // by GIO children and this process's QMimeDatabase (not used before this point).
        if (const QString updater = findTool(QStringLiteral("update-mime-database"));
            !updater.isEmpty()) {
            const auto u = runProcess(updater, {share(QStringLiteral("mime"))});
            QVERIFY2(u.code == 0, qPrintable(u.describe()));
        }
        qputenv("XDG_DATA_DIRS", QFile::encodeName(m_prefix->filePath(QStringLiteral("share")) +
                                                   QStringLiteral(":/usr/local/share:/usr/share")));
        qputenv("XDG_DATA_HOME", QFile::encodeName(m_work->filePath(QStringLiteral("data-home"))));
    }

    void layoutFollowsGnuInstallDirs()
    {
        const QStringList files = {
            QStringLiteral("bin/ringscope"),
            QStringLiteral("share/applications/%1.desktop").arg(kId),
            QStringLiteral("share/metainfo/%1.metainfo.xml").arg(kId),
            QStringLiteral("share/mime/packages/%1.xml").arg(kId),
            QStringLiteral("share/icons/hicolor/scalable/apps/%1.svg").arg(kId),
            QStringLiteral("share/man/man1/ringscope.1.gz"),
            QStringLiteral("share/doc/ringscope/README.md"),
            QStringLiteral("share/doc/ringscope/docs/images/viewer.png"),
        };
        for (const QString& f : files)
            QVERIFY2(QFileInfo(m_prefix->filePath(f)).isFile(), qPrintable(f));
        QVERIFY(QFileInfo(bin()).isExecutable());
        // Bitmap sizes for desktops that want them: real renders of the SVG, not blanks.
        for (int size : {16, 24, 32, 48, 64, 128, 256}) {
            const QString png =
                share(QStringLiteral("icons/hicolor/%1x%1/apps/%2.png").arg(size).arg(kId));
            const QImage img(png);
            QVERIFY2(!img.isNull(), qPrintable(png));
            QCOMPARE(img.size(), QSize(size, size));
            int opaque = 0;
            for (int y = 0; y < size; ++y)
                for (int x = 0; x < size; ++x)
                    opaque += qAlpha(img.pixel(x, y)) > 128;
            QVERIFY2(opaque > size * size / 2, qPrintable(png));
        }
        // The icon compiled into the binary is the installed one.
        QVERIFY(!appIcon().isNull()); // registers the resources
        QFile embedded(QStringLiteral(":/icons/ringscope.svg"));
        QFile installed(share(QStringLiteral("icons/hicolor/scalable/apps/%1.svg").arg(kId)));
        QVERIFY(embedded.open(QIODevice::ReadOnly) && installed.open(QIODevice::ReadOnly));
        QCOMPARE(embedded.readAll(), installed.readAll());
        // Nothing of the build tree leaks into the install (no build RPATH).
        QFile exe(bin());
        QVERIFY(exe.open(QIODevice::ReadOnly));
        QVERIFY(!exe.readAll().contains(test::binaryDir().toUtf8()));
    }

    void installedBinaryRunsVersion()
    {
        const auto r = runProcess(bin(), {QStringLiteral("--version")}, headlessEnv(), 30000);
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QCOMPARE(r.out.trimmed(), QStringLiteral("ringscope " RINGSCOPE_VERSION_STRING));
    }

    void desktopEntryValidates()
    {
        const QString path = share(QStringLiteral("applications/%1.desktop").arg(kId));
        const QString validator = findTool(QStringLiteral("desktop-file-validate"));
        if (validator.isEmpty()) QSKIP("desktop-file-validate is missing: run scripts/deps");
        const auto r = runProcess(validator, {path});
        QVERIFY2(r.code == 0 && r.out.trimmed().isEmpty() && r.err.trimmed().isEmpty(),
                 qPrintable(r.describe()));
        const auto keys = desktopEntry(path);
        QCOMPARE(keys.value(QStringLiteral("Type")), QStringLiteral("Application"));
        QCOMPARE(keys.value(QStringLiteral("Exec")), QStringLiteral("ringscope %F"));
        QCOMPARE(keys.value(QStringLiteral("TryExec")), QStringLiteral("ringscope"));
        QCOMPARE(keys.value(QStringLiteral("Icon")), kId);
        QVERIFY(keys.value(QStringLiteral("Categories"))
                    .split(QLatin1Char(';'))
                    .contains(QStringLiteral("Development")));
        QStringList mime =
            keys.value(QStringLiteral("MimeType")).split(QLatin1Char(';'), Qt::SkipEmptyParts);
        QStringList declared =
            mimeTypesDeclared(share(QStringLiteral("mime/packages/%1.xml").arg(kId)));
        mime.sort();
        declared.sort();
        QStringList expected = kMimeTypes;
        expected.sort();
        QCOMPARE(declared, expected);
        QCOMPARE(mime, declared); // the entry opens exactly the types the package declares
    }

    void metainfoValidates()
    {
        const QString path = share(QStringLiteral("metainfo/%1.metainfo.xml").arg(kId));
        const QString appstream = findTool(QStringLiteral("appstreamcli"));
        if (appstream.isEmpty()) QSKIP("appstreamcli is missing: run scripts/deps");
        const auto r =
            runProcess(appstream, {QStringLiteral("validate"), QStringLiteral("--no-net"), path});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        // Clean: no error, warning or info (pedantic hints are allowed).
        QVERIFY2(!r.out.contains(QRegularExpression(QStringLiteral("^[EWI]: "),
                                                    QRegularExpression::MultilineOption)),
                 qPrintable(r.out));
        // The installed tree as a whole: component, desktop entry and icon found together.
        const auto tree = runProcess(appstream, {QStringLiteral("validate-tree"),
                                                 QStringLiteral("--no-net"), m_prefix->path()});
        QVERIFY2(tree.code == 0, qPrintable(tree.describe()));

        QMap<QString, QString> release;
        const auto texts = xmlTexts(path, &release);
        QCOMPARE(texts.value(QStringLiteral("id")), kId);
        QCOMPARE(texts.value(QStringLiteral("launchable")), kId + QStringLiteral(".desktop"));
        QVERIFY(!texts.value(QStringLiteral("summary")).isEmpty());
        QCOMPARE(texts.value(QStringLiteral("content_rating")), QStringLiteral("oars-1.1"));
        QCOMPARE(texts.value(QStringLiteral("binary")), QStringLiteral("ringscope"));
        // The newest release is this version: a version bump needs a <release> entry.
        QCOMPARE(release.value(QStringLiteral("version")),
                 QStringLiteral(RINGSCOPE_VERSION_STRING));
        QVERIFY(!release.value(QStringLiteral("date")).isEmpty());
        QStringList media = texts.values(QStringLiteral("mediatype"));
        media.sort();
        QStringList expected = kMimeTypes;
        expected.sort();
        QCOMPARE(media, expected);
        // Screenshots are the README's pictures in docs/images.
        const QStringList images = texts.values(QStringLiteral("image"));
        QVERIFY(images.size() >= 2);
        for (const QString& url : images) {
            QVERIFY2(url.startsWith(QLatin1String("https://")), qPrintable(url));
            const QString name = url.section(QLatin1Char('/'), -1);
            QVERIFY2(QFileInfo::exists(QStringLiteral(RINGSCOPE_SOURCE_DIR "/docs/images/") + name),
                     qPrintable(url));
        }
    }

    void mimeTypesNameTracesOnly_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("type");
        const QByteArray kineto =
            "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\"id\": 0}\n  ],\n"
            "  \"traceEvents\": []\n}\n";
        const QByteArray npu = "[{\"ph\": \"X\", \"name\": \"aten::empty\", \"pid\": 1, \"tid\": "
                               "1, \"ts\": \"1.0\", \"dur\": 1}]\n";
        const QByteArray gz(
            "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00", 20);
        const auto row = [](const char* name, const char* file, const QByteArray& data,
                            const QString& type) {
            QTest::newRow(name) << QString::fromUtf8(file) << data << type;
        };
        row("kineto", "host_1.1736.pt.trace.json", kineto, kMimeTypes[0]);
        row("kineto gzip", "host_1.1736.pt.trace.json.gz", gz, kMimeTypes[1]);
        row("torch_npu", "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", npu,
            kMimeTypes[2]);
        // Content names a Kineto trace saved without an extension.
        row("kineto by magic", "rank3_trace", kineto, kMimeTypes[0]);
        // Not stolen from editors and archivers.
        row("plain json", "settings.json", "{\"a\": 1}\n", QStringLiteral("application/json"));
        row("kineto-like json", "rank0.json", kineto, QStringLiteral("application/json"));
        row("gzip", "logs.json.gz", gz, QStringLiteral("application/gzip"));
        row("other schemaVersion", "manifest", "{\"schemaVersion\": 2, \"mediaType\": \"x\"}\n",
            QLatin1Char('!') + kMimeTypes[0]);
    }

    void mimeTypesNameTracesOnly()
    {
        QFETCH(QString, file);
        QFETCH(QByteArray, content);
        QFETCH(QString, type);
        const QString gio = findTool(QStringLiteral("gio"));
        if (gio.isEmpty() || !QFileInfo::exists(share(QStringLiteral("mime/mime.cache"))))
            QSKIP("gio or update-mime-database is missing: run scripts/deps (libglib2.0-bin, "
                  "shared-mime-info)");
        const QString path = m_work->filePath(QStringLiteral("mime/") + file);
        QVERIFY(writeFile(path, content));
        // A leading '!' means "anything but".
        const bool negate = type.startsWith(QLatin1Char('!'));
        const QString want = negate ? type.mid(1) : type;
        // GIO, as GNOME's file manager resolves a file.
        const auto r = runProcess(gio, {QStringLiteral("info"), QStringLiteral("-a"),
                                        QStringLiteral("standard::content-type"), path});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const auto m =
            QRegularExpression(QStringLiteral("standard::content-type: (\\S+)")).match(r.out);
        QVERIFY2(m.hasMatch(), qPrintable(r.out));
        // Qt, as KDE's file manager and Ringscope's own dialogs resolve it.
        const QString qt = QMimeDatabase().mimeTypeForFile(path).name();
        if (negate) {
            QVERIFY2(m.captured(1) != want, qPrintable(m.captured(1)));
            QVERIFY2(qt != want, qPrintable(qt));
        } else {
            QCOMPARE(m.captured(1), want);
            QCOMPARE(qt, want);
        }
    }

    void mimeTypesInherit()
    {
        if (!QFileInfo::exists(share(QStringLiteral("mime/mime.cache"))))
            QSKIP("update-mime-database is missing: run scripts/deps (shared-mime-info)");
        QMimeDatabase db;
        QVERIFY(db.mimeTypeForName(kMimeTypes[0]).inherits(QStringLiteral("application/json")));
        QVERIFY(db.mimeTypeForName(kMimeTypes[1]).inherits(QStringLiteral("application/gzip")));
        QVERIFY(db.mimeTypeForName(kMimeTypes[2]).inherits(QStringLiteral("application/json")));
        for (const QString& t : kMimeTypes)
            QVERIFY2(!db.mimeTypeForName(t).comment().isEmpty(), qPrintable(t));
    }

    void manPageCoversEveryCommandAndOption()
    {
        const QString source = gunzipText(share(QStringLiteral("man/man1/ringscope.1.gz")));
        QVERIFY(!source.isEmpty());
        QVERIFY(source.contains(QStringLiteral("\"Ringscope " RINGSCOPE_VERSION_STRING "\"")));
        // Well-formed for groff, every warning on.
        if (const QString groff = findTool(QStringLiteral("groff")); !groff.isEmpty()) {
            QProcess p;
            p.start(groff, {QStringLiteral("-man"), QStringLiteral("-Tutf8"), QStringLiteral("-ww"),
                            QStringLiteral("-z")});
            p.write(source.toUtf8());
            p.closeWriteChannel();
            QVERIFY(p.waitForFinished(30000));
            const QString err = QString::fromLocal8Bit(p.readAllStandardError());
            QVERIFY2(p.exitCode() == 0 && err.isEmpty(), qPrintable(err));
        } else {
            qWarning(
                "groff is missing (scripts/deps installs groff-base): the man page is not linted");
        }
        // Sections by subcommand.
        QMap<QString, QString> sections;
        QString current;
        for (const QString& line : source.split(QLatin1Char('\n'))) {
            if (line.startsWith(QLatin1String(".SS ")))
                current = line.mid(4).trimmed();
            else if (line.startsWith(QLatin1String(".SH ")))
                current.clear();
            else if (!current.isEmpty())
                sections[current] += unroff(line) + QLatin1Char('\n');
        }
        // Whatever subcommands the binary has now (others are added over time), each one is
        // documented with every option and argument its --help lists.
        const auto top = runProcess(bin(), {QStringLiteral("--help")}, headlessEnv(), 30000);
        QVERIFY2(top.code == 0, qPrintable(top.describe()));
        const QStringList subs = helpSubcommands(top.out);
        QVERIFY2(subs.contains(QStringLiteral("info")) &&
                     subs.contains(QStringLiteral("analyze")) &&
                     subs.contains(QStringLiteral("export")),
                 qPrintable(top.out));
        static const QRegularExpression longOption(
            QStringLiteral("(?:^|[\\s,\\[])(--[a-z][a-z0-9-]*)"));
        static const QRegularExpression argument(QStringLiteral("^  ([A-Z][A-Z0-9_|.]*)\\s"),
                                                 QRegularExpression::MultilineOption);
        for (const QString& sub : subs) {
            QVERIFY2(sections.contains(sub),
                     qPrintable(QStringLiteral("no .SS %1 in the man page").arg(sub)));
            const auto help =
                runProcess(bin(), {sub, QStringLiteral("--help")}, headlessEnv(), 30000);
            QVERIFY2(help.code == 0, qPrintable(sub + QStringLiteral(": ") + help.describe()));
            const QString& text = sections[sub];
            QVERIFY2(text.contains(QStringLiteral("ringscope ") + sub), qPrintable(sub));
            for (auto it = longOption.globalMatch(help.out); it.hasNext();) {
                const QString opt = it.next().captured(1);
                if (opt == QLatin1String("--help") || opt == QLatin1String("--help-all")) continue;
                QVERIFY2(text.contains(opt),
                         qPrintable(QStringLiteral("%1 %2 is not in the man page").arg(sub, opt)));
            }
            for (auto it = argument.globalMatch(help.out); it.hasNext();) {
                const QString arg = it.next().captured(1);
                QVERIFY2(
                    text.contains(arg),
                    qPrintable(
                        QStringLiteral("%1 argument %2 is not in the man page").arg(sub, arg)));
            }
        }
        for (const QString& documented : sections.keys())
            QVERIFY2(
                subs.contains(documented),
                qPrintable(QStringLiteral("the man page documents %1, which --help does not name")
                               .arg(documented)));
    }

    void desktopLaunchOpensTheFile()
    {
        // What a file manager does with "Open with Ringscope": GIO expands Exec=ringscope %F.
        const QString gio = findTool(QStringLiteral("gio"));
        if (gio.isEmpty()) QSKIP("gio is missing: run scripts/deps (libglib2.0-bin)");
        const QString trace = m_work->filePath(QStringLiteral("launch/two words.pt.trace.json"));
        QVERIFY(QDir().mkpath(QFileInfo(trace).absolutePath()));
        QVERIFY(QFile::copy(
            QStringLiteral(RINGSCOPE_SOURCE_DIR "/resources/samples/sample_rank0.json"), trace));
        const QString config = m_work->filePath(QStringLiteral("launch-config"));
        QProcessEnvironment env = headlessEnv();
        env.insert(QStringLiteral("PATH"), m_prefix->filePath(QStringLiteral("bin")) +
                                               QLatin1Char(':') +
                                               env.value(QStringLiteral("PATH")));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), config);
        env.insert(QStringLiteral("XDG_DATA_HOME"),
                   m_work->filePath(QStringLiteral("launch-data")));
        env.insert(QStringLiteral("XDG_DATA_DIRS"),
                   m_prefix->filePath(QStringLiteral("share")) + QStringLiteral(":/usr/share"));
        // The viewer outlives gio: its output goes to a file, as a desktop's goes to the journal
        // (a pipe closed when gio exits would kill it with SIGPIPE).
        QProcess launch;
        launch.setProcessEnvironment(env);
        launch.setStandardOutputFile(m_work->filePath(QStringLiteral("launch.out")));
        launch.setStandardErrorFile(m_work->filePath(QStringLiteral("launch.out")),
                                    QIODevice::Append);
        launch.start(gio, {QStringLiteral("launch"),
                           share(QStringLiteral("applications/%1.desktop").arg(kId)), trace});
        QVERIFY(launch.waitForFinished(30000));
        QVERIFY2(launch.exitStatus() == QProcess::NormalExit && launch.exitCode() == 0,
                 qPrintable(readText(m_work->filePath(QStringLiteral("launch.out")))));
        // The viewer records an opened trace in its recent files as soon as it is loaded.
        const QString settings = config + QStringLiteral("/Ringscope/Ringscope.conf");
        bool opened = false;
        for (int i = 0; i < 600 && !opened; ++i) {
            QThread::msleep(100);
            opened = QFileInfo::exists(settings) && QSettings(settings, QSettings::IniFormat)
                                                        .value(QStringLiteral("recentFiles"))
                                                        .toStringList()
                                                        .contains(trace);
        }
        QList<qint64> pids = processesOf(bin());
        for (qint64 pid : pids)
            ::kill(static_cast<pid_t>(pid), SIGTERM);
        for (int i = 0; i < 100 && !processesOf(bin()).isEmpty(); ++i)
            QThread::msleep(100);
        for (qint64 pid : processesOf(bin()))
            ::kill(static_cast<pid_t>(pid), SIGKILL);
        QVERIFY2(!pids.isEmpty() || opened, "gio launched no ringscope process");
        QVERIFY2(opened,
                 qPrintable(QStringLiteral(
                                "the launched viewer did not open %1 within 60 s (settings: %2)")
                                .arg(trace, readText(settings))));
    }
};

QTEST_MAIN(TstInstall)
#include "tst_install.moc"
