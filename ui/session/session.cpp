#include "ui/session/session.h"

#include "core/analysis/analyzer.h"
#include "core/job/jobloader.h"
#include "core/job/pooltask.h"
#include "core/job/ranksummary.h"
#include "ui/session/loadrelay.h"
#include "ui/settings/linkpeaksdialog.h"

#include <QDir>
#include <QFileInfo>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <utility>

namespace rs {

namespace {

// An absolute path without a trailing separator: "job/" names the folder "job", not "".
QString absolutePath(const QString& path)
{
    return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

QString joined(const std::vector<std::string>& lines)
{
    std::string all;
    for (const std::string& e : lines)
        all += (all.empty() ? "" : "\n") + e;
    return QString::fromStdString(all);
}

} // namespace

Session::Session(QObject* parent) : QObject(parent) {}

Session::~Session()
{
    // The pool's tasks end soon after; their results are dropped with this object.
    if (m_progress) m_progress->requestCancel();
}

void Session::setSelection(EventId e)
{
    m_selection = e;
    emit selectionChanged(e);
}

void Session::requestSelection(EventId e)
{
    emit selectionRequested(e);
}

void Session::requestStep(int rank, int step)
{
    emit stepRequested(rank, step);
}

std::optional<int> Session::rankOf(EventId e) const
{
    if (!m_trace || e == kNone || e >= m_trace->slices().size()) return std::nullopt;
    if (m_job) {
        const int block = m_job->job.blockOfEvent(e);
        if (block >= 0 && std::size_t(block) < m_job->job.rankIds.size())
            return m_job->job.rankIds[std::size_t(block)];
        return std::nullopt;
    }
    return m_trace->rank();
}

std::optional<std::pair<int, int>> Session::stepOf(EventId e) const
{
    if (!m_report || !m_trace || e == kNone || e >= m_trace->slices().size()) return std::nullopt;
    const TimeNs t = m_trace->slice(e).start;
    // In a job the step is the event's own rank's.
    const std::optional<int> rank = m_job ? rankOf(e) : std::nullopt;
    for (const StepStats& st : m_report->steps)
        if (t >= st.start && t < st.end && (!rank || st.rank == rank))
            return std::make_pair(st.rank.value_or(rank.value_or(m_trace->rank().value_or(0))),
                                  st.step);
    return std::nullopt;
}

QString Session::jobErrors() const
{
    return m_job ? joined(m_job->errors) : QString();
}

void Session::open(const QStringList& paths)
{
    if (paths.isEmpty()) return;
    std::vector<std::string> given;
    m_openedPaths.clear();
    for (const QString& p : paths) {
        m_openedPaths << absolutePath(p);
        given.push_back(m_openedPaths.back().toStdString());
    }
    const QString name = paths.size() == 1
                             ? m_openedPaths.first()
                             : m_openedPaths.first() + tr(" (+%1 more)").arg(paths.size() - 1);
    if (std::all_of(given.begin(), given.end(), isRankSummaryPath)) {
        std::string findError;
        openSummaries(findRankSummaries(given, &findError), name);
        return;
    }
    std::string discoverError;
    const std::vector<RankInput> inputs = discoverJob(given, &discoverError);
    if (inputs.size() >= 2) {
        openJob(inputs, name);
        return;
    }
    // One rank: the folder holding it resolves to its trace; else the loader says why not.
    if (inputs.size() == 1)
        openTrace(QString::fromStdString(inputs.front().path), inputs.front().rank);
    else
        openTrace(m_openedPaths.first(), std::nullopt);
}

void Session::viewPainted()
{
    m_painted = true;
    if (m_analysisDue != 0 && m_generation.current(m_analysisDue)) analyseNow();
}

void Session::analyseWhenPainted()
{
    m_analysisDue = m_generation.value();
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - m_shownAt)
                            .count();
    if (m_painted || waited >= m_firstPaintWaitMs) {
        analyseNow();
        return;
    }
    // A GUI-thread timer, not a parked pool thread: the pool stays free meanwhile.
    const quint64 generation = m_generation.value();
    QTimer::singleShot(int(m_firstPaintWaitMs - waited), this, [this, generation] {
        if (m_analysisDue == generation && m_generation.current(generation)) analyseNow();
    });
}

void Session::analyseNow()
{
    m_analysisDue = 0;
    const quint64 generation = m_generation.value();
    const TracePtr trace = m_trace;
    const AnalysisOptions options = linkpeaks::analysisOptions();
    using Outcome = std::pair<ReportPtr, QString>;
    runOnPool<Outcome>(
        this,
        [trace, options]() -> Outcome {
            try {
                return {analyze(trace, options), QString()};
            } catch (const std::exception& e) {
                return {nullptr, QString::fromUtf8(e.what())};
            }
        },
        [this, generation](Outcome out) {
            if (!m_generation.current(generation)) return;
            m_state = State::Idle;
            if (!out.first) {
                emit analysisFailed(out.second);
                return;
            }
            m_report = out.first;
            m_rankReports = {m_report};
            deliverReport();
        });
}

quint64 Session::supersede(State state)
{
    m_analysisDue = 0; // a superseded analysis is never started
    finishReport();    // the panes still waiting for the last report get it first
    if (m_progress) m_progress->requestCancel(); // what still loads is superseded
    m_progress.reset();
    m_state = state;
    return m_generation.next();
}

quint64 Session::begin(Kind kind, const QString& name, int ranks)
{
    const quint64 generation = supersede(State::Loading);
    m_openingKind = kind;
    emit opening(kind, name, ranks);
    return generation;
}

void Session::followReport(QObject* receiver, std::function<void()> step, QObject* partner)
{
    // After the partner's pass mates; in a pass of its own, last, when the partner follows no
    // report.
    auto at = m_followers.end();
    const QObject* pass = receiver;
    for (auto it = m_followers.begin(); partner && it != m_followers.end(); ++it)
        if (it->pass == partner) {
            at = std::next(it);
            pass = partner;
        }
    m_followers.insert(at, {receiver, std::move(step), pass});
}

void Session::deliverReport()
{
    m_delivering = true;
    m_nextFollower = 0;
    nextReportStep(m_generation.value());
}

void Session::nextReportStep(quint64 generation)
{
    if (!m_delivering || !m_generation.current(generation)) return;
    // One follower now, the next in a later pass: the event loop (timers, input, the window's
    // repaint) runs in between.
    while (m_nextFollower < m_followers.size()) {
        const ReportFollower f = m_followers[m_nextFollower++];
        if (f.receiver) f.step();
        if (!m_delivering || !m_generation.current(generation)) return; // finished by a newer open
        // The next in a pass of its own, unless it shares this one.
        if (m_nextFollower < m_followers.size() && f.receiver &&
            m_followers[m_nextFollower].pass != f.pass) {
            QMetaObject::invokeMethod(
                this, [this, generation] { nextReportStep(generation); }, Qt::QueuedConnection);
            return;
        }
    }
    m_delivering = false;
    emit analysed(m_report);
}

void Session::finishReport()
{
    while (m_delivering && m_nextFollower < m_followers.size()) {
        const ReportFollower f = m_followers[m_nextFollower++];
        if (f.receiver) f.step();
    }
    if (!m_delivering) return; // a step finished it already
    m_delivering = false;
    emit analysed(m_report);
}

void Session::cancel()
{
    if (m_state == State::Loading && m_progress) m_progress->requestCancel();
}

void Session::relayProgress(quint64 generation, const std::shared_ptr<JobProgress>& jobProgress)
{
    rs::relayProgress(this, m_generation, generation, jobProgress,
                      [this](qint64 done, qint64 total, int ranksDone, int ranks) {
                          emit progress(done, total, ranksDone, ranks);
                      });
}

void Session::openTrace(const QString& path, std::optional<int> rank)
{
    const quint64 generation = begin(Kind::Trace, path, 1);
    auto jobProgress = std::make_shared<JobProgress>();
    m_progress = jobProgress;
    relayProgress(generation, jobProgress);
    const QueuedRelay relay(this);
    PipelineOptions options;
    options.crossRank = false;
    // Loaded here; analysed by a task of its own once the view painted it (analyseWhenPainted).
    options.analyse = false;
    options.onRankLoaded = [relay, this, generation, path](std::size_t, const LoadResult& loaded) {
        std::shared_ptr<const TimelineIndex> index;
        try {
            index = std::make_shared<TimelineIndex>(loaded.trace);
        } catch (const std::exception&) {
            // built on the GUI thread then
        }
        const TracePtr trace = loaded.trace;
        const QString partial =
            loaded.complete() ? QString() : QString::fromStdString(loaded.message);
        relay.post([this, generation, path, trace, partial, index] {
            if (m_generation.current(generation) && m_state == State::Loading)
                showTrace(path, trace, partial, index);
        });
    };
    const std::vector<RankInput> inputs{{path.toStdString(), rank}};
    runOnPool<std::shared_ptr<PipelineResult>>(
        this,
        [inputs, options, jobProgress]() {
            auto r = std::make_shared<PipelineResult>();
            try {
                *r = runPipeline(inputs, options, jobProgress.get());
            } catch (const std::exception& e) {
                r->errors.emplace_back(e.what());
            }
            return r;
        },
        [this, generation, path](std::shared_ptr<PipelineResult> r) {
            if (m_generation.current(generation)) traceDone(path, *r);
        });
}

void Session::showTrace(const QString& path, const TracePtr& trace, const QString& partial,
                        std::shared_ptr<const TimelineIndex> index)
{
    m_state = State::Analysing;
    m_kind = Kind::Trace;
    m_trace = trace;
    m_report.reset();
    m_job.reset();
    m_index = std::move(index);
    m_rankReports.clear();
    m_path = path;
    m_partialMessage = partial;
    m_selection = kNone;
    m_painted = false; // the analysis waits for the view's first frame of it
    m_shownAt = std::chrono::steady_clock::now();
    emit traceLoaded(m_trace, m_index);
    emit analysisStarted();
}

void Session::traceDone(const QString& path, PipelineResult& result)
{
    m_progress.reset();
    const bool shown = m_state == State::Analysing;
    if (result.cancelled) {
        m_state = State::Idle;
        emit cancelled();
        return;
    }
    if (!shown) {
        if (result.traces.empty() || !result.traces.front()) {
            m_state = State::Idle;
            emit failed(result.errors.empty() ? tr("cannot open %1").arg(path)
                                              : joined(result.errors));
            return;
        }
        // Not shown on its way (no index could be built there): shown now.
        showTrace(path, result.traces.front(),
                  result.warnings.empty() ? QString()
                                          : QString::fromStdString(result.warnings.front()),
                  nullptr);
    }
    // The trace loaded: an error now is its analysis's.
    if (!result.errors.empty()) {
        m_state = State::Idle;
        emit analysisFailed(joined(result.errors));
        return;
    }
    analyseWhenPainted();
}

void Session::reanalyse()
{
    if (!m_trace) return;
    if (m_job) {
        setRankOffsets(m_job->job.offsets);
        return;
    }
    supersede(State::Analysing);
    emit analysisStarted();
    analyseNow();
}

void Session::openJob(const std::vector<RankInput>& inputs, const QString& name)
{
    const quint64 generation = begin(Kind::Job, name, int(inputs.size()));
    auto jobProgress = std::make_shared<JobProgress>();
    m_progress = jobProgress;
    relayProgress(generation, jobProgress);
    const AnalysisOptions options = linkpeaks::analysisOptions();
    const std::string path = name.toStdString();
    // Ranks from the model cache are merged as soon as they have loaded: the timeline shows
    // while they are analysed (a reopen is then usable in the time the merge takes).
    const QueuedRelay relay(this);
    const JobMergedEarly onMerged = [relay, this, generation](JobSessionPtr early) {
        relay.post([this, generation, early] {
            if (m_generation.current(generation) && m_state == State::Loading) showJobEarly(early);
        });
    };
    buildJob(generation, [inputs, path, jobProgress, options, onMerged] {
        return buildJobSession(inputs, path, jobProgress.get(), options, onMerged);
    });
}

void Session::showJobEarly(const JobSessionPtr& early)
{
    m_state = State::Analysing;
    m_kind = m_openingKind;
    m_job = early;
    m_trace = early->job.trace;
    m_report.reset();
    m_index = early->timelineIndex;
    m_rankReports.clear();
    m_path = QString::fromStdString(m_trace->path());
    m_partialMessage.clear();
    m_selection = kNone;
    emit traceLoaded(m_trace, m_index);
    emit analysisStarted();
}

void Session::openSummaries(const std::vector<std::string>& files, const QString& name)
{
    // Summaries are small and read at once: no progress, no cancel.
    const quint64 generation = begin(Kind::Summaries, name, int(files.size()));
    const std::string path = name.toStdString();
    buildJob(generation, [files, path] { return buildSummaryJobSession(files, path); });
}

bool Session::setRankOffsets(const std::vector<TimeNs>& offsets)
{
    // A job shown before its analysis ended has no reports to move yet.
    if (!m_job || m_job->early()) return false;
    const quint64 generation = supersede(State::Rebuilding);
    const JobSessionPtr job = m_job;
    buildJob(
        generation, [job, offsets] { return reoffsetJobSession(*job, offsets); }, true);
    return true;
}

void Session::buildJob(quint64 generation, std::function<JobSessionPtr()> build, bool reoffset)
{
    // Loading, analysis and merging all run on the pool, off the GUI thread.
    runOnPool<JobSessionPtr>(
        this,
        [build = std::move(build), reoffset]() -> JobSessionPtr {
            try {
                return build();
            } catch (const std::exception& e) {
                if (reoffset) return nullptr; // rebuildFailed: the job stays as it was
                auto s = std::make_shared<JobSession>();
                s->errors.emplace_back(e.what());
                return s;
            }
        },
        [this, generation, reoffset](JobSessionPtr job) {
            if (m_generation.current(generation)) jobDone(std::move(job), reoffset);
        });
}

void Session::jobDone(JobSessionPtr job, bool reoffset)
{
    m_progress.reset();
    // Shown early (showJobEarly): its analysis ends here.
    const bool shown = !reoffset && m_state == State::Analysing;
    m_state = State::Idle;
    if (!job) {
        emit rebuildFailed();
        return;
    }
    const bool none = job->cancelled || !job->job.trace || job->job.rankCount() == 0;
    if (shown && none) {
        emit analysisFailed(joined(job->errors));
        return;
    }
    if (job->cancelled) {
        emit cancelled();
        return;
    }
    if (none) {
        emit failed(job->errors.empty() ? tr("no rank could be loaded") : joined(job->errors));
        return;
    }
    m_kind = reoffset ? m_kind : m_openingKind;
    m_partialMessage.clear();
    const bool sameTrace = shown && m_trace == job->job.trace;
    m_job = std::move(job);
    m_trace = m_job->job.trace;
    m_report = m_job->combined;
    m_index = m_job->timelineIndex;
    m_rankReports = m_job->perRank;
    m_path = QString::fromStdString(m_trace->path());
    if (reoffset) {
        emit traceReplaced(m_trace, m_index);
    } else if (!sameTrace) { // else the panes have it since showJobEarly
        m_selection = kNone;
        emit traceLoaded(m_trace, m_index);
    }
    deliverReport();
}

} // namespace rs
