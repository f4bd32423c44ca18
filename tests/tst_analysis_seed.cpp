// The seed case, generated in both shapes: exactly the bad rank's mode-B AllReduce ops are
// anomalous; the other ranks' ops of those steps are as long but only wait.

#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "tests/testutil.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace rs;

namespace {

ReportPtr analyzeSeed(const gen::SeedCaseOptions& o, int rank, const AnalysisOptions& ao = {})
{
    const std::string text = gen::seedCaseTrace(o, rank);
    LoadResult r = test::loadText(text);
    if (!r.complete()) qWarning("load failed: %s", r.message.c_str());
    return r.complete() ? analyze(r.trace, ao) : nullptr;
}

bool chainHas(const std::vector<StackEntry>& chain, const std::string& text)
{
    for (const StackEntry& s : chain) {
        if (s.text.find(text) != std::string::npos) return true;
    }
    return false;
}

} // namespace

class TestAnalysisSeed : public QObject {
    Q_OBJECT

private slots:
    void seedCase_data()
    {
        QTest::addColumn<bool>("kineto");
        QTest::addColumn<int>("ranks");
        QTest::newRow("torch_npu 2 ranks") << false << 2;
        QTest::newRow("kineto 2 ranks") << true << 2;
        QTest::newRow("torch_npu 4 ranks") << false << 4;
        QTest::newRow("kineto 4 ranks") << true << 4;
    }

    void seedCase()
    {
        QFETCH(bool, kineto);
        QFETCH(int, ranks);
        gen::SeedCaseOptions o;
        o.kineto = kineto;
        o.ranks = ranks;
        for (int rank = 0; rank < ranks; ++rank) {
            ReportPtr rep = analyzeSeed(o, rank);
            QVERIFY(rep);
            const Trace& t = *rep->trace;
            QCOMPARE(int(rep->collectives.size()), o.steps);
            for (const Collective& c : rep->collectives) {
                QCOMPARE(c.kind, CollectiveKind::AllReduce);
                QVERIFY2(c.name.find("roadcast") == std::string::npos, c.name.c_str());
                QCOMPARE(c.count, o.count);
                QCOMPARE(c.bytes, o.count * 4);
                QVERIFY(c.step.has_value());
                const int i = int(*c.step - int(o.stepBase));
                const bool badStep = i == 2 || i == 4;
                // Modes: 200 ms (A) and 400 ms (B).
                QVERIFY(c.mode.has_value());
                QCOMPARE(*c.mode, badStep ? 1 : 0);
                const bool expectAnomalous = badStep && rank == o.badRank;
                QVERIFY2(c.anomalous == expectAnomalous, c.verdict.c_str());
                QVERIFY2(c.waiting == (badStep && rank != o.badRank), c.verdict.c_str());
                if (expectAnomalous) {
                    int extra = 0;
                    for (const InternalCopy& cp : c.copies) {
                        if (!cp.extra) continue;
                        ++extra;
                        QVERIFY(cp.unalignedSize);
                        QVERIFY(cp.unalignedAddress);
                        QVERIFY(std::llabs(cp.dur - o.extraMemcpyNs) < o.extraMemcpyNs / 50);
                        QVERIFY(rep->marks(cp.event) & kMarkExtraMemcpy);
                    }
                    QCOMPARE(extra, 1);
                    QVERIFY(rep->marks(c.event) & kMarkAnomalous);
                    QVERIFY(c.verdict.rfind("Anomalous", 0) == 0);
                } else {
                    QVERIFY(!(rep->marks(c.event) & kMarkAnomalous));
                    for (const InternalCopy& cp : c.copies)
                        QVERIFY(!cp.extra);
                }
                if (c.waiting)
                    QVERIFY2(c.verdict.find("wait") != std::string::npos, c.verdict.c_str());
                // Baseline copies are there in every HCCL op, like in real ones; NCCL has none.
                QVERIFY(kineto ? c.memcpyCount == int(expectAnomalous) : c.memcpyCount >= 3);
                QVERIFY(rep->marks(c.event) & kMarkCollective);
                QCOMPARE(rep->collectiveOf(c.event), &c);
                for (const InternalCopy& cp : c.copies)
                    QCOMPARE(rep->collectiveOf(cp.event), &c);
                // AllReduce bus bandwidth = alg x 2(n-1)/n.
                QVERIFY(std::isfinite(c.algbwGbps));
                QVERIFY(std::abs(c.busbwGbps - c.algbwGbps * 2.0 * (ranks - 1) / ranks) < 1e-9);
            }
            // One signature group with two modes, B = 2.0x A.
            QCOMPARE(int(rep->signatures.size()), 1);
            const SignatureGroup& g = rep->signatures.front();
            QCOMPARE(int(g.modes.size()), 2);
            QCOMPARE(g.modes[1].members, 2);
            QVERIFY2(g.summary.find("mode B = 2.0x mode A") != std::string::npos,
                     g.summary.c_str());
            if (rank == o.badRank) {
                QVERIFY2(g.summary.find("every mode-B op has one extra Memcpy") !=
                             std::string::npos,
                         g.summary.c_str());
                QVERIFY2(g.summary.find("no mode-A op has it") != std::string::npos,
                         g.summary.c_str());
            }
            // Findings: one error per anomalous op, its stack leads to the custom op.
            int errors = 0;
            for (const Finding& f : rep->findings) {
                if (f.rule != "collective-extra-memcpy") continue;
                ++errors;
                QCOMPARE(f.severity, Severity::Error);
                QVERIFY(!f.stack.empty());
                QVERIFY2(chainHas(f.stack, "custom_attention_forward"), f.title.c_str());
                QVERIFY2(f.recommendation.find("custom_attention_forward") != std::string::npos,
                         f.recommendation.c_str());
            }
            QCOMPARE(errors, rank == o.badRank ? 2 : 0);
            if (rank == o.badRank)
                QCOMPARE(rep->findings.front().rule, std::string("collective-extra-memcpy"));

            // Steps: ~320 ms computing, the AllReduce is communication, nothing overlaps.
            QCOMPARE(int(rep->steps.size()), o.steps);
            for (const StepStats& s : rep->steps) {
                const bool badStep = s.step == int(o.stepBase) + 2 || s.step == int(o.stepBase) + 4;
                QCOMPARE(s.computing, o.computeNs);
                QCOMPARE(s.communication, o.allReduceNs + (badStep ? o.extraMemcpyNs : 0));
                QCOMPARE(s.overlapped, TimeNs(0));
                QCOMPARE(s.communicationNotOverlapped, s.communication);
                // torch_npu's Free: the device is idle from a step's last task to the next
                // step's first (1 ms host tail + 0.5 ms + 1 ms host head), a gap counted in the
                // step where it starts, as its host outlasts its device work; none after the
                // last step.
                const bool last = s.step == int(o.stepBase) + o.steps - 1;
                QCOMPARE(s.free, o.kineto || last ? TimeNs(0) : TimeNs(2'500'000));
            }
            (void)t;
        }
    }

