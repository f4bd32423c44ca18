#include "ui/comm/commmatrixmodel.h"

#include "core/analysis/presentation.h"

#include <QLocale>

#include <algorithm>
#include <cmath>
#include <set>

namespace rs {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

bool isTotal(const std::string& opGroup)
{
    return opGroup.size() > 6 && opGroup.compare(opGroup.size() - 6, 6, "-total") == 0;
}

// torch_npu's tiers in the order its file lists them.
int tierOrder(const QString& opGroup)
{
    static const char* tiers[] = {"-top1", "-middle", "-bottom1", "-bottom2", "-bottom3", "-total"};
    for (int i = 0; i < 6; ++i)
        if (opGroup.endsWith(QLatin1String(tiers[i]))) return i;
    return 6;
}

// The rank a report speaks for: its matrix's, else its trace's, else its position.
int rankOfReport(const AnalysisReport& r, std::size_t index)
{
    for (const MatrixEntry& m : r.matrix)
        if (m.rank) return *m.rank;
    if (r.trace && r.trace->rank()) return *r.trace->rank();
    return static_cast<int>(index);
}

QString mb(std::uint64_t bytes)
{
    const double v = double(bytes) / 1e6;
    if (v >= 100) return QString::number(v, 'f', 0) + QStringLiteral(" MB");
    if (v >= 10) return QString::number(v, 'f', 1) + QStringLiteral(" MB");
    if (v >= 0.01) return QString::number(v, 'f', 2) + QStringLiteral(" MB");
    return QLocale(QLocale::English).toString(static_cast<qulonglong>(bytes)) +
           QStringLiteral(" B");
}

QString exactBytes(std::uint64_t bytes)
{
    return QLocale(QLocale::English).toString(static_cast<qulonglong>(bytes)) +
           QStringLiteral(" B");
}

QString gbpsText(double g)
{
    if (!std::isfinite(g)) return QStringLiteral("—");
    return QString::number(g, 'f', g >= 100 ? 0 : g >= 10 ? 1 : 2) + QStringLiteral(" GB/s");
}

} // namespace

CommMatrixModel::CommMatrixModel(QObject* parent) : QAbstractTableModel(parent) {}

const QStringList& CommMatrixModel::transportNames()
{
    static const QStringList names = {QStringLiteral("LOCAL"), QStringLiteral("HCCS"),
                                      QStringLiteral("PCIE"),  QStringLiteral("SIO"),
                                      QStringLiteral("RDMA"),  QStringLiteral("other"),
                                      QStringLiteral("mixed")};
    return names;
}

void CommMatrixModel::setReports(std::vector<ReportPtr> reports)
{
    m_reports.clear();
    for (ReportPtr& r : reports)
        if (r) m_reports.push_back(std::move(r));
    // The texts compared as they are and converted once each: entries come in runs of one
    // step, op and group, so a run costs one comparison.
    std::set<int> steps;
    std::set<std::string> opTexts, groupTexts;
    for (const ReportPtr& r : m_reports) {
        const MatrixEntry* last = nullptr;
        for (const MatrixEntry& m : r->matrix) {
            if (m.step && !(last && last->step == m.step)) steps.insert(*m.step);
            if (!(last && last->opGroup == m.opGroup)) opTexts.insert(m.opGroup);
            if (!(last && last->group == m.group)) groupTexts.insert(m.group);
            last = &m;
        }
    }
    std::set<QString> opGroups, groups;
    for (const std::string& t : opTexts)
        opGroups.insert(q(t));
    for (const std::string& t : groupTexts)
        groups.insert(q(t));
    m_steps.assign(steps.begin(), steps.end());
    m_opGroups = QStringList(opGroups.begin(), opGroups.end());
    std::stable_sort(m_opGroups.begin(), m_opGroups.end(), [](const QString& a, const QString& b) {
        const QString ta = a.section(QLatin1Char('-'), 0, 0),
                      tb = b.section(QLatin1Char('-'), 0, 0);
        if (ta != tb) return ta < tb;
        return tierOrder(a) < tierOrder(b);
    });
    m_groups = QStringList(groups.begin(), groups.end());
    // A scope the new reports do not have falls back to every step / every op type.
    if (m_step && !steps.count(*m_step)) m_step.reset();
    if (!m_opGroup.isEmpty() && !opGroups.count(m_opGroup)) m_opGroup.clear();
    if (!m_group.isEmpty() && !groups.count(m_group)) m_group.clear();

    // Several ranks: their self links say which global rank each group rank is.
    m_globalOf.clear();
    m_global = m_reports.size() >= 2;
    if (m_global) {
        for (std::size_t b = 0; b < m_reports.size(); ++b) {
            const int rank = rankOfReport(*m_reports[b], b);
            for (const MatrixEntry& m : m_reports[b]->matrix)
                if (m.src == m.dst && m.transport == "LOCAL" && m.src >= 0 && m.src < (1 << 20)) {
                    std::vector<int>& g = m_globalOf[m.group];
                    if (g.size() <= std::size_t(m.src)) g.resize(std::size_t(m.src) + 1, -1);
                    g[std::size_t(m.src)] = rank;
                }
        }
    }
    rebuild();
}

