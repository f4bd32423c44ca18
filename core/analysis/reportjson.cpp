#include "core/analysis/reportjson.h"

#include "core/traceloader.h"
#include "core/workpool.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

namespace rs {

namespace {

// ---- The report as text, without a document: what reportToJson(...).dump(2) prints, byte for
// byte (keys in nlohmann's sorted order, its number and string formats). A merged job of
// thousands of ranks is gigabytes of JSON; building it as a DOM cost most of the merge.

class Text {
public:
    explicit Text(std::string& s) : m_s(s) {}

    void pad(int n)
    {
        static constexpr std::string_view kSpaces = "                                ";
        for (; n > 0; n -= static_cast<int>(kSpaces.size()))
            m_s.append(kSpaces.data(), std::min<std::size_t>(kSpaces.size(), n));
    }
    void raw(std::string_view v) { m_s.append(v); }
    void null() { m_s += "null"; }
    void boolean(bool v) { m_s += v ? "true" : "false"; }
    template <class T>
    requires std::is_integral_v<T>
    void integer(T v)
    {
        char buf[24];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_s.append(buf, r.ptr);
    }
    void optInt(const std::optional<int>& v)
    {
        if (v)
            integer(*v);
        else
            null();
    }
    void real(double v)
    {
        // nlohmann's dump_float: non-finite as null, else its shortest round-trip form.
        if (!std::isfinite(v)) return null();
        char buf[64];
        char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, v);
        m_s.append(buf, end);
    }
    void string(std::string_view v)
    {
        m_s += '"';
        escaped(v);
        m_s += '"';
    }

    // An object's members at indent `ind` (of its opening line), keys given in sorted order.
    class Object {
    public:
        Object(Text& t, int ind) : m_t(t), m_ind(ind) { m_t.m_s += '{'; }
        Text& key(std::string_view k)
        {
            // ",\n" + indent + "\"key\": " in one append: this runs for every field.
            std::string& s = m_t.m_s;
            const auto ind = static_cast<std::size_t>(m_ind + 2);
            char buf[128];
            if (ind + k.size() + 6 > sizeof buf) {
                if (!m_first) s += ',';
                s += '\n';
                m_t.pad(m_ind + 2);
                s += '"';
                s.append(k);
                s.append("\": ", 3);
            } else {
                std::size_t n = 0;
                if (!m_first) buf[n++] = ',';
                buf[n++] = '\n';
                std::memset(buf + n, ' ', ind);
                n += ind;
                buf[n++] = '"';
                std::memcpy(buf + n, k.data(), k.size());
                n += k.size();
                std::memcpy(buf + n, "\": ", 3);
                n += 3;
                s.append(buf, n);
            }
            m_first = false;
            return m_t;
        }
        int inner() const { return m_ind + 2; }
        ~Object()
        {
            if (m_first) {
                m_t.m_s += '}';
                return;
            }
            m_t.m_s += '\n';
            m_t.pad(m_ind);
            m_t.m_s += '}';
        }

    private:
        Text& m_t;
        int m_ind;
        bool m_first = true;
    };

