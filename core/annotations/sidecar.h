#pragma once

// The annotation sidecar: `<trace>.ringscope.json` next to the trace file, or in the user data
// folder when the trace's folder cannot be written. Saved atomically (temporary file, flush,
// rename); a sidecar that cannot be read is moved aside as a backup, never overwritten. The
// format is documented in docs/annotations.md.

#include "core/annotations/annotation.h"
#include "core/annotations/trackstate.h"

#include <QByteArray>
#include <QString>

#include <functional>
#include <vector>

namespace rs {

inline constexpr const char* kSidecarSchema = "ringscope.annotations/1";
inline constexpr const char* kSidecarSchemaPrefix = "ringscope.annotations/";
inline constexpr const char* kSidecarSuffix = ".ringscope.json";

struct SidecarData {
    std::vector<Annotation> annotations; // user annotations only
    bool showFindingAnnotations = true;
    // Pinned tracks and the track filter ("tracks"; absent in older sidecars: none).
    TrackViewState tracks;
    // Top-level keys this version does not know: written back unchanged.
    nlohmann::json extra = nlohmann::json::object();
    // Keys of "settings" this version does not know (a newer viewer's): written back unchanged.
    nlohmann::json settingsExtra = nlohmann::json::object();
};

enum class SidecarStatus : std::uint8_t {
    Missing, // no sidecar yet
    Loaded,
    Corrupt,     // not JSON or not a sidecar: moved to backupPath
    Unsupported, // a newer schema: moved to backupPath so this version never clobbers it
    Unreadable,  // exists but cannot be opened: left in place; saves go to the fallback folder
};

struct SidecarLoadResult {
    SidecarStatus status = SidecarStatus::Missing;
    SidecarData data;
    QString path;       // the sidecar read (or that failed)
    QString backupPath; // where a bad sidecar was moved
    QString message;    // for the user when status is not Missing / Loaded
    int skipped = 0;    // entries dropped because malformed (kept in the backup copy)
};

struct SidecarSaveResult {
    bool ok = false;
    QString path;              // file written
    bool usedFallback = false; // the trace's folder was not writable
    QString message;           // why it failed
};

// `<trace>.ringscope.json` in the trace's folder.
QString sidecarPathFor(const QString& tracePath);
// In QStandardPaths::AppDataLocation/sidecars, named after the trace's absolute path.
QString fallbackSidecarPathFor(const QString& tracePath);

// Serialises / parses the format. trace (optional) records which trace it belongs to.
QByteArray sidecarToJson(const SidecarData& data, const Trace* trace);
// Throws std::exception (nlohmann or std::invalid_argument) on text that is not a sidecar;
// sets *unsupported for a schema of another major version. Malformed entries are skipped and
// counted in *skipped.
SidecarData sidecarFromJson(const QByteArray& bytes, bool* unsupported, int* skipped);

// Reads the sidecar of a trace: the newer of the two locations when both exist.
SidecarLoadResult loadSidecar(const QString& tracePath);
SidecarLoadResult loadSidecarFile(const QString& file);

// Called after the temporary file is written and flushed, before the rename. Returning false
// abandons the save (the previous sidecar stays). Tests use it to simulate a crash.
using BeforeCommitHook = std::function<bool()>;

// Writes bytes to file atomically (QSaveFile). The previous file is intact unless it succeeds.
bool writeFileAtomically(const QString& file, const QByteArray& bytes, QString* error,
                         const BeforeCommitHook& beforeCommit = {});

// Saves next to the trace, or to the fallback folder when that fails (or when avoidPrimary).
SidecarSaveResult saveSidecar(const QString& tracePath, const SidecarData& data, const Trace* trace,
                              bool avoidPrimary = false, const BeforeCommitHook& beforeCommit = {});

} // namespace rs
