#include "ui/panes/detailspane.h"

#include "ui/session/session.h"

#include "core/analysis/analyzer.h"
#include "core/analysis/presentation.h"
#include "ui/panes/commbreakdown.h"
#include "ui/session/flagged.h"
#include "ui/widgets/elidedlabel.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QRegularExpression>
#include <QTextDocument>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

namespace rs {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

// A raw value the profiler writes for "none", in words: CANN's enums say INVALID_TYPE (a
// notify's data type, a local task's link), HCCL's ranks 4294967295 (no peer). The raw text
// stays in brackets, for searching the trace.
QString shownValue(const QString& key, const QString& raw)
{
    if (raw == QLatin1String("INVALID_TYPE") || raw == QLatin1String("INVALID"))
        return QStringLiteral("none (%1)").arg(raw);
    if ((raw == QLatin1String("4294967295") || raw == QLatin1String("18446744073709551615")) &&
        key.contains(QLatin1String("rank"), Qt::CaseInsensitive))
        return QStringLiteral("none (%1)").arg(raw);
    return raw;
}

// The analyzer cannot see that a QTreeWidgetItem made with a parent is owned by it.
// NOLINTBEGIN(clang-analyzer-cplusplus.NewDeleteLeaks)
void addJson(QTreeWidgetItem* parent, const QString& key, const nlohmann::json& v)
{
    auto* item = new QTreeWidgetItem(parent, {key});
    if (v.is_object()) {
        for (auto it = v.begin(); it != v.end(); ++it)
            addJson(item, q(it.key()), it.value());
    } else if (v.is_array()) {
        int i = 0;
        for (const auto& x : v)
            addJson(item, QStringLiteral("[%1]").arg(i++), x);
    } else if (v.is_string()) {
        // torch_npu writes call stacks as one string with ";\r\n" between frames.
        QString s = q(v.get<std::string>());
        if (s.contains(QLatin1String(";\r\n")) || s.contains(QLatin1String(";\n"))) {
            const QStringList frames =
                s.split(QRegularExpression(QStringLiteral(";\\r?\\n")), Qt::SkipEmptyParts);
            item->setText(1, QStringLiteral("%1 frames").arg(frames.size()));
            for (const QString& f : frames)
                new QTreeWidgetItem(item, {QString(), f});
        } else {
            item->setText(1, shownValue(key, s));
            if (s.size() > 60) item->setToolTip(1, wrappedToolTip(s));
        }
    } else {
        item->setText(1, shownValue(key, q(v.dump())));
    }
}
// NOLINTEND(clang-analyzer-cplusplus.NewDeleteLeaks)

// Rich text with a break opportunity every 60 visible characters of a run without spaces:
// a wrapped label cannot break a 2,000-character kernel name otherwise.
QString breakLongRuns(const QString& html)
{
    QString out;
    out.reserve(html.size() + html.size() / 40);
    int run = 0;
    bool tag = false, entity = false;
    for (const QChar c : html) {
        out += c;
        if (tag) {
            tag = c != QLatin1Char('>');
            continue;
        }
        if (c == QLatin1Char('<')) {
            tag = true;
            continue;
        }
        if (entity) {
            entity = c != QLatin1Char(';');
            if (entity) continue;
        } else if (c == QLatin1Char('&')) {
            entity = true;
            continue;
        }
        run = c.isSpace() ? 0 : run + 1;
        if (run >= 60) {
            out += QStringLiteral("&#8203;");
            run = 0;
        }
    }
    return out;
}

QString bytesText(std::uint64_t b)
{
    return QLocale(QLocale::English).toString(static_cast<qulonglong>(b)) + QStringLiteral(" B");
}

// One set of copies in docs/comm-health.md's words: tasks, the time some copy runs (copies on
// several planes run at once), bytes.
QString copiesText(int tasks, TimeNs ns, std::uint64_t bytes)
{
    QString t = tasks == 1 ? QStringLiteral("1 task") : QStringLiteral("%1 tasks").arg(tasks);
    t += QStringLiteral(", ") + q(formatDuration(ns));
    if (bytes) t += QStringLiteral(", ") + bytesText(bytes);
    return t;
}

TimeNs unionOf(std::vector<std::pair<TimeNs, TimeNs>> iv)
{
    std::sort(iv.begin(), iv.end());
    TimeNs total = 0, end = std::numeric_limits<TimeNs>::min();
    for (const auto& [a, b] : iv) {
        const TimeNs from = std::max(a, end);
        if (b > from) total += b - from;
        end = std::max(end, b);
    }
    return total;
}

// "Internal memcpy: 10 tasks, 299 ms, 536,936,544 B (within the rank: 3 tasks, 203 ms,
// 302,055,520 B; to peers: 7 tasks, 96.0 ms, 234,881,024 B)": the figures every pane gives.
QString memcpyText(const Collective& c)
{
    QString line =
        QStringLiteral("Internal memcpy: ") + copiesText(c.memcpyCount, c.memcpyNs, c.memcpyBytes);
    int local = 0;
    std::uint64_t localBytes = 0, peerBytes = 0;
    std::vector<std::pair<TimeNs, TimeNs>> localIv, peerIv;
    for (const InternalCopy& cp : c.copies) {
        (cp.local ? localIv : peerIv).emplace_back(cp.start, cp.start + cp.dur);
        (cp.local ? localBytes : peerBytes) += cp.bytes;
        local += cp.local;
    }
    const int peers = int(c.copies.size()) - local;
    if (local > 0 && peers > 0)
        line += QStringLiteral(" (within the rank: %1; to peers: %2)")
                    .arg(copiesText(local, unionOf(localIv), localBytes),
                         copiesText(peers, unionOf(peerIv), peerBytes));
    return line;
}

} // namespace

