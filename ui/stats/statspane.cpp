#include "ui/stats/statspane.h"

#include "ui/session/session.h"

#include "ui/export/exportcomposer.h"
#include "ui/export/exportdialog.h"
#include "ui/stats/statsmodel.h"
#include "ui/widgets/elidedlabel.h"

#include "core/timeconv.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace rs {

namespace {

constexpr int kMaxListed = 10000; // occurrences listed; stepping goes through all of them

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}
QString dur(TimeNs ns)
{
    return qs(formatDuration(ns));
}

// "1 track", "3 tracks", "12,345 occurrences".
QString plural(std::size_t n, const char* word)
{
    return QStringLiteral("%1 %2%3").arg(qs(formatCount(n)), QLatin1String(word),
                                         n == 1 ? QString() : QStringLiteral("s"));
}

QString shellQuote(const QString& s)
{
    static const QString safe = QStringLiteral("-_./=:@%+,");
    const bool plain = !s.isEmpty() && std::all_of(s.begin(), s.end(), [](QChar c) {
        return c.isLetterOrNumber() || safe.contains(c);
    });
    if (plain) return s;
    QString q = s;
    q.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + q + QLatin1Char('\'');
}

const StatsGroup kGroups[] = {StatsGroup::Kernel, StatsGroup::Op, StatsGroup::Collective,
                              StatsGroup::Step, StatsGroup::Memcpy};

} // namespace

