#include "ui/panes/searchpane.h"

#include "ui/session/session.h"

#include "ui/widgets/elidedlabel.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace rs {

SearchPane::SearchPane(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* bar = new QHBoxLayout;
    m_input = new QLineEdit(this);
    m_input->setPlaceholderText(
        tr("Search event names (Ctrl+F; Enter next, Shift+Enter previous)"));
    m_input->setClearButtonEnabled(true);
    m_input->installEventFilter(this);
    m_regex = new QCheckBox(tr("Regex"), this);
    auto* prev = new QPushButton(tr("Previous"), this);
    auto* next = new QPushButton(tr("Next"), this);
    m_count = new QLabel(this);
    bar->addWidget(m_input, 1);
    bar->addWidget(m_regex);
    bar->addWidget(prev);
    bar->addWidget(next);
    bar->addWidget(m_count);
    m_list = new QTreeWidget(this);
    m_list->setColumnCount(4);
    m_list->setHeaderLabels({tr("Name"), tr("Track"), tr("Start"), tr("Duration")});
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_list->setTextElideMode(Qt::ElideMiddle); // kernel names differ at both ends
    layout->addLayout(bar);
    layout->addWidget(m_list, 1);
    connect(m_input, &QLineEdit::textChanged, this, [this] { rerun(); });
    connect(m_regex, &QCheckBox::toggled, this, [this] { rerun(); });
    connect(next, &QPushButton::clicked, this, &SearchPane::next);
    connect(prev, &QPushButton::clicked, this, &SearchPane::previous);
    connect(m_list, &QTreeWidget::itemClicked, this,
            [this](QTreeWidgetItem* item) { activate(item->data(0, Qt::UserRole).toInt()); });
    connect(m_list, &QTreeWidget::itemActivated, this,
            [this](QTreeWidgetItem* item) { activate(item->data(0, Qt::UserRole).toInt()); });
}

void SearchPane::setTrace(TracePtr trace)
{
    m_trace = std::move(trace);
    rerun();
}

std::vector<EventId> SearchPane::find(const Trace& trace, const QString& pattern, bool regex,
                                      QString* error)
{
    std::vector<EventId> out;
    if (pattern.isEmpty()) return out;
    // Match each distinct name once, then collect the slices carrying a matching name.
    const StringPool& pool = trace.strings();
    std::vector<char> match(pool.size(), 0);
    QRegularExpression re;
    if (regex) {
        re = QRegularExpression(pattern, QRegularExpression::CaseInsensitiveOption);
        if (!re.isValid()) {
            if (error) *error = re.errorString();
            return out;
        }
    }
    bool any = false;
    for (StrId i = 1; i < pool.size(); ++i) {
        const QString name = QString::fromStdString(pool.str(i));
        match[i] = regex ? re.match(name).hasMatch() : name.contains(pattern, Qt::CaseInsensitive);
        any = any || match[i];
    }
    if (!any) return out;
    const auto slices = trace.slices();
    for (EventId e = 0; e < slices.size(); ++e)
        if (match[slices[e].name]) out.push_back(e);
    std::stable_sort(out.begin(), out.end(),
                     [&](EventId a, EventId b) { return slices[a].start < slices[b].start; });
    return out;
}

int SearchPane::search(const QString& pattern, bool regex)
{
    const QSignalBlocker b1(m_input), b2(m_regex);
    m_input->setText(pattern);
    m_regex->setChecked(regex);
    rerun();
    return static_cast<int>(m_results.size());
}

void SearchPane::rerun()
{
    m_list->clear();
    m_results.clear();
    m_current = -1;
    QString error;
    if (m_trace) m_results = find(*m_trace, m_input->text(), m_regex->isChecked(), &error);
    if (!error.isEmpty())
        m_count->setText(tr("bad regex: %1").arg(error));
    else if (m_input->text().isEmpty())
        m_count->clear();
    else
        m_count->setText(tr("%n match(es)", nullptr, static_cast<int>(m_results.size())));
    const Trace* trc = m_trace.get();
    const std::size_t n = std::min<std::size_t>(m_results.size(), kMaxListed);
    QList<QTreeWidgetItem*> items;
    items.reserve(static_cast<int>(n));
    for (std::size_t i = 0; i < n; ++i) {
        const Slice& s = trc->slice(m_results[i]);
        auto* item = new QTreeWidgetItem(
            {QString::fromStdString(trc->str(s.name)),
             QString::fromStdString(trc->processLabel(trc->tracks()[s.track].process) + " / " +
                                    trc->trackLabel(s.track)),
             QString::fromStdString(formatDuration(s.start - trc->startNs())),
             QString::fromStdString(formatDuration(s.dur))});
        item->setData(0, Qt::UserRole, static_cast<int>(i));
        if (item->text(0).size() > 60) item->setToolTip(0, wrappedToolTip(item->text(0)));
        items << item;
    }
    m_list->addTopLevelItems(items);
    emit resultsChanged(m_results);
}

void SearchPane::activate(int i)
{
    if (i < 0 || i >= static_cast<int>(m_results.size())) return;
    m_current = i;
    if (i < m_list->topLevelItemCount()) {
        const QSignalBlocker block(m_list);
        m_list->setCurrentItem(m_list->topLevelItem(i));
    }
    m_count->setText(tr("%1 of %2").arg(i + 1).arg(m_results.size()));
    emit resultActivated(m_results[static_cast<std::size_t>(i)]);
}

void SearchPane::next()
{
    if (!m_results.empty()) activate((m_current + 1) % static_cast<int>(m_results.size()));
}

void SearchPane::previous()
{
    if (!m_results.empty())
        activate(m_current <= 0 ? static_cast<int>(m_results.size()) - 1 : m_current - 1);
}

void SearchPane::focusInput()
{
    m_input->setFocus(Qt::ShortcutFocusReason);
    m_input->selectAll();
}

bool SearchPane::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_input && event->type() == QEvent::KeyPress) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            if (key->modifiers() & Qt::ShiftModifier)
                previous();
            else
                next();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void SearchPane::setSession(Session* session)
{
    connect(session, &Session::traceLoaded, this, [this](const TracePtr& t) { setTrace(t); });
    connect(session, &Session::traceReplaced, this, [this](const TracePtr& t) { setTrace(t); });
    connect(this, &SearchPane::resultActivated, session, &Session::requestSelection);
}

} // namespace rs
