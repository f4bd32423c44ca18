#include "core/compare/comparereport.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace rs {

namespace {

using Json = nlohmann::json;

template <typename T> Json opt(const std::optional<T>& v)
{
    return v ? Json(*v) : Json(nullptr);
}

Json optDouble(const std::optional<double>& v)
{
    return v && std::isfinite(*v) ? Json(*v) : Json(nullptr);
}

Json findingJson(const FindingChange& x)
{
    const FindingDigest& f = x.finding;
    return {{"rule", f.rule},
            {"title", f.title},
            {"severity", severityName(f.severity)},
            {"rank", opt(f.rank)},
            {"ranks", f.ranks},
            {"collective_kind", f.kind ? Json(collectiveKindName(*f.kind)) : Json(nullptr)},
            {"name_pattern", f.kind ? Json(f.pattern) : Json(nullptr)},
            {"before_count", x.beforeCount},
            {"after_count", x.afterCount}};
}

Json findingsJson(const std::vector<FindingChange>& list)
{
    Json out = Json::array();
    for (const FindingChange& x : list)
        out.push_back(findingJson(x));
    return out;
}

// Columns are padded by code points: durations hold "µs".
std::size_t width(const std::string& s)
{
    std::size_t n = 0;
    for (unsigned char ch : s)
        n += (ch & 0xC0) != 0x80;
    return n;
}

std::string pad(const std::string& s, std::size_t w)
{
    const std::size_t n = width(s);
    return n >= w ? s + ' ' : s + std::string(w - n, ' ');
}

std::string dur(const std::optional<TimeNs>& v)
{
    return v ? formatDuration(*v) : std::string("-");
}

std::string signedDur(const std::optional<TimeNs>& v)
{
    if (!v) return "-";
    std::string out; // appended, not "+" + s: GCC 12 warns (-Wrestrict) on that form
    if (*v > 0) out.push_back('+');
    out += formatDuration(*v);
    return out;
}

std::string pct(const std::optional<double>& v)
{
    if (!v || !std::isfinite(*v)) return "";
    // A change that rounds to nothing has no sign: "-0.0%" reads as a loss.
    if (std::abs(*v) < 0.05) return " (0.0%)";
    char buf[32];
    std::snprintf(buf, sizeof buf, " (%+.1f%%)", *v);
    return buf;
}

std::string groupName(const CollectiveDelta& g)
{
    std::string s = std::string(collectiveKindName(g.kind)) + " " + g.pattern;
    if (!g.afterPattern.empty() && g.afterPattern != g.pattern) s += " / " + g.afterPattern;
    return s;
}

std::string ranksText(const std::vector<int>& ranks)
{
    std::string s;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        if (!s.empty()) s += ", ";
        s += std::to_string(ranks[i]);
        if (j > i) s += (j == i + 1 ? ", " : "-") + std::to_string(ranks[j]);
        i = j + 1;
    }
    return s;
}

std::string runLine(const RunDigest& d)
{
    std::ostringstream o;
    o << d.path << " (" << d.producer << ", ";
    const std::size_t n = d.rankIds.size();
    o << n << (n == 1 ? " rank" : " ranks");
    if (n > 0 && n <= 16) o << " [" << ranksText(d.rankIds) << "]";
    if (d.worldSize && std::size_t(*d.worldSize) != n) o << " of " << *d.worldSize;
    o << ", " << d.steps.size() << (d.steps.size() == 1 ? " step" : " steps");
    if (d.fromSummaries) o << ", rank summaries";
    o << ")";
    return o.str();
}

std::string subject(const FindingDigest& f, const std::vector<int>& ranks)
{
    std::string s = f.rule;
    if (ranks.size() == 1) s += " · rank " + std::to_string(ranks.front());
    if (ranks.size() > 1) s += " · ranks " + ranksText(ranks);
    if (f.kind) s += std::string(" · ") + collectiveKindName(*f.kind) + " " + f.pattern;
    return s;
}

