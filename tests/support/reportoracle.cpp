#include "tests/support/reportoracle.h"

#include "core/analysis/criticalpath.h"
#include "core/traceloader.h"

#include <cmath>

namespace rs {

namespace {

nlohmann::json optInt(const std::optional<int>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json num(double v)
{
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

nlohmann::json pathJson(const std::vector<StepPath>& paths)
{
    nlohmann::json out = nlohmann::json::array();
    for (const StepPath& p : paths) {
        nlohmann::json segs = nlohmann::json::array();
        for (const PathSegment& s : p.segments)
            segs.push_back(
                {{"rank", optInt(s.rank)},
                 {"kind", pathKindName(s.kind)},
                 {"name", s.name},
                 {"start_ns", s.start},
                 {"end_ns", s.end},
                 {"event", s.event == kNone ? nlohmann::json(nullptr) : nlohmann::json(s.event)}});
        nlohmann::json byKind = nlohmann::json::object();
        for (int k = 0; k < kPathKinds; ++k)
            byKind[pathKindName(static_cast<PathKind>(k))] = p.byKind[std::size_t(k)];
        out.push_back({{"step", p.step},
                       {"start_ns", p.start},
                       {"end_ns", p.end},
                       {"by_kind", std::move(byKind)},
                       {"segments", std::move(segs)}});
    }
    return out;
}

nlohmann::json eventJson(const TraceFacts& t, EventId e)
{
    const EventFacts* s = t.slice(e);
    if (!s) return nullptr;
    return {{"id", e}, {"name", s->name}, {"start_ns", s->start}, {"dur_ns", s->dur}};
}

} // namespace

nlohmann::json optInt64(const std::optional<std::int64_t>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// A job finding about one call (collective-missing, collective-mismatch): its fields, each
// only when set.
void callFields(nlohmann::json& j, const Finding& f)
{
    auto list = [&](const char* key, const auto& v) {
        if (!v.empty()) j[key] = v;
    };
    list("absent_ranks", f.absentRanks);
    list("dtypes", f.dtypes);
    list("empty_ranks", f.emptyRanks);
    if (f.gainNs) j["gain_ns"] = *f.gainNs;
    list("group", f.group);
    list("group_desc", f.groupDesc);
    if (f.index) j["index"] = *f.index;
    list("matching_ranks", f.matchingRanks);
    list("mismatch", f.mismatch);
    list("missing_ranks", f.missingRanks);
    list("op", f.op);
    if (!f.seen.empty()) {
        nlohmann::json seen = nlohmann::json::array();
        for (const SeenValue& v : f.seen)
            seen.push_back({{"ranks", v.ranks}, {"value", v.value}});
        j["seen"] = seen;
    }
    if (f.seq) j["seq"] = *f.seq;
    list("sizes", f.sizes);
    if (f.waitedNs) j["waited_ns"] = *f.waitedNs;
    list("waiting_ranks", f.waitingRanks);
}

nlohmann::json reportToJson(const std::vector<ReportInput>& inputs, const JobReport* job)
{
    nlohmann::json j;
    j["schema"] = "ringscope.report/1";
    nlohmann::json ins = nlohmann::json::array(), cols = nlohmann::json::array(),
                   steps = nlohmann::json::array(), finds = nlohmann::json::array(),
                   sigs = nlohmann::json::array(), matrix = nlohmann::json::array();
    AnalysisOptions opt;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const AnalysisReport& rep = *inputs[i].report;
        opt = rep.options;
        // The trace's facts: from the trace, or as a rank summary carries them (same output).
        const bool known = rep.trace || rep.facts;
        const TraceFacts facts = traceFacts(rep);
        const TraceFacts* t = known ? &facts : nullptr;
        nlohmann::json in = {{"path", inputs[i].path},
                             {"rank", t ? optInt(t->rank) : nlohmann::json(nullptr)},
                             {"events", t ? t->events : 0},
                             {"producer", t ? t->producer : std::string("unknown")}};
        nlohmann::json warnings = nlohmann::json::array();
        if (t) {
            for (const std::string& w : t->warnings)
                warnings.push_back(w);
        }
        for (const std::string& w : rep.warnings)
            warnings.push_back(w);
        in["warnings"] = std::move(warnings);
        in["bad_fields"] = rep.badFields;
        // A recorder's process groups (Flight Recorder), only when the trace has some.
        if (!rep.groups.empty()) {
            nlohmann::json groups = nlohmann::json::array();
            for (const CommGroup& g : rep.groups)
                groups.push_back({{"name", g.name},
                                  {"desc", g.desc},
                                  {"ranks", g.ranks},
                                  {"last_enqueued", optInt64(g.lastEnqueued)},
                                  {"last_started", optInt64(g.lastStarted)},
                                  {"last_completed", optInt64(g.lastCompleted)}});
            in["groups"] = std::move(groups);
        }
        ins.push_back(std::move(in));
        for (const Collective& c : rep.collectives) {
            cols.push_back({{"input", i},
                            {"rank", optInt(c.rank)},
                            {"name", c.name},
                            {"kind", collectiveKindName(c.kind)},
                            {"group", c.group},
                            {"algorithm", c.algorithm},
                            {"dtype", c.dtype},
                            {"count", c.count},
                            {"bytes", c.bytes},
                            {"group_size", c.groupSize},
                            {"start_ns", c.start},
                            {"dur_ns", c.dur},
                            {"step", optInt(c.step)},
                            {"memcpy_count", c.memcpyCount},
                            {"memcpy_ns", c.memcpyNs},
                            {"memcpy_bytes", c.memcpyBytes},
                            {"extra_memcpy_ns", c.extraMemcpyNs},
                            {"wait_ns", c.waitNs},
                            {"unaligned_count", c.unalignedCount},
                            {"anomalous", c.anomalous},
                            {"waiting", c.waiting},
                            {"signature", c.signature},
                            {"mode", optInt(c.mode)},
                            {"verdict", c.verdict},
                            {"algbw_gbps", num(c.algbwGbps)},
                            {"busbw_gbps", num(c.busbwGbps)}});
            nlohmann::json tr = nlohmann::json::array();
            for (const TransferStat& ts : c.transfers)
                tr.push_back({{"name", ts.name},
                              {"bytes", ts.bytes},
                              {"ns", ts.ns},
                              {"tasks", ts.tasks},
                              {"gbps", num(ts.gbps())},
                              {"large_packet_ratio", num(ts.largePacketRatio)},
                              {"peak_gbps", num(ts.peakGbps)},
                              {"utilization", num(ts.utilization)}});
            cols.back()["transfers"] = std::move(tr);
            nlohmann::json ti = nullptr;
            if (c.timeInfo) {
                const CommTimeInfo& x = *c.timeInfo;
                ti = {{"elapse_ns", x.elapseNs},
                      {"transit_ns", x.transitNs},
                      {"wait_ns", x.waitNs},
                      {"synchronization_ns", x.synchronizationNs},
                      {"idle_ns", x.idleNs},
                      {"wait_ratio", x.waitRatio},
                      {"synchronization_ratio", x.synchronizationRatio},
                      {"master_plane", x.masterPlane}};
            }
            cols.back()["time_info"] = std::move(ti);
            nlohmann::json link = nullptr;
            if (c.link)
                link = {{"name", c.link->name},
                        {"peak_gbps", num(c.link->peakGbps)},
                        {"utilization", num(c.link->utilization)},
                        {"basis", c.link->basis}};
            cols.back()["link"] = std::move(link);
            // A recorded call's fields (Flight Recorder), each only when set.
            nlohmann::json& col = cols.back();
            if (!c.groupDesc.empty()) col["group_desc"] = c.groupDesc;
            if (!c.groupRanks.empty()) col["group_ranks"] = c.groupRanks;
            if (!c.inputDtypes.empty()) col["input_dtypes"] = c.inputDtypes;
            if (!c.inputSizes.empty()) col["input_sizes"] = c.inputSizes;
            if (!c.outputDtypes.empty()) col["output_dtypes"] = c.outputDtypes;
            if (!c.outputSizes.empty()) col["output_sizes"] = c.outputSizes;
            if (c.seq) col["seq"] = *c.seq;
            if (c.recorded()) col["state"] = callStateName(c.state);
            if (c.timeoutMs) col["timeout_ms"] = *c.timeoutMs;
        }
        for (const SignatureGroup& g : rep.signatures) {
            nlohmann::json modes = nlohmann::json::array();
            for (const DurationMode& m : g.modes)
                modes.push_back({{"mean_ns", m.meanNs},
                                 {"min_ns", m.minNs},
                                 {"max_ns", m.maxNs},
                                 {"members", m.members},
                                 {"with_extra_copy", m.withExtraCopy}});
            sigs.push_back({{"input", i},
                            {"label", g.label},
                            {"members", g.members.size()},
                            {"baseline_memcpy_ns", g.baselineMemcpyNs},
                            {"modes", std::move(modes)},
                            {"summary", g.summary}});
        }
        for (const MatrixEntry& m : rep.matrix) {
            matrix.push_back(
                {{"input", i},
                 {"rank", optInt(m.rank)},
                 {"step", optInt(m.step)},
                 {"op_group", m.opGroup},
                 {"group", m.group},
                 {"src", m.src},
                 {"dst", m.dst},
                 {"transport", m.transport},
                 {"bytes", m.bytes},
                 {"ns", m.ns},
                 {"gbps", num(m.gbps)},
                 {"op_name", m.opName ? nlohmann::json(*m.opName) : nlohmann::json(nullptr)}});
        }
        for (const StepStats& s : rep.steps) {
            steps.push_back({{"input", i},
                             {"rank", optInt(s.rank)},
                             {"step", s.step},
                             {"computing_ns", s.computing},
                             {"communication_ns", s.communication},
                             {"overlapped_ns", s.overlapped},
                             {"communication_not_overlapped_ns", s.communicationNotOverlapped},
                             {"free_ns", s.free},
                             {"internal_memcpy_ns", s.internalMemcpy}});
        }
        for (const Finding& f : rep.findings) {
            nlohmann::json evs = nlohmann::json::array(), stack = nlohmann::json::array();
            if (t) {
                for (EventId e : f.events)
                    evs.push_back(eventJson(*t, e));
            }
            for (const StackEntry& s : f.stack)
                stack.push_back({{"text", s.text}, {"kind", s.kind}});
            finds.push_back({{"input", i},
                             {"rule", f.rule},
                             {"severity", severityName(f.severity)},
                             {"title", f.title},
                             {"rank", optInt(f.rank)},
                             {"start_ns", f.start},
                             {"end_ns", f.end},
                             {"events", std::move(evs)},
                             {"stack", std::move(stack)},
                             {"recommendation", f.recommendation}});
            if (f.gainNs) finds.back()["gain_ns"] = *f.gainNs;
        }
    }
    nlohmann::json cross = nlohmann::json::array();
    if (job) {
        for (const Finding& f : job->findings) {
            nlohmann::json evs = nlohmann::json::array();
            // Evidence events belong to one rank's trace: eventsRank says which.
            for (std::size_t r = 0; r < job->ranks.size(); ++r) {
                const AnalysisReport& rr = *job->ranks[r];
                if (!f.eventsRank || job->rankIds[r] != *f.eventsRank || !(rr.trace || rr.facts))
                    continue;
                const TraceFacts rankFacts = traceFacts(rr);
                for (EventId e : f.events) {
                    nlohmann::json ej = eventJson(rankFacts, e);
                    if (!ej.is_null()) ej["rank"] = *f.eventsRank;
                    evs.push_back(std::move(ej));
                }
            }
            finds.push_back({{"input", nullptr},
                             {"rule", f.rule},
                             {"severity", severityName(f.severity)},
                             {"title", f.title},
                             {"rank", nullptr},
                             {"ranks", f.ranks},
                             {"step", optInt(f.step)},
                             {"start_ns", f.start},
                             {"end_ns", f.end},
                             {"events", std::move(evs)},
                             {"stack", nlohmann::json::array()},
                             {"recommendation", f.recommendation}});
            callFields(finds.back(), f);
        }
        for (const CrossRankCollective& c : job->collectives) {
            nlohmann::json ops = nlohmann::json::array();
            for (const RankOp& op : c.ops)
                ops.push_back({{"rank", op.rank},
                               {"start_ns", op.start},
                               {"end_ns", op.end},
                               {"ready_ns", op.ready},
                               {"extra_memcpy_ns", op.extraMemcpyNs},
                               {"wait_ns", op.waitNs}});
            cross.push_back({{"kind", collectiveKindName(c.kind)},
                             {"group", c.group},
                             {"index", c.index},
                             {"name", c.name},
                             {"step", optInt(c.step)},
                             {"start_skew_ns", c.startSkew},
                             {"slowest_rank", c.slowestRank},
                             {"fastest_rank", c.fastestRank},
                             {"delaying_rank", optInt(c.delayingRank)},
                             {"delaying_ranks", c.delayingRanks},
                             {"delay_ns", c.delayNs},
                             {"wait_caused_ns", c.waitCausedNs},
                             {"cause", c.cause},
                             {"ranks", std::move(ops)}});
            if (c.seq) cross.back()["seq"] = *c.seq;
        }
    }
    // The peaks in force: the defaults and what the options set.
    nlohmann::json peaks = nlohmann::json::object();
    for (const char* n : {"HCCS", "RDMA", "PCIE"})
        peaks[n] = linkPeak(opt, n);
    for (const auto& [n, v] : opt.linkPeaks)
        peaks[n] = num(v);
    j["options"] = {
        {"size_align", opt.sizeAlign}, {"addr_align", opt.addrAlign}, {"link_peaks", peaks}};
    j["inputs"] = std::move(ins);
    j["collectives"] = std::move(cols);
    j["signatures"] = std::move(sigs);
    j["steps"] = std::move(steps);
    j["findings"] = std::move(finds);
    j["cross_rank"] = std::move(cross);
    if (job) {
        j["critical_path"] = pathJson(job->criticalPath);
    } else {
        nlohmann::json paths = nlohmann::json::array();
        for (const ReportInput& in : inputs)
            for (auto& p : pathJson(rankCriticalPath(*in.report)))
                paths.push_back(std::move(p));
        j["critical_path"] = std::move(paths);
    }
    j["matrix"] = std::move(matrix);
    return j;
}

} // namespace rs