    void alignmentOptions()
    {
        gen::SeedCaseOptions o;
        // With boundaries of 32 (size) and 64 (address) the extra copy is aligned: bytes + 96
        // is a multiple of 32 and the address is 64 past a 128 boundary.
        AnalysisOptions ao;
        ao.sizeAlign = 32;
        ao.addrAlign = 64;
        ReportPtr rep = analyzeSeed(o, o.badRank, ao);
        QVERIFY(rep);
        for (const Collective& c : rep->collectives) {
            QCOMPARE(c.unalignedCount, 0);
            // Still anomalous: the extra time is the copy, whatever the alignment.
            for (const InternalCopy& cp : c.copies) {
                QVERIFY(!cp.unalignedSize);
                QVERIFY(!cp.unalignedAddress);
            }
        }
        for (const Finding& f : rep->findings)
            QVERIFY2(f.rule.rfind("unaligned", 0) != 0, f.title.c_str());
        // Defaults flag the copy's size and address.
        rep = analyzeSeed(o, o.badRank);
        int unalignedFindings = 0;
        for (const Finding& f : rep->findings)
            unalignedFindings += f.rule == "unaligned-address";
        QCOMPARE(unalignedFindings, 2);
    }

    void writesJob()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        gen::SeedCaseOptions o;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        for (int r = 0; r < o.ranks; ++r) {
            const std::string run =
                dir.path().toStdString() + "/rank" + std::to_string(r) + "_ascend_pt";
            LoadResult lr = loadTrace(run);
            QVERIFY2(lr.complete(), lr.message.c_str());
            QCOMPARE(lr.trace->rank(), std::optional<int>(r));
            ReportPtr rep = analyze(lr.trace);
            QCOMPARE(int(rep->collectives.size()), o.steps);
            for (const Collective& c : rep->collectives)
                QCOMPARE(c.rank, std::optional<int>(r));
        }
        o.kineto = true;
        QVERIFY(gen::writeSeedCaseJob(dir.path().toStdString(), o));
        LoadResult lr = loadTrace(dir.path().toStdString() + "/rank1.pt.trace.json");
        QVERIFY2(lr.complete(), lr.message.c_str());
        QCOMPARE(int(analyze(lr.trace)->collectives.size()), o.steps);
    }
};

QTEST_GUILESS_MAIN(TestAnalysisSeed)
#include "tst_analysis_seed.moc"
