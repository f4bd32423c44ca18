#include "ui/stats/statsmodel.h"

#include "core/timeconv.h"

#include <cmath>

namespace rs {

namespace {

QString dur(TimeNs ns)
{
    return QString::fromStdString(formatDuration(ns));
}

} // namespace

StatsTableModel::StatsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void StatsTableModel::setTable(StatsTable table)
{
    beginResetModel();
    m_table = std::move(table);
    endResetModel();
}

int StatsTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_table.rows.size());
}

int StatsTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StatsTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const StatsRow& r = row(index.row());
    const int c = index.column();
    if (role == Qt::TextAlignmentRole)
        return c == Name ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                         : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == SortRole) {
        switch (c) {
        case Rank:
            return r.rank ? *r.rank : -1;
        case Name:
            return QString::fromStdString(r.name);
        case Count:
            return qulonglong(r.count);
        case Total:
            return qlonglong(r.totalNs);
        case Mean:
            return r.meanNs;
        case Min:
            return qlonglong(r.minNs);
        case Max:
            return qlonglong(r.maxNs);
        case Percent:
            return r.percent;
        }
        return {};
    }
    if (role == Qt::ToolTipRole) {
        if (c == Name) return QString::fromStdString(r.name);
        if (c >= Total && c <= Max) {
            const double ns = c == Total  ? double(r.totalNs)
                              : c == Mean ? r.meanNs
                              : c == Min  ? double(r.minNs)
                                          : double(r.maxNs);
            return tr("%L1 ns").arg(ns, 0, 'f', c == Mean ? 1 : 0);
        }
        if (c == Percent)
            return tr("of the %1 busy time in scope (%2)")
                .arg(statsGroupOnDevice(m_table.by) ? tr("device") : tr("host"),
                     dur(m_table.busyNs));
        return {};
    }
    if (role != Qt::DisplayRole) return {};
    switch (c) {
    case Rank:
        return r.rank ? QString::number(*r.rank) : QString();
    case Name:
        // By memcpy a collective's internal copies are listed apart from the ordinary ones.
        return r.internal.value_or(false)
                   ? tr("%1 (in collective)").arg(QString::fromStdString(r.name))
                   : QString::fromStdString(r.name);
    case Count:
        return QString::fromStdString(formatCount(r.count));
    case Total:
        return dur(r.totalNs);
    case Mean:
        return dur(TimeNs(std::llround(r.meanNs)));
    case Min:
        return dur(r.minNs);
    case Max:
        return dur(r.maxNs);
    case Percent:
        return QString::number(r.percent, 'f', 1) + QStringLiteral(" %");
    }
    return {};
}

QVariant StatsTableModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole && section == Total)
        return tr("Inclusive time: a slice nested in another counts in both (docs/stats.md)");
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case Rank:
        return tr("Rank");
    case Name:
        return tr("Name");
    case Count:
        return tr("Count");
    case Total:
        return tr("Total");
    case Mean:
        return tr("Mean");
    case Min:
        return tr("Min");
    case Max:
        return tr("Max");
    case Percent:
        return tr("% busy");
    }
    return {};
}

} // namespace rs
