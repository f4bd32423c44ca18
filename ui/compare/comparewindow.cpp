#include "ui/compare/comparewindow.h"

#include "core/job/pooltask.h"

#include "core/compare/comparereport.h"
#include "ui/compare/comparetablemodel.h"
#include "ui/export/exportcomposer.h"
#include "ui/export/renderfile.h"
#include "ui/theme/theme.h"
#include "ui/timeline/timelineview.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace rs {

namespace {

// A step change in percent; one that rounds to nothing has no sign ("-0.0%" reads as a loss).
QString percentText(double pct)
{
    return QStringLiteral("%1%").arg(std::abs(pct) < 0.05 ? 0.0 : pct, 0, 'f', 1);
}

QString dur(const std::optional<TimeNs>& v)
{
    return v ? QString::fromStdString(formatDuration(*v)) : QStringLiteral("–");
}

QString runCaption(const char* side, const CompareRun& run)
{
    const RunDigest& d = run.digest;
    QString text = QStringLiteral("<b>%1</b> · %2 · %3 · %4 rank%5 · %6 step%7 · mean step %8")
                       .arg(QString::fromLatin1(side), run.path.toHtmlEscaped(),
                            QString::fromStdString(d.producer))
                       .arg(d.rankIds.size())
                       .arg(d.rankIds.size() == 1 ? "" : "s")
                       .arg(d.steps.size())
                       .arg(d.steps.size() == 1 ? "" : "s")
                       .arg(dur(d.stepMeanNs));
    if (d.fromSummaries) text += QObject::tr(" · rank summaries (no trace, no ops)");
    if (d.anomalousCount > 0)
        text += QStringLiteral(" · <span style='color:%1'>%2 anomalous collective%3</span>")
                    .arg(currentPalette().worse.name())
                    .arg(d.anomalousCount)
                    .arg(d.anomalousCount == 1 ? "" : "s");
    return text;
}

// The side's report holding every rank's collectives on the merged trace.
ReportPtr combinedOf(const CompareRunPtr& run)
{
    return run && run->session ? run->session->combined : nullptr;
}

TracePtr traceOf(const CompareRunPtr& run)
{
    return run && run->session ? run->session->job.trace : nullptr;
}

} // namespace

CompareWindow::CompareWindow(QWidget* parent) : QWidget(parent, Qt::Window)
{
    setWindowTitle(tr("Compare runs — Ringscope"));
    buildUi();
    resize(1400, 950);
    // The captions' and header's rich text carries colours: written again in the new theme.
    connect(ThemeNotifier::instance(), &ThemeNotifier::changed, this, [this] {
        const CompareRunPtr runs[2] = {m_before, m_after};
        for (int i = 0; i < 2; ++i)
            if (runs[i]) m_captions[i]->setText(runCaption(i == 0 ? "Before" : "After", *runs[i]));
        updateHeader();
        m_table->viewport()->update();
    });
}

CompareWindow::~CompareWindow()
{
    cancelLoad();
}

