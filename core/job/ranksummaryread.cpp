#include "core/job/ranksummary.h"

#include "core/analysis/reportfields.h"
#include "core/bytesource.h"
#include "core/job/ranksummaryschema.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <cmath>
#include <map>

// Rank summaries read: the one-pass reader (rankSummaryFromText, readRankSummary[Slim]) through
// the field tables, the summary files (FileBytes: mapped, or inflated when gzip) and their
// discovery (findRankSummaries, isRankSummaryPath, sortByRank). The writer: ranksummary.cpp.

namespace rs {

using namespace summaryschema;

namespace {

// ---- Reading in one pass: the summary's text walked with the project's tokenizer straight into
// the report (or, slim, into what the cross-rank match reads) through the field tables
// (core/analysis/reportfields.h), every field's JSON type checked (tst_ranksummary compares it
// with the document reader kept in tests/support/summaryoracle.h, on every field given every
// JSON type). No document is built.

using namespace fields;

// What one pass gives: the report (full) or the slim rank, and why it was refused.
struct TextRead {
    std::string error;
    std::shared_ptr<AnalysisReport> report;
    std::shared_ptr<TraceFacts> facts;
    JobRank slim;
    std::uint64_t bad = 0;
    std::map<std::string, std::uint64_t> badKeys;
};

TextRead readText(std::string_view text, bool slim)
{
    TextRead out;
    auto rep = std::make_shared<AnalysisReport>();
    auto facts = std::make_shared<TraceFacts>();
    JsonFieldReader rd(text.data(), text.data() + text.size(), slim);
    const JsonPath root;
    ReadContext ctx;
    std::optional<std::string> schema;
    bool schemaString = false;
    // Checked once every section is read: they may come in any order.
    std::vector<std::vector<MatrixEntry>> linkSets; // link_sets
    std::vector<std::pair<MatrixEntry, std::size_t>> matrixHeads;
    try {
        const char* notObject = rd.document([&](std::string_view key) {
            if (key == "schema") {
                schemaString = rd.peek() == '"';
                if (schemaString) {
                    schema = std::string(rd.scalar().text.view());
                } else {
                    schema.reset();
                    rd.skip();
                }
                return;
            }
            if (key == "trace") return readObject<kTraceFactsFields>(rd, *facts, root, key, ctx);
            if (key == "options")
                return readObject<kOptionsFields>(rd, rep->options, root, key, ctx);
            if (key == "collectives")
                return readList<kCollectiveFields>(rd, rep->collectives, root, key, ctx);
            if (key == "signatures")
                return readList<kSignatureFields>(rd, rep->signatures, root, key, ctx);
            if (key == "path_pieces")
                return readList<kPathPieceFields>(rd, rep->pathPieces, root, key, ctx);
            if (key == "groups") return readList<kCommGroupFields>(rd, rep->groups, root, key, ctx);
            if (rd.slim()) return rd.skip();
            if (key == "bad_fields") return rd.integer(rep->badFields, root, key);
            if (key == "warnings")
                return Value<std::vector<std::string>>::read(rd, rep->warnings, root, key);
            if (key == "steps") return readList<kStepFields>(rd, rep->steps, root, key, ctx);
            if (key == "findings")
                return readList<kFindingFields>(rd, rep->findings, root, key, ctx);
            if (key == "events") {
                // [id, name, start_ns, dur_ns]
                facts->slices.clear();
                const JsonPath element{&root, key, true};
                return rd.array(root, key, [&](std::size_t) {
                    const auto e = rd.tuple();
                    if (!e || e->size() != 4 || (*e)[0].kind != JsonScalar::UInt ||
                        (*e)[0].bits >= kNone || (*e)[1].kind != JsonScalar::String ||
                        !JsonFieldReader::isInt((*e)[2]) || !JsonFieldReader::isInt((*e)[3]))
                        return rd.wrong(element);
                    facts->slices.push_back(
                        {static_cast<EventId>((*e)[0].bits), rd.tupleText((*e)[1]),
                         JsonFieldReader::asInt64((*e)[2]), JsonFieldReader::asInt64((*e)[3])});
                });
            }
            if (key == "link_sets") {
                // [src, dst, transport, bytes, ns] or with a sixth element, GB/s (null: NaN).
                linkSets.clear();
                const JsonPath set{&root, key, true};
                const JsonPath link{&set, "", true};
                return rd.array(root, key, [&](std::size_t) {
                    linkSets.emplace_back();
                    if (rd.peek() != '[') {
                        rd.skip();
                        return rd.wrong(set);
                    }
                    rd.elements([&](std::size_t) {
                        const auto l = rd.tuple();
                        auto isInt = JsonFieldReader::isInt;
                        auto asInt64 = JsonFieldReader::asInt64;
                        auto isInt32 = [&](const JsonScalar& s) {
                            return asInt64(s) == static_cast<int>(asInt64(s));
                        };
                        if (!l || l->size() < 5 || l->size() > 6 || !isInt((*l)[0]) ||
                            !isInt((*l)[1]) || (*l)[2].kind != JsonScalar::String ||
                            (*l)[3].kind != JsonScalar::UInt || !isInt((*l)[4]) ||
                            (l->size() == 6 && (*l)[5].kind != JsonScalar::Int &&
                             (*l)[5].kind != JsonScalar::UInt &&
                             (*l)[5].kind != JsonScalar::Float &&
                             (*l)[5].kind != JsonScalar::Null) ||
                            !isInt32((*l)[0]) || !isInt32((*l)[1]))
                            return rd.wrong(link);
                        MatrixEntry m;
                        m.src = static_cast<int>(asInt64((*l)[0]));
                        m.dst = static_cast<int>(asInt64((*l)[1]));
                        m.transport = rd.tupleText((*l)[2]);
                        m.bytes = (*l)[3].bits;
                        m.ns = asInt64((*l)[4]);
                        if (l->size() == 6)
                            m.gbps = (*l)[5].kind == JsonScalar::Null
                                         ? NAN
                                         : JsonFieldReader::toDouble((*l)[5]);
                        else
                            m.gbps = m.ns > 0 ? double(m.bytes) / double(m.ns) : 0.0;
                        linkSets.back().push_back(std::move(m));
                    });
                });
            }
            if (key == "matrix") {
                // Heads of runs of links, each naming its link set (checked at the end).
                matrixHeads.clear();
                const JsonPath element{&root, key, true};
                return rd.array(root, key, [&](std::size_t) {
                    if (rd.peek() != '{') {
                        rd.skip();
                        return rd.wrong(element);
                    }
                    MatrixEntry head;
                    ReadContext links;
                    readMembers<kMatrixFields>(rd, head, element, links);
                    matrixHeads.emplace_back(std::move(head), links.index);
                });
            }
            rd.skip();
        });
        if (notObject) {
            out.error = notAnObjectError(notObject);
            return out;
        }
    } catch (const JsonFieldReader::Malformed&) {
        out.error = "not JSON (a cut or damaged summary?)";
        return out;
    }
    if (!schema || !schemaString) {
        out.error = noSchemaError();
        return out;
    }
    if (*schema != kRankSummarySchema) {
        out.error = otherSchemaError(*schema);
        return out;
    }

    // What needs every section: members against the collectives, collectives' signatures
    // against the signatures, matrix rows against the link sets.
    const JsonPath signature{&root, "signatures", true};
    const JsonPath member{&signature, "members", true};
    for (SignatureGroup& g : rep->signatures) {
        std::erase_if(g.members, [&](std::uint32_t m) {
            if (m < rep->collectives.size()) return false;
            rd.wrong(member);
            return true;
        });
    }
    const JsonPath collective{&root, "collectives", true};
    for (Collective& c : rep->collectives) {
        if (c.signature >= rep->signatures.size() && !rep->signatures.empty()) {
            rd.wrong(collective, "signature");
            c.signature = 0;
        }
    }
    if (slim) {
        out.slim.rank = facts->rank;
        out.slim.baseTimeNs = facts->baseTimeNs;
        out.slim.commGroups = std::move(rep->groups);
        out.slim.collectives.reserve(rep->collectives.size());
        for (const Collective& c : rep->collectives) {
            TimeNs fast = 0;
            if (c.signature < rep->signatures.size() && !rep->signatures[c.signature].modes.empty())
                fast = std::max<TimeNs>(0, rep->signatures[c.signature].modes.front().meanNs);
            out.slim.add(c, fast);
        }
        out.slim.pathPieces = std::move(rep->pathPieces);
        rep->pathPieces.clear();
        rep->collectives.clear();
        rep->collectives.shrink_to_fit();
        rep->signatures.clear();
    }
    std::sort(facts->slices.begin(), facts->slices.end(),
              [](const EventFacts& a, const EventFacts& b) { return a.id < b.id; });
    const JsonPath matrix{&root, "matrix", true};
    for (auto& [head, set] : matrixHeads) {
        if (set >= linkSets.size()) {
            rd.wrong(matrix, "links");
            continue;
        }
        summaryschema::expandMatrixLinks(head, linkSets[set], rep->matrix);
    }
    rep->facts = facts;
    out.facts = std::move(facts);
    out.report = std::move(rep);
    out.bad = rd.bad;
    out.badKeys = std::move(rd.badKeys);
    return out;
}

// A summary's text, whole: the file as mapped, or inflated (gzip) into memory.
class SummaryText {
public:
    std::string_view view() const { return m_view; }

