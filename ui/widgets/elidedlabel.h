#pragma once

#include <QWidget>

namespace rs {

// A one-line label that never asks for more width than it gets: its text is elided to fit,
// the whole text is its tooltip and can be copied (context menu, or Ctrl+C once clicked).
// For names of any length (templated kernel names run to 2,000 characters): a QLabel asks for
// its whole text as its minimum width and widens the window.
class ElidedLabel : public QWidget {
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr);
    explicit ElidedLabel(const QString& text, QWidget* parent = nullptr);

    void setText(const QString& text);
    QString text() const { return m_text; }
    // What is painted now (the text elided to the width).
    QString shownText() const;
    bool isElided() const;
    void setElideMode(Qt::TextElideMode mode);
    Qt::TextElideMode elideMode() const { return m_mode; }
    void copyToClipboard() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void updateToolTip();

    QString m_text;
    Qt::TextElideMode m_mode = Qt::ElideRight;
};

// A tooltip of a long text that wraps (rich text with break opportunities), for names that
// have no spaces; short texts are returned as they are.
QString wrappedToolTip(const QString& text);

} // namespace rs