DetailsPane::DetailsPane(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    // Elided to the pane (the whole name in its tooltip, copyable): a 2,000-character kernel
    // name must not widen the window.
    m_title = new ElidedLabel(this);
    m_title->setObjectName(QStringLiteral("detailsTitle"));
    m_title->setElideMode(Qt::ElideMiddle); // templated names differ at both ends
    QFont f = m_title->font();
    f.setBold(true);
    m_title->setFont(f);
    // The finding first: what is wrong, what to change and where (issue 43.1: the fix in plain
    // sight, not in a tooltip).
    m_findingLabel = new QLabel(this);
    m_findingLabel->setObjectName(QStringLiteral("detailsFinding"));
    m_findingLabel->setWordWrap(true);
    m_findingLabel->setTextFormat(Qt::RichText);
    m_findingLabel->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse |
                                            Qt::LinksAccessibleByKeyboard);
    m_findingLabel->setMinimumWidth(1);
    m_findingLabel->setVisible(false);
    m_findingLabel->setFrameShape(QFrame::StyledPanel);
    m_findingLabel->setMargin(4);
    connect(m_findingLabel, &QLabel::linkActivated, this, [this](const QString& link) {
        if (link.startsWith(QLatin1String("event:")))
            emit eventRequested(static_cast<EventId>(link.mid(6).toULongLong()));
    });
    m_verdict = new QLabel(this);
    m_verdict->setWordWrap(true);
    m_verdict->setTextFormat(Qt::RichText);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse |
                                       Qt::LinksAccessibleByKeyboard);
    m_verdict->setVisible(false);
    // A wrapped label asks for its longest word as its minimum width: not with kernel names.
    m_verdict->setMinimumWidth(1);
    connect(m_verdict, &QLabel::linkActivated, this, [this](const QString& link) {
        if (link.startsWith(QLatin1String("finding:"))) emit findingRequested(link.mid(8).toInt());
    });
    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Field"), tr("Value")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->setUniformRowHeights(true);
    m_tree->setTextElideMode(Qt::ElideMiddle);
    // Values are elided to the column; their tooltip has them whole, Ctrl+C and the context
    // menu copy them.
    m_tree->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto* copyValue = new QAction(tr("Copy value"), m_tree);
    copyValue->setShortcut(QKeySequence::Copy);
    copyValue->setShortcutContext(Qt::WidgetShortcut);
    connect(copyValue, &QAction::triggered, this, [this] {
        if (QTreeWidgetItem* item = m_tree->currentItem())
            QApplication::clipboard()->setText(item->text(1));
    });
    auto* copyAll = new QAction(tr("Copy all details"), m_tree);
    connect(copyAll, &QAction::triggered, this,
            [this] { QApplication::clipboard()->setText(text()); });
    m_tree->addAction(copyValue);
    m_tree->addAction(copyAll);
    layout->addWidget(m_title);
    layout->addWidget(m_findingLabel);
    layout->addWidget(m_verdict);
    m_comm = new CommBreakdown(this);
    m_comm->setObjectName(QStringLiteral("commBreakdown"));
    m_comm->setVisible(false);
    layout->addWidget(m_comm);
    layout->addWidget(m_tree, 1);
    refresh();
}