StatsPane::StatsPane(QWidget* parent) : QWidget(parent)
{
    m_model = new StatsTableModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(StatsTableModel::SortRole);
    m_proxy->setFilterKeyColumn(StatsTableModel::Name);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);

    m_byBox = new QComboBox(this);
    m_byBox->setObjectName(QStringLiteral("statsBy"));
    m_byBox->addItem(tr("Kernels (device)"));
    m_byBox->addItem(tr("Ops (host)"));
    m_byBox->addItem(tr("Collectives"));
    m_byBox->addItem(tr("Steps"));
    m_byBox->addItem(tr("Memcpy / memset (device)"));
    m_byBox->setToolTip(tr("What to aggregate (ringscope stats --by)"));
    m_scopeBox = new QComboBox(this);
    m_scopeBox->setObjectName(QStringLiteral("statsScope"));
    m_scopeBox->addItem(tr("Whole trace"));
    m_scopeBox->addItem(tr("Selection"));
    m_scopeBox->setToolTip(tr("Selection: the range picked on the ruler, or the area "
                              "Shift+dragged over the tracks"));
    m_perRankBox = new QCheckBox(tr("Per rank"), this);
    m_perRankBox->setVisible(false);
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter names…"));
    m_filter->setClearButtonEnabled(true);
    auto* copy = new QPushButton(tr("Copy"), this);
    copy->setToolTip(tr("Copy the selected rows (all when none is selected) as tab-separated "
                        "text, durations in ns"));
    auto* exportCsvButton = new QPushButton(tr("Export CSV…"), this);
    exportCsvButton->setToolTip(tr("The rows shown, as ringscope stats --csv writes them"));
    m_exportArea = new QPushButton(tr("Export area…"), this);
    m_exportArea->setToolTip(tr("An image of the selected area: its range over its tracks"));
    m_exportArea->setEnabled(false);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(new QLabel(tr("By"), this));
    bar->addWidget(m_byBox);
    bar->addWidget(m_scopeBox);
    bar->addWidget(m_perRankBox);
    bar->addWidget(m_filter, 1);
    bar->addWidget(copy);
    bar->addWidget(exportCsvButton);
    bar->addWidget(m_exportArea);

    m_scopeLabel = new QLabel(this);
    m_scopeLabel->setTextFormat(Qt::PlainText);
    m_scopeLabel->setObjectName(QStringLiteral("statsScopeLabel"));
    m_scopeLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_scopeLabel->setMinimumWidth(1); // an area's track names may be long
    m_command = new QLineEdit(this);
    m_command->setObjectName(QStringLiteral("statsCommand"));
    m_command->setReadOnly(true);
    m_command->setToolTip(tr("The same table from the command line"));
    auto* info = new QHBoxLayout;
    info->setContentsMargins(0, 0, 0, 0);
    info->addWidget(m_scopeLabel);
    info->addSpacing(12);
    info->addWidget(new QLabel(tr("CLI:"), this));
    info->addWidget(m_command, 1);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("statsTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(StatsTableModel::Total, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle); // kernel names differ at both ends
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    QHeaderView* h = m_table->horizontalHeader();
    h->setSectionResizeMode(QHeaderView::ResizeToContents);
    h->setSectionResizeMode(StatsTableModel::Name, QHeaderView::Stretch);
    h->setMinimumSectionSize(48);
    m_table->setColumnHidden(StatsTableModel::Rank, true);

    m_occLabel = new QLabel(tr("Double-click a row to list its occurrences."), this);
    m_occLabel->setTextFormat(Qt::PlainText); // kernel names hold '<' and '&'
    m_occLabel->setWordWrap(true);
    // Wrapped, it would ask for its longest word (a 2,000-character kernel name) as its width.
    m_occLabel->setMinimumWidth(1);
    m_occList = new QListWidget(this);
    m_occList->setObjectName(QStringLiteral("statsOccurrences"));
    m_prev = new QPushButton(tr("‹ Previous (P)"), this);
    m_next = new QPushButton(tr("Next (N) ›"), this);
    m_prev->setEnabled(false);
    m_next->setEnabled(false);
    auto* occButtons = new QHBoxLayout;
    occButtons->setContentsMargins(0, 0, 0, 0);
    occButtons->addWidget(m_prev);
    occButtons->addWidget(m_next);
    auto* occ = new QWidget(this);
    auto* occLayout = new QVBoxLayout(occ);
    occLayout->setContentsMargins(0, 0, 0, 0);
    occLayout->addWidget(m_occLabel);
    occLayout->addWidget(m_occList, 1);
    occLayout->addLayout(occButtons);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_table);
    split->addWidget(occ);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    split->setSizes({900, 280});

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addLayout(info);
    layout->addWidget(split, 1);

    connect(m_byBox, &QComboBox::currentIndexChanged, this,
            [this](int i) { setGroup(kGroups[std::clamp(i, 0, 4)]); });
    connect(m_scopeBox, &QComboBox::currentIndexChanged, this,
            [this](int i) { setScope(i == 1 ? Scope::Selection : Scope::Whole); });
    connect(m_perRankBox, &QCheckBox::toggled, this, &StatsPane::setPerRank);
    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(copy, &QPushButton::clicked, this, &StatsPane::copySelection);
    connect(exportCsvButton, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getSaveFileName(
            this, tr("Export statistics"), QStringLiteral("stats-%1.csv").arg(statsGroupName(m_by)),
            tr("CSV (*.csv)"));
        QString error;
        if (!file.isEmpty() && !exportCsv(file, &error))
            QMessageBox::critical(this, tr("Export failed"), error);
    });
    auto exportArea = [this] {
        if (!m_area.valid()) return;
        // The theme row of the dialog is File > Export's (saved; exportAreaImage reads it).
        const std::optional<ExportChoice> choice = askExportFile(
            this, tr("Export area"), QStringLiteral("area.png"), tr("Images (*.png *.svg *.pdf)"));
        QString error;
        if (choice && !exportAreaImage(choice->file, &error))
            QMessageBox::critical(this, tr("Export failed"), error);
    };
    connect(m_exportArea, &QPushButton::clicked, this, exportArea);
    connect(m_table, &QTableView::doubleClicked, this,
            [this](const QModelIndex& i) { showOccurrences(i.row()); });
    auto* copyKey = new QShortcut(QKeySequence::Copy, m_table);
    copyKey->setContext(Qt::WidgetShortcut);
    connect(copyKey, &QShortcut::activated, this, &StatsPane::copySelection);
    connect(m_prev, &QPushButton::clicked, this, [this] { stepOccurrence(-1); });
    connect(m_next, &QPushButton::clicked, this, [this] { stepOccurrence(+1); });
    for (auto [key, dir] : {std::pair{Qt::Key_N, +1}, std::pair{Qt::Key_P, -1}}) {
        auto* s = new QShortcut(QKeySequence(key), this);
        s->setContext(Qt::WidgetWithChildrenShortcut);
        connect(s, &QShortcut::activated, this, [this, d = dir] {
            if (!m_filter->hasFocus()) stepOccurrence(d);
        });
    }
    connect(m_occList, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0 && row != m_occurrence) showOccurrence(row);
    });
    recompute();
}

