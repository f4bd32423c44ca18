#include "ui/panes/findingspane.h"

#include "core/job/collectivecalls.h"
#include "ui/session/flagged.h"
#include "ui/session/session.h"
#include "ui/theme/theme.h"

#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QStyledItemDelegate>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <map>
#include <string>

namespace rs {

namespace {

// Rows as tall as their wrapped title at the column's width: QTreeView sizes a row for one
// line and the style elides the rest, whatever wordWrap says.
class WrapDelegate : public QStyledItemDelegate {
public:
    explicit WrapDelegate(QTreeWidget* tree) : QStyledItemDelegate(tree), m_tree(tree) {}

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QSize size = QStyledItemDelegate::sizeHint(option, index);
        if (index.column() != FindingsPane::TitleColumn) return size;
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        const int width = textWidth(index);
        const QRect need = opt.fontMetrics.boundingRect(QRect(0, 0, width, 1 << 20),
                                                        Qt::TextWordWrap | Qt::AlignLeft, opt.text);
        size.setHeight(std::max(size.height(), need.height() + 4));
        return size;
    }

    // The title's room in its column: the section less the branch indentation and margins
    // (a group spans the rank column too).
    int textWidth(const QModelIndex& index) const
    {
        int depth = 1;
        for (QModelIndex p = index.parent(); p.isValid(); p = p.parent())
            ++depth;
        int width = m_tree->header()->sectionSize(FindingsPane::TitleColumn);
        if (!index.parent().isValid())
            width += m_tree->header()->sectionSize(FindingsPane::RankColumn);
        return std::max(40, width - m_tree->indentation() * depth - 10);
    }

private:
    QTreeWidget* m_tree;
};

} // namespace

FindingsPane::FindingsPane(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_status = new QLabel(tr("No analysis yet"), this);
    m_status->setWordWrap(true);
    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Finding"), tr("Rank")});
    m_tree->setRootIsDecorated(true);
    // Titles wrap to the column (issue 43.1: the verb is never elided away); their rows grow.
    m_tree->setWordWrap(true);
    m_tree->setUniformRowHeights(false);
    m_tree->setTextElideMode(Qt::ElideNone);
    m_tree->header()->setSectionResizeMode(TitleColumn, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(RankColumn, QHeaderView::ResizeToContents);
    m_tree->header()->setStretchLastSection(false);
    // Sized to the first rows, not to a thousand (the default): a job's thousands of findings
    // made every resize of the columns a 5-10 ms sizing pass on the GUI thread.
    m_tree->header()->setResizeContentsPrecision(64);
    m_tree->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_tree->setItemDelegate(new WrapDelegate(m_tree));
    // A new width, new line breaks: the rows' heights again.
    connect(m_tree->header(), &QHeaderView::sectionResized, this, [this] { fitColumns(); });
    layout->addWidget(m_status);
    layout->addWidget(m_tree, 1);
    connect(m_tree, &QTreeWidget::itemClicked, this, &FindingsPane::activate);
    connect(m_tree, &QTreeWidget::itemActivated, this, &FindingsPane::activate);
    connect(ThemeNotifier::instance(), &ThemeNotifier::changed, this,
            &FindingsPane::updateSeverityColors);
}

void FindingsPane::activate(QTreeWidgetItem* item)
{
    if (!item) return;
    const int index = item->data(0, Qt::UserRole).toInt();
    if (index >= 0) emit findingActivated(index);
}

void FindingsPane::updateSeverityColors()
{
    if (!m_report) return;
    const ThemePalette& pal = currentPalette();
    for (int g = 0; g < m_tree->topLevelItemCount(); ++g) {
        QTreeWidgetItem* group = m_tree->topLevelItem(g);
        const auto s = static_cast<Severity>(group->data(0, Qt::UserRole + 1).toInt());
        if (s == Severity::Error)
            group->setForeground(0, pal.severityError);
        else if (s == Severity::Warning)
            group->setForeground(0, pal.severityWarning);
    }
}

void FindingsPane::fitColumns()
{
    // Wrapped rows take their height from the title column's width: lay them out again (once
    // per pass of the event loop however many resizes came).
    if (m_layoutPending) return;
    m_layoutPending = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_layoutPending = false;
            m_tree->doItemsLayout();
        },
        Qt::QueuedConnection);
}

void FindingsPane::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitColumns();
}

void FindingsPane::setStatus(const QString& text)
{
    m_status->setText(text);
}

int FindingsPane::count() const
{
    int n = 0;
    for (int g = 0; g < m_tree->topLevelItemCount(); ++g)
        n += m_tree->topLevelItem(g)->childCount();
    return n;
}

QTreeWidgetItem* FindingsPane::itemOf(int index) const
{
    for (int g = 0; g < m_tree->topLevelItemCount(); ++g) {
        QTreeWidgetItem* group = m_tree->topLevelItem(g);
        for (int i = 0; i < group->childCount(); ++i)
            if (group->child(i)->data(0, Qt::UserRole).toInt() == index) return group->child(i);
    }
    return nullptr;
}

namespace {

QString rankRanges(std::vector<int> ranks)
{
    // Job-level findings name several ranks: "0-3, 5" stays short for a whole cluster.
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    return QString::fromStdString(rankList(ranks));
}

} // namespace

