#pragma once

// User annotations on a trace: notes on an event or a time point, labelled time ranges and
// arrows between two events. Events are referred to by identity (track + name + start), not by
// EventId, because ids are indices that change when the loader changes.

#include "core/trace.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace rs {

// A slice by identity: its track (pid + tid + kind as written in the trace), its name and its
// start. Labels are kept for humans reading the sidecar and as a fallback when the pid changes.
struct EventRef {
    std::string pid;
    std::string tid;
    TrackKind trackKind = TrackKind::Thread;
    std::string processLabel; // "HCCL"
    std::string trackLabel;   // "Group 0 Communication"
    std::string name;
    TimeNs startNs = 0; // absolute, as in the trace
    TimeNs durNs = 0;   // hint: tie-break between same-name slices starting together
    int depth = 0;      // hint, same reason

    bool isSet() const { return !name.empty() || !tid.empty(); }
    bool operator==(const EventRef&) const = default;
};

EventRef makeEventRef(const Trace& trace, EventId e);
// The slice a reference names, or kNone. Exact start first; then the same name within
// toleranceNs (a loader that rounds differently); then the track found by its labels.
EventId resolveEventRef(const Trace& trace, const EventRef& ref, TimeNs toleranceNs = 1000);

enum class AnnotationKind : std::uint8_t {
    Note,  // on an event (event set) or on a time point (timeNs)
    Range, // highlighted [timeNs, endNs] with a label
    Arrow, // from event to target
};
const char* annotationKindName(AnnotationKind k); // "note", "range", "arrow"

struct Annotation {
    std::uint64_t id = 0; // unique in its store, kept in the sidecar
    AnnotationKind kind = AnnotationKind::Note;
    std::string text;              // the note, or the label of a range / arrow
    EventRef event;                // Note on an event; Arrow: from
    EventRef target;               // Arrow: to
    TimeNs timeNs = 0;             // Note on a time point; Range: start (absolute ns)
    TimeNs endNs = 0;              // Range: end
    std::string color;             // "#rrggbb", empty = the default of its kind
    std::string created, modified; // ISO 8601 UTC
    // Derived from an analysis finding, not the user's: never saved in the sidecar.
    bool automatic = false;
    std::string rule; // automatic: the finding's rule
    // Keys this version does not know (written by a newer Ringscope): saved back unchanged.
    nlohmann::json extra = nlohmann::json::object();

    bool onEvent() const { return kind == AnnotationKind::Note && event.isSet(); }
    bool operator==(const Annotation& o) const = default;
};

// Resolved position of an annotation in one loaded trace.
struct AnnotationAnchor {
    EventId event = kNone;     // Note on event / Arrow from
    EventId target = kNone;    // Arrow to
    TimeNs start = 0, end = 0; // absolute ns it covers
    bool resolved = true;      // false when a referenced event is not in this trace
};
AnnotationAnchor resolveAnnotation(const Trace& trace, const Annotation& a);

nlohmann::json eventRefToJson(const EventRef& r);
// Throws on a missing or wrong-typed required field; an optional field of the wrong type
// takes its default and counts in *badFields.
EventRef eventRefFromJson(const nlohmann::json& j, int* badFields = nullptr);
nlohmann::json annotationToJson(const Annotation& a);
Annotation annotationFromJson(const nlohmann::json& j, int* badFields = nullptr);

} // namespace rs
