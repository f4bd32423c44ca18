#include "core/annotations/findingannotations.h"

#include "core/analysis/analyzer.h"
#include "core/analysis/presentation.h"
#include "core/job/collectivecalls.h"

#include <algorithm>
#include <cstdio>

namespace rs {

namespace {

bool isCallRule(const std::string& rule)
{
    return rule == MissingCollective::kRule || rule == MismatchedCollective::kRule;
}

const Finding* findingOf(const AnalysisReport& report, const Collective& c)
{
    // In a job the job finding (no stack) names the same op: the rank's own finding, which has
    // the call stack to the source frame, comes first.
    for (const Finding& f : report.findings)
        if (!f.events.empty() && f.events.front() == c.event && !f.stack.empty()) return &f;
    for (const Finding& f : report.findings)
        if (!f.events.empty() && f.events.front() == c.event) return &f;
    for (const Finding& f : report.findings)
        if (std::find(f.events.begin(), f.events.end(), c.event) != f.events.end()) return &f;
    return nullptr;
}

// The stack entry naming the user's code: the analyzer's choice, matched back to its entry
// so the note can sit on that slice when there is one.
const StackEntry* sourceEntry(const std::vector<StackEntry>& stack, const std::string& frame)
{
    if (frame.empty()) return nullptr;
    for (const StackEntry& e : stack)
        if (e.text == frame) return &e;
    return nullptr;
}

std::string rankWords(const std::vector<int>& ranks)
{
    std::string s = ranks.size() > 1 ? "ranks " : "rank ";
    for (std::size_t i = 0; i < ranks.size(); ++i)
        s += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[i]);
    return s;
}

// The call findings (collective-missing, collective-mismatch): the first by time is the root
// of a hang, drawn so on its evidence (a waiting member's call); the later ones as what
// followed.
void callAnnotations(const AnalysisReport& report, bool job, std::vector<Annotation>& out)
{
    const Trace& trace = *report.trace;
    const Finding* root = nullptr;
    // Only numbered calls (a dump's) stop a job; a profiled collective's mismatch did not.
    for (const Finding& f : report.findings)
        if (isCallRule(f.rule) && f.seq && (!root || f.start < root->start)) root = &f;
    for (const Finding& f : report.findings) {
        if (!isCallRule(f.rule) || f.events.empty() || f.events.front() >= trace.slices().size())
            continue;
        const std::string call =
            callOpName(f.op) +
            (f.seq     ? " #" + std::to_string(*f.seq)
             : f.index ? " #" + std::to_string(*f.index)
                       : "") +
            " of " + (f.groupDesc.empty() ? "group " + f.group : f.groupDesc + " " + f.group) +
            (!f.seq && f.step ? " in step " + std::to_string(*f.step) : "");
        std::string text = !f.seq ? "" : &f == root ? "ROOT: " : "then: ";
        if (f.rule == MissingCollective::kRule) {
            text += rankWords(f.missingRanks) + " never entered\n" + call;
            if (f.waitedNs)
                text += "\n" + rankWords(f.waitingRanks) + " waited " + formatDuration(*f.waitedNs);
        } else {
            std::vector<int> bad;
            for (int r : f.ranks)
                if (std::find(f.matchingRanks.begin(), f.matchingRanks.end(), r) ==
                    f.matchingRanks.end())
                    bad.push_back(r);
            text += rankWords(bad) + " called another " +
                    (f.mismatch == "count" ? std::string("element count") : f.mismatch) + "\nat " +
                    call;
        }
        if (job && f.eventsRank)
            text = "Rank " + std::to_string(*f.eventsRank) + " \xc2\xb7 " + text;
        Annotation note;
        note.kind = AnnotationKind::Note;
        note.text = text;
        note.event = makeEventRef(trace, f.events.front());
        note.color = &f == root ? kColourAnomaly : kColourExtraCopy;
        note.rule = f.rule;
        out.push_back(note);
    }
}

} // namespace

