#include "ui/panes/commbreakdown.h"

#include "core/analysis/presentation.h"
#include "ui/plots/plotstyle.h"
#include "ui/theme/hatch.h"
#include "ui/theme/theme.h"

#include <QPaintEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace rs {

namespace {

constexpr int kBarHeight = 16;
constexpr int kSwatch = 10;
constexpr int kGap = 6;

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

QString gbps(double v)
{
    return QString::number(v, 'f', v >= 100 ? 0 : v >= 10 ? 1 : 2);
}

QString percent(double fraction)
{
    return QString::number(fraction * 100, 'f', fraction < 0.1 ? 1 : 0) + QLatin1Char('%');
}

// The legend's words: the wait segment is the wait after data began to move (the whole wait
// is that plus synchronization, as the title says).
QString legendText(const CommBreakdown::Segment& s)
{
    const QString name = s.name == QLatin1String("wait") ? CommBreakdown::tr("other wait") : s.name;
    return CommBreakdown::tr("%1 %2").arg(name, q(formatDuration(s.ns)));
}

} // namespace

CommBreakdown::CommBreakdown(QWidget* parent) : QWidget(parent)
{
    QSizePolicy p(QSizePolicy::Preferred, QSizePolicy::Fixed);
    p.setHeightForWidth(true);
    setSizePolicy(p);
}

void CommBreakdown::setCollective(const Collective* c)
{
    m_segments.clear();
    m_links.clear();
    m_elapse = 0;
    if (c && c->timeInfo) {
        const CommTimeInfo& t = *c->timeInfo;
        m_elapse = t.elapseNs;
        // Synchronization is the part of the wait before the first transfer: the bar shows
        // the rest of the wait apart, so the four segments add up to the elapse time.
        const TimeNs sync =
            std::clamp<TimeNs>(t.synchronizationNs, 0, std::max<TimeNs>(0, t.waitNs));
        // The internal memcpy the master plane idles through is a part of its own, not idle
        // (issue 43.3): the extra copy the analysis flagged shows as what it is.
        const TimeNs memcpy = std::clamp<TimeNs>(t.memcpyNs, 0, std::max<TimeNs>(0, t.idleNs));
        m_segments.push_back({tr("transit"), t.transitNs, {}});
        m_segments.push_back({tr("wait"), t.waitNs - sync, {}});
        m_segments.push_back({tr("synchronization"), sync, {}, Qt::BDiagPattern});
        m_segments.push_back({tr("internal memcpy"), memcpy, {}, Qt::FDiagPattern});
        m_segments.push_back({tr("idle"), t.idleNs - memcpy, {}});
        recolor();
    }
    if (c) {
        for (const TransferStat& ts : c->transfers) {
            Link l;
            l.name = q(ts.name);
            l.gbps = ts.gbps();
            l.peak = ts.peakGbps;
            l.utilization = ts.utilization;
            if (std::isfinite(l.peak) && std::isfinite(l.utilization))
                l.text = tr("%1 of %2 GB/s peak (%3)")
                             .arg(gbps(l.gbps), gbps(l.peak), percent(l.utilization));
            else
                l.text = tr("%1 GB/s, no reference peak").arg(gbps(l.gbps));
            if (ts.name == "SDMA") l.text += tr(" · all SDMA transfers");
            m_links.push_back(std::move(l));
        }
        if (c->link) {
            Link l;
            l.name = q(c->link->name);
            l.gbps = c->busbwGbps;
            l.peak = c->link->peakGbps;
            l.utilization = c->link->utilization;
            l.text = tr("busbw %1 of %2 GB/s peak (%3)")
                         .arg(gbps(l.gbps), gbps(l.peak), percent(l.utilization));
            l.basis = tr("assumed link: %1").arg(q(c->link->basis));
            m_links.push_back(std::move(l));
        }
    }
    setToolTip(lines().join(QLatin1Char('\n')));
    updateGeometry();
    update();
}

