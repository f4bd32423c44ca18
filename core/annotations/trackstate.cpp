#include "core/annotations/trackstate.h"

#include <algorithm>

namespace rs {

TrackKey processKey(const Trace& trace, ProcessId p)
{
    TrackKey k;
    k.process = trace.processLabel(p);
    for (ProcessId q = 0; q < p; ++q)
        if (trace.processLabel(q) == k.process) ++k.processIndex;
    return k;
}

TrackKey trackKey(const Trace& trace, TrackId t)
{
    const Track& track = trace.tracks()[t];
    TrackKey k = track.process != kNone ? processKey(trace, track.process) : TrackKey{};
    k.track = trace.trackLabel(t);
    if (track.process != kNone)
        for (TrackId u : trace.processes()[track.process].tracks) {
            if (u == t) break;
            if (trace.trackLabel(u) == k.track) ++k.trackIndex;
        }
    return k;
}

ProcessId resolveProcess(const Trace& trace, const TrackKey& key)
{
    int seen = 0;
    for (ProcessId p = 0; p < trace.processes().size(); ++p)
        if (trace.processLabel(p) == key.process && seen++ == key.processIndex) return p;
    return kNone;
}

TrackId resolveTrack(const Trace& trace, const TrackKey& key)
{
    if (key.isGroup()) return kNone;
    const ProcessId p = resolveProcess(trace, key);
    if (p == kNone) return kNone;
    int seen = 0;
    for (TrackId t : trace.processes()[p].tracks)
        if (trace.trackLabel(t) == key.track && seen++ == key.trackIndex) return t;
    return kNone;
}

namespace {

const char* const kKnownKeys[] = {"pinned", "filter"};

} // namespace

nlohmann::json trackStateToJson(const TrackViewState& state)
{
    nlohmann::json j = state.extra.is_object() ? state.extra : nlohmann::json::object();
    nlohmann::json pins = nlohmann::json::array();
    for (const TrackKey& k : state.pinned) {
        nlohmann::json e = {{"process", k.process}};
        if (k.processIndex) e["processIndex"] = k.processIndex;
        if (!k.track.empty()) e["track"] = k.track;
        if (k.trackIndex) e["trackIndex"] = k.trackIndex;
        pins.push_back(std::move(e));
    }
    j["pinned"] = std::move(pins);
    const TrackFilterSpec& f = state.filter;
    nlohmann::json kinds = nlohmann::json::array();
    if (f.host) kinds.push_back("host");
    if (f.device) kinds.push_back("device");
    if (f.communication) kinds.push_back("communication");
    j["filter"] = {{"text", f.text}, {"regex", f.regex}, {"kinds", std::move(kinds)}};
    return j;
}

TrackViewState trackStateFromJson(const nlohmann::json& j, int* skipped)
{
    TrackViewState s;
    if (!j.is_object()) {
        if (skipped && !j.is_null()) ++*skipped;
        return s;
    }
    auto bad = [&] {
        if (skipped) ++*skipped;
    };
    auto intOf = [](const nlohmann::json& e, const char* key) {
        auto it = e.find(key);
        return it != e.end() && it->is_number_integer() ? std::max(0, it->get<int>()) : 0;
    };
    if (auto it = j.find("pinned"); it != j.end() && it->is_array()) {
        for (const auto& e : *it) {
            auto proc = e.is_object() ? e.find("process") : e.end();
            if (!e.is_object() || proc == e.end() || !proc->is_string()) {
                bad();
                continue;
            }
            TrackKey k;
            k.process = proc->get<std::string>();
            k.processIndex = intOf(e, "processIndex");
            if (auto t = e.find("track"); t != e.end() && t->is_string())
                k.track = t->get<std::string>();
            k.trackIndex = intOf(e, "trackIndex");
            if (std::find(s.pinned.begin(), s.pinned.end(), k) == s.pinned.end())
                s.pinned.push_back(std::move(k));
        }
    } else if (j.contains("pinned")) {
        bad();
    }
    if (auto it = j.find("filter"); it != j.end() && it->is_object()) {
        const auto& f = *it;
        if (auto t = f.find("text"); t != f.end() && t->is_string())
            s.filter.text = t->get<std::string>();
        if (auto r = f.find("regex"); r != f.end() && r->is_boolean())
            s.filter.regex = r->get<bool>();
        if (auto k = f.find("kinds"); k != f.end() && k->is_array()) {
            auto has = [&](const char* name) {
                return std::find(k->begin(), k->end(), nlohmann::json(name)) != k->end();
            };
            s.filter.host = has("host");
            s.filter.device = has("device");
            s.filter.communication = has("communication");
        }
    } else if (j.contains("filter")) {
        bad();
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
        const bool known = std::any_of(std::begin(kKnownKeys), std::end(kKnownKeys),
                                       [&](const char* k) { return it.key() == k; });
        if (!known) s.extra[it.key()] = it.value();
    }
    return s;
}

} // namespace rs
