#include "ui/widgets/elidedlabel.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QPainter>

#include <algorithm>

namespace rs {

namespace {
constexpr int kMaxHintWidth = 600; // a preferred width, never a minimum
}

ElidedLabel::ElidedLabel(QWidget* parent) : ElidedLabel(QString(), parent) {}

ElidedLabel::ElidedLabel(const QString& text, QWidget* parent) : QWidget(parent), m_text(text)
{
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    setFocusPolicy(Qt::ClickFocus); // Ctrl+C after a click
    updateToolTip();
}

void ElidedLabel::setText(const QString& text)
{
    if (text == m_text) return;
    m_text = text;
    updateGeometry();
    updateToolTip();
    update();
}

void ElidedLabel::setElideMode(Qt::TextElideMode mode)
{
    m_mode = mode;
    updateToolTip();
    update();
}

QString ElidedLabel::shownText() const
{
    // One line: a newline in a name would otherwise be drawn as a box.
    QString line = m_text;
    line.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return fontMetrics().elidedText(line, m_mode, std::max(0, contentsRect().width()));
}

bool ElidedLabel::isElided() const
{
    return shownText() != QString(m_text).replace(QLatin1Char('\n'), QLatin1Char(' '));
}

void ElidedLabel::copyToClipboard() const
{
    QApplication::clipboard()->setText(m_text);
}

QSize ElidedLabel::sizeHint() const
{
    const QFontMetrics fm = fontMetrics();
    return {std::min(kMaxHintWidth, fm.horizontalAdvance(m_text) + 2), fm.height() + 2};
}

QSize ElidedLabel::minimumSizeHint() const
{
    const QFontMetrics fm = fontMetrics();
    return {fm.averageCharWidth() * 4, fm.height() + 2};
}

void ElidedLabel::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setPen(
        palette().color(isEnabled() ? QPalette::Active : QPalette::Disabled, QPalette::WindowText));
    p.drawText(contentsRect(), Qt::AlignLeft | Qt::AlignVCenter, shownText());
}

void ElidedLabel::contextMenuEvent(QContextMenuEvent* event)
{
    if (m_text.isEmpty()) return;
    QMenu menu(this);
    menu.addAction(tr("Copy"), this, &ElidedLabel::copyToClipboard);
    menu.exec(event->globalPos());
}

void ElidedLabel::keyPressEvent(QKeyEvent* event)
{
    if (event->matches(QKeySequence::Copy)) {
        copyToClipboard();
        return;
    }
    QWidget::keyPressEvent(event);
}

void ElidedLabel::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    updateToolTip();
}

void ElidedLabel::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::FontChange) {
        updateGeometry();
        updateToolTip();
    }
    QWidget::changeEvent(event);
}

QString wrappedToolTip(const QString& text)
{
    // Rich text wraps; a mangled kernel name has no space to wrap at, so offer a break every
    // few dozen characters (zero-width: copying the label still gives the name as it is).
    if (text.size() <= 100) return text;
    QString html = QStringLiteral("<p style='white-space:pre-wrap'>");
    for (qsizetype i = 0; i < text.size(); i += 60)
        html += text.mid(i, 60).toHtmlEscaped() + QStringLiteral("&#8203;");
    return html + QStringLiteral("</p>");
}

void ElidedLabel::updateToolTip()
{
    // The whole text when it does not fit.
    setToolTip(isElided() ? wrappedToolTip(m_text) : QString());
}

} // namespace rs