CommBreakdown::Layout CommBreakdown::layoutFor(int width) const
{
    Layout lay;
    const QFontMetrics fm(font());
    const int lh = fm.height();
    const int w = std::max(width, 120);
    int y = 0;
    if (!m_segments.empty()) {
        lay.title = QRect(0, y, w, lh);
        y += lh + 2;
        lay.bar = QRect(0, y, w, kBarHeight);
        TimeNs total = 0;
        for (const Segment& s : m_segments)
            total += std::max<TimeNs>(0, s.ns);
        int x = 0;
        TimeNs acc = 0;
        for (const Segment& s : m_segments) {
            acc += std::max<TimeNs>(0, s.ns);
            const int end = total > 0 ? int(std::lround(double(acc) / double(total) * w)) : x;
            lay.segments.emplace_back(x, y, end - x, kBarHeight);
            x = end;
        }
        y += kBarHeight + 3;
        // Legend items flow left to right and wrap.
        int lx = 0;
        for (const Segment& s : m_segments) {
            const QString text = legendText(s);
            const int iw = kSwatch + 4 + fm.horizontalAdvance(text);
            if (lx > 0 && lx + iw > w) {
                lx = 0;
                y += lh + 2;
            }
            lay.legend.emplace_back(lx, y, iw, lh);
            lx += iw + 3 * kGap;
        }
        y += lh + kGap;
    }
    if (!m_links.empty()) {
        lay.linksTitle = QRect(0, y, w, lh);
        y += lh + 2;
        int nameW = 0;
        for (const Link& l : m_links)
            nameW = std::max(nameW, fm.horizontalAdvance(l.name));
        nameW += kGap;
        const int barW = std::clamp(w / 3, 60, 240);
        for (const Link& l : m_links) {
            const int rowH = std::max(lh, kBarHeight);
            lay.linkNames.emplace_back(0, y, nameW, rowH);
            lay.linkBars.emplace_back(nameW, y + (rowH - kBarHeight) / 2, barW, kBarHeight);
            const int tx = nameW + barW + kGap;
            lay.linkTexts.emplace_back(tx, y, std::max(0, w - tx), rowH);
            y += rowH + 2;
            if (!l.basis.isEmpty()) {
                lay.linkBasis.emplace_back(nameW, y, std::max(0, w - nameW), lh);
                y += lh + 2;
            } else {
                lay.linkBasis.emplace_back();
            }
        }
    }
    lay.height = y;
    return lay;
}

QStringList CommBreakdown::lines() const
{
    QStringList out;
    if (!m_segments.empty()) {
        // time_info's own figures: the wait includes the synchronization; communication.json's
        // idle time is the internal memcpy and the rest.
        out << tr("Time %1 elapsed: transit %2, wait %3 (synchronization %4 of it), internal "
                  "memcpy %5, idle %6")
                   .arg(q(formatDuration(m_elapse)), q(formatDuration(m_segments[0].ns)),
                        q(formatDuration(m_segments[1].ns + m_segments[2].ns)),
                        q(formatDuration(m_segments[2].ns)), q(formatDuration(m_segments[3].ns)),
                        q(formatDuration(m_segments[4].ns)));
    }
    for (const Link& l : m_links)
        out << tr("%1: %2").arg(l.name, l.text) + (l.basis.isEmpty() ? QString() : "; " + l.basis);
    return out;
}

QSize CommBreakdown::sizeHint() const
{
    const int w = std::max(360, width());
    return {w, layoutFor(w).height};
}

QSize CommBreakdown::minimumSizeHint() const
{
    return {120, layoutFor(std::max(120, width())).height};
}

void CommBreakdown::recolor()
{
    // The theme's inks now: a pane filled before a switch to the dark theme must not keep the
    // light theme's near-white idle segment.
    const QColor inks[] = {plots::colors::collective(), plots::colors::waiting(),
                           plots::colors::waiting().darker(140), plots::colors::internalMemcpy(),
                           currentPalette().breakdownIdle};
    for (std::size_t i = 0; i < m_segments.size() && i < std::size(inks); ++i)
        m_segments[i].color = inks[i];
}

