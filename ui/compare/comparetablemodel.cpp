#include "ui/compare/comparetablemodel.h"

#include "ui/theme/theme.h"

#include <QBrush>
#include <QColor>

#include <cmath>
#include <limits>

namespace rs {

namespace {

QString dur(const std::optional<TimeNs>& v)
{
    return v ? QString::fromStdString(formatDuration(*v)) : QStringLiteral("–");
}

QString signedDur(const std::optional<TimeNs>& v)
{
    if (!v) return QStringLiteral("–");
    return (*v > 0 ? QStringLiteral("+") : QString()) + QString::fromStdString(formatDuration(*v));
}

std::optional<double> pctOf(const CompareRow& r)
{
    const auto d = r.delta();
    if (!d || *r.before == 0) return std::nullopt;
    return 100.0 * double(*d) / double(*r.before);
}

QString countText(const std::optional<qint64>& b, const std::optional<qint64>& a)
{
    if (!b && !a) return {};
    return QStringLiteral("%1 → %2").arg(b ? *b : 0).arg(a ? *a : 0);
}

QVariant sortValue(const std::optional<TimeNs>& v)
{
    return v ? QVariant(qint64(*v)) : QVariant(std::numeric_limits<qint64>::min());
}

const char* kindName(CompareRow::Kind k)
{
    switch (k) {
    case CompareRow::Step:
        return "step";
    case CompareRow::Collective:
        return "collective";
    default:
        return "op";
    }
}

} // namespace

CompareTableModel::CompareTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void CompareTableModel::setComparison(const RunComparison* c)
{
    beginResetModel();
    m_rows.clear();
    if (c) {
        for (const StepDelta& s : c->steps) {
            CompareRow r;
            r.kind = CompareRow::Step;
            r.step = s.step;
            r.name = QStringLiteral("step %1").arg(s.step);
            r.before = s.beforeNs;
            r.after = s.afterNs;
            m_rows.push_back(std::move(r));
        }
        for (const CollectiveDelta& g : c->collectives) {
            CompareRow r;
            r.kind = CompareRow::Collective;
            r.collectiveKind = g.kind;
            r.key = g.pattern;
            r.name = QStringLiteral("%1 %2").arg(QString::fromLatin1(collectiveKindName(g.kind)),
                                                 QString::fromStdString(g.pattern));
            // Paired across producers: the after side's own name for the op.
            if (!g.afterPattern.empty() && g.afterPattern != g.pattern) {
                r.afterKey = g.afterPattern;
                r.name += QStringLiteral(" / ") + QString::fromStdString(g.afterPattern);
            }
            r.before = g.beforeMeanNs;
            r.after = g.afterMeanNs;
            r.beforeCount = g.beforeCount;
            r.afterCount = g.afterCount;
            r.beforeExtra = g.beforeExtraMemcpyNs;
            r.afterExtra = g.afterExtraMemcpyNs;
            m_rows.push_back(std::move(r));
        }
        for (const OpDelta& o : c->ops) {
            if (o.deltaNs() == 0) continue; // unchanged: not a difference
            CompareRow r;
            r.kind = CompareRow::Op;
            r.key = o.name;
            r.name = QString::fromStdString(o.name);
            r.before = o.beforeNs;
            r.after = o.afterNs;
            r.beforeCount = qint64(o.beforeCount);
            r.afterCount = qint64(o.afterCount);
            m_rows.push_back(std::move(r));
        }
    }
    endResetModel();
}

int CompareTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int CompareTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CompareTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size())) return {};
    const CompareRow& r = m_rows[std::size_t(index.row())];
    if (role == KindRole) return int(r.kind);
    const auto pct = pctOf(r);
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case What:
            return QString::fromLatin1(kindName(r.kind));
        case Name:
            return r.name;
        case Before:
            return dur(r.before);
        case After:
            return dur(r.after);
        case Delta:
            return signedDur(r.delta());
        case DeltaPct:
            // A change that rounds to nothing has no sign ("-0.0%" reads as a loss).
            return pct ? QStringLiteral("%1%").arg(std::abs(*pct) < 0.05 ? 0.0 : *pct, 0, 'f', 1)
                       : QStringLiteral("–");
        case Count:
            return countText(r.beforeCount, r.afterCount);
        case ExtraMemcpy:
            return r.kind == CompareRow::Collective
                       ? QStringLiteral("%1 → %2").arg(dur(r.beforeExtra), dur(r.afterExtra))
                       : QString();
        }
    }
    if (role == SortRole) {
        switch (index.column()) {
        case What:
            return int(r.kind);
        case Name:
            return r.name;
        case Before:
            return sortValue(r.before);
        case After:
            return sortValue(r.after);
        case Delta:
            return sortValue(r.delta());
        case DeltaPct:
            return pct ? QVariant(*pct) : QVariant(-std::numeric_limits<double>::infinity());
        case Count:
            return qint64(r.afterCount.value_or(0) - r.beforeCount.value_or(0));
        case ExtraMemcpy:
            return qint64(r.afterExtra.value_or(0) - r.beforeExtra.value_or(0));
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() >= Before)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && (index.column() == Delta || index.column() == DeltaPct)) {
        // Faster is better: green for less time, red for more; within the noise of the
        // measurement neither (runcompare.h, withinNoise).
        const auto d = r.delta();
        if (!d || withinNoise(*d, r.before)) return {};
        if (*d < 0) return QBrush(currentPalette().better);
        if (*d > 0) return QBrush(currentPalette().worse);
    }
    if (role == Qt::ForegroundRole && index.column() == ExtraMemcpy &&
        r.beforeExtra.value_or(0) != r.afterExtra.value_or(0))
        return QBrush(r.afterExtra.value_or(0) < r.beforeExtra.value_or(0)
                          ? currentPalette().better
                          : currentPalette().worse);
    if (role == Qt::ToolTipRole) {
        switch (r.kind) {
        case CompareRow::Step:
            return tr("Step %1: mean device busy window over the ranks (computing + communication "
                      "not overlapped + free). Click to show step %1 in both runs.")
                .arg(r.step);
        case CompareRow::Collective:
            return tr("%1: mean duration over every rank's instances; extra internal memcpy "
                      "summed. Click to select its longest instance in both runs.")
                .arg(r.name);
        case CompareRow::Op:
            return tr("%1\nTotal device time over every rank. Click to select its longest "
                      "instance in both runs.")
                .arg(r.name);
        }
    }
    return {};
}

QVariant CompareTableModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case What:
        return tr("What");
    case Name:
        return tr("Name");
    case Before:
        return tr("Before");
    case After:
        return tr("After");
    case Delta:
        return tr("Delta");
    case DeltaPct:
        return tr("Delta %");
    case Count:
        return tr("Count");
    case ExtraMemcpy:
        return tr("Extra memcpy");
    }
    return {};
}

CompareFilterModel::CompareFilterModel(QObject* parent) : QSortFilterProxyModel(parent)
{
    setSortRole(CompareTableModel::SortRole);
}

void CompareFilterModel::setKind(std::optional<CompareRow::Kind> kind)
{
    m_kind = kind;
    invalidateFilter();
}

void CompareFilterModel::setText(const QString& text)
{
    m_text = text;
    invalidateFilter();
}

bool CompareFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const
{
    const QModelIndex i = sourceModel()->index(sourceRow, CompareTableModel::Name, sourceParent);
    if (m_kind && sourceModel()->data(i, CompareTableModel::KindRole).toInt() != int(*m_kind))
        return false;
    return m_text.isEmpty() ||
           sourceModel()->data(i, Qt::DisplayRole).toString().contains(m_text, Qt::CaseInsensitive);
}

} // namespace rs
