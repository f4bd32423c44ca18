#include "app/commands.h"
#include "app/options.h"
#include "ui/gui.h"

#include <QApplication>
#include <QCoreApplication>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStringList>

#include <cstring>
#include <iostream>
#include <string>

namespace {

// What a subcommand needs around it.
enum class Host {
    Core,     // QCoreApplication: text and JSON only
    Gui,      // QApplication, offscreen without a display: it paints
    GuiImage, // QApplication only when --image is given
};

struct Command {
    const char* name;
    const char* usage; // its lines in `ringscope --help`, without the leading "ringscope "
    Host host;
    int (*run)(const QStringList& args);
};

// Every subcommand, one line each: main() dispatches on this table and the usage and the
// "unknown command" message list it.
const Command kCommands[] = {
    {"info", "info PATH... [--json]  summarise traces", Host::Core, rs::cli::info},
    {"analyze",
     "analyze PATH... [--json] [--size-align N] [--addr-align N]\n"
     "          [--fail-on warning|error] [--summary-out FILE]  find communication problems",
     Host::Core, rs::cli::analyze},
    {"stats",
     "stats PATH... [--by kernel|op|collective|step|memcpy]\n"
     "          [--range START_NS:END_NS] [--csv|--json] [--rank N] [--per-rank]\n"
     "          count, total, mean, min, max and share of busy time by name",
     Host::Core, rs::cli::stats},
    {"whatif",
     "whatif PATH... [--remove internal-memcpy] [--scale GLOB=FACTOR]... [--rank N]\n"
     "          [--json]  each step's time after a change, by a replay of the job",
     Host::Core, rs::cli::whatif},
    {"merge",
     "merge SUMMARY... | FOLDER [--json]  the job report from per-rank summaries\n"
     "          (analyze RANK --summary-out FILE)",
     Host::Core, rs::cli::merge},
    {"compare",
     "compare BEFORE AFTER [--json] [--image FILE]\n"
     "ringscope compare --scaling [--weak] RUN... [--json] [--image FILE]\n"
     "          before/after a fix, scaling across card counts",
     Host::GuiImage, rs::cli::compare},
    {"export",
     "export PATH... --out FILE.png|svg|pdf [--range A:B]\n"
     "          [--finding N] [--step N] [--annotate-findings] [--composite]\n"
     "          [--theme light|dark]\n"
     "          render the annotated timeline or the report, headless",
     Host::Gui, rs::cli::exportImage},
};

const Command* findCommand(const std::string& name)
{
    for (const Command& c : kCommands)
        if (name == c.name) return &c;
    return nullptr;
}

std::string commandList()
{
    std::string out;
    for (const Command& c : kCommands)
        out += (out.empty() ? "" : ", ") + std::string(c.name);
    return out;
}

void printUsage()
{
    std::cout << "Usage: ringscope [TRACE...]  open the viewer (a job folder, rank folders or "
                 "trace files)\n";
    for (const Command& c : kCommands) {
        std::string text = c.usage;
        // Continuation lines line up under the command.
        for (std::size_t p = 0; (p = text.find('\n', p)) != std::string::npos; p += 8)
            text.insert(p + 1, "       ");
        std::cout << "       ringscope " << text << "\n";
    }
    std::cout << "       ringscope --version\n"
                 "Run a subcommand with --help for its options.\n";
}

// A first argument that is no file or folder but reads like a command word ("anaylze",
// "stats"): a mistyped or not yet known subcommand, not a trace to open.
bool looksLikeCommand(const std::string& arg)
{
    static const QRegularExpression word(QStringLiteral("^[A-Za-z][A-Za-z0-9_-]*$"));
    const QString a = QString::fromLocal8Bit(arg.c_str());
    return word.match(a).hasMatch() && !QFileInfo::exists(a);
}

void offscreenWithoutDisplay()
{
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
        qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
}

} // namespace

int main(int argc, char** argv)
{
    const std::string sub = argc > 1 ? argv[1] : "";
    if (sub == "--help" || sub == "-h") {
        printUsage();
        return 0;
    }
    if (sub == "--version") {
        std::cout << "ringscope " << RINGSCOPE_VERSION << "\n";
        return 0;
    }
    if (const Command* c = findCommand(sub)) {
        QStringList args;
        bool image = false;
        for (int i = 2; i < argc; ++i) {
            args << QString::fromLocal8Bit(argv[i]);
            image = image || args.back() == "--image" || args.back().startsWith("--image=");
        }
        // The model cache's writes end before the application object goes.
        const auto run = [&] {
            const int code = c->run(args);
            rs::cli::finishCache(code);
            return code;
        };
        if (c->host == Host::Core || (c->host == Host::GuiImage && !image)) {
            QCoreApplication app(argc, argv);
            return run();
        }
        offscreenWithoutDisplay();
        QApplication app(argc, argv);
        return run();
    }
    if (!sub.empty() && looksLikeCommand(sub)) {
        std::cerr << "ringscope: unknown command '" << sub << "' (no such file either)\n"
                  << "Commands: " << commandList() << "\n"
                  << "Run ringscope --help for the usage.\n";
        return rs::cli::kExitInput;
    }
    return rs::runGui(argc, argv);
}