void CommBreakdown::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        recolor();
        update();
    }
    QWidget::changeEvent(event);
}

void CommBreakdown::paintEvent(QPaintEvent*)
{
    recolor(); // cheap, and right whatever order the theme's events came in
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    const Layout lay = layoutFor(width());
    const QFontMetrics fm(font());
    const QColor text = palette().color(QPalette::WindowText);
    if (!m_segments.empty()) {
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.setPen(text);
        p.drawText(lay.title, Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetrics(bold).elidedText(
                       tr("Time breakdown: %1 elapsed, wait %2")
                           .arg(q(formatDuration(m_elapse)),
                                q(formatDuration(m_segments[1].ns + m_segments[2].ns))),
                       Qt::ElideRight, lay.title.width()));
        p.setFont(font());
        for (std::size_t i = 0; i < m_segments.size(); ++i) {
            const Segment& s = m_segments[i];
            const QRect r = lay.segments[i];
            if (r.width() > 0) {
                p.fillRect(r, s.brush == Qt::SolidPattern ? s.color : s.color.lighter(150));
                if (s.brush != Qt::SolidPattern) fillHatch(p, r, s.color, s.brush);
            }
            const QRect lg = lay.legend[i];
            const QRect sw(lg.left(), lg.center().y() - kSwatch / 2, kSwatch, kSwatch);
            p.fillRect(sw, s.brush == Qt::SolidPattern ? s.color : s.color.lighter(150));
            if (s.brush != Qt::SolidPattern) fillHatch(p, sw, s.color, s.brush);
            p.setPen(text);
            p.drawRect(sw.adjusted(0, 0, -1, -1));
            p.drawText(lg.adjusted(kSwatch + 4, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
                       legendText(s));
        }
        p.setPen(QPen(text.lighter(160), 1));
        p.drawRect(lay.bar.adjusted(0, 0, -1, -1));
    }
    if (!m_links.empty()) {
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.setPen(text);
        p.drawText(lay.linksTitle, Qt::AlignLeft | Qt::AlignVCenter,
                   tr("Links: utilisation against the reference peak"));
        p.setFont(font());
        double scale = 1.0; // the bars read against 100%, or the fullest link above it
        for (const Link& l : m_links)
            if (std::isfinite(l.utilization)) scale = std::max(scale, l.utilization);
        for (std::size_t i = 0; i < m_links.size(); ++i) {
            const Link& l = m_links[i];
            p.setPen(text);
            p.drawText(lay.linkNames[i], Qt::AlignLeft | Qt::AlignVCenter, l.name);
            const QRect bar = lay.linkBars[i];
            p.fillRect(bar, currentPalette().breakdownTrack);
            if (std::isfinite(l.utilization)) {
                const int fw = int(std::lround(bar.width() * std::max(0.0, l.utilization) / scale));
                // Under 60% of the peak on a collective is the under-utilised rule's mark.
                p.fillRect(QRect(bar.left(), bar.top(), fw, bar.height()),
                           l.utilization < 0.6 ? plots::colors::internalMemcpy()
                                               : plots::colors::collective());
                const int peakX = bar.left() + int(std::lround(bar.width() / scale));
                p.setPen(QPen(text, 2));
                p.drawLine(peakX, bar.top() - 1, peakX, bar.bottom() + 1);
            }
            p.setPen(QPen(text.lighter(160), 1));
            p.drawRect(bar.adjusted(0, 0, -1, -1));
            p.setPen(text);
            p.drawText(lay.linkTexts[i], Qt::AlignLeft | Qt::AlignVCenter,
                       fm.elidedText(l.text, Qt::ElideRight, lay.linkTexts[i].width()));
            if (!l.basis.isEmpty()) {
                p.setPen(palette().color(QPalette::Disabled, QPalette::WindowText));
                p.drawText(lay.linkBasis[i], Qt::AlignLeft | Qt::AlignVCenter,
                           fm.elidedText(l.basis, Qt::ElideRight, lay.linkBasis[i].width()));
            }
        }
    }
}

} // namespace rs
