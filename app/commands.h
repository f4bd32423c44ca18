#pragma once

#include <QStringList>

// Headless subcommands of the `ringscope` binary. Each takes the arguments after the
// subcommand name and returns the process exit code.
namespace rs::cli {

// Exit codes are public: scripts and CI depend on them.
constexpr int kExitOk = 0;
constexpr int kExitFailOn = 1; // analyze --fail-on met
constexpr int kExitInput = 2;  // input cannot be read or parsed, or bad usage

int info(const QStringList& args);
int analyze(const QStringList& args);
// Needs a QApplication (text and plots); main() makes one, offscreen without a display.
int exportImage(const QStringList& args);

} // namespace rs::cli
