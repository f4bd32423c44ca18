#include "ui/panes/callstackpane.h"

#include "ui/session/session.h"

#include "core/analysis/analyzer.h"
#include "ui/session/flagged.h"
#include "ui/theme/theme.h"
#include "ui/widgets/elidedlabel.h"

#include <QHeaderView>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <unordered_set>

namespace rs {

CallStackPane::CallStackPane(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_header = new ElidedLabel(this);
    m_header->setObjectName(QStringLiteral("callStackHeader"));
    m_header->setElideMode(Qt::ElideMiddle); // the frame count at the end stays
    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(3);
    m_tree->setHeaderLabels({tr("#"), tr("Frame"), tr("Kind")});
    m_tree->setRootIsDecorated(false);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_tree->header()->setStretchLastSection(false);
    layout->addWidget(m_header);
    layout->addWidget(m_tree, 1);
    auto activate = [this](QTreeWidgetItem* item) {
        const int i = item ? item->data(0, Qt::UserRole).toInt() : -1;
        if (i < 0 || i >= static_cast<int>(m_entries.size())) return;
        const EventId e = m_entries[static_cast<std::size_t>(i)].event;
        if (e == kNone || e == m_pending) return; // clicked and activated both fire
        // The window answers by selecting the frame, which rebuilds this pane at once (never
        // showing the previous chain): ask once the tree has finished with the click, since the
        // rebuild deletes the clicked item.
        m_pending = e;
        QTimer::singleShot(0, this, [this] {
            const EventId target = m_pending;
            m_pending = kNone;
            if (target != kNone) emit frameActivated(target);
        });
    };
    connect(m_tree, &QTreeWidget::itemClicked, this, activate);
    connect(m_tree, &QTreeWidget::itemActivated, this, activate);
    m_provider = [](const Trace& t, EventId e) { return basicChain(t, e); };
    refresh();
}

void CallStackPane::setProvider(Provider provider)
{
    m_provider = std::move(provider);
    refresh();
}

void CallStackPane::setReport(ReportPtr report)
{
    m_report = std::move(report);
    refresh();
}

void CallStackPane::setTrace(TracePtr trace)
{
    m_trace = std::move(trace);
    m_report.reset();
    m_event = kNone;
    m_pending = kNone;
    refresh();
}

void CallStackPane::setEvent(EventId e)
{
    if (e == m_event) return;
    m_event = e;
    refresh();
}

std::vector<StackEntry> CallStackPane::basicChain(const Trace& trace, EventId e,
                                                  std::size_t maxDepth)
{
    std::vector<StackEntry> out;
    std::unordered_set<EventId> seen;
    EventId cur = e;
    const char* kind = "slice";
    while (cur != kNone && out.size() < maxDepth && seen.insert(cur).second) {
        // The event (or a flow source) and its enclosing slices...
        std::size_t segment = out.size();
        for (EventId s = cur; s != kNone && out.size() < maxDepth; s = trace.slice(s).parent) {
            seen.insert(s);
            out.push_back({trace.str(trace.slice(s).name), s, s == cur ? kind : "slice"});
        }
        // ...then whatever launched one of them through a flow, outermost first.
        cur = kNone;
        for (std::size_t i = out.size(); i-- > segment && cur == kNone;)
            for (std::uint32_t f : trace.flowsTo(out[i].event)) {
                const EventId from = trace.flows()[f].from;
                if (from != kNone && !seen.count(from)) {
                    cur = from;
                    break;
                }
            }
        kind = "flow";
    }
    return out;
}

void CallStackPane::refresh()
{
    m_tree->clear();
    m_entries.clear();
    m_marked = -1;
    m_markText.clear();
    if (!m_trace || m_event == kNone || m_event >= m_trace->slices().size()) {
        m_header->setText(tr("No event selected"));
        return;
    }
    m_entries = m_provider ? m_provider(*m_trace, m_event) : basicChain(*m_trace, m_event);
    // A ProfilerStep slice encloses the op but is no frame of its call: named in the header.
    QString step;
    const auto notFrame = [&](const StackEntry& s) {
        if (s.event == m_event || s.event >= m_trace->slices().size() ||
            m_trace->kind(s.event) != SliceKind::Step)
            return false;
        if (step.isEmpty()) step = QString::fromStdString(s.text);
        return true;
    };
    m_entries.erase(std::remove_if(m_entries.begin(), m_entries.end(), notFrame), m_entries.end());
    QString header = tr("%1 — %2 frames, innermost first")
                         .arg(QString::fromStdString(m_trace->str(m_trace->slice(m_event).name)))
                         .arg(m_entries.size());
    if (!step.isEmpty()) header += tr(" · in %1").arg(step);
    m_header->setText(header);
    // The frame to change, as the event's finding names it (its source frame).
    std::string source;
    if (m_report)
        if (const int f = flagged::findingOf(*m_report, m_event); f >= 0) {
            const Finding& finding = m_report->findings[std::size_t(f)];
            source = sourceFrame(finding.stack);
            m_markText = flagged::fixMark(finding);
            if (m_markText.isEmpty()) m_markText = tr("source");
        }
    QTreeWidgetItem* marked = nullptr;
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        const StackEntry& s = m_entries[i];
        auto* item =
            new QTreeWidgetItem(m_tree, {QString::number(i), QString::fromStdString(s.text),
                                         QString::fromStdString(s.kind)});
        item->setData(0, Qt::UserRole, static_cast<int>(i));
        item->setToolTip(1, QString::fromStdString(s.text));
        if (!marked && !source.empty() && s.text == source) {
            marked = item;
            m_marked = static_cast<int>(i);
            item->setText(1, item->text(1) + QStringLiteral("   ← ") + m_markText);
            QFont f = item->font(1);
            f.setBold(true);
            item->setFont(1, f);
            const ThemePalette& pal = currentPalette();
            for (int c = 0; c < 3; ++c) {
                item->setBackground(c, pal.frameBand);
                item->setForeground(c, pal.frameText);
            }
        } else if (s.event == kNone) {
            item->setForeground(1, palette().color(QPalette::PlaceholderText));
        } else if (s.event == m_event) {
            QFont f = item->font(1);
            f.setBold(true);
            item->setFont(1, f);
        }
    }
    if (marked) {
        m_tree->setCurrentItem(marked);
        m_tree->scrollToItem(marked, QAbstractItemView::PositionAtCenter);
    }
}

QString CallStackPane::text() const
{
    QStringList out;
    out << m_header->text();
    for (std::size_t i = 0; i < m_entries.size(); ++i) {
        const StackEntry& s = m_entries[i];
        out << QString::fromStdString(s.text) + QStringLiteral(" [") +
                   QString::fromStdString(s.kind) + QStringLiteral("]") +
                   (int(i) == m_marked ? QStringLiteral("   ← ") + m_markText : QString());
    }
    return out.join('\n');
}

void CallStackPane::setSession(Session* session)
{
    connect(session, &Session::traceLoaded, this, [this](const TracePtr& t) { setTrace(t); });
    // A job on new offsets keeps its event ids: the shown event stays.
    connect(session, &Session::traceReplaced, this, [this](const TracePtr& t) {
        const EventId e = m_event;
        setTrace(t);
        setEvent(e);
    });
    session->followReport(this, [this, session] { setReport(session->report()); });
    connect(session, &Session::selectionChanged, this, &CallStackPane::setEvent);
    connect(this, &CallStackPane::frameActivated, session, &Session::requestSelection);
}

} // namespace rs
