#include "ui/comm/commmatrixview.h"

#include "ui/session/session.h"

#include "core/analysis/presentation.h"
#include "ui/plots/plotexport.h"
#include "ui/plots/plotstyle.h"
#include "ui/theme/theme.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QSignalBlocker>
#include <QSplitter>
#include <QToolTip>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace rs {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

double luminance(const QColor& c)
{
    return 0.299 * c.redF() + 0.587 * c.greenF() + 0.114 * c.blueF();
}

} // namespace

CommMatrixView::CommMatrixView(QWidget* parent) : QWidget(parent)
{
    m_model = new CommMatrixModel(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* row = new QHBoxLayout;
    row->setContentsMargins(4, 2, 4, 0);
    auto label = [&](const QString& text) {
        auto* l = new QLabel(text, this);
        row->addWidget(l);
        return l;
    };
    label(tr("Show:"));
    m_metricBox = new QComboBox(this);
    m_metricBox->setObjectName(QStringLiteral("commMetric"));
    m_metricBox->addItems({tr("Bytes"), tr("GB/s"), tr("Utilisation of peak"), tr("Transport")});
    row->addWidget(m_metricBox);
    label(tr("Step:"));
    m_stepBox = new QComboBox(this);
    m_stepBox->setObjectName(QStringLiteral("commStep"));
    m_stepBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    row->addWidget(m_stepBox);
    label(tr("Ops:"));
    m_opBox = new QComboBox(this);
    m_opBox->setObjectName(QStringLiteral("commOps"));
    m_opBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    row->addWidget(m_opBox);
    m_groupLabel = label(tr("Group:"));
    m_groupBox = new QComboBox(this);
    m_groupBox->setObjectName(QStringLiteral("commGroup"));
    m_groupBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    row->addWidget(m_groupBox);
    m_unloadedBox = new QCheckBox(tr("Ranks not loaded"), this);
    m_unloadedBox->setObjectName(QStringLiteral("commUnloaded"));
    m_unloadedBox->setToolTip(tr("Show the group ranks no loaded rank speaks for: empty rows, "
                                 "and columns of what the loaded ranks sent them"));
    m_unloadedBox->setVisible(false);
    row->addWidget(m_unloadedBox);
    connect(m_unloadedBox, &QCheckBox::toggled, this, [this](bool on) {
        m_model->setShowUnloaded(on);
        if (m_selected && !m_model->cell(m_selected->first, m_selected->second)) m_selected.reset();
        rebuild();
    });
    m_note = new QLabel(this);
    m_note->setEnabled(false); // dim: a hint, not data
    m_note->setWordWrap(true);
    m_note->setMinimumWidth(1);
    row->addWidget(m_note, 1);
    layout->addLayout(row);

    auto* split = new QSplitter(Qt::Horizontal, this);
    m_plot = new QCustomPlot(split);
    m_plot->setObjectName(QStringLiteral("commMatrixPlot"));
    m_plot->setMinimumSize(300, 200);
    m_plot->setMouseTracking(true);
    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(0, 1, m_scale);
    m_map->setColorScale(m_scale);
    m_map->setInterpolate(false);
    m_plot->xAxis->setLabel(tr("to rank (dst)"));
    m_plot->yAxis->setLabel(tr("from rank (src)"));
    m_plot->yAxis->setRangeReversed(true); // rank 0 on top, as in the timeline
    auto* margins = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
    m_mark = new QCPItemRect(m_plot);
    m_mark->setBrush(Qt::NoBrush);
    m_mark->setVisible(false);
    m_mark->setLayer(QStringLiteral("overlay"));
    // A theme change recolours the ramp, the cell values and the mark in place.
    setPlotRestyler(m_plot, [this](const ThemePalette& p) { restyle(p); });

    auto* side = new QWidget(split);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(4, 0, 0, 0);
    m_cellTitle = new QLabel(tr("Click a cell to list its transfers"), side);
    m_cellTitle->setWordWrap(true);
    m_cellTitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_cellTitle->setMinimumWidth(1); // op names run long: never widen the window
    m_list = new QTreeWidget(side);
    m_list->setObjectName(QStringLiteral("commTransfers"));
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setHeaderLabels({tr("Rank"), tr("Step"), tr("Ops"), tr("Op"), tr("Transport"),
                             tr("Size"), tr("Time"), tr("GB/s"), tr("Tasks")});
    m_list->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    sideLayout->addWidget(m_cellTitle);
    sideLayout->addWidget(m_list, 1);
    split->addWidget(m_plot);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    connect(m_metricBox, &QComboBox::currentIndexChanged, this,
            [this](int i) { setMetric(static_cast<CommMatrixModel::Metric>(i)); });
    for (QComboBox* box : {m_stepBox, m_opBox, m_groupBox})
        connect(box, &QComboBox::currentIndexChanged, this, [this] { applyCombos(); });
    connect(m_plot, &QCustomPlot::mousePress, this, &CommMatrixView::onMousePress);
    connect(m_plot, &QCustomPlot::mouseMove, this, &CommMatrixView::onMouseMove);
    // Labels show only where the cells are large enough for them, at the size being drawn.
    connect(m_plot, &QCustomPlot::afterLayout, this, &CommMatrixView::updateLabels);
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_plot, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QMenu menu(this);
        plots::addExportActions(&menu, m_plot, this, QStringLiteral("communication-matrix"));
        menu.exec(m_plot->mapToGlobal(pos));
    });
    connect(m_list, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        if (!m_selected) return;
        const CommCell* c = m_model->cell(m_selected->first, m_selected->second);
        const int i = item->data(0, Qt::UserRole).toInt();
        if (c && i >= 0 && i < static_cast<int>(c->parts.size()))
            emit transfersSelected(c->parts[std::size_t(i)].entry->tasks);
    });
    refillCombos();
    rebuild();
}