void CompareWindow::buildUi()
{
    auto* box = new QVBoxLayout(this);
    box->setContentsMargins(6, 6, 6, 6);

    auto* top = new QHBoxLayout;
    m_header = new QLabel(tr("Choose two runs with File > Compare…"), this);
    m_header->setTextFormat(Qt::RichText);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    top->addWidget(m_header, 1);
    top->addWidget(new QLabel(tr("Step:"), this));
    m_stepBox = new QComboBox(this);
    m_stepBox->setMinimumContentsLength(10);
    m_stepBox->setToolTip(tr("Show this step in both runs at one scale"));
    top->addWidget(m_stepBox);
    m_linkBox = new QCheckBox(tr("Align by step"), this);
    m_linkBox->setChecked(true);
    m_linkBox->setToolTip(tr("Keep step N of one run over step N of the other while zooming "
                             "and panning either"));
    top->addWidget(m_linkBox);
    auto* exportButton = new QToolButton(this);
    exportButton->setText(tr("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(exportButton);
    menu->addAction(tr("Timelines as PNG…"), this, [this] { exportImage(QStringLiteral("png")); });
    menu->addAction(tr("Timelines as SVG…"), this, [this] { exportImage(QStringLiteral("svg")); });
    menu->addAction(tr("Timelines as PDF…"), this, [this] { exportImage(QStringLiteral("pdf")); });
    menu->addAction(tr("Copy the comparison as text"), this, [this] {
        if (m_comparison)
            QApplication::clipboard()->setText(
                QString::fromStdString(compareToText(*m_comparison)));
    });
    exportButton->setMenu(menu);
    top->addWidget(exportButton);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(220);
    m_progress->setVisible(false);
    top->addWidget(m_progress);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setVisible(false);
    top->addWidget(m_cancel);
    box->addLayout(top);

    auto* split = new QSplitter(Qt::Vertical, this);
    const char* names[2] = {"Before", "After"};
    for (int i = 0; i < 2; ++i) {
        auto* pane = new QWidget(split);
        auto* pl = new QVBoxLayout(pane);
        pl->setContentsMargins(0, 0, 0, 0);
        pl->setSpacing(2);
        m_captions[i] = new QLabel(QString::fromLatin1(names[i]), pane);
        m_captions[i]->setTextFormat(Qt::RichText);
        pl->addWidget(m_captions[i]);
        m_views[i] = new TimelineView(pane);
        m_views[i]->setObjectName(i == 0 ? QStringLiteral("beforeTimeline")
                                         : QStringLiteral("afterTimeline"));
        pl->addWidget(m_views[i], 1);
        split->addWidget(pane);
        connect(m_views[i], &TimelineView::visibleRangeChanged, this,
                [this, i](TimeNs, TimeNs) { syncFrom(i); });
    }

    auto* tablePane = new QWidget(split);
    auto* tl = new QVBoxLayout(tablePane);
    tl->setContentsMargins(0, 0, 0, 0);
    auto* filters = new QHBoxLayout;
    m_kindBox = new QComboBox(tablePane);
    m_kindBox->addItems({tr("Steps, collectives and ops"), tr("Steps"), tr("Collectives"),
                         tr("Ops (device time changed)")});
    filters->addWidget(m_kindBox);
    m_filterEdit = new QLineEdit(tablePane);
    m_filterEdit->setPlaceholderText(tr("Filter by name…"));
    m_filterEdit->setClearButtonEnabled(true);
    filters->addWidget(m_filterEdit, 1);
    tl->addLayout(filters);
    m_model = new CompareTableModel(this);
    m_filter = new CompareFilterModel(this);
    m_filter->setSourceModel(m_model);
    m_table = new QTableView(tablePane);
    m_table->setModel(m_filter);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(22);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->horizontalHeader()->setSectionResizeMode(CompareTableModel::Name,
                                                      QHeaderView::Stretch);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    tl->addWidget(m_table);
    split->addWidget(tablePane);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 2);
    box->addWidget(split, 1);

    connect(m_cancel, &QPushButton::clicked, this, &CompareWindow::cancelLoad);
    connect(m_linkBox, &QCheckBox::toggled, this, &CompareWindow::setLinked);
    connect(m_stepBox, qOverload<int>(&QComboBox::activated), this, [this](int i) {
        if (i >= 0) showStep(m_stepBox->itemData(i).toInt());
    });
    connect(m_kindBox, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
        m_filter->setKind(i == 0 ? std::nullopt
                                 : std::optional<CompareRow::Kind>(CompareRow::Kind(i - 1)));
    });
    connect(m_filterEdit, &QLineEdit::textChanged, m_filter, &CompareFilterModel::setText);
    connect(m_table, &QTableView::clicked, this,
            [this](const QModelIndex& index) { activateRow(m_filter->mapToSource(index).row()); });
    connect(m_table, &QTableView::activated, this,
            [this](const QModelIndex& index) { activateRow(m_filter->mapToSource(index).row()); });
}

