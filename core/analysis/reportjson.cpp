#include "core/analysis/reportjson.h"

#include "core/analysis/criticalpath.h"
#include "core/analysis/reportfields.h"
#include "core/traceloader.h"
#include "core/workpool.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <mutex>

namespace rs {

namespace {

// ---- The report as text, without a document: each element through its field table
// (reportfields.h), streamed; a merged job of thousands of ranks is gigabytes of JSON.

using namespace fields;

// Elements of the top-level sections sit two levels deep (in an array in the document).
constexpr int kElem = 2;
constexpr std::string_view kElemPad = "    ";

template <class T, std::size_t N>
void element(std::string& text, const T& x, const Table<T, N>& table, const WriteContext& ctx)
{
    JsonWriter w(text, true, kElem);
    writeObject(w, x, table, ctx);
}

void inputText(std::string& text, const std::string& path, const AnalysisReport& rep,
               const TraceFacts* facts)
{
    JsonWriter w(text, true, kElem);
    w.beginObject();
    w.key("bad_fields");
    w.integer(rep.badFields);
    w.key("events");
    w.integer(facts ? facts->events : std::uint64_t(0));
    // The process groups the trace describes (a Flight Recorder dump's): only when it has some,
    // so the reports of other traces stay as they were.
    if (!rep.groups.empty()) {
        w.key("groups");
        w.array(rep.groups.size(), [&](std::size_t i) {
            writeObject(w, rep.groups[i], kCommGroupFields, WriteContext{Report});
        });
    }
    w.key("path");
    w.string(path);
    w.key("producer");
    w.string(facts ? facts->producer : std::string("unknown"));
    w.key("rank");
    w.optInt(facts ? facts->rank : std::nullopt);
    w.key("warnings");
    const std::size_t traceWarnings = facts ? facts->warnings.size() : 0;
    w.array(traceWarnings + rep.warnings.size(), [&](std::size_t i) {
        w.string(i < traceWarnings ? facts->warnings[i] : rep.warnings[i - traceWarnings]);
    });
    w.endObject();
}

// A section's text, kept until its turn: in memory, and in a temporary file past a few MiB,
// so a report of thousands of ranks never sits in memory whole.
class Spool {
public:
    ~Spool()
    {
        if (m_file) std::fclose(m_file);
    }
    // Appends one input's elements (joined by ",\n").
    void add(const std::string& part)
    {
        if (part.empty()) return;
        if (m_any) m_buf += ",\n";
        m_buf += part;
        m_any = true;
        if (m_buf.size() > (8u << 20)) flush();
    }
    bool any() const { return m_any; }
    void copyTo(std::ostream& out)
    {
        if (m_file) {
            flush();
            std::rewind(m_file);
            std::vector<char> buf(1 << 20);
            for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), m_file)) > 0;)
                out.write(buf.data(), static_cast<std::streamsize>(n));
        }
        out << m_buf;
        m_buf.clear();
    }

private:
    void flush()
    {
        if (!m_file) m_file = std::tmpfile();
        if (!m_file) return; // no temporary file: keep it in memory
        if (std::fwrite(m_buf.data(), 1, m_buf.size(), m_file) != m_buf.size()) {
            std::fclose(m_file); // cannot happen on a working disk; keep the rest in memory
            m_file = nullptr;
            return;
        }
        m_buf.clear();
    }

    std::string m_buf;
    std::FILE* m_file = nullptr;
    bool m_any = false;
};

enum Section { kCriticalPath, kFindings, kInputs, kMatrix, kSignatures, kSteps, kKept };

} // namespace

void fields::writeEvent(JsonWriter& w, const TraceFacts* facts, EventId e, std::optional<int> rank)
{
    const EventFacts* s = facts ? facts->slice(e) : nullptr;
    if (!s) return w.null();
    w.beginObject();
    w.key("dur_ns");
    w.integer(s->dur);
    w.key("id");
    w.integer(e);
    w.key("name");
    w.string(s->name);
    if (rank) {
        w.key("rank");
        w.integer(*rank);
    }
    w.key("start_ns");
    w.integer(s->start);
    w.endObject();
}