void CommMatrixView::setReports(std::vector<ReportPtr> reports)
{
    m_model->setReports(std::move(reports));
    refillCombos();
    if (m_selected && !m_model->cell(m_selected->first, m_selected->second)) m_selected.reset();
    rebuild();
}

void CommMatrixView::setMetric(CommMatrixModel::Metric m)
{
    if (m_metricBox->currentIndex() != static_cast<int>(m)) {
        const QSignalBlocker block(m_metricBox);
        m_metricBox->setCurrentIndex(static_cast<int>(m));
    }
    m_model->setMetric(m);
    rebuild();
}

void CommMatrixView::setScope(std::optional<int> step, const QString& opGroup, const QString& group)
{
    m_model->setScope(step, opGroup, group);
    refillCombos();
    if (m_selected && !m_model->cell(m_selected->first, m_selected->second)) m_selected.reset();
    rebuild();
}

void CommMatrixView::refillCombos()
{
    const QSignalBlocker b1(m_stepBox), b2(m_opBox), b3(m_groupBox);
    m_stepBox->clear();
    m_stepBox->addItem(tr("All steps"), QVariant());
    for (int s : m_model->steps())
        m_stepBox->addItem(tr("step %1").arg(s), s);
    const auto step = m_model->step();
    m_stepBox->setCurrentIndex(step ? std::max(0, m_stepBox->findData(*step)) : 0);
    m_opBox->clear();
    m_opBox->addItem(tr("All ops (totals)"), QString());
    for (const QString& g : m_model->opGroups())
        m_opBox->addItem(g, g);
    m_opBox->setCurrentIndex(std::max(0, m_opBox->findData(m_model->opGroup())));
    m_groupBox->clear();
    m_groupBox->addItem(tr("All groups"), QString());
    for (const QString& g : m_model->groups())
        m_groupBox->addItem(g, g);
    m_groupBox->setCurrentIndex(std::max(0, m_groupBox->findData(m_model->group())));
    // One group is the common case: no choice to offer.
    const bool groups = m_model->groups().size() > 1;
    m_groupBox->setVisible(groups);
    m_groupLabel->setVisible(groups);
}

void CommMatrixView::applyCombos()
{
    const QVariant step = m_stepBox->currentData();
    m_model->setScope(step.isValid() ? std::optional<int>(step.toInt()) : std::nullopt,
                      m_opBox->currentData().toString(), m_groupBox->currentData().toString());
    if (m_selected && !m_model->cell(m_selected->first, m_selected->second)) m_selected.reset();
    rebuild();
    if (m_selected) selectCell(m_selected->first, m_selected->second);
}

