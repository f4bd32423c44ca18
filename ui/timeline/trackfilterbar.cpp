#include "ui/timeline/trackfilterbar.h"

#include "ui/theme/theme.h"
#include "ui/timeline/timelineview.h"

#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>

namespace rs {

TrackFilterBar::TrackFilterBar(TimelineView* view, QWidget* parent)
    : QToolBar(tr("Tracks"), parent), m_view(view)
{
    setObjectName(QStringLiteral("trackFilterBar"));
    setMovable(true);
    addWidget(new QLabel(tr(" Tracks: "), this));
    m_text = new QLineEdit(this);
    m_text->setObjectName(QStringLiteral("trackFilter"));
    m_text->setPlaceholderText(tr("filter by name (Rank 3, HCCL, Stream)…"));
    m_text->setClearButtonEnabled(true);
    m_text->setMinimumWidth(260);
    m_text->setToolTip(tr("Show only the tracks whose name or process name contains this "
                          "(or matches it with Regex on); pinned tracks always show"));
    addWidget(m_text);
    auto toggle = [&](const QString& text, const QString& tip) {
        QAction* a = addAction(text);
        a->setCheckable(true);
        a->setToolTip(tip);
        connect(a, &QAction::toggled, this, &TrackFilterBar::apply);
        return a;
    };
    m_regex = toggle(tr("Regex"), tr("Read the filter as a regular expression"));
    addSeparator();
    // "Show only this kind", as filter chips work: none checked shows every kind, checked ones
    // show only theirs.
    const QString more = tr("; check more kinds to add them, none shows every track");
    m_host = toggle(tr("Host"), tr("Show only host tracks (Python, CANN, CPU threads)") + more);
    m_device =
        toggle(tr("Device"), tr("Show only device tracks (Ascend Hardware, GPU streams)") + more);
    m_comm = toggle(tr("Communication"), tr("Show only communication tracks (HCCL, NCCL)") + more);
    addSeparator();
    m_hidden = new QLabel(this);
    m_hidden->setObjectName(QStringLiteral("hiddenTracks"));
    m_hidden->setMinimumWidth(120);
    addWidget(m_hidden);
    m_clear = addAction(tr("Clear"), this, &TrackFilterBar::clearFilter);
    m_clear->setToolTip(tr("Show every track again"));
    // Typing waits a moment: a regex is rebuilt once, not per key.
    auto* timer = new QTimer(this);
    timer->setSingleShot(true);
    timer->setInterval(150);
    connect(timer, &QTimer::timeout, this, &TrackFilterBar::apply);
    connect(m_text, &QLineEdit::textEdited, timer, qOverload<>(&QTimer::start));
    connect(m_text, &QLineEdit::returnPressed, this, &TrackFilterBar::apply);
    connect(m_text, &QLineEdit::textChanged, this, [this, timer](const QString& t) {
        if (t.isEmpty()) {
            timer->stop();
            apply(); // the clear button
        }
    });
    connect(m_view, &TimelineView::trackViewApplied, this, &TrackFilterBar::syncFromView);
    syncFromView();
}

QAction* TrackFilterBar::kindAction(TrackClass kind) const
{
    return kind == TrackClass::Host ? m_host : kind == TrackClass::Device ? m_device : m_comm;
}

QString TrackFilterBar::hiddenText() const
{
    return m_hidden->text();
}

void TrackFilterBar::focusText()
{
    m_text->setFocus();
    m_text->selectAll();
}

void TrackFilterBar::clearFilter()
{
    m_syncing = true;
    m_text->clear();
    m_regex->setChecked(false);
    for (QAction* a : {m_host, m_device, m_comm})
        a->setChecked(false);
    m_syncing = false;
    apply();
}

void TrackFilterBar::apply()
{
    if (m_syncing || !m_view) return;
    TrackFilterSpec f;
    f.text = m_text->text().toStdString();
    f.regex = m_regex->isChecked();
    // The checked kinds only; none checked: every kind.
    const bool any = m_host->isChecked() || m_device->isChecked() || m_comm->isChecked();
    f.host = !any || m_host->isChecked();
    f.device = !any || m_device->isChecked();
    f.communication = !any || m_comm->isChecked();
    m_view->setTrackFilterSpec(f); // trackViewApplied: syncFromView
}

void TrackFilterBar::syncFromView()
{
    if (!m_view) return;
    const TrackFilterSpec& f = m_view->trackViewState().filter;
    m_syncing = true;
    if (m_text->text().toStdString() != f.text) m_text->setText(QString::fromStdString(f.text));
    m_regex->setChecked(f.regex);
    // Every kind shown is no kind picked: the chips are off.
    const bool all = f.host && f.device && f.communication;
    m_host->setChecked(!all && f.host);
    m_device->setChecked(!all && f.device);
    m_comm->setChecked(!all && f.communication);
    m_syncing = false;
    const TimelineRenderer& r = m_view->renderer();
    const int hidden = r.hiddenTrackCount();
    const QString error = r.filterError();
    m_text->setStyleSheet(error.isEmpty() ? QString()
                                          : QStringLiteral("QLineEdit { border: 1px solid %1; }")
                                                .arg(currentPalette().anomaly.name()));
    m_text->setToolTip(error.isEmpty()
                           ? tr("Show only the tracks whose name or process name contains this "
                                "(or matches it with Regex on); pinned tracks always show")
                           : tr("Not a regular expression: %1").arg(error));
    m_hidden->setText(!error.isEmpty() ? tr("invalid regex")
                      : hidden == 1    ? tr("1 track hidden")
                      : hidden > 1     ? tr("%1 tracks hidden").arg(hidden)
                                       : QString());
    m_clear->setEnabled(f.active());
}

} // namespace rs
