#pragma once

// The theme of an exported picture, chosen where the file is: the save dialogs of File > Export
// (timeline, selected area, report image) have a "Theme" row (light for print, dark, or as the
// view shows it), remembered across sessions in QSettings "export/theme" and shared with the
// File > Export > Theme menu.

#include <QFileDialog>

#include <cstdint>
#include <optional>

class QComboBox;

namespace rs {

enum class ExportTheme : std::uint8_t { Light, Dark, View };

QString exportThemeName(ExportTheme t); // "light", "dark", "view"
std::optional<ExportTheme> exportThemeFromName(const QString& name);
// QSettings "export/theme"; before it existed, "export/dark" (true: Dark); else Light.
ExportTheme savedExportTheme();
void saveExportTheme(ExportTheme t);
// Whether a picture in that theme is dark: View follows the palette in use.
bool exportThemeIsDark(ExportTheme t);

// A save dialog (Qt's own, so the row can be added on every platform) with the theme row.
class ExportFileDialog : public QFileDialog {
    Q_OBJECT
public:
    ExportFileDialog(QWidget* parent, const QString& caption, const QString& file,
                     const QString& filter);
    QComboBox* themeBox() const { return m_theme; }
    ExportTheme theme() const;
    void setTheme(ExportTheme t);

private:
    QComboBox* m_theme = nullptr;
};

struct ExportChoice {
    QString file;
    ExportTheme theme = ExportTheme::Light;
};
// Runs the dialog (starting on the saved theme); accepted, saves the theme and returns the
// file (with the filter's suffix when none was typed) and the theme.
std::optional<ExportChoice> askExportFile(QWidget* parent, const QString& caption,
                                          const QString& file, const QString& filter);

} // namespace rs
