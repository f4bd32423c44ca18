#pragma once

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace rs::test {

// What a child process did: exit code (-1 when it crashed or timed out) and its output.
struct ProcessRun {
    int code = -1;
    bool timedOut = false;
    QString out;
    QString err;
    QString describe() const; // "exit 2: <stderr>" for failure messages
};

// Runs a program to completion, killed after timeoutMs (bounded waits keep CI from hanging).
ProcessRun runProcess(const QString& program, const QStringList& args,
                      const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
                      int timeoutMs = 120000, const QString& workDir = {});

// The tool's absolute path on PATH, or empty.
QString findTool(const QString& name);

} // namespace rs::test
