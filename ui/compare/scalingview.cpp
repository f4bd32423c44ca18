#include "ui/compare/scalingview.h"
#include "ui/export/renderfile.h"

#include "core/job/pooltask.h"

#include "core/compare/runloader.h"
#include "ui/plots/plotexport.h"
#include "ui/plots/plotstyle.h"
#include "ui/theme/theme.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <atomic>
#include <cmath>

namespace rs {

using namespace plots;

namespace {

QString pctText(double fraction)
{
    return QStringLiteral("%1%").arg(fraction * 100.0, 0, 'f', 1);
}

} // namespace

double ScalingView::keyOf(int cards)
{
    return std::log2(double(std::max(1, cards)));
}

ScalingView::ScalingView(QWidget* parent) : QWidget(parent)
{
    m_plot = new QCustomPlot(this);
    auto* box = new QVBoxLayout(this);
    box->setContentsMargins(0, 0, 0, 0);
    box->addWidget(m_plot);
    setMinimumSize(420, 280);

    m_plot->plotLayout()->insertRow(0);
    m_title = new QCPTextElement(m_plot, QString(), titleFont());
    m_plot->plotLayout()->addElement(0, 0, m_title);
    QCPAxis* x = m_plot->xAxis;
    QCPAxis* eff = m_plot->yAxis;
    QCPAxis* ms = m_plot->yAxis2;
    ms->setVisible(true);
    x->setLabel(QStringLiteral("cards"));
    eff->setLabel(QStringLiteral("scaling efficiency (%)"));
    ms->setLabel(QStringLiteral("mean step time (ms)"));
    x->grid()->setVisible(false);
    x->setSubTicks(false);

    m_ideal = m_plot->addGraph(x, eff);
    m_ideal->setName(QStringLiteral("ideal (100%)"));
    m_efficiency = m_plot->addGraph(x, eff);
    m_efficiency->setName(QStringLiteral("efficiency"));
    m_stepTime = m_plot->addGraph(x, ms);
    m_stepTime->setName(QStringLiteral("step time"));
    for (QCPGraph* g : {m_ideal, m_efficiency, m_stepTime})
        g->setSelectable(QCP::stNone);
    legendAsRow(m_plot, 1);

    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_plot, &QCustomPlot::customContextMenuRequested, this, &ScalingView::showContextMenu);
    connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        const QString tip = toolTipAt(e->pos());
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(m_plot->mapToGlobal(e->pos()), tip, m_plot);
    });
    rebuild();
    // A theme change recolours the curves, their labels and the axis titles in place.
    setPlotRestyler(m_plot, [this](const ThemePalette& p) { restyle(p); });
}

void ScalingView::restyle(const ThemePalette& p)
{
    // Efficiency in the computing line's green, step time brown: neither reads as the blue
    // collectives; each value axis' title in its curve's colour.
    const QColor eff = p.computingLine, step = p.stepTime;
    m_plot->yAxis->setLabelColor(eff);
    m_plot->yAxis2->setLabelColor(step);
    m_ideal->setPen(QPen(p.plotGuide, 1.2, Qt::DashLine));
    m_efficiency->setPen(QPen(eff, 2.5));
    m_efficiency->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, eff, p.plotBackground, 9));
    m_stepTime->setPen(QPen(step, 2, Qt::SolidLine));
    m_stepTime->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, step, step, 7));
    for (int i = 0; i < m_plot->itemCount(); ++i)
        if (auto* label = qobject_cast<QCPItemText*>(m_plot->item(i)))
            label->setColor(label->position->valueAxis() == m_plot->yAxis2 ? step : eff);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ScalingView::setPoints(std::vector<ScalingPoint> points, bool weak)
{
    m_points = std::move(points);
    m_weak = weak;
    rebuild();
}

