#pragma once

// Which tracks the user pinned to the top of the timeline and how the track list is filtered,
// saved in the annotation sidecar ("tracks", docs/annotations.md). Tracks are named by their
// labels ("Rank 3 · HCCL", "Group 0 Communication"), never by index, so the state survives a
// reload, a loader change and a job reopened with its ranks in another order.

#include "core/trace.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace rs {

// A process (track empty) or one of its tracks, by label; the indices tell apart processes or
// tracks that share a label (the n-th one in trace order), 0 for the usual unique label.
struct TrackKey {
    std::string process;
    int processIndex = 0;
    std::string track; // empty: the whole group
    int trackIndex = 0;

    bool isGroup() const { return track.empty(); }
    bool operator==(const TrackKey&) const = default;
};

struct TrackFilterSpec {
    std::string text;   // substring (case-insensitive) or regex of a track or process label
    bool regex = false; // text is a regular expression
    bool host = true, device = true, communication = true; // process kinds shown

    bool active() const { return !text.empty() || !host || !device || !communication; }
    bool operator==(const TrackFilterSpec&) const = default;
};

struct TrackViewState {
    std::vector<TrackKey> pinned; // in the order they were pinned
    TrackFilterSpec filter;
    // Keys of "tracks" this version does not know: written back unchanged.
    nlohmann::json extra = nlohmann::json::object();

    bool empty() const { return pinned.empty() && !filter.active(); }
    bool operator==(const TrackViewState& o) const
    {
        return pinned == o.pinned && filter == o.filter && extra == o.extra;
    }
};

TrackKey processKey(const Trace& trace, ProcessId p);
TrackKey trackKey(const Trace& trace, TrackId t);
// The process or track a key names in this trace; kNone when it has no such label.
ProcessId resolveProcess(const Trace& trace, const TrackKey& key);
TrackId resolveTrack(const Trace& trace, const TrackKey& key);

nlohmann::json trackStateToJson(const TrackViewState& state);
// Lenient: entries of the wrong shape are skipped (counted in *skipped), never thrown.
TrackViewState trackStateFromJson(const nlohmann::json& j, int* skipped = nullptr);

} // namespace rs
