#pragma once

// The communication matrix (AnalysisReport::matrix, torch_npu's communication_matrix.json) as a
// src x dst table for one scope: a step or all steps, one op group ("allreduce-top1") or every
// op type's total, one communication group or all. For a job the ranks' matrices are merged:
// each rank's group ranks become global ranks through its self link (the rank whose matrix has
// the LOCAL link l-l is global rank of local l, as msprof-analyze merges them), and the same
// link reported by several ranks is summed.

#include "core/analysis/report.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rs {

// What src sent to dst in the model's scope.
struct CommCell {
    int src = 0, dst = 0; // global ranks in a job, ranks within the group for one rank
    std::uint64_t bytes = 0;
    TimeNs ns = 0;
    std::string transport; // LOCAL, HCCS, PCIE, SIO, RDMA...; "mixed" when the entries differ
    double peakGbps = NAN; // the transport's reference peak (report options), NaN when none
    struct Part {
        const MatrixEntry* entry = nullptr;
        int report = 0; // index into the model's reports
    };
    std::vector<Part> parts;    // the matrix entries behind the cell, in report order
    std::vector<EventId> tasks; // their transfer tasks (the reports' ids)
    double gbps() const { return ns > 0 ? double(bytes) / double(ns) : NAN; }
    double utilization() const
    {
        return std::isfinite(peakGbps) && peakGbps > 0 ? gbps() / peakGbps : NAN;
    }
};

class CommMatrixModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum class Metric { Bytes, Gbps, Utilization, Transport };
    static constexpr int kValueRole = Qt::UserRole + 1; // the metric as a double (NaN: none)

    explicit CommMatrixModel(QObject* parent = nullptr);

    // One report per rank (a job's per-rank reports, or the one trace's).
    void setReports(std::vector<ReportPtr> reports);
    const std::vector<ReportPtr>& reports() const { return m_reports; }
    // Scope. step: none = every step; opGroup: empty = every op type's "-total"; group: empty =
    // every communication group.
    void setScope(std::optional<int> step, const QString& opGroup, const QString& group = {});
    std::optional<int> step() const { return m_step; }
    QString opGroup() const { return m_opGroup; }
    QString group() const { return m_group; }
    void setMetric(Metric m);
    Metric metric() const { return m_metric; }

    // What the reports hold, sorted (op groups: by type, then top1 .. total as torch_npu).
    std::vector<int> steps() const { return m_steps; }
    QStringList opGroups() const { return m_opGroups; }
    QStringList groups() const { return m_groups; }
    // Axis ranks (every src and dst of the reports, sorted); rows are src, columns dst.
    const std::vector<int>& ranks() const { return m_ranks; }
    // True when the ranks are global (a job); false: ranks within the group of one rank.
    bool globalRanks() const { return m_global; }
    // How the ranks were mapped, in words (for the view's hint line).
    QString rankNote() const { return m_rankNote; }
    // A job: group ranks no loaded rank speaks for (their traffic is what loaded ranks sent to
    // them). Left off the axes unless shown (the default shows the loaded ranks only).
    const std::vector<int>& unloadedRanks() const { return m_unloaded; }
    std::uint64_t unloadedBytes() const { return m_unloadedBytes; }
    void setShowUnloaded(bool on);
    bool showUnloaded() const { return m_showUnloaded; }
    // A rank's traffic with itself (the LOCAL self link: copies within its own memory, no
    // link between ranks): drawn apart and left out of the colour scale.
    static bool isSelf(const CommCell& c) { return c.src == c.dst; }

    const CommCell* cell(int src, int dst) const; // by rank; nullptr when no traffic
    const CommCell* cellAt(int row, int column) const;
    int indexOfRank(int rank) const;                       // -1 when absent
    double value(const CommCell& c) const;                 // the metric (Transport: its category)
    static QString valueText(const CommCell& c, Metric m); // "61.2 MB", "15.8 GB/s", "88%"
    QString tooltip(const CommCell& c) const;
    // Transport categories, in colour order; value() of a Transport cell indexes this.
    static const QStringList& transportNames();
    // The whole cell's text for the current metric range: "rank 0 → rank 1".
    QString cellTitle(const CommCell& c) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    void rebuild();
    // The global ranks of a group's local ranks (-1: no loaded rank is that local rank), or
    // null when none is known. A vector per group: looked up per matrix entry (about 100k in a
    // 64-rank job), where a map keyed by (group text, rank) cost 10 ms on the GUI thread.
    const std::vector<int>* globalsOf(const std::string& group) const;

    std::vector<ReportPtr> m_reports;
    std::optional<int> m_step;
    QString m_opGroup, m_group;
    Metric m_metric = Metric::Bytes;
    std::vector<int> m_steps;
    QStringList m_opGroups, m_groups;
    std::vector<int> m_ranks;
    bool m_global = false;
    QString m_rankNote;
    // (group, local rank) -> global rank, from the ranks' self links.
    std::unordered_map<std::string, std::vector<int>> m_globalOf;
    std::map<std::pair<int, int>, CommCell> m_cells;
    std::vector<int> m_unloaded;
    std::uint64_t m_unloadedBytes = 0;
    bool m_showUnloaded = false;
};

} // namespace rs