void ScalingView::rebuild()
{
    m_plot->clearItems();
    for (QCPGraph* g : {m_ideal, m_efficiency, m_stepTime})
        g->data()->clear();
    QCPAxis* x = m_plot->xAxis;
    QCPAxis* eff = m_plot->yAxis;
    QCPAxis* ms = m_plot->yAxis2;

    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double lo = 0, hi = 1, maxEff = 1, maxMs = 0;
    bool first = true;
    for (const ScalingPoint& p : m_points) {
        const double k = keyOf(p.cards);
        ticker->addTick(k, QString::number(p.cards));
        lo = first ? k : std::min(lo, k);
        hi = first ? k : std::max(hi, k);
        first = false;
        if (p.efficiency) {
            m_efficiency->addData(k, *p.efficiency * 100.0);
            maxEff = std::max(maxEff, *p.efficiency);
            auto* label = new QCPItemText(m_plot);
            label->position->setAxes(x, eff);
            label->position->setCoords(k, *p.efficiency * 100.0);
            label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            label->setPadding(QMargins(0, 0, 0, 8));
            label->setText(pctText(*p.efficiency));
            label->setFont(monoFont(9));
        }
        if (p.stepMeanNs) {
            m_stepTime->addData(k, toMs(*p.stepMeanNs));
            maxMs = std::max(maxMs, toMs(*p.stepMeanNs));
            auto* label = new QCPItemText(m_plot);
            label->position->setAxes(x, ms);
            label->position->setCoords(k, toMs(*p.stepMeanNs));
            label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
            label->setPadding(QMargins(6, 4, 0, 0));
            label->setText(formatMsShort(toMs(*p.stepMeanNs)));
            label->setFont(monoFont(9));
        }
    }
    // Graphs draw left to right by key: runs given out of card order still read as a curve.
    m_efficiency->data()->sort();
    m_stepTime->data()->sort();
    const double pad = std::max(0.3, (hi - lo) * 0.08);
    x->setTicker(ticker);
    x->setRange(lo - pad, hi + pad);
    m_ideal->addData(lo - pad, 100.0);
    m_ideal->addData(hi + pad, 100.0);
    eff->setRange(0, std::max(110.0, maxEff * 100.0 * 1.12));
    // Step times sit below the 100% line: the baseline's longest step and its full efficiency
    // would otherwise share a point.
    ms->setRange(0, maxMs > 0 ? maxMs * 1.6 : 1);

    if (m_points.empty()) {
        m_title->setText(QStringLiteral("Scaling: no runs"));
    } else {
        const ScalingPoint& b = m_points.front();
        m_title->setText(
            QStringLiteral("%1 scaling · baseline %2 (%3 card%4, %5) · %6")
                .arg(m_weak ? "Weak" : "Strong",
                     QFileInfo(QString::fromStdString(b.path)).fileName())
                .arg(b.cards)
                .arg(b.cards == 1 ? "" : "s")
                .arg(b.stepMeanNs ? formatMsShort(toMs(*b.stepMeanNs)) : QStringLiteral("no steps"))
                .arg(m_weak ? QStringLiteral("efficiency = T0 / T")
                            : QStringLiteral("efficiency = cards0·T0 / (cards·T)")));
    }
    restyle(currentPalette());
    m_plot->replot();
}

QString ScalingView::toolTipAt(const QPoint& pos) const
{
    for (const ScalingPoint& p : m_points) {
        const double px = m_plot->xAxis->coordToPixel(keyOf(p.cards));
        if (std::abs(px - pos.x()) > 10) continue;
        return QStringLiteral("%1\n%2 cards · step %3 · speedup %4 · efficiency %5")
            .arg(QString::fromStdString(p.path))
            .arg(p.cards)
            .arg(p.stepMeanNs ? formatMsExact(*p.stepMeanNs) : QStringLiteral("–"))
            .arg(p.speedup ? QStringLiteral("%1x").arg(*p.speedup, 0, 'f', 2) : QStringLiteral("–"))
            .arg(p.efficiency ? pctText(*p.efficiency) : QStringLiteral("–"));
    }
    return {};
}

void ScalingView::showContextMenu(const QPoint& pos)
{
    QMenu menu(this);
    addExportActions(&menu, m_plot, this, QStringLiteral("scaling"));
    menu.exec(m_plot->mapToGlobal(pos));
}

bool exportScalingPlot(const std::vector<ScalingPoint>& points, bool weak, const QString& file,
                       QSize size, QString* error)
{
    const HeadlessApp app; // widgets need a QApplication; a headless caller may not have one
    if (!app.ok()) {
        if (error) *error = HeadlessApp::notAvailable();
        return false;
    }
    ScalingView view;
    view.resize(size);
    view.setPoints(points, weak);
    return savePlotFile(view.plot(), file, size, error);
}

// ---- ScalingWindow ---------------------------------------------------------------------------

