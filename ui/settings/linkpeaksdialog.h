#pragma once

// Link peaks in the viewer's settings: the reference bandwidth of each link the utilisation is
// measured against (AnalysisOptions::linkPeaks, as `--link-peak NAME=GBPS` on the command
// line). Stored with QSettings; an empty entry keeps the analysis' default (docs/analysis.md).

#include "core/analysis/report.h"

#include <QDialog>

#include <map>
#include <string>

class QLabel;
class QTableWidget;

namespace rs {

namespace linkpeaks {
// The peaks the user set (GB/s by link name), from QSettings ("analysis/linkPeaks").
std::map<std::string, double> load();
void save(const std::map<std::string, double>& peaks);
// The analysis options the viewer runs with: the defaults plus the stored peaks.
AnalysisOptions analysisOptions();
} // namespace linkpeaks

class LinkPeaksDialog : public QDialog {
    Q_OBJECT
public:
    explicit LinkPeaksDialog(const std::map<std::string, double>& peaks, QWidget* parent = nullptr);

    // The link names offered, Ascend's then NCCL/RCCL's (the names --link-peak takes).
    static const QStringList& linkNames();
    // The peaks entered; false (and *error) when an entry is not a positive number.
    bool peaks(std::map<std::string, double>* out, QString* error = nullptr) const;
    // Sets one entry's text (empty: the default).
    void setPeakText(const QString& name, const QString& text);
    QTableWidget* table() const { return m_table; }

    void accept() override; // refuses bad entries with a message

private:
    QTableWidget* m_table = nullptr;
    QLabel* m_error = nullptr;
};

} // namespace rs
