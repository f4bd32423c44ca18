#pragma once

// One run opened for the compare window: what the viewer shows of it (the job session: merged
// display trace, per-rank reports on the job clock) and its digest (core/compare). Built on a
// worker thread by the same pipeline as File > Open.

#include "core/compare/rundigest.h"
#include "core/compare/stepalign.h"
#include "ui/job/jobsession.h"

#include <QString>

#include <memory>
#include <string>
#include <vector>

namespace rs {

struct CompareRun {
    QString path;
    JobSessionPtr session; // null when nothing could be loaded
    RunDigest digest;
    std::vector<StepAnchor> anchors; // per step number, on the merged trace's clock
    std::vector<std::string> errors;
    bool cancelled = false;
    bool ok() const { return session && session->job.trace && !cancelled; }
};
using CompareRunPtr = std::shared_ptr<const CompareRun>;

// Loads a trace file, a rank folder or a job folder, or a folder of rank summaries (a job
// without traces: its digest has no ops). Call from a worker thread; progress (optional)
// carries the bytes read and the cancel flag.
CompareRunPtr loadCompareRun(const QString& path, JobProgress* progress);

// A run from a session the caller already has (the window's open trace or job).
CompareRunPtr compareRunFromSession(const QString& path, JobSessionPtr session);

} // namespace rs
