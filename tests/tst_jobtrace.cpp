// A job as one display trace: merging rank traces (ids in contiguous blocks, times on the job
// clock, processes renamed by rank), new offsets, and rank reports remapped into the merged ids.
#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/job/crossrank.h"
#include "core/job/jobtrace.h"
#include "tests/testutil.h"

#include <QtTest>

using namespace rs;

namespace {

// A small trace with everything the model holds: nested slices, args, a flow across processes,
// a counter and stack frames.
std::string smallTrace(int rank, int shiftUs)
{
    return R"({"traceEvents":[
{"ph":"M","name":"process_name","pid":1,"args":{"name":"HCCL"}},
{"ph":"M","name":"process_name","pid":2,"args":{"name":"Ascend Hardware"}},
{"ph":"X","name":"outer","cat":"op","pid":1,"tid":1,"ts":)" +
           std::to_string(10 + shiftUs) + R"(,"dur":5,"args":{"k":)" + std::to_string(rank) +
           R"(},"sf":"2"},
{"ph":"X","name":"inner","pid":1,"tid":1,"ts":)" +
           std::to_string(11 + shiftUs) + R"(,"dur":2},
{"ph":"s","id":7,"name":"fl","cat":"c","pid":1,"tid":1,"ts":)" +
           std::to_string(10 + shiftUs) + R"(},
{"ph":"X","name":"kernel","pid":2,"tid":3,"ts":)" +
           std::to_string(20 + shiftUs) + R"(,"dur":5},
{"ph":"f","id":7,"name":"fl","cat":"c","pid":2,"tid":3,"ts":)" +
           std::to_string(20 + shiftUs) + R"(,"bp":"e"},
{"ph":"C","name":"mem","pid":1,"ts":)" +
           std::to_string(12 + shiftUs) + R"(,"args":{"value":3}}
],"stackFrames":{"1":{"name":"main","category":"py"},"2":{"name":"inner_fn","parent":"1","category":"py"}},
"distributedInfo":{"rank":)" +
           std::to_string(rank) + "}}";
}

std::string procLabel(const Trace& t, ProcessId p)
{
    return t.processLabel(p);
}

} // namespace

class TstJobTrace : public QObject {
    Q_OBJECT
private slots:
    void mergesEverythingIntoBlocks()
    {
        std::vector<TracePtr> ranks;
        for (int r = 0; r < 3; ++r) {
            LoadResult l = test::loadText(smallTrace(r, r * 3));
            QVERIFY2(l.complete(), l.message.c_str());
            ranks.push_back(l.trace);
        }
        QCOMPARE(*ranks[2]->rank(), 2);
        const std::vector<TimeNs> offsets = {0, 1'000'000, -500};
        const JobTrace job = mergeRanks(ranks, offsets, "/tmp/job");
        const Trace& m = *job.trace;
        QCOMPARE(job.rankIds, (std::vector<int>{0, 1, 2}));
        std::size_t slices = 0, flows = 0, frames = 0, counters = 0;
        for (const TracePtr& t : ranks) {
            slices += t->slices().size();
            flows += t->flows().size();
            frames += t->stackFrames().size();
            counters += t->counters().size();
        }
        QCOMPARE(m.slices().size(), slices);
        QCOMPARE(m.flows().size(), flows);
        QVERIFY(flows >= 3);
        QCOMPARE(m.stackFrames().size(), frames);
        QCOMPARE(m.counters().size(), counters);
        QVERIFY(!m.rank());
        QCOMPARE(m.path(), std::string("/tmp/job"));

        for (std::size_t b = 0; b < 3; ++b) {
            const Trace& t = *ranks[b];
            QCOMPARE(job.eventBase[b + 1] - job.eventBase[b], EventId(t.slices().size()));
            for (EventId e = 0; e < t.slices().size(); ++e) {
                const EventId me = job.toMerged(b, e);
                QCOMPARE(job.blockOfEvent(me), int(b));
                const Slice& a = t.slice(e);
                const Slice& s = m.slice(me);
                QCOMPARE(s.start, a.start + offsets[b]);
                QCOMPARE(s.dur, a.dur);
                QCOMPARE(s.depth, a.depth);
                QCOMPARE(m.str(s.name), t.str(a.name));
                QCOMPARE(m.argsText(me), t.argsText(e));
                QCOMPARE(s.parent == kNone, a.parent == kNone);
                if (a.parent != kNone) QCOMPARE(s.parent, job.toMerged(b, a.parent));
                QCOMPARE(job.blockOfTrack(s.track), int(b));
                QCOMPARE(m.trackLabel(s.track), t.trackLabel(a.track));
                // Flows and stack frames follow their slice.
                QCOMPARE(m.flowsFrom(me).size(), t.flowsFrom(e).size());
                for (std::uint32_t f : m.flowsFrom(me))
                    QCOMPARE(job.blockOfEvent(m.flows()[f].to), int(b));
                const std::uint32_t fr = t.eventStackFrame(e);
                const std::uint32_t mfr = m.eventStackFrame(me);
                QCOMPARE(fr == kNone, mfr == kNone);
                if (fr != kNone) {
                    QCOMPARE(m.str(m.stackFrames()[mfr].name), t.str(t.stackFrames()[fr].name));
                    const auto parent = m.stackFrames()[mfr].parent;
                    QVERIFY(parent != kNone);
                    QCOMPARE(m.str(m.stackFrames()[parent].name), std::string("main"));
                }
                // The search index of the track still works on the merged trace.
                QCOMPARE(m.sliceAt(s.track, s.start), me);
            }
            for (ProcessId p = 0; p < t.processes().size(); ++p) {
                const ProcessId mp = job.processBase[b] + p;
                QCOMPARE(job.blockOfProcess(mp), int(b));
                QCOMPARE(procLabel(m, mp),
                         "Rank " + std::to_string(b) + " \xc2\xb7 " + t.processLabel(p));
            }
            const CounterSeries& c0 = t.counters().front();
            const CounterSeries& mc = m.counters()[b * t.counters().size()];
            QCOMPARE(mc.ts.front(), c0.ts.front() + offsets[b]);
            QCOMPARE(job.blockOfProcess(mc.process), int(b));
        }
        // Processes sort by rank, then by each rank's own order.
        for (ProcessId p = 1; p < m.processes().size(); ++p)
            QVERIFY(m.processes()[p - 1].sortIndex < m.processes()[p].sortIndex);
        QCOMPARE(m.startNs(), std::min({ranks[0]->startNs(), ranks[1]->startNs() + offsets[1],
                                        ranks[2]->startNs() + offsets[2]}));
        QCOMPARE(m.endNs(), ranks[1]->endNs() + offsets[1]);
        QCOMPARE(m.stats().events, ranks[0]->stats().events * 3);
        QCOMPARE(job.shells[1]->rank(), std::optional<int>(1));
        QVERIFY(job.shells[1]->slices().empty());
    }