void StatsPane::setData(TracePtr trace, ReportPtr report, JobSessionPtr session,
                        const QString& path)
{
    // The same trace, analysed or on new rank offsets (same shape): the selection stays.
    const bool same = trace && m_trace && trace->slices().size() == m_trace->slices().size() &&
                      trace->tracks().size() == m_trace->tracks().size();
    m_trace = std::move(trace);
    m_report = std::move(report);
    m_session = std::move(session);
    m_path = path;
    if (!same) {
        m_range.reset();
        m_area = {};
    }
    const bool job = m_session && m_session->job.rankCount() > 1;
    m_perRankBox->setVisible(job);
    if (!job) m_perRank = false;
    m_perRankBox->setChecked(m_perRank);
    recompute();
}

void StatsPane::setTimeline(TimelineView* view)
{
    m_view = view;
    if (!view) return;
    connect(view, &TimelineView::rangeSelected, this, &StatsPane::setSelectionRange);
    connect(view, &TimelineView::areaSelected, this, &StatsPane::setSelectionArea);
}

void StatsPane::installActions(QMainWindow* window)
{
    QMenu* file = nullptr;
    for (QAction* a : window->menuBar()->actions())
        if (a->menu() && a->text().remove('&') == "File") file = a->menu();
    if (!file) return;
    QMenu* exportMenu = nullptr;
    for (QAction* a : file->actions())
        if (a->menu() && a->text().remove('&') == "Export") exportMenu = a->menu();
    QMenu* menu = exportMenu ? exportMenu : file;
    menu->addSeparator();
    m_exportAreaAction = menu->addAction(tr("Selected &area (its tracks over its range)…"));
    m_exportAreaAction->setEnabled(m_area.valid());
    connect(m_exportAreaAction, &QAction::triggered, m_exportArea, &QPushButton::click);
    QAction* csv = menu->addAction(tr("&Statistics as CSV…"));
    connect(csv, &QAction::triggered, this, [this, csv] {
        (void)csv;
        const QString file = QFileDialog::getSaveFileName(
            this, tr("Export statistics"), QStringLiteral("stats-%1.csv").arg(statsGroupName(m_by)),
            tr("CSV (*.csv)"));
        QString error;
        if (!file.isEmpty() && !exportCsv(file, &error))
            QMessageBox::critical(this, tr("Export failed"), error);
    });
}

void StatsPane::setGroup(StatsGroup by)
{
    const int index = int(std::find(std::begin(kGroups), std::end(kGroups), by) - kGroups);
    if (m_byBox->currentIndex() != index) {
        m_byBox->setCurrentIndex(index); // comes back here through the signal
        return;
    }
    if (m_by == by && m_model->rowCount() > 0) return;
    m_by = by;
    recompute();
}

void StatsPane::setPerRank(bool on)
{
    if (m_perRankBox->isChecked() != on) m_perRankBox->setChecked(on);
    if (m_perRank == on) return;
    m_perRank = on;
    recompute();
}

void StatsPane::setScope(Scope scope)
{
    if (m_scopeBox->currentIndex() != int(scope)) {
        m_scopeBox->setCurrentIndex(int(scope));
        return;
    }
    if (m_scope == scope) return;
    m_scope = scope;
    recompute();
}

void StatsPane::setSelectionRange(TimeNs t0, TimeNs t1)
{
    if (t1 <= t0) return;
    m_range = std::pair{t0, t1};
    m_area = {}; // the newer selection wins
    if (m_scope != Scope::Selection)
        setScope(Scope::Selection);
    else
        recompute();
}

void StatsPane::setSelectionArea(const TimelineArea& area)
{
    m_area = area.valid() ? area : TimelineArea{};
    if (m_area.valid()) m_range.reset();
    if (m_exportAreaAction) m_exportAreaAction->setEnabled(m_area.valid());
    m_exportArea->setEnabled(m_area.valid());
    if (m_area.valid() && m_scope != Scope::Selection)
        setScope(Scope::Selection);
    else
        recompute();
}

