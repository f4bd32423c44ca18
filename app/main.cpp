#include "app/commands.h"
#include "ui/gui.h"

#include <QApplication>
#include <QCoreApplication>
#include <QStringList>

#include <cstring>
#include <iostream>

namespace {

void printUsage()
{
    std::cout << "Usage: ringscope [TRACE...]            open the viewer\n"
                 "       ringscope info PATH... [--json]  summarise traces\n"
                 "       ringscope analyze PATH... [--json] [--size-align N] [--addr-align N]\n"
                 "                 [--fail-on warning|error]  find communication problems\n"
                 "       ringscope compare BEFORE AFTER [--json] [--image FILE]\n"
                 "       ringscope compare --scaling [--weak] RUN... [--json] [--image FILE]\n"
                 "                 before/after a fix, scaling across card counts\n"
                 "       ringscope export PATH --out FILE.png|svg|pdf [--range A:B]\n"
                 "                 [--finding N] [--step N] [--annotate-findings] [--composite]\n"
                 "                 render the annotated timeline or the report, headless\n"
                 "       ringscope --version\n"
                 "Run a subcommand with --help for its options.\n";
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
    if (sub == "info") {
        QCoreApplication app(argc, argv);
        QStringList args;
        for (int i = 2; i < argc; ++i)
            args << QString::fromLocal8Bit(argv[i]);
        return rs::cli::info(args);
    }
    if (sub == "analyze") {
        QCoreApplication app(argc, argv);
        QStringList args;
        for (int i = 2; i < argc; ++i)
            args << QString::fromLocal8Bit(argv[i]);
        return rs::cli::analyze(args);
    }
    if (sub == "compare") {
        QStringList args;
        bool image = false;
        for (int i = 2; i < argc; ++i) {
            args << QString::fromLocal8Bit(argv[i]);
            image = image || args.back() == "--image" || args.back().startsWith("--image=");
        }
        if (!image) {
            QCoreApplication app(argc, argv);
            return rs::cli::compare(args);
        }
        // --image paints widgets: a QApplication, offscreen without a display.
        if (qEnvironmentVariableIsEmpty("DISPLAY") &&
            qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
            qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        QApplication app(argc, argv);
        return rs::cli::compare(args);
    }
    if (sub == "export") {
        if (qEnvironmentVariableIsEmpty("DISPLAY") &&
            qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
            qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        QApplication app(argc, argv);
        QStringList args;
        for (int i = 2; i < argc; ++i)
            args << QString::fromLocal8Bit(argv[i]);
        return rs::cli::exportImage(args);
    }
    return rs::runGui(argc, argv);
}
