#include "ui/panes/criticalpathpane.h"

#include "core/timeconv.h"
#include "ui/session/session.h"
#include "ui/theme/theme.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHelpEvent>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>

#include <set>

namespace rs {

namespace {

QString duration(TimeNs ns)
{
    return QString::fromStdString(formatDuration(ns));
}

double share(TimeNs part, TimeNs whole)
{
    return whole > 0 ? 100.0 * double(part) / double(whole) : 0.0;
}

} // namespace

// ---- CriticalPathModel

void CriticalPathModel::setPath(const StepPath* path, TimeNs origin)
{
    beginResetModel();
    m_path = path;
    m_origin = origin;
    endResetModel();
}

int CriticalPathModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_path ? 0 : int(m_path->segments.size());
}

int CriticalPathModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : kColumns;
}

QVariant CriticalPathModel::data(const QModelIndex& index, int role) const
{
    if (!m_path || !index.isValid() || index.row() >= rowCount()) return {};
    const PathSegment& s = m_path->segments[std::size_t(index.row())];
    const TimeNs len = s.end - s.start;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case RankColumn:
            return s.rank ? QVariant(*s.rank) : QVariant(QStringLiteral("–"));
        case KindColumn:
            return CriticalPathLayer::kindLabel(s.kind);
        case NameColumn:
            return QString::fromStdString(s.name);
        case StartColumn:
            return duration(s.start - m_origin);
        case DurationColumn:
            return duration(len);
        case ShareColumn:
            return QStringLiteral("%1%").arg(share(len, m_path->end - m_path->start), 0, 'f', 1);
        }
    } else if (role == Qt::DecorationRole && index.column() == KindColumn) {
        return CriticalPathLayer::kindColor(s.kind, currentPalette());
    } else if (role == Qt::TextAlignmentRole && index.column() >= StartColumn) {
        return int(Qt::AlignRight | Qt::AlignVCenter);
    } else if (role == Qt::ToolTipRole) {
        return QStringLiteral("%1 · %2 · %3 from %4")
            .arg(CriticalPathLayer::kindLabel(s.kind), QString::fromStdString(s.name),
                 duration(len), duration(s.start - m_origin));
    } else if (role == Qt::UserRole) {
        return qlonglong(s.event == kNone ? -1 : qlonglong(s.event));
    }
    return {};
}

QVariant CriticalPathModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[kColumns] = {"Rank", "Kind", "Name", "Start", "Duration", "Share"};
    return section >= 0 && section < kColumns ? QString::fromLatin1(names[section]) : QVariant();
}

// ---- PathKindBar

PathKindBar::PathKindBar(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setMouseTracking(true);
}

void PathKindBar::setByKind(const std::array<TimeNs, kPathKinds>& byKind)
{
    m_byKind = byKind;
    update();
}

QSize PathKindBar::sizeHint() const
{
    return {320, fontMetrics().height() + 22};
}

QRectF PathKindBar::partRect(PathKind k) const
{
    TimeNs total = 0;
    for (TimeNs v : m_byKind)
        total += v;
    if (total <= 0) return {};
    const QRectF bar(4, 4, width() - 8, 14);
    double x = bar.left();
    for (int i = 0; i < kPathKinds; ++i) {
        const double w = bar.width() * double(m_byKind[std::size_t(i)]) / double(total);
        if (i == int(k)) return w > 0 ? QRectF(x, bar.top(), w, bar.height()) : QRectF();
        x += w;
    }
    return {};
}

void PathKindBar::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const ThemePalette& pal = currentPalette();
    TimeNs total = 0;
    for (TimeNs v : m_byKind)
        total += v;
    const QRectF bar(4, 4, width() - 8, 14);
    p.fillRect(bar, pal.breakdownTrack);
    QStringList parts;
    for (int i = 0; i < kPathKinds; ++i) {
        const auto k = PathKind(i);
        const QRectF r = partRect(k);
        if (!r.isEmpty()) p.fillRect(r, CriticalPathLayer::kindColor(k, pal));
        if (m_byKind[std::size_t(i)] > 0) {
            // A share under half a percent still says it is there.
            const double pct = share(m_byKind[std::size_t(i)], total);
            parts << QStringLiteral("%1 %2").arg(
                CriticalPathLayer::kindLabel(k),
                pct < 0.5 ? QStringLiteral("<1%") : QStringLiteral("%1%").arg(pct, 0, 'f', 0));
        }
    }
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(
        QRectF(4, bar.bottom() + 2, width() - 8, height() - bar.bottom() - 2),
        Qt::AlignLeft | Qt::AlignVCenter,
        fontMetrics().elidedText(parts.join(QStringLiteral(" · ")), Qt::ElideRight, width() - 8));
}

bool PathKindBar::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        TimeNs total = 0;
        for (TimeNs v : m_byKind)
            total += v;
        for (int i = 0; i < kPathKinds; ++i)
            if (partRect(PathKind(i)).contains(help->pos())) {
                QToolTip::showText(help->globalPos(),
                                   QStringLiteral("%1: %2 (%3% of the step)")
                                       .arg(CriticalPathLayer::kindLabel(PathKind(i)),
                                            duration(m_byKind[std::size_t(i)]))
                                       .arg(share(m_byKind[std::size_t(i)], total), 0, 'f', 1),
                                   this);
                return true;
            }
        QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

// ---- CriticalPathPane