void writeReportJson(std::ostream& out, std::size_t count, const ReportInputSource& input,
                     const JobReport* job)
{
    // One input at a time, in batches whose inputs are written in parallel: the collectives go
    // out at once, the other sections are spooled until their turn (the document's order:
    // collectives, cross_rank, findings, inputs, matrix, options, schema, signatures, steps).
    // The evidence of a job finding is in its rank's facts: written as that rank passes.
    const std::size_t nJob = job ? job->findings.size() : 0;
    std::vector<std::vector<std::pair<std::size_t, std::string>>> jobEvents(nJob);
    std::mutex eventsMutex;
    auto jobEvidence = [&](std::size_t r, const AnalysisReport& rep) {
        if (!(rep.trace || rep.facts)) return;
        std::optional<TraceFacts> own; // from the trace; a summary's are used as they are
        const TraceFacts* facts = rep.trace ? nullptr : rep.facts.get();
        for (std::size_t f = 0; f < nJob; ++f) {
            const Finding& x = job->findings[f];
            if (!x.eventsRank || job->rankIds[r] != *x.eventsRank) continue;
            if (!facts) facts = &own.emplace(traceFacts(rep));
            for (EventId e : x.events) {
                // At the depth of an element of the finding's "events".
                std::string text;
                JsonWriter w(text, true, kElem + 2);
                writeEvent(w, facts, e, *x.eventsRank);
                std::lock_guard lock(eventsMutex);
                jobEvents[f].emplace_back(r, std::move(text));
            }
        }
    };
    // Ranks of the job whose report it holds; the others' (a slim match) come with the inputs.
    if (job) {
        for (std::size_t r = 0; r < job->ranks.size() && r < job->rankIds.size(); ++r)
            if (job->ranks[r]) jobEvidence(r, *job->ranks[r]);
    }

    Spool kept[kKept];
    AnalysisOptions options;
    bool anyCollective = false;
    out << "{\n  \"collectives\": [";
    const std::size_t batch =
        std::max<std::size_t>(16, 8 * static_cast<std::size_t>(WorkPool::global().threadCount()));
    // Kept from batch to batch: a fresh megabyte buffer per input costs page faults.
    std::vector<std::string> collectives(std::min(batch, count));
    std::vector<std::array<std::string, kKept>> sections(collectives.size());
    std::vector<AnalysisOptions> inputOptions(collectives.size());
    for (std::size_t b = 0; b < count; b += batch) {
        const std::size_t n = std::min(batch, count - b);
        for (std::size_t k = 0; k < n; ++k) {
            collectives[k].clear();
            for (std::string& x : sections[k])
                x.clear();
        }
        parallelFor(n, [&](std::size_t k) {
            const std::size_t i = b + k;
            const ReportInput in = input(i);
            const AnalysisReport& rep = *in.report;
            inputOptions[k] = rep.options;
            // The trace's facts: from the trace, or as a rank summary carries them (same output).
            const bool known = rep.trace || rep.facts;
            const TraceFacts facts = rep.trace ? traceFacts(rep) : TraceFacts{};
            const TraceFacts* f = !known ? nullptr : rep.trace ? &facts : rep.facts.get();
            if (job && i < job->ranks.size() && !job->ranks[i] && i < job->rankIds.size())
                jobEvidence(i, rep);
            const WriteContext ctx{Report, i, f};
            auto each = [&](std::string& text, const auto& list, const auto& table) {
                for (const auto& x : list) {
                    if (!text.empty()) text += ",\n";
                    text += kElemPad;
                    element(text, x, table, ctx);
                }
            };
            collectives[k].reserve(rep.collectives.size() * 2048);
            each(collectives[k], rep.collectives, kCollectiveFields);
            std::string& inputs = sections[k][kInputs];
            inputs += kElemPad;
            inputText(inputs, in.path, rep, f);
            each(sections[k][kSignatures], rep.signatures, kSignatureFields);
            each(sections[k][kMatrix], rep.matrix, kMatrixFields);
            each(sections[k][kSteps], rep.steps, kStepFields);
            each(sections[k][kFindings], rep.findings, kFindingFields);
            // A job's path is the job's (below); an input alone has its own.
            if (!job) each(sections[k][kCriticalPath], rankCriticalPath(rep), kStepPathFields);
        });
        for (std::size_t k = 0; k < n; ++k) {
            if (!collectives[k].empty()) {
                out << (anyCollective ? ",\n" : "\n") << collectives[k];
                anyCollective = true;
            }
            for (int s = 0; s < kKept; ++s)
                kept[s].add(sections[k][s]);
            options = inputOptions[k];
        }
    }
    out << (anyCollective ? "\n  ]" : "]");

    std::string jobPath;
    if (job) {
        for (const StepPath& p : job->criticalPath) {
            if (!jobPath.empty()) jobPath += ",\n";
            jobPath += kElemPad;
            element(jobPath, p, kStepPathFields, WriteContext{Job});
        }
    }

    auto writeKept = [&](const char* name, Spool& spool, const std::string& tail) {
        out << ",\n  \"" << name << "\": [";
        const bool any = spool.any() || !tail.empty();
        if (any) out << '\n';
        spool.copyTo(out);
        if (!tail.empty()) out << (spool.any() ? ",\n" : "") << tail;
        out << (any ? "\n  ]" : "]");
    };
    writeKept("critical_path", kept[kCriticalPath], jobPath);

    // cross_rank: written in slices of instances, each slice's text made in parallel.
    out << ",\n  \"cross_rank\": [";
    const std::size_t nCross = job ? job->collectives.size() : 0;
    for (std::size_t b = 0; b < nCross; b += 256) {
        const std::size_t n = std::min<std::size_t>(256, nCross - b);
        std::vector<std::string> text(n);
        parallelFor(n, [&](std::size_t k) {
            text[k] = b + k ? ",\n" : "\n";
            text[k] += kElemPad;
            element(text[k], job->collectives[b + k], kCrossRankFields, WriteContext{Job});
        });
        for (const std::string& x : text)
            out << x;
    }
    out << (nCross ? "\n  ]" : "]");

    std::string jobFindings;
    for (std::size_t f = 0; f < nJob; ++f) {
        auto& ev = jobEvents[f];
        std::stable_sort(ev.begin(), ev.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<std::string> texts;
        for (auto& [r, text] : ev)
            texts.push_back(std::move(text));
        if (!jobFindings.empty()) jobFindings += ",\n";
        jobFindings += kElemPad;
        WriteContext ctx{Job};
        ctx.evidence = &texts;
        element(jobFindings, job->findings[f], kFindingFields, ctx);
    }
    writeKept("findings", kept[kFindings], jobFindings);
    writeKept("inputs", kept[kInputs], {});
    writeKept("matrix", kept[kMatrix], {});
    std::string opt;
    JsonWriter ow(opt, true, 1);
    writeObject(ow, options, kOptionsFields, WriteContext{Report});
    out << ",\n  \"options\": " << opt;
    out << ",\n  \"schema\": \"ringscope.report/1\"";
    writeKept("signatures", kept[kSignatures], {});
    writeKept("steps", kept[kSteps], {});
    out << "\n}\n";
}

void writeReportJson(std::ostream& out, const std::vector<ReportInput>& inputs,
                     const JobReport* job)
{
    writeReportJson(
        out, inputs.size(), [&](std::size_t i) { return inputs[i]; }, job);
}

std::optional<Severity> worstSeverity(const std::vector<ReportInput>& inputs, const JobReport* job)
{
    std::optional<Severity> worst;
    if (job) {
        for (const Finding& f : job->findings)
            if (!worst || f.severity > *worst) worst = f.severity;
    }
    for (const ReportInput& in : inputs) {
        for (const Finding& f : in.report->findings) {
            if (!worst || f.severity > *worst) worst = f.severity;
        }
    }
    return worst;
}

} // namespace rs