void DetailsPane::setTrace(TracePtr trace)
{
    m_trace = std::move(trace);
    m_report.reset();
    m_event = kNone;
    m_finding = -1;
    refresh();
}

void DetailsPane::setReport(ReportPtr report)
{
    m_report = std::move(report);
    m_finding = m_report ? flagged::findingOf(*m_report, m_event) : -1;
    refresh();
}

void DetailsPane::setEvent(EventId e)
{
    m_event = e;
    m_finding = m_report ? flagged::findingOf(*m_report, e) : -1;
    refresh();
}

void DetailsPane::setFinding(int index)
{
    m_finding =
        m_report && index >= 0 && std::size_t(index) < m_report->findings.size() ? index : -1;
    refresh();
}

QString DetailsPane::findingHtml(const Trace& trace, const AnalysisReport& report, int index)
{
    if (index < 0 || std::size_t(index) >= report.findings.size()) return {};
    const Finding& f = report.findings[std::size_t(index)];
    auto esc = [](const std::string& s) { return q(s).toHtmlEscaped(); };
    QString html =
        QStringLiteral("<b>%1</b> <span>(%2, %3)</span>")
            .arg(esc(f.title), QString::fromLatin1(severityName(f.severity)), esc(f.rule));
    const std::string source = sourceFrame(f.stack);
    if (!f.recommendation.empty()) {
        // The source frame in bold where the recommendation names it.
        QString fix = esc(f.recommendation);
        if (!source.empty()) {
            const QString src = esc(source);
            fix.replace(src, QStringLiteral("<b>%1</b>").arg(src));
        }
        html += QStringLiteral("<br><b>Fix:</b> ") + fix;
    }
    if (!source.empty())
        html += QStringLiteral("<br><b>Source:</b> <tt>%1</tt> (Call stack tab)").arg(esc(source));
    QStringList evidence;
    constexpr std::size_t kShown = 6;
    for (std::size_t i = 0; i < f.events.size() && i < kShown; ++i) {
        const EventId e = f.events[i];
        // A job finding's events are one rank's ids (eventsRank): shown, not linked, when they
        // are not this trace's.
        if (e >= trace.slices().size()) continue;
        const Slice& s = trace.slice(e);
        QString name = q(trace.str(s.name));
        if (name.size() > 48) name = name.left(47) + QStringLiteral("…");
        evidence << QStringLiteral("<a href=\"event:%1\">%2</a> %3")
                        .arg(e)
                        .arg(name.toHtmlEscaped(), q(formatDuration(s.dur)));
    }
    if (!evidence.isEmpty()) {
        QString line =
            QStringLiteral("<br><b>Evidence:</b> ") + evidence.join(QStringLiteral(", "));
        if (f.events.size() > kShown)
            line += QStringLiteral(" and %1 more").arg(f.events.size() - kShown);
        html += line;
    }
    return html;
}

TimeNs DetailsPane::selfTime(const Trace& trace, EventId e)
{
    const Slice& s = trace.slice(e);
    const Track& track = trace.tracks()[s.track];
    TimeNs children = 0;
    // Children follow their parent in start order and start before its end.
    for (EventId c = e + 1; c < track.end && trace.slice(c).start < s.end(); ++c)
        if (trace.slice(c).parent == e) children += trace.slice(c).dur;
    return std::max<TimeNs>(0, s.dur - children);
}

