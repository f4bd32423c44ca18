#include "ui/compare/comparedialog.h"
#include "ui/appidentity.h"

#include "ui/compare/comparewindow.h"
#include "ui/compare/scalingview.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QTabWidget>
#include <QVBoxLayout>

#include <functional>

namespace rs {

namespace {

// A line edit with "File…" and "Folder…" buttons.
QWidget* pathRow(QWidget* parent, QLineEdit* edit, const std::function<QString(bool)>& browse)
{
    auto* w = new QWidget(parent);
    auto* h = new QHBoxLayout(w);
    h->setContentsMargins(0, 0, 0, 0);
    h->addWidget(edit, 1);
    auto* file = new QPushButton(QObject::tr("File…"), w);
    auto* folder = new QPushButton(QObject::tr("Folder…"), w);
    h->addWidget(file);
    h->addWidget(folder);
    QObject::connect(file, &QPushButton::clicked, w, [edit, browse] {
        const QString p = browse(false);
        if (!p.isEmpty()) edit->setText(p);
    });
    QObject::connect(folder, &QPushButton::clicked, w, [edit, browse] {
        const QString p = browse(true);
        if (!p.isEmpty()) edit->setText(p);
    });
    return w;
}

} // namespace

CompareDialog::CompareDialog(const QString& before, QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Compare runs"));
    auto* box = new QVBoxLayout(this);
    m_tabs = new QTabWidget(this);

    auto* pair = new QWidget(m_tabs);
    auto* form = new QFormLayout(pair);
    m_before = new QLineEdit(before, pair);
    m_after = new QLineEdit(pair);
    for (QLineEdit* e : {m_before, m_after})
        e->setPlaceholderText(tr("trace file, rank folder or job folder"));
    form->addRow(new QLabel(tr("Compare a run before a fix with the run after it: step time, "
                               "collectives and their extra internal memcpy, findings, ops."),
                            pair));
    form->addRow(tr("Before:"), pathRow(pair, m_before, [this](bool folder) {
                     return browse(folder, m_before->text());
                 }));
    form->addRow(tr("After:"), pathRow(pair, m_after, [this](bool folder) {
                     return browse(folder,
                                   m_after->text().isEmpty() ? m_before->text() : m_after->text());
                 }));
    m_tabs->addTab(pair, tr("Before / after"));

    auto* scaling = new QWidget(m_tabs);
    auto* sl = new QVBoxLayout(scaling);
    sl->addWidget(new QLabel(tr("Runs of one job on different card counts; the first is the "
                                "baseline (drag to reorder)."),
                             scaling));
    m_runs = new QListWidget(scaling);
    m_runs->setDragDropMode(QAbstractItemView::InternalMove);
    m_runs->setSelectionMode(QAbstractItemView::ExtendedSelection);
    if (!before.isEmpty()) m_runs->addItem(before);
    sl->addWidget(m_runs, 1);
    auto* buttons = new QHBoxLayout;
    auto* addFolder = new QPushButton(tr("Add folder…"), scaling);
    auto* addFile = new QPushButton(tr("Add file…"), scaling);
    auto* remove = new QPushButton(tr("Remove"), scaling);
    buttons->addWidget(addFolder);
    buttons->addWidget(addFile);
    buttons->addWidget(remove);
    buttons->addStretch(1);
    m_weak = new QCheckBox(tr("Weak scaling (the work per card is fixed)"), scaling);
    buttons->addWidget(m_weak);
    sl->addLayout(buttons);
    connect(addFolder, &QPushButton::clicked, this, [this] {
        const QString p =
            browse(true, m_runs->count() ? m_runs->item(m_runs->count() - 1)->text() : QString());
        if (!p.isEmpty()) m_runs->addItem(p);
        updateOk();
    });
    connect(addFile, &QPushButton::clicked, this, [this] {
        const QString p = browse(false, QString());
        if (!p.isEmpty()) m_runs->addItem(p);
        updateOk();
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        qDeleteAll(m_runs->selectedItems());
        updateOk();
    });
    m_tabs->addTab(scaling, tr("Scaling"));
    box->addWidget(m_tabs);

    auto* bb = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    bb->button(QDialogButtonBox::Ok)->setText(tr("Compare"));
    connect(bb, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(bb, &QDialogButtonBox::rejected, this, &QDialog::reject);
    box->addWidget(bb);
    connect(m_before, &QLineEdit::textChanged, this, &CompareDialog::updateOk);
    connect(m_after, &QLineEdit::textChanged, this, &CompareDialog::updateOk);
    connect(m_tabs, &QTabWidget::currentChanged, this, &CompareDialog::updateOk);
    resize(720, 300);
    updateOk();
}

QString CompareDialog::browse(bool folder, const QString& start)
{
    const QString dir = start.isEmpty() ? QString() : QFileInfo(start).absolutePath();
    return folder
               ? QFileDialog::getExistingDirectory(this, tr("Choose a run folder"), dir)
               : QFileDialog::getOpenFileName(this, tr("Choose a trace"), dir, traceFileFilter());
}

void CompareDialog::updateOk()
{
    auto* bb = findChild<QDialogButtonBox*>();
    if (!bb) return;
    const bool ok = mode() == Mode::BeforeAfter ? !m_before->text().trimmed().isEmpty() &&
                                                      !m_after->text().trimmed().isEmpty()
                                                : m_runs->count() >= 2;
    bb->button(QDialogButtonBox::Ok)->setEnabled(ok);
}

CompareDialog::Mode CompareDialog::mode() const
{
    return m_tabs->currentIndex() == 1 ? Mode::Scaling : Mode::BeforeAfter;
}

void CompareDialog::setMode(Mode mode)
{
    m_tabs->setCurrentIndex(mode == Mode::Scaling ? 1 : 0);
}

QString CompareDialog::beforePath() const
{
    return m_before->text().trimmed();
}

QString CompareDialog::afterPath() const
{
    return m_after->text().trimmed();
}

void CompareDialog::setPaths(const QString& before, const QString& after)
{
    m_before->setText(before);
    m_after->setText(after);
}

QStringList CompareDialog::scalingRuns() const
{
    QStringList out;
    for (int i = 0; i < m_runs->count(); ++i)
        out << m_runs->item(i)->text();
    return out;
}

void CompareDialog::setScalingRuns(const QStringList& runs)
{
    m_runs->clear();
    m_runs->addItems(runs);
    updateOk();
}

bool CompareDialog::weak() const
{
    return m_weak->isChecked();
}

QWidget* CompareDialog::openWindow(QWidget* parent) const
{
    if (mode() == Mode::BeforeAfter) {
        auto* w = new CompareWindow(parent);
        w->setAttribute(Qt::WA_DeleteOnClose);
        w->show();
        w->compare(beforePath(), afterPath());
        return w;
    }
    auto* w = new ScalingWindow(parent);
    w->setAttribute(Qt::WA_DeleteOnClose);
    w->show();
    w->measure(scalingRuns(), weak());
    return w;
}

QWidget* CompareDialog::run(QWidget* parent, const QString& currentPath)
{
    CompareDialog dialog(currentPath, parent);
    if (dialog.exec() != QDialog::Accepted) return nullptr;
    return dialog.openWindow(parent);
}

} // namespace rs
