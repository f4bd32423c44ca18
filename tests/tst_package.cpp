// The Debian package: `cpack -G DEB` of this build (what scripts/package runs), checked with
// dpkg-deb as a user or a repository would: control fields, Depends naming the package of every
// shared library the binary needs (Qt 6, QCustomPlot), no maintainer scripts, the install tree
// under /usr, and a binary that runs from the unpacked package.
#include "tests/support/processrun.h"
#include "tests/testutil.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace rs;
using rs::test::findTool;
using rs::test::runProcess;

namespace {

// "Depends: a (>= 1), b | c" -> {a, b, c}
QStringList packageNames(const QString& field)
{
    QStringList names;
    for (const QString& alt :
         field.split(QRegularExpression(QStringLiteral("[,|]")), Qt::SkipEmptyParts)) {
        const QString name =
            alt.trimmed().section(QLatin1Char(' '), 0, 0).section(QLatin1Char(':'), 0, 0);
        if (!name.isEmpty()) names << name;
    }
    return names;
}

QString controlField(const QString& info, const QString& field)
{
    const auto m = QRegularExpression(QStringLiteral("^ %1: (.*)$").arg(field),
                                      QRegularExpression::MultilineOption)
                       .match(info);
    return m.hasMatch() ? m.captured(1).trimmed() : QString();
}

} // namespace

class TstPackage : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_deb;
    QString m_info;

