#pragma once

// The annotations of one open trace: the user's (saved in the sidecar) and the automatic ones
// derived from analysis findings (never saved). Tracks unsaved changes so closing can ask.

#include "core/annotations/annotation.h"
#include "core/annotations/sidecar.h"

#include <QObject>
#include <QString>

#include <unordered_map>
#include <vector>

namespace rs {

class AnnotationStore : public QObject {
    Q_OBJECT
public:
    explicit AnnotationStore(QObject* parent = nullptr);

    // Switches to a trace: clears everything, then loads its sidecar. The result says whether
    // a sidecar was found, and why not when it was unusable.
    SidecarLoadResult open(TracePtr trace);
    // Switches to a trace without touching any sidecar (headless export of a range, tests).
    void setTrace(TracePtr trace);
    const TracePtr& trace() const { return m_trace; }
    QString tracePath() const;

    const std::vector<Annotation>& annotations() const { return m_items; }
    const Annotation* find(std::uint64_t id) const;
    // Where an annotation sits in the current trace (resolved once, cached).
    AnnotationAnchor anchor(std::uint64_t id) const;

    // Adds a user annotation: assigns its id and timestamps. Returns the id.
    std::uint64_t add(Annotation a);
    bool update(const Annotation& a); // by id; keeps created, sets modified
    bool remove(std::uint64_t id);
    void clear();

    // Automatic annotations from findings; replaced wholesale on each analysis.
    void setAutomatic(std::vector<Annotation> items);
    const std::vector<Annotation>& automatic() const { return m_auto; }
    bool showAutomatic() const { return m_showAuto; }
    void setShowAutomatic(bool show);
    // Pinned tracks and the track filter, saved in the sidecar with the annotations.
    const TrackViewState& trackState() const { return m_tracks; }
    void setTrackState(const TrackViewState& state); // marks the store dirty when it differs

    // The user's annotations, then the automatic ones when shown.
    std::vector<const Annotation*> visible() const;

    bool isDirty() const { return m_dirty; }
    SidecarSaveResult save(const BeforeCommitHook& beforeCommit = {});
    QString sidecarPath() const { return m_sidecarPath; }

signals:
    void changed();
    void dirtyChanged(bool dirty);

private:
    void setDirty(bool d);
    void touch();

    TracePtr m_trace;
    std::vector<Annotation> m_items;
    std::vector<Annotation> m_auto;
    mutable std::unordered_map<std::uint64_t, AnnotationAnchor> m_anchors;
    std::uint64_t m_nextId = 1;
    bool m_showAuto = true;
    bool m_dirty = false;
    bool m_avoidPrimary = false; // the trace's sidecar is unreadable: never write over it
    nlohmann::json m_extra = nlohmann::json::object();         // unknown top-level sidecar keys
    nlohmann::json m_settingsExtra = nlohmann::json::object(); // and unknown settings
    TrackViewState m_tracks;
    QString m_sidecarPath;
};

} // namespace rs