// One line per problem: entries that differ only by their rank (the 7 ranks that waited for
// the same copy) share a line in the text; the JSON keeps one entry per subject.
void findingLines(std::ostringstream& o, const char* heading, const std::vector<FindingChange>& l,
                  bool showBoth)
{
    if (l.empty()) {
        o << "  " << heading << ": none\n";
        return;
    }
    std::vector<bool> done(l.size(), false);
    std::vector<std::pair<std::size_t, std::vector<int>>> lines;
    for (std::size_t i = 0; i < l.size(); ++i) {
        if (done[i]) continue;
        const FindingDigest& f = l[i].finding;
        std::vector<int> ranks;
        if (f.rank) ranks.push_back(*f.rank);
        for (std::size_t j = i + 1; j < l.size() && f.rank; ++j) {
            const FindingDigest& g = l[j].finding;
            if (done[j] || !g.rank || g.rule != f.rule || g.severity != f.severity ||
                g.kind != f.kind || g.pattern != f.pattern ||
                l[j].beforeCount != l[i].beforeCount || l[j].afterCount != l[i].afterCount)
                continue;
            ranks.push_back(*g.rank);
            done[j] = true;
        }
        std::sort(ranks.begin(), ranks.end());
        lines.emplace_back(i, std::move(ranks));
    }
    o << "  " << heading << " (" << l.size() << "):\n";
    for (const auto& [i, ranks] : lines) {
        const FindingChange& x = l[i];
        o << "    [" << severityName(x.finding.severity) << "] " << subject(x.finding, ranks);
        const int n = std::max(x.beforeCount, x.afterCount);
        if (showBoth)
            o << " (" << x.beforeCount << " -> " << x.afterCount
              << (ranks.size() > 1 ? " each)" : ")");
        else if (n > 1)
            o << " (" << n << "x" << (ranks.size() > 1 ? " each)" : ")");
        o << "\n      " << x.finding.title << "\n";
    }
}

} // namespace

Json runSummaryJson(const RunDigest& d)
{
    return {{"path", d.path},
            {"producer", d.producer},
            {"ranks", d.rankIds},
            {"rank_count", d.rankIds.size()},
            {"world_size", opt(d.worldSize)},
            {"cards", d.cards},
            {"steps", d.steps.size()},
            {"step_samples", d.stepSamples},
            {"step_mean_ns", opt(d.stepMeanNs)},
            {"collectives", d.collectiveCount},
            {"anomalous_collectives", d.anomalousCount},
            {"extra_memcpy_ns", d.extraMemcpyNs},
            {"findings", d.findingCount},
            // Unknown (null) for rank summaries, which hold no per-op device time.
            {"device_ns", d.opsAvailable() ? Json(d.deviceNs) : Json(nullptr)},
            {"errors", d.errors},
            {"source", d.fromSummaries ? "summaries" : "traces"},
            {"ops_available", d.opsAvailable()}};
}

