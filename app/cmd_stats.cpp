// `ringscope stats`: summary tables of a trace or a job (docs/stats.md).

#include "app/commands.h"

#include "app/options.h"

#include "core/job/jobpipeline.h"
#include "core/stats/stats.h"

#include <QCommandLineParser>
#include <QRegularExpression>

#include <cmath>
#include <iostream>
#include <optional>

namespace rs::cli {

namespace {

int usageError(const std::string& why)
{
    return cli::usageError("stats", why);
}

// "1500000", "1.5ms", "200us", "0.4s", "12ns" -> ns (the grammar of export --range).
std::optional<TimeNs> parseNs(const QString& text)
{
    static const QRegularExpression re(
        QStringLiteral(R"(^\s*(-?[0-9]+(?:\.[0-9]+)?)\s*(ns|us|µs|ms|s)?\s*$)"));
    const auto m = re.match(text);
    if (!m.hasMatch()) return std::nullopt;
    const QString unit = m.captured(2);
    if (unit.isEmpty() || unit == "ns") {
        bool ok = false;
        const qlonglong v = m.captured(1).toLongLong(&ok);
        if (ok) return v;
    }
    const double scale = unit == "s" ? 1e9 : unit == "ms" ? 1e6 : unit.isEmpty() ? 1 : 1e3;
    const double v = m.captured(1).toDouble() * scale;
    if (!std::isfinite(v) || std::abs(v) > 9.2e18) return std::nullopt;
    return static_cast<TimeNs>(std::llround(v));
}

} // namespace

int stats(const QStringList& args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        "Summary tables of a trace or a job: device kernels, host ops, collectives, steps or "
        "device memcpy by name, with count, total, mean, min, max and the share of busy time "
        "(docs/stats.md).");
    parser.addHelpOption();
    addTracePaths(parser);
    parser.addOption({"by",
                      "What to aggregate: kernel (device kernels), op (host ops), collective "
                      "(by kind and name pattern), step (ProfilerStep#N), memcpy (device copies "
                      "and sets). Default kernel.",
                      "kernel|op|collective|step|memcpy", "kernel"});
    parser.addOption({"range",
                      "Only slices overlapping START:END, clipped to it: trace times in ns "
                      "(as the viewer's Statistics pane shows them), or from the trace start "
                      "with a unit (1.2s:1.6s).",
                      "START_NS:END_NS"});
    parser.addOption({"csv", "Write CSV with a header line."});
    parser.addOption({"json", "Write {\"rows\": [...]} JSON."});
    parser.addOption({"rank", "Only rank N of a job.", "N"});
    parser.addOption({"per-rank", "One row per rank and name (a rank column)."});
    addMaxMemoryOption(parser);
    addCacheOptions(parser);
    if (const auto code = parseCommand(parser, "stats", args, true)) return *code;
    const QStringList paths = parser.positionalArguments();
    if (paths.isEmpty()) return usageError("give at least one trace path");
    const auto by = parseStatsGroup(parser.value("by").toStdString());
    if (!by) return usageError("--by takes kernel, op, collective, step or memcpy");
    if (parser.isSet("csv") && parser.isSet("json")) return usageError("give --csv or --json");
    std::optional<std::pair<TimeNs, TimeNs>> range;
    if (parser.isSet("range")) {
        const QStringList parts = parser.value("range").split(':');
        const auto a = parts.size() == 2 ? parseNs(parts[0]) : std::nullopt;
        const auto b = parts.size() == 2 ? parseNs(parts[1]) : std::nullopt;
        if (!a || !b || *b <= *a)
            return usageError("--range takes START_NS:END_NS with START < END");
        range = {*a, *b};
    }
    std::optional<int> onlyRank;
    if (parser.isSet("rank")) {
        bool ok = false;
        onlyRank = parser.value("rank").toInt(&ok);
        if (!ok || *onlyRank < 0) return usageError("--rank takes a rank number");
    }
    PipelineOptions pipeline;
    const auto budget = maxMemoryBytes(parser);
    if (!budget) return usageError("--max-memory takes a number of MiB");
    pipeline.load.maxMemoryBytes = *budget;
    // Collectives are the analysis' (what analyze counts); the other groups need the traces only.
    pipeline.analyse = *by == StatsGroup::Collective;
    pipeline.crossRank = false;
    std::vector<std::string> given;
    for (const QString& p : paths)
        given.push_back(p.toStdString());
    const PipelineResult result = runPipeline(given, pipeline);
    for (const std::string& e : result.errors)
        std::cerr << "ringscope stats: " << e << "\n";
    for (const std::string& w : result.warnings)
        std::cerr << "ringscope stats: warning: " << w << " (using what was read)\n";
    std::vector<StatsSource> sources;
    for (std::size_t i = 0; i < result.traces.size(); ++i) {
        if (!result.traces[i]) continue;
        const int rank = i < result.rankIds.size() ? result.rankIds[i] : int(i);
        if (onlyRank && rank != *onlyRank) continue;
        StatsSource s;
        s.trace = result.traces[i].get();
        s.report =
            i < result.reports.size() && result.reports[i] ? result.reports[i].get() : nullptr;
        s.rank = rank;
        sources.push_back(s);
    }
    if (sources.empty()) {
        if (onlyRank && !result.traces.empty())
            return usageError("no rank " + std::to_string(*onlyRank) + " in the input");
        return usageError("no trace was read");
    }
    if (range) {
        // As export --range: absolute trace times are far above the trace's length.
        TimeNs start = sources.front().trace->startNs(), end = sources.front().trace->endNs();
        for (const StatsSource& s : sources) {
            start = std::min(start, s.trace->startNs());
            end = std::max(end, s.trace->endNs());
        }
        const bool absolute = range->first >= start && start > end - start;
        if (!absolute) range = std::pair{range->first + start, range->second + start};
    }
    StatsOptions options;
    options.by = *by;
    options.scope.range = range;
    options.perRank = parser.isSet("per-rank");
    const StatsTable table = computeStats(sources, options);
    if (parser.isSet("json"))
        std::cout << statsJson(table) << "\n";
    else if (parser.isSet("csv"))
        std::cout << statsToCsv(table);
    else
        std::cout << statsToText(table);
    return result.errors.empty() ? kExitOk : kExitInput;
}

} // namespace rs::cli