    bool open(const std::string& file, std::string* error)
    {
        m_file = FileBytes::open(file, error);
        if (!m_file) return false;
        if (m_file->mapped()) {
            m_view = std::string_view(m_file->data(), static_cast<std::size_t>(m_file->fileSize()));
            // The tokenizer needs a byte after a number that ends the text.
            if (!m_view.empty() && m_view.back() >= '0' && m_view.back() <= '9') {
                m_own = std::string(m_view) + "\n";
                m_view = m_own;
                m_file.reset();
            }
            return true;
        }
        ByteSource& src = *m_file->stream();
        m_own.reserve(static_cast<std::size_t>(m_file->fileSize()) * (m_file->gzip() ? 6 : 1) + 2);
        char buf[1 << 16];
        for (std::size_t n; (n = src.read(buf, sizeof buf)) > 0;)
            m_own.append(buf, n);
        if (!src.error().empty()) {
            *error = src.error();
            return false;
        }
        m_own += '\n';
        m_view = m_own;
        m_file.reset();
        return true;
    }

private:
    std::unique_ptr<FileBytes> m_file;
    std::string m_own;
    std::string_view m_view;
};

RankSummaryRead fromTextRead(TextRead&& t)
{
    RankSummaryRead r;
    r.error = std::move(t.error);
    if (!r.error.empty()) return r;
    r.report = std::move(t.report);
    r.badFields = t.bad;
    r.warnings = badFieldWarnings(t.badKeys);
    return r;
}

} // namespace

namespace summaryschema {

std::vector<std::size_t> rankOrder(const std::vector<std::optional<int>>& declared)
{
    std::vector<std::pair<int, std::size_t>> keyed;
    keyed.reserve(declared.size());
    for (std::size_t i = 0; i < declared.size(); ++i)
        keyed.emplace_back(declared[i] ? *declared[i] : static_cast<int>(i), i);
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::size_t> order;
    order.reserve(keyed.size());
    for (const auto& [rank, i] : keyed)
        order.push_back(i);
    return order;
}

void expandMatrixLinks(const MatrixEntry& head, const std::vector<MatrixEntry>& links,
                       std::vector<MatrixEntry>& out)
{
    for (const MatrixEntry& l : links) {
        MatrixEntry m = head;
        m.src = l.src;
        m.dst = l.dst;
        m.transport = l.transport;
        m.bytes = l.bytes;
        m.ns = l.ns;
        m.gbps = l.gbps;
        out.push_back(std::move(m));
    }
}

} // namespace summaryschema

RankSummaryRead rankSummaryFromText(std::string_view text)
{
    // The tokenizer needs a byte after a number that ends the text.
    if (!text.empty() && (text.back() >= '0' && text.back() <= '9'))
        return fromTextRead(readText(std::string(text) + "\n", false));
    return fromTextRead(readText(text, false));
}

RankSummaryRead readRankSummary(const std::string& file)
{
    RankSummaryRead r;
    SummaryText text;
    std::string error;
    if (!text.open(file, &error)) {
        r.file = file;
        r.error = file + ": cannot read: " + error;
        return r;
    }
    r = fromTextRead(readText(text.view(), false));
    r.file = file;
    if (!r.error.empty()) r.error = file + ": " + r.error;
    return r;
}

RankSummarySlim readRankSummarySlim(const std::string& file)
{
    RankSummarySlim r;
    r.file = file;
    SummaryText text;
    std::string error;
    if (!text.open(file, &error)) {
        r.error = file + ": cannot read: " + error;
        return r;
    }
    TextRead t = readText(text.view(), true);
    if (!t.error.empty()) {
        r.error = file + ": " + t.error;
        return r;
    }
    r.rank = std::move(t.slim);
    r.options = t.report->options;
    return r;
}

std::vector<std::string> findRankSummaries(const std::vector<std::string>& paths,
                                           std::string* error)
{
    std::vector<std::string> out;
    for (const std::string& p : paths) {
        const QFileInfo info(QString::fromStdString(p));
        if (!info.exists()) {
            if (error && error->empty()) *error = p + ": no such file or directory";
            continue;
        }
        if (!info.isDir()) {
            out.push_back(p);
            continue;
        }
        QDir dir(info.absoluteFilePath());
        const QStringList names = dir.entryList(
            {QStringLiteral("*.ranksummary.json"), QStringLiteral("*.ranksummary.json.gz")},
            QDir::Files, QDir::Name);
        if (names.isEmpty() && error && error->empty())
            *error = p + ": no *.ranksummary.json[.gz] in this folder";
        for (const QString& n : names)
            out.push_back(dir.filePath(n).toStdString());
    }
    if (out.empty() && error && error->empty()) *error = "no summary given";
    return out;
}

bool isRankSummaryPath(const std::string& path)
{
    const QFileInfo info(QString::fromStdString(path));
    const QStringList patterns{QStringLiteral("*.ranksummary.json"),
                               QStringLiteral("*.ranksummary.json.gz")};
    if (info.isDir())
        return !QDir(info.absoluteFilePath()).entryList(patterns, QDir::Files).isEmpty();
    const QString name = info.fileName();
    return name.endsWith(QLatin1String(".ranksummary.json")) ||
           name.endsWith(QLatin1String(".ranksummary.json.gz"));
}

void sortByRank(std::vector<RankSummaryRead>& summaries)
{
    std::vector<std::optional<int>> declared;
    declared.reserve(summaries.size());
    for (const RankSummaryRead& s : summaries)
        declared.push_back(s.report ? reportRank(*s.report) : std::nullopt);
    std::vector<RankSummaryRead> sorted;
    sorted.reserve(summaries.size());
    for (std::size_t i : rankOrder(declared))
        sorted.push_back(std::move(summaries[i]));
    summaries = std::move(sorted);
}

} // namespace rs