Json compareToJson(const RunComparison& c, std::size_t topOps)
{
    Json j;
    j["schema"] = "ringscope.compare/1";
    j["before"] = runSummaryJson(c.before);
    j["after"] = runSummaryJson(c.after);
    Json perStep = Json::array();
    for (const StepDelta& s : c.steps)
        perStep.push_back({{"step", s.step},
                           {"before_mean_ns", opt(s.beforeNs)},
                           {"after_mean_ns", opt(s.afterNs)},
                           {"delta_ns", opt(s.deltaNs())}});
    j["steps"] = {{"before_mean_ns", opt(c.before.stepMeanNs)},
                  {"after_mean_ns", opt(c.after.stepMeanNs)},
                  {"delta_ns", opt(c.stepDeltaNs())},
                  {"delta_pct", optDouble(c.stepDeltaPct())},
                  {"delta_within_noise",
                   c.stepDeltaNs() ? Json(withinNoise(*c.stepDeltaNs(), c.before.stepMeanNs))
                                   : Json(nullptr)},
                  {"before_samples", c.before.stepSamples},
                  {"after_samples", c.after.stepSamples},
                  {"per_step", std::move(perStep)}};
    Json cols = Json::array();
    for (const CollectiveDelta& g : c.collectives)
        cols.push_back(
            {{"kind", collectiveKindName(g.kind)},
             {"name_pattern", g.pattern},
             {"before_count", g.beforeCount},
             {"after_count", g.afterCount},
             {"before_mean_ns", opt(g.beforeMeanNs)},
             {"after_mean_ns", opt(g.afterMeanNs)},
             {"delta_ns", opt(g.deltaNs())},
             {"before_extra_memcpy_ns", g.beforeExtraMemcpyNs},
             {"after_extra_memcpy_ns", g.afterExtraMemcpyNs},
             // Added: the after side's own name for a group paired across producers.
             {"after_name_pattern", g.afterCount > 0
                                        ? Json(g.afterPattern.empty() ? g.pattern : g.afterPattern)
                                        : Json(nullptr)},
             {"matched_by", g.matchedBy.empty() ? Json(nullptr) : Json(g.matchedBy)},
             {"delta_within_noise",
              g.deltaNs() ? Json(withinNoise(*g.deltaNs(), g.beforeMeanNs)) : Json(nullptr)}});
    j["collectives"] = std::move(cols);
    j["findings_resolved"] = findingsJson(c.resolved);
    j["findings_new"] = findingsJson(c.added);
    j["findings_persisting"] = findingsJson(c.persisting);
    j["findings_not_comparable"] = findingsJson(c.notComparable);
    j["cross_producer"] = c.crossProducer;
    Json ops = Json::array();
    for (std::size_t i = 0; i < c.ops.size() && (topOps == 0 || i < topOps); ++i) {
        const OpDelta& o = c.ops[i];
        if (o.deltaNs() == 0 && topOps != 0) break; // unchanged ops are not changes
        ops.push_back({{"name", o.name},
                       {"before_ns", o.beforeNs},
                       {"after_ns", o.afterNs},
                       {"delta_ns", o.deltaNs()},
                       {"before_count", o.beforeCount},
                       {"after_count", o.afterCount}});
    }
    j["ops"] = std::move(ops);
    // false: a side is rank summaries; "ops" is then empty because it is unknown, not unchanged.
    j["ops_available"] = c.opsAvailable;
    return j;
}

