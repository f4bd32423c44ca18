#pragma once

// The Statistics tab's table: one row per StatsRow (core/stats/stats.h), durations in human
// units, sorting by the numbers (SortRole), the exact nanoseconds in the tooltips. The TSV and
// CSV the pane copies and exports are core's statsToCsv (one writer).

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

private:
    StatsTable m_table;
};

} // namespace rs
