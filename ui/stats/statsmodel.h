#pragma once

// The Statistics tab's table: one row per StatsRow (core/stats/stats.h), durations in human
// units, sorting by the numbers (SortRole), the exact nanoseconds in the tooltips and in the
// TSV / CSV the pane copies and exports.

#include "core/stats/stats.h"

#include <QAbstractTableModel>

namespace rs {

class StatsTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Rank, Name, Count, Total, Mean, Min, Max, Percent, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit StatsTableModel(QObject* parent = nullptr);

    void setTable(StatsTable table);
    const StatsTable& table() const { return m_table; }
    const StatsRow& row(int i) const { return m_table.rows[std::size_t(i)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    // A row as text fields in the column order of `ringscope stats --csv` (ns, not units).
    QStringList exactFields(int row) const;
    QStringList exactHeader() const;

private:
    StatsTable m_table;
};

} // namespace rs
