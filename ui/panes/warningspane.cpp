#include "ui/panes/warningspane.h"

#include "ui/session/session.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace rs {

WarningsPane::WarningsPane(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_header = new QLabel(this);
    m_header->setWordWrap(true);
    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(3);
    m_tree->setHeaderLabels({tr("Rank"), tr("Source"), tr("Warning")});
    m_tree->setRootIsDecorated(false);
    m_tree->setWordWrap(true);
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(2, QHeaderView::Stretch);
    m_tree->header()->setStretchLastSection(true);
    layout->addWidget(m_header);
    layout->addWidget(m_tree, 1);
    setEntries({});
}

std::vector<WarningEntry> WarningsPane::entriesOf(const Trace& trace, const AnalysisReport* report,
                                                  const QString& rank)
{
    std::vector<WarningEntry> out;
    const LoadStats& st = trace.stats();
    // The loader's warning names the byte it stopped at; how many events were kept is the
    // other half of what a user needs to judge a cut file.
    const QString kept =
        tr("%1 events kept").arg(QLocale().toString(static_cast<qulonglong>(st.events)));
    bool cutSaid = false;
    for (const std::string& w : trace.warnings()) {
        QString text = QString::fromStdString(w);
        if (st.truncated && !cutSaid && text.contains(QLatin1String("truncated at byte"))) {
            text += QStringLiteral(" (") + kept + QStringLiteral(")");
            cutSaid = true;
        }
        out.push_back({rank, tr("load"), text});
    }
    if (st.truncated && !cutSaid)
        out.insert(out.begin(),
                   {rank, tr("load"),
                    tr("%1: the file is cut; %2").arg(QString::fromStdString(trace.path()), kept)});
    if (report)
        for (const std::string& w : report->warnings)
            out.push_back({rank, tr("analysis"), QString::fromStdString(w)});
    return out;
}

void WarningsPane::setEntries(std::vector<WarningEntry> entries)
{
    m_entries = std::move(entries);
    m_tree->clear();
    for (const WarningEntry& e : m_entries) {
        auto* item = new QTreeWidgetItem(m_tree, {e.rank, e.source, e.text});
        item->setToolTip(2, e.text);
    }
    m_header->setText(m_entries.empty() ? tr("No warnings")
                                        : tr("%n warning(s) while loading and analysing", nullptr,
                                             static_cast<int>(m_entries.size())));
}

QString WarningsPane::text() const
{
    QStringList out;
    out << m_header->text();
    for (const WarningEntry& e : m_entries)
        out << (e.rank.isEmpty() ? QString() : tr("rank %1: ").arg(e.rank)) + e.source +
                   QStringLiteral(": ") + e.text;
    return out.join('\n');
}

void WarningsPane::setSession(Session* session)
{
    const auto update = [this, session] {
        std::vector<WarningEntry> all;
        if (const JobSessionPtr s = session->job()) {
            const JobTrace& job = s->job;
            for (std::size_t b = 0; b < job.rankCount(); ++b) {
                const AnalysisReport* r =
                    b < s->localReports.size() ? s->localReports[b].get() : nullptr;
                auto part = entriesOf(*job.shells[b], r, QString::number(job.rankIds[b]));
                all.insert(all.end(), part.begin(), part.end());
            }
            for (const std::string& e : s->errors)
                all.push_back({QString(), tr("load"), QString::fromStdString(e)});
        } else if (const TracePtr t = session->trace()) {
            all = entriesOf(*t, session->report().get());
        }
        setEntries(std::move(all));
        emit countChanged(static_cast<int>(m_entries.size()));
    };
    connect(session, &Session::traceLoaded, this, update);
    session->followReport(this, update);
}

} // namespace rs
