#pragma once

// Where a collective's time went and how busy its links were, for the details pane: one
// stacked bar of communication.json's time info (transit / wait / synchronization / internal
// memcpy / idle, summing to the op's elapsed time; communication.json's idle time is the last
// two: CommTimeInfo::memcpyNs splits it) and one bar per transport of its utilisation against the
// link's reference peak (Collective::transfers; for Kineto the assumed link, Collective::link).

#include "core/analysis/report.h"

#include <QColor>
#include <QWidget>

#include <vector>

namespace rs {

class CommBreakdown : public QWidget {
    Q_OBJECT
public:
    struct Segment {
        QString name; // "transit", "wait", "synchronization", "internal memcpy", "idle"
        TimeNs ns = 0;
        QColor color;
        Qt::BrushStyle brush = Qt::SolidPattern;
    };
    struct Link {
        QString name;      // HCCS, SDMA... or the Kineto link ("NVLink")
        double gbps = NAN; // achieved (Kineto: bus bandwidth)
        double peak = NAN; // reference peak, NaN when none
        double utilization = NAN;
        QString text;  // "15.8 of 18 GB/s peak (88%)"
        QString basis; // why this link (Kineto), else empty
    };
    // Rectangles of one layout at a width, for painting and for the layout tests.
    struct Layout {
        QRect title, bar;
        std::vector<QRect> segments, legend; // per segment
        std::vector<QRect> linkNames, linkBars, linkTexts, linkBasis;
        QRect linksTitle;
        int height = 0;
    };

    explicit CommBreakdown(QWidget* parent = nullptr);

    // Shows c's figures; nothing (and hidden by the pane) when c has none.
    void setCollective(const Collective* c);
    bool hasContent() const { return !m_segments.empty() || !m_links.empty(); }
    const std::vector<Segment>& segments() const { return m_segments; }
    const std::vector<Link>& links() const { return m_links; }
    TimeNs elapseNs() const { return m_elapse; }
    Layout layoutFor(int width) const;
    // The figures in words, one line each (for the pane's text and copying).
    QStringList lines() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int w) const override { return layoutFor(w).height; }

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void recolor();
    std::vector<Segment> m_segments;
    std::vector<Link> m_links;
    TimeNs m_elapse = 0;
};

} // namespace rs