void CommMatrixView::rebuild()
{
    using Metric = CommMatrixModel::Metric;
    const Metric metric = m_model->metric();
    const auto& ranks = m_model->ranks();
    const int n = std::max<int>(1, static_cast<int>(ranks.size()));
    // Cells centred on integer coordinates: x = dst index, y = src index.
    m_map->data()->setSize(n, n);
    m_map->data()->setRange(QCPRange(0, n - 1), QCPRange(0, n - 1));
    double maxValue = 0;
    for (QCPItemRect* r : m_selfCells)
        m_plot->removeItem(r);
    m_selfCells.clear();
    m_selfValues.clear();
    std::vector<double> linkValues;
    for (int x = 0; x < n; ++x) {
        for (int y = 0; y < n; ++y) {
            const CommCell* c = m_model->cellAt(y, x);
            double v = c ? m_model->value(*c) : NAN;
            if (metric == Metric::Utilization) v *= 100; // the scale reads in percent
            // A rank's traffic with itself is no link: apart from the ramp (a neutral cell),
            // or the links' colours would be scaled to it (its copies dwarf them).
            if (c && CommMatrixModel::isSelf(*c) && metric != Metric::Transport) {
                m_selfValues.push_back(v);
                v = NAN;
                auto* r = new QCPItemRect(m_plot);
                r->topLeft->setCoords(x - 0.5, y - 0.5);
                r->bottomRight->setCoords(x + 0.5, y + 0.5);
                r->setClipToAxisRect(true);
                r->setSelectable(false);
                m_selfCells.push_back(r);
            }
            m_map->data()->setCell(x, y, v);
            if (std::isfinite(v)) {
                maxValue = std::max(maxValue, v);
                linkValues.push_back(v);
            }
        }
    }
    // GB/s and MB: a diverging scale around the links' median, so that equal links are one
    // neutral colour (not all red) and the outlier stands out; self cells the same way around
    // theirs (restyle), so the copying rank's own cell stands out among the diagonal.
    auto median = [](std::vector<double> v) {
        v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }),
                v.end());
        if (v.empty()) return double(NAN);
        std::sort(v.begin(), v.end());
        return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    };
    auto spread = [](const std::vector<double>& v, double mid) {
        double d = 0;
        for (double x : v)
            if (std::isfinite(x)) d = std::max(d, std::abs(x - mid));
        // Equal to a few percent: one colour, the neutral middle.
        return std::max(d, std::max(1e-9, 0.05 * std::abs(mid)));
    };
    m_linkMedian = median(linkValues);
    m_linkSpread = std::isfinite(m_linkMedian) ? spread(linkValues, m_linkMedian) : 1.0;
    m_selfMedian = median(m_selfValues);
    m_selfSpread = std::isfinite(m_selfMedian) ? spread(m_selfValues, m_selfMedian) : 1.0;
    if (metric == Metric::Transport) {
        // One flat band per transport, centred on its integer value so the scale's labels
        // sit in the middle of their colour.
        const int k = static_cast<int>(CommMatrixModel::transportNames().size());
        m_map->setDataRange(QCPRange(-0.5, k - 0.5));
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        for (int i = 0; i < k; ++i)
            ticker->addTick(i, CommMatrixModel::transportNames()[i]);
        m_scale->axis()->setTicker(ticker);
        m_scale->setLabel(tr("transport"));
    } else {
        m_scale->axis()->setTicker(QSharedPointer<QCPAxisTicker>::create());
        m_scale->axis()->setNumberFormat(QStringLiteral("gb"));
        m_scale->axis()->setNumberPrecision(6);
        if (metric == Metric::Utilization) {
            // Against the peak: 100% is the reference, whatever the busiest link reaches.
            m_map->setDataRange(QCPRange(0, std::max(100.0, maxValue)));
            m_scale->setLabel(tr("% of the link's peak"));
        } else if ((metric == Metric::Gbps || metric == Metric::Bytes) &&
                   std::isfinite(m_linkMedian)) {
            m_map->setDataRange(QCPRange(m_linkMedian - m_linkSpread, m_linkMedian + m_linkSpread));
            // Three ticks with the decimals their step needs: a narrow range around the median
            // must neither repeat a label nor widen the scale (and shrink the cells below their
            // values' width).
            m_scale->axis()->ticker()->setTickCount(3);
            const double step = 2 * m_linkSpread / 3;
            const int decimals = std::clamp(int(std::ceil(-std::log10(step))), 0, 6);
            m_scale->axis()->setNumberFormat(QStringLiteral("f"));
            m_scale->axis()->setNumberPrecision(decimals);
            // The middle of the scale is the links' median: its title says so, briefly (a
            // long title squeezed the heatmap).
            m_scale->setLabel(metric == Metric::Gbps
                                  ? tr("GB/s, median %1").arg(QString::number(m_linkMedian, 'g', 3))
                                  : tr("MB, median %1").arg(QString::number(m_linkMedian, 'g', 3)));
        } else {
            m_map->setDataRange(QCPRange(0, maxValue > 0 ? maxValue : 1));
            m_scale->setLabel(metric == Metric::Bytes ? tr("MB") : tr("GB/s"));
        }
    }
    m_map->setGradient(gradientOf(metric, currentPalette()));
    m_plot->xAxis->setRange(-0.5, n - 0.5);
    m_plot->yAxis->setRange(-0.5, n - 0.5);
    // Every rank labelled up to 16, then every k-th so the numbers never run together.
    const int every = std::max(1, (n + 15) / 16);
    auto xt = QSharedPointer<QCPAxisTickerText>::create();
    auto yt = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i < static_cast<int>(ranks.size()); i += every) {
        xt->addTick(i, QString::number(ranks[std::size_t(i)]));
        yt->addTick(i, QString::number(ranks[std::size_t(i)]));
    }
    m_plot->xAxis->setTicker(xt);
    m_plot->yAxis->setTicker(yt);

    // Value labels in the cells, for matrices small enough to read them.
    for (QCPItemText* t : m_labels)
        m_plot->removeItem(t);
    m_labels.clear();
    if (ranks.size() <= 24) {
        for (int x = 0; x < n; ++x) {
            for (int y = 0; y < n; ++y) {
                const CommCell* c = m_model->cellAt(y, x);
                if (!c) continue;
                auto* t = new QCPItemText(m_plot);
                t->position->setCoords(x, y);
                t->setPositionAlignment(Qt::AlignCenter);
                t->setText(CommMatrixModel::isSelf(*c) && metric != Metric::Transport
                               ? tr("self\n%1").arg(CommMatrixModel::valueText(*c, metric))
                               : CommMatrixModel::valueText(*c, metric));
                t->setClipToAxisRect(true);
                m_labels.push_back(t);
            }
        }
    }
    restyle(currentPalette());
    if (m_selected) {
        const int x = m_model->indexOfRank(m_selected->second),
                  y = m_model->indexOfRank(m_selected->first);
        m_mark->topLeft->setCoords(x - 0.5, y - 0.5);
        m_mark->bottomRight->setCoords(x + 0.5, y + 0.5);
        m_mark->setVisible(x >= 0 && y >= 0);
    } else {
        m_mark->setVisible(false);
    }
    // Kineto/NCCL traces have no per-link tasks: say where their link figures are instead.
    m_note->setText(ranks.empty() ? tr("No communication matrix: it needs HCCL transfer tasks with "
                                       "src/dst ranks (torch_npu, profiler level 1 or 2). For NCCL "
                                       "the details of a collective show its bus bandwidth "
                                       "against its link.")
                                  : m_model->rankNote());
    m_unloadedBox->setVisible(!m_model->unloadedRanks().empty());
    plots::replotWhenShown(m_plot, QCustomPlot::rpRefreshHint);
    fillList();
}

