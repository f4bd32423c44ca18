#include "ui/heatmap/rankstepheatmap.h"

#include "ui/plots/plotstyle.h"

#include "ui/session/session.h"

#include "ui/theme/theme.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <set>

namespace rs {

RankStepHeatmap::RankStepHeatmap(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* row = new QHBoxLayout;
    row->setContentsMargins(4, 2, 4, 0);
    row->addWidget(new QLabel(tr("Rank × step:"), this));
    m_metricBox = new QComboBox(this);
    m_metricBox->addItems({tr("Communication"), tr("Communication not overlapped"),
                           tr("Internal memcpy"), tr("Computing"), tr("Extra internal memcpy"),
                           tr("Wait caused")});
    m_metricBox->setToolTip(tr("Extra internal memcpy: above each collective's usual copy; "
                               "wait caused: the time the other ranks waited for this one"));
    connect(m_metricBox, &QComboBox::currentIndexChanged, this,
            [this](int i) { setMetric(static_cast<Metric>(i)); });
    row->addWidget(m_metricBox);
    auto* hint = new QLabel(tr("click a cell to show that rank's step in the timeline"), this);
    hint->setEnabled(false); // dim: a hint, not data
    row->addWidget(hint, 1);
    layout->addLayout(row);
    m_plot = new QCustomPlot(this);
    m_plot->setMinimumSize(320, 200);
    m_plot->setMouseTracking(true);
    layout->addWidget(m_plot, 1);
    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    auto* scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(0, 1, scale);
    scale->setLabel(tr("ms"));
    m_map->setColorScale(scale);
    // Navy -> amber -> red: the hottest cells must not look empty (thermal ends in white).
    // Restyled in place when the theme changes.
    setPlotRestyler(m_plot, [this](const ThemePalette& pal) {
        QCPColorGradient g;
        g.setColorStopAt(0.0, pal.heatLow);
        g.setColorStopAt(0.5, pal.heatMid);
        g.setColorStopAt(1.0, pal.heatHigh);
        g.setNanHandling(QCPColorGradient::nhTransparent);
        m_map->setGradient(g);
        plots::replotWhenShown(m_plot);
    });
    m_map->setInterpolate(false);
    m_plot->xAxis->setLabel(tr("step"));
    m_plot->yAxis->setLabel(tr("rank"));
    m_plot->yAxis->setRangeReversed(true); // rank 0 on top, as in the timeline
    auto margins = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    connect(m_plot, &QCustomPlot::mousePress, this, &RankStepHeatmap::onMousePress);
    connect(m_plot, &QCustomPlot::mouseMove, this, &RankStepHeatmap::onMouseMove);
}

void RankStepHeatmap::setReports(std::vector<ReportPtr> reports, const JobReport* job)
{
    m_reports = std::move(reports);
    m_waitCaused.clear();
    if (job) {
        // Per delaying rank: how long each rank on time waited for it to be ready.
        for (const CrossRankCollective& c : job->collectives) {
            if (!c.step) continue;
            auto delaying = [&](int r) {
                return std::find(c.delayingRanks.begin(), c.delayingRanks.end(), r) !=
                       c.delayingRanks.end();
            };
            for (const RankOp& d : c.ops) {
                if (!delaying(d.rank)) continue;
                TimeNs caused = 0;
                for (const RankOp& w : c.ops)
                    if (!delaying(w.rank)) caused += std::max<TimeNs>(0, d.ready - w.ready);
                if (caused > 0) m_waitCaused[{d.rank, *c.step}] += caused;
            }
        }
    }
    if (!m_metricChosen) {
        m_metric = defaultMetric();
        const QSignalBlocker block(m_metricBox);
        m_metricBox->setCurrentIndex(static_cast<int>(m_metric));
    }
    rebuild();
}

RankStepHeatmap::Metric RankStepHeatmap::defaultMetric() const
{
    for (const ReportPtr& r : m_reports)
        for (const Collective& c : r->collectives)
            if (c.extraMemcpyNs > 0 && c.step) return Metric::ExtraMemcpy;
    return m_waitCaused.empty() ? Metric::Communication : Metric::WaitCaused;
}

void RankStepHeatmap::setMetric(Metric m)
{
    m_metricChosen = true;
    m_metric = m;
    if (m_metricBox && m_metricBox->currentIndex() != static_cast<int>(m)) {
        const QSignalBlocker block(m_metricBox);
        m_metricBox->setCurrentIndex(static_cast<int>(m));
    }
    rebuild();
}

double RankStepHeatmap::valueMs(int rankIndex, int stepIndex) const
{
    if (rankIndex < 0 || rankIndex >= static_cast<int>(m_values.size()) || stepIndex < 0 ||
        stepIndex >= static_cast<int>(m_steps.size()))
        return NAN;
    return m_values[rankIndex][stepIndex];
}

void RankStepHeatmap::rebuild()
{
    std::set<int> steps;
    m_ranks.clear();
    for (std::size_t r = 0; r < m_reports.size(); ++r) {
        const auto& rank = m_reports[r]->trace ? m_reports[r]->trace->rank() : std::nullopt;
        m_ranks.push_back(rank ? *rank : static_cast<int>(r));
        for (const StepStats& s : m_reports[r]->steps)
            steps.insert(s.step);
    }
    m_steps.assign(steps.begin(), steps.end());
    m_values.assign(m_reports.size(), std::vector<double>(m_steps.size(), NAN));
    for (std::size_t r = 0; r < m_reports.size(); ++r) {
        std::map<int, TimeNs> extra; // step -> extra internal memcpy of its collectives
        if (m_metric == Metric::ExtraMemcpy)
            for (const Collective& c : m_reports[r]->collectives)
                if (c.step) extra[*c.step] += c.extraMemcpyNs;
        for (const StepStats& s : m_reports[r]->steps) {
            const auto idx =
                std::lower_bound(m_steps.begin(), m_steps.end(), s.step) - m_steps.begin();
            TimeNs v = 0;
            switch (m_metric) {
            case Metric::Communication:
                v = s.communication;
                break;
            case Metric::CommunicationNotOverlapped:
                v = s.communicationNotOverlapped;
                break;
            case Metric::InternalMemcpy:
                v = s.internalMemcpy;
                break;
            case Metric::Computing:
                v = s.computing;
                break;
            case Metric::ExtraMemcpy:
                v = extra.count(s.step) ? extra[s.step] : 0;
                break;
            case Metric::WaitCaused: {
                auto it = m_waitCaused.find({m_ranks[r], s.step});
                v = it != m_waitCaused.end() ? it->second : 0;
                break;
            }
            }
            m_values[r][idx] = static_cast<double>(v) / 1e6;
        }
    }
    const int nx = std::max<int>(1, static_cast<int>(m_steps.size()));
    const int ny = std::max<int>(1, static_cast<int>(m_reports.size()));
    // Cells centred on integer coordinates: x = step index, y = rank index.
    m_map->data()->setSize(nx, ny);
    m_map->data()->setRange(QCPRange(0, nx - 1), QCPRange(0, ny - 1));
    for (int x = 0; x < nx; ++x)
        for (int y = 0; y < ny; ++y)
            m_map->data()->setCell(x, y, valueMs(y, x));
    m_map->rescaleDataRange(true);
    m_plot->xAxis->setRange(-0.5, nx - 0.5);
    m_plot->yAxis->setRange(-0.5, ny - 0.5);
    auto xt = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i < static_cast<int>(m_steps.size()); ++i)
        xt->addTick(i, QString::number(m_steps[i]));
    m_plot->xAxis->setTicker(xt);
    auto yt = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i < static_cast<int>(m_ranks.size()); ++i)
        yt->addTick(i, QString::number(m_ranks[i]));
    m_plot->yAxis->setTicker(yt);
    plots::replotWhenShown(m_plot, QCustomPlot::rpRefreshHint);
}

