#include "tests/support/processrun.h"

#include <QProcess>
#include <QStandardPaths>

namespace rs::test {

QString ProcessRun::describe() const
{
    if (timedOut) return QStringLiteral("timed out; stderr: %1").arg(err);
    return QStringLiteral("exit %1; stdout: %2; stderr: %3")
        .arg(code)
        .arg(out.left(2000), err.left(4000));
}

ProcessRun runProcess(const QString& program, const QStringList& args,
                      const QProcessEnvironment& env, int timeoutMs, const QString& workDir)
{
    ProcessRun r;
    QProcess p;
    p.setProcessEnvironment(env);
    if (!workDir.isEmpty()) p.setWorkingDirectory(workDir);
    p.start(program, args);
    if (!p.waitForStarted(30000)) {
        r.err = QStringLiteral("cannot start %1: %2").arg(program, p.errorString());
        return r;
    }
    if (!p.waitForFinished(timeoutMs)) {
        r.timedOut = true;
        p.kill();
        p.waitForFinished(10000);
    }
    r.out = QString::fromLocal8Bit(p.readAllStandardOutput());
    r.err = QString::fromLocal8Bit(p.readAllStandardError());
    if (!r.timedOut && p.exitStatus() == QProcess::NormalExit) r.code = p.exitCode();
    return r;
}

QString findTool(const QString& name)
{
    return QStandardPaths::findExecutable(name);
}

} // namespace rs::test