private slots:
    void initTestCase()
    {
#if defined(__SANITIZE_ADDRESS__)
        QSKIP("packaging is checked by the Release run; the sanitizer run skips it");
#endif
        for (const char* tool : {"dpkg-deb", "dpkg-shlibdeps", "file"})
            if (findTool(QString::fromLatin1(tool)).isEmpty())
                QSKIP(qPrintable(QStringLiteral("%1 is missing: run scripts/deps (dpkg-dev, file)")
                                     .arg(QString::fromLatin1(tool))));
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        const auto r =
            runProcess(QStringLiteral(RINGSCOPE_CPACK_COMMAND),
                       {QStringLiteral("-G"), QStringLiteral("DEB"), QStringLiteral("--config"),
                        test::binaryDir() + QStringLiteral("/CPackConfig.cmake"),
                        QStringLiteral("-B"), m_dir->path()},
                       QProcessEnvironment::systemEnvironment(), 300000, test::binaryDir());
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        const auto arch =
            runProcess(QStringLiteral("dpkg"), {QStringLiteral("--print-architecture")});
        QVERIFY2(arch.code == 0, qPrintable(arch.describe()));
        m_deb = m_dir->filePath(QStringLiteral("ringscope_" RINGSCOPE_VERSION_STRING "-1_%1.deb")
                                    .arg(arch.out.trimmed()));
        QVERIFY2(QFileInfo(m_deb).isFile(),
                 qPrintable(QDir(m_dir->path()).entryList().join(QLatin1Char(' '))));
        const auto info = runProcess(QStringLiteral("dpkg-deb"), {QStringLiteral("-I"), m_deb});
        QVERIFY2(info.code == 0, qPrintable(info.describe()));
        m_info = info.out;
    }

    void controlFields()
    {
        QCOMPARE(controlField(m_info, QStringLiteral("Package")), QStringLiteral("ringscope"));
        QCOMPARE(controlField(m_info, QStringLiteral("Version")),
                 QStringLiteral(RINGSCOPE_VERSION_STRING "-1"));
        QVERIFY(!controlField(m_info, QStringLiteral("Maintainer")).isEmpty());
        QVERIFY(!controlField(m_info, QStringLiteral("Description")).isEmpty());
        QCOMPARE(controlField(m_info, QStringLiteral("Section")), QStringLiteral("devel"));
        // No maintainer scripts: dpkg triggers refresh the MIME, desktop and icon databases.
        QStringList members;
        static const QRegularExpression member(
            QStringLiteral("^\\s+\\d+ bytes,\\s+\\d+ lines\\s+(?:\\*\\s+)?(\\S+)"),
            QRegularExpression::MultilineOption);
        for (auto it = member.globalMatch(m_info); it.hasNext();)
            members << it.next().captured(1);
        QVERIFY2(members.contains(QStringLiteral("control")), qPrintable(m_info));
        for (const QString& m : members)
            QVERIFY2(m == QLatin1String("control") || m == QLatin1String("md5sums"),
                     qPrintable(m_info));
    }

    void dependsNamesEveryLinkedLibrary()
    {
        const QStringList depends = packageNames(controlField(m_info, QStringLiteral("Depends")));
        QVERIFY2(!depends.isEmpty(), qPrintable(m_info));
        QVERIFY2(depends.contains(QStringLiteral("libqt6widgets6")),
                 qPrintable(depends.join(QLatin1Char(' '))));
        QVERIFY2(depends.filter(QStringLiteral("qcustomplot")).size() == 1,
                 qPrintable(depends.join(QLatin1Char(' '))));
        // torch_npu's database export is read through libsqlite3.
        QVERIFY2(depends.contains(QStringLiteral("libsqlite3-0")),
                 qPrintable(depends.join(QLatin1Char(' '))));
        // Independently of dpkg-shlibdeps: the package owning each NEEDED library is a Depends.
        const QString exe = QStringLiteral(RINGSCOPE_BINARY_DIR "/app/ringscope");
        const auto needed = runProcess(QStringLiteral("objdump"), {QStringLiteral("-p"), exe});
        if (needed.code != 0) QSKIP("objdump is missing (binutils)");
        const auto ldd = runProcess(QStringLiteral("ldd"), {exe});
        QVERIFY2(ldd.code == 0, qPrintable(ldd.describe()));
        for (auto it =
                 QRegularExpression(QStringLiteral("NEEDED\\s+(\\S+)")).globalMatch(needed.out);
             it.hasNext();) {
            const QString soname = it.next().captured(1);
            // "libz.so.1 => /lib/.../libz.so.1 (0x...)"; the dynamic loader, which a binary
            // needs once it uses thread_local storage from a library, is listed by its path:
            // "/lib64/ld-linux-x86-64.so.2 (0x...)".
            auto m =
                QRegularExpression(
                    QStringLiteral("^\\s*%1 => (\\S+)").arg(QRegularExpression::escape(soname)),
                    QRegularExpression::MultilineOption)
                    .match(ldd.out);
            if (!m.hasMatch())
                m = QRegularExpression(QStringLiteral("^\\s*(/\\S*/%1) \\(")
                                           .arg(QRegularExpression::escape(soname)),
                                       QRegularExpression::MultilineOption)
                        .match(ldd.out);
            QVERIFY2(m.hasMatch(), qPrintable(soname));
            // dpkg knows a library by the path its package ships (/lib or /usr/lib: usrmerge).
            const QString real = QFileInfo(m.captured(1)).canonicalFilePath();
            QStringList candidates = {m.captured(1), real};
            for (const QString& c : QStringList(candidates))
                if (c.startsWith(QLatin1String("/usr/"))) candidates << c.mid(4);
            test::ProcessRun owner;
            for (const QString& c : candidates)
                if ((owner = runProcess(QStringLiteral("dpkg"), {QStringLiteral("-S"), c})).code ==
                    0)
                    break;
            QVERIFY2(owner.code == 0, qPrintable(soname + QStringLiteral(": ") + owner.describe()));
            const QString package = owner.out.section(QLatin1Char(':'), 0, 0).trimmed();
            QVERIFY2(depends.contains(package),
                     qPrintable(QStringLiteral("%1 (%2) is not in Depends: %3")
                                    .arg(package, soname, depends.join(QStringLiteral(", ")))));
        }
    }

    void contentsIsTheInstallTreeUnderUsr()
    {
        const auto list = runProcess(QStringLiteral("dpkg-deb"), {QStringLiteral("-c"), m_deb});
        QVERIFY2(list.code == 0, qPrintable(list.describe()));
        QStringList paths;
        for (const QString& line : list.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            const QString path = line.section(QLatin1Char(' '), -1);
            QVERIFY2(path == QLatin1String("./") || path.startsWith(QLatin1String("./usr/")),
                     qPrintable(line));
            QVERIFY2(line.contains(QLatin1String("root/root")), qPrintable(line));
            paths << path;
        }
        const QString id = QStringLiteral("io.github.ringscope.Ringscope");
        for (const QString& want :
             {QStringLiteral("./usr/bin/ringscope"),
              QStringLiteral("./usr/share/applications/%1.desktop").arg(id),
              QStringLiteral("./usr/share/metainfo/%1.metainfo.xml").arg(id),
              QStringLiteral("./usr/share/mime/packages/%1.xml").arg(id),
              QStringLiteral("./usr/share/icons/hicolor/scalable/apps/%1.svg").arg(id),
              QStringLiteral("./usr/share/icons/hicolor/48x48/apps/%1.png").arg(id),
              QStringLiteral("./usr/share/man/man1/ringscope.1.gz"),
              QStringLiteral("./usr/share/doc/ringscope/README.md")})
            QVERIFY2(paths.contains(want), qPrintable(want));
        // Databases are built on the target by triggers, never shipped.
        QVERIFY(paths.filter(QStringLiteral("mime.cache")).isEmpty());
        QVERIFY(paths.filter(QStringLiteral("icon-theme.cache")).isEmpty());
    }

    void unpackedBinaryRuns()
    {
        const QString root = m_dir->filePath(QStringLiteral("root"));
        const auto x = runProcess(QStringLiteral("dpkg-deb"), {QStringLiteral("-x"), m_deb, root});
        QVERIFY2(x.code == 0, qPrintable(x.describe()));
        const auto v =
            runProcess(root + QStringLiteral("/usr/bin/ringscope"), {QStringLiteral("--version")});
        QVERIFY2(v.code == 0, qPrintable(v.describe()));
        QCOMPARE(v.out.trimmed(), QStringLiteral("ringscope " RINGSCOPE_VERSION_STRING));
        const auto file =
            runProcess(QStringLiteral("file"), {root + QStringLiteral("/usr/bin/ringscope")});
        QVERIFY2(file.out.contains(QLatin1String("stripped")) &&
                     !file.out.contains(QLatin1String("not stripped")),
                 qPrintable(file.out));
    }

    void dependenciesResolveWithApt()
    {
        // What `apt install ./ringscope.deb` would do, simulated: no lock, nothing changed.
        const QString apt = findTool(QStringLiteral("apt-get"));
        if (apt.isEmpty()) QSKIP("apt-get is missing");
        const auto policy =
            runProcess(QStringLiteral("apt-cache"),
                       {QStringLiteral("policy"), QStringLiteral("libqt6widgets6")});
        if (!policy.out.contains(QLatin1String("Candidate:")) ||
            policy.out.contains(QLatin1String("Candidate: (none)")))
            QSKIP("apt has no package lists (run apt-get update): cannot resolve the dependencies");
        const auto r = runProcess(apt, {QStringLiteral("install"), QStringLiteral("-s"),
                                        QStringLiteral("--no-install-recommends"), m_deb});
        QVERIFY2(r.code == 0, qPrintable(r.describe()));
        QVERIFY2(r.out.contains(QRegularExpression(QStringLiteral("^Inst ringscope "),
                                                   QRegularExpression::MultilineOption)) ||
                     r.out.contains(QLatin1String("ringscope is already the newest")),
                 qPrintable(r.out));
    }
};

QTEST_MAIN(TstPackage)
#include "tst_package.moc"
