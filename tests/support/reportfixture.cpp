#include "tests/support/reportfixture.h"

#include <algorithm>

namespace rs::test {

namespace {

constexpr TimeNs ms(double v)
{
    return TimeNs(v * 1e6);
}

} // namespace

std::shared_ptr<AnalysisReport> seedCaseReport(int rank)
{
    auto rep = std::make_shared<AnalysisReport>();
    const double computing[] = {320.4, 319.8, 321.1, 318.9, 320.0, 322.3};
    const double communication[] = {195.2, 410.1, 201.5, 405.7, 198.9, 402.3};
    const double overlapped[] = {60.0, 58.0, 61.0, 59.0, 62.0, 60.0};
    const double freeMs[] = {4.1, 5.2, 3.9, 6.0, 4.4, 5.1};
    const double extraCopy[] = {0, 200.5, 0, 201.2, 0, 199.8};
    const double gatherMs = 2.5;

    TimeNs t = 1'000'000'000;
    std::vector<Collective> allReduces, allGathers;
    for (int i = 0; i < 6; ++i) {
        StepStats st;
        st.step = 10 + i;
        st.rank = rank;
        st.event = EventId(100 + i);
        st.start = t;
        st.computing = ms(computing[i] + rank * 1.5);
        st.communication = ms(communication[i]);
        st.overlapped = ms(overlapped[i]);
        st.communicationNotOverlapped = st.communication - st.overlapped;
        st.free = ms(freeMs[i]);
        st.busyStart = t + ms(1.0);
        st.busyEnd = st.busyStart + st.computing + st.communicationNotOverlapped + st.free;
        st.end = st.busyEnd + ms(2.0);

        // The AllReduce closes the step's compute; the AllGathers sit in the overlapped part.
        Collective ar;
        ar.event = EventId(1000 + 3 * i);
        ar.rank = rank;
        ar.kind = CollectiveKind::AllReduce;
        ar.name = "hcom_allReduce__" + std::to_string(i);
        ar.group = "0";
        ar.algorithm = "MESH-RING";
        ar.dtype = "FP32";
        ar.count = 67'108'864;
        ar.bytes = ar.count * 4;
        ar.dur = ms(communication[i] - 2 * gatherMs);
        ar.start = st.busyEnd - st.free - ar.dur;
        ar.step = st.step;
        if (extraCopy[i] > 0) {
            InternalCopy copy;
            copy.event = EventId(5000 + i);
            copy.start = ar.start + ms(1.0);
            copy.dur = ms(extraCopy[i]);
            copy.bytes = 268'435'520;
            copy.transport = "SDMA";
            copy.link = "ON_CHIP";
            copy.unalignedSize = true;
            copy.extra = true;
            ar.copies.push_back(copy);
            ar.unalignedCount = 1;
            ar.anomalous = true;
            ar.mode = 1;
            ar.verdict = "Mode B: one extra Memcpy of ~200 ms (size 268435520 B, not a multiple "
                         "of 512).";
        } else {
            ar.mode = 0;
        }
        if (i == 2) { // a baseline copy: memcpy present, not anomalous
            InternalCopy copy;
            copy.event = EventId(5000 + i);
            copy.start = ar.start + ms(0.5);
            copy.dur = ms(0.8);
            copy.bytes = 4096;
            ar.copies.push_back(copy);
        }
        for (const InternalCopy& c : ar.copies) {
            ar.memcpyCount++;
            ar.memcpyNs += c.dur;
            ar.memcpyBytes += c.bytes;
            ar.tasks.push_back(c.event);
        }
        st.internalMemcpy = ar.memcpyNs;
        allReduces.push_back(ar);

        for (int k = 0; k < 2; ++k) {
            Collective ag;
            ag.event = EventId(1000 + 3 * i + 1 + k);
            ag.rank = rank;
            ag.kind = CollectiveKind::AllGather;
            ag.name = "hcom_allGather__" + std::to_string(2 * i + k);
            ag.group = "0";
            ag.dur = ms(gatherMs + 0.1 * k);
            ag.start = st.busyStart + ms(100.0 + 50.0 * k);
            ag.step = st.step;
            allGathers.push_back(ag);
        }
        rep->steps.push_back(st);
        t = st.end + ms(0.5);
    }

    std::vector<Collective> all = allReduces;
    all.insert(all.end(), allGathers.begin(), allGathers.end());
    std::sort(all.begin(), all.end(),
              [](const Collective& a, const Collective& b) { return a.start < b.start; });
    SignatureGroup ar, ag;
    ar.label = "AllReduce · group 0 · 67,108,864 × FP32 · MESH-RING";
    ag.label = "AllGather · group 0";
    ar.modes.resize(2);
    ag.modes.resize(1);
    for (size_t i = 0; i < all.size(); ++i) {
        Collective& c = all[i];
        const bool isReduce = c.kind == CollectiveKind::AllReduce;
        c.signature = isReduce ? 0 : 1;
        SignatureGroup& g = isReduce ? ar : ag;
        g.members.push_back(std::uint32_t(i));
        DurationMode& m = g.modes[size_t(isReduce ? c.mode.value_or(0) : 0)];
        m.minNs = m.members ? std::min(m.minNs, c.dur) : c.dur;
        m.maxNs = std::max(m.maxNs, c.dur);
        m.meanNs += c.dur; // sum until divided below
        m.members++;
        m.withExtraCopy += c.anomalous ? 1 : 0;
    }
    for (SignatureGroup* g : {&ar, &ag})
        for (DurationMode& m : g->modes)
            m.meanNs = m.members ? m.meanNs / m.members : 0;
    ar.summary = "mode B = 2.1x mode A; every mode-B op has one extra Memcpy of ~200 ms";
    rep->collectives = std::move(all);
    rep->signatures = {ar, ag};
    return rep;
}

} // namespace rs::test