std::vector<StatsSource> StatsPane::sources() const
{
    std::vector<StatsSource> out;
    if (!m_trace) return out;
    if (m_session && m_session->job.trace == m_trace && m_session->job.rankCount() > 0) {
        const JobTrace& job = m_session->job;
        for (std::size_t b = 0; b < job.rankCount(); ++b) {
            StatsSource s;
            s.trace = m_trace.get();
            s.report = m_report.get();
            s.rank = job.rankIds[b];
            s.trackBegin = b < job.trackBase.size() ? job.trackBase[b] : 0;
            s.trackEnd = b + 1 < job.trackBase.size() ? job.trackBase[b + 1] : kNone;
            out.push_back(s);
        }
        return out;
    }
    StatsSource s;
    s.trace = m_trace.get();
    s.report = m_report && m_report->trace == m_trace ? m_report.get() : nullptr;
    s.rank = m_trace->rank();
    out.push_back(s);
    return out;
}

StatsOptions StatsPane::options() const
{
    StatsOptions o;
    o.by = m_by;
    o.perRank = m_perRank;
    if (m_scope == Scope::Selection) {
        if (m_area.valid()) {
            o.scope.range = std::pair{m_area.t0, m_area.t1};
            o.scope.tracks = m_area.tracks;
        } else if (m_range) {
            o.scope.range = m_range;
        }
    }
    return o;
}

const StatsTable& StatsPane::table() const
{
    ensureComputed();
    return m_model->table();
}

void StatsPane::recompute()
{
    m_dirty = true;
    if (isVisible()) compute();
}

void StatsPane::ensureComputed() const
{
    if (m_dirty) const_cast<StatsPane*>(this)->compute();
}

void StatsPane::showEvent(QShowEvent* event)
{
    ensureComputed();
    QWidget::showEvent(event);
}

void StatsPane::compute()
{
    m_dirty = false;
    const std::vector<StatsSource> src = sources();
    StatsTable table = computeStats(src, options());
    m_model->setTable(std::move(table));
    m_table->setColumnHidden(StatsTableModel::Rank, !m_perRank);
    // The occurrences list belongs to the previous table.
    m_occurrences.clear();
    m_occurrence = -1;
    m_occName.clear();
    m_occList->clear();
    m_occLabel->setText(tr("Double-click a row to list its occurrences."));
    m_prev->setEnabled(false);
    m_next->setEnabled(false);
    updateScopeText();
}

void StatsPane::updateScopeText()
{
    const StatsTable& t = m_model->table();
    const TimeNs origin = m_trace ? m_trace->startNs() : 0;
    QString scope;
    const StatsOptions o = options();
    if (!m_trace) {
        scope = tr("No trace open");
    } else if (m_scope == Scope::Whole) {
        scope = tr("Whole trace");
    } else if (m_area.valid()) {
        scope = tr("Area +%1 – +%2 (%3) × %4")
                    .arg(dur(m_area.t0 - origin), dur(m_area.t1 - origin),
                         dur(m_area.t1 - m_area.t0), plural(m_area.tracks.size(), "track"));
    } else if (m_range) {
        scope = tr("Range +%1 – +%2 (%3), all tracks")
                    .arg(dur(m_range->first - origin), dur(m_range->second - origin),
                         dur(m_range->second - m_range->first));
    } else {
        scope = tr("No selection (drag on the ruler, or Shift+drag over tracks): whole trace");
    }
    if (m_trace)
        scope += tr(" · %1 busy %2 · %3")
                     .arg(statsGroupOnDevice(m_by) ? tr("device") : tr("host"), dur(t.busyNs),
                          plural(t.rows.size(), "row"));
    m_scopeLabel->setText(scope);
    m_command->setText(cliCommand());
    m_command->setCursorPosition(0); // the command's start (the path, --by) in view
    QString tip = tr("The same table from the command line");
    if (o.scope.tracks)
        tip += tr("; the command sums every track over the range, the area only its %1")
                   .arg(plural(o.scope.tracks->size(), "track"));
    if (m_session) {
        const auto& off = m_session->job.offsets;
        if (std::any_of(off.begin(), off.end(), [](TimeNs x) { return x != 0; }))
            tip += tr("; the ranks are shifted by clock offsets here, the command reads each "
                      "rank on its own clock");
    }
    m_command->setToolTip(tip);
}