    // An array of n elements at indent ind: each(i) writes element i (after its indent).
    template <class F> void array(std::size_t n, int ind, F&& each)
    {
        if (n == 0) {
            m_s += "[]";
            return;
        }
        m_s += '[';
        for (std::size_t i = 0; i < n; ++i) {
            m_s += i ? ",\n" : "\n";
            pad(ind + 2);
            each(i);
        }
        m_s += '\n';
        pad(ind);
        m_s += ']';
    }
    void ints(const std::vector<int>& v, int ind)
    {
        array(v.size(), ind, [&](std::size_t i) { integer(v[i]); });
    }

private:
    static bool validUtf8(std::string_view v)
    {
        // RFC 3629's ranges, as nlohmann checks them when it dumps.
        const auto* p = reinterpret_cast<const unsigned char*>(v.data());
        const auto* e = p + v.size();
        while (p < e) {
            const unsigned c = *p;
            int n;
            unsigned lo = 0x80, hi = 0xBF;
            if (c < 0x80) {
                ++p;
                continue;
            }
            if (c >= 0xC2 && c <= 0xDF)
                n = 1;
            else if (c >= 0xE0 && c <= 0xEF) {
                n = 2;
                if (c == 0xE0) lo = 0xA0;
                if (c == 0xED) hi = 0x9F;
            } else if (c >= 0xF0 && c <= 0xF4) {
                n = 3;
                if (c == 0xF0) lo = 0x90;
                if (c == 0xF4) hi = 0x8F;
            } else
                return false;
            if (e - p <= n) return false;
            if (p[1] < lo || p[1] > hi) return false;
            for (int k = 2; k <= n; ++k)
                if (p[k] < 0x80 || p[k] > 0xBF) return false;
            p += n + 1;
        }
        return true;
    }

    void escaped(std::string_view v)
    {
        bool plain = true, ascii = true;
        for (const char ch : v) {
            const auto c = static_cast<unsigned char>(ch);
            if (c < 0x20 || c == '"' || c == '\\') plain = false;
            if (c >= 0x80) ascii = false;
        }
        if (!ascii && !validUtf8(v)) {
            // nlohmann refuses to dump it (type_error 316): so does this writer.
            const std::string dumped = nlohmann::json(std::string(v)).dump();
            m_s.append(dumped, 1, dumped.size() - 2);
            return;
        }
        if (plain) {
            m_s.append(v);
            return;
        }
        for (const char ch : v) {
            const auto c = static_cast<unsigned char>(ch);
            switch (c) {
            case '\b':
                m_s += "\\b";
                break;
            case '\t':
                m_s += "\\t";
                break;
            case '\n':
                m_s += "\\n";
                break;
            case '\f':
                m_s += "\\f";
                break;
            case '\r':
                m_s += "\\r";
                break;
            case '"':
                m_s += "\\\"";
                break;
            case '\\':
                m_s += "\\\\";
                break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    m_s += buf;
                } else {
                    m_s += ch;
                }
            }
        }
    }

    std::string& m_s;
};

// Elements of the top-level sections sit at indent 4 (in an array in the document).
constexpr int kElem = 4;

void collectiveText(Text& t, std::size_t input, const Collective& c)
{
    Text::Object o(t, kElem);
    const int in = o.inner();
    o.key("algbw_gbps").real(c.algbwGbps);
    o.key("algorithm").string(c.algorithm);
    o.key("anomalous").boolean(c.anomalous);
    o.key("busbw_gbps").real(c.busbwGbps);
    o.key("bytes").integer(c.bytes);
    o.key("count").integer(c.count);
    o.key("dtype").string(c.dtype);
    o.key("dur_ns").integer(c.dur);
    o.key("extra_memcpy_ns").integer(c.extraMemcpyNs);
    o.key("group").string(c.group);
    o.key("group_size").integer(c.groupSize);
    o.key("input").integer(input);
    o.key("kind").string(collectiveKindName(c.kind));
    if (c.link) {
        Text::Object l(o.key("link"), in);
        l.key("basis").string(c.link->basis);
        l.key("name").string(c.link->name);
        l.key("peak_gbps").real(c.link->peakGbps);
        l.key("utilization").real(c.link->utilization);
    } else {
        o.key("link").null();
    }
    o.key("memcpy_bytes").integer(c.memcpyBytes);
    o.key("memcpy_count").integer(c.memcpyCount);
    o.key("memcpy_ns").integer(c.memcpyNs);
    o.key("mode").optInt(c.mode);
    o.key("name").string(c.name);
    o.key("rank").optInt(c.rank);
    o.key("signature").integer(c.signature);
    o.key("start_ns").integer(c.start);
    o.key("step").optInt(c.step);
    if (c.timeInfo) {
        const CommTimeInfo& x = *c.timeInfo;
        Text::Object ti(o.key("time_info"), in);
        ti.key("elapse_ns").integer(x.elapseNs);
        ti.key("idle_ns").integer(x.idleNs);
        ti.key("master_plane").integer(x.masterPlane);
        ti.key("synchronization_ns").integer(x.synchronizationNs);
        ti.key("synchronization_ratio").real(x.synchronizationRatio);
        ti.key("transit_ns").integer(x.transitNs);
        ti.key("wait_ns").integer(x.waitNs);
        ti.key("wait_ratio").real(x.waitRatio);
    } else {
        o.key("time_info").null();
    }
    o.key("transfers").array(c.transfers.size(), in, [&](std::size_t i) {
        const TransferStat& x = c.transfers[i];
        Text::Object tr(t, in + 2);
        tr.key("bytes").integer(x.bytes);
        tr.key("gbps").real(x.gbps());
        tr.key("large_packet_ratio").real(x.largePacketRatio);
        tr.key("name").string(x.name);
        tr.key("ns").integer(x.ns);
        tr.key("peak_gbps").real(x.peakGbps);
        tr.key("tasks").integer(x.tasks);
        tr.key("utilization").real(x.utilization);
    });
    o.key("unaligned_count").integer(c.unalignedCount);
    o.key("verdict").string(c.verdict);
    o.key("wait_ns").integer(c.waitNs);
    o.key("waiting").boolean(c.waiting);
}

