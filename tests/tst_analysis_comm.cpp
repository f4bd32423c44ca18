// Communication health: time breakdown, transfers per transport, the communication matrix and
// link utilisation, against torch_npu's communication.json and communication_matrix.json on
// every public run, and on fixtures of the layouts the public runs lack (single plane, several
// groups and planes, RDMA). Deviations from the public files are printed (qInfo).

#include "core/analysis/analyzer.h"
#include "core/analysis/reportjson.h"
#include "core/analysis/rules/rules.h"
#include "tests/support/reportoracle.h"
#include "tests/testutil.h"

#include <QDir>
#include <QFile>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>

using namespace rs;
using nlohmann::json;

namespace {

// Largest deviations met against the public files, for the record.
struct Deviation {
    double timeNs = 0, timeRel = 0, ratio = 0, gbps = 0, gbpsRel = 0;
    void time(double got, double want)
    {
        timeNs = std::max(timeNs, std::abs(got - want));
        if (want != 0) timeRel = std::max(timeRel, std::abs(got - want) / std::abs(want));
    }
};
Deviation g_dev;

bool timeClose(double gotNs, double wantMs)
{
    const double want = wantMs * 1e6;
    g_dev.time(gotNs, want);
    return std::abs(gotNs - want) <= std::max(2000.0, 0.01 * std::abs(want));
}

bool ratioClose(double got, double want)
{
    g_dev.ratio = std::max(g_dev.ratio, std::abs(got - want));
    return std::abs(got - want) <= std::max(1e-4, 0.01 * std::abs(want));
}

bool gbpsClose(double got, double want)
{
    g_dev.gbps = std::max(g_dev.gbps, std::abs(got - want));
    if (want != 0) g_dev.gbpsRel = std::max(g_dev.gbpsRel, std::abs(got - want) / want);
    return std::abs(got - want) <= std::max(1e-4, 0.01 * std::abs(want));
}

ReportPtr analyzeFile(const QString& path, const AnalysisOptions& o = {})
{
    LoadResult r = loadTrace(path.toStdString());
    if (r.failed()) qWarning("cannot load %s: %s", qPrintable(path), r.message.c_str());
    return !r.failed() ? analyze(r.trace, o) : nullptr;
}

ReportPtr analyzeText(const std::string& text, const AnalysisOptions& o = {})
{
    LoadResult r = test::loadText(text);
    if (r.failed()) qWarning("load failed: %s", r.message.c_str());
    return !r.failed() ? analyze(r.trace, o) : nullptr;
}

json readJson(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return nullptr;
    return json::parse(f.readAll().toStdString());
}

const Collective* byName(const AnalysisReport& rep, const std::string& name)
{
    for (const Collective& c : rep.collectives)
        if (c.name == name) return &c;
    return nullptr;
}

const TransferStat* transfer(const Collective& c, const std::string& name)
{
    for (const TransferStat& t : c.transfers)
        if (t.name == name) return &t;
    return nullptr;
}

int stepOf(const std::string& key)
{
    return key.rfind("step", 0) == 0 && key.size() > 4 ? std::stoi(key.substr(4)) : -1;
}

// ---- fixtures -------------------------------------------------------------------------------

struct Fx {
    json ev = json::array();
    void meta(int pid, const char* what, const std::string& name, int tid = 0)
    {
        json m = {{"ph", "M"}, {"pid", pid}, {"name", what}, {"args", {{"name", name}}}};
        if (std::string(what) == "thread_name") m["tid"] = tid;
        ev.push_back(m);
    }
    // ts and dur in µs; ts as torch_npu writes it (a string).
    void x(int pid, int tid, const std::string& name, double ts, double dur, json args)
    {
        char t[64];
        std::snprintf(t, sizeof t, "%.3f", ts);
        ev.push_back({{"ph", "X"},
                      {"pid", pid},
                      {"tid", tid},
                      {"name", name},
                      {"ts", t},
                      {"dur", dur},
                      {"args", std::move(args)}});
    }
    void task(int tid, const std::string& type, double ts, double dur, int src, long long dst,
              const char* transport, std::uint64_t size, const char* link)
    {
        x(1, tid, type, ts, dur,
          {{"task type", type},
           {"src rank", src},
           {"dst rank", dst},
           {"transport type", transport},
           {"size(Byte)", size},
           {"link type", link},
           {"notify_id", "18446744073709551615"}});
    }
    std::string text() const { return ev.dump(); }
};

// A one-rank torch_npu trace with HCCL groups at the given tids, each followed by `planes`.
Fx hcclFixture(const std::vector<std::pair<int, int>>& groups)
{
    Fx f;
    f.meta(1, "process_name", "HCCL");
    for (const auto& [tid, planes] : groups) {
        f.meta(1, "thread_name", "Group " + std::to_string(tid) + " Communication", tid);
        for (int p = 0; p < planes; ++p)
            f.meta(1, "thread_name", "Plane " + std::to_string(p), tid + 1 + p);
    }
    return f;
}

} // namespace

