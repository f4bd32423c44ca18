#pragma once

#include "core/timeconv.h"

#include <QDialog>

#include <vector>

class QTableWidget;

namespace rs {

// A table of rank -> clock offset in µs (editable): what is added to each rank's times to put
// it on the job clock.
class RankOffsetsDialog : public QDialog {
    Q_OBJECT
public:
    RankOffsetsDialog(const std::vector<int>& ranks, const std::vector<TimeNs>& offsets,
                      QWidget* parent = nullptr);

    // Offsets as edited, ns (an unreadable cell keeps its old value).
    std::vector<TimeNs> offsets() const;
    QTableWidget* table() const { return m_table; }
    // Sets one rank's offset cell, in µs (tests and the "Reset" button use it).
    void setOffsetUs(int row, double us);

private:
    QTableWidget* m_table = nullptr;
    std::vector<TimeNs> m_initial;
};

} // namespace rs
