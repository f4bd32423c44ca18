#include "core/traceinfo.h"
#include "core/producers/producer.h"

#include <charconv>
#include <sstream>

namespace rs {

nlohmann::json idJson(const std::string& text, bool numeric)
{
    if (numeric) {
        std::uint64_t u = 0;
        if (auto r = std::from_chars(text.data(), text.data() + text.size(), u);
            r.ec == std::errc() && r.ptr == text.data() + text.size())
            return u;
        std::int64_t i = 0;
        if (auto r = std::from_chars(text.data(), text.data() + text.size(), i);
            r.ec == std::errc() && r.ptr == text.data() + text.size())
            return i;
    }
    return text;
}

namespace {
bool isNumber(const std::string& s)
{
    if (s.empty()) return false;
    std::size_t i = s[0] == '-' ? 1 : 0;
    if (i == s.size()) return false;
    for (; i < s.size(); ++i)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}
} // namespace

nlohmann::json traceInfoJson(const Trace& trace, const std::string& path)
{
    using nlohmann::json;
    const LoadStats& st = trace.stats();
    json j;
    j["path"] = path;
    j["file"] = trace.path();
    j["producer"] = std::string(trace.producer().name());
    j["format"] = std::string(trace.producer().format());
    j["rank"] = trace.rank() ? json(*trace.rank()) : json(nullptr);
    j["events"] = st.events;
    json phases = json::object();
    for (const auto& [ph, n] : st.phases)
        phases[ph] = n;
    j["phases"] = phases;
    j["start_ns"] = trace.startNs();
    j["end_ns"] = trace.endNs();
    j["duration_ns"] = trace.endNs() - trace.startNs();
    j["slices"] = trace.slices().size();
    j["flows"] = trace.flows().size();
    j["counter_series"] = trace.counters().size();
    j["truncated"] = st.truncated;
    json procs = json::array();
    for (ProcessId p = 0; p < trace.processes().size(); ++p) {
        const Process& proc = trace.processes()[p];
        json pj;
        pj["pid"] = idJson(proc.pid, proc.pidIsNumber);
        pj["name"] = proc.name ? json(trace.str(proc.name)) : json(nullptr);
        pj["label"] = trace.processLabel(p);
        pj["events"] = proc.events;
        if (!proc.labels.empty()) pj["labels"] = proc.labels;
        json threads = json::array();
        for (TrackId t : proc.tracks) {
            const Track& tr = trace.tracks()[t];
            if (tr.kind != TrackKind::Thread) continue;
            json tj;
            tj["tid"] = idJson(tr.tid, isNumber(tr.tid));
            tj["name"] = tr.name ? json(trace.str(tr.name)) : json(nullptr);
            tj["events"] = tr.events;
            tj["slices"] = tr.end - tr.begin;
            threads.push_back(std::move(tj));
        }
        pj["threads"] = std::move(threads);
        procs.push_back(std::move(pj));
    }
    j["processes"] = std::move(procs);
    j["warnings"] = trace.warnings();
    // What the producer adds of its own (a Flight Recorder dump's groups and states).
    if (nlohmann::json d = trace.producer().describe(trace); !d.is_null())
        j["details"] = std::move(d);
    return j;
}

std::string traceInfoText(const Trace& trace, const std::string& path)
{
    const LoadStats& st = trace.stats();
    std::ostringstream o;
    o << path << "\n";
    if (trace.path() != path) o << "  file:      " << trace.path() << "\n";
    o << "  producer:  " << trace.producer().name();
    if (trace.producer().format() != "json") o << " (" << trace.producer().format() << ")";
    o << "\n";
    o << "  rank:      " << (trace.rank() ? std::to_string(*trace.rank()) : std::string("unknown"))
      << "\n";
    o << "  events:    " << st.events << " (";
    bool first = true;
    for (const auto& [ph, n] : st.phases) {
        o << (first ? "" : ", ") << ph << " " << n;
        first = false;
    }
    o << ")\n";
    o << "  span:      " << formatDuration(trace.endNs() - trace.startNs()) << " ("
      << trace.startNs() << " .. " << trace.endNs() << " ns)\n";
    o << "  processes: " << trace.processes().size() << "\n";
    for (ProcessId p = 0; p < trace.processes().size(); ++p) {
        const Process& proc = trace.processes()[p];
        o << "    " << trace.processLabel(p) << "  [pid " << (proc.pid.empty() ? "\"\"" : proc.pid)
          << "]  " << proc.events << " events\n";
        for (TrackId t : proc.tracks) {
            const Track& tr = trace.tracks()[t];
            if (tr.kind != TrackKind::Thread) continue;
            o << "      " << trace.trackLabel(t) << "  [tid " << (tr.tid.empty() ? "\"\"" : tr.tid)
              << "]  " << tr.events << " events\n";
        }
    }
    if (const nlohmann::json d = trace.producer().describe(trace); d.is_object()) {
        o << "  details:\n";
        for (const auto& [key, value] : d.items()) {
            if (!value.is_array()) {
                o << "    " << key << ": "
                  << (value.is_string() ? value.get<std::string>() : value.dump()) << "\n";
                continue;
            }
            o << "    " << key << ":\n";
            for (const nlohmann::json& v : value)
                o << "      - " << v.dump() << "\n";
        }
    }
    if (!trace.warnings().empty()) {
        o << "  warnings:\n";
        for (const std::string& w : trace.warnings())
            o << "    - " << w << "\n";
    }
    return o.str();
}

} // namespace rs
