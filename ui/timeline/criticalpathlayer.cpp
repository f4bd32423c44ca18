#include "ui/timeline/criticalpathlayer.h"

#include "core/analysis/criticalpath.h"
#include "ui/job/jobsession.h"
#include "ui/theme/theme.h"
#include "ui/timeline/timelinerenderer.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace rs {

namespace {

constexpr double kStrip = 5;    // the solid strip at the foot of a band's row
constexpr double kMinPiece = 1; // a merged run is at least a pixel wide

RowRole roleOf(PathKind k)
{
    switch (k) {
    case PathKind::Compute:
    case PathKind::Copy:
        return RowRole::Compute;
    case PathKind::Collective:
    case PathKind::InternalMemcpy:
        return RowRole::Communication;
    default:
        return RowRole::Steps;
    }
}

// Where a band goes on screen in one frame: its event's row, else its rank's row of the same
// role (compact job layout), else its group's header, else its rank's first row.
class RowFinder {
public:
    RowFinder(const TimelineGeometry& g, const std::vector<int>& processRanks) : m_g(g)
    {
        const auto& rows = g.layout->rows();
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const TimelineRow& row = rows[i];
            const int block = row.rank >= 0                       ? row.rank
                              : row.process < processRanks.size() ? processRanks[row.process]
                                                                  : 0;
            m_first.try_emplace(block, int(i));
            if (row.role != RowRole::None) m_role.try_emplace({block, row.role}, int(i));
        }
    }

    // The band's row (one slice row tall, across the plot) and whether it is shown: a
    // scrolling row under the pinned band or the ruler is not.
    std::optional<QRectF> rect(const PathBand& b) const
    {
        const Trace& t = m_g.index->trace();
        if (b.track != kNone && b.track < t.tracks().size()) {
            const QRectF r = m_g.depthRect(b.track, b.depth);
            if (!r.isNull()) return shown(m_g.layout->rowOfTrack(b.track), r);
        }
        if (const auto it = m_role.find({b.block, roleOf(b.kind)}); it != m_role.end())
            return rowBand(it->second);
        if (b.track != kNone && b.track < t.tracks().size()) {
            const int header = m_g.layout->rowOfProcess(t.tracks()[b.track].process);
            if (header >= 0) return rowBand(header);
        }
        if (const auto it = m_first.find(b.block); it != m_first.end()) return rowBand(it->second);
        return std::nullopt;
    }

private:
    std::optional<QRectF> rowBand(int row) const
    {
        const TimelineRow& r = m_g.layout->rows()[std::size_t(row)];
        const QRectF plot = m_g.plotRect();
        const QRectF band(plot.left(), m_g.screenY(r.y), plot.width(),
                          std::min(r.height, TimelineLayout::kSliceRowHeight));
        return shown(row, band);
    }
    std::optional<QRectF> shown(int row, const QRectF& r) const
    {
        if (row < 0) return std::nullopt;
        const TimelineRow& x = m_g.layout->rows()[std::size_t(row)];
        const QRectF plot = m_g.plotRect();
        if (!x.pinned && r.bottom() <= m_g.scrollTop()) return std::nullopt;
        if (r.top() >= plot.bottom()) return std::nullopt;
        return r;
    }

    const TimelineGeometry& m_g;
    std::map<int, int> m_first;
    std::map<std::pair<int, RowRole>, int> m_role;
};

} // namespace