void CompareWindow::compare(const QString& before, const QString& after)
{
    cancelLoad();
    const quint64 generation = m_generation.next();
    m_loading = true;
    m_lastError.clear();
    m_header->setText(tr("Loading %1 and %2…").arg(before.toHtmlEscaped(), after.toHtmlEscaped()));
    // Each chunk read and each rank that ends tells the window (the Session's relay: queued
    // onto the GUI thread, no polling).
    for (auto& p : m_progressState) {
        p = std::make_shared<JobProgress>();
        relayProgress(this, m_generation, generation, p,
                      [this](qint64, qint64, int, int) { showProgress(); });
    }
    m_progress->setValue(0);
    m_progress->setVisible(true);
    m_cancel->setVisible(true);
    auto pb = m_progressState[0], pa = m_progressState[1];
    using Pair = std::pair<CompareRunPtr, CompareRunPtr>;
    // On the pool (the one owner of threads); a closed window drops the result.
    runOnPool<Pair>(
        this,
        [before, after, pb, pa]() -> Pair {
            auto guarded = [](const QString& path, JobProgress* p) -> CompareRunPtr {
                try {
                    return loadCompareRun(path, p);
                } catch (const std::exception& e) {
                    auto run = std::make_shared<CompareRun>();
                    run->path = path;
                    run->errors.emplace_back(e.what());
                    return run;
                }
            };
            CompareRunPtr b = guarded(before, pb.get());
            if (pb->cancel.load()) return {b, nullptr};
            return {b, guarded(after, pa.get())};
        },
        [this, generation](Pair r) { onLoaded(generation, r.first, r.second); });
}

void CompareWindow::showProgress()
{
    std::uint64_t done = 0, total = 0;
    for (const auto& p : m_progressState) {
        if (!p) continue;
        total += p->total.load();
        done += std::min(p->bytesDone(), p->total.load());
    }
    m_progress->setValue(total ? int(1000.0 * double(done) / double(total)) : 0);
}

void CompareWindow::cancelLoad()
{
    for (const auto& p : m_progressState)
        if (p) p->requestCancel();
    if (!m_loading) return;
    m_generation.drop(); // drops the result when it arrives
    m_loading = false;
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    m_header->setText(tr("Loading cancelled"));
}