class TestAnalysisComm : public QObject {
    Q_OBJECT

private slots:
    void cleanupTestCase()
    {
        qInfo("max deviation from the public files: time %.0f ns (%.3f%%), ratio %.5f, "
              "GB/s %.5f (%.4f%%)",
              g_dev.timeNs, 100 * g_dev.timeRel, g_dev.ratio, g_dev.gbps, 100 * g_dev.gbpsRel);
    }

    void publicCommunicationJson_data()
    {
        QTest::addColumn<QString>("run");
        QTest::newRow("level1 rank0") << "ascend_torchnpu_level1_2rank/rank0_ascend_pt";
        QTest::newRow("level1 rank1") << "ascend_torchnpu_level1_2rank/rank1_ascend_pt";
    }

    void publicCommunicationJson()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        QFETCH(QString, run);
        ReportPtr rep = analyzeFile(test::publicTrace(run));
        QVERIFY(rep);
        const json j =
            readJson(test::publicTrace(run + "/ASCEND_PROFILER_OUTPUT/communication.json"));
        QVERIFY(j.is_object());
        int ops = 0, transports = 0;
        for (const auto& [step, body] : j.items()) {
            for (const char* section : {"p2p", "collective"}) {
                if (!body.contains(section)) continue;
                for (const auto& [key, op] : body.at(section).items()) {
                    const std::string name = key.substr(0, key.find('@'));
                    if (name == "Total Op Info") continue;
                    const Collective* c = byName(*rep, name);
                    QVERIFY2(c, name.c_str());
                    QCOMPARE(c->step, std::optional<int>(stepOf(step)));
                    QVERIFY2(c->timeInfo, name.c_str());
                    const CommTimeInfo& t = *c->timeInfo;
                    const json& ti = op.at("Communication Time Info");
                    const std::pair<const char*, TimeNs> times[] = {
                        {"Elapse Time(ms)", t.elapseNs},
                        {"Transit Time(ms)", t.transitNs},
                        {"Wait Time(ms)", t.waitNs},
                        {"Synchronization Time(ms)", t.synchronizationNs},
                        {"Idle Time(ms)", t.idleNs}};
                    for (const auto& [k, ns] : times)
                        QVERIFY2(timeClose(double(ns), ti.at(k).get<double>()),
                                 qPrintable(QString("%1 %2: %3 ns, file %4 ms")
                                                .arg(name.c_str(), k)
                                                .arg(ns)
                                                .arg(ti.at(k).get<double>())));
                    QVERIFY(ratioClose(t.waitRatio, ti.at("Wait Time Ratio")));
                    QVERIFY(
                        ratioClose(t.synchronizationRatio, ti.at("Synchronization Time Ratio")));
                    QCOMPARE(t.masterPlane, 1); // SOURCES.md: Plane 1 for all eight ops
                    for (const auto& [tr, bw] : op.at("Communication Bandwidth Info").items()) {
                        const TransferStat* got = transfer(*c, tr);
                        const double mb = bw.at("Transit Size(MB)");
                        if (mb == 0) {
                            QVERIFY2(!got || got->bytes == 0, (name + " " + tr).c_str());
                            continue;
                        }
                        QVERIFY2(got, (name + " " + tr).c_str());
                        QVERIFY(std::abs(double(got->bytes) - mb * 1e6) <= 0.5);
                        QVERIFY(timeClose(double(got->ns), bw.at("Transit Time(ms)")));
                        QVERIFY2(gbpsClose(got->gbps(), bw.at("Bandwidth(GB/s)")),
                                 qPrintable(QString("%1 %2: %3 GB/s")
                                                .arg(name.c_str(), tr.c_str())
                                                .arg(got->gbps())));
                        int tasks = 0;
                        for (const auto& [size, cnt] : bw.at("Size Distribution").items())
                            tasks += cnt.at(0).get<int>();
                        QCOMPARE(got->tasks, tasks);
                        if (tr == "SDMA") {
                            QVERIFY(std::isnan(got->largePacketRatio));
                        } else {
                            QVERIFY(ratioClose(got->largePacketRatio, bw.at("Large Packet Ratio")));
                        }
                        // msprof's reference peaks: HCCS 18, PCIE 20, RDMA 12.5 GB/s.
                        if (tr == "HCCS") {
                            QCOMPARE(got->peakGbps, 18.0);
                            QVERIFY(std::abs(got->utilization - got->gbps() / 18.0) < 1e-12);
                        }
                        ++transports;
                    }
                    ++ops;
                }
            }
        }
        QCOMPARE(ops, 4);
        QVERIFY(transports >= 8);
    }

    void publicMatrix_data() { publicCommunicationJson_data(); }

    void publicMatrix()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        QFETCH(QString, run);
        ReportPtr rep = analyzeFile(test::publicTrace(run));
        QVERIFY(rep);
        const json j =
            readJson(test::publicTrace(run + "/ASCEND_PROFILER_OUTPUT/communication_matrix.json"));
        QVERIFY(j.is_object());
        std::size_t expected = 0;
        for (const auto& [step, body] : j.items()) {
            for (const auto& [section, groups] : body.items()) {
                for (const auto& [key, links] : groups.items()) {
                    const std::string opGroup = key.substr(0, key.find('@'));
                    for (const auto& [link, e] : links.items()) {
                        ++expected;
                        const int src = std::stoi(link.substr(0, link.find('-')));
                        const int dst = std::stoi(link.substr(link.find('-') + 1));
                        const MatrixEntry* got = nullptr;
                        for (const MatrixEntry& m : rep->matrix)
                            if (m.step == std::optional<int>(stepOf(step)) &&
                                m.opGroup == opGroup && m.src == src && m.dst == dst)
                                got = &m;
                        const QString what = QString::fromStdString(key + " " + link);
                        QVERIFY2(got, qPrintable(what));
                        QCOMPARE(got->transport, e.at("Transport Type").get<std::string>());
                        QVERIFY2(std::abs(double(got->bytes) -
                                          e.at("Transit Size(MB)").get<double>() * 1e6) <= 0.5,
                                 qPrintable(what));
                        QVERIFY2(timeClose(double(got->ns), e.at("Transit Time(ms)")),
                                 qPrintable(what));
                        QVERIFY2(gbpsClose(got->gbps, e.at("Bandwidth(GB/s)")), qPrintable(what));
                        if (e.contains("Op Name"))
                            QCOMPARE(got->opName.value_or("?"), e.at("Op Name").get<std::string>());
                        else
                            QVERIFY(!got->opName);
                        QVERIFY(!got->tasks.empty());
                        QCOMPARE(got->rank, rep->trace->rank());
                    }
                }
            }
        }
        QCOMPARE(rep->matrix.size(), expected);
        // SOURCES / comm-health.md: rank 0's link 0-1.
        if (rep->trace->rank() == 0) {
            for (const MatrixEntry& m : rep->matrix) {
                if (m.src != 0 || m.dst != 1) continue;
                if (m.opGroup == "allreduce-top1")
                    QCOMPARE(*m.opName, std::string("hcom_allReduce__586_2_1"));
                if (m.opGroup == "allreduce-bottom1")
                    QCOMPARE(*m.opName, std::string("hcom_allReduce__586_1_1"));
            }
        }
        // The report carries it, flattened.
        const json r = reportToJson({{"x", rep}});
        QCOMPARE(r["matrix"].size(), expected);
        QVERIFY(r["matrix"][0].contains("op_group"));
    }

    void singlePlane()
    {
        // One group, one plane: wait 10, copy 20 (HCCS), record, wait 5, reduce 30 (HCCS),
        // a local copy that is no transit.
        Fx f = hcclFixture({{0, 1}});
        f.x(1, 0, "hcom_allReduce__100_0_1", 1000, 100,
            {{"alg_type", "RING"}, {"data_type", "FP32"}, {"count", 1024}});
        f.task(1, "Notify_Wait", 1000, 10, 0, 4294967295, "LOCAL", 0, "INVALID_TYPE");
        f.task(1, "Memcpy", 1010, 20, 0, 1, "SDMA", 2'000'000, "HCCS");
        f.task(1, "Notify_Record", 1030, 1, 0, 1, "SDMA", 4, "HCCS");
        f.task(1, "Notify_Wait", 1031, 5, 1, 0, "LOCAL", 0, "INVALID_TYPE");
        f.task(1, "Reduce_Inline", 1036, 30, 1, 0, "SDMA", 40'000'000, "HCCS");
        f.task(1, "Memcpy", 1066, 4, 0, 0, "SDMA", 1'000'000, "ON_CHIP");
        ReportPtr rep = analyzeText(f.text());
        QVERIFY(rep);
        QCOMPARE(int(rep->collectives.size()), 1);
        const Collective& c = rep->collectives[0];
        QVERIFY(c.timeInfo);
        const CommTimeInfo& t = *c.timeInfo;
        QCOMPARE(t.masterPlane, 0);
        QCOMPARE(t.elapseNs, TimeNs(100'000));
        QCOMPARE(t.transitNs, TimeNs(50'000));
        QCOMPARE(t.waitNs, TimeNs(15'000));
        QCOMPARE(t.synchronizationNs, TimeNs(10'000)); // the wait before the first copy
        QCOMPARE(t.idleNs, TimeNs(35'000));
        QCOMPARE(t.waitRatio, 0.2308);            // 15 / 65
        QCOMPARE(t.synchronizationRatio, 0.1667); // 10 / 60
        const TransferStat* h = transfer(c, "HCCS");
        QVERIFY(h);
        QCOMPARE(h->bytes, std::uint64_t(42'000'000));
        QCOMPARE(h->ns, TimeNs(50'000));
        QCOMPARE(h->tasks, 2);
        QCOMPARE(h->largePacketRatio, 0.5); // 40 MB > 32 MB
        const TransferStat* s = transfer(c, "SDMA");
        QVERIFY(s);
        QCOMPARE(s->bytes, h->bytes);
        QCOMPARE(s->tasks, 0);
        QVERIFY(std::isnan(s->largePacketRatio));
        QVERIFY(std::isnan(s->peakGbps));
        QVERIFY(!transfer(c, "PCIE") && !transfer(c, "RDMA"));
        // The matrix: 0-1 and 1-0 over HCCS, 0-0 LOCAL; one op: top1 = middle = bottom1.
        int local = 0;
        for (const MatrixEntry& m : rep->matrix) {
            QVERIFY(!m.step); // no steps in the trace
            if (m.src == 0 && m.dst == 0) {
                QCOMPARE(m.transport, std::string("LOCAL"));
                ++local;
            }
            if (m.src == 0 && m.dst == 1 && m.opGroup == "allreduce-top1") {
                QCOMPARE(m.bytes, std::uint64_t(2'000'000));
                QCOMPARE(m.ns, TimeNs(20'000));
                QCOMPARE(*m.opName, c.name);
            }
        }
        QCOMPARE(local, 4); // top1, middle, bottom1, total
        QCOMPARE(int(rep->matrix.size()), 3 * 4);
    }

    void multiPlaneTwoGroups()
    {
        // Group 0 (tid 0) with planes 0-2; group 1 (tid 4) with plane 0. Plane 0 of group 0
        // holds on-chip copies only, so its master plane is Plane 1 (the lowest with a wait);
        // group 1's plane must not join group 0's op.
        Fx f = hcclFixture({{0, 3}, {4, 1}});
        f.x(1, 0, "hcom_allGather__100_0_1", 1000, 200,
            {{"alg_type", "MESH"}, {"data_type", "FP16"}, {"count", 1024}});
        f.x(1, 4, "hcom_reduceScatter__200_0_1", 1000, 200,
            {{"alg_type", "MESH"}, {"data_type", "FP16"}, {"count", 1024}});
        f.task(1, "Memcpy", 1000, 5, 0, 0, "SDMA", 4096, "ON_CHIP");
        f.task(2, "Notify_Wait", 1001, 40, 0, 1, "LOCAL", 0, "INVALID_TYPE");
        f.task(2, "Memcpy", 1050, 10, 0, 1, "SDMA", 1'000'000, "HCCS");
        f.task(3, "Notify_Wait", 1002, 50, 0, 2, "LOCAL", 0, "INVALID_TYPE");
        f.task(3, "Memcpy", 1060, 20, 0, 2, "SDMA", 1'000'000, "PCIE");
        f.task(5, "Memcpy", 1010, 100, 0, 1, "SDMA", 8'000'000, "HCCS_SW");
        ReportPtr rep = analyzeText(f.text());
        QVERIFY(rep);
        QCOMPARE(int(rep->collectives.size()), 2);
        const Collective* ag = byName(*rep, "hcom_allGather__100_0_1");
        const Collective* rs = byName(*rep, "hcom_reduceScatter__200_0_1");
        QVERIFY(ag && rs);
        QCOMPARE(int(ag->tasks.size()), 5);
        QCOMPARE(int(rs->tasks.size()), 1);
        QCOMPARE(ag->timeInfo->masterPlane, 1);
        QCOMPARE(ag->timeInfo->transitNs, TimeNs(10'000));
        QCOMPARE(ag->timeInfo->waitNs, TimeNs(40'000));
        QCOMPARE(ag->timeInfo->synchronizationNs, TimeNs(40'000));
        QVERIFY(transfer(*ag, "HCCS") && transfer(*ag, "PCIE"));
        QCOMPARE(transfer(*ag, "SDMA")->bytes, std::uint64_t(2'000'000));
        // HCCS_SW counts as HCCS; with no wait the lowest plane is the master.
        QCOMPARE(transfer(*rs, "HCCS")->bytes, std::uint64_t(8'000'000));
        QCOMPARE(rs->timeInfo->masterPlane, 0);
        // Matrix op types: torch_npu's first match reads reduceScatter as "reduce".
        bool reduce = false, allgather = false;
        for (const MatrixEntry& m : rep->matrix) {
            reduce |= m.opGroup == "reduce-total";
            allgather |= m.opGroup == "allgather-total";
            if (m.opGroup == "reduce-total") QCOMPARE(m.transport, std::string("HCCS"));
        }
        QVERIFY(reduce && allgather);
        // HCCS and PCIe in one op: the unexpected-transport rule.
        bool unexpected = false;
        for (const Finding& fi : rep->findings)
            unexpected |= fi.rule == "unexpected-transport";
        QVERIFY(unexpected);
    }

    void rdma()
    {
        // An AllReduce over RDMA: two payloads (index 1, 2) then their closing tasks; the
        // transfer ends with the task at index i + count + 5 - 2 = 6.
        Fx f = hcclFixture({{0, 1}});
        f.x(1, 0, "hcom_allReduce__100_0_1", 1000, 100,
            {{"alg_type", "RING"}, {"data_type", "FP32"}, {"count", 1024}});
        f.task(1, "Notify_Wait", 1000, 10, 0, 1, "LOCAL", 0, "INVALID_TYPE");
        f.task(1, "RDMASend", 1010, 10, 0, 1, "RDMA", 600'000, "ROCE");
        f.task(1, "RDMASend", 1020, 10, 0, 1, "RDMA", 400'000, "ROCE");
        f.task(1, "RDMASend", 1030, 1, 0, 1, "RDMA", 0, "ROCE");
        f.task(1, "Notify_Wait", 1031, 9, 1, 0, "LOCAL", 0, "INVALID_TYPE");
        f.task(1, "RDMASend", 1040, 2, 0, 1, "RDMA", 0, "ROCE");
        f.task(1, "Notify_Wait", 1050, 5, 1, 0, "LOCAL", 0, "INVALID_TYPE"); // ends at 1055
        AnalysisOptions o;
        o.linkPeaks["RDMA"] = 25; // chip v4.1.0
        ReportPtr rep = analyzeText(f.text(), o);
        QVERIFY(rep);
        const Collective& c = rep->collectives.at(0);
        const TransferStat* r = transfer(c, "RDMA");
        QVERIFY(r);
        QCOMPARE(r->bytes, std::uint64_t(1'000'000));
        QCOMPARE(r->ns, TimeNs(45'000)); // 1010 -> 1055
        QCOMPARE(r->tasks, 1);
        QCOMPARE(r->largePacketRatio, 1.0); // 1 MB > 0.5 MB
        QCOMPARE(r->peakGbps, 25.0);
        QVERIFY(std::abs(r->utilization - (1e6 / 45e3) / 25.0) < 1e-9);
        QVERIFY(!transfer(c, "SDMA")); // RDMA is not part of the SDMA aggregate
        QCOMPARE(c.timeInfo->transitNs, TimeNs(45'000));
        QCOMPARE(c.timeInfo->synchronizationNs, TimeNs(10'000));
        QCOMPARE(c.timeInfo->waitNs, TimeNs(24'000));
        bool link = false;
        for (const MatrixEntry& m : rep->matrix) {
            if (m.src == 0 && m.dst == 1 && m.opGroup == "allreduce-total") {
                link = true;
                QCOMPARE(m.transport, std::string("RDMA"));
                QCOMPARE(m.bytes, std::uint64_t(1'000'000));
            }
        }
        QVERIFY(link);
        const json j = reportToJson({{"x", rep}});
        QCOMPARE(j["options"]["link_peaks"]["RDMA"].get<double>(), 25.0);
        QCOMPARE(j["options"]["link_peaks"]["HCCS"].get<double>(), 18.0);
        const json& tr = j["collectives"][0]["transfers"][0];
        QCOMPARE(tr["name"].get<std::string>(), std::string("RDMA"));
        QCOMPARE(tr["peak_gbps"].get<double>(), 25.0);
        QVERIFY(j["collectives"][0]["time_info"]["wait_ratio"].is_number());
    }

    void rules()
    {
        // Large HCCS transfers at a third of the peak, and an op that only waited.
        Fx f = hcclFixture({{0, 1}});
        for (int k = 0; k < 3; ++k) {
            const double t0 = 1000 + k * 10'000;
            // Built with append: GCC 12 at -O3 warns (-Warray-bounds, falsely) on "lit" + string.
            const std::string name =
                std::string("hcom_allReduce__100_").append(std::to_string(k)).append("_1");
            f.x(1, 0, name, t0, 5000,
                {{"alg_type", "RING"}, {"data_type", "FP32"}, {"count", 1 << 20}});
            f.task(1, "Notify_Wait", t0, 4000, 0, 1, "LOCAL", 0, "INVALID_TYPE");
            // 5.4 MB in 0.9 ms: 6 GB/s, 33% of HCCS's 18.
            f.task(1, "Memcpy", t0 + 4000, 900, 0, 1, "SDMA", 5'400'000, "HCCS");
        }
        ReportPtr rep = analyzeText(f.text());
        QVERIFY(rep);
        std::map<std::string, const Finding*> by;
        for (const Finding& fi : rep->findings)
            by[fi.rule] = &fi;
        QVERIFY(by.count("link-underutilized"));
        QCOMPARE(int(by["link-underutilized"]->events.size()), 3);
        QVERIFY(by["link-underutilized"]->title.find("HCCS") != std::string::npos);
        QVERIFY(!by["link-underutilized"]->recommendation.empty());
        QVERIFY(by.count("sync-dominated")); // 4 ms of waiting before 0.9 ms of transit
        QVERIFY(!by.count("unexpected-transport"));
        // With HCCS's peak at 6 GB/s the link is not under-used.
        AnalysisOptions o;
        o.linkPeaks["HCCS"] = 6;
        ReportPtr rep2 = analyzeText(f.text(), o);
        for (const Finding& fi : rep2->findings)
            QVERIFY(fi.rule != "link-underutilized");
    }

    // Issue 43.5: a link with no traffic worth the name (under kLinkMinBytes of bandwidth-bound
    // transfers over the trace) gets no warning, however slow its one transfer.
    void noWarningUnderTheSizeFloor()
    {
        Fx f = hcclFixture({{0, 1}});
        f.x(1, 0, "hcom_allReduce__100_0_1", 1000, 5000,
            {{"alg_type", "RING"}, {"data_type", "FP32"}, {"count", 1 << 20}});
        // One 5.4 MB transfer (bandwidth-bound) at a third of HCCS's peak: under the floor.
        f.task(1, "Memcpy", 1000, 900, 0, 1, "SDMA", 5'400'000, "HCCS");
        QVERIFY(5'400'000 < analysis::rules::kLinkMinBytes);
        ReportPtr rep = analyzeText(f.text());
        QVERIFY(rep);
        for (const Finding& fi : rep->findings)
            QVERIFY2(fi.rule != "link-underutilized", fi.title.c_str());
        // Two of them reach it: warned.
        f.x(1, 0, "hcom_allReduce__100_1_1", 11000, 5000,
            {{"alg_type", "RING"}, {"data_type", "FP32"}, {"count", 1 << 20}});
        f.task(1, "Memcpy", 11000, 900, 0, 1, "SDMA", 5'400'000, "HCCS");
        bool warned = false;
        const ReportPtr two = analyzeText(f.text()); // held: the loop reads its findings
        QVERIFY(two);
        for (const Finding& fi : two->findings)
            warned = warned || fi.rule == "link-underutilized";
        QVERIFY(warned);
    }

    void smallPacketsRule()
    {
        Fx f = hcclFixture({{0, 1}});
        f.x(1, 0, "hcom_allReduce__100_0_1", 1000, 100,
            {{"alg_type", "RING"}, {"data_type", "FP32"}, {"count", 1024}});
        for (int k = 0; k < 8; ++k)
            f.task(1, "Memcpy", 1000 + k * 10, 8, 0, 1, "SDMA", 64'000, "HCCS");
        ReportPtr rep = analyzeText(f.text());
        bool small = false;
        for (const Finding& fi : rep->findings)
            small |= fi.rule == "small-packets";
        QVERIFY(small);
    }

    void kinetoLinks()
    {
        RS_REQUIRE_PUBLIC_TRACES();
        ReportPtr rep =
            analyzeFile(test::publicTrace("kineto_nccl_a100_2rank_hta/nccl_data.json.gz"));
        QVERIFY(rep);
        int linked = 0;
        for (const Collective& c : rep->collectives) {
            if (!std::isfinite(c.busbwGbps)) continue;
            QVERIFY2(c.link, c.name.c_str());
            QCOMPARE(c.link->name, std::string("NVLink"));
            QCOMPARE(c.link->peakGbps, 300.0); // A100 NVLink3, per direction
            QVERIFY(c.link->basis.find("intra-node") != std::string::npos);
            QVERIFY(std::abs(c.link->utilization - c.busbwGbps / 300.0) < 1e-12);
            ++linked;
        }
        QVERIFY(linked > 0);
        // Overridden, and the 16-rank job's world spans two nodes of 8.
        AnalysisOptions o;
        o.linkPeaks["NVLink"] = 200;
        rep = analyzeFile(test::publicTrace("kineto_nccl_a100_2rank_hta/nccl_data.json.gz"), o);
        for (const Collective& c : rep->collectives)
            if (c.link) QCOMPARE(c.link->peakGbps, 200.0);
        rep = analyzeFile(test::publicTrace("kineto_rccl_mi300x_ddp_with_stack_tracelens/"
                                            "resnet_act_checkpoint.json.gz"));
        for (const Collective& c : rep->collectives)
            if (c.link) QCOMPARE(c.link->name, std::string("xGMI"));
    }

    void olderCannSteps()
    {
        // The 2024-era shape: Task Type "Other" on every device task, kernels named after their
        // ops (Mul66, ReluGrad62), runtime tasks named "Other" or after their kind. Computing is
        // the kernels only, as CANN's Overlap Analysis lane (and so step_trace_time.csv) counts.
        Fx f;
        f.meta(3, "process_name", "Python");
        f.meta(2, "process_name", "Ascend Hardware");
        f.meta(1, "process_name", "HCCL");
        f.meta(1, "thread_name", "Group 0 Communication", 0);
        f.x(3, 3, "ProfilerStep#7", 0, 100'000, json::object());
        TimeNs kernels = 0;
        double t = 1000;
        const char* ops[] = {"Mul66", "ReluGrad62", "Conv2DBackpropFilter12", "trans_TransData_3"};
        for (int k = 0; k < 40; ++k) {
            f.x(2, 2, ops[k % 4], t, 100, {{"Task Type", "Other"}});
            kernels += 100'000;
            t += 100;
            // Runtime tasks between kernels: not computing.
            f.x(2, 2, "Other", t, 50, {{"Task Type", "Other"}});
            f.x(2, 2, "MEMCPY_ASYNC", t + 50, 50, {{"Task Type", "Other"}});
            f.x(2, 3, "EVENT_RECORD", t, 100, {{"Task Type", "Other"}});
            t += 100;
        }
        for (int k = 0; k < 300; ++k) // hundreds of tasks literally named Other
            f.x(2, 4, "Other", 1000 + k * 20.0, 15, {{"Task Type", "Other"}});
        // An HCCL op over the last kernels, and its device-side task.
        f.x(1, 0, "hcom_allReduce__1_0_1", t - 1000, 2000, {{"count", 4}, {"data_type", "FP32"}});
        f.x(2, 5, "hcom_allReduce_", t - 1000, 2000, {{"Task Type", "Other"}});
        ReportPtr rep = analyzeText(f.text());
        QVERIFY(rep);
        QCOMPARE(int(rep->steps.size()), 1);
        const StepStats& s = rep->steps[0];
        QCOMPARE(s.computing, kernels);
        QCOMPARE(s.communication, TimeNs(2'000'000));
        // The op spans the last 5 kernels' slots (each 200 µs, half of it kernel).
        QCOMPARE(s.overlapped, TimeNs(5 * 100'000));
        QCOMPARE(s.communicationNotOverlapped, s.communication - s.overlapped);
    }
};

QTEST_GUILESS_MAIN(TestAnalysisComm)
#include "tst_analysis_comm.moc"
