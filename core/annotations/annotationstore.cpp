#include "core/annotations/annotationstore.h"

#include <QDateTime>

#include <algorithm>

namespace rs {

namespace {

std::string nowIso()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toStdString();
}

// Automatic annotations get ids from the top of the range so they never collide with the
// user's, which count up from 1.
constexpr std::uint64_t kAutoIdBase = std::uint64_t(1) << 62;

} // namespace

AnnotationStore::AnnotationStore(QObject* parent) : QObject(parent) {}

QString AnnotationStore::tracePath() const
{
    return m_trace ? QString::fromStdString(m_trace->path()) : QString();
}

void AnnotationStore::setTrace(TracePtr trace)
{
    m_trace = std::move(trace);
    m_items.clear();
    m_auto.clear();
    m_anchors.clear();
    m_nextId = 1;
    m_showAuto = true;
    m_avoidPrimary = false;
    m_extra = nlohmann::json::object();
    m_settingsExtra = nlohmann::json::object();
    m_tracks = {};
    m_sidecarPath.clear();
    setDirty(false);
    emit changed();
}

SidecarLoadResult AnnotationStore::open(TracePtr trace)
{
    setTrace(std::move(trace));
    if (!m_trace || m_trace->path().empty() || m_trace->path().front() == '<') return {};
    SidecarLoadResult r = loadSidecar(tracePath());
    m_sidecarPath = r.path;
    if (r.status == SidecarStatus::Unreadable) m_avoidPrimary = true;
    if (r.status != SidecarStatus::Loaded) {
        emit changed();
        return r;
    }
    m_items = r.data.annotations;
    m_showAuto = r.data.showFindingAnnotations;
    m_extra = r.data.extra;
    m_settingsExtra = r.data.settingsExtra;
    m_tracks = r.data.tracks;
    for (Annotation& a : m_items) {
        a.automatic = false;
        m_nextId = std::max(m_nextId, a.id + 1);
    }
    // Duplicate ids (hand-edited files) would make edits ambiguous: renumber the later ones.
    std::vector<std::uint64_t> seen;
    for (Annotation& a : m_items) {
        if (std::find(seen.begin(), seen.end(), a.id) != seen.end() || a.id == 0 ||
            a.id >= kAutoIdBase)
            a.id = m_nextId++;
        seen.push_back(a.id);
    }
    emit changed();
    return r;
}

const Annotation* AnnotationStore::find(std::uint64_t id) const
{
    for (const auto* list : {&m_items, &m_auto})
        for (const Annotation& a : *list)
            if (a.id == id) return &a;
    return nullptr;
}

AnnotationAnchor AnnotationStore::anchor(std::uint64_t id) const
{
    if (auto it = m_anchors.find(id); it != m_anchors.end()) return it->second;
    const Annotation* a = find(id);
    if (!a || !m_trace) {
        AnnotationAnchor none;
        none.resolved = false;
        return none;
    }
    const AnnotationAnchor anchor = resolveAnnotation(*m_trace, *a);
    m_anchors.emplace(id, anchor);
    return anchor;
}

std::uint64_t AnnotationStore::add(Annotation a)
{
    a.id = m_nextId++;
    a.automatic = false;
    a.created = a.modified = nowIso();
    m_items.push_back(std::move(a));
    touch();
    return m_items.back().id;
}

bool AnnotationStore::update(const Annotation& a)
{
    for (Annotation& x : m_items) {
        if (x.id != a.id) continue;
        const std::string created = x.created;
        x = a;
        x.automatic = false;
        x.created = created;
        x.modified = nowIso();
        m_anchors.erase(a.id);
        touch();
        return true;
    }
    return false;
}

bool AnnotationStore::remove(std::uint64_t id)
{
    auto it = std::find_if(m_items.begin(), m_items.end(),
                           [&](const Annotation& a) { return a.id == id; });
    if (it == m_items.end()) return false;
    m_items.erase(it);
    m_anchors.erase(id);
    touch();
    return true;
}

void AnnotationStore::clear()
{
    if (m_items.empty()) return;
    for (const Annotation& a : m_items)
        m_anchors.erase(a.id);
    m_items.clear();
    touch();
}

void AnnotationStore::setAutomatic(std::vector<Annotation> items)
{
    for (const Annotation& a : m_auto)
        m_anchors.erase(a.id);
    m_auto = std::move(items);
    std::uint64_t id = kAutoIdBase;
    for (Annotation& a : m_auto) {
        a.automatic = true;
        a.id = id++;
    }
    emit changed();
}

void AnnotationStore::setShowAutomatic(bool show)
{
    if (show == m_showAuto) return;
    m_showAuto = show;
    touch(); // the toggle is saved in the sidecar
}

void AnnotationStore::setTrackState(const TrackViewState& state)
{
    if (state == m_tracks) return;
    m_tracks = state;
    setDirty(true); // no changed(): the annotations themselves did not change
}

std::vector<const Annotation*> AnnotationStore::visible() const
{
    std::vector<const Annotation*> out;
    out.reserve(m_items.size() + m_auto.size());
    for (const Annotation& a : m_items)
        out.push_back(&a);
    if (m_showAuto)
        for (const Annotation& a : m_auto)
            out.push_back(&a);
    return out;
}

SidecarSaveResult AnnotationStore::save(const BeforeCommitHook& beforeCommit)
{
    SidecarSaveResult r;
    if (!m_trace) {
        r.message = "no trace is open";
        return r;
    }
    SidecarData data;
    data.annotations = m_items;
    data.showFindingAnnotations = m_showAuto;
    data.extra = m_extra;
    data.settingsExtra = m_settingsExtra;
    data.tracks = m_tracks;
    r = saveSidecar(tracePath(), data, m_trace.get(), m_avoidPrimary, beforeCommit);
    if (r.ok) {
        m_sidecarPath = r.path;
        setDirty(false);
    }
    return r;
}

void AnnotationStore::setDirty(bool d)
{
    if (d == m_dirty) return;
    m_dirty = d;
    emit dirtyChanged(d);
}

void AnnotationStore::touch()
{
    setDirty(true);
    emit changed();
}

} // namespace rs