    void releasesRanksItOwns()
    {
        LoadResult a = test::loadText(smallTrace(0, 0));
        LoadResult b = test::loadText(smallTrace(1, 0));
        std::weak_ptr<const Trace> wa = a.trace, wb = b.trace;
        std::vector<TracePtr> ranks = {a.trace, b.trace};
        a.trace.reset();
        b.trace.reset();
        const JobTrace job = mergeRanks(std::move(ranks), {});
        QVERIFY(wa.expired());
        QVERIFY(wb.expired());
        QCOMPARE(job.rankCount(), std::size_t(2));
    }

    void reoffsetShiftsOneRankExactly()
    {
        std::vector<TracePtr> ranks;
        for (int r = 0; r < 2; ++r)
            ranks.push_back(test::loadText(smallTrace(r, 0)).trace);
        const JobTrace job = mergeRanks(ranks, {0, 0});
        const JobTrace moved = reoffsetJob(job, {0, 7'000});
        QCOMPARE(moved.offsets[1], TimeNs(7'000));
        QCOMPARE(moved.trace->slices().size(), job.trace->slices().size());
        for (EventId e = 0; e < job.trace->slices().size(); ++e) {
            const TimeNs d = moved.trace->slice(e).start - job.trace->slice(e).start;
            QCOMPARE(d, job.blockOfEvent(e) == 1 ? TimeNs(7'000) : TimeNs(0));
            QCOMPARE(moved.trace->str(moved.trace->slice(e).name),
                     job.trace->str(job.trace->slice(e).name));
            QCOMPARE(moved.trace->argsText(e), job.trace->argsText(e));
        }
        QCOMPARE(moved.trace->counters()[1].ts.front(),
                 job.trace->counters()[1].ts.front() + 7'000);
        QCOMPARE(moved.trace->endNs(), job.trace->endNs() + 7'000);
        QCOMPARE(moved.trace->processLabel(2), job.trace->processLabel(2));
        // Back to zero gives the original times.
        const JobTrace back = reoffsetJob(moved, {0, 0});
        for (EventId e = 0; e < job.trace->slices().size(); ++e)
            QCOMPARE(back.trace->slice(e).start, job.trace->slice(e).start);
    }

    void remapsSeedReportsAndJobFindings()
    {
        gen::SeedCaseOptions o;
        o.ranks = 4;
        o.steps = 4;
        o.badSteps = {1};
        o.badRank = 2;
        std::vector<TracePtr> traces;
        std::vector<ReportPtr> reports;
        for (int r = 0; r < o.ranks; ++r) {
            LoadResult l = test::loadText(gen::seedCaseTrace(o, r));
            QVERIFY2(l.complete(), l.message.c_str());
            traces.push_back(l.trace);
            reports.push_back(analyze(l.trace));
        }
        const JobReport jr = analyzeJob(reports);
        const std::vector<TimeNs> offsets = {0, 3'000, 0, -2'000};
        const JobTrace job = mergeRanks(traces, offsets);
        std::vector<ReportPtr> perRank;
        const ReportPtr combined = combineReports(job, reports, &jr, &perRank);
        QCOMPARE(perRank.size(), reports.size());
        QCOMPARE(combined->trace, job.trace);

        std::size_t colls = 0;
        for (std::size_t b = 0; b < reports.size(); ++b) {
            const AnalysisReport& local = *reports[b];
            colls += local.collectives.size();
            QCOMPARE(perRank[b]->collectives.size(), local.collectives.size());
            for (std::size_t i = 0; i < local.collectives.size(); ++i) {
                const Collective& lc = local.collectives[i];
                const Collective& mc = perRank[b]->collectives[i];
                QCOMPARE(mc.event, job.toMerged(b, lc.event));
                QCOMPARE(mc.start, lc.start + offsets[b]);
                QCOMPARE(*mc.rank, int(b));
                QCOMPARE(job.trace->str(job.trace->slice(mc.event).name),
                         traces[b]->str(traces[b]->slice(lc.event).name));
                // Marks and the collective lookup work on merged ids in the combined report.
                QCOMPARE(combined->marks(mc.event), local.marks(lc.event));
                const Collective* cc = combined->collectiveOf(mc.event);
                QVERIFY(cc);
                QCOMPARE(cc->event, mc.event);
                for (std::size_t k = 0; k < lc.tasks.size(); ++k) {
                    QCOMPARE(mc.tasks[k], job.toMerged(b, lc.tasks[k]));
                    QCOMPARE(combined->collectiveOf(mc.tasks[k])->event, mc.event);
                }
                for (std::size_t k = 0; k < lc.copies.size(); ++k)
                    QCOMPARE(mc.copies[k].start, lc.copies[k].start + offsets[b]);
            }
            for (std::size_t i = 0; i < local.steps.size(); ++i) {
                QCOMPARE(perRank[b]->steps[i].event, job.toMerged(b, local.steps[i].event));
                QCOMPARE(perRank[b]->steps[i].start, local.steps[i].start + offsets[b]);
            }
        }
        QCOMPARE(combined->collectives.size(), colls);
        for (std::size_t i = 1; i < combined->collectives.size(); ++i)
            QVERIFY(combined->collectives[i - 1].start <= combined->collectives[i].start);
        for (const SignatureGroup& g : combined->signatures) {
            QVERIFY(g.label.rfind("Rank ", 0) == 0);
            const int b = job.blockOfEvent(combined->collectives[g.members.front()].event);
            for (std::uint32_t mbr : g.members) {
                QCOMPARE(job.blockOfEvent(combined->collectives[mbr].event), b);
                QCOMPARE(&combined->signatures[combined->collectives[mbr].signature], &g);
            }
        }
        for (std::size_t i = 1; i < combined->markIndex.size(); ++i)
            QVERIFY(combined->markIndex[i - 1].first < combined->markIndex[i].first);
        QCOMPARE(combined->steps.size(), std::size_t(o.ranks * o.steps));

        // The job finding points at the delaying rank's op in the merged trace.
        const Finding* jf = nullptr;
        for (const Finding& f : combined->findings)
            if (f.rule == "job-rank-delays-collective") jf = &f;
        QVERIFY(jf);
        QVERIFY(!jf->rank);
        QCOMPARE(*jf->eventsRank, 2);
        QVERIFY(!jf->events.empty());
        QCOMPARE(job.blockOfEvent(jf->events.front()), 2);
        const Slice& s = job.trace->slice(jf->events.front());
        QCOMPARE(jf->start, s.start);
        QVERIFY(combined->collectiveOf(jf->events.front())->anomalous);
        // Every finding's evidence lies in the merged trace; rank findings name their rank.
        for (const Finding& f : combined->findings) {
            for (EventId e : f.events)
                QVERIFY(e < job.trace->slices().size());
            if (f.rule.rfind("job-", 0) != 0) {
                QVERIFY(f.rank);
                if (!f.events.empty())
                    QCOMPARE(job.rankIds[std::size_t(job.blockOfEvent(f.events.front()))], *f.rank);
            }
        }
        for (std::size_t i = 1; i < combined->findings.size(); ++i)
            QVERIFY(combined->findings[i - 1].severity >= combined->findings[i].severity);
    }
};

QTEST_GUILESS_MAIN(TstJobTrace)
#include "tst_jobtrace.moc"