QString StatsPane::cliCommand() const
{
    if (!m_trace) return {};
    QString path = m_path.isEmpty() ? qs(m_trace->path()) : m_path;
    QStringList args{QStringLiteral("ringscope"), QStringLiteral("stats"), shellQuote(path),
                     QStringLiteral("--by"), QString::fromLatin1(statsGroupName(m_by))};
    const StatsOptions o = options();
    if (o.scope.range)
        args << QStringLiteral("--range")
             << QStringLiteral("%1:%2").arg(o.scope.range->first).arg(o.scope.range->second);
    if (m_perRank) args << QStringLiteral("--per-rank");
    return args.join(QLatin1Char(' '));
}

namespace {

// The fields of CSV text as statsToCsv writes it (a field quoted when it holds a comma, quote
// or line break, its quotes doubled), one list per record.
std::vector<QStringList> csvRecords(const QString& csv)
{
    std::vector<QStringList> out;
    QStringList record;
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < csv.size(); ++i) {
        const QChar c = csv[i];
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < csv.size() && csv[i + 1] == QLatin1Char('"')) {
                field += c;
                ++i;
            } else if (c == QLatin1Char('"')) {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            record << std::exchange(field, {});
        } else if (c == QLatin1Char('\n')) {
            record << std::exchange(field, {});
            out.push_back(std::exchange(record, {}));
        } else {
            field += c;
        }
    }
    return out;
}

} // namespace

QString StatsPane::rowsCsv(const QList<int>& proxyRows) const
{
    // One writer of the statistics' CSV: core's statsToCsv (what `ringscope stats --csv`
    // prints), given the rows shown in the table's order.
    StatsTable shown = m_model->table();
    shown.rows.clear();
    for (int r : proxyRows)
        shown.rows.push_back(m_model->row(m_proxy->mapToSource(m_proxy->index(r, 0)).row()));
    return qs(statsToCsv(shown));
}

QString StatsPane::selectedRowsTsv() const
{
    ensureComputed();
    QList<int> rows;
    for (const QModelIndex& i : m_table->selectionModel()->selectedRows())
        rows << i.row();
    if (rows.isEmpty())
        for (int r = 0; r < m_proxy->rowCount(); ++r)
            rows << r;
    std::sort(rows.begin(), rows.end());
    // The CSV's fields, tab-separated for a spreadsheet's paste (a tab in a name is a space).
    QString out;
    for (QStringList fields : csvRecords(rowsCsv(rows))) {
        for (QString& f : fields)
            f.replace(QLatin1Char('\t'), QLatin1Char(' '))
                .replace(QLatin1Char('\n'), QLatin1Char(' '));
        out += fields.join(QLatin1Char('\t')) + QLatin1Char('\n');
    }
    return out;
}

void StatsPane::copySelection() const
{
    QApplication::clipboard()->setText(selectedRowsTsv());
}

QString StatsPane::csvText() const
{
    ensureComputed();
    QList<int> rows;
    for (int r = 0; r < m_proxy->rowCount(); ++r)
        rows << r;
    return rowsCsv(rows);
}

bool StatsPane::exportCsv(const QString& file, QString* error) const
{
    QFile f(file);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        if (error) *error = tr("cannot write %1: %2").arg(file, f.errorString());
        return false;
    }
    f.write(csvText().toUtf8());
    return true;
}

