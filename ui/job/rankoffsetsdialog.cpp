#include "ui/job/rankoffsetsdialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace rs {

RankOffsetsDialog::RankOffsetsDialog(const std::vector<int>& ranks,
                                     const std::vector<TimeNs>& offsets, QWidget* parent)
    : QDialog(parent), m_initial(offsets)
{
    setWindowTitle(tr("Rank offsets"));
    m_initial.resize(ranks.size(), 0);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Added to each rank's times to put it on the job clock (µs). "
                                    "\"Align ranks on this collective\" sets them for you."),
                                 this));
    m_table = new QTableWidget(static_cast<int>(ranks.size()), 2, this);
    m_table->setHorizontalHeaderLabels({tr("Rank"), tr("Offset (µs)")});
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    for (int i = 0; i < static_cast<int>(ranks.size()); ++i) {
        auto* rank = new QTableWidgetItem(QString::number(ranks[static_cast<std::size_t>(i)]));
        rank->setFlags(rank->flags() & ~Qt::ItemIsEditable);
        m_table->setItem(i, 0, rank);
        m_table->setItem(i, 1, new QTableWidgetItem());
        setOffsetUs(i, double(m_initial[static_cast<std::size_t>(i)]) / 1000.0);
    }
    layout->addWidget(m_table, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    QPushButton* zero = buttons->addButton(tr("All zero"), QDialogButtonBox::ResetRole);
    connect(zero, &QPushButton::clicked, this, [this] {
        for (int i = 0; i < m_table->rowCount(); ++i)
            setOffsetUs(i, 0);
    });
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(360, 120 + 26 * std::min<int>(static_cast<int>(ranks.size()), 16));
}

void RankOffsetsDialog::setOffsetUs(int row, double us)
{
    if (QTableWidgetItem* item = m_table->item(row, 1)) item->setText(QString::number(us, 'f', 3));
}

std::vector<TimeNs> RankOffsetsDialog::offsets() const
{
    std::vector<TimeNs> out = m_initial;
    for (int i = 0; i < m_table->rowCount() && i < static_cast<int>(out.size()); ++i) {
        bool ok = false;
        const double us = m_table->item(i, 1)->text().trimmed().toDouble(&ok);
        if (ok && std::isfinite(us))
            out[static_cast<std::size_t>(i)] = static_cast<TimeNs>(std::llround(us * 1000.0));
    }
    return out;
}

} // namespace rs
