#pragma once

// The field tables of the report's structs (core/fieldtable.h): what ringscope.report/1
// (reportjson.cpp) and ringscope.ranksummary/1 (core/job/ranksummary*.cpp) write of each and
// how a summary reads it back, one line a field. To add a field: its line here (in key order,
// with the formats that have it), then docs/report-format.md; the golden files
// (tests/data/golden/cli) show the change.

#include "core/analysis/report.h"
#include "core/fieldtable.h"
#include "core/job/crossrank.h"
#include "core/job/ranksummaryschema.h"

#include <map>

namespace rs::fields {

inline constexpr std::uint8_t R = Report, J = Job, S = Summary, RS = Report | Summary;

// The input's index (Report), where an element of the report's flat sections came from.
template <class T> constexpr Field<T> inputIndex()
{
    return {"input", Report, nullptr,
            [](JsonWriter& w, const T&, const WriteContext& ctx) { w.integer(ctx.index); }};
}

// A name read back through fromName (an unknown one reads as its default).
template <auto M, auto NameOf, auto FromName>
constexpr auto named(std::string_view key, std::uint8_t flags)
{
    using T = typename MemberOf<decltype(M)>::Struct;
    return Field<T>{
        key, flags, nullptr,
        [](JsonWriter& w, const T& s, const WriteContext&) { w.string(NameOf(s.*M)); },
        [](JsonFieldReader& rd, T& s, const JsonPath& at, std::string_view k, ReadContext&) {
            std::string name;
            rd.text(name, at, k);
            s.*M = FromName(name);
        }};
}

inline constexpr auto kTransferFields = std::to_array<Field<TransferStat>>({
    member<&TransferStat::bytes>("bytes", RS),
    {"gbps", R, nullptr,
     [](JsonWriter& w, const TransferStat& x, const WriteContext&) { w.real(x.gbps()); }},
    member<&TransferStat::largePacketRatio>("large_packet_ratio", RS),
    member<&TransferStat::name>("name", RS | Always),
    member<&TransferStat::ns>("ns", RS),
    member<&TransferStat::peakGbps>("peak_gbps", RS),
    member<&TransferStat::tasks>("tasks", RS),
    member<&TransferStat::utilization>("utilization", RS),
});
static_assert(sortedByKey(kTransferFields));

inline constexpr auto kTimeInfoFields = std::to_array<Field<CommTimeInfo>>({
    member<&CommTimeInfo::elapseNs>("elapse_ns", RS | Always),
    member<&CommTimeInfo::idleNs>("idle_ns", RS | Always),
    member<&CommTimeInfo::masterPlane>("master_plane", RS | Always),
    member<&CommTimeInfo::synchronizationNs>("synchronization_ns", RS | Always),
    member<&CommTimeInfo::synchronizationRatio>("synchronization_ratio", RS | Always),
    member<&CommTimeInfo::transitNs>("transit_ns", RS | Always),
    member<&CommTimeInfo::waitNs>("wait_ns", RS | Always),
    member<&CommTimeInfo::waitRatio>("wait_ratio", RS | Always),
});
static_assert(sortedByKey(kTimeInfoFields));

inline constexpr auto kLinkFields = std::to_array<Field<LinkAssumption>>({
    member<&LinkAssumption::basis>("basis", RS | Always),
    member<&LinkAssumption::name>("name", RS | Always),
    member<&LinkAssumption::peakGbps>("peak_gbps", RS),
    member<&LinkAssumption::utilization>("utilization", RS),
});
static_assert(sortedByKey(kLinkFields));

// A recorded call's state: "scheduled", "started", "completed" (a profiled op has none: left
// out of the report too).
inline constexpr Field<Collective> kCallStateField{
    "state", RS | Sparse | Slim, [](const Collective& c) { return c.state == CallState::None; },
    [](JsonWriter& w, const Collective& c, const WriteContext&) {
        w.string(callStateName(c.state));
    },
    [](JsonFieldReader& rd, Collective& c, const JsonPath& at, std::string_view k, ReadContext&) {
        std::string name;
        rd.text(name, at, k);
        c.state = callStateFromName(name);
    }};

inline constexpr auto kCollectiveFields = std::to_array<Field<Collective>>({
    member<&Collective::algbwGbps>("algbw_gbps", RS),
    member<&Collective::algorithm>("algorithm", RS),
    member<&Collective::anomalous>("anomalous", RS),
    member<&Collective::busbwGbps>("busbw_gbps", RS),
    member<&Collective::bytes>("bytes", RS),
    member<&Collective::count>("count", RS | Slim),
    member<&Collective::dtype>("dtype", RS | Slim),
    member<&Collective::dur>("dur_ns", RS | Always | Slim),
    eventId<&Collective::event>("event", S | Slim),
    member<&Collective::extraMemcpyNs>("extra_memcpy_ns", RS | Slim),
    member<&Collective::group>("group", RS | Slim),
    member<&Collective::groupDesc>("group_desc", RS | Sparse | Slim),
    member<&Collective::groupRanks>("group_ranks", RS | Sparse | Slim),
    member<&Collective::groupSize>("group_size", RS),
    eventId<&Collective::hostEvent>("host_event", S),
    inputIndex<Collective>(),
    member<&Collective::inputDtypes>("input_dtypes", RS | Sparse | Slim),
    member<&Collective::inputSizes>("input_sizes", RS | Sparse | Slim),
    named<&Collective::kind, collectiveKindName, summaryschema::kindFromName>("kind",
                                                                              RS | Always | Slim),
    object<&Collective::link, kLinkFields>("link", RS),
    member<&Collective::memcpyBytes>("memcpy_bytes", RS),
    member<&Collective::memcpyCount>("memcpy_count", RS),
    member<&Collective::memcpyNs>("memcpy_ns", RS),
    member<&Collective::mode>("mode", RS),
    member<&Collective::name>("name", RS | Slim),
    member<&Collective::outputDtypes>("output_dtypes", RS | Sparse | Slim),
    member<&Collective::outputSizes>("output_sizes", RS | Sparse | Slim),
    member<&Collective::rank>("rank", RS),
    member<&Collective::seq>("seq", RS | Sparse | Slim),
    member<&Collective::signature>("signature", RS | Slim),
    member<&Collective::start>("start_ns", RS | Always | Slim),
    kCallStateField,
    member<&Collective::step>("step", RS | Slim),
    object<&Collective::timeInfo, kTimeInfoFields>("time_info", RS),
    member<&Collective::timeoutMs>("timeout_ms", RS | Sparse | Slim),
    objects<&Collective::transfers, kTransferFields>("transfers", RS),
    member<&Collective::unalignedCount>("unaligned_count", RS),
    member<&Collective::verdict>("verdict", RS),
    member<&Collective::waitNs>("wait_ns", RS | Slim),
    member<&Collective::waiting>("waiting", RS),
});
static_assert(sortedByKey(kCollectiveFields));

inline constexpr auto kModeFields = std::to_array<Field<DurationMode>>({
    member<&DurationMode::maxNs>("max_ns", R),
    member<&DurationMode::meanNs>("mean_ns", R),
    member<&DurationMode::members>("members", R),
    member<&DurationMode::minNs>("min_ns", R),
    member<&DurationMode::withExtraCopy>("with_extra_copy", R),
});
static_assert(sortedByKey(kModeFields));

// A summary's "members" as read: an index that is no unsigned 32-bit number is kept as this,
// and every index is checked against the collectives once the whole summary is read.
inline constexpr std::uint32_t kBadMember = 0xffffffffu;

inline constexpr auto kSignatureFields = std::to_array<Field<SignatureGroup>>({
    member<&SignatureGroup::baselineMemcpyNs>("baseline_memcpy_ns", RS),
    inputIndex<SignatureGroup>(),
    member<&SignatureGroup::label>("label", RS | Always),
    {"members", R, nullptr,
     [](JsonWriter& w, const SignatureGroup& g, const WriteContext&) {
         w.integer(g.members.size());
     }},
    {"members", S | Always, nullptr,
     [](JsonWriter& w, const SignatureGroup& g, const WriteContext&) { w.integers(g.members); },
     [](JsonFieldReader& rd, SignatureGroup& g, const JsonPath& at, std::string_view k,
        ReadContext&) {
         g.members.clear();
         rd.scalars(at, k, [&](const JsonScalar& s) {
             g.members.push_back(s.kind == JsonScalar::UInt && s.bits < kBadMember
                                     ? static_cast<std::uint32_t>(s.bits)
                                     : kBadMember);
             return true;
         });
     }},
    objects<&SignatureGroup::modes, kModeFields>("modes", R),
    // [mean_ns, min_ns, max_ns, members, with_extra_copy]
    {"modes", S | Always | Slim, nullptr,
     [](JsonWriter& w, const SignatureGroup& g, const WriteContext&) {
         w.array(g.modes.size(), [&](std::size_t i) {
             const DurationMode& m = g.modes[i];
             w.tuple(m.meanNs, m.minNs, m.maxNs, m.members, m.withExtraCopy);
         });
     },
     [](JsonFieldReader& rd, SignatureGroup& g, const JsonPath& at, std::string_view k,
        ReadContext&) {
         g.modes.clear();
         const JsonPath element{&at, k, true};
         rd.array(at, k, [&](std::size_t) {
             const auto m = rd.tuple();
             if (!m || m->size() != 5 || !std::all_of(m->begin(), m->end(), JsonFieldReader::isInt))
                 return rd.wrong(element);
             auto at64 = [&](std::size_t i) { return JsonFieldReader::asInt64((*m)[i]); };
             g.modes.push_back(
                 {at64(0), at64(1), at64(2), static_cast<int>(at64(3)), static_cast<int>(at64(4))});
         });
     }},
    member<&SignatureGroup::summary>("summary", RS),
});
static_assert(sortedByKey(kSignatureFields));

inline constexpr auto kStepFields = std::to_array<Field<StepStats>>({
    member<&StepStats::busyEnd>("busy_end_ns", S),
    member<&StepStats::busyStart>("busy_start_ns", S),
    member<&StepStats::communicationNotOverlapped>("communication_not_overlapped_ns", RS),
    member<&StepStats::communication>("communication_ns", RS),
    member<&StepStats::computing>("computing_ns", RS),
    member<&StepStats::end>("end_ns", S | Always),
    eventId<&StepStats::event>("event", S),
    member<&StepStats::free>("free_ns", RS),
    inputIndex<StepStats>(),
    member<&StepStats::internalMemcpy>("internal_memcpy_ns", RS),
    member<&StepStats::overlapped>("overlapped_ns", RS),
    member<&StepStats::rank>("rank", RS),
    member<&StepStats::start>("start_ns", S | Always),
    member<&StepStats::step>("step", RS | Always),
});
static_assert(sortedByKey(kStepFields));

// The critical path (criticalpath.h): a segment in the report's "critical_path" (R, J) and in a
// rank summary's "path_pieces" (S).
inline constexpr auto kPathSegmentFields = std::to_array<Field<PathSegment>>({
    member<&PathSegment::end>("end_ns", All | Always | Slim),
    {"event", R | J, nullptr,
     [](JsonWriter& w, const PathSegment& x, const WriteContext&) {
         if (x.event == kNone)
             w.null();
         else
             w.integer(x.event);
     }},
    eventId<&PathSegment::event>("event", S | Slim),
    named<&PathSegment::kind, pathKindName, pathKindFromName>("kind", All | Always | Slim),
    member<&PathSegment::name>("name", All | Slim),
    member<&PathSegment::rank>("rank", R | J),
    member<&PathSegment::start>("start_ns", All | Always | Slim),
});
static_assert(sortedByKey(kPathSegmentFields));

inline constexpr auto kPathPieceFields = std::to_array<Field<PathPiece>>({
    member<&PathPiece::collective>("collective", S | Always | Slim),
    member<&PathPiece::floor>("floor_ns", S | Always | Slim),
    member<&PathPiece::from>("from_ns", S | Always | Slim),
    member<&PathPiece::reaches>("reaches", S | Always | Slim),
    objects<&PathPiece::segments, kPathSegmentFields>("segments", S | Slim),
    member<&PathPiece::step>("step", S | Always | Slim),
    member<&PathPiece::to>("to_ns", S | Always | Slim),
});
static_assert(sortedByKey(kPathPieceFields));

// by_kind: every kind, in key order, so the object has one shape.
inline constexpr auto kStepPathFields = std::to_array<Field<StepPath>>({
    {"by_kind", R | J, nullptr,
     [](JsonWriter& w, const StepPath& x, const WriteContext&) {
         static constexpr PathKind kOrder[] = {
             PathKind::Collective, PathKind::Compute,        PathKind::Copy,  PathKind::Host,
             PathKind::Idle,       PathKind::InternalMemcpy, PathKind::Launch};
         w.beginObject();
         for (PathKind k : kOrder) {
             w.key(pathKindName(k));
             w.integer(x.byKind[std::size_t(k)]);
         }
         w.endObject();
     }},
    member<&StepPath::end>("end_ns", R | J),
    objects<&StepPath::segments, kPathSegmentFields>("segments", R | J),
    member<&StepPath::start>("start_ns", R | J),
    member<&StepPath::step>("step", R | J),
});
static_assert(sortedByKey(kStepPathFields));

// An event a report names: {dur_ns, id, name[, rank], start_ns}, null when the facts do not
// name it.
void writeEvent(JsonWriter& w, const TraceFacts* facts, EventId e, std::optional<int> rank);

inline constexpr auto kSeenValueFields = std::to_array<Field<SeenValue>>({
    member<&SeenValue::ranks>("ranks", All | Always),
    member<&SeenValue::value>("value", All | Always),
});
static_assert(sortedByKey(kSeenValueFields));

inline constexpr auto kFindingFields = std::to_array<Field<Finding>>({
    member<&Finding::absentRanks>("absent_ranks", All | Sparse),
    member<&Finding::dtypes>("dtypes", All | Sparse),
    member<&Finding::emptyRanks>("empty_ranks", All | Sparse),
    member<&Finding::end>("end_ns", All | Always),
    {"events", R, nullptr,
     [](JsonWriter& w, const Finding& f, const WriteContext& ctx) {
         w.array(ctx.facts ? f.events.size() : 0,
                 [&](std::size_t i) { writeEvent(w, ctx.facts, f.events[i], std::nullopt); });
     }},
    {"events", J, nullptr,
     [](JsonWriter& w, const Finding&, const WriteContext& ctx) {
         const std::size_t n = ctx.evidence ? ctx.evidence->size() : 0;
         w.array(n, [&](std::size_t i) { w.raw((*ctx.evidence)[i]); });
     }},
    {"events", S, [](const Finding& f) { return f.events.empty(); },
     [](JsonWriter& w, const Finding& f, const WriteContext&) { w.integers(f.events); },
     [](JsonFieldReader& rd, Finding& f, const JsonPath& at, std::string_view k, ReadContext&) {
         f.events.clear();
         rd.scalars(at, k, [&](const JsonScalar& s) {
             if (s.kind != JsonScalar::UInt || s.bits >= kNone) return false;
             f.events.push_back(static_cast<EventId>(s.bits));
             return true;
         });
     }},
    member<&Finding::eventsRank>("events_rank", S),
    member<&Finding::gainNs>("gain_ns", All | Sparse),
    member<&Finding::group>("group", All | Sparse),
    member<&Finding::groupDesc>("group_desc", All | Sparse),
    member<&Finding::index>("index", All | Sparse),
    inputIndex<Finding>(),
    {"input", J, nullptr, [](JsonWriter& w, const Finding&, const WriteContext&) { w.null(); }},
    member<&Finding::matchingRanks>("matching_ranks", All | Sparse),
    member<&Finding::mismatch>("mismatch", All | Sparse),
    member<&Finding::missingRanks>("missing_ranks", All | Sparse),
    member<&Finding::op>("op", All | Sparse),
    member<&Finding::rank>("rank", RS),
    {"rank", J, nullptr, [](JsonWriter& w, const Finding&, const WriteContext&) { w.null(); }},
    member<&Finding::ranks>("ranks", J | S),
    member<&Finding::recommendation>("recommendation", All),
    member<&Finding::rule>("rule", All | Always),
    objects<&Finding::seen, kSeenValueFields>("seen", All | Sparse),
    member<&Finding::seq>("seq", All | Sparse),
    named<&Finding::severity, severityName, summaryschema::severityFromName>("severity",
                                                                              All | Always),
    member<&Finding::sizes>("sizes", All | Sparse),
    {"stack", R, nullptr,
     [](JsonWriter& w, const Finding& f, const WriteContext&) {
         w.array(f.stack.size(), [&](std::size_t i) {
             w.beginObject();
             w.key("kind");
             w.string(f.stack[i].kind);
             w.key("text");
             w.string(f.stack[i].text);
             w.endObject();
         });
     }},
    {"stack", J, nullptr, [](JsonWriter& w, const Finding&, const WriteContext&) { w.raw("[]"); }},
    // [text, kind] or [text, kind, event]
    {"stack", S, [](const Finding& f) { return f.stack.empty(); },
     [](JsonWriter& w, const Finding& f, const WriteContext&) {
         w.array(f.stack.size(), [&](std::size_t i) {
             const StackEntry& s = f.stack[i];
             if (s.event != kNone)
                 w.tuple(s.text, s.kind, s.event);
             else
                 w.tuple(s.text, s.kind);
         });
     },
     [](JsonFieldReader& rd, Finding& f, const JsonPath& at, std::string_view k, ReadContext&) {
         f.stack.clear();
         const JsonPath element{&at, k, true};
         rd.array(at, k, [&](std::size_t) {
             const auto e = rd.tuple();
             if (!e || e->size() < 2 || e->size() > 3 || (*e)[0].kind != JsonScalar::String ||
                 (*e)[1].kind != JsonScalar::String ||
                 (e->size() == 3 && (*e)[2].kind != JsonScalar::UInt))
                 return rd.wrong(element);
             StackEntry s;
             s.text = rd.tupleText((*e)[0]);
             s.kind = rd.tupleText((*e)[1]);
             if (e->size() == 3 && (*e)[2].bits < kNone) s.event = static_cast<EventId>((*e)[2].bits);
             f.stack.push_back(std::move(s));
         });
     }},
    member<&Finding::start>("start_ns", All | Always),
    member<&Finding::step>("step", J | S),
    member<&Finding::title>("title", All | Always),
    member<&Finding::waitedNs>("waited_ns", All | Sparse),
    member<&Finding::waitingRanks>("waiting_ranks", All | Sparse),
});
static_assert(sortedByKey(kFindingFields));

// A process group as a rank's trace describes it (AnalysisReport::groups): a report input's
// "groups", a summary's "groups".
inline constexpr auto kCommGroupFields = std::to_array<Field<CommGroup>>({
    member<&CommGroup::desc>("desc", RS | Slim),
    member<&CommGroup::lastCompleted>("last_completed", RS | Slim),
    member<&CommGroup::lastEnqueued>("last_enqueued", RS | Slim),
    member<&CommGroup::lastStarted>("last_started", RS | Slim),
    member<&CommGroup::name>("name", RS | Always | Slim),
    member<&CommGroup::ranks>("ranks", RS | Always | Slim),
});
static_assert(sortedByKey(kCommGroupFields));

// The report's options are the peaks in force (the defaults and what the options set), a
// summary's what the options set.
inline constexpr auto kOptionsFields = std::to_array<Field<AnalysisOptions>>({
    member<&AnalysisOptions::addrAlign>("addr_align", RS | Always | Slim),
    {"link_peaks", R, nullptr,
     [](JsonWriter& w, const AnalysisOptions& o, const WriteContext&) {
         std::map<std::string, double> peaks;
         for (const char* n : {"HCCS", "RDMA", "PCIE"})
             peaks[n] = linkPeak(o, n);
         for (const auto& [n, v] : o.linkPeaks)
             peaks[n] = v;
         w.beginObject();
         for (const auto& [n, v] : peaks) {
             w.key(n);
             w.real(v);
         }
         w.endObject();
     }},
    {"link_peaks", S | Always | Slim, nullptr,
     [](JsonWriter& w, const AnalysisOptions& o, const WriteContext&) {
         w.beginObject();
         for (const auto& [n, v] : o.linkPeaks) {
             w.key(n);
             w.real(v);
         }
         w.endObject();
     },
     [](JsonFieldReader& rd, AnalysisOptions& o, const JsonPath& at, std::string_view k,
        ReadContext&) {
         if (rd.peek() != '{') {
             rd.skip();
             return rd.wrong(at, k);
         }
         o.linkPeaks.clear();
         const JsonPath peaks{&at, k};
         rd.members([&](std::string_view name) {
             if (rd.isNumber()) {
                 o.linkPeaks[std::string(name)] = JsonFieldReader::toDouble(rd.scalar());
             } else {
                 rd.skip();
                 rd.wrong(peaks, name);
             }
         });
     }},
    member<&AnalysisOptions::sizeAlign>("size_align", RS | Always | Slim),
});
static_assert(sortedByKey(kOptionsFields));

// A summary's "trace": the facts of the trace the report came from.
inline constexpr auto kTraceFactsFields = std::to_array<Field<TraceFacts>>({
    member<&TraceFacts::baseTimeNs>("base_time_ns", S | Slim),
    member<&TraceFacts::endNs>("end_ns", S | Always),
    member<&TraceFacts::events>("events", S | Always),
    member<&TraceFacts::path>("path", S | Always | Slim),
    {"producer", S | Always, nullptr,
     [](JsonWriter& w, const TraceFacts& f, const WriteContext&) { w.string(f.producer); },
     [](JsonFieldReader& rd, TraceFacts& f, const JsonPath& at, std::string_view k, ReadContext&) {
         std::string producer;
         rd.text(producer, at, k);
         f.producer = summaryschema::producerFromName(producer);
     }},
    member<&TraceFacts::rank>("rank", S | Slim),
    member<&TraceFacts::startNs>("start_ns", S | Always),
    member<&TraceFacts::warnings>("warnings", S | Always),
});
static_assert(sortedByKey(kTraceFactsFields));

// A report's matrix entry is one link; a summary's is the head of a run of links (rank, step,
// op group, op) that names its links by their index in "link_sets" (WriteContext::index,
// ReadContext::index).
inline constexpr auto kMatrixFields = std::to_array<Field<MatrixEntry>>({
    member<&MatrixEntry::bytes>("bytes", R),
    member<&MatrixEntry::dst>("dst", R),
    member<&MatrixEntry::gbps>("gbps", R),
    member<&MatrixEntry::group>("group", RS),
    inputIndex<MatrixEntry>(),
    {"links", S | Always, nullptr,
     [](JsonWriter& w, const MatrixEntry&, const WriteContext& ctx) { w.integer(ctx.index); },
     [](JsonFieldReader& rd, MatrixEntry&, const JsonPath& at, std::string_view k,
        ReadContext& ctx) {
         std::size_t x = 0;
         const std::uint64_t before = rd.bad;
         rd.integer(x, at, k);
         ctx.index = rd.bad == before ? x : ReadContext::kNoIndex;
     }},
    member<&MatrixEntry::ns>("ns", R),
    member<&MatrixEntry::opGroup>("op_group", RS | Always),
    member<&MatrixEntry::opName>("op_name", RS),
    member<&MatrixEntry::rank>("rank", RS),
    member<&MatrixEntry::src>("src", R),
    member<&MatrixEntry::step>("step", RS),
    member<&MatrixEntry::transport>("transport", R),
});
static_assert(sortedByKey(kMatrixFields));

// The job's cross-rank collectives (the report's "cross_rank").
inline constexpr auto kRankOpFields = std::to_array<Field<RankOp>>({
    member<&RankOp::end>("end_ns", J),
    member<&RankOp::extraMemcpyNs>("extra_memcpy_ns", J),
    member<&RankOp::rank>("rank", J),
    member<&RankOp::ready>("ready_ns", J),
    member<&RankOp::start>("start_ns", J),
    member<&RankOp::waitNs>("wait_ns", J),
});
static_assert(sortedByKey(kRankOpFields));

inline constexpr auto kCrossRankFields = std::to_array<Field<CrossRankCollective>>({
    member<&CrossRankCollective::cause>("cause", J),
    member<&CrossRankCollective::delayNs>("delay_ns", J),
    member<&CrossRankCollective::delayingRank>("delaying_rank", J),
    member<&CrossRankCollective::delayingRanks>("delaying_ranks", J),
    member<&CrossRankCollective::fastestRank>("fastest_rank", J),
    member<&CrossRankCollective::group>("group", J),
    member<&CrossRankCollective::index>("index", J),
    named<&CrossRankCollective::kind, collectiveKindName, summaryschema::kindFromName>("kind", J),
    member<&CrossRankCollective::name>("name", J),
    objects<&CrossRankCollective::ops, kRankOpFields>("ranks", J),
    member<&CrossRankCollective::seq>("seq", J | Sparse),
    member<&CrossRankCollective::slowestRank>("slowest_rank", J),
    member<&CrossRankCollective::startSkew>("start_skew_ns", J),
    member<&CrossRankCollective::step>("step", J),
    member<&CrossRankCollective::waitCausedNs>("wait_caused_ns", J),
});
static_assert(sortedByKey(kCrossRankFields));

} // namespace rs::fields