CriticalPathLayer::CriticalPathLayer(TracePtr display, std::vector<StepPath> paths,
                                     const std::function<int(std::optional<int>)>& blockOf,
                                     const std::vector<EventId>& anchors)
    : m_trace(std::move(display)), m_paths(std::move(paths))
{
    const std::size_t events = m_trace ? m_trace->slices().size() : 0;
    auto slice = [&](EventId e) -> const Slice* {
        return e < events ? &m_trace->slice(e) : nullptr;
    };
    m_steps.reserve(m_paths.size());
    for (const StepPath& sp : m_paths) {
        Step st;
        st.step = sp.step;
        st.start = sp.start;
        st.end = sp.end;
        st.bands.reserve(sp.segments.size());
        for (const PathSegment& s : sp.segments) {
            PathBand b;
            b.start = s.start;
            b.end = s.end;
            b.kind = s.kind;
            b.block = blockOf ? std::max(0, blockOf(s.rank)) : 0;
            if (const Slice* x = slice(s.event)) {
                b.track = x->track;
                b.depth = x->depth;
            }
            st.bands.push_back(b);
        }
        // A segment with no event (idle, before a rank's step) stays on the row its rank's
        // path was on before it, else after it, else its rank's steps: a pass each way.
        std::map<int, std::pair<TrackId, int>> near;
        for (PathBand& b : st.bands) {
            if (b.track != kNone) {
                near[b.block] = {b.track, b.depth};
            } else if (const auto it = near.find(b.block); it != near.end()) {
                std::tie(b.track, b.depth) = it->second;
            }
        }
        near.clear();
        for (auto it = st.bands.rbegin(); it != st.bands.rend(); ++it) {
            PathBand& b = *it;
            if (b.track != kNone) {
                near[b.block] = {b.track, b.depth};
            } else if (const auto n = near.find(b.block); n != near.end()) {
                std::tie(b.track, b.depth) = n->second;
            } else if (std::size_t(b.block) < anchors.size()) {
                if (const Slice* x = slice(anchors[std::size_t(b.block)])) {
                    b.track = x->track;
                    b.depth = x->depth;
                }
            }
        }
        m_steps.push_back(std::move(st));
    }
}

std::shared_ptr<const CriticalPathLayer> CriticalPathLayer::forReport(const AnalysisReport& report)
{
    std::vector<StepPath> paths = rankCriticalPath(report);
    const std::size_t events = report.trace ? report.trace->slices().size() : 0;
    for (StepPath& p : paths)
        for (PathSegment& s : p.segments)
            if (s.event >= events) s.event = kNone;
    std::vector<EventId> anchors;
    if (!report.steps.empty()) anchors.push_back(report.steps.front().event);
    return std::make_shared<const CriticalPathLayer>(
        report.trace, std::move(paths), std::function<int(std::optional<int>)>{}, anchors);
}

std::shared_ptr<const CriticalPathLayer> CriticalPathLayer::forJob(const JobSession& session)
{
    const JobTrace& job = session.job;
    if (!session.jobReport || !job.trace) return std::make_shared<const CriticalPathLayer>();
    std::vector<StepPath> paths = session.jobReport->criticalPath;
    auto blockOf = [&job](std::optional<int> rank) { return rank ? job.blockOfRank(*rank) : -1; };
    for (StepPath& p : paths)
        for (PathSegment& s : p.segments) {
            const int b = blockOf(s.rank);
            // A job of rank summaries holds only the events they name, on ids of its own.
            if (b < 0 || session.fromSummaries() || s.event == kNone ||
                s.event >= job.eventBase[std::size_t(b) + 1] - job.eventBase[std::size_t(b)]) {
                s.event = kNone;
                continue;
            }
            s.event = job.toMerged(std::size_t(b), s.event);
        }
    std::vector<EventId> anchors(job.rankCount(), kNone);
    for (std::size_t b = 0; b < session.perRank.size() && b < anchors.size(); ++b)
        if (session.perRank[b] && !session.perRank[b]->steps.empty())
            anchors[b] = session.perRank[b]->steps.front().event;
    return std::make_shared<const CriticalPathLayer>(job.trace, std::move(paths), blockOf, anchors);
}

const StepPath* CriticalPathLayer::path(int step) const
{
    const auto it = std::lower_bound(m_paths.begin(), m_paths.end(), step,
                                     [](const StepPath& p, int s) { return p.step < s; });
    return it != m_paths.end() && it->step == step ? &*it : nullptr;
}

QColor CriticalPathLayer::kindColor(PathKind k, const ThemePalette& palette)
{
    const auto i = std::size_t(k);
    return i < palette.pathKind.size() ? palette.pathKind[i] : palette.dimText;
}

QString CriticalPathLayer::kindLabel(PathKind k)
{
    return QString::fromLatin1(pathKindName(k)).replace('_', ' ');
}