void signatureText(Text& t, std::size_t input, const SignatureGroup& g)
{
    Text::Object o(t, kElem);
    const int in = o.inner();
    o.key("baseline_memcpy_ns").integer(g.baselineMemcpyNs);
    o.key("input").integer(input);
    o.key("label").string(g.label);
    o.key("members").integer(g.members.size());
    o.key("modes").array(g.modes.size(), in, [&](std::size_t i) {
        const DurationMode& m = g.modes[i];
        Text::Object x(t, in + 2);
        x.key("max_ns").integer(m.maxNs);
        x.key("mean_ns").integer(m.meanNs);
        x.key("members").integer(m.members);
        x.key("min_ns").integer(m.minNs);
        x.key("with_extra_copy").integer(m.withExtraCopy);
    });
    o.key("summary").string(g.summary);
}

void matrixText(Text& t, std::size_t input, const MatrixEntry& m)
{
    Text::Object o(t, kElem);
    o.key("bytes").integer(m.bytes);
    o.key("dst").integer(m.dst);
    o.key("gbps").real(m.gbps);
    o.key("group").string(m.group);
    o.key("input").integer(input);
    o.key("ns").integer(m.ns);
    o.key("op_group").string(m.opGroup);
    if (m.opName)
        o.key("op_name").string(*m.opName);
    else
        o.key("op_name").null();
    o.key("rank").optInt(m.rank);
    o.key("src").integer(m.src);
    o.key("step").optInt(m.step);
    o.key("transport").string(m.transport);
}

void stepText(Text& t, std::size_t input, const StepStats& s)
{
    Text::Object o(t, kElem);
    o.key("communication_not_overlapped_ns").integer(s.communicationNotOverlapped);
    o.key("communication_ns").integer(s.communication);
    o.key("computing_ns").integer(s.computing);
    o.key("free_ns").integer(s.free);
    o.key("input").integer(input);
    o.key("internal_memcpy_ns").integer(s.internalMemcpy);
    o.key("overlapped_ns").integer(s.overlapped);
    o.key("rank").optInt(s.rank);
    o.key("step").integer(s.step);
}

// eventJson's object (with "rank" for a job finding's evidence), or null when not named.
void eventText(Text& t, const TraceFacts* facts, EventId e, int ind, std::optional<int> rank)
{
    const EventFacts* s = facts ? facts->slice(e) : nullptr;
    if (!s) return t.null();
    Text::Object o(t, ind);
    o.key("dur_ns").integer(s->dur);
    o.key("id").integer(e);
    o.key("name").string(s->name);
    if (rank) o.key("rank").integer(*rank);
    o.key("start_ns").integer(s->start);
}

