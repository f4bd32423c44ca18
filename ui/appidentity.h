#pragma once

#include <QIcon>
#include <QString>

namespace rs {

// The reverse-DNS id that names the desktop entry, the AppStream component, the MIME package
// and the icon (resources/desktop/, resources/icons/; set in the top-level CMakeLists.txt).
inline constexpr char kAppId[] = RINGSCOPE_APP_ID;

// The application icon, from the SVG compiled into the binary (the same file the install puts
// in the hicolor theme), so windows show it from the build tree too.
QIcon appIcon();

// The file dialogs' filter for traces: the patterns every producer opens
// (core/producers/registry.h), then all files.
QString traceFileFilter();

// Names the application for QSettings and the desktop (Wayland matches the window to the
// desktop entry by its file name) and sets the icon every window and dialog inherits.
// Call right after constructing the QApplication.
void applyAppIdentity();

} // namespace rs