QString DetailsPane::verdictText(const Trace& trace, const AnalysisReport& report, EventId e)
{
    const Collective* c = report.collectiveOf(e);
    const std::uint8_t marks = report.marks(e);
    QStringList lines;
    if (c && c->event == e) {
        if (!c->verdict.empty()) lines << q(c->verdict);
        QString head = QStringLiteral("%1").arg(collectiveKindName(c->kind));
        if (c->mode)
            head += QStringLiteral(", mode %1").arg(QString::fromStdString(modeLetter(*c->mode)));
        if (c->step) head += QStringLiteral(", step %1").arg(*c->step);
        if (c->rank) head += QStringLiteral(", rank %1").arg(*c->rank);
        lines << head;
        if (c->memcpyCount) lines << memcpyText(*c);
        if (c->signature < report.signatures.size()) {
            const SignatureGroup& sg = report.signatures[c->signature];
            if (c->memcpyNs > sg.baselineMemcpyNs && c->memcpyCount)
                lines << QStringLiteral("Extra memcpy time over the group's baseline: %1")
                             .arg(q(formatDuration(c->memcpyNs - sg.baselineMemcpyNs)));
        }
        if (c->unalignedCount)
            lines << QStringLiteral("Alignment: %1 transfer(s) not aligned (size boundary %2 B, "
                                    "address boundary %3 B)")
                         .arg(c->unalignedCount)
                         .arg(report.options.sizeAlign)
                         .arg(report.options.addrAlign);
        else if (c->memcpyCount)
            lines << QStringLiteral("Alignment: transfers aligned");
        if (!std::isnan(c->algbwGbps))
            lines << QStringLiteral("Bandwidth: algbw %1 GB/s, busbw %2 GB/s")
                         .arg(c->algbwGbps, 0, 'f', 2)
                         .arg(c->busbwGbps, 0, 'f', 2);
        // A recorded call's wait is its verdict (not completed at the dump): no Notify_Wait.
        if (c->waiting && !c->recorded())
            lines << QStringLiteral("Waited %1 for a slower peer (Notify_Wait)")
                         .arg(q(formatDuration(c->waitNs)));
    } else if (c) {
        QString line = QStringLiteral("Task of %1 (%2)")
                           .arg(q(c->name), q(trace.str(trace.slice(c->event).name)));
        if (c->mode)
            line += QStringLiteral(", mode %1").arg(QString::fromStdString(modeLetter(*c->mode)));
        lines << line;
        for (const InternalCopy& cp : c->copies) {
            if (cp.event != e) continue;
            QString copy = cp.extra ? QStringLiteral("Extra internal memcpy (above the baseline)")
                                    : QStringLiteral("Internal memcpy");
            if (cp.bytes) copy += QStringLiteral(", ") + bytesText(cp.bytes);
            if (!cp.transport.empty()) copy += QStringLiteral(", ") + q(cp.transport);
            if (!cp.link.empty()) copy += QStringLiteral(" over ") + q(cp.link);
            lines << copy;
            if (cp.unalignedSize && report.options.sizeAlign)
                lines << QStringLiteral("Size not a multiple of %1 B (remainder %2 B)")
                             .arg(report.options.sizeAlign)
                             .arg(cp.bytes % report.options.sizeAlign);
            if (cp.unalignedAddress) {
                const std::string a = presentation::misalignedAddress(cp, report.options.addrAlign);
                lines << (a.empty() ? QStringLiteral("Address not a multiple of %1 B")
                                          .arg(report.options.addrAlign)
                                    : QStringLiteral("Address not a multiple of %1 B (%2)")
                                          .arg(report.options.addrAlign)
                                          .arg(QString::fromStdString(a)));
            }
        }
    } else if (marks & kMarkInternalMemcpy) {
        lines << QStringLiteral("Internal memcpy of a collective");
    }
    return lines.join('\n');
}

QString DetailsPane::verdictHtml(const QString& verdict, const AnalysisReport& report)
{
    QString html = verdict.toHtmlEscaped();
    // A waiting rank's verdict names the job finding that explains the wait: make it a link.
    for (std::size_t i = 0; i < report.findings.size(); ++i) {
        const QString quoted =
            QStringLiteral("&quot;%1&quot;").arg(q(report.findings[i].title).toHtmlEscaped());
        if (report.findings[i].title.empty() || !html.contains(quoted)) continue;
        html.replace(quoted, QStringLiteral("<a href=\"finding:%1\">%2</a>").arg(i).arg(quoted));
    }
    html.replace(QLatin1Char('\n'), QStringLiteral("<br>"));
    return html;
}