std::string compareToText(const RunComparison& c, std::size_t topOps)
{
    std::ostringstream o;
    o << "Ringscope compare (delta = after - before)\n";
    o << "  before: " << runLine(c.before) << "\n";
    o << "  after:  " << runLine(c.after) << "\n";
    for (const auto* d : {&c.before, &c.after})
        for (const std::string& e : d->errors)
            o << "  warning: " << e << "\n";
    o << "\n";

    const std::size_t w0 = 30, w = 14;
    o << "  " << pad("", w0) << pad("before", w) << pad("after", w) << "delta\n";
    auto row = [&](const std::string& what, const std::string& b, const std::string& a,
                   const std::string& d) {
        std::string line = "  " + pad(what, w0) + pad(b, w) + pad(a, w) + d;
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        o << line << "\n";
    };
    row("step time (mean)", dur(c.before.stepMeanNs), dur(c.after.stepMeanNs),
        signedDur(c.stepDeltaNs()) + pct(c.stepDeltaPct()));
    row("rank-steps averaged", std::to_string(c.before.stepSamples),
        std::to_string(c.after.stepSamples), "");
    row("collectives", std::to_string(c.before.collectiveCount),
        std::to_string(c.after.collectiveCount), "");
    row("anomalous collectives", std::to_string(c.before.anomalousCount),
        std::to_string(c.after.anomalousCount), "");
    row("extra internal memcpy", formatDuration(c.before.extraMemcpyNs),
        formatDuration(c.after.extraMemcpyNs),
        signedDur(c.after.extraMemcpyNs - c.before.extraMemcpyNs));
    row("findings", std::to_string(c.before.findingCount), std::to_string(c.after.findingCount),
        "");
    o << "\n";

    if (!c.collectives.empty()) {
        std::size_t wn = 12;
        bool paired = false;
        for (const CollectiveDelta& g : c.collectives) {
            wn = std::max(wn, width(groupName(g)) + 2);
            paired = paired || g.matchedBy == "shape";
        }
        o << "  " << pad("collective", wn) << pad("count", 14) << pad("mean before", 13)
          << pad("mean after", 13) << pad("delta", 13) << "extra memcpy\n";
        for (const CollectiveDelta& g : c.collectives) {
            o << "  " << pad(groupName(g), wn)
              << pad(std::to_string(g.beforeCount) + " -> " + std::to_string(g.afterCount), 14)
              << pad(dur(g.beforeMeanNs), 13) << pad(dur(g.afterMeanNs), 13)
              << pad(signedDur(g.deltaNs()), 13) << formatDuration(g.beforeExtraMemcpyNs) << " -> "
              << formatDuration(g.afterExtraMemcpyNs) << "\n";
        }
        if (paired)
            o << "  (before / after: one op under each producer's name, paired by kind, group "
                 "size, payload and order)\n";
        o << "\n";
    }

    findingLines(o, "findings resolved", c.resolved, false);
    findingLines(o, "findings new", c.added, false);
    if (!c.persisting.empty()) findingLines(o, "findings in both", c.persisting, true);
    if (!c.notComparable.empty())
        findingLines(o, "findings not comparable (the other run's trace lacks what the rule reads)",
                     c.notComparable, false);
    o << "\n";

    if (!c.opsAvailable) {
        const bool both = c.before.fromSummaries && c.after.fromSummaries;
        o << "  ops: not available: "
          << (both                     ? "both runs are"
              : c.before.fromSummaries ? "before is"
                                       : "after is")
          << " rank summaries, which hold no per-op device time (compare the traces for it)\n";
        return o.str();
    }
    if (c.crossProducer)
        o << "  ops: " << c.before.producer << " and " << c.after.producer
          << " name their kernels differently; only the collectives' ops are paired\n";
    std::size_t shown = 0;
    for (const OpDelta& op : c.ops) {
        if (shown >= topOps || op.deltaNs() == 0) break;
        if (shown++ == 0)
            o << "  ops, largest changes of total device time:\n    " << pad("delta", 12)
              << pad("before", 12) << pad("after", 12) << "name\n";
        std::string name = op.name;
        if (width(name) > 90) name = name.substr(0, 87) + "...";
        o << "    " << pad(signedDur(op.deltaNs()), 12) << pad(formatDuration(op.beforeNs), 12)
          << pad(formatDuration(op.afterNs), 12) << name << "\n";
    }
    if (shown == 0) o << "  ops: no change of device time\n";
    return o.str();
}

Json scalingToJson(const std::vector<ScalingPoint>& runs, bool weak)
{
    Json list = Json::array();
    for (const ScalingPoint& p : runs)
        list.push_back({{"path", p.path},
                        {"cards", p.cards},
                        {"step_mean_ns", opt(p.stepMeanNs)},
                        {"efficiency", optDouble(p.efficiency)},
                        {"speedup", optDouble(p.speedup)}});
    return {{"schema", "ringscope.scaling/1"},
            {"mode", weak ? "weak" : "strong"},
            {"runs", std::move(list)}};
}

std::string scalingToText(const std::vector<ScalingPoint>& runs, bool weak)
{
    std::ostringstream o;
    o << (weak ? "Weak" : "Strong") << " scaling, baseline " << (runs.empty() ? "-" : runs[0].path)
      << (weak ? " (efficiency = T0 / T)" : " (efficiency = cards0 x T0 / (cards x T))") << "\n";
    std::size_t wp = 4;
    for (const ScalingPoint& p : runs)
        wp = std::max(wp, width(p.path) + 2);
    o << "  " << pad("run", wp) << pad("cards", 7) << pad("step time", 12) << pad("speedup", 10)
      << "efficiency\n";
    for (const ScalingPoint& p : runs) {
        char sp[32] = "-", ef[32] = "-";
        if (p.speedup) std::snprintf(sp, sizeof sp, "%.2fx", *p.speedup);
        if (p.efficiency) std::snprintf(ef, sizeof ef, "%.1f%%", *p.efficiency * 100.0);
        o << "  " << pad(p.path, wp) << pad(std::to_string(p.cards), 7)
          << pad(dur(p.stepMeanNs), 12) << pad(sp, 10) << ef << "\n";
    }
    return o.str();
}

} // namespace rs
