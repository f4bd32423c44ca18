#include "ui/panes/whatifdialog.h"

#include "core/job/pooltask.h"
#include "core/timeconv.h"
#include "ui/session/session.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace rs {

namespace {

QString duration(TimeNs ns)
{
    return QString::fromStdString(formatDuration(ns));
}

QString percent(TimeNs saved, TimeNs whole)
{
    return QStringLiteral("%1%").arg(whole > 0 ? 100.0 * double(saved) / double(whole) : 0.0, 0,
                                     'f', 1);
}

} // namespace

WhatIfDialog::WhatIfDialog(Session* session, QWidget* parent) : QDialog(parent), m_session(session)
{
    setWindowTitle(tr("What if…"));
    setObjectName(QStringLiteral("whatIfDialog"));
    auto* box = new QVBoxLayout(this);
    auto* intro = new QLabel(
        tr("Replays each step's device work on its dependencies (stream order, launches, "
           "collectives that exchange once their last rank is ready) after a change, and "
           "predicts the step times."),
        this);
    intro->setWordWrap(true);
    box->addWidget(intro);
    auto* form = new QFormLayout;
    m_removeMemcpy = new QCheckBox(tr("Remove the collectives' internal memcpy"), this);
    form->addRow(QString(), m_removeMemcpy);
    m_scale = new QPlainTextEdit(this);
    m_scale->setPlaceholderText(tr("NAME_GLOB=FACTOR, one per line: MatMul*=0.8 (20% faster)"));
    m_scale->setMaximumHeight(fontMetrics().height() * 4 + 12);
    m_scale->setTabChangesFocus(true);
    form->addRow(tr("Scale"), m_scale);
    auto* rankRow = new QHBoxLayout;
    m_limitRank = new QCheckBox(tr("Only rank"), this);
    m_rank = new QSpinBox(this);
    m_rank->setRange(0, 1 << 20);
    m_rank->setEnabled(false);
    rankRow->addWidget(m_limitRank);
    rankRow->addWidget(m_rank);
    rankRow->addStretch(1);
    form->addRow(tr("Limit"), rankRow);
    box->addLayout(form);
    connect(m_limitRank, &QCheckBox::toggled, m_rank, &QSpinBox::setEnabled);

    auto* runRow = new QHBoxLayout;
    m_run = new QPushButton(tr("&Predict"), this);
    m_run->setDefault(true);
    runRow->addWidget(m_run);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    runRow->addWidget(m_status, 1);
    box->addLayout(runRow);

    m_table = new QTableWidget(0, 5, this);
    m_table->setHorizontalHeaderLabels(
        {tr("Step"), tr("Measured"), tr("Predicted"), tr("Saving"), tr("Saving %")});
    m_table->verticalHeader()->setVisible(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    box->addWidget(m_table, 1);
    m_total = new QLabel(this);
    m_total->setTextInteractionFlags(Qt::TextSelectableByMouse);
    box->addWidget(m_total);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    box->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_run, &QPushButton::clicked, this, [this] { run(); });
    resize(560, 520);

    if (m_session) {
        // What is open changed: an older replay's answer is not about it.
        connect(m_session, &Session::traceLoaded, this, [this] { clearResult(); });
        connect(m_session, &Session::traceReplaced, this, [this] { clearResult(); });
    }
}

std::optional<WhatIfChange> WhatIfDialog::change(QString* error) const
{
    WhatIfChange c;
    c.removeInternalMemcpy = m_removeMemcpy->isChecked();
    for (QString line : m_scale->toPlainText().split('\n')) {
        line = line.trimmed();
        if (line.isEmpty()) continue;
        const qsizetype eq = line.lastIndexOf('=');
        bool ok = false;
        const double f = eq > 0 ? line.mid(eq + 1).trimmed().toDouble(&ok) : 0.0;
        if (!ok || !std::isfinite(f) || f < 0) {
            if (error)
                *error = tr("A scale row is NAME_GLOB=FACTOR with FACTOR >= 0, not '%1'").arg(line);
            return std::nullopt;
        }
        c.scale.push_back({line.left(eq).trimmed().toStdString(), f});
    }
    if (m_limitRank->isChecked()) c.rank = m_rank->value();
    return c;
}

