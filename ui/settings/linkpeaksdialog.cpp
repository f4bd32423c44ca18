#include "ui/settings/linkpeaksdialog.h"

#include "ui/theme/theme.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace rs {

namespace {

const char* kKey = "analysis/linkPeaks";

QString numberText(double v)
{
    return QString::number(v, 'g', 6);
}

// What the analysis uses when the entry is empty.
QString defaultText(const QString& name)
{
    const double v = linkPeak(AnalysisOptions{}, name.toStdString());
    if (std::isfinite(v)) return QObject::tr("%1 GB/s (msprof, chip v2.1.0)").arg(numberText(v));
    if (name == QLatin1String("SIO")) return QObject::tr("none (torch_npu defines none)");
    return QObject::tr("by device (Kineto deviceProperties; docs/analysis.md)");
}

} // namespace

namespace linkpeaks {

std::map<std::string, double> load()
{
    std::map<std::string, double> out;
    const QVariantMap m = QSettings().value(QLatin1String(kKey)).toMap();
    for (auto it = m.begin(); it != m.end(); ++it) {
        bool ok = false;
        const double v = it.value().toDouble(&ok);
        if (ok && std::isfinite(v) && v > 0) out[it.key().toStdString()] = v;
    }
    return out;
}

void save(const std::map<std::string, double>& peaks)
{
    QVariantMap m;
    for (const auto& [k, v] : peaks)
        m.insert(QString::fromStdString(k), v);
    QSettings().setValue(QLatin1String(kKey), m);
}

AnalysisOptions analysisOptions()
{
    AnalysisOptions o;
    o.linkPeaks = load();
    return o;
}

} // namespace linkpeaks

const QStringList& LinkPeaksDialog::linkNames()
{
    static const QStringList names = {QStringLiteral("HCCS"),   QStringLiteral("RDMA"),
                                      QStringLiteral("PCIE"),   QStringLiteral("SIO"),
                                      QStringLiteral("NVLink"), QStringLiteral("xGMI"),
                                      QStringLiteral("PCIe"),   QStringLiteral("InfiniBand/RoCE")};
    return names;
}

LinkPeaksDialog::LinkPeaksDialog(const std::map<std::string, double>& peaks, QWidget* parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Link peaks"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(
        tr("The reference bandwidth each link's utilisation is measured against (GB/s per "
           "direction). Empty: the default. Ascend: HCCS, RDMA, PCIE, SIO (e.g. HCCS 28 for chip "
           "v4.1.0); NCCL/RCCL: NVLink, xGMI, PCIe, InfiniBand/RoCE. The analysis runs again "
           "with them."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_table = new QTableWidget(static_cast<int>(linkNames().size()), 3, this);
    m_table->setObjectName(QStringLiteral("linkPeaksTable"));
    m_table->setHorizontalHeaderLabels({tr("Link"), tr("Peak (GB/s)"), tr("Default")});
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    for (int r = 0; r < static_cast<int>(linkNames().size()); ++r) {
        const QString name = linkNames()[r];
        auto* n = new QTableWidgetItem(name);
        n->setFlags(Qt::ItemIsEnabled);
        m_table->setItem(r, 0, n);
        // A stored name matches case-insensitively, as --link-peak does.
        QString value;
        for (const auto& [k, v] : peaks)
            if (QString::fromStdString(k).compare(name, Qt::CaseInsensitive) == 0 &&
                (k == name.toStdString() || value.isEmpty()))
                value = numberText(v);
        m_table->setItem(r, 1, new QTableWidgetItem(value));
        auto* d = new QTableWidgetItem(defaultText(name));
        d->setFlags(Qt::ItemIsEnabled);
        m_table->setItem(r, 2, d);
    }
    layout->addWidget(m_table, 1);
    m_error = new QLabel(this);
    m_error->setStyleSheet(QStringLiteral("color: %1").arg(currentPalette().severityError.name()));
    m_error->setVisible(false);
    layout->addWidget(m_error);
    auto* buttons = new QDialogButtonBox(
        QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &LinkPeaksDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this,
            [this] {
                for (int r = 0; r < m_table->rowCount(); ++r)
                    m_table->item(r, 1)->setText(QString());
            });
    layout->addWidget(buttons);
    resize(640, 380);
}

void LinkPeaksDialog::setPeakText(const QString& name, const QString& text)
{
    const int r = static_cast<int>(linkNames().indexOf(name));
    if (r >= 0) m_table->item(r, 1)->setText(text);
}

bool LinkPeaksDialog::peaks(std::map<std::string, double>* out, QString* error) const
{
    std::map<std::string, double> result;
    for (int r = 0; r < m_table->rowCount(); ++r) {
        const QString text = m_table->item(r, 1)->text().trimmed();
        if (text.isEmpty()) continue;
        bool ok = false;
        const double v = text.toDouble(&ok);
        if (!ok || !std::isfinite(v) || v <= 0) {
            if (error)
                *error = tr("%1: '%2' is not a bandwidth in GB/s (a positive number; empty for "
                            "the default)")
                             .arg(m_table->item(r, 0)->text(), text);
            return false;
        }
        result[m_table->item(r, 0)->text().toStdString()] = v;
    }
    if (out) *out = std::move(result);
    return true;
}

void LinkPeaksDialog::accept()
{
    QString error;
    if (!peaks(nullptr, &error)) {
        m_error->setText(error);
        m_error->setVisible(true);
        return;
    }
    QDialog::accept();
}

} // namespace rs
