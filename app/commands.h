#pragma once

#include <QStringList>

#include <string>

namespace rs {
struct AnalysisOptions;
}

// Headless subcommands of the `ringscope` binary. Each takes the arguments after the
// subcommand name and returns the process exit code.
namespace rs::cli {

// Exit codes are public: scripts and CI depend on them.
constexpr int kExitOk = 0;
constexpr int kExitFailOn = 1; // analyze --fail-on met
constexpr int kExitInput = 2;  // input cannot be read or parsed, or bad usage

// `--link-peak NAME=GBPS` values into options.linkPeaks; false with a message when one is bad.
bool parseLinkPeaks(const QStringList& values, AnalysisOptions* options, std::string* error);

int info(const QStringList& args);
int analyze(const QStringList& args);
// stats PATH... --by kernel|op|collective|step|memcpy: summary tables (docs/stats.md).
int stats(const QStringList& args);
// merge SUMMARY... | FOLDER: the job report from per-rank summaries (docs/scale.md).
int merge(const QStringList& args);
// whatif PATH... [--remove internal-memcpy] [--scale GLOB=F]: what a fix would gain
// (docs/analysis.md, "What if").
int whatif(const QStringList& args);
// compare BEFORE AFTER, compare --scaling RUN... (docs/compare.md). With --image it needs a
// QApplication (main() makes one, offscreen without a display).
int compare(const QStringList& args);
// Needs a QApplication (text and plots); main() makes one, offscreen without a display.
int exportImage(const QStringList& args);

} // namespace rs::cli