QColor CommMatrixView::transportColor(int i, const ThemePalette& p)
{
    // In CommMatrixModel::transportNames() order: local copies grey, HCCS the collective blue,
    // PCIe orange (the transfer that should have stayed on HCCS stands out), SIO teal, RDMA
    // purple, other brown, mixed red.
    const QColor colors[] = {p.transportLocal, p.plotCollective, p.transportPcie, p.transportSio,
                             p.transportRdma,  p.transportOther, p.plotAnomalous};
    return colors[std::clamp(i, 0, 6)];
}

QCPColorGradient CommMatrixView::gradientOf(CommMatrixModel::Metric metric, const ThemePalette& p)
{
    QCPColorGradient g;
    if (metric == CommMatrixModel::Metric::Transport) {
        const int k = static_cast<int>(CommMatrixModel::transportNames().size());
        for (int i = 0; i < k; ++i) {
            g.setColorStopAt((i + 0.02) / k, transportColor(i, p));
            g.setColorStopAt((i + 0.98) / k, transportColor(i, p));
        }
    } else if (metric == CommMatrixModel::Metric::Gbps) {
        // Diverging around the median (the middle of the range): slower links red, faster
        // blue, the median a neutral grey that reads as "as the others".
        g.setColorStopAt(0.0, p.heatHigh);
        g.setColorStopAt(0.5, p.transportLocal);
        g.setColorStopAt(1.0, p.plotCollective);
    } else if (metric == CommMatrixModel::Metric::Bytes) {
        // The same around the median: more bytes red, fewer blue, as the others grey.
        g.setColorStopAt(0.0, p.plotCollective);
        g.setColorStopAt(0.5, p.transportLocal);
        g.setColorStopAt(1.0, p.heatHigh);
    } else {
        // Navy -> amber -> red, as the rank x step heatmap: the hottest cells never look empty.
        g.setColorStopAt(0.0, p.heatLow);
        g.setColorStopAt(0.5, p.heatMid);
        g.setColorStopAt(1.0, p.heatHigh);
    }
    g.setNanHandling(QCPColorGradient::nhTransparent);
    return g;
}

