#include "core/analysis/reportjson.h"

#include "core/traceloader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

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

nlohmann::json eventJson(const Trace& t, EventId e)
{
    if (e == kNone || e >= t.slices().size()) return nullptr;
    const Slice& s = t.slice(e);
    return {{"id", e}, {"name", t.str(s.name)}, {"start_ns", s.start}, {"dur_ns", s.dur}};
}

std::string fmtGbps(double v)
{
    if (!std::isfinite(v)) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f GB/s", v);
    return buf;
}

std::string rankText(const std::optional<int>& r)
{
    return r ? "rank " + std::to_string(*r) : std::string("rank ?");
}

} // namespace

nlohmann::json reportToJson(const std::vector<ReportInput>& inputs, const JobReport* job)
{
    nlohmann::json j;
    j["schema"] = "ringscope.report/1";
    nlohmann::json ins = nlohmann::json::array(), cols = nlohmann::json::array(),
                   steps = nlohmann::json::array(), finds = nlohmann::json::array(),
                   sigs = nlohmann::json::array();
    AnalysisOptions opt;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const AnalysisReport& rep = *inputs[i].report;
        opt = rep.options;
        const Trace* t = rep.trace.get();
        nlohmann::json in = {{"path", inputs[i].path},
                             {"rank", t ? optInt(t->rank()) : nlohmann::json(nullptr)},
                             {"events", t ? t->stats().events : 0},
                             {"producer", t ? producerName(t->producer()) : "unknown"}};
        nlohmann::json warnings = nlohmann::json::array();
        if (t) {
            for (const std::string& w : t->warnings())
                warnings.push_back(w);
        }
        in["warnings"] = std::move(warnings);
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
                              {"gbps", num(ts.gbps())}});
            cols.back()["transfers"] = std::move(tr);
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
        }
    }
    nlohmann::json cross = nlohmann::json::array();
    if (job) {
        for (const Finding& f : job->findings) {
            nlohmann::json evs = nlohmann::json::array();
            // Evidence events belong to one rank's trace: eventsRank says which.
            for (std::size_t r = 0; r < job->ranks.size(); ++r) {
                if (!f.eventsRank || job->rankIds[r] != *f.eventsRank || !job->ranks[r]->trace)
                    continue;
                for (EventId e : f.events) {
                    nlohmann::json ej = eventJson(*job->ranks[r]->trace, e);
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
                             {"start_ns", f.start},
                             {"end_ns", f.end},
                             {"events", std::move(evs)},
                             {"stack", nlohmann::json::array()},
                             {"recommendation", f.recommendation}});
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
                             {"delay_ns", c.delayNs},
                             {"wait_caused_ns", c.waitCausedNs},
                             {"cause", c.cause},
                             {"ranks", std::move(ops)}});
        }
    }
    j["options"] = {{"size_align", opt.sizeAlign}, {"addr_align", opt.addrAlign}};
    j["inputs"] = std::move(ins);
    j["collectives"] = std::move(cols);
    j["signatures"] = std::move(sigs);
    j["steps"] = std::move(steps);
    j["findings"] = std::move(finds);
    j["cross_rank"] = std::move(cross);
    return j;
}

std::string reportToText(const std::vector<ReportInput>& inputs, const JobReport* job)
{
    std::ostringstream o;
    for (const ReportInput& in : inputs) {
        const AnalysisReport& rep = *in.report;
        const Trace* t = rep.trace.get();
        int anomalous = 0, waiting = 0, withCopy = 0;
        for (const Collective& c : rep.collectives) {
            anomalous += c.anomalous;
            waiting += c.waiting;
            withCopy += c.memcpyCount > 0;
        }
        o << in.path << " (" << (t ? rankText(t->rank()) : "rank ?") << ", "
          << (t ? producerName(t->producer()) : "?") << ")\n";
        o << "  collectives: " << rep.collectives.size() << ", with internal memcpy: " << withCopy
          << ", anomalous: " << anomalous << ", waiting: " << waiting << "\n";
        for (const SignatureGroup& g : rep.signatures) {
            o << "  " << g.label << ": " << g.summary;
            if (g.baselineMemcpyNs > 0)
                o << "; memcpy baseline " << formatDuration(g.baselineMemcpyNs);
            o << "\n";
        }
        for (const Collective& c : rep.collectives) {
            if (!c.anomalous && !c.waiting) continue;
            o << "    " << c.name << (c.step ? " step " + std::to_string(*c.step) : "") << ": "
              << c.verdict << "\n";
        }
        if (!rep.steps.empty()) {
            o << "  step      computing   communication   overlapped   comm not overlapped   "
                 "free\n";
            for (const StepStats& s : rep.steps) {
                char line[256];
                std::snprintf(line, sizeof line, "  %-8d  %-10s  %-14s  %-11s  %-20s  %s\n", s.step,
                              formatDuration(s.computing).c_str(),
                              formatDuration(s.communication).c_str(),
                              formatDuration(s.overlapped).c_str(),
                              formatDuration(s.communicationNotOverlapped).c_str(),
                              formatDuration(s.free).c_str());
                o << line;
            }
        }
        // Bandwidth of the first ops of each signature, where bytes are known.
        int shown = 0;
        for (const Collective& c : rep.collectives) {
            if (!std::isfinite(c.algbwGbps) || shown >= 8) continue;
            if (shown++ == 0) o << "  bandwidth:\n";
            o << "    " << c.name << ": " << formatDuration(c.dur) << ", algbw "
              << fmtGbps(c.algbwGbps) << ", busbw " << fmtGbps(c.busbwGbps);
            for (const TransferStat& ts : c.transfers)
                o << ", " << ts.name << " " << fmtGbps(ts.gbps());
            o << "\n";
        }
        if (rep.findings.empty()) o << "  no findings\n";
        for (const Finding& f : rep.findings) {
            o << "  [" << severityName(f.severity) << "] " << f.rule << ": " << f.title << "\n";
            std::size_t n = 0;
            for (const StackEntry& s : f.stack) {
                if (++n > 8) {
                    o << "      ... " << (f.stack.size() - 8) << " more\n";
                    break;
                }
                o << "      " << (n == 1 ? "at " : "in ") << s.text << " (" << s.kind << ")\n";
            }
            if (!f.recommendation.empty()) o << "      -> " << f.recommendation << "\n";
        }
        o << "\n";
    }
    if (job && job->ranks.size() > 1) {
        int delayed = 0;
        for (const CrossRankCollective& c : job->collectives)
            delayed += c.delayingRank.has_value();
        o << "job: " << job->ranks.size() << " ranks, " << job->collectives.size()
          << " collectives matched across ranks, " << delayed << " delayed by one rank\n";
        if (job->findings.empty()) o << "  no job findings\n";
        for (const Finding& f : job->findings) {
            o << "  [" << severityName(f.severity) << "] " << f.rule << ": " << f.title << "\n";
            if (!f.recommendation.empty()) o << "      -> " << f.recommendation << "\n";
        }
    }
    return o.str();
}

std::optional<Severity> worstSeverity(const std::vector<ReportInput>& inputs, const JobReport* job)
{
    std::optional<Severity> worst;
    if (job) {
        for (const Finding& f : job->findings)
            if (!worst || f.severity > *worst) worst = f.severity;
    }
    for (const ReportInput& in : inputs) {
        for (const Finding& f : in.report->findings) {
            if (!worst || f.severity > *worst) worst = f.severity;
        }
    }
    return worst;
}

} // namespace rs
