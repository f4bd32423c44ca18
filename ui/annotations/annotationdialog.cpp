#include "ui/annotations/annotationdialog.h"

#include "ui/annotations/annotationpainter.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QShortcut>
#include <QVBoxLayout>

namespace rs {

namespace {

QIcon swatch(const QColor& c)
{
    QPixmap pm(14, 14);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.fillRect(QRect(1, 1, 12, 12), c);
    return QIcon(pm);
}

} // namespace

AnnotationDialog::AnnotationDialog(const Annotation& a, const QString& where, QWidget* parent)
    : QDialog(parent), m_annotation(a)
{
    auto* layout = new QVBoxLayout(this);
    auto* whereLabel = new QLabel(where, this);
    whereLabel->setWordWrap(true);
    whereLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(whereLabel);
    m_text = new QPlainTextEdit(this);
    m_text->setPlainText(QString::fromStdString(a.text));
    m_text->setPlaceholderText(tr("What should the reader see here?"));
    m_text->setTabChangesFocus(true);
    layout->addWidget(m_text, 1);
    auto* form = new QFormLayout;
    m_color = new QComboBox(this);
    Annotation plain = a;
    plain.color.clear();
    m_color->addItem(swatch(annotationColor(plain)), tr("Default"), QString());
    const std::pair<const char*, const char*> colours[] = {
        {"Red", "#d62728"},  {"Orange", "#e6760a"}, {"Green", "#2ca02c"},
        {"Blue", "#1f77b4"}, {"Purple", "#7b3fb5"}, {"Grey", "#6b6b6b"}};
    for (const auto& [name, hex] : colours)
        m_color->addItem(swatch(QColor(hex)), tr(name), QString::fromLatin1(hex));
    const int current = m_color->findData(QString::fromStdString(a.color));
    m_color->setCurrentIndex(current >= 0 ? current : 0);
    form->addRow(tr("Colour"), m_color);
    layout->addLayout(form);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    // Enter makes a new line in the text; Ctrl+Enter accepts, as in chat tools.
    auto* ok = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), this);
    connect(ok, &QShortcut::activated, this, &QDialog::accept);
    resize(420, 220);
}

Annotation AnnotationDialog::result() const
{
    Annotation a = m_annotation;
    a.text = m_text->toPlainText().trimmed().toStdString();
    a.color = m_color->currentData().toString().toStdString();
    return a;
}

bool AnnotationDialog::edit(QWidget* parent, Annotation* a, const QString& title,
                            const QString& where)
{
    AnnotationDialog d(*a, where, parent);
    d.setWindowTitle(title);
    if (d.exec() != QDialog::Accepted) return false;
    *a = d.result();
    return true;
}

} // namespace rs