int FindingsPane::highlightEvent(EventId e)
{
    m_highlightEvent = e;
    const int best = m_report && e != kNone ? flagged::findingOf(*m_report, e) : -1;
    const QSignalBlocker block(m_tree); // a highlight is no activation
    m_tree->clearSelection();
    if (QTreeWidgetItem* item = best >= 0 ? itemOf(best) : nullptr) {
        item->parent()->setExpanded(true);
        m_tree->setCurrentItem(item);
        item->setSelected(true);
        m_tree->scrollToItem(item, QAbstractItemView::EnsureVisible);
    }
    return best;
}

int FindingsPane::highlighted() const
{
    const QList<QTreeWidgetItem*> sel = m_tree->selectedItems();
    return sel.isEmpty() ? -1 : sel.front()->data(0, Qt::UserRole).toInt();
}

void FindingsPane::setReport(ReportPtr report)
{
    m_report = std::move(report);
    m_tree->clear();
    if (!m_report) {
        m_highlightEvent = kNone;
        m_status->setText(tr("No analysis yet"));
        return;
    }
    const auto& fs = m_report->findings;
    // One group per rule, in the order its first finding comes (most severe first), each
    // with the count: the four errors are not lost among twenty lines of one warning.
    std::vector<std::string> rules;
    std::map<std::string, std::vector<std::size_t>> byRule;
    for (std::size_t i = 0; i < fs.size(); ++i) {
        auto& list = byRule[fs[i].rule];
        if (list.empty()) rules.push_back(fs[i].rule);
        list.push_back(i);
    }
    m_status->setText(fs.empty() ? tr("No findings: nothing unusual in the collectives")
                                 : tr("%1 in %2; click one to show its evidence and its fix")
                                       .arg(tr("%n finding(s)", nullptr, int(fs.size())))
                                       .arg(tr("%n rule(s)", nullptr, int(rules.size()))));
    // The first numbered call's finding by time (collective-missing, collective-mismatch of a
    // dump) is the root of a hang: marked, in bold, as the timeline's note on it says. A
    // profiled collective's mismatch has no number: the job ran past it.
    int root = -1;
    for (std::size_t i = 0; i < fs.size(); ++i)
        if ((fs[i].rule == MissingCollective::kRule || fs[i].rule == MismatchedCollective::kRule) &&
            fs[i].seq && (root < 0 || fs[i].start < fs[std::size_t(root)].start))
            root = int(i);
    // The analyzer cannot see that an item made with a parent is owned by it.
    // NOLINTBEGIN(clang-analyzer-cplusplus.NewDeleteLeaks)
    for (const std::string& rule : rules) {
        const auto& list = byRule[rule];
        Severity worst = Severity::Info;
        for (std::size_t i : list)
            worst = std::max(worst, fs[i].severity);
        auto* group = new QTreeWidgetItem(m_tree);
        const QString sev = QString::fromUtf8(severityName(worst));
        group->setText(TitleColumn, QStringLiteral("%1%2 · %3 · %4")
                                        .arg(worst == Severity::Info ? QString() : "! ", sev,
                                             QString::fromStdString(rule))
                                        .arg(list.size()));
        group->setData(0, Qt::UserRole, -1);
        group->setData(0, Qt::UserRole + 1, static_cast<int>(worst));
        QFont bold = group->font(0);
        bold.setBold(true);
        group->setFont(TitleColumn, bold);
        group->setFirstColumnSpanned(true); // the rule and its count over both columns
        for (std::size_t i : list) {
            const Finding& f = fs[i];
            auto* item = new QTreeWidgetItem(group);
            item->setText(TitleColumn, QString::fromStdString(f.title));
            if (f.rank) {
                item->setText(RankColumn, QString::number(*f.rank));
            } else if (!f.ranks.empty()) {
                item->setText(RankColumn, rankRanges(f.ranks));
                item->setToolTip(
                    RankColumn,
                    tr("Job-level finding; ranks involved: %1").arg(rankRanges(f.ranks)));
            } else {
                item->setText(RankColumn, QStringLiteral("—"));
            }
            item->setToolTip(TitleColumn,
                             QString::fromStdString(f.title + (f.recommendation.empty()
                                                                   ? std::string()
                                                                   : "\n" + f.recommendation)));
            item->setData(0, Qt::UserRole, static_cast<int>(i));
            if (int(i) == root) {
                item->setText(TitleColumn, tr("root: %1").arg(item->text(TitleColumn)));
                QFont rootFont = item->font(TitleColumn);
                rootFont.setBold(true);
                item->setFont(TitleColumn, rootFont);
                item->setFont(RankColumn, rootFont);
            }
        }
        // Errors open; a long list of warnings or notes (one per rank, say) stays folded under
        // its count, so the errors are not pushed out of sight. A highlight unfolds its group.
        group->setExpanded(worst == Severity::Error || list.size() <= 3);
    }
    // NOLINTEND(clang-analyzer-cplusplus.NewDeleteLeaks)
    updateSeverityColors();
    fitColumns();
    if (m_highlightEvent != kNone) highlightEvent(m_highlightEvent);
}

void FindingsPane::setSession(Session* session)
{
    connect(session, &Session::traceLoaded, this, [this] { setReport(nullptr); });
    connect(session, &Session::analysisStarted, this,
            [this] { setStatus(tr("Analysing collectives…")); });
    session->followReport(this, [this, session] { setReport(session->report()); });
    connect(session, &Session::analysisFailed, this,
            [this](const QString& error) { setStatus(tr("Analysis failed: %1").arg(error)); });
    // The finding the selected event is evidence of, highlighted (not activated).
    connect(session, &Session::selectionChanged, this, &FindingsPane::highlightEvent);
}

} // namespace rs