std::vector<Annotation> findingAnnotations(const AnalysisReport& report, std::size_t maxCollectives)
{
    std::vector<Annotation> out;
    if (!report.trace) return out;
    const Trace& trace = *report.trace;
    // In a job's merged trace every label says whose it is.
    const nlohmann::json& md = trace.metadata();
    const bool job =
        md.is_object() && md.contains("ranks") && md["ranks"].is_array() && md["ranks"].size() > 1;
    std::size_t done = 0;
    for (const Collective& c : report.collectives) {
        if (!c.anomalous || c.event == kNone || c.event >= trace.slices().size()) continue;
        if (maxCollectives && done >= maxCollectives) break;
        ++done;
        const Finding* finding = findingOf(report, c);
        const std::string rule = finding ? finding->rule : "collective-internal-memcpy";

        TimeNs extraNs = 0;
        for (const InternalCopy& copy : c.copies)
            if (copy.extra) extraNs += copy.dur;
        if (extraNs == 0 && c.signature < report.signatures.size())
            extraNs =
                std::max<TimeNs>(0, c.memcpyNs - report.signatures[c.signature].baselineMemcpyNs);

        const std::string who =
            job && c.rank ? "Rank " + std::to_string(*c.rank) + " \xc2\xb7 " : "";
        std::string text = who + collectiveKindName(c.kind);
        if (c.mode) {
            text += " mode " + modeLetter(*c.mode) + ": " + formatDuration(c.dur);
            if (c.signature < report.signatures.size()) {
                const auto& modes = report.signatures[c.signature].modes;
                if (*c.mode > 0 && !modes.empty() && modes.front().meanNs > 0) {
                    char ratio[32];
                    std::snprintf(ratio, sizeof ratio, " = %.1fx mode A",
                                  double(c.dur) / double(modes.front().meanNs));
                    text += ratio;
                }
            }
        } else {
            text += ": " + formatDuration(c.dur);
        }
        if (extraNs > 0) text += "\nextra Memcpy " + formatDuration(extraNs);

        const std::string frame = finding ? sourceFrame(finding->stack) : std::string();
        const StackEntry* src = finding ? sourceEntry(finding->stack, frame) : nullptr;
        const bool srcIsSlice = src && src->event != kNone && src->event < trace.slices().size() &&
                                src->event != c.event;
        // Named on the op's own note too: the source's slice may be on a row the picture
        // leaves out (the compact job layout), and the frame is what the reader must change.
        if (!frame.empty()) text += "\ninput from " + frame;

        Annotation note;
        note.kind = AnnotationKind::Note;
        note.text = text;
        note.event = makeEventRef(trace, c.event);
        note.color = kColourAnomaly;
        note.rule = rule;
        out.push_back(note);

        for (const InternalCopy& copy : c.copies) {
            if (!copy.extra || copy.event == kNone || copy.event >= trace.slices().size()) continue;
            Annotation m;
            m.kind = AnnotationKind::Note;
            m.text = who + "extra " + trace.str(trace.slice(copy.event).name) + " " +
                     formatDuration(copy.dur);
            if (copy.bytes) {
                m.text += "\n" + formatCount(copy.bytes) + " B";
                if (copy.unalignedSize)
                    m.text += ", not a multiple of " + std::to_string(report.options.sizeAlign);
            }
            if (copy.unalignedAddress) {
                const std::string a =
                    presentation::misalignedAddress(copy, report.options.addrAlign);
                m.text +=
                    "\n" + (a.empty() ? "address not " + std::to_string(report.options.addrAlign) +
                                            "-byte aligned"
                                      : a);
            }
            m.event = makeEventRef(trace, copy.event);
            m.color = kColourExtraCopy;
            m.rule = rule;
            out.push_back(m);
        }

        if (srcIsSlice) {
            Annotation s;
            s.kind = AnnotationKind::Note;
            s.text = who + "input allocated here: " + frame;
            s.event = makeEventRef(trace, src->event);
            s.color = kColourSource;
            s.rule = rule;
            out.push_back(s);
            Annotation arrow;
            arrow.kind = AnnotationKind::Arrow;
            arrow.text = who + "misaligned input";
            arrow.event = s.event;
            arrow.target = note.event;
            arrow.color = kColourSource;
            arrow.rule = rule;
            out.push_back(arrow);
        }
    }
    callAnnotations(report, job, out);
    return out;
}

} // namespace rs