void DetailsPane::refresh()
{
    m_tree->clear();
    const Collective* coll =
        m_report && m_trace && m_event != kNone ? m_report->collectiveOf(m_event) : nullptr;
    m_comm->setCollective(coll && coll->event == m_event ? coll : nullptr);
    m_comm->setVisible(m_comm->hasContent());
    const QString findingBlock =
        m_trace && m_report ? findingHtml(*m_trace, *m_report, m_finding) : QString();
    m_findingLabel->setText(breakLongRuns(findingBlock));
    m_findingLabel->setVisible(!findingBlock.isEmpty());
    {
        QTextDocument doc;
        doc.setHtml(findingBlock);
        m_findingText = findingBlock.isEmpty() ? QString() : doc.toPlainText();
    }
    if (!m_trace || m_event == kNone || m_event >= m_trace->slices().size()) {
        m_title->setText(m_findingText.isEmpty()
                             ? tr("No event selected: click one in the timeline")
                             : tr("Finding"));
        m_verdict->clear();
        m_verdictText.clear();
        m_verdict->setVisible(false);
        return;
    }
    const Trace& trc = *m_trace;
    const Slice& s = trc.slice(m_event);
    const Track& track = trc.tracks()[s.track];
    m_title->setText(q(trc.str(s.name)));
    // The analyzer cannot see that an item made with the tree as parent is owned by it.
    // NOLINTBEGIN(clang-analyzer-cplusplus.NewDeleteLeaks)
    auto add = [&](const QString& k, const QString& v) {
        auto* item = new QTreeWidgetItem(m_tree, {k, v});
        if (v.size() > 60) item->setToolTip(1, wrappedToolTip(v));
    };
    add(tr("Name"), q(trc.str(s.name)));
    add(tr("Category"), s.cat ? q(trc.str(s.cat)) : QStringLiteral("—"));
    add(tr("Process"), q(trc.processLabel(track.process)) + QStringLiteral(" (pid ") +
                           q(trc.processes()[track.process].pid) + QStringLiteral(")"));
    add(tr("Thread"), q(trc.trackLabel(s.track)));
    add(tr("Start"), q(formatDuration(s.start - trc.startNs())) + tr(" from trace start"));
    add(tr("Duration"), q(formatDuration(s.dur)));
    add(tr("Self time"), q(formatDuration(selfTime(trc, m_event))));
    add(tr("Depth"), QString::number(s.depth));
    QString verdict;
    if (m_report) verdict = verdictText(trc, *m_report, m_event);
    if (!verdict.isEmpty()) add(tr("Verdict"), verdict.section('\n', 0, 0));
    m_verdictText = verdict;
    m_verdict->setText(
        breakLongRuns(m_report ? verdictHtml(verdict, *m_report) : verdict.toHtmlEscaped()));
    m_verdict->setVisible(!verdict.isEmpty());
    if (m_comm->hasContent()) {
        auto* comm = new QTreeWidgetItem(m_tree, {tr("Communication")});
        for (const QString& line : m_comm->lines())
            new QTreeWidgetItem(comm, {QString(), line});
        comm->setExpanded(true);
    }
    bool notJson = false;
    const nlohmann::json args = trc.args(m_event, &notJson);
    if (notJson) {
        // Kept by the loader, which checks args for structure only: shown as written.
        const std::string_view argsText = trc.argsText(m_event);
        auto* root = new QTreeWidgetItem(m_tree, {tr("Args"), tr("not valid JSON, as written:")});
        constexpr std::size_t kShown = 4000;
        QString raw =
            QString::fromUtf8(argsText.data(), qsizetype(std::min(argsText.size(), kShown)));
        if (argsText.size() > kShown) raw += QStringLiteral("…");
        new QTreeWidgetItem(root, {QString(), raw});
        root->setExpanded(true);
    } else if (!args.empty()) {
        auto* root = new QTreeWidgetItem(m_tree, {tr("Args")});
        if (args.is_object()) {
            for (auto it = args.begin(); it != args.end(); ++it)
                addJson(root, q(it.key()), it.value());
        } else {
            addJson(root, QString(), args);
        }
        root->setExpanded(true);
    }
    // NOLINTEND(clang-analyzer-cplusplus.NewDeleteLeaks)
}

QString DetailsPane::text() const
{
    QStringList out;
    out << m_title->text();
    if (!m_findingText.isEmpty()) out << m_findingText;
    if (!m_verdictText.isEmpty()) out << m_verdictText;
    std::function<void(QTreeWidgetItem*, int)> walk = [&](QTreeWidgetItem* it, int depth) {
        out << QString(depth * 2, ' ') + it->text(0) + QStringLiteral(": ") + it->text(1);
        for (int i = 0; i < it->childCount(); ++i)
            walk(it->child(i), depth + 1);
    };
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        walk(m_tree->topLevelItem(i), 0);
    return out.join('\n');
}

void DetailsPane::setSession(Session* session)
{
    connect(session, &Session::traceLoaded, this, [this](const TracePtr& t) { setTrace(t); });
    // A job on new offsets keeps its event ids: the shown event stays.
    connect(session, &Session::traceReplaced, this, [this](const TracePtr& t) {
        const EventId e = m_event;
        setTrace(t);
        m_event = e;
    });
    session->followReport(this, [this, session] { setReport(session->report()); });
    connect(session, &Session::selectionChanged, this, &DetailsPane::setEvent);
    connect(this, &DetailsPane::eventRequested, session, &Session::requestSelection);
}

} // namespace rs