void findingText(Text& t, std::size_t input, const Finding& f, const TraceFacts* facts)
{
    Text::Object o(t, kElem);
    const int in = o.inner();
    o.key("end_ns").integer(f.end);
    o.key("events").array(facts ? f.events.size() : 0, in, [&](std::size_t i) {
        eventText(t, facts, f.events[i], in + 2, std::nullopt);
    });
    o.key("input").integer(input);
    o.key("rank").optInt(f.rank);
    o.key("recommendation").string(f.recommendation);
    o.key("rule").string(f.rule);
    o.key("severity").string(severityName(f.severity));
    o.key("stack").array(f.stack.size(), in, [&](std::size_t i) {
        Text::Object x(t, in + 2);
        x.key("kind").string(f.stack[i].kind);
        x.key("text").string(f.stack[i].text);
    });
    o.key("start_ns").integer(f.start);
    o.key("title").string(f.title);
}

// A job finding; events: its evidence already written (eventText at indent 8), or none.
void jobFindingText(Text& t, const Finding& f, const std::vector<std::string>& events)
{
    Text::Object o(t, kElem);
    const int in = o.inner();
    o.key("end_ns").integer(f.end);
    o.key("events").array(events.size(), in, [&](std::size_t i) { t.raw(events[i]); });
    o.key("input").null();
    o.key("rank").null();
    o.key("ranks").ints(f.ranks, in);
    o.key("recommendation").string(f.recommendation);
    o.key("rule").string(f.rule);
    o.key("severity").string(severityName(f.severity));
    o.key("stack").raw("[]");
    o.key("start_ns").integer(f.start);
    o.key("step").optInt(f.step);
    o.key("title").string(f.title);
}

void inputText(Text& t, const std::string& path, const AnalysisReport& rep, const TraceFacts* facts)
{
    Text::Object o(t, kElem);
    const int in = o.inner();
    o.key("bad_fields").integer(rep.badFields);
    o.key("events").integer(facts ? facts->events : std::uint64_t(0));
    o.key("path").string(path);
    o.key("producer").string(facts ? facts->producer : std::string("unknown"));
    if (facts)
        o.key("rank").optInt(facts->rank);
    else
        o.key("rank").null();
    const std::size_t traceWarnings = facts ? facts->warnings.size() : 0;
    o.key("warnings").array(traceWarnings + rep.warnings.size(), in, [&](std::size_t i) {
        t.string(i < traceWarnings ? facts->warnings[i] : rep.warnings[i - traceWarnings]);
    });
}

void crossText(Text& t, const CrossRankCollective& c)
{
    Text::Object o(t, kElem);
    const int in = o.inner();
    o.key("cause").string(c.cause);
    o.key("delay_ns").integer(c.delayNs);
    o.key("delaying_rank").optInt(c.delayingRank);
    o.key("delaying_ranks").ints(c.delayingRanks, in);
    o.key("fastest_rank").integer(c.fastestRank);
    o.key("group").string(c.group);
    o.key("index").integer(c.index);
    o.key("kind").string(collectiveKindName(c.kind));
    o.key("name").string(c.name);
    o.key("ranks").array(c.ops.size(), in, [&](std::size_t i) {
        const RankOp& op = c.ops[i];
        Text::Object x(t, in + 2);
        x.key("end_ns").integer(op.end);
        x.key("extra_memcpy_ns").integer(op.extraMemcpyNs);
        x.key("rank").integer(op.rank);
        x.key("ready_ns").integer(op.ready);
        x.key("start_ns").integer(op.start);
        x.key("wait_ns").integer(op.waitNs);
    });
    o.key("slowest_rank").integer(c.slowestRank);
    o.key("start_skew_ns").integer(c.startSkew);
    o.key("step").optInt(c.step);
    o.key("wait_caused_ns").integer(c.waitCausedNs);
}

