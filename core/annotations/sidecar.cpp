#include "core/annotations/sidecar.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

#include <stdexcept>

namespace rs {

namespace {

const char* const kKnownTopKeys[] = {"schema",   "generator",   "saved", "trace",
                                     "settings", "annotations", "tracks"};

QString nowStamp()
{
    return QDateTime::currentDateTimeUtc().toString("yyyyMMdd-HHmmss-zzz");
}

// Moves a bad sidecar aside so a later save cannot overwrite it. Falls back to a copy in the
// data folder when the trace's folder is read-only.
QString backUp(const QString& file, const char* why)
{
    QString name = QString("%1.%2-%3").arg(file, why, nowStamp());
    if (QFile::rename(file, name)) return name;
    const QString dir =
        QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/sidecars";
    QDir().mkpath(dir);
    QString copy = QDir(dir).filePath(QFileInfo(name).fileName());
    if (QFile::copy(file, copy)) return copy;
    return {};
}

} // namespace

QString sidecarPathFor(const QString& tracePath)
{
    return tracePath + kSidecarSuffix;
}

QString fallbackSidecarPathFor(const QString& tracePath)
{
    const QString abs = QFileInfo(tracePath).absoluteFilePath();
    const QByteArray hash =
        QCryptographicHash::hash(abs.toUtf8(), QCryptographicHash::Sha1).toHex().left(12);
    const QString dir =
        QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/sidecars";
    return QDir(dir).filePath(QString("%1-%2%3").arg(
        QString::fromLatin1(hash), QFileInfo(abs).fileName(), QString(kSidecarSuffix)));
}

QByteArray sidecarToJson(const SidecarData& data, const Trace* trace)
{
    nlohmann::json j = data.extra.is_object() ? data.extra : nlohmann::json::object();
    j["schema"] = kSidecarSchema;
    j["generator"] = "ringscope";
    j["saved"] = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
    if (trace) {
        nlohmann::json t = {
            {"file", QFileInfo(QString::fromStdString(trace->path())).fileName().toStdString()},
            {"startNs", trace->startNs()},
            {"endNs", trace->endNs()},
            {"events", trace->stats().events}};
        if (trace->rank()) t["rank"] = *trace->rank();
        j["trace"] = t;
    }
    nlohmann::json settings =
        data.settingsExtra.is_object() ? data.settingsExtra : nlohmann::json::object();
    settings["showFindingAnnotations"] = data.showFindingAnnotations;
    j["settings"] = std::move(settings);
    // Only when used, so a sidecar of someone who never pins stays as it was.
    if (!data.tracks.empty() || !data.tracks.extra.empty())
        j["tracks"] = trackStateToJson(data.tracks);
    else
        j.erase("tracks");
    nlohmann::json list = nlohmann::json::array();
    for (const Annotation& a : data.annotations)
        if (!a.automatic) list.push_back(annotationToJson(a));
    j["annotations"] = std::move(list);
    const std::string text = j.dump(2) + "\n";
    return QByteArray(text.data(), static_cast<qsizetype>(text.size()));
}

SidecarData sidecarFromJson(const QByteArray& bytes, bool* unsupported, int* skipped)
{
    if (unsupported) *unsupported = false;
    if (skipped) *skipped = 0;
    const nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end());
    if (!j.is_object() || !j.contains("schema") || !j["schema"].is_string())
        throw std::invalid_argument("not a Ringscope annotation file (no \"schema\")");
    const std::string schema = j["schema"].get<std::string>();
    if (schema.rfind(kSidecarSchemaPrefix, 0) != 0)
        throw std::invalid_argument("unknown schema \"" + schema + "\"");
    if (schema != kSidecarSchema) {
        if (unsupported) *unsupported = true;
        throw std::invalid_argument("schema \"" + schema + "\" is newer than this Ringscope (" +
                                    kSidecarSchema + ")");
    }
    SidecarData d;
    if (j.contains("settings") && j["settings"].is_object()) {
        for (const auto& [key, value] : j["settings"].items()) {
            if (key != "showFindingAnnotations")
                d.settingsExtra[key] = value;
            else if (value.is_boolean())
                d.showFindingAnnotations = value.get<bool>();
        }
    }
    if (auto t = j.find("tracks"); t != j.end()) {
        int bad = 0;
        d.tracks = trackStateFromJson(*t, &bad);
        if (skipped) *skipped += bad;
    }
    const auto& list = j.at("annotations");
    if (!list.is_array()) throw std::invalid_argument("\"annotations\" is not a list");
    for (const auto& entry : list) {
        try {
            d.annotations.push_back(annotationFromJson(entry));
        } catch (const std::exception&) {
            if (skipped) ++*skipped;
        }
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
        const bool known = std::any_of(std::begin(kKnownTopKeys), std::end(kKnownTopKeys),
                                       [&](const char* k) { return it.key() == k; });
        if (!known) d.extra[it.key()] = it.value();
    }
    return d;
}