void WhatIfDialog::setChange(const WhatIfChange& change)
{
    m_removeMemcpy->setChecked(change.removeInternalMemcpy);
    QStringList rows;
    for (const WhatIfChange::Scale& s : change.scale)
        rows << QStringLiteral("%1=%2").arg(QString::fromStdString(s.glob)).arg(s.factor);
    m_scale->setPlainText(rows.join('\n'));
    m_limitRank->setChecked(change.rank.has_value());
    if (change.rank) m_rank->setValue(*change.rank);
}

QString WhatIfDialog::describe(const WhatIfChange& change)
{
    QStringList parts;
    if (change.removeInternalMemcpy) parts << tr("internal memcpy removed");
    for (const WhatIfChange::Scale& s : change.scale)
        parts << QStringLiteral("%1 ×%2").arg(QString::fromStdString(s.glob)).arg(s.factor);
    QString text = parts.isEmpty() ? tr("no change") : parts.join(QStringLiteral(", "));
    if (change.rank) text += tr(" on rank %1").arg(*change.rank);
    return text;
}

bool WhatIfDialog::run()
{
    QString error;
    const std::optional<WhatIfChange> c = change(&error);
    if (!c) {
        m_status->setText(error);
        return false;
    }
    if (!m_session || !m_session->report() || m_session->isAnalysing()) {
        m_status->setText(tr("Open a trace or a job and wait for its analysis first"));
        return false;
    }
    const JobSessionPtr job = m_session->job();
    if (job && job->fromSummaries()) {
        m_status->setText(tr("A job of rank summaries has no device events to replay: open "
                             "the ranks' traces"));
        return false;
    }
    std::function<WhatIfResult()> work;
    const WhatIfChange changeCopy = *c;
    if (job) {
        work = [job, changeCopy] {
            return whatIf(job->job, job->perRank, job->jobReport ? &*job->jobReport : nullptr,
                          changeCopy);
        };
    } else {
        const TracePtr trace = m_session->trace();
        const ReportPtr report = m_session->report();
        work = [trace, report, changeCopy] {
            return whatIf(std::vector<TracePtr>{trace}, std::vector<ReportPtr>{report}, nullptr,
                          changeCopy);
        };
    }
    const quint64 token = m_generation.next();
    m_running = true;
    m_run->setEnabled(false);
    m_status->setText(tr("Replaying: %1…").arg(describe(*c)));
    const QString description = describe(*c);
    struct Out {
        WhatIfResult result;
        QThread* thread = nullptr;
    };
    runOnPool<Out>(
        this,
        [work] {
            Out o;
            o.thread = QThread::currentThread();
            try {
                o.result = work();
            } catch (const std::exception&) {
                // an empty result says it
            }
            return o;
        },
        [this, token, description](Out o) {
            if (!m_generation.current(token)) return;
            m_running = false;
            m_run->setEnabled(true);
            m_workerThread = o.thread;
            if (o.result.steps.empty()) {
                m_status->setText(tr("No steps to replay"));
                return;
            }
            m_status->setText(description);
            showResult(o.result);
            emit predicted(m_result, description);
        });
    return true;
}

void WhatIfDialog::showResult(const WhatIfResult& r)
{
    m_result = r;
    m_table->setRowCount(int(r.steps.size()));
    auto cell = [this](int row, int col, const QString& text) {
        auto* item = new QTableWidgetItem(text);
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, col, item);
    };
    for (std::size_t i = 0; i < r.steps.size(); ++i) {
        const StepPrediction& p = r.steps[i];
        const int row = int(i);
        cell(row, 0, QString::number(p.step));
        cell(row, 1, duration(p.measuredNs));
        cell(row, 2, duration(p.predictedNs));
        cell(row, 3, duration(p.measuredNs - p.predictedNs));
        cell(row, 4, percent(p.measuredNs - p.predictedNs, p.measuredNs));
    }
    const TimeNs saved = r.totalMeasuredNs - r.totalPredictedNs;
    m_total->setText(tr("Total: measured %1, predicted %2, saving %3 (%4)")
                         .arg(duration(r.totalMeasuredNs), duration(r.totalPredictedNs),
                              duration(saved), percent(saved, r.totalMeasuredNs)));
}

void WhatIfDialog::clearResult()
{
    m_generation.drop();
    m_running = false;
    m_run->setEnabled(true);
    m_result = {};
    m_table->setRowCount(0);
    m_total->clear();
    m_status->clear();
    emit cleared();
}

} // namespace rs
