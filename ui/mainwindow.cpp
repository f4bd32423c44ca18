#include "ui/mainwindow.h"

#include "core/traceinfo.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QStandardPaths>
#include <QStatusBar>

namespace rs {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle("Ringscope");
    resize(1280, 800);
    m_summary = new QPlainTextEdit(this);
    m_summary->setReadOnly(true);
    setCentralWidget(m_summary);
    m_status = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setVisible(false);
    statusBar()->addWidget(m_status, 1);
    statusBar()->addPermanentWidget(m_progress);
    connect(&m_job, &TraceLoadJob::progress, this, [this](qint64 done, qint64 total) {
        m_progress->setVisible(true);
        m_progress->setRange(0, 1000);
        m_progress->setValue(total > 0 ? static_cast<int>(done * 1000 / total) : 0);
    });
    connect(&m_job, &TraceLoadJob::finished, this, &MainWindow::onLoaded);
}

void MainWindow::openPaths(const QStringList& paths)
{
    if (paths.isEmpty())
        return;
    m_status->setText(tr("Loading %1…").arg(paths.first()));
    m_job.start(paths.first());
}

void MainWindow::openSample()
{
    // The bundled sample lives in the resources; copy it out so the loader can stream it.
    const QString out = QDir(QStandardPaths::writableLocation(QStandardPaths::TempLocation))
                            .filePath("ringscope-sample.json");
    QFile::remove(out);
    if (QFile::copy(":/samples/sample_rank0.json", out))
        openPaths({out});
}

void MainWindow::onLoaded(const QString& path, std::shared_ptr<LoadResult> result)
{
    m_progress->setVisible(false);
    if (!result->trace) {
        m_status->setText(tr("Failed to load %1").arg(path));
        QMessageBox::warning(this, tr("Cannot open trace"), QString::fromStdString(result->error));
        return;
    }
    m_trace = result->trace;
    m_summary->setPlainText(QString::fromStdString(traceInfoText(*m_trace, path.toStdString())));
    m_status->setText(QString("%1 · %2 events").arg(path).arg(m_trace->stats().events));
    emit traceLoaded();
}

} // namespace rs
