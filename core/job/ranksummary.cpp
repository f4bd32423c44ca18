#include "core/job/ranksummary.h"

#include "core/analysis/reportfields.h"
#include "core/job/ranksummaryschema.h"
#include "core/producers/registry.h"

#include <QSaveFile>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <zlib.h>

// The schema of ringscope.ranksummary/1: the writer (rankSummaryText, writeRankSummary, through
// the field tables of core/analysis/reportfields.h) and what the reader shares
// (ranksummaryschema.h). The one-pass reader, file reading and discovery: ranksummaryread.cpp;
// the merge: ranksummarymerge.cpp.

namespace rs {

namespace summaryschema {

CollectiveKind kindFromName(const std::string& s)
{
    for (int k = 0; k <= static_cast<int>(CollectiveKind::Other); ++k) {
        const auto kind = static_cast<CollectiveKind>(k);
        if (s == collectiveKindName(kind)) return kind;
    }
    return CollectiveKind::Other;
}

Severity severityFromName(const std::string& s)
{
    if (s == "error") return Severity::Error;
    if (s == "info") return Severity::Info;
    return Severity::Warning;
}

// A producer's name as the registry knows it: a name it does not know reads "other".
std::string producerFromName(const std::string& s)
{
    return std::string(producers::byName(s).name());
}

std::string notAnObjectError(const std::string& type)
{
    return "not a ringscope rank summary (a JSON " + type + ", not an object)";
}

std::string noSchemaError()
{
    return "not a ringscope rank summary (no \"schema\"; it is written by `ringscope analyze "
           "RANK --summary-out FILE`)";
}

std::string otherSchemaError(const std::string& version)
{
    return "a " + version + " summary; this ringscope reads " + kRankSummarySchema +
           " only: merge with the ringscope that wrote it, or write the summary again with this "
           "one";
}

std::vector<std::string> badFieldWarnings(const std::map<std::string, std::uint64_t>& keys)
{
    std::vector<std::string> out;
    for (const auto& [key, n] : keys)
        out.push_back(std::to_string(n) + " field" + (n == 1 ? "" : "s") + " \"" + key +
                      "\" of the wrong JSON type, skipped");
    return out;
}

} // namespace summaryschema

using namespace summaryschema;

using namespace fields;

std::string rankSummaryText(const AnalysisReport& rep, const std::string& path)
{
    TraceFacts facts = traceFacts(rep);
    facts.path = path;
    std::string text;
    JsonWriter w(text, false);
    const WriteContext ctx{Summary};
    // A list of objects, each through its field table (core/analysis/reportfields.h).
    auto list = [&](std::string_view key, const auto& v, const auto& table) {
        w.key(key);
        w.array(v.size(), [&](std::size_t i) { writeObject(w, v[i], table, ctx); });
    };
    w.beginObject();
    w.key("bad_fields");
    w.integer(rep.badFields);
    list("collectives", rep.collectives, kCollectiveFields);
    // The events the report names: [id, name, start_ns, dur_ns].
    w.key("events");
    w.array(facts.slices.size(), [&](std::size_t i) {
        const EventFacts& e = facts.slices[i];
        w.tuple(e.id, e.name, e.start, e.dur);
    });
    list("findings", rep.findings, kFindingFields);
    // The process groups the trace describes (a Flight Recorder dump's): only when it has some.
    if (!rep.groups.empty()) list("groups", rep.groups, kCommGroupFields);
    // The matrix: one entry per run of links of one (rank, step, op group, op), its links a
    // list shared by every entry with the same links (top1 = middle = total with one op a
    // step, and steps alike): the rows would otherwise outweigh the rest of the summary.
    // A set of links: [src, dst, transport, bytes, ns], GB/s as a sixth element when it is not
    // what the reader recomputes.
    std::vector<std::string> linkSets;
    std::map<std::string, std::size_t, std::less<>> setIndex;
    std::vector<std::pair<std::size_t, std::size_t>> heads; // (matrix index, its link set)
    for (std::size_t i = 0; i < rep.matrix.size();) {
        const MatrixEntry& m = rep.matrix[i];
        std::size_t e = i;
        std::string links;
        JsonWriter l(links, false);
        l.beginArray();
        for (; e < rep.matrix.size(); ++e) {
            const MatrixEntry& x = rep.matrix[e];
            if (x.rank != m.rank || x.step != m.step || x.opGroup != m.opGroup ||
                x.group != m.group || x.opName != m.opName)
                break;
            l.item();
            const double computed = x.ns > 0 ? double(x.bytes) / double(x.ns) : 0.0;
            if (x.gbps == computed)
                l.tuple(x.src, x.dst, x.transport, x.bytes, x.ns);
            else
                l.tuple(x.src, x.dst, x.transport, x.bytes, x.ns, x.gbps);
        }
        l.endArray();
        auto [it, added] = setIndex.emplace(links, linkSets.size());
        if (added) linkSets.push_back(std::move(links));
        heads.emplace_back(i, it->second);
        i = e;
    }
    w.key("link_sets");
    w.array(linkSets.size(), [&](std::size_t i) { w.raw(linkSets[i]); });
    w.key("matrix");
    w.array(heads.size(), [&](std::size_t i) {
        WriteContext head{Summary};
        head.index = heads[i].second;
        writeObject(w, rep.matrix[heads[i].first], kMatrixFields, head);
    });
    w.key("options");
    writeObject(w, rep.options, kOptionsFields, ctx);
    list("path_pieces", rep.pathPieces, kPathPieceFields);
    w.key("schema");
    w.string(kRankSummarySchema);
    list("signatures", rep.signatures, kSignatureFields);
    list("steps", rep.steps, kStepFields);
    w.key("trace");
    writeObject(w, facts, kTraceFactsFields, ctx);
    w.key("warnings");
    Value<std::vector<std::string>>::write(w, rep.warnings);
    w.endObject();
    return text;
}

namespace {

// text replaced by its gzip (one member, as `gzip` writes).
bool gzipText(std::string& text)
{
    z_stream z{};
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return false;
    std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(text.data());
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END) return false;
    text = std::move(out);
    return true;
}

} // namespace

bool writeRankSummary(const ReportInput& input, const std::string& file, std::string* error)
{
    QSaveFile out(QString::fromStdString(file));
    if (!out.open(QIODevice::WriteOnly)) {
        if (error) *error = file + ": cannot write: " + out.errorString().toStdString();
        return false;
    }
    std::string text = rankSummaryText(*input.report, input.path) + "\n";
    if (file.size() > 3 && file.compare(file.size() - 3, 3, ".gz") == 0) {
        if (!gzipText(text)) {
            if (error) *error = file + ": cannot compress the summary";
            return false;
        }
    }
    if (out.write(text.data(), static_cast<qint64>(text.size())) !=
            static_cast<qint64>(text.size()) ||
        !out.commit()) {
        if (error) *error = file + ": cannot write: " + out.errorString().toStdString();
        return false;
    }
    return true;
}

} // namespace rs
