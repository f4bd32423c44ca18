// Build-time tool: writes the ringscope(1) man page from its template and the binary's own help,
// so the page lists every subcommand and option the binary has (new subcommands included, as
// soon as `ringscope --help` names them) and cannot drift from it.
//   Usage: ringscope_genman RINGSCOPE TEMPLATE OUT VERSION DATE
// The template's @VERSION@, @DATE@, @SYNOPSIS@, @COMMANDS@ and @INPUTS@ (what the producers
// read, core/producers/registry.h) are replaced. Subcommands are
// the words after "ringscope " that start the lines of `ringscope --help`; each one's
// `ringscope SUB --help` (QCommandLineParser's layout: "Usage:", description, "Options:",
// "Arguments:") becomes a COMMANDS subsection. A section it does not know is kept verbatim.

#include "core/producers/registry.h"

#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <cstdio>
#include <optional>

namespace {

struct Entry {
    QString names; // "-h, --help", "--max-memory <MiB>", "PATH..."
    QString text;
};

struct Section {
    QString title; // "Options", "Arguments", or another heading
    QList<Entry> entries;
    QStringList verbatim; // lines of a section that is not a list of entries
};

struct Help {
    QString usage;           // after "Usage: "
    QStringList description; // paragraphs
    QList<Section> sections;
};

std::optional<QString> runHelp(const QString& binary, const QStringList& args, QString* error)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // Headless, and an ASan build's leak report must not fail the build.
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("ASAN_OPTIONS"), QStringLiteral("detect_leaks=0"));
    env.insert(QStringLiteral("COLUMNS"), QStringLiteral("100"));
    p.setProcessEnvironment(env);
    p.start(binary, args);
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        *error = QStringLiteral("`%1 %2` failed: %3")
                     .arg(binary, args.join(QLatin1Char(' ')),
                          QString::fromLocal8Bit(p.readAllStandardError()));
        return std::nullopt;
    }
    return QString::fromLocal8Bit(p.readAllStandardOutput());
}

// The subcommands named in the top-level help, in order: "ringscope info PATH..." -> "info".
QStringList subcommands(const QString& help)
{
    static const QRegularExpression re(
        QStringLiteral("^\\s*(?:Usage:\\s*)?ringscope\\s+([a-z][a-z0-9-]*)\\b"),
        QRegularExpression::MultilineOption);
    QStringList out;
    for (auto it = re.globalMatch(help); it.hasNext();) {
        const QString s = it.next().captured(1);
        if (!out.contains(s)) out << s;
    }
    return out;
}

Help parseHelp(const QString& text)
{
    static const QRegularExpression heading(QStringLiteral("^([A-Z][A-Za-z ]*):$"));
    static const QRegularExpression entry(QStringLiteral("^  (\\S.*?)(?:\\s{2,}(\\S.*))?$"));
    Help h;
    Section* section = nullptr;
    QString paragraph;
    const auto flush = [&] {
        if (!paragraph.isEmpty()) h.description << paragraph;
        paragraph.clear();
    };
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1String("Usage:")) && h.usage.isEmpty()) {
            h.usage = line.mid(6).trimmed();
            continue;
        }
        if (const auto m = heading.match(line); m.hasMatch()) {
            flush();
            h.sections.append(Section{m.captured(1), {}, {}});
            section = &h.sections.last();
            continue;
        }
        if (!section) {
            if (line.trimmed().isEmpty())
                flush();
            else
                paragraph +=
                    (paragraph.isEmpty() ? QString() : QStringLiteral(" ")) + line.trimmed();
            continue;
        }
        const bool list = section->title == QLatin1String("Options") ||
                          section->title == QLatin1String("Arguments");
        if (!list) {
            section->verbatim << line;
            continue;
        }
        if (line.trimmed().isEmpty()) continue;
        if (const auto m = entry.match(line); m.hasMatch()) {
            section->entries.append(Entry{m.captured(1).trimmed(), m.captured(2).trimmed()});
        } else if (!section->entries.isEmpty()) { // a wrapped description
            Entry& e = section->entries.last();
            e.text += (e.text.isEmpty() ? QString() : QStringLiteral(" ")) + line.trimmed();
        }
    }
    flush();
    return h;
}

