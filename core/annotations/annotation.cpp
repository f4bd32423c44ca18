#include "core/annotations/annotation.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <type_traits>

namespace rs {

namespace {

const char* trackKindName(TrackKind k)
{
    switch (k) {
    case TrackKind::Thread:
        return "thread";
    case TrackKind::Async:
        return "async";
    case TrackKind::Counter:
        return "counter";
    }
    return "thread";
}

TrackKind trackKindFromName(const std::string& s)
{
    if (s == "async") return TrackKind::Async;
    if (s == "counter") return TrackKind::Counter;
    return TrackKind::Thread;
}

// Best slice on a track for a reference: same name, start within tolerance, closest start,
// then the duration and depth hints.
EventId findOnTrack(const Trace& trace, TrackId t, const EventRef& ref, TimeNs tolerance)
{
    const Track& track = trace.tracks()[t];
    const auto slices = trace.trackSlices(t);
    const TimeNs lo = ref.startNs - tolerance;
    auto it = std::lower_bound(slices.begin(), slices.end(), lo,
                               [](const Slice& s, TimeNs v) { return s.start < v; });
    EventId best = kNone;
    auto score = [&](const Slice& s) {
        // Lexicographic: start distance, then duration distance, then depth distance.
        const TimeNs ds = std::llabs(s.start - ref.startNs);
        const TimeNs dd = std::llabs(s.dur - ref.durNs);
        return std::tuple(ds, dd, std::abs(int(s.depth) - ref.depth));
    };
    for (; it != slices.end() && it->start <= ref.startNs + tolerance; ++it) {
        if (trace.str(it->name) != ref.name) continue;
        const EventId id = track.begin + static_cast<EventId>(it - slices.begin());
        if (best == kNone || score(*it) < score(trace.slice(best))) best = id;
    }
    return best;
}

} // namespace

const char* annotationKindName(AnnotationKind k)
{
    switch (k) {
    case AnnotationKind::Note:
        return "note";
    case AnnotationKind::Range:
        return "range";
    case AnnotationKind::Arrow:
        return "arrow";
    }
    return "note";
}

EventRef makeEventRef(const Trace& trace, EventId e)
{
    EventRef r;
    if (e >= trace.slices().size()) return r;
    const Slice& s = trace.slice(e);
    const Track& t = trace.tracks()[s.track];
    r.pid = trace.processes()[t.process].pid;
    r.tid = t.tid;
    r.trackKind = t.kind;
    r.processLabel = trace.processLabel(t.process);
    r.trackLabel = trace.trackLabel(s.track);
    r.name = trace.str(s.name);
    r.startNs = s.start;
    r.durNs = s.dur;
    r.depth = s.depth;
    return r;
}

EventId resolveEventRef(const Trace& trace, const EventRef& ref, TimeNs toleranceNs)
{
    if (!ref.isSet()) return kNone;
    const ProcessId p = trace.findProcess(ref.pid);
    const TrackId t = p == kNone ? kNone : trace.findTrack(p, ref.tid, ref.trackKind);
    if (t != kNone) {
        if (EventId e = findOnTrack(trace, t, ref, 0); e != kNone) return e;
        if (EventId e = findOnTrack(trace, t, ref, toleranceNs); e != kNone) return e;
    }
    // The pid can differ between two exports of the same run (torch_npu derives device pids);
    // the labels usually do not.
    for (TrackId other = 0; other < trace.tracks().size(); ++other) {
        if (other == t || trace.tracks()[other].kind != ref.trackKind) continue;
        if (trace.trackLabel(other) != ref.trackLabel ||
            trace.processLabel(trace.tracks()[other].process) != ref.processLabel)
            continue;
        if (EventId e = findOnTrack(trace, other, ref, toleranceNs); e != kNone) return e;
    }
    return kNone;
}

AnnotationAnchor resolveAnnotation(const Trace& trace, const Annotation& a)
{
    AnnotationAnchor anchor;
    switch (a.kind) {
    case AnnotationKind::Note:
        if (a.event.isSet()) {
            anchor.event = resolveEventRef(trace, a.event);
            if (anchor.event == kNone) {
                anchor.resolved = false;
                anchor.start = a.event.startNs;
                anchor.end = a.event.startNs + a.event.durNs;
            } else {
                anchor.start = trace.slice(anchor.event).start;
                anchor.end = trace.slice(anchor.event).end();
            }
        } else {
            anchor.start = anchor.end = a.timeNs;
        }
        break;
    case AnnotationKind::Range:
        anchor.start = std::min(a.timeNs, a.endNs);
        anchor.end = std::max(a.timeNs, a.endNs);
        break;
    case AnnotationKind::Arrow: {
        anchor.event = resolveEventRef(trace, a.event);
        anchor.target = resolveEventRef(trace, a.target);
        anchor.resolved = anchor.event != kNone && anchor.target != kNone;
        const TimeNs s1 = anchor.event != kNone ? trace.slice(anchor.event).start : a.event.startNs;
        const TimeNs s2 =
            anchor.target != kNone ? trace.slice(anchor.target).start : a.target.startNs;
        anchor.start = std::min(s1, s2);
        anchor.end = std::max(s1, s2);
        break;
    }
    }
    return anchor;
}

nlohmann::json eventRefToJson(const EventRef& r)
{
    return {{"pid", r.pid},
            {"tid", r.tid},
            {"trackKind", trackKindName(r.trackKind)},
            {"process", r.processLabel},
            {"track", r.trackLabel},
            {"name", r.name},
            {"startNs", r.startNs},
            {"durNs", r.durNs},
            {"depth", r.depth}};
}

namespace {
// An optional field: its value when it has the right type, else the fallback. A value of
// another type is not thrown over (the annotation must not be lost): *bad counts it.
template <typename T>
T optionalField(const nlohmann::json& j, const char* key, T fallback, int* bad)
{
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return fallback;
    bool ok;
    if constexpr (std::is_same_v<T, std::string>)
        ok = it->is_string();
    else if constexpr (std::is_same_v<T, bool>)
        ok = it->is_boolean();
    else
        ok = it->is_number_integer();
    if (ok) return it->get<T>();
    if (bad) ++*bad;
    return fallback;
}
} // namespace

EventRef eventRefFromJson(const nlohmann::json& j, int* badFields)
{
    if (!j.is_object()) throw std::invalid_argument("event reference is not an object");
    EventRef r;
    r.pid = j.at("pid").get<std::string>();
    r.tid = j.at("tid").get<std::string>();
    r.trackKind =
        trackKindFromName(optionalField(j, "trackKind", std::string("thread"), badFields));
    r.processLabel = optionalField(j, "process", std::string(), badFields);
    r.trackLabel = optionalField(j, "track", std::string(), badFields);
    r.name = j.at("name").get<std::string>();
    r.startNs = j.at("startNs").get<TimeNs>();
    r.durNs = optionalField(j, "durNs", TimeNs(0), badFields);
    r.depth = optionalField(j, "depth", 0, badFields);
    return r;
}

namespace {
// Keys annotationToJson writes; any other key of an entry is kept in Annotation::extra.
const char* const kKnownKeys[] = {"id",     "kind",  "text",  "event",   "target",
                                  "timeNs", "endNs", "color", "created", "modified"};
} // namespace

nlohmann::json annotationToJson(const Annotation& a)
{
    nlohmann::json j = a.extra.is_object() ? a.extra : nlohmann::json::object();
    j["id"] = a.id;
    j["kind"] = annotationKindName(a.kind);
    if (!a.text.empty() || !j.contains("text")) j["text"] = a.text; // else kept as written
    switch (a.kind) {
    case AnnotationKind::Note:
        if (a.event.isSet())
            j["event"] = eventRefToJson(a.event);
        else
            j["timeNs"] = a.timeNs;
        break;
    case AnnotationKind::Range:
        j["timeNs"] = a.timeNs;
        j["endNs"] = a.endNs;
        break;
    case AnnotationKind::Arrow:
        j["event"] = eventRefToJson(a.event);
        j["target"] = eventRefToJson(a.target);
        break;
    }
    if (!a.color.empty()) j["color"] = a.color;
    if (!a.created.empty()) j["created"] = a.created;
    if (!a.modified.empty()) j["modified"] = a.modified;
    return j;
}

Annotation annotationFromJson(const nlohmann::json& j, int* badFields)
{
    if (!j.is_object()) throw std::invalid_argument("annotation is not an object");
    Annotation a;
    a.id = j.at("id").get<std::uint64_t>();
    const std::string kind = j.at("kind").get<std::string>();
    if (kind == "note")
        a.kind = AnnotationKind::Note;
    else if (kind == "range")
        a.kind = AnnotationKind::Range;
    else if (kind == "arrow")
        a.kind = AnnotationKind::Arrow;
    else
        throw std::invalid_argument("unknown annotation kind \"" + kind + "\"");
    a.text = optionalField(j, "text", std::string(), badFields);
    switch (a.kind) {
    case AnnotationKind::Note:
        if (j.contains("event"))
            a.event = eventRefFromJson(j.at("event"), badFields);
        else
            a.timeNs = j.at("timeNs").get<TimeNs>();
        break;
    case AnnotationKind::Range:
        a.timeNs = j.at("timeNs").get<TimeNs>();
        a.endNs = j.at("endNs").get<TimeNs>();
        break;
    case AnnotationKind::Arrow:
        a.event = eventRefFromJson(j.at("event"), badFields);
        a.target = eventRefFromJson(j.at("target"), badFields);
        break;
    }
    a.color = optionalField(j, "color", std::string(), badFields);
    a.created = optionalField(j, "created", std::string(), badFields);
    a.modified = optionalField(j, "modified", std::string(), badFields);
    for (auto it = j.begin(); it != j.end(); ++it) {
        const bool known = std::any_of(std::begin(kKnownKeys), std::end(kKnownKeys),
                                       [&](const char* k) { return it.key() == k; });
        // Unknown keys, and a text field of another type, are kept as they were written.
        const bool wrongText = (it.key() == "text" || it.key() == "color" ||
                                it.key() == "created" || it.key() == "modified") &&
                               !it->is_string() && !it->is_null();
        if (!known || wrongText) a.extra[it.key()] = it.value();
    }
    return a;
}

} // namespace rs
