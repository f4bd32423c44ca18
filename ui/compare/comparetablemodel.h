#pragma once

// The diff table of the compare window: one row per step, per collective group (kind and name
// pattern) and per op whose device time changed, with before, after and delta. Sorting is by
// the numbers (SortRole), not the text; a missing side sorts lowest.

#include "core/compare/runcompare.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <optional>
#include <vector>

namespace rs {

struct CompareRow {
    enum Kind { Step, Collective, Op };
    Kind kind = Step;
    QString name;
    int step = 0;                                          // Step
    CollectiveKind collectiveKind = CollectiveKind::Other; // Collective
    std::string key;                                       // Collective: pattern; Op: op name
    std::string afterKey; // Collective paired across producers: the after side's pattern
    std::optional<TimeNs> before, after; // step mean, collective mean, op total
    std::optional<qint64> beforeCount, afterCount;
    std::optional<TimeNs> beforeExtra, afterExtra; // extra internal memcpy (collectives)
    std::optional<TimeNs> delta() const
    {
        return before && after ? std::optional<TimeNs>(*after - *before) : std::nullopt;
    }
};

class CompareTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { What, Name, Before, After, Delta, DeltaPct, Count, ExtraMemcpy, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int KindRole = Qt::UserRole + 2;

    explicit CompareTableModel(QObject* parent = nullptr);

    // Steps, every collective group, and the ops whose time changed (all of them: the table
    // is sortable, the JSON lists the largest).
    void setComparison(const RunComparison* c);
    const std::vector<CompareRow>& rows() const { return m_rows; }
    const CompareRow& row(int i) const { return m_rows[std::size_t(i)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    std::vector<CompareRow> m_rows;
};

// Rows of one kind (or all) whose name contains a text.
class CompareFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit CompareFilterModel(QObject* parent = nullptr);
    void setKind(std::optional<CompareRow::Kind> kind);
    void setText(const QString& text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    std::optional<CompareRow::Kind> m_kind;
    QString m_text;
};

} // namespace rs