void CommMatrixView::restyle(const ThemePalette& p)
{
    m_map->setGradient(gradientOf(m_model->metric(), p));
    m_mark->setPen(QPen(p.plotHighlight, 3));
    // The diagonal (a rank with itself): outlined apart from the links; in GB/s and MB its
    // fill on the same ramp, scaled around the other self cells' median (a copying rank's
    // self cell stands out among them); else a neutral hatch.
    m_selfColors.clear();
    const CommMatrixModel::Metric metric = m_model->metric();
    const bool scaled =
        (metric == CommMatrixModel::Metric::Gbps || metric == CommMatrixModel::Metric::Bytes) &&
        std::isfinite(m_selfMedian);
    for (std::size_t i = 0; i < m_selfCells.size(); ++i) {
        QCPItemRect* r = m_selfCells[i];
        r->setPen(QPen(p.plotText, 1, Qt::DashLine));
        const double v = i < m_selfValues.size() ? m_selfValues[i] : NAN;
        if (scaled && std::isfinite(v)) {
            const QCPRange range = m_map->dataRange();
            // The self cells' median in the ramp's middle, their widest in its ends.
            const double t = 0.5 + 0.5 * (v - m_selfMedian) / m_selfSpread;
            const QColor c = m_map->gradient().color(
                range.lower + std::clamp(t, 0.0, 1.0) * range.size(), range);
            r->setBrush(c);
            m_selfColors.push_back(c);
        } else {
            r->setBrush(QBrush(p.plotGrid, Qt::BDiagPattern));
            m_selfColors.push_back(QColor());
        }
    }
    // Cell values in the ink that reads on their cell's colour.
    for (QCPItemText* t : m_labels) {
        const QPointF at = t->position->coords();
        const double v = m_map->data()->cell(int(std::lround(at.x())), int(std::lround(at.y())));
        if (!std::isfinite(v)) {
            // A self cell: on its own fill, else on the plot's background.
            QColor fill;
            for (std::size_t i = 0; i < m_selfCells.size() && i < m_selfColors.size(); ++i)
                if (m_selfCells[i]->topLeft->coords().x() + 0.5 == at.x() &&
                    m_selfCells[i]->topLeft->coords().y() + 0.5 == at.y())
                    fill = m_selfColors[i];
            t->setColor(!fill.isValid()          ? p.plotText
                        : luminance(fill) < 0.55 ? p.heatTextOnDark
                                                 : p.heatTextOnLight);
            continue;
        }
        const QColor bg = m_map->gradient().color(v, m_map->dataRange());
        t->setColor(luminance(bg) < 0.55 ? p.heatTextOnDark : p.heatTextOnLight);
    }
    plots::replotWhenShown(m_plot);
}

void CommMatrixView::updateLabels()
{
    if (m_labels.empty()) return;
    const QRect r = m_plot->axisRect()->rect();
    const int n = std::max<int>(1, static_cast<int>(m_model->ranks().size()));
    const double cw = double(r.width()) / n, ch = double(r.height()) / n;
    const QFontMetrics fm(m_labels.front()->font());
    for (QCPItemText* t : m_labels) {
        const QRect tr = fm.boundingRect(QRect(0, 0, 100000, 100000), Qt::AlignLeft | Qt::AlignTop,
                                         t->text()); // "self\n…": 2 lines
        t->setVisible(tr.width() + 6 <= cw && tr.height() + 2 <= ch);
    }
}

