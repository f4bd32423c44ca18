#pragma once

#include "core/annotations/annotation.h"

#include <QDialog>

class QComboBox;
class QPlainTextEdit;

namespace rs {

// Edits the text and colour of an annotation.
class AnnotationDialog : public QDialog {
    Q_OBJECT
public:
    AnnotationDialog(const Annotation& a, const QString& where, QWidget* parent = nullptr);
    Annotation result() const;

    // Shows the dialog; true and *a updated when the user accepts.
    static bool edit(QWidget* parent, Annotation* a, const QString& title, const QString& where);

private:
    Annotation m_annotation;
    QPlainTextEdit* m_text = nullptr;
    QComboBox* m_color = nullptr;
};

} // namespace rs
