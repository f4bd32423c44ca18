#include "ui/annotations/notespane.h"

#include "core/annotations/annotationstore.h"
#include "ui/annotations/annotationpainter.h"

#include <QCheckBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace rs {

namespace {

constexpr int kIdRole = Qt::UserRole + 1;

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QString offset(const AnnotationStore& store, TimeNs t)
{
    const TimeNs start = store.trace() ? store.trace()->startNs() : 0;
    return qs(formatDuration(t - start));
}

QIcon kindIcon(const Annotation& a)
{
    QPixmap pm(12, 12);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    const QColor c = annotationColor(a);
    if (a.kind == AnnotationKind::Range) {
        QColor f = c;
        f.setAlpha(90);
        p.fillRect(QRect(1, 1, 10, 10), f);
    } else if (a.kind == AnnotationKind::Arrow) {
        p.setPen(QPen(c, 2));
        p.drawLine(1, 11, 10, 2);
    } else {
        p.setPen(QPen(c, 2));
        p.drawRect(QRect(2, 2, 8, 8));
    }
    return QIcon(pm);
}

} // namespace

QString annotationWhere(const AnnotationStore& store, std::uint64_t id)
{
    const Annotation* a = store.find(id);
    if (!a) return {};
    const AnnotationAnchor an = store.anchor(id);
    auto ev = [&](const EventRef& r) {
        return QString("%1 (%2 · %3)").arg(qs(r.name), qs(r.processLabel), qs(r.trackLabel));
    };
    QString where;
    switch (a->kind) {
    case AnnotationKind::Note:
        where = a->onEvent() ? QString("%1 at %2").arg(ev(a->event), offset(store, an.start))
                             : QString("at %1").arg(offset(store, an.start));
        break;
    case AnnotationKind::Range:
        where = QString("%1 – %2 (%3)")
                    .arg(offset(store, an.start), offset(store, an.end),
                         qs(formatDuration(an.end - an.start)));
        break;
    case AnnotationKind::Arrow:
        where = QString("%1 → %2").arg(ev(a->event), ev(a->target));
        break;
    }
    if (!an.resolved) where += QStringLiteral("  [not in this trace]");
    return where;
}

NotesPane::NotesPane(AnnotationStore* store, QWidget* parent) : QWidget(parent), m_store(store)
{
    setObjectName("notesPane");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    m_showAuto = new QCheckBox(tr("Show finding annotations"), this);
    m_showAuto->setToolTip(tr("Label the anomalous collectives, their extra Memcpy and the "
                              "source frame"));
    m_edit = new QPushButton(tr("Edit…"), this);
    m_delete = new QPushButton(tr("Delete"), this);
    m_save = new QPushButton(tr("Save"), this);
    m_status = new QLabel(this);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bar->addWidget(m_showAuto);
    bar->addStretch(1);
    bar->addWidget(m_status);
    bar->addWidget(m_edit);
    bar->addWidget(m_delete);
    bar->addWidget(m_save);
    layout->addLayout(bar);
    m_list = new QTreeWidget(this);
    m_list->setHeaderLabels({tr("Kind"), tr("Where"), tr("Text")});
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setAlternatingRowColors(true);
    m_list->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_list->header()->setStretchLastSection(true);
    m_list->setColumnWidth(1, 380);
    layout->addWidget(m_list, 1);

    connect(m_list, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        emit jumpRequested(item->data(0, kIdRole).toULongLong());
    });
    connect(m_list, &QTreeWidget::currentItemChanged, this, &NotesPane::updateButtons);
    connect(m_edit, &QPushButton::clicked, this, [this] {
        if (currentId()) emit editRequested(currentId());
    });
    connect(m_delete, &QPushButton::clicked, this, [this] {
        if (currentId()) emit deleteRequested(currentId());
    });
    connect(m_save, &QPushButton::clicked, this, &NotesPane::saveRequested);
    connect(m_showAuto, &QCheckBox::toggled, this,
            [this](bool on) { m_store->setShowAutomatic(on); });
    connect(m_store, &AnnotationStore::changed, this, &NotesPane::refresh);
    connect(m_store, &AnnotationStore::dirtyChanged, this, &NotesPane::updateButtons);
    refresh();
}

std::uint64_t NotesPane::currentId() const
{
    const QTreeWidgetItem* item = m_list->currentItem();
    return item ? item->data(0, kIdRole).toULongLong() : 0;
}

void NotesPane::setCurrentId(std::uint64_t id)
{
    for (int i = 0; i < m_list->topLevelItemCount(); ++i)
        if (m_list->topLevelItem(i)->data(0, kIdRole).toULongLong() == id)
            m_list->setCurrentItem(m_list->topLevelItem(i));
}

void NotesPane::refresh()
{
    const std::uint64_t keep = currentId();
    m_list->clear();
    const QSignalBlocker block(m_showAuto);
    m_showAuto->setChecked(m_store->showAutomatic());
    for (const auto* items : {&m_store->annotations(), &m_store->automatic()}) {
        for (const Annotation& a : *items) {
            auto* item = new QTreeWidgetItem(m_list);
            item->setData(0, kIdRole, QVariant::fromValue<qulonglong>(a.id));
            item->setIcon(0, kindIcon(a));
            item->setText(0, a.automatic ? tr("finding") : QString(annotationKindName(a.kind)));
            item->setText(1, annotationWhere(*m_store, a.id));
            const QString text = qs(a.text);
            item->setText(2, text.section('\n', 0, 0) + (text.contains('\n') ? " …" : ""));
            item->setToolTip(2, text);
            if (a.automatic) {
                for (int c = 0; c < 3; ++c)
                    item->setForeground(c, palette().color(QPalette::Disabled, QPalette::Text));
                item->setHidden(!m_store->showAutomatic());
            }
        }
    }
    setCurrentId(keep);
    updateButtons();
}

void NotesPane::updateButtons()
{
    const Annotation* a = m_store->find(currentId());
    const bool own = a && !a->automatic;
    m_edit->setEnabled(own);
    m_delete->setEnabled(own);
    m_save->setEnabled(m_store->isDirty());
    const QString where = QFileInfo(m_store->sidecarPath()).fileName();
    m_status->setText(m_store->isDirty() ? tr("unsaved changes")
                      : where.isEmpty()  ? QString()
                                         : tr("saved in %1").arg(where));
    m_status->setToolTip(m_store->sidecarPath());
}

void NotesPane::keyPressEvent(QKeyEvent* event)
{
    const std::uint64_t id = currentId();
    const Annotation* a = m_store->find(id);
    if (a && !a->automatic &&
        (event->key() == Qt::Key_Delete || event->key() == Qt::Key_Backspace)) {
        emit deleteRequested(id);
        return;
    }
    if (a && !a->automatic && event->key() == Qt::Key_F2) {
        emit editRequested(id);
        return;
    }
    QWidget::keyPressEvent(event);
}

} // namespace rs