void CriticalPathLayer::paint(QPainter& p, const TimelineGeometry& g,
                              const TimelineRenderer& r) const
{
    m_stats = {};
    if (!g.valid() || m_steps.empty() || g.t1 <= g.t0) return;
    const ThemePalette& pal = ThemePalette::of(r.style().dark);
    const RowFinder rows(g, r.processRanks());
    const QRectF plot = g.plotRect();
    const int washAlpha = r.style().dark ? 80 : 70;
    // A rule between the strip and the slice over it, so the strip reads on any slice colour.
    QColor rule = r.style().background;
    rule.setAlpha(220);
    p.save();
    p.setRenderHint(QPainter::Antialiasing, false);

    struct Drawn {
        QRectF row;
        int block = 0;
        double x1 = 0;
    };
    auto connect = [&](const Drawn& from, const QRectF& to, int block, double x) {
        const double y0 = from.row.bottom() - kStrip / 2, y1 = to.bottom() - kStrip / 2;
        const bool jump = block != from.block;
        QPen pen(pal.pathInk, jump ? 2.5 : 1.5, jump ? Qt::SolidLine : Qt::DashLine);
        pen.setCapStyle(Qt::FlatCap);
        p.setPen(pen);
        p.drawLine(QPointF(x, y0), QPointF(x, y1));
        if (jump) {
            // A dot on the rank the path jumps to when walked back from the step's end (the
            // earlier piece): the one that delayed the collective.
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(Qt::NoPen);
            p.setBrush(pal.pathInk);
            p.drawEllipse(QPointF(x, y0), 3.5, 3.5);
            p.setRenderHint(QPainter::Antialiasing, false);
            ++m_stats.rankJumps;
        }
        ++m_stats.connectors;
    };

    for (const Step& st : m_steps) {
        if (st.end <= g.t0 || st.start >= g.t1 || st.bands.empty()) continue;
        const auto& bands = st.bands;
        std::size_t i =
            std::size_t(std::partition_point(bands.begin(), bands.end(),
                                             [&](const PathBand& b) { return b.end <= g.t0; }) -
                        bands.begin());
        std::optional<Drawn> prev;
        while (i < bands.size() && bands[i].start < g.t1) {
            ++m_stats.visited;
            double x0 = std::max(plot.left(), g.xOf(std::max(bands[i].start, g.t0)));
            double x1 = std::min(plot.right(), g.xOf(std::min(bands[i].end, g.t1)));
            std::size_t next = i + 1;
            const PathBand* shown = &bands[i];
            if (x1 - x0 < kMinPiece) {
                // A run inside one pixel column: one piece, the segment at its middle.
                const double col = std::floor(x0);
                const TimeNs colEnd = std::max(g.timeAt(col + 1), bands[i].start + 1);
                next = std::size_t(
                    std::partition_point(bands.begin() + std::ptrdiff_t(i) + 1, bands.end(),
                                         [&](const PathBand& b) { return b.start < colEnd; }) -
                    bands.begin());
                const TimeNs mid = g.timeAt(col + 0.5);
                auto k = std::partition_point(bands.begin() + std::ptrdiff_t(i),
                                              bands.begin() + std::ptrdiff_t(next),
                                              [&](const PathBand& b) { return b.end <= mid; });
                if (k == bands.begin() + std::ptrdiff_t(next)) --k;
                shown = &*k;
                x0 = col;
                x1 = std::max(col + kMinPiece,
                              std::min(plot.right(), g.xOf(std::min(bands[next - 1].end, g.t1))));
            }
            i = next;
            const std::optional<QRectF> row = rows.rect(*shown);
            if (!row) {
                prev.reset();
                continue;
            }
            if (prev && std::abs(prev->row.top() - row->top()) > 0.5)
                connect(*prev, *row, shown->block, x0);
            const QColor ink = kindColor(shown->kind, pal);
            QColor wash = ink;
            wash.setAlpha(washAlpha);
            const QRectF piece(x0, row->top(), x1 - x0, row->height());
            p.fillRect(piece, wash);
            p.fillRect(QRectF(x0, row->bottom() - kStrip - 1, x1 - x0, 1), rule);
            p.fillRect(QRectF(x0, row->bottom() - kStrip, x1 - x0, kStrip), ink);
            if (x1 - x0 >= 4) { // the band's edges, where it is wide enough to have them
                p.setPen(QPen(ink, 1));
                p.setBrush(Qt::NoBrush);
                p.drawRect(piece.adjusted(0.5, 0.5, -0.5, -0.5));
            }
            ++m_stats.pieces;
            prev = Drawn{*row, shown->block, x1};
        }
    }
    p.restore();
}

} // namespace rs