CriticalPathPane::CriticalPathPane(QWidget* parent) : QWidget(parent)
{
    auto* box = new QVBoxLayout(this);
    box->setContentsMargins(4, 4, 4, 4);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Step"), this));
    m_steps = new QComboBox(this);
    m_steps->setObjectName(QStringLiteral("criticalPathStep"));
    m_steps->setMinimumContentsLength(6);
    top->addWidget(m_steps);
    m_summary = new QLabel(this);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    top->addWidget(m_summary, 1);
    m_whatIf = new QPushButton(tr("What if…"), this);
    m_whatIf->setObjectName(QStringLiteral("whatIfButton"));
    m_whatIf->setToolTip(tr("Predict the step times after a change: the internal memcpy gone, "
                            "kernels faster or slower, on every rank or one"));
    top->addWidget(m_whatIf);
    box->addLayout(top);
    m_bar = new PathKindBar(this);
    box->addWidget(m_bar);
    m_model = new CriticalPathModel(this);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("criticalPathTable"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setSectionResizeMode(CriticalPathModel::NameColumn,
                                                      QHeaderView::Stretch);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    box->addWidget(m_table, 1);
    m_table->setColumnWidth(CriticalPathModel::RankColumn,
                            fontMetrics().horizontalAdvance("Rank00"));
    m_table->setColumnWidth(CriticalPathModel::KindColumn,
                            fontMetrics().horizontalAdvance("internal memcpy") + 30);

    connect(m_steps, &QComboBox::activated, this, [this](int i) {
        if (i >= 0) setStep(m_steps->itemData(i).toInt());
    });
    connect(m_table, &QTableView::clicked, this,
            [this](const QModelIndex& index) { activateRow(index.row()); });
    connect(m_table, &QTableView::activated, this,
            [this](const QModelIndex& index) { activateRow(index.row()); });
    connect(m_whatIf, &QPushButton::clicked, this, &CriticalPathPane::whatIfRequested);
    // Kind inks come from the palette.
    connect(ThemeNotifier::instance(), &ThemeNotifier::changed, this, [this] {
        m_bar->update();
        m_table->viewport()->update();
    });
    setLayer(nullptr);
}

void CriticalPathPane::setSession(Session* session)
{
    m_session = session;
    connect(session, &Session::traceLoaded, this, [this] {
        if (!m_session->report()) setLayer(nullptr);
    });
    session->followReport(this, [this] { rebuildFromSession(); });
    // The step of the selected event (in a job its rank's step: the job's step of that number).
    connect(session, &Session::selectionChanged, this, [this](EventId e) {
        if (const auto st = m_session->stepOf(e)) setStep(st->second);
    });
    connect(session, &Session::stepRequested, this, [this](int, int step) { setStep(step); });
}

void CriticalPathPane::rebuildFromSession()
{
    if (!m_session) return;
    std::shared_ptr<const CriticalPathLayer> layer;
    if (const JobSessionPtr job = m_session->job(); job && job->jobReport)
        layer = CriticalPathLayer::forJob(*job);
    else if (const ReportPtr r = m_session->report(); r && r->trace && !m_session->isJob())
        layer = CriticalPathLayer::forReport(*r);
    setLayer(std::move(layer));
}

void CriticalPathPane::setLayer(std::shared_ptr<const CriticalPathLayer> layer)
{
    m_layer = std::move(layer);
    const int keep = m_step;
    m_steps->clear();
    if (m_layer)
        for (const StepPath& p : m_layer->paths())
            m_steps->addItem(QString::number(p.step), p.step);
    m_steps->setEnabled(m_steps->count() > 0);
    m_whatIf->setEnabled(m_layer && !m_layer->empty());
    if (!m_layer || m_layer->empty() || !setStep(keep)) {
        m_step = m_layer && !m_layer->empty() ? m_layer->paths().front().step : 0;
        showStep();
    }
    emit layerChanged(m_layer);
}

bool CriticalPathPane::setStep(int step)
{
    if (!m_layer || !m_layer->path(step)) return false;
    if (step == m_step && m_model->path() == m_layer->path(step)) return true;
    m_step = step;
    showStep();
    return true;
}

const StepPath* CriticalPathPane::currentPath() const
{
    return m_layer ? m_layer->path(m_step) : nullptr;
}

void CriticalPathPane::showStep()
{
    const StepPath* p = currentPath();
    const int at = m_steps->findData(m_step);
    if (at >= 0) m_steps->setCurrentIndex(at);
    const TimeNs origin = m_layer && m_layer->trace() ? m_layer->trace()->startNs() : 0;
    m_model->setPath(p, origin);
    m_bar->setByKind(p ? p->byKind : std::array<TimeNs, kPathKinds>{});
    m_summary->setText(summaryText());
}

QString CriticalPathPane::summaryText() const
{
    if (!m_layer) return tr("No critical path: open a trace with steps");
    if (m_layer->empty()) return tr("No critical path: the trace has no steps");
    const StepPath* p = currentPath();
    if (!p) return {};
    std::set<int> ranks;
    int jumps = 0;
    for (std::size_t i = 0; i < p->segments.size(); ++i) {
        if (p->segments[i].rank) ranks.insert(*p->segments[i].rank);
        if (i > 0 && p->segments[i].rank != p->segments[i - 1].rank) ++jumps;
    }
    return tr("%1 · %n segment(s)", nullptr, int(p->segments.size()))
               .arg(duration(p->end - p->start)) +
           (ranks.size() > 1 ? tr(" · %1 ranks, %2 jump(s)").arg(ranks.size()).arg(jumps)
                             : QString());
}

void CriticalPathPane::activateRow(int row)
{
    const StepPath* p = currentPath();
    if (!p || row < 0 || std::size_t(row) >= p->segments.size()) return;
    const PathSegment& s = p->segments[std::size_t(row)];
    m_table->selectRow(row);
    // The zoom to the segment first: the timeline's reveal then keeps it when the event fits.
    emit segmentActivated(s.start, s.end, s.event);
    if (m_session && s.event != kNone) m_session->requestSelection(s.event);
}

} // namespace rs