bool StatsPane::exportAreaImage(const QString& file, QString* error) const
{
    if (!m_trace || !m_area.valid()) {
        if (error) *error = tr("no area is selected (Shift+drag over the tracks)");
        return false;
    }
    ExportComposer composer(m_trace, m_report, m_store);
    if (m_view) composer.copyViewState(m_view->renderer());
    // Only the area's tracks, their groups expanded.
    std::vector<bool> visible(m_trace->tracks().size(), false);
    for (TrackId t : m_area.tracks)
        if (t < visible.size()) {
            visible[t] = true;
            composer.renderer().setCollapsed(m_trace->tracks()[t].process, false);
        }
    composer.renderer().setTrackFilter(std::move(visible));
    ExportOptions o;
    o.width = m_view ? std::max(800, m_view->width()) : 1600;
    o.t0 = m_area.t0;
    o.t1 = m_area.t1;
    o.dark = exportThemeIsDark(savedExportTheme()); // File > Export > Theme, or the dialog's
    o.title = tr("%1 — area of %2, %3")
                  .arg(QFileInfo(m_path.isEmpty() ? qs(m_trace->path()) : m_path).fileName(),
                       plural(m_area.tracks.size(), "track"), dur(m_area.t1 - m_area.t0));
    composer.setOptions(o);
    return composer.writeTimeline(file, error);
}

QString StatsPane::rankText(std::size_t source) const
{
    const std::vector<StatsSource> src = sources();
    if (src.size() < 2 || source >= src.size() || !src[source].rank) return {};
    return tr("rank %1 · ").arg(*src[source].rank);
}

void StatsPane::showOccurrences(int viewRow)
{
    ensureComputed();
    if (viewRow < 0 || viewRow >= m_proxy->rowCount()) return;
    const StatsRow& r = m_model->row(m_proxy->mapToSource(m_proxy->index(viewRow, 0)).row());
    const std::vector<StatsSource> src = sources();
    m_occurrences = statsOccurrences(src, options(), r.name, r.rank, r.internal);
    m_occName = r.name;
    m_occurrence = -1;
    m_occList->blockSignals(true);
    m_occList->clear();
    const TimeNs origin = m_trace ? m_trace->startNs() : 0;
    const int listed = std::min<int>(int(m_occurrences.size()), kMaxListed);
    for (int i = 0; i < listed; ++i) {
        const StatsOccurrence& o = m_occurrences[std::size_t(i)];
        m_occList->addItem(tr("%1. %2at +%3 · %4")
                               .arg(i + 1)
                               .arg(rankText(o.source), dur(o.start - origin), dur(o.dur)));
    }
    m_occList->blockSignals(false);
    QString label = tr("%1 of %2").arg(plural(m_occurrences.size(), "occurrence"), qs(r.name));
    if (r.rank) label += tr(" on rank %1").arg(*r.rank);
    if (listed < int(m_occurrences.size())) label += tr(" (first %L1 listed)").arg(listed);
    m_occLabel->setText(label);
    m_occLabel->setToolTip(wrappedToolTip(qs(r.name)));
    m_prev->setEnabled(!m_occurrences.empty());
    m_next->setEnabled(!m_occurrences.empty());
    if (!m_occurrences.empty()) showOccurrence(0);
}

bool StatsPane::stepOccurrence(int direction)
{
    if (m_occurrences.empty()) return false;
    const int n = int(m_occurrences.size());
    const int next = m_occurrence < 0 ? 0 : ((m_occurrence + direction) % n + n) % n;
    showOccurrence(next);
    return true;
}

void StatsPane::showOccurrence(int i)
{
    if (i < 0 || i >= int(m_occurrences.size())) return;
    m_occurrence = i;
    if (i < m_occList->count()) {
        m_occList->blockSignals(true);
        m_occList->setCurrentRow(i);
        m_occList->blockSignals(false);
    }
    const StatsOccurrence& o = m_occurrences[std::size_t(i)];
    if (m_view && m_trace && o.event < m_trace->slices().size()) {
        const Slice& s = m_trace->slice(o.event);
        m_view->selectEvent(o.event, true);
        const TimeNs pad = std::max<TimeNs>(s.dur / 2, 1000);
        m_view->zoomToRange(s.start - pad, s.end() + pad);
    }
    emit occurrenceShown(o.event);
}

void StatsPane::setSession(Session* session)
{
    const auto feed = [this, session] {
        setData(session->trace(), session->report(), session->job(), session->path());
    };
    connect(session, &Session::traceLoaded, this, feed);
    session->followReport(this, feed);
    connect(session, &Session::analysisFailed, this, feed);
}

} // namespace rs