void CompareWindow::onLoaded(quint64 generation, CompareRunPtr before, CompareRunPtr after)
{
    if (!m_generation.current(generation)) return;
    m_loading = false;
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    QStringList problems;
    for (const CompareRunPtr& r : {before, after}) {
        if (!r) continue;
        for (const std::string& e : r->errors)
            problems << QString::fromStdString(e);
    }
    if (!before || !after || !before->ok() || !after->ok()) {
        m_lastError = problems.isEmpty() ? tr("a run could not be loaded") : problems.join('\n');
        m_header->setText(tr("Cannot compare: %1").arg(m_lastError.toHtmlEscaped()));
        emit loadFailed(m_lastError);
        return;
    }
    setRuns(std::move(before), std::move(after));
    if (!problems.isEmpty()) {
        m_lastError = problems.join('\n');
        auto* box =
            new QMessageBox(QMessageBox::Warning, tr("Some ranks could not be opened"),
                            tr("The comparison uses the ranks that loaded.\n%1").arg(m_lastError),
                            QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
}

void CompareWindow::setRuns(CompareRunPtr before, CompareRunPtr after)
{
    m_before = std::move(before);
    m_after = std::move(after);
    if (!m_before || !m_after) return;
    m_comparison = std::make_unique<RunComparison>(compareRuns(m_before->digest, m_after->digest));
    m_alignment = StepAlignment(m_before->anchors, m_after->anchors);
    m_model->setComparison(m_comparison.get());
    m_table->sortByColumn(-1, Qt::AscendingOrder); // model order: steps, collectives, ops
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setSectionResizeMode(CompareTableModel::Name,
                                                      QHeaderView::Stretch);

    m_syncing = true;
    const CompareRunPtr runs[2] = {m_before, m_after};
    for (int i = 0; i < 2; ++i) {
        m_views[i]->setTrace(traceOf(runs[i]));
        m_views[i]->setReport(combinedOf(runs[i]));
        m_captions[i]->setText(runCaption(i == 0 ? "Before" : "After", *runs[i]));
    }
    m_syncing = false;

    m_stepBox->clear();
    for (const auto& [a, b] : m_alignment.pairs()) {
        const QString label = a.step == b.step ? tr("step %1").arg(a.step)
                                               : tr("step %1 / %2").arg(a.step).arg(b.step);
        m_stepBox->addItem(label, a.step);
    }
    m_stepBox->setEnabled(m_alignment.valid());
    updateHeader();
    setWindowTitle(
        tr("%1 vs %2 — Compare — Ringscope")
            .arg(QFileInfo(m_before->path).fileName(), QFileInfo(m_after->path).fileName()));
    focusLargestChange();
    emit loaded();
}

void CompareWindow::updateHeader()
{
    if (!m_comparison) return;
    const RunComparison& c = *m_comparison;
    QString text = tr("Step time %1 → %2").arg(dur(c.before.stepMeanNs), dur(c.after.stepMeanNs));
    if (const auto d = c.stepDeltaNs()) {
        // Within the noise of the measurement: neither faster nor slower (runcompare.h).
        const bool noise = withinNoise(*d, c.before.stepMeanNs);
        QString delta = (*d > 0 ? "+" : "") + QString::fromStdString(formatDuration(*d));
        if (const auto pct = c.stepDeltaPct()) delta += QStringLiteral(", ") + percentText(*pct);
        text += QStringLiteral(" <b style='color:%1'>(%2)</b>")
                    .arg((noise    ? currentPalette().dimText
                          : *d < 0 ? currentPalette().better
                                   : currentPalette().worse)
                             .name(),
                         delta);
    }
    text += tr(" · extra internal memcpy %1 → %2")
                .arg(QString::fromStdString(formatDuration(c.before.extraMemcpyNs)),
                     QString::fromStdString(formatDuration(c.after.extraMemcpyNs)));
    text += tr(" · findings resolved %1, new %2").arg(c.resolved.size()).arg(c.added.size());
    if (m_alignment.valid() && !m_alignment.byNumber())
        text += tr(" · no step number in common: steps paired in order");
    if (!c.opsAvailable)
        text += tr(" · ops: not available (rank summaries hold no per-op device time)");
    m_header->setText(text);
}

void CompareWindow::setLinked(bool on)
{
    m_linked = on;
    if (m_linkBox->isChecked() != on) m_linkBox->setChecked(on);
    if (on) syncFrom(0);
}

void CompareWindow::syncFrom(int side)
{
    if (m_syncing || !m_linked || !m_alignment.valid() || !m_comparison) return;
    TimelineView* from = m_views[side];
    TimelineView* to = m_views[1 - side];
    const TimeNs t0 = from->visibleStart(), t1 = from->visibleEnd();
    // The step under the centre lines up; both views keep one scale.
    const auto mapped = m_alignment.map(t0, side == 0, t0 + (t1 - t0) / 2);
    if (!mapped) return;
    m_syncing = true;
    to->setVisibleRange(*mapped, *mapped + (t1 - t0));
    m_syncing = false;
}

void CompareWindow::setAlignedRanges(TimeNs before0, TimeNs after0, TimeNs span)
{
    // A view keeps near its trace: when one is held back at a trace end, the other moves by
    // as much, so what was aligned stays aligned.
    const TimeNs want[2] = {before0, after0};
    TimeNs shift = 0;
    for (int round = 0; round < 2; ++round) {
        TimeNs moved[2] = {0, 0};
        for (int i = 0; i < 2; ++i) {
            m_views[i]->setVisibleRange(want[i] + shift, want[i] + shift + span);
            moved[i] = m_views[i]->visibleStart() - (want[i] + shift);
        }
        if (moved[0] == moved[1]) return;
        shift += std::llabs(moved[0]) > std::llabs(moved[1]) ? moved[0] : moved[1];
    }
}

bool CompareWindow::showStep(int step)
{
    const auto pair = m_alignment.pairOf(step, true);
    if (!pair || !m_before || !m_after) return false;
    const auto& [a, b] = *pair;
    const TimeNs span = std::max<TimeNs>({a.end - a.start, b.end - b.start, 1000});
    const TimeNs pad = span / 25;
    m_syncing = true;
    setAlignedRanges(a.start - pad, b.start - pad, span + 2 * pad);
    // Select the step's ProfilerStep of the first rank that has it, on each side.
    const CompareRunPtr runs[2] = {m_before, m_after};
    const int steps[2] = {a.step, b.step};
    for (int i = 0; i < 2; ++i) {
        EventId e = kNone;
        for (const ReportPtr& r : runs[i]->session->perRank) {
            for (const StepStats& s : r->steps)
                if (s.step == steps[i] && s.event != kNone) {
                    e = s.event;
                    break;
                }
            if (e != kNone) break;
        }
        m_views[i]->selectEvent(e, false);
    }
    m_syncing = false;
    const int index = m_stepBox->findData(step);
    if (index >= 0) m_stepBox->setCurrentIndex(index);
    return true;
}

std::optional<int> CompareWindow::focusLargestChange()
{
    if (!m_comparison || m_alignment.pairs().empty()) return std::nullopt;
    // The paired step whose mean time changed most (the first one when none changed).
    int step = m_alignment.pairs().front().first.step;
    TimeNs most = 0;
    for (const StepDelta& s : m_comparison->steps) {
        const auto d = s.deltaNs();
        if (d && std::llabs(*d) > most && m_alignment.pairOf(s.step, true)) {
            most = std::llabs(*d);
            step = s.step;
        }
    }
    showStep(step);
    if (m_comparison->collectives.empty()) return step;
    const CollectiveDelta& g = m_comparison->collectives.front();
    const auto pair = m_alignment.pairOf(step, true);
    const EventId before = pickCollective(0, g.kind, g.pattern, kNone, pair->first.step);
    const EventId after = pickCollective(1, g.kind, afterPatternOf(g), before, pair->second.step);
    m_syncing = true;
    const EventId picks[2] = {before, after};
    for (int i = 0; i < 2; ++i) {
        if (picks[i] == kNone) continue;
        m_views[i]->selectEvent(picks[i], false);
        m_views[i]->revealEvent(picks[i]); // inside the step's range: scrolls its row in
    }
    m_syncing = false;
    return step;
}

std::string CompareWindow::afterPatternOf(const CollectiveDelta& g)
{
    return g.afterPattern.empty() ? g.pattern : g.afterPattern;
}

EventId CompareWindow::pickCollective(int side, CollectiveKind kind, const std::string& pattern,
                                      EventId reference, std::optional<int> step) const
{
    const CompareRunPtr run = side == 0 ? m_before : m_after;
    const ReportPtr rep = combinedOf(run);
    if (!rep) return kNone;
    const CompareRunPtr other = side == 0 ? m_after : m_before;
    // Reference: the pick on the other side; prefer its rank, nearest its aligned time.
    std::optional<int> rank;
    std::optional<TimeNs> near;
    if (reference != kNone && traceOf(other)) {
        const JobTrace& oj = other->session->job;
        const int block = oj.blockOfEvent(reference);
        if (block >= 0) rank = oj.rankIds[std::size_t(block)];
        near = m_alignment.map(oj.trace->slice(reference).start, side == 1);
    }
    const Collective* best = nullptr;
    // Without a reference, the op the change is about: the anomalous one (its extra copy
    // delays the others), then any flagged one, then the longest; a rank that only waited
    // for it is not the place to open on.
    auto weight = [](const Collective& c) {
        return c.anomalous ? 2 : (c.waiting || c.unalignedCount > 0) ? 1 : 0;
    };
    auto better = [&](const Collective& c) {
        if (!best) return true;
        if (near) {
            const bool rc = rank && c.rank == rank, rb = rank && best->rank == rank;
            if (rc != rb) return rc;
            return std::llabs(c.start - *near) < std::llabs(best->start - *near);
        }
        if (weight(c) != weight(*best)) return weight(c) > weight(*best);
        return c.dur > best->dur;
    };
    for (const Collective& c : rep->collectives)
        if (c.kind == kind && c.event != kNone && (!step || c.step == step) &&
            collectivePattern(c.name) == pattern && better(c))
            best = &c;
    return best ? best->event : kNone;
}

EventId CompareWindow::pickOp(int side, const std::string& name, EventId reference) const
{
    const CompareRunPtr run = side == 0 ? m_before : m_after;
    const TracePtr t = traceOf(run);
    if (!t) return kNone;
    const StrId id = t->strings().find(name);
    if (id == StrId(0xffffffffu)) return kNone;
    const CompareRunPtr other = side == 0 ? m_after : m_before;
    std::optional<int> rank;
    std::optional<TimeNs> near;
    if (reference != kNone && traceOf(other)) {
        const JobTrace& oj = other->session->job;
        const int block = oj.blockOfEvent(reference);
        if (block >= 0) rank = oj.rankIds[std::size_t(block)];
        near = m_alignment.map(oj.trace->slice(reference).start, side == 1);
    }
    const JobTrace& job = run->session->job;
    const auto sl = t->slices();
    auto sameRank = [&](EventId e) {
        const int block = job.blockOfEvent(e);
        return rank && block >= 0 && job.rankIds[std::size_t(block)] == *rank;
    };
    // With a reference: the same rank first, then the nearest to its aligned time; without
    // one: the longest.
    auto better = [&](EventId e, EventId than) {
        if (!near) return sl[e].dur > sl[than].dur;
        const bool re = sameRank(e), rt = sameRank(than);
        if (re != rt) return re;
        return std::llabs(sl[e].start - *near) < std::llabs(sl[than].start - *near);
    };
    EventId best = kNone;
    // One pass over the slices (a click, not a frame).
    for (EventId e = 0; e < sl.size(); ++e)
        if (sl[e].name == id && sl[e].dur > 0 && (best == kNone || better(e, best))) best = e;
    return best;
}

void CompareWindow::selectPair(EventId before, EventId after)
{
    const EventId picks[2] = {before, after};
    TimeNs span = 0;
    for (int i = 0; i < 2; ++i)
        if (picks[i] != kNone) span = std::max(span, m_views[i]->trace()->slice(picks[i]).dur);
    span = std::max<TimeNs>(span * 3 / 2, 1000);
    m_syncing = true;
    for (int i = 0; i < 2; ++i) {
        if (picks[i] == kNone) {
            m_views[i]->selectEvent(kNone, false);
            continue;
        }
        m_views[i]->selectEvent(picks[i], false);
    }
    // Centred on the picks, at one scale; with both picks, their starts at the same x.
    TimeNs t0[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
        const EventId e = picks[i] != kNone ? picks[i] : picks[1 - i];
        const Slice& s = m_views[picks[i] != kNone ? i : 1 - i]->trace()->slice(e);
        t0[i] = s.start - (span - s.dur) / 2;
        if (picks[i] == kNone) {
            // Only the other side has it: show the same place of the same step.
            const auto mapped = m_alignment.map(t0[i], i == 1);
            t0[i] = mapped ? *mapped : m_views[i]->visibleStart();
        }
    }
    if (picks[0] != kNone && picks[1] != kNone) {
        const TimeNs d0 = m_views[0]->trace()->slice(picks[0]).dur;
        const TimeNs d1 = m_views[1]->trace()->slice(picks[1]).dur;
        const TimeNs lead = (span - std::max(d0, d1)) / 2;
        t0[0] = m_views[0]->trace()->slice(picks[0]).start - lead;
        t0[1] = m_views[1]->trace()->slice(picks[1]).start - lead;
    }
    setAlignedRanges(t0[0], t0[1], span);
    for (int i = 0; i < 2; ++i)
        if (picks[i] != kNone) m_views[i]->revealEvent(picks[i]); // fits: scrolls its row in
    m_syncing = false;
}

bool CompareWindow::activateRow(int modelRow)
{
    if (!m_comparison || modelRow < 0 || modelRow >= m_model->rowCount()) return false;
    const CompareRow& r = m_model->row(modelRow);
    if (r.kind == CompareRow::Step) return showStep(r.step);
    EventId before = kNone, after = kNone;
    // An op row that is a collective's pattern selects that collective.
    const CollectiveDelta* group = nullptr;
    for (const CollectiveDelta& g : m_comparison->collectives)
        if (g.pattern == r.key && (r.kind == CompareRow::Op || g.kind == r.collectiveKind))
            group = &g;
    if (group) {
        before = pickCollective(0, group->kind, group->pattern, kNone);
        after = pickCollective(1, group->kind, afterPatternOf(*group), before);
        if (before == kNone) before = pickCollective(0, group->kind, group->pattern, after);
    } else {
        before = pickOp(0, r.key, kNone);
        after = pickOp(1, r.key, before);
        if (before == kNone) before = pickOp(0, r.key, after);
    }
    if (before == kNone && after == kNone) return false;
    selectPair(before, after);
    return true;
}

bool CompareWindow::writeImage(const QString& file, QString* error) const
{
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    if (!m_comparison || !traceOf(m_before) || !traceOf(m_after))
        return fail(QStringLiteral("no comparison to export"));
    const auto format = exportFormatFor(file);
    if (!format)
        return fail(
            QStringLiteral("unknown image format for %1: use .png, .svg or .pdf").arg(file));

    const int width = 1600;
    const CompareRunPtr runs[2] = {m_before, m_after};
    std::unique_ptr<ExportComposer> parts[2];
    QSizeF sizes[2];
    for (int i = 0; i < 2; ++i) {
        parts[i] = std::make_unique<ExportComposer>(traceOf(runs[i]), combinedOf(runs[i]), nullptr);
        parts[i]->copyViewState(m_views[i]->renderer());
        ExportOptions o;
        o.width = width;
        o.maxAutoHeight = 1100;
        o.t0 = m_views[i]->visibleStart();
        o.t1 = m_views[i]->visibleEnd();
        o.scrollY = m_views[i]->scrollY();
        o.focus = m_views[i]->selectedEvent();
        o.title = QStringLiteral("%1: %2").arg(i == 0 ? "Before" : "After", runs[i]->path);
        o.legend = i == 0;
        o.topFindings = 2;
        parts[i]->setOptions(o);
        sizes[i] = parts[i]->timelineSize();
    }
    const double header = 44;
    const QSizeF size(width, header + sizes[0].height() + sizes[1].height());
    const RunComparison& c = *m_comparison;
    QString headline = QStringLiteral("Ringscope compare · step time %1 → %2")
                           .arg(dur(c.before.stepMeanNs), dur(c.after.stepMeanNs));
    if (const auto d = c.stepDeltaNs()) {
        headline += QStringLiteral(" (%1%2").arg(*d > 0 ? "+" : "",
                                                 QString::fromStdString(formatDuration(*d)));
        if (const auto pct = c.stepDeltaPct()) headline += QStringLiteral(", ") + percentText(*pct);
        headline += ')';
    }
    headline += QStringLiteral(" · extra internal memcpy %1 → %2")
                    .arg(QString::fromStdString(formatDuration(c.before.extraMemcpyNs)),
                         QString::fromStdString(formatDuration(c.after.extraMemcpyNs)));
    const ThemePalette& page = ThemePalette::light(); // the parts' page: light, for print
    auto paint = [&](QPainter& p) {
        p.fillRect(QRectF(QPointF(0, 0), size), page.page);
        // The headline's large bold font is its own: the timelines below keep the base font
        // (in it, their names lost the underscores the rows' height cut off).
        p.save();
        QFont f = p.font();
        f.setPointSizeF(13);
        f.setBold(true);
        p.setFont(f);
        p.setPen(page.pageText);
        p.drawText(QRectF(16, 0, width - 32, header), Qt::AlignVCenter | Qt::AlignLeft, headline);
        p.restore();
        double y = header;
        for (int i = 0; i < 2; ++i) {
            p.save();
            p.translate(0, y);
            p.setClipRect(QRectF(QPointF(0, 0), sizes[i]));
            parts[i]->paintTimeline(p, sizes[i]);
            p.restore();
            y += sizes[i].height();
            if (i == 0) {
                p.setPen(QPen(page.pageDim, 2));
                p.drawLine(QPointF(0, y), QPointF(width, y));
            }
        }
    };
    RenderFileOptions o;
    o.title = QStringLiteral("Ringscope compare");
    o.background = page.page;
    return renderToFile(file, size, o, paint, error);
}

void CompareWindow::exportImage(const QString& suffix)
{
    if (!m_comparison) return;
    const QString dir = QFileInfo(m_after ? m_after->path : QString()).absolutePath();
    QString file = QFileDialog::getSaveFileName(this, tr("Export comparison"),
                                                dir + QStringLiteral("/compare.") + suffix,
                                                suffix.toUpper() + tr(" file (*.%1)").arg(suffix));
    if (file.isEmpty()) return;
    if (QFileInfo(file).suffix().isEmpty()) file += QLatin1Char('.') + suffix;
    QString error;
    if (!writeImage(file, &error)) QMessageBox::warning(this, tr("Export comparison"), error);
}

} // namespace rs
