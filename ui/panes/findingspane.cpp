#include "ui/panes/findingspane.h"

#include "core/job/collectivecalls.h"
#include "ui/session/session.h"

#include "ui/theme/theme.h"

#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace rs {

FindingsPane::FindingsPane(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_status = new QLabel(tr("No analysis yet"), this);
    m_status->setWordWrap(true);
    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(4);
    m_tree->setHeaderLabels({tr("Severity"), tr("Rule"), tr("Rank"), tr("Title")});
    m_tree->setRootIsDecorated(false);
    m_tree->setUniformRowHeights(true);
    // Severity and rank take what they need, the rule at most a quarter of the width; the
    // title gets the rest and is elided there (its tooltip has the whole text), so it is never
    // cut off screen.
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::Interactive);
    m_tree->header()->setSectionResizeMode(3, QHeaderView::Stretch);
    m_tree->header()->setStretchLastSection(true);
    // Sized to the first rows, not to a thousand (the default): a job's thousands of findings
    // made every resize of the columns a 5-10 ms sizing pass on the GUI thread.
    m_tree->header()->setResizeContentsPrecision(64);
    m_tree->setTextElideMode(Qt::ElideRight);
    m_tree->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    layout->addWidget(m_status);
    layout->addWidget(m_tree, 1);
    auto activate = [this](QTreeWidgetItem* item) {
        if (item) emit findingActivated(item->data(0, Qt::UserRole).toInt());
    };
    connect(m_tree, &QTreeWidget::itemClicked, this, activate);
    connect(m_tree, &QTreeWidget::itemActivated, this, activate);
    connect(ThemeNotifier::instance(), &ThemeNotifier::changed, this,
            &FindingsPane::updateSeverityColors);
}

void FindingsPane::updateSeverityColors()
{
    if (!m_report) return;
    const ThemePalette& pal = currentPalette();
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = m_tree->topLevelItem(i);
        const int f = item->data(0, Qt::UserRole).toInt();
        if (f < 0 || f >= static_cast<int>(m_report->findings.size())) continue;
        const Severity s = m_report->findings[static_cast<std::size_t>(f)].severity;
        if (s == Severity::Error)
            item->setForeground(0, pal.severityError);
        else if (s == Severity::Warning)
            item->setForeground(0, pal.severityWarning);
    }
}

void FindingsPane::fitColumns()
{
    int want = m_tree->header()->sectionSizeHint(1);
    const QFontMetrics fm = m_tree->fontMetrics();
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        want = std::max(want, fm.horizontalAdvance(m_tree->topLevelItem(i)->text(1)) + 12);
    m_tree->header()->resizeSection(1,
                                    std::min(want, std::max(60, m_tree->viewport()->width() / 4)));
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
    return m_tree->topLevelItemCount();
}

namespace {

QString rankList(std::vector<int> ranks)
{
    // Job-level findings name several ranks: "0-3, 5" stays short for a whole cluster.
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    QStringList parts;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        parts << (j > i + 1    ? QStringLiteral("%1-%2").arg(ranks[i]).arg(ranks[j])
                  : j == i + 1 ? QStringLiteral("%1, %2").arg(ranks[i]).arg(ranks[j])
                               : QString::number(ranks[i]));
        i = j + 1;
    }
    return parts.join(QStringLiteral(", "));
}

} // namespace

int FindingsPane::highlightEvent(EventId e)
{
    m_highlightEvent = e;
    int best = -1;
    if (m_report && e != kNone) {
        // The job's finding about this instance first (it names the cause, as the waiting
        // op's verdict does), then the finding the event is the main evidence of, then any.
        const auto& fs = m_report->findings;
        auto has = [&](const Finding& f) {
            return std::find(f.events.begin(), f.events.end(), e) != f.events.end();
        };
        for (std::size_t i = 0; i < fs.size() && best < 0; ++i)
            if (fs[i].rule.rfind("job-", 0) == 0 && has(fs[i])) best = int(i);
        for (std::size_t i = 0; i < fs.size() && best < 0; ++i)
            if (!fs[i].events.empty() && fs[i].events.front() == e) best = int(i);
        for (std::size_t i = 0; i < fs.size() && best < 0; ++i)
            if (has(fs[i])) best = int(i);
    }
    const QSignalBlocker block(m_tree); // a highlight is no activation
    m_tree->clearSelection();
    for (int row = 0; row < m_tree->topLevelItemCount() && best >= 0; ++row) {
        QTreeWidgetItem* item = m_tree->topLevelItem(row);
        if (item->data(0, Qt::UserRole).toInt() != best) continue;
        m_tree->setCurrentItem(item);
        item->setSelected(true);
        m_tree->scrollToItem(item, QAbstractItemView::EnsureVisible);
        break;
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
    m_status->setText(fs.empty() ? tr("No findings: nothing unusual in the collectives")
                                 : tr("%n finding(s); click one to show its evidence", nullptr,
                                      static_cast<int>(fs.size())));
    // The first call finding by time (collective-missing, collective-mismatch) is the root of
    // a hang: marked, in bold, as the timeline's note on it says.
    int root = -1;
    for (std::size_t i = 0; i < fs.size(); ++i)
        if ((fs[i].rule == MissingCollective::kRule || fs[i].rule == MismatchedCollective::kRule) &&
            (root < 0 || fs[i].start < fs[std::size_t(root)].start))
            root = int(i);
    for (std::size_t i = 0; i < fs.size(); ++i) {
        const Finding& f = fs[i];
        auto* item = new QTreeWidgetItem(m_tree);
        const QString sev = QString::fromUtf8(severityName(f.severity));
        item->setText(0, f.severity == Severity::Info ? sev : QStringLiteral("! ") + sev);
        if (int(i) == root) {
            item->setText(0, item->text(0) + tr(" \u00b7 root"));
            QFont bold = item->font(3);
            bold.setBold(true);
            for (int c = 0; c < 4; ++c)
                item->setFont(c, bold);
        }
        item->setText(1, QString::fromStdString(f.rule));
        item->setToolTip(1, item->text(1));
        if (f.rank) {
            item->setText(2, QString::number(*f.rank));
        } else if (!f.ranks.empty()) {
            item->setText(2, rankList(f.ranks));
            item->setToolTip(2, tr("Job-level finding; ranks involved: %1").arg(item->text(2)));
        } else {
            item->setText(2, QStringLiteral("—"));
        }
        item->setText(3, QString::fromStdString(f.title));
        item->setToolTip(
            3, QString::fromStdString(
                   f.title + (f.recommendation.empty() ? std::string() : "\n" + f.recommendation)));
        item->setData(0, Qt::UserRole, static_cast<int>(i));
    }
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
}

} // namespace rs