double CommMatrixView::scaleUpper() const
{
    return m_map->dataRange().upper;
}

int CommMatrixView::visibleCellLabels() const
{
    return static_cast<int>(std::count_if(m_labels.begin(), m_labels.end(),
                                          [](QCPItemText* t) { return t->visible(); }));
}

void CommMatrixView::fillList()
{
    m_list->clear();
    const CommCell* c = m_selected ? m_model->cell(m_selected->first, m_selected->second) : nullptr;
    if (!c) {
        m_cellTitle->setText(m_model->ranks().empty() ? QString()
                                                      : tr("Click a cell to list its transfers"));
        return;
    }
    QString peak;
    if (std::isfinite(c->peakGbps))
        peak = tr(", %1 of the %2 GB/s peak")
                   .arg(CommMatrixModel::valueText(*c, CommMatrixModel::Metric::Utilization))
                   .arg(c->peakGbps);
    m_cellTitle->setText(tr("%1 · %2: %3 in %4 = %5%6")
                             .arg(m_model->cellTitle(*c), q(c->transport),
                                  CommMatrixModel::valueText(*c, CommMatrixModel::Metric::Bytes),
                                  q(formatDuration(c->ns)),
                                  CommMatrixModel::valueText(*c, CommMatrixModel::Metric::Gbps),
                                  peak));
    for (std::size_t i = 0; i < c->parts.size(); ++i) {
        const MatrixEntry& m = *c->parts[i].entry;
        CommCell one;
        one.bytes = m.bytes;
        one.ns = m.ns;
        auto* item = new QTreeWidgetItem(
            m_list, {m.rank ? QString::number(*m.rank) : QStringLiteral("—"),
                     m.step ? QString::number(*m.step) : QStringLiteral("—"), q(m.opGroup),
                     m.opName ? q(*m.opName) : tr("(all ops)"), q(m.transport),
                     CommMatrixModel::valueText(one, CommMatrixModel::Metric::Bytes),
                     q(formatDuration(m.ns)), QString::number(m.gbps, 'f', 2),
                     QString::number(m.tasks.size())});
        item->setData(0, Qt::UserRole, static_cast<int>(i));
    }
}

bool CommMatrixView::selectCell(int src, int dst)
{
    const CommCell* c = m_model->cell(src, dst);
    if (!c) return false;
    m_selected = std::make_pair(src, dst);
    rebuild();
    emit transfersSelected(c->tasks);
    return true;
}

std::optional<std::pair<int, int>> CommMatrixView::cellAt(const QPoint& pos) const
{
    if (!m_plot->axisRect()->rect().contains(pos)) return std::nullopt;
    const int x = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(pos.x())));
    const int y = static_cast<int>(std::lround(m_plot->yAxis->pixelToCoord(pos.y())));
    const auto& ranks = m_model->ranks();
    if (x < 0 || y < 0 || x >= static_cast<int>(ranks.size()) ||
        y >= static_cast<int>(ranks.size()))
        return std::nullopt;
    return std::make_pair(ranks[std::size_t(y)], ranks[std::size_t(x)]);
}

QPoint CommMatrixView::cellCenter(int src, int dst) const
{
    return QPoint(static_cast<int>(m_plot->xAxis->coordToPixel(m_model->indexOfRank(dst))),
                  static_cast<int>(m_plot->yAxis->coordToPixel(m_model->indexOfRank(src))));
}

std::vector<QWidget*> CommMatrixView::controls() const
{
    std::vector<QWidget*> out;
    for (QWidget* w : std::initializer_list<QWidget*>{m_metricBox, m_stepBox, m_opBox, m_groupBox,
                                                      m_groupLabel, m_note})
        if (w->isVisible()) out.push_back(w);
    return out;
}

void CommMatrixView::onMousePress(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton) return;
    if (auto cell = cellAt(e->pos())) selectCell(cell->first, cell->second);
}

void CommMatrixView::onMouseMove(QMouseEvent* e)
{
    auto cell = cellAt(e->pos());
    const CommCell* c = cell ? m_model->cell(cell->first, cell->second) : nullptr;
    if (!c) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(e->globalPosition().toPoint(), m_model->tooltip(*c), m_plot);
}

void CommMatrixView::setSession(Session* session)
{
    followRankReports(session, this);
}

} // namespace rs