void CommMatrixModel::setScope(std::optional<int> step, const QString& opGroup,
                               const QString& group)
{
    m_step = step;
    m_opGroup = opGroup;
    m_group = group;
    rebuild();
}

void CommMatrixModel::setShowUnloaded(bool on)
{
    if (on == m_showUnloaded) return;
    m_showUnloaded = on;
    rebuild();
}

void CommMatrixModel::setMetric(Metric m)
{
    m_metric = m;
    if (!m_ranks.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

const std::vector<int>* CommMatrixModel::globalsOf(const std::string& group) const
{
    auto it = m_globalOf.find(group);
    return it != m_globalOf.end() ? &it->second : nullptr;
}

void CommMatrixModel::rebuild()
{
    beginResetModel();
    m_cells.clear();
    m_unloaded.clear();
    m_unloadedBytes = 0;
    std::set<int> ranks, unloaded;
    std::set<std::pair<std::string, int>> unmapped;
    // The scope's texts as the entries hold them: no conversion per entry.
    const std::string opGroup = m_opGroup.toStdString(), group = m_group.toStdString();
    for (std::size_t b = 0; b < m_reports.size(); ++b) {
        const AnalysisReport& r = *m_reports[b];
        const std::string* lastGroup = nullptr;
        const std::vector<int>* globals = nullptr;
        for (const MatrixEntry& m : r.matrix) {
            if (m_step && m.step != m_step) continue;
            if (opGroup.empty() ? !isTotal(m.opGroup) : m.opGroup != opGroup) continue;
            if (!group.empty() && m.group != group) continue;
            if (!lastGroup || *lastGroup != m.group) {
                lastGroup = &m.group;
                globals = m_global ? globalsOf(m.group) : nullptr;
            }
            // A local rank's global one; -1 when no loaded rank is it.
            auto global = [&](int local) {
                return globals && local >= 0 && std::size_t(local) < globals->size()
                           ? (*globals)[std::size_t(local)]
                           : -1;
            };
            const int gs = global(m.src), gd = global(m.dst);
            const int src = m_global && gs >= 0 ? gs : m.src,
                      dst = m_global && gd >= 0 ? gd : m.dst;
            if (m_global) {
                bool loaded = true;
                for (auto [l, g] : {std::pair{m.src, gs}, std::pair{m.dst, gd}})
                    if (g < 0) {
                        unmapped.insert({m.group, l});
                        unloaded.insert(l);
                        loaded = false;
                    }
                // A peer no loaded rank speaks for: off the axes unless asked for.
                if (!loaded && !m_showUnloaded) {
                    m_unloadedBytes += m.bytes;
                    continue;
                }
            }
            CommCell& c = m_cells[{src, dst}];
            c.src = src;
            c.dst = dst;
            c.bytes += m.bytes;
            c.ns += m.ns;
            if (c.transport.empty())
                c.transport = m.transport;
            else if (c.transport != m.transport)
                c.transport = "mixed";
            c.parts.push_back({&m, static_cast<int>(b)});
            c.tasks.insert(c.tasks.end(), m.tasks.begin(), m.tasks.end());
            ranks.insert(src);
            ranks.insert(dst);
        }
    }
    // The peak is the reports' (the options they were analysed with).
    for (auto& [k, c] : m_cells) {
        if (c.transport != "mixed" && !m_reports.empty() && !c.parts.empty())
            c.peakGbps =
                linkPeak(m_reports[std::size_t(c.parts.front().report)]->options, c.transport);
    }
    m_ranks.assign(ranks.begin(), ranks.end());
    m_unloaded.assign(unloaded.begin(), unloaded.end());
    if (!m_global) {
        m_rankNote = tr("ranks within the communication group");
    } else if (unmapped.empty()) {
        m_rankNote = tr("global ranks of the %1 loaded ranks").arg(m_reports.size());
    } else {
        QStringList list;
        for (int l : m_unloaded)
            list << QString::number(l);
        const QString ranksText = list.join(QStringLiteral(", "));
        m_rankNote =
            m_showUnloaded
                ? tr("ranks %1 were not loaded: their rows are empty, their columns hold what "
                     "the loaded ranks sent them (numbered as in their communication group)")
                      .arg(ranksText)
                : tr("the %1 loaded ranks; what they sent to ranks not loaded (%2: %3) is left "
                     "out — check \"Ranks not loaded\" to show it")
                      .arg(m_reports.size())
                      .arg(ranksText, mb(m_unloadedBytes));
    }
    endResetModel();
}

const CommCell* CommMatrixModel::cell(int src, int dst) const
{
    auto it = m_cells.find({src, dst});
    return it == m_cells.end() ? nullptr : &it->second;
}

int CommMatrixModel::indexOfRank(int rank) const
{
    auto it = std::lower_bound(m_ranks.begin(), m_ranks.end(), rank);
    return it != m_ranks.end() && *it == rank ? static_cast<int>(it - m_ranks.begin()) : -1;
}

const CommCell* CommMatrixModel::cellAt(int row, int column) const
{
    if (row < 0 || column < 0 || row >= static_cast<int>(m_ranks.size()) ||
        column >= static_cast<int>(m_ranks.size()))
        return nullptr;
    return cell(m_ranks[std::size_t(row)], m_ranks[std::size_t(column)]);
}

double CommMatrixModel::value(const CommCell& c) const
{
    switch (m_metric) {
    case Metric::Bytes:
        return double(c.bytes) / 1e6;
    case Metric::Gbps:
        return c.gbps();
    case Metric::Utilization:
        return c.utilization();
    case Metric::Transport: {
        const QStringList& names = transportNames();
        const int i = static_cast<int>(names.indexOf(q(c.transport)));
        return i >= 0 ? i : static_cast<int>(names.indexOf(QStringLiteral("other")));
    }
    }
    return NAN;
}

QString CommMatrixModel::valueText(const CommCell& c, Metric m)
{
    switch (m) {
    case Metric::Bytes:
        return mb(c.bytes);
    case Metric::Gbps:
        return gbpsText(c.gbps());
    case Metric::Utilization: {
        const double u = c.utilization();
        return std::isfinite(u) ? QString::number(u * 100, 'f', 0) + QLatin1Char('%')
                                : QStringLiteral("—");
    }
    case Metric::Transport:
        return q(c.transport);
    }
    return {};
}

QString CommMatrixModel::cellTitle(const CommCell& c) const
{
    return tr("rank %1 → rank %2").arg(c.src).arg(c.dst);
}

QString CommMatrixModel::tooltip(const CommCell& c) const
{
    if (isSelf(c))
        return tr("rank %1 → itself · %2\n%3 (%4) in %5, %6 tasks: copies within the rank's "
                  "own memory (its self link: Memcpy and Reduce_Inline tasks whose source and "
                  "destination are the rank, as communication_matrix.json counts them), not "
                  "traffic between ranks; drawn apart and left out of the colour scale")
            .arg(c.src)
            .arg(q(c.transport), mb(c.bytes), exactBytes(c.bytes), q(formatDuration(c.ns)))
            .arg(c.tasks.size());
    QString peak = tr("no reference peak");
    if (std::isfinite(c.peakGbps))
        peak = tr("%1 of %2 peak").arg(valueText(c, Metric::Utilization), gbpsText(c.peakGbps));
    return tr("%1 · %2\n%3 in %4 = %5 (%6)\n%7 matrix entr%8, %9 tasks")
        .arg(cellTitle(c), q(c.transport), mb(c.bytes), q(formatDuration(c.ns)), gbpsText(c.gbps()),
             peak)
        .arg(c.parts.size())
        .arg(c.parts.size() == 1 ? QStringLiteral("y") : QStringLiteral("ies"))
        .arg(c.tasks.size());
}

int CommMatrixModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_ranks.size());
}

int CommMatrixModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_ranks.size());
}

QVariant CommMatrixModel::data(const QModelIndex& index, int role) const
{
    const CommCell* c = cellAt(index.row(), index.column());
    if (!c) return role == kValueRole ? QVariant(double(NAN)) : QVariant();
    switch (role) {
    case Qt::DisplayRole:
        return valueText(*c, m_metric);
    case Qt::ToolTipRole:
        return tooltip(*c);
    case kValueRole:
        return value(*c);
    default:
        return {};
    }
}

QVariant CommMatrixModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (role != Qt::DisplayRole || section < 0 || section >= static_cast<int>(m_ranks.size()))
        return {};
    return (o == Qt::Vertical ? tr("src %1") : tr("dst %1")).arg(m_ranks[std::size_t(section)]);
}

} // namespace rs
