#pragma once

// What the viewer has open (one trace, a job of ranks, a job of rank summaries) and every open
// of it. Opens run on the WorkPool through the core pipeline (runPipeline; a job of summaries
// through mergeRankSummaries into the same JobSession), under one generation token: a newer
// open, re-analysis or re-offset drops whatever an older one still delivers. The session owns
// the results and says what changed; each pane connects to it itself (its setSession), so the
// window does not hand results out.
//
// Order of the signals for an open: opening, progress..., then traceLoaded (a trace: its
// report still to come, analysisStarted follows; a job: report() already set, or, when its
// ranks came from the model cache, still to come as for a trace: job() is then an early
// session without reports) and analysed or analysisFailed; or failed / cancelled. A job on new
// offsets: traceReplaced, then analysed (or rebuildFailed). Slots connected earlier run earlier:
// the window connects its own before the panes (compact mode before the timeline lays the trace
// out) and its public signals after.
//
// A report reaches the panes that follow it (followReport) one pane per pass of the event loop,
// in the order they were added, and analysed() is emitted after the last: a big job's report
// set in every pane at once held the GUI thread for 12-45 ms, with a window repaint right after
// it. Until then isAnalysing() stays true; a newer open, re-analysis or re-offset first gives the
// panes still waiting the report at once (then analysed()), so no pane keeps an older one.

#include "core/analysis/report.h"
#include "core/trace.h"
#include "ui/job/jobsession.h"
#include "ui/session/loadrelay.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <chrono>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace rs {

class Session : public QObject {
    Q_OBJECT
public:
    enum class Kind : std::uint8_t { None, Trace, Job, Summaries };
    Q_ENUM(Kind)

    explicit Session(QObject* parent = nullptr);
    ~Session() override;

    // Rank summaries (files, or folders of *.ranksummary.json[.gz]) open as a job without
    // traces; several ranks (files, a job folder) as a job; one rank as a trace. What is open
    // stays until the new open succeeds.
    void open(const QStringList& paths);
    // Stops the open while it loads (a trace already shown keeps being analysed).
    void cancel();
    // The analysis again (new link peaks): a trace is analysed anew, a job matched again on its
    // offsets.
    void reanalyse();
    // A job's ranks moved onto new clock offsets (ns, in the job's rank order): rebuilt on the
    // pool, same event ids; false when no job is open.
    bool setRankOffsets(const std::vector<TimeNs>& offsets);

    bool isLoading() const { return m_state == State::Loading; }
    bool isAnalysing() const
    {
        return m_state == State::Analysing || isRebuilding() || m_delivering;
    }
    bool isRebuilding() const { return m_state == State::Rebuilding; }
    // Bumped by every open, re-analysis and re-offset; a result of an older one is dropped.
    quint64 generation() const { return m_generation.value(); }
    // What the open in flight (or the last one) is.
    Kind openingKind() const { return m_openingKind; }

    // What is open.
    Kind kind() const { return m_kind; }
    bool isJob() const { return m_job != nullptr; }
    TracePtr trace() const { return m_trace; }
    ReportPtr report() const { return m_report; }
    JobSessionPtr job() const { return m_job; }
    std::shared_ptr<const TimelineIndex> timelineIndex() const { return m_index; }
    // Per rank, on the shown trace's ids (the plots): {report} for a trace, the job's perRank.
    std::vector<ReportPtr> rankReports() const { return m_rankReports; }
    // The trace's file, or the job's name.
    QString path() const { return m_path; }
    // The paths given to the last open, absolute.
    QStringList openedPaths() const { return m_openedPaths; }
    // A trace read partially (cut or malformed file): what the loader said.
    bool isPartial() const { return !m_partialMessage.isEmpty(); }
    QString partialMessage() const { return m_partialMessage; }
    // The job's lines of ranks that failed, one string.
    QString jobErrors() const;

    // A pane's share of each analysis result (report(), rankReports(), job() are set when it
    // runs): called in a pass of the event loop of its own, before analysed() is emitted. Not
    // called once the receiver is gone. With a partner (a follower already added), in the
    // partner's pass, right after it: what draws over the same widget (the annotations over the
    // timeline) then costs one repaint of it, not two.
    void followReport(QObject* receiver, std::function<void()> step, QObject* partner = nullptr);

    // The timeline painted the trace just shown: its analysis, held back until then (at most
    // firstPaintWaitMs(), as a hidden window paints nothing), takes the cores. The first paint of
    // a big trace then never shares a core with two analysis threads (a 25 ms paint took
    // 50-60 ms so under load). Nothing waits on the pool meanwhile: the trace is loaded by one
    // pool task and analysed by another, posted from here.
    void viewPainted();