// Text for roff: backslashes escaped, options ("--json", "-h") set with real minus signs so a
// copy from the rendered page runs, and no line starting with a control character.
QString roffText(QString s)
{
    s.replace(QLatin1Char('\\'), QStringLiteral("\\e"));
    static const QRegularExpression option(
        QStringLiteral("(^|[\\s(\\[|,/=])(--?)([A-Za-z][A-Za-z0-9-]*)"));
    QString out;
    qsizetype last = 0;
    for (auto it = option.globalMatch(s); it.hasNext();) {
        const auto m = it.next();
        out += s.mid(last, m.capturedStart(2) - last);
        out += QString(m.captured(2)).replace(QLatin1Char('-'), QStringLiteral("\\-"));
        out += QString(m.captured(3)).replace(QLatin1Char('-'), QStringLiteral("\\-"));
        last = m.capturedEnd(3);
    }
    out += s.mid(last);
    if (out.startsWith(QLatin1Char('.')) || out.startsWith(QLatin1Char('\'')))
        out.prepend(QStringLiteral("\\&"));
    return out;
}

// "--max-memory <MiB>" -> bold option, italic argument; "PATH..." -> italic.
QString roffNames(const QString& names, bool isOption)
{
    if (!isOption) return QStringLiteral("\\fI%1\\fR").arg(roffText(names));
    QStringList parts;
    for (const QString& token : names.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        QString t = token;
        QString comma;
        if (t.endsWith(QLatin1Char(','))) {
            t.chop(1);
            comma = QStringLiteral(",");
        }
        if (t.startsWith(QLatin1Char('-'))) {
            parts << QStringLiteral("\\fB%1\\fR%2")
                         .arg(QString(t).replace(QLatin1Char('-'), QStringLiteral("\\-")), comma);
        } else {
            if (t.startsWith(QLatin1Char('<')) && t.endsWith(QLatin1Char('>')))
                t = t.mid(1, t.size() - 2);
            parts << QStringLiteral("\\fI%1\\fR%2").arg(roffText(t), comma);
        }
    }
    return parts.join(QLatin1Char(' '));
}

bool isHelpOption(const QString& names)
{
    static const QRegularExpression re(QStringLiteral("^(-h, )?--help(-all)?$"));
    return re.match(names).hasMatch();
}

// "ringscope info [options] PATH..." -> bold command words, the rest roman. QCommandLineParser
// writes the program's path and not the subcommand ("Usage: /usr/bin/ringscope [options]
// PATH..."): both are put right.
QString roffUsage(const QString& usage, const QString& sub)
{
    QStringList tokens = usage.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (!tokens.isEmpty() &&
        tokens.first().section(QLatin1Char('/'), -1) == QLatin1String("ringscope"))
        tokens.removeFirst();
    if (!tokens.isEmpty() && tokens.first() == sub) tokens.removeFirst();
    const QString rest =
        tokens.isEmpty() ? QString() : QStringLiteral(" ") + tokens.join(QLatin1Char(' '));
    return QStringLiteral("\\fBringscope %1\\fR%2").arg(sub, roffText(rest));
}

