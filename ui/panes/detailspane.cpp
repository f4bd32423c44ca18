#include "ui/panes/detailspane.h"

#include "ui/session/session.h"

#include "core/analysis/presentation.h"
#include "ui/panes/commbreakdown.h"
#include "ui/widgets/elidedlabel.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QRegularExpression>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>
#include <functional>

namespace rs {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
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
            item->setText(1, s);
            if (s.size() > 60) item->setToolTip(1, wrappedToolTip(s));
        }
    } else {
        item->setText(1, q(v.dump()));
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
    return QLocale::c().toString(static_cast<qulonglong>(b)) + QStringLiteral(" B");
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
    refresh();
}

void DetailsPane::setReport(ReportPtr report)
{
    m_report = std::move(report);
    refresh();
}

void DetailsPane::setEvent(EventId e)
{
    m_event = e;
    refresh();
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
        if (c->memcpyCount)
            lines << QStringLiteral("Internal memcpy: %1 tasks, %2%3")
                         .arg(c->memcpyCount)
                         .arg(q(formatDuration(c->memcpyNs)))
                         .arg(c->memcpyBytes ? QStringLiteral(", ") + bytesText(c->memcpyBytes)
                                             : QString());
        if (c->signature < report.signatures.size()) {
            const SignatureGroup& sg = report.signatures[c->signature];
            if (c->memcpyNs > sg.baselineMemcpyNs && c->memcpyCount)
                lines << QStringLiteral("Extra memcpy time over the group baseline: %1")
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
    if (!m_trace || m_event == kNone || m_event >= m_trace->slices().size()) {
        m_title->setText(tr("No event selected: click one in the timeline"));
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
}

} // namespace rs