    // The one selection of the window. The timeline sets it (its click, N / P, history); the
    // panes follow selectionChanged. A pane that wants an event shown asks requestSelection: the
    // timeline selects and reveals it (selectionRequested), and the selection comes back to
    // everyone as selectionChanged. A new trace clears it.
    EventId selection() const { return m_selection; }
    void setSelection(EventId e);
    void requestSelection(EventId e);
    // The one step navigator: a pane asks for a step (rank < 0: the trace's own, or the first
    // rank that has it); the timeline zooms to it and selects its ProfilerStep.
    void requestStep(int rank, int step);
    // The rank an event of the shown trace belongs to (a job's block's rank, else the trace's).
    std::optional<int> rankOf(EventId e) const;
    // The step (ProfilerStep number) a selected event falls in, and whose: (rank, step).
    std::optional<std::pair<int, int>> stepOf(EventId e) const;
    int firstPaintWaitMs() const { return m_firstPaintWaitMs; }
    void setFirstPaintWaitMs(int ms) { m_firstPaintWaitMs = ms; }

signals:
    void opening(rs::Session::Kind kind, const QString& name, int ranks);
    // Bytes read of the open's files, and ranks done (queued from the pool; a trace's ranks
    // stay 0 of 1 until it is read).
    void progress(qint64 done, qint64 total, int ranksDone, int ranks);
    void traceLoaded(const rs::TracePtr& trace,
                     const std::shared_ptr<const rs::TimelineIndex>& index);
    // The open job on new offsets: a new merged trace with the same event ids.
    void traceReplaced(const rs::TracePtr& trace,
                       const std::shared_ptr<const rs::TimelineIndex>& index);
    void analysisStarted();
    void analysed(const rs::ReportPtr& report);
    void analysisFailed(const QString& message);
    // The open failed: what was open stays.
    void failed(const QString& message);
    void cancelled();
    void rebuildFailed();
    void selectionChanged(rs::EventId e);
    void selectionRequested(rs::EventId e);
    void stepRequested(int rank, int step);

private:
    enum class State : std::uint8_t { Idle, Loading, Analysing, Rebuilding };

    // A new generation: what is in flight is dropped when it arrives (and stops loading).
    quint64 supersede(State state);
    quint64 begin(Kind kind, const QString& name, int ranks);
    void relayProgress(quint64 generation, const std::shared_ptr<JobProgress>& jobProgress);
    void openTrace(const QString& path, std::optional<int> rank);
    void openJob(const std::vector<RankInput>& inputs, const QString& name);
    void openSummaries(const std::vector<std::string>& files, const QString& name);
    void showTrace(const QString& path, const TracePtr& trace, const QString& partial,
                   std::shared_ptr<const TimelineIndex> index);
    void traceDone(const QString& path, PipelineResult& result);
    // build() on the pool (what throws is the open's error), then jobDone unless superseded.
    void buildJob(quint64 generation, std::function<JobSessionPtr()> build, bool reoffset = false);
    void jobDone(JobSessionPtr job, bool reoffset);
    // A job's merged ranks before their analysis ended (every rank from the model cache).
    void showJobEarly(const JobSessionPtr& early);
    // The report (set) to the followers, one per pass, then analysed().
    void deliverReport();
    void nextReportStep(quint64 generation);
    // What is left of a delivery, at once (a newer open or analysis supersedes it).
    void finishReport();

    struct ReportFollower {
        QPointer<QObject> receiver;
        std::function<void()> step;
        const QObject* pass = nullptr; // the follower whose pass this one runs in
    };
    std::vector<ReportFollower> m_followers;
    std::size_t m_nextFollower = 0;
    bool m_delivering = false;

    LoadGeneration m_generation;
    State m_state = State::Idle;
    Kind m_openingKind = Kind::None;
    std::shared_ptr<JobProgress> m_progress; // of the open in flight
    // The open trace's analysis, posted once the view painted it or the wait ran out.
    void analyseWhenPainted();
    void analyseNow();
    bool m_painted = true;     // the shown trace's first frame is on screen
    quint64 m_analysisDue = 0; // the generation whose analysis waits for the paint
    std::chrono::steady_clock::time_point m_shownAt;
    int m_firstPaintWaitMs = 300;
    EventId m_selection = kNone;
    QStringList m_openedPaths;

    Kind m_kind = Kind::None;
    TracePtr m_trace;
    ReportPtr m_report;
    JobSessionPtr m_job;
    std::shared_ptr<const TimelineIndex> m_index;
    std::vector<ReportPtr> m_rankReports;
    QString m_path;
    QString m_partialMessage;
};

// For a pane that shows the per-rank reports (the plots): cleared when a trace opens (its
// report comes later; a job's is there already), set as each analysis ends.
template <typename Pane> void followRankReports(Session* session, Pane* pane)
{
    QObject::connect(session, &Session::traceLoaded, pane, [pane, session] {
        if (!session->report()) pane->setReports({});
    });
    session->followReport(pane, [pane, session] { pane->setReports(session->rankReports()); });
}

} // namespace rs
