#pragma once

#include <QStringList>

namespace rs {

class MainWindow;

// Starts the viewer: a QApplication and the main window, opening the traces named on the
// command line, or the bundled sample when none is given.
int runGui(int argc, char** argv);

// What `ringscope A B C` opens: every path together (several ranks open as one job), or the
// bundled sample when none is given. arguments exclude the program name.
void openFromCommandLine(MainWindow& window, const QStringList& arguments);

} // namespace rs
