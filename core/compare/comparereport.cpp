#include "core/compare/comparereport.h"

#include "core/fieldtable.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace rs {

namespace {

using namespace fields;

constexpr std::uint8_t O = Output;

void optReal(JsonWriter& w, const std::optional<double>& v)
{
    if (v && std::isfinite(*v))
        w.real(*v);
    else
        w.null();
}

void optInt(JsonWriter& w, const std::optional<TimeNs>& v)
{
    Value<std::optional<TimeNs>>::write(w, v);
}

// Whether a delta is within the noise; null without a delta.
void noise(JsonWriter& w, const std::optional<TimeNs>& delta, const std::optional<TimeNs>& before)
{
    if (delta)
        w.boolean(withinNoise(*delta, before));
    else
        w.null();
}

// The documents' fields (core/fieldtable.h), written only: a line a field, keys sorted.

constexpr auto kRunFields = std::to_array<Field<RunDigest>>({
    member<&RunDigest::anomalousCount>("anomalous_collectives", O),
    member<&RunDigest::cards>("cards", O),
    member<&RunDigest::collectiveCount>("collectives", O),
    // Unknown (null) for rank summaries, which hold no per-op device time.
    {"device_ns", O, nullptr,
     [](JsonWriter& w, const RunDigest& d, const WriteContext&) {
         if (d.opsAvailable())
             w.integer(d.deviceNs);
         else
             w.null();
     }},
    member<&RunDigest::errors>("errors", O),
    member<&RunDigest::extraMemcpyNs>("extra_memcpy_ns", O),
    member<&RunDigest::findingCount>("findings", O),
    {"ops_available", O, nullptr,
     [](JsonWriter& w, const RunDigest& d, const WriteContext&) { w.boolean(d.opsAvailable()); }},
    member<&RunDigest::path>("path", O),
    member<&RunDigest::producer>("producer", O),
    {"rank_count", O, nullptr,
     [](JsonWriter& w, const RunDigest& d, const WriteContext&) { w.integer(d.rankIds.size()); }},
    member<&RunDigest::rankIds>("ranks", O),
    {"source", O, nullptr,
     [](JsonWriter& w, const RunDigest& d,
        const WriteContext&) { w.string(d.fromSummaries ? "summaries" : "traces"); }},
    member<&RunDigest::stepMeanNs>("step_mean_ns", O),
    member<&RunDigest::stepSamples>("step_samples", O),
    {"steps", O, nullptr,
     [](JsonWriter& w, const RunDigest& d, const WriteContext&) { w.integer(d.steps.size()); }},
    member<&RunDigest::worldSize>("world_size", O),
});
static_assert(sortedByKey(kRunFields));

constexpr auto kStepDeltaFields = std::to_array<Field<StepDelta>>({
    member<&StepDelta::afterNs>("after_mean_ns", O),
    member<&StepDelta::beforeNs>("before_mean_ns", O),
    {"delta_ns", O, nullptr,
     [](JsonWriter& w, const StepDelta& s, const WriteContext&) { optInt(w, s.deltaNs()); }},
    member<&StepDelta::step>("step", O),
});
static_assert(sortedByKey(kStepDeltaFields));

// "steps": the step time of both runs.
constexpr auto kStepsFields = std::to_array<Field<RunComparison>>({
    {"after_mean_ns", O, nullptr,
     [](JsonWriter& w, const RunComparison& c, const WriteContext&) {
         optInt(w, c.after.stepMeanNs);
     }},
    {"after_samples", O, nullptr,
     [](JsonWriter& w, const RunComparison& c, const WriteContext&) {
         w.integer(c.after.stepSamples);
     }},
    {"before_mean_ns", O, nullptr,
     [](JsonWriter& w, const RunComparison& c, const WriteContext&) {
         optInt(w, c.before.stepMeanNs);
     }},
    {"before_samples", O, nullptr,
     [](JsonWriter& w, const RunComparison& c, const WriteContext&) {
         w.integer(c.before.stepSamples);
     }},
    {"delta_ns", O, nullptr,
     [](JsonWriter& w, const RunComparison& c, const WriteContext&) {
         optInt(w, c.stepDeltaNs());
     }},
    {"delta_pct", O, nullptr,
     [](JsonWriter& w, const RunComparison& c, const WriteContext&) {
         optReal(w, c.stepDeltaPct());
     }},
    {"delta_within_noise", O, nullptr,
     [](JsonWriter& w, const RunComparison& c, const WriteContext&) {
         noise(w, c.stepDeltaNs(), c.before.stepMeanNs);
     }},
    objects<&RunComparison::steps, kStepDeltaFields>("per_step", O),
});
static_assert(sortedByKey(kStepsFields));

constexpr auto kCollectiveDeltaFields = std::to_array<Field<CollectiveDelta>>({
    member<&CollectiveDelta::afterCount>("after_count", O),
    member<&CollectiveDelta::afterExtraMemcpyNs>("after_extra_memcpy_ns", O),
    member<&CollectiveDelta::afterMeanNs>("after_mean_ns", O),
    // Added: the after side's own name for a group paired across producers.
    {"after_name_pattern", O, nullptr,
     [](JsonWriter& w, const CollectiveDelta& g, const WriteContext&) {
         if (g.afterCount > 0)
             w.string(g.afterPattern.empty() ? g.pattern : g.afterPattern);
         else
             w.null();
     }},
    member<&CollectiveDelta::beforeCount>("before_count", O),
    member<&CollectiveDelta::beforeExtraMemcpyNs>("before_extra_memcpy_ns", O),
    member<&CollectiveDelta::beforeMeanNs>("before_mean_ns", O),
    {"delta_ns", O, nullptr,
     [](JsonWriter& w, const CollectiveDelta& g, const WriteContext&) { optInt(w, g.deltaNs()); }},
    {"delta_within_noise", O, nullptr,
     [](JsonWriter& w, const CollectiveDelta& g, const WriteContext&) {
         noise(w, g.deltaNs(), g.beforeMeanNs);
     }},
    {"kind", O, nullptr,
     [](JsonWriter& w, const CollectiveDelta& g, const WriteContext&) {
         w.string(collectiveKindName(g.kind));
     }},
    {"matched_by", O, nullptr,
     [](JsonWriter& w, const CollectiveDelta& g, const WriteContext&) {
         if (g.matchedBy.empty())
             w.null();
         else
             w.string(g.matchedBy);
     }},
    member<&CollectiveDelta::pattern>("name_pattern", O),
});
static_assert(sortedByKey(kCollectiveDeltaFields));

constexpr auto kFindingChangeFields = std::to_array<Field<FindingChange>>({
    member<&FindingChange::afterCount>("after_count", O),
    member<&FindingChange::beforeCount>("before_count", O),
    {"collective_kind", O, nullptr,
     [](JsonWriter& w, const FindingChange& x, const WriteContext&) {
         if (x.finding.kind)
             w.string(collectiveKindName(*x.finding.kind));
         else
             w.null();
     }},
    {"name_pattern", O, nullptr,
     [](JsonWriter& w, const FindingChange& x, const WriteContext&) {
         if (x.finding.kind)
             w.string(x.finding.pattern);
         else
             w.null();
     }},
    {"rank", O, nullptr,
     [](JsonWriter& w, const FindingChange& x, const WriteContext&) { w.optInt(x.finding.rank); }},
    {"ranks", O, nullptr,
     [](JsonWriter& w, const FindingChange& x, const WriteContext&) {
         w.integers(x.finding.ranks);
     }},
    {"rule", O, nullptr,
     [](JsonWriter& w, const FindingChange& x, const WriteContext&) { w.string(x.finding.rule); }},
    {"severity", O, nullptr,
     [](JsonWriter& w, const FindingChange& x, const WriteContext&) {
         w.string(severityName(x.finding.severity));
     }},
    {"title", O, nullptr,
     [](JsonWriter& w, const FindingChange& x, const WriteContext&) { w.string(x.finding.title); }},
});
static_assert(sortedByKey(kFindingChangeFields));

constexpr auto kOpDeltaFields = std::to_array<Field<OpDelta>>({
    member<&OpDelta::afterCount>("after_count", O),
    member<&OpDelta::afterNs>("after_ns", O),
    member<&OpDelta::beforeCount>("before_count", O),
    member<&OpDelta::beforeNs>("before_ns", O),
    {"delta_ns", O, nullptr,
     [](JsonWriter& w, const OpDelta& o, const WriteContext&) { w.integer(o.deltaNs()); }},
    member<&OpDelta::name>("name", O),
});
static_assert(sortedByKey(kOpDeltaFields));

constexpr auto kComparisonFields = std::to_array<Field<RunComparison>>({
    {"after", O, nullptr,
     [](JsonWriter& w, const RunComparison& c, const WriteContext& ctx) {
         writeObject(w, c.after, kRunFields, ctx);
     }},
    {"before", O, nullptr,
     [](JsonWriter& w, const RunComparison& c, const WriteContext& ctx) {
         writeObject(w, c.before, kRunFields, ctx);
     }},
    objects<&RunComparison::collectives, kCollectiveDeltaFields>("collectives", O),
    member<&RunComparison::crossProducer>("cross_producer", O),
    objects<&RunComparison::added, kFindingChangeFields>("findings_new", O),
    objects<&RunComparison::notComparable, kFindingChangeFields>("findings_not_comparable", O),
    objects<&RunComparison::persisting, kFindingChangeFields>("findings_persisting", O),
    objects<&RunComparison::resolved, kFindingChangeFields>("findings_resolved", O),
    // The largest changes (WriteContext::index of them, 0: every op).
    {"ops", O, nullptr,
     [](JsonWriter& w, const RunComparison& c, const WriteContext& ctx) {
         const std::size_t top = ctx.index;
         w.beginArray();
         for (std::size_t i = 0; i < c.ops.size() && (top == 0 || i < top); ++i) {
             if (c.ops[i].deltaNs() == 0 && top != 0) break; // unchanged ops are not changes
             w.item();
             writeObject(w, c.ops[i], kOpDeltaFields, ctx);
         }
         w.endArray();
     }},
    // false: a side is rank summaries; "ops" is then empty because it is unknown, not unchanged.
    member<&RunComparison::opsAvailable>("ops_available", O),
    {"schema", O, nullptr,
     [](JsonWriter& w, const RunComparison&,
        const WriteContext&) { w.string("ringscope.compare/1"); }},
    {"steps", O, nullptr,
     [](JsonWriter& w, const RunComparison& c,
        const WriteContext& ctx) { writeObject(w, c, kStepsFields, ctx); }},
});
static_assert(sortedByKey(kComparisonFields));

constexpr auto kScalingFields = std::to_array<Field<ScalingPoint>>({
    member<&ScalingPoint::cards>("cards", O),
    {"efficiency", O, nullptr,
     [](JsonWriter& w, const ScalingPoint& p, const WriteContext&) { optReal(w, p.efficiency); }},
    member<&ScalingPoint::path>("path", O),
    {"speedup", O, nullptr,
     [](JsonWriter& w, const ScalingPoint& p, const WriteContext&) { optReal(w, p.speedup); }},
    member<&ScalingPoint::stepMeanNs>("step_mean_ns", O),
});
static_assert(sortedByKey(kScalingFields));

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

std::string compareJson(const RunComparison& c, std::size_t topOps)
{
    std::string text;
    JsonWriter w(text, true);
    WriteContext ctx{Output};
    ctx.index = topOps;
    writeObject(w, c, kComparisonFields, ctx);
    return text;
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

std::string scalingJson(const std::vector<ScalingPoint>& runs, bool weak)
{
    std::string text;
    JsonWriter w(text, true);
    const WriteContext ctx{Output};
    w.beginObject();
    w.key("mode");
    w.string(weak ? "weak" : "strong");
    w.key("runs");
    w.array(runs.size(), [&](std::size_t i) { writeObject(w, runs[i], kScalingFields, ctx); });
    w.key("schema");
    w.string("ringscope.scaling/1");
    w.endObject();
    return text;
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