SidecarLoadResult loadSidecarFile(const QString& file)
{
    SidecarLoadResult r;
    r.path = file;
    if (!QFileInfo::exists(file)) return r;
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly)) {
        r.status = SidecarStatus::Unreadable;
        r.message = QString("Cannot read the annotations in %1 (%2); they are left untouched and "
                            "new annotations will be saved in the data folder.")
                        .arg(file, f.errorString());
        return r;
    }
    const QByteArray bytes = f.readAll();
    f.close();
    bool unsupported = false;
    try {
        r.data = sidecarFromJson(bytes, &unsupported, &r.skipped);
        r.status = SidecarStatus::Loaded;
        if (r.skipped > 0) {
            // Keep a copy of the original so dropping malformed entries on the next save loses
            // nothing.
            const QString copy = QString("%1.partial-%2").arg(file, nowStamp());
            r.backupPath = QFile::copy(file, copy) ? copy : QString();
            r.message =
                QString("%1 annotation(s) in %2 could not be read and were skipped; "
                        "the original is kept as %3.")
                    .arg(r.skipped)
                    .arg(file, r.backupPath.isEmpty() ? "(no copy possible)" : r.backupPath);
        }
    } catch (const std::exception& e) {
        r.status = unsupported ? SidecarStatus::Unsupported : SidecarStatus::Corrupt;
        r.backupPath = backUp(file, unsupported ? "newer" : "corrupt");
        r.message = QString("The annotations in %1 cannot be read: %2. %3")
                        .arg(file, QString::fromUtf8(e.what()),
                             r.backupPath.isEmpty()
                                 ? QString("The file could not be backed up; it is left as is.")
                                 : QString("The file was kept as %1.").arg(r.backupPath));
    }
    return r;
}

SidecarLoadResult loadSidecar(const QString& tracePath)
{
    const QString primary = sidecarPathFor(tracePath);
    const QString fallback = fallbackSidecarPathFor(tracePath);
    const QFileInfo pi(primary), fi(fallback);
    // When saving moved to the data folder (trace folder read-only), that copy is the newer.
    if (fi.exists() && (!pi.exists() || fi.lastModified() > pi.lastModified())) {
        SidecarLoadResult r = loadSidecarFile(fallback);
        if (r.status == SidecarStatus::Loaded || !pi.exists()) return r;
    }
    return loadSidecarFile(primary);
}

bool writeFileAtomically(const QString& file, const QByteArray& bytes, QString* error,
                         const BeforeCommitHook& beforeCommit)
{
    QSaveFile f(file);
    // Never degrade to writing the target in place: that is what can corrupt it.
    f.setDirectWriteFallback(false);
    if (!f.open(QIODevice::WriteOnly)) {
        if (error) *error = f.errorString();
        return false;
    }
    if (f.write(bytes) != bytes.size() || !f.flush()) {
        if (error) *error = f.errorString();
        f.cancelWriting();
        return false;
    }
    if (beforeCommit && !beforeCommit()) {
        if (error) *error = "save abandoned before commit";
        f.cancelWriting();
        return false;
    }
    if (!f.commit()) {
        if (error) *error = f.errorString();
        return false;
    }
    return true;
}

SidecarSaveResult saveSidecar(const QString& tracePath, const SidecarData& data, const Trace* trace,
                              bool avoidPrimary, const BeforeCommitHook& beforeCommit)
{
    SidecarSaveResult r;
    const QByteArray bytes = sidecarToJson(data, trace);
    QString error;
    bool abandoned = false;
    const BeforeCommitHook hook = [&] {
        abandoned = beforeCommit && !beforeCommit();
        return !abandoned;
    };
    if (!avoidPrimary) {
        r.path = sidecarPathFor(tracePath);
        if (writeFileAtomically(r.path, bytes, &error, hook)) {
            r.ok = true;
            // A stale fallback copy would otherwise win on the next load if it were newer.
            QFile::remove(fallbackSidecarPathFor(tracePath));
            return r;
        }
        if (abandoned) {
            r.message = error;
            return r;
        }
    }
    const QString fallback = fallbackSidecarPathFor(tracePath);
    QDir().mkpath(QFileInfo(fallback).absolutePath());
    QString fallbackError;
    if (writeFileAtomically(fallback, bytes, &fallbackError, hook)) {
        r.ok = true;
        r.path = fallback;
        r.usedFallback = true;
        return r;
    }
    r.path = fallback;
    r.message = avoidPrimary ? fallbackError
                             : QString("%1 (%2); %3 (%4)")
                                   .arg(sidecarPathFor(tracePath), error, fallback, fallbackError);
    return r;
}

} // namespace rs
