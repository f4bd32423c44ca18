#pragma once

// The Notes pane: every annotation of the trace (the user's, then those from findings), with
// where it sits; double-click jumps to it, Edit / Delete act on the user's own.

#include <QWidget>

#include <cstdint>

class QCheckBox;
class QLabel;
class QPushButton;
class QTreeWidget;

namespace rs {

class AnnotationStore;

class NotesPane : public QWidget {
    Q_OBJECT
public:
    explicit NotesPane(AnnotationStore* store, QWidget* parent = nullptr);

    QTreeWidget* list() const { return m_list; }
    std::uint64_t currentId() const;
    void setCurrentId(std::uint64_t id);
    // Rebuilds the list from the store (also done on its changed() signal).
    void refresh();

signals:
    void jumpRequested(std::uint64_t id);
    void editRequested(std::uint64_t id);
    void deleteRequested(std::uint64_t id);
    void saveRequested();

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    void updateButtons();

    AnnotationStore* m_store = nullptr;
    QTreeWidget* m_list = nullptr;
    QCheckBox* m_showAuto = nullptr;
    QPushButton* m_edit = nullptr;
    QPushButton* m_delete = nullptr;
    QPushButton* m_save = nullptr;
    QLabel* m_status = nullptr;
};

// Human description of an annotation's anchor: "hcom_allReduce_ (HCCL · Group 0) at 1.23 s".
QString annotationWhere(const AnnotationStore& store, std::uint64_t id);

} // namespace rs