QString commandSection(const QString& sub, const Help& h)
{
    QString out = QStringLiteral(".SS %1\n").arg(sub);
    out += roffUsage(h.usage, sub) + QLatin1Char('\n');
    for (const QString& p : h.description)
        out += QStringLiteral(".PP\n%1\n").arg(roffText(p));
    for (const Section& s : h.sections) {
        const bool options = s.title == QLatin1String("Options");
        if (s.title == QLatin1String("Options") || s.title == QLatin1String("Arguments")) {
            bool any = false;
            for (const Entry& e : s.entries) {
                if (options && isHelpOption(e.names)) continue;
                if (!any) out += QStringLiteral(".PP\n%1:\n").arg(s.title);
                any = true;
                out += QStringLiteral(".TP\n%1\n%2\n")
                           .arg(roffNames(e.names, options), roffText(e.text));
            }
            continue;
        }
        out += QStringLiteral(".PP\n%1:\n.RS\n.nf\n").arg(roffText(s.title));
        for (const QString& l : s.verbatim)
            out += roffText(l) + QLatin1Char('\n');
        out += QStringLiteral(".fi\n.RE\n");
    }
    return out;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 6) {
        std::fprintf(stderr, "usage: ringscope_genman RINGSCOPE TEMPLATE OUT VERSION DATE\n");
        return 2;
    }
    const QString binary = QString::fromLocal8Bit(argv[1]);
    QFile templ(QString::fromLocal8Bit(argv[2]));
    if (!templ.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "ringscope_genman: cannot read %s\n", argv[2]);
        return 1;
    }
    QString page = QString::fromUtf8(templ.readAll());
    QString error;
    const auto top = runHelp(binary, {QStringLiteral("--help")}, &error);
    if (!top) {
        std::fprintf(stderr, "ringscope_genman: %s\n", qPrintable(error));
        return 1;
    }
    const QStringList subs = subcommands(*top);
    if (subs.isEmpty()) {
        std::fprintf(stderr, "ringscope_genman: `ringscope --help` names no subcommand\n");
        return 1;
    }
    QString synopsis;
    QString commands;
    for (const QString& sub : subs) {
        // A subcommand whose --help fails or has no Usage: line still gets its section (from
        // the top-level help) and a warning; tests/tst_install.cpp then fails on it, the build
        // does not.
        const auto text = runHelp(binary, {sub, QStringLiteral("--help")}, &error);
        Help h = text ? parseHelp(*text) : Help{};
        if (!text || h.usage.isEmpty()) {
            std::fprintf(
                stderr, "ringscope_genman: warning: %s\n",
                text ? qPrintable(
                           QStringLiteral("`ringscope %1 --help` has no Usage: line").arg(sub))
                     : qPrintable(error));
            const QRegularExpression line(
                QStringLiteral("^\\s*(?:Usage:\\s*)?(ringscope\\s+%1\\b.*)$")
                    .arg(QRegularExpression::escape(sub)));
            for (const QString& l : top->split(QLatin1Char('\n')))
                if (const auto m = line.match(l); m.hasMatch()) {
                    h.usage = m.captured(1).trimmed();
                    break;
                }
        }
        synopsis += QStringLiteral(".br\n%1\n").arg(roffUsage(h.usage, sub));
        commands += commandSection(sub, h);
    }
    page.replace(QStringLiteral("@VERSION@"), QString::fromLocal8Bit(argv[4]));
    page.replace(QStringLiteral("@DATE@"), QString::fromLocal8Bit(argv[5]));
    page.replace(QStringLiteral("@SYNOPSIS@\n"), synopsis);
    page.replace(QStringLiteral("@COMMANDS@\n"), commands);
    QString inputs =
        QStringLiteral(".TP\na trace\nwhat one of the producers Ringscope knows wrote:\n.RS\n");
    for (const std::string& what : rs::producers::inputDescriptions())
        inputs += QStringLiteral(".IP \\(bu 2\n%1\n").arg(roffText(QString::fromStdString(what)));
    inputs += QStringLiteral(".RE\n");
    page.replace(QStringLiteral("@INPUTS@\n"), inputs);
    QFile out(QString::fromLocal8Bit(argv[3]));
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) || out.write(page.toUtf8()) < 0) {
        std::fprintf(stderr, "ringscope_genman: cannot write %s\n", argv[3]);
        return 1;
    }
    return 0;
}
