#include "ui/export/exportdialog.h"

#include "ui/theme/theme.h"

#include <QComboBox>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QSettings>

#include <algorithm>

namespace rs {

namespace {
const char* const kKey = "export/theme";
} // namespace

QString exportThemeName(ExportTheme t)
{
    switch (t) {
    case ExportTheme::Dark:
        return QStringLiteral("dark");
    case ExportTheme::View:
        return QStringLiteral("view");
    case ExportTheme::Light:
        break;
    }
    return QStringLiteral("light");
}

std::optional<ExportTheme> exportThemeFromName(const QString& name)
{
    const QString n = name.trimmed().toLower();
    if (n == QLatin1String("light")) return ExportTheme::Light;
    if (n == QLatin1String("dark")) return ExportTheme::Dark;
    if (n == QLatin1String("view")) return ExportTheme::View;
    return std::nullopt;
}

ExportTheme savedExportTheme()
{
    const QSettings s;
    if (s.contains(QLatin1String(kKey)))
        return exportThemeFromName(s.value(QLatin1String(kKey)).toString())
            .value_or(ExportTheme::Light);
    return s.value(QStringLiteral("export/dark")).toBool() ? ExportTheme::Dark : ExportTheme::Light;
}

void saveExportTheme(ExportTheme t)
{
    QSettings s;
    s.setValue(QLatin1String(kKey), exportThemeName(t));
    s.setValue(QStringLiteral("export/dark"), t == ExportTheme::Dark); // what older builds read
}

bool exportThemeIsDark(ExportTheme t)
{
    return t == ExportTheme::Dark || (t == ExportTheme::View && currentPalette().isDark);
}

ExportFileDialog::ExportFileDialog(QWidget* parent, const QString& caption, const QString& file,
                                   const QString& filter)
    : QFileDialog(parent, caption, file, filter)
{
    setObjectName(QStringLiteral("exportFileDialog"));
    setAcceptMode(QFileDialog::AcceptSave);
    setOption(QFileDialog::DontUseNativeDialog); // a native dialog takes no extra row
    const QFileInfo info(file);
    if (!info.suffix().isEmpty()) setDefaultSuffix(info.suffix());
    m_theme = new QComboBox(this);
    m_theme->setObjectName(QStringLiteral("exportTheme"));
    m_theme->addItem(tr("Light (for print and tickets)"), exportThemeName(ExportTheme::Light));
    m_theme->addItem(tr("Dark"), exportThemeName(ExportTheme::Dark));
    m_theme->addItem(tr("As the view shows it (the current theme)"),
                     exportThemeName(ExportTheme::View));
    m_theme->setToolTip(tr("Colours of the picture; remembered for the next export"));
    setTheme(savedExportTheme());
    // Qt's dialog lays out in a grid: label column, field column; the row goes under the type.
    if (auto* grid = qobject_cast<QGridLayout*>(layout())) {
        const int row = grid->rowCount();
        auto* label = new QLabel(tr("Theme:"), this);
        label->setBuddy(m_theme);
        grid->addWidget(label, row, 0);
        grid->addWidget(m_theme, row, 1);
    }
}

ExportTheme ExportFileDialog::theme() const
{
    return exportThemeFromName(m_theme->currentData().toString()).value_or(ExportTheme::Light);
}

void ExportFileDialog::setTheme(ExportTheme t)
{
    m_theme->setCurrentIndex(std::max(0, m_theme->findData(exportThemeName(t))));
}

std::optional<ExportChoice> askExportFile(QWidget* parent, const QString& caption,
                                          const QString& file, const QString& filter)
{
    ExportFileDialog dialog(parent, caption, file, filter);
    if (!file.isEmpty()) dialog.selectFile(file);
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return std::nullopt;
    ExportChoice choice{dialog.selectedFiles().constFirst(), dialog.theme()};
    if (QFileInfo(choice.file).suffix().isEmpty()) {
        // "PNG (*.png)": the filter's first suffix.
        const QRegularExpressionMatch m =
            QRegularExpression(QStringLiteral("\\*\\.(\\w+)")).match(dialog.selectedNameFilter());
        if (m.hasMatch()) choice.file += QLatin1Char('.') + m.captured(1);
    }
    saveExportTheme(choice.theme);
    return choice;
}

} // namespace rs
