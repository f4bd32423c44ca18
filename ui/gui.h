#pragma once

namespace rs {

// Starts the viewer: a QApplication and the main window, opening the traces named on the
// command line, or the bundled sample when none is given.
int runGui(int argc, char** argv);

} // namespace rs