void optionsText(Text& t, const AnalysisOptions& opt)
{
    // The peaks in force: the defaults and what the options set.
    std::map<std::string, double> peaks;
    for (const char* n : {"HCCS", "RDMA", "PCIE"})
        peaks[n] = linkPeak(opt, n);
    for (const auto& [n, v] : opt.linkPeaks)
        peaks[n] = v;
    Text::Object o(t, 2);
    o.key("addr_align").integer(opt.addrAlign);
    {
        Text::Object p(o.key("link_peaks"), 4);
        for (const auto& [n, v] : peaks)
            p.key(n).real(v);
    }
    o.key("size_align").integer(opt.sizeAlign);
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

enum Section { kFindings, kInputs, kMatrix, kSignatures, kSteps, kKept };

} // namespace

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
                std::string text;
                Text t(text);
                eventText(t, facts, e, 8, *x.eventsRank);
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
            auto each = [](std::string& text, const auto& list, auto&& write) {
                for (const auto& x : list) {
                    if (!text.empty()) text += ",\n";
                    text.append(static_cast<std::size_t>(kElem), ' ');
                    Text t(text);
                    write(t, x);
                }
            };
            collectives[k].reserve(rep.collectives.size() * 2048);
            each(collectives[k], rep.collectives,
                 [&](Text& t, const Collective& c) { collectiveText(t, i, c); });
            std::string& inputs = sections[k][kInputs];
            inputs.append(static_cast<std::size_t>(kElem), ' ');
            Text it(inputs);
            inputText(it, in.path, rep, f);
            each(sections[k][kSignatures], rep.signatures,
                 [&](Text& t, const SignatureGroup& g) { signatureText(t, i, g); });
            each(sections[k][kMatrix], rep.matrix,
                 [&](Text& t, const MatrixEntry& m) { matrixText(t, i, m); });
            each(sections[k][kSteps], rep.steps,
                 [&](Text& t, const StepStats& s) { stepText(t, i, s); });
            each(sections[k][kFindings], rep.findings,
                 [&](Text& t, const Finding& x) { findingText(t, i, x, f); });
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

    // cross_rank: written in slices of instances, each slice's text made in parallel.
    out << ",\n  \"cross_rank\": [";
    const std::size_t nCross = job ? job->collectives.size() : 0;
    for (std::size_t b = 0; b < nCross; b += 256) {
        const std::size_t n = std::min<std::size_t>(256, nCross - b);
        std::vector<std::string> text(n);
        parallelFor(n, [&](std::size_t k) {
            text[k] = b + k ? ",\n" : "\n";
            text[k].append(static_cast<std::size_t>(kElem), ' ');
            Text t(text[k]);
            crossText(t, job->collectives[b + k]);
        });
        for (const std::string& x : text)
            out << x;
    }
    out << (nCross ? "\n  ]" : "]");

    auto writeKept = [&](const char* name, Spool& spool, const std::string& tail) {
        out << ",\n  \"" << name << "\": [";
        const bool any = spool.any() || !tail.empty();
        if (any) out << '\n';
        spool.copyTo(out);
        if (!tail.empty()) out << (spool.any() ? ",\n" : "") << tail;
        out << (any ? "\n  ]" : "]");
    };
    std::string jobFindings;
    for (std::size_t f = 0; f < nJob; ++f) {
        auto& ev = jobEvents[f];
        std::stable_sort(ev.begin(), ev.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<std::string> texts;
        for (auto& [r, text] : ev)
            texts.push_back(std::move(text));
        if (!jobFindings.empty()) jobFindings += ",\n";
        jobFindings.append(static_cast<std::size_t>(kElem), ' ');
        Text t(jobFindings);
        jobFindingText(t, job->findings[f], texts);
    }
    writeKept("findings", kept[kFindings], jobFindings);
    writeKept("inputs", kept[kInputs], {});
    writeKept("matrix", kept[kMatrix], {});
    std::string opt;
    Text ot(opt);
    optionsText(ot, options);
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