ScalingWindow::ScalingWindow(QWidget* parent) : QWidget(parent, Qt::Window)
{
    setWindowTitle(tr("Scaling — Ringscope"));
    auto* box = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    m_status = new QLabel(this);
    top->addWidget(m_status, 1);
    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(220);
    m_progress->setVisible(false);
    top->addWidget(m_progress);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setVisible(false);
    top->addWidget(m_cancel);
    box->addLayout(top);
    auto* split = new QSplitter(Qt::Vertical, this);
    m_view = new ScalingView(split);
    m_table = new QTableWidget(0, 5, split);
    m_table->setHorizontalHeaderLabels(
        {tr("Run"), tr("Cards"), tr("Mean step time"), tr("Speedup"), tr("Efficiency")});
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->verticalHeader()->setVisible(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    split->addWidget(m_view);
    split->addWidget(m_table);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    box->addWidget(split, 1);
    connect(m_cancel, &QPushButton::clicked, this, &ScalingWindow::cancelLoad);
    resize(1000, 760);
}

ScalingWindow::~ScalingWindow()
{
    cancelLoad();
}

void ScalingWindow::measure(const QStringList& runs, bool weak)
{
    cancelLoad();
    const quint64 generation = m_generation.next();
    m_loading = true;
    m_lastError.clear();
    m_runCount = int(runs.size());
    m_progressState = std::make_shared<JobProgress>();
    m_runsDone = std::make_shared<std::atomic<int>>(0);
    // Each chunk read and each run that ends tells the window (queued onto the GUI thread): no
    // polling.
    relayProgress(this, m_generation, generation, m_progressState,
                  [this](qint64, qint64, int, int) { showProgress(); });
    m_status->setText(tr("Loading %1 runs…").arg(runs.size()));
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->setVisible(true);
    m_cancel->setVisible(true);
    struct Result {
        std::vector<RunDigest> runs;
        QStringList errors;
        bool failed = false;
    };
    auto progress = m_progressState;
    auto done = m_runsDone;
    // On the pool (the one owner of threads); a closed window drops the result.
    runOnPool<std::shared_ptr<Result>>(
        this,
        [runs, progress, done]() {
            auto r = std::make_shared<Result>();
            for (const QString& path : runs) {
                if (progress->cancel.load()) {
                    r->failed = true;
                    r->errors << QStringLiteral("cancelled");
                    return r;
                }
                progress->done = 0;
                progress->total = 0;
                std::vector<std::string> errors;
                std::optional<RunDigest> d;
                try {
                    d = loadRunDigest(path.toStdString(), {}, &errors, progress.get());
                } catch (const std::exception& e) {
                    errors.emplace_back(e.what());
                }
                for (const std::string& e : errors)
                    r->errors << QString::fromStdString(e);
                if (!d) {
                    r->failed = true;
                    return r;
                }
                r->runs.push_back(std::move(*d));
                ++*done;
                if (progress->onChange) progress->onChange();
            }
            return r;
        },
        [this, generation, weak](std::shared_ptr<Result> r) {
            if (!m_generation.current(generation)) return;
            m_loading = false;
            m_progress->setVisible(false);
            m_cancel->setVisible(false);
            m_lastError = r->errors.join('\n');
            if (r->failed) {
                m_status->setText(tr("Cannot measure scaling: %1").arg(m_lastError));
                emit loadFailed(m_lastError);
                return;
            }
            setDigests(std::move(r->runs), weak);
        });
}

void ScalingWindow::setDigests(std::vector<RunDigest> runs, bool weak)
{
    const std::vector<ScalingPoint> points = scalingOf(runs, weak);
    m_view->setPoints(points, weak);
    m_table->setRowCount(int(points.size()));
    for (int i = 0; i < int(points.size()); ++i) {
        const ScalingPoint& p = points[std::size_t(i)];
        const QString cells[] = {
            QString::fromStdString(p.path), QString::number(p.cards),
            p.stepMeanNs ? formatMsExact(*p.stepMeanNs) : QStringLiteral("no steps"),
            p.speedup ? QStringLiteral("%1x").arg(*p.speedup, 0, 'f', 2) : QStringLiteral("–"),
            p.efficiency ? pctText(*p.efficiency) : QStringLiteral("–")};
        for (int c = 0; c < 5; ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(i, c, item);
        }
    }
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    QString status = tr("%1 runs, %2 scaling; right-click the chart to export it")
                         .arg(points.size())
                         .arg(weak ? tr("weak") : tr("strong"));
    if (!m_lastError.isEmpty())
        status += tr(" · some ranks could not be read: %1").arg(m_lastError);
    m_status->setText(status);
    emit loaded();
}

void ScalingWindow::showProgress()
{
    if (!m_progressState || !m_runsDone) return;
    const double total = double(m_progressState->total.load());
    const double part =
        total > 0 ? std::min(double(m_progressState->bytesDone()), total) / total : 0;
    // The run in progress adds its part; once every run is done (its queued calls may come
    // late, under load) the bar is full, never past its end (QProgressBar ignores that).
    const int done = m_runsDone->load();
    const double runs = done < m_runCount ? done + part : double(m_runCount);
    m_progress->setValue(std::clamp(int(1000.0 * runs / std::max(1, m_runCount)), 0, 1000));
}

void ScalingWindow::cancelLoad()
{
    if (m_progressState) m_progressState->requestCancel();
    if (!m_loading) return;
    m_generation.drop();
    m_loading = false;
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    m_status->setText(tr("Loading cancelled"));
}

} // namespace rs