std::optional<std::pair<int, int>> RankStepHeatmap::cellAt(const QPoint& pos) const
{
    if (!m_plot->axisRect()->rect().contains(pos)) return std::nullopt;
    const int x = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(pos.x())));
    const int y = static_cast<int>(std::lround(m_plot->yAxis->pixelToCoord(pos.y())));
    if (x < 0 || y < 0 || x >= static_cast<int>(m_steps.size()) ||
        y >= static_cast<int>(m_ranks.size()))
        return std::nullopt;
    return std::make_pair(y, x);
}

QPoint RankStepHeatmap::cellCenter(int rankIndex, int stepIndex) const
{
    return QPoint(static_cast<int>(m_plot->xAxis->coordToPixel(stepIndex)),
                  static_cast<int>(m_plot->yAxis->coordToPixel(rankIndex)));
}

void RankStepHeatmap::onMousePress(QMouseEvent* e)
{
    if (auto cell = cellAt(e->pos()); cell && !std::isnan(valueMs(cell->first, cell->second)))
        emit cellClicked(m_ranks[cell->first], m_steps[cell->second]);
}

void RankStepHeatmap::onMouseMove(QMouseEvent* e)
{
    auto cell = cellAt(e->pos());
    if (!cell) {
        QToolTip::hideText();
        return;
    }
    const double v = valueMs(cell->first, cell->second);
    QToolTip::showText(e->globalPosition().toPoint(),
                       tr("rank %1 · step %2\n%3 ms")
                           .arg(m_ranks[cell->first])
                           .arg(m_steps[cell->second])
                           .arg(std::isnan(v) ? QString("—") : QString::number(v, 'f', 3)),
                       m_plot);
}

void RankStepHeatmap::setSession(Session* session)
{
    // Ranks by steps: a job's only.
    connect(session, &Session::traceLoaded, this, [this, session] {
        if (!session->isJob()) setReports({});
    });
    session->followReport(this, [this, session] {
        if (const JobSessionPtr job = session->job())
            setReports(job->localReports, job->jobReport ? &*job->jobReport : nullptr);
    });
    connect(this, &RankStepHeatmap::cellClicked, session, &Session::requestStep);
}

} // namespace rs
