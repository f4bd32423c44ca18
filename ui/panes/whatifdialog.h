#pragma once

// "What if…" (issue 44.3): what a fix would gain, from the viewer. The change (the internal
// memcpy removed, NAME_GLOB=FACTOR scale rows, limited to one rank) is replayed by core's
// whatIf (core/job/whatif.h) on the WorkPool, never on the GUI thread; the dialog then lists
// per step the measured and the predicted time and the saving, with the total, and emits the
// result for the Steps plot's "predicted" series. A newer run or a new trace drops an older
// run's result.

#include "core/job/whatif.h"
#include "ui/session/loadrelay.h"

#include <QDialog>
#include <QThread>

#include <optional>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace rs {

class Session;

class WhatIfDialog : public QDialog {
    Q_OBJECT
public:
    WhatIfDialog(Session* session, QWidget* parent = nullptr);

    // The change as the form says it; nullopt with *error when a scale row is not GLOB=FACTOR.
    std::optional<WhatIfChange> change(QString* error = nullptr) const;
    // Fills the form (the findings' "What if the internal memcpy were gone?").
    void setChange(const WhatIfChange& change);
    // A one-line description of a change ("internal memcpy removed on rank 0").
    static QString describe(const WhatIfChange& change);

    // Starts the replay of the form's change on the pool; false (and the reason shown) when
    // the form is invalid or nothing with steps is open.
    bool run();
    bool isRunning() const { return m_running; }
    // The last result shown (empty before one).
    const WhatIfResult& result() const { return m_result; }
    // The thread the last replay ran on (the tests check it was not the GUI's).
    QThread* lastWorkerThread() const { return m_workerThread; }
    QTableWidget* table() const { return m_table; }
    QLabel* totalLabel() const { return m_total; }
    QCheckBox* removeMemcpyBox() const { return m_removeMemcpy; }
    QPlainTextEdit* scaleEdit() const { return m_scale; }
    QCheckBox* rankBox() const { return m_limitRank; }
    QSpinBox* rankSpin() const { return m_rank; }
    QPushButton* runButton() const { return m_run; }

signals:
    // A replay ended (the Steps plot shows it as its "predicted" series).
    void predicted(const rs::WhatIfResult& result, const QString& description);
    void cleared();

private:
    void showResult(const WhatIfResult& r);
    void clearResult();

    Session* m_session = nullptr;
    LoadGeneration m_generation;
    bool m_running = false;
    WhatIfResult m_result;
    QThread* m_workerThread = nullptr;
    QCheckBox* m_removeMemcpy = nullptr;
    QPlainTextEdit* m_scale = nullptr;
    QCheckBox* m_limitRank = nullptr;
    QSpinBox* m_rank = nullptr;
    QPushButton* m_run = nullptr;
    QLabel* m_status = nullptr;
    QTableWidget* m_table = nullptr;
    QLabel* m_total = nullptr;
};

} // namespace rs
