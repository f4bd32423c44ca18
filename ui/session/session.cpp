#include "ui/session/session.h"

#include "core/analysis/analyzer.h"
#include "core/job/jobloader.h"
#include "core/job/pooltask.h"
#include "core/job/ranksummary.h"
#include "ui/settings/linkpeaksdialog.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
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

// Holds a trace's analysis (on its pool thread, in the pipeline's onRankLoaded) until the view
// painted it or the wait ran out.
struct Session::PaintGate {
    explicit PaintGate(int ms) : waitMs(ms) {}
    const int waitMs;
    std::mutex mutex;
    std::condition_variable cv;
    bool open = false;
    void release()
    {
        {
            std::lock_guard lock(mutex);
            open = true;
        }
        cv.notify_all();
    }
    void wait()
    {
        std::unique_lock lock(mutex);
        cv.wait_for(lock, std::chrono::milliseconds(waitMs), [this] { return open; });
    }
};

Session::Session(QObject* parent) : QObject(parent) {}

Session::~Session()
{
    viewPainted(); // nothing waits for a view that is gone
    // The pool's tasks end soon after; their results are dropped with this object.
    if (m_progress) m_progress->requestCancel();
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
    if (m_paintGate) m_paintGate->release();
    m_paintGate.reset();
}

quint64 Session::supersede(State state)
{
    viewPainted();  // a superseded analysis need not wait
    finishReport(); // the panes still waiting for the last report get it first
    if (m_progress) m_progress->requestCancel(); // what still loads is superseded
    m_progress.reset();
    m_state = state;
    return ++m_generation;
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
    nextReportStep(m_generation);
}

void Session::nextReportStep(quint64 generation)
{
    if (!m_delivering || generation != m_generation) return;
    // One follower now, the next in a later pass: the event loop (timers, input, the window's
    // repaint) runs in between.
    while (m_nextFollower < m_followers.size()) {
        const ReportFollower f = m_followers[m_nextFollower++];
        if (f.receiver) f.step();
        if (!m_delivering || generation != m_generation) return; // finished by a newer open
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
    // Queued onto the GUI thread as chunks are read and ranks end (no polling), at most about
    // 200 times per open besides the rank ends: a fast read of many small chunks does not
    // flood the event loop.
    const QueuedRelay relay(this);
    auto posted = std::make_shared<std::atomic<std::uint64_t>>(0);
    auto ranksPosted = std::make_shared<std::atomic<int>>(-1);
    jobProgress->onChange = [relay, this, generation, posted, ranksPosted,
                             weak = std::weak_ptr<JobProgress>(jobProgress)] {
        const std::shared_ptr<JobProgress> p = weak.lock();
        if (!p) return;
        const std::uint64_t total = p->total.load();
        const std::uint64_t done = std::min(p->bytesDone(), total);
        const int ranksDone = p->ranksDone.load();
        const std::uint64_t last = posted->load();
        if (ranksDone == ranksPosted->load() && done < total &&
            (done > last ? done - last : 0) < total / 200)
            return;
        posted->store(done);
        ranksPosted->store(ranksDone);
        relay.post([this, generation, done, total, ranksDone, ranks = p->ranks.load()] {
            if (generation == m_generation)
                emit progress(qint64(done), qint64(total), ranksDone, ranks);
        });
    };
}

void Session::openTrace(const QString& path, std::optional<int> rank)
{
    const quint64 generation = begin(Kind::Trace, path, 1);
    auto jobProgress = std::make_shared<JobProgress>();
    m_progress = jobProgress;
    relayProgress(generation, jobProgress);
    const QueuedRelay relay(this);
    PipelineOptions options;
    options.analysis = linkpeaks::analysisOptions();
    options.crossRank = false;
    // The trace shows while it is analysed, its timeline index built here on the pool; the
    // analysis starts once the view painted it.
    m_paintGate = std::make_shared<PaintGate>(m_firstPaintWaitMs);
    options.onRankLoaded = [relay, this, generation, path,
                            gate = m_paintGate](std::size_t, const LoadResult& loaded) {
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
            if (generation == m_generation && m_state == State::Loading)
                showTrace(path, trace, partial, index);
        });
        gate->wait();
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
            if (generation == m_generation) traceDone(path, *r);
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
    emit traceLoaded(m_trace, m_index);
    emit analysisStarted();
}

void Session::traceDone(const QString& path, PipelineResult& result)
{
    m_progress.reset();
    const bool shown = m_state == State::Analysing;
    m_state = State::Idle;
    if (result.cancelled) {
        emit cancelled();
        return;
    }
    if (!shown) {
        if (result.traces.empty() || !result.traces.front()) {
            emit failed(result.errors.empty() ? tr("cannot open %1").arg(path)
                                              : joined(result.errors));
            return;
        }
        // Not shown on its way (no index could be built there): shown now.
        showTrace(path, result.traces.front(),
                  result.warnings.empty() ? QString()
                                          : QString::fromStdString(result.warnings.front()),
                  nullptr);
        m_state = State::Idle;
    }
    // The trace loaded: an error now is its analysis's.
    if (!result.errors.empty() || result.reports.empty()) {
        emit analysisFailed(joined(result.errors));
        return;
    }
    m_report = result.reports.front();
    m_rankReports = {m_report};
    deliverReport();
}

void Session::reanalyse()
{
    if (!m_trace) return;
    if (m_job) {
        setRankOffsets(m_job->job.offsets);
        return;
    }
    const quint64 generation = supersede(State::Analysing);
    emit analysisStarted();
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
            if (generation != m_generation) return;
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
            if (generation == m_generation && m_state == State::Loading) showJobEarly(early);
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
            if (generation == m_generation) jobDone(std::move(job), reoffset);
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
    if (reoffset)
        emit traceReplaced(m_trace, m_index);
    else if (!sameTrace) // else the panes have it since showJobEarly
        emit traceLoaded(m_trace, m_index);
    deliverReport();
}

} // namespace rs
