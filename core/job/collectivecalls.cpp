#include "core/job/collectivecalls.h"

#include "core/timeconv.h"

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace rs {

namespace {

// "9 and 14", "3, 5 and 7": for a sentence.
std::string rankWords(const std::vector<int>& ranks)
{
    std::string s;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        if (i) s += i + 1 == ranks.size() ? " and " : ", ";
        s += std::to_string(ranks[i]);
    }
    return s;
}

std::string shapesText(const Shapes& s)
{
    std::string out = "[";
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i) out += ", ";
        out += '[';
        for (std::size_t k = 0; k < s[i].size(); ++k)
            out += (k ? ", " : "") + std::to_string(s[i][k]);
        out += ']';
    }
    return out + "]";
}

std::string stringsText(const std::vector<std::string>& v)
{
    std::string out = "{";
    const std::set<std::string> unique(v.begin(), v.end());
    bool first = true;
    for (const std::string& s : unique) {
        out += (first ? "'" : ", '") + s + "'";
        first = false;
    }
    return out + "}";
}

// Times and sizes come from the file: arithmetic on them saturates instead of overflowing.
std::int64_t satAdd(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

std::int64_t satSub(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    return __builtin_sub_overflow(a, b, &r) ? (b < 0 ? INT64_MAX : INT64_MIN) : r;
}

std::int64_t satMul(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? ((a < 0) != (b < 0) ? INT64_MIN : INT64_MAX) : r;
}

// Elements of a shape (saturating on absurd dims).
std::int64_t numel(const std::vector<std::int64_t>& shape)
{
    std::int64_t n = 1;
    for (std::int64_t d : shape)
        n = satMul(n, d);
    return n;
}

// ---- PyTorch's Op.match (types.py), for collectives: the reference a against b

enum class Match : std::uint8_t { Full, Type, Size, Dtype, Undecided };

struct MatchResult {
    Match state = Match::Full;
    std::string detail;
};

bool in(const std::string& s, std::initializer_list<const char*> names)
{
    for (const char* n : names)
        if (s == n) return true;
    return false;
}

const std::initializer_list<const char*> kCollectives = {"broadcast",
                                                         "_broadcast_oop",
                                                         "reduce",
                                                         "_reduce_oop",
                                                         "all_gather",
                                                         "all_gather_single",
                                                         "all_gather_v",
                                                         "all_reduce",
                                                         "_all_gather_base",
                                                         "all_gather_into_tensor_coalesced",
                                                         "reduce_scatter",
                                                         "reduce_scatter_single",
                                                         "reduce_scatter_v",
                                                         "reduce_scatter_tensor_coalesced",
                                                         "_reduce_scatter_base",
                                                         "gather",
                                                         "scatter",
                                                         "all_to_all",
                                                         "all_to_all_single",
                                                         "all_to_all_v_single",
                                                         "all_reduce_barrier",
                                                         "barrier",
                                                         "split",
                                                         "new_window",
                                                         "allreduce_coalesced",
                                                         "ALLGATHER_coalesced",
                                                         "REDUCE_SCATTER_coalesced"};

std::vector<std::int64_t> first(const Shapes& s)
{
    return s.empty() ? std::vector<std::int64_t>{} : s[0];
}

// `sizes[0]` is a non-empty shape (Python's truthiness of input_sizes[0]).
bool firstShape(const Shapes& s)
{
    return !s.empty() && !s[0].empty();
}

bool dtypeMismatch(const std::string& type, const RankCall& a, const RankCall& b)
{
    auto set = [](const std::vector<std::string>& v) {
        return std::set<std::string>(v.begin(), v.end());
    };
    return (!in(type, {"scatter", "gather", "broadcast"}) &&
            set(a.inputDtypes) != set(a.outputDtypes) && firstShape(a.inputSizes) &&
            firstShape(a.outputSizes)) ||
           (!in(type, {"scatter", "broadcast"}) && set(a.inputDtypes) != set(b.inputDtypes) &&
            firstShape(a.inputSizes) && firstShape(b.inputSizes)) ||
           (type != "gather" && set(a.outputDtypes) != set(b.outputDtypes) &&
            firstShape(a.outputSizes) && firstShape(b.outputSizes));
}

MatchResult match(const RankCall& a, const RankCall& b, std::size_t pgSize)
{
    const std::string ta = callOpName(a.op), tb = callOpName(b.op);
    if (in(ta, {"coalesced", "ALLGATHER_coalesced", "REDUCE_SCATTER_coalesced"}))
        return ta == tb ? MatchResult{} : MatchResult{Match::Type, ""};
    if (ta != tb)
        return {Match::Type, "Expected collective type: '" + ta +
                                 "' does not match found collective type: '" + tb + "'"};
    bool known = false;
    for (const char* n : kCollectives)
        known = known || ta == n;
    if (!known) return {}; // an op PyTorch's analyzer does not know: its type is all we compare
    if (!in(ta, {"all_to_all", "scatter"}) && a.inputSizes != b.inputSizes)
        return {Match::Size, "Expected input sizes: '" + shapesText(a.inputSizes) +
                                 "' does not match found input sizes: '" +
                                 shapesText(b.inputSizes) + "'"};
    if (!in(ta, {"all_to_all", "gather"}) && a.outputSizes != b.outputSizes)
        return {Match::Size, "Expected output sizes: '" + shapesText(a.outputSizes) +
                                 "' does not match found output sizes: '" +
                                 shapesText(b.outputSizes) + "'"};
    if (in(ta, {"all_reduce", "allreduce_coalesced"}) && a.inputSizes != b.outputSizes)
        return {Match::Size, "Expected input sizes: '" + shapesText(a.inputSizes) +
                                 "' does not match found output sizes: '" +
                                 shapesText(b.outputSizes) + "'"};
    // PyTorch lists "all_gather_base", a name no op has; the op is "_all_gather_base".
    const auto n = std::int64_t(pgSize);
    if (in(ta, {"all_gather", "all_gather_base", "_all_gather_base",
                "all_gather_into_tensor_coalesced"}) &&
        !b.outputSizes.empty() && !a.inputSizes.empty() &&
        numel(b.outputSizes[0]) != satMul(numel(a.inputSizes[0]), n))
        return {Match::Size, "Found input numel '" + std::to_string(numel(first(b.inputSizes))) +
                                 " * pg size " + std::to_string(n) +
                                 "' does not match output numel '" +
                                 std::to_string(numel(b.outputSizes[0])) + "'"};
    if (in(ta, {"reduce_scatter", "_reduce_scatter_base", "reduce_scatter_tensor_coalesced"}) &&
        !b.inputSizes.empty() && !a.outputSizes.empty() &&
        numel(b.inputSizes[0]) != satMul(numel(a.outputSizes[0]), n))
        return {Match::Size, "Found input numel '" + std::to_string(numel(b.inputSizes[0])) +
                                 "' does not match output numel '" +
                                 std::to_string(numel(first(b.outputSizes))) + " * pg size " +
                                 std::to_string(n) + "'"};
    if (dtypeMismatch(ta, a, b))
        return {Match::Dtype, "Expected dtypes: '" + stringsText(a.inputDtypes) +
                                  "' does not match found dtype: '" + stringsText(a.outputDtypes) +
                                  "/" + stringsText(b.inputDtypes) + "/" +
                                  stringsText(b.outputDtypes) + "'"};
    if (ta == "all_to_all") return {Match::Undecided, ""};
    return {};
}

// ---- the job: ranks, groups, calls

using GroupKey = std::pair<std::string, std::vector<int>>; // PyTorch's pg_guid: name + members

struct RankGroup {
    std::int64_t maxSeq = -1;          // highest sequence number of its collectives in the group
    const CommGroup* status = nullptr; // the rank's own description of the group
    bool recorded = false;             // it recorded calls of the group
};

struct Call {
    std::map<int, std::size_t> entries; // rank -> index of its (first) call
};

std::vector<int> sortedUnique(std::vector<int> v)
{
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

class Job {
public:
    Job(const std::vector<RankCalls>& ranks, CallCheck& out) : m_out(out)
    {
        collectRanks(ranks);
        collectGroups();
        collectCalls();
    }

    void missing();
    void mismatches(const CallCheckOptions& options);

private:
    const RankCall& entry(int rank, std::size_t index) const
    {
        return m_byRank.at(rank)->calls[index];
    }

    void collectRanks(const std::vector<RankCalls>& ranks)
    {
        for (const RankCalls& r : ranks) {
            const auto [it, fresh] = m_byRank.emplace(r.rank, &r);
            if (!fresh)
                m_out.warnings.push_back(r.name + ": left out: rank " + std::to_string(r.rank) +
                                         " is " + it->second->name + " already");
        }
    }

    int groupId(const std::string& name, const std::vector<int>& ranks, const std::string& desc)
    {
        std::vector<int> sorted = sortedUnique(ranks);
        const auto [it, fresh] = m_gid.emplace(GroupKey{name, sorted}, int(m_groups.size()));
        if (fresh) {
            GroupInfo g;
            g.name = name;
            g.desc = desc;
            g.ranks = std::move(sorted);
            m_groups.push_back(std::move(g));
        } else if (!desc.empty() && m_groups[std::size_t(it->second)].desc.empty()) {
            m_groups[std::size_t(it->second)].desc = desc;
        } else if (!desc.empty() && m_groups[std::size_t(it->second)].desc != desc) {
            m_out.warnings.push_back("process group " + name + " is \"" +
                                     m_groups[std::size_t(it->second)].desc +
                                     "\" on one rank and \"" + desc + "\" on another");
        }
        return it->second;
    }

    void collectGroups()
    {
        for (const auto& [rank, r] : m_byRank)
            for (const CommGroup& g : r->groups) {
                const int gid = groupId(g.name, g.ranks, g.desc);
                m_rankGroups[rank].emplace(g.name, gid);
                m_rankGroup[{rank, gid}].status = &g;
            }
        // The job's ranks: every member of a group, and every rank with a record.
        for (const GroupInfo& g : m_groups)
            m_world.insert(g.ranks.begin(), g.ranks.end());
        for (const auto& [rank, r] : m_byRank)
            m_world.insert(rank);
    }

    // The group a call of `rank` belongs to: the rank's group of that name, else the members
    // the call names, else the one group of that name the job has; -1 when none tells.
    int resolve(int rank, const RankCall& e)
    {
        const auto& mine = m_rankGroups[rank];
        if (const auto it = mine.find(e.group); it != mine.end()) return it->second;
        if (!e.groupRanks.empty()) return groupId(e.group, e.groupRanks, e.groupDesc);
        int found = -1;
        for (const auto& [key, gid] : m_gid) {
            if (key.first != e.group) continue;
            if (found >= 0) return -1;
            found = gid;
        }
        return found;
    }

    void collectCalls()
    {
        for (const auto& [rank, r] : m_byRank) {
            std::size_t unknown = 0;
            std::string unknownName;
            for (std::size_t i = 0; i < r->calls.size(); ++i) {
                const RankCall& e = r->calls[i];
                const int gid = resolve(rank, e);
                if (gid < 0) {
                    if (!unknown++) unknownName = e.group;
                    continue;
                }
                GroupInfo& g = m_groups[std::size_t(gid)];
                if (g.desc.empty() && !e.groupDesc.empty() && e.groupDesc != "undefined")
                    g.desc = e.groupDesc;
                ++g.entries;
                RankGroup& rg = m_rankGroup[{rank, gid}];
                rg.recorded = true;
                if (e.p2p) continue;
                rg.maxSeq = std::max(rg.maxSeq, e.seq);
                g.firstSeq = std::min(g.firstSeq.value_or(e.seq), e.seq);
                g.lastSeq = std::max(g.lastSeq.value_or(e.seq), e.seq);
                // A rank that recorded one call twice: its earliest.
                auto& entries = m_calls[{gid, e.seq}].entries;
                const auto [it, fresh] = entries.emplace(rank, i);
                if (!fresh && e.createdNs < entry(rank, it->second).createdNs) it->second = i;
            }
            if (unknown)
                m_out.warnings.push_back(
                    r->name + ": " + std::to_string(unknown) +
                    " entries name a process group that neither its own groups nor the job "
                    "tells apart (\"" +
                    unknownName + "\" first): not diagnosed");
        }
        for (const auto& [key, rg] : m_rankGroup)
            if (rg.recorded)
                m_groups[std::size_t(key.second)].ranksWithEntries.push_back(key.first);
        m_out.groups = m_groups;
    }

    // Whether `rank` entered call `seq` of group `gid` although it did not record it: its
    // later calls of the group, or its group's status, say it got that far.
    bool enteredByRecord(int rank, int gid, std::int64_t seq) const
    {
        const auto it = m_rankGroup.find({rank, gid});
        if (it == m_rankGroup.end()) return false;
        if (it->second.maxSeq > seq) return true;
        const CommGroup* s = it->second.status;
        return s && s->lastEnqueued && *s->lastEnqueued >= seq;
    }

    // Whether call `seq` of group `gid` completed on some member: its call says so, or its
    // group's status's last completed number is that far. A call that completed somewhere is
    // not where its group stopped, so no member is counted missing from it.
    bool completedSomewhere(int gid, std::int64_t seq, const Call& call) const
    {
        for (const auto& [rank, index] : call.entries)
            if (entry(rank, index).completed) return true;
        for (int member : m_groups[std::size_t(gid)].ranks) {
            const auto it = m_rankGroup.find({member, gid});
            if (it == m_rankGroup.end() || !it->second.status) continue;
            const CommGroup& s = *it->second.status;
            if (s.lastCompleted && *s.lastCompleted >= seq) return true;
        }
        return false;
    }

    LastCall lastCall(int rank) const
    {
        const RankCalls* r = m_byRank.at(rank);
        LastCall c;
        c.rank = rank;
        std::size_t best = 0;
        for (std::size_t i = 1; i < r->calls.size(); ++i)
            if (r->calls[i].createdNs >= r->calls[best].createdNs) best = i;
        const RankCall& e = r->calls[best];
        c.entry = {rank, best};
        c.op = e.op;
        c.group = e.group;
        c.groupDesc = e.groupDesc;
        c.seq = e.seq;
        c.state = e.state;
        c.createdNs = e.createdNs;
        return c;
    }

    // When a rank wrote its record: as its reader says, else its latest record.
    TimeNs dumpTime(int rank) const
    {
        const RankCalls* r = m_byRank.at(rank);
        if (r->dumpNs) return *r->dumpNs;
        TimeNs last = 0;
        for (const RankCall& x : r->calls)
            last = std::max(last, x.lastNs);
        return last;
    }

    CallCheck& m_out;
    std::map<int, const RankCalls*> m_byRank;
    std::vector<GroupInfo> m_groups;
    std::map<GroupKey, int> m_gid;
    std::map<int, std::map<std::string, int>> m_rankGroups; // rank -> its group names -> gid
    std::map<std::pair<int, int>, RankGroup> m_rankGroup;   // (rank, gid)
    std::map<std::pair<int, std::int64_t>, Call> m_calls;   // (gid, seq)
    std::set<int> m_world;
};

void Job::missing()
{
    // For each member that did not enter a call others wait for: its first such call.
    struct Candidate {
        TimeNs time = 0;
        int gid = -1;
        std::int64_t seq = 0;
    };
    std::map<int, Candidate> firstMissing;
    for (const auto& [key, call] : m_calls) {
        const auto [gid, seq] = key;
        bool waited = false;
        TimeNs since = 0;
        bool any = false;
        for (const auto& [rank, index] : call.entries) {
            const RankCall& e = entry(rank, index);
            waited = waited || !e.completed;
            since = any ? std::min(since, e.createdNs) : e.createdNs;
            any = true;
        }
        if (!waited || completedSomewhere(gid, seq, call)) continue;
        for (int member : m_groups[std::size_t(gid)].ranks) {
            if (call.entries.count(member)) continue;
            if (m_byRank.count(member) && enteredByRecord(member, gid, seq)) continue;
            const Candidate c{since, gid, seq};
            const auto it = firstMissing.find(member);
            if (it == firstMissing.end() ||
                std::tie(c.time, c.gid, c.seq) <
                    std::tie(it->second.time, it->second.gid, it->second.seq))
                firstMissing[member] = c;
        }
    }
    // Ranks with the same first missing call are one finding.
    std::map<std::pair<int, std::int64_t>, std::vector<int>> byCall;
    for (const auto& [rank, c] : firstMissing)
        byCall[{c.gid, c.seq}].push_back(rank);
    for (const auto& [key, ranks] : byCall) {
        const auto [gid, seq] = key;
        const GroupInfo& g = m_groups[std::size_t(gid)];
        const Call& call = m_calls.at(key);
        MissingCollective m;
        m.group = g.name;
        m.groupDesc = g.desc;
        m.seq = seq;
        m.groupRanks = g.ranks;
        m.missingRanks = ranks; // from a map: sorted
        bool any = false;
        std::optional<TimeNs> dumped; // the earliest dump of a waiting member
        for (const auto& [rank, index] : call.entries) {
            const RankCall& e = entry(rank, index);
            m.sinceNs = any ? std::min(m.sinceNs, e.createdNs) : e.createdNs;
            any = true;
            if (e.timeoutMs) m.timeoutMs = std::max(m.timeoutMs.value_or(0), *e.timeoutMs);
            if (e.completed) continue;
            if (m.waitingRanks.empty()) { // the lowest waiting rank's call describes it
                m.op = e.op;
                m.sizes = e.inputSizes;
                m.dtypes = e.inputDtypes;
            }
            m.waitingRanks.push_back(rank);
            m.waiting.push_back({rank, index});
            dumped = std::min(dumped.value_or(dumpTime(rank)), dumpTime(rank));
        }
        m.waitedNs = std::max<TimeNs>(0, satSub(dumped.value_or(m.sinceNs), m.sinceNs));
        for (int r : ranks) {
            const auto it = m_byRank.find(r);
            if (it == m_byRank.end())
                m.absentDumpRanks.push_back(r);
            else if (it->second->empty())
                m.emptyDumpRanks.push_back(r);
            else
                m.lastCalls.push_back(lastCall(r));
        }

        // The words.
        const std::string op = callOpName(m.op);
        const bool several = ranks.size() > 1;
        const std::size_t others = m.waitingRanks.size();
        // A rank without a record is not known to have entered: said so, never "never entered".
        const std::string callText = op + " #" + std::to_string(seq) + " of " + g.label();
        const std::size_t absent = m.absentDumpRanks.size();
        if (absent == ranks.size())
            m.title = std::string(several ? "Ranks " : "Rank ") + rankWords(ranks) +
                      " left no dump and " + (several ? "are" : "is") +
                      " not known to have entered " + callText;
        else
            m.title = std::string(several ? "Ranks " : "Rank ") + rankWords(ranks) +
                      (absent ? " did not enter " : " never entered ") + callText +
                      (absent ? " (rank" + std::string(absent > 1 ? "s " : " ") +
                                    rankWords(m.absentDumpRanks) +
                                    " left no dump: not known to have entered)"
                              : "");
        m.title += "; the " + std::to_string(others) + " other member" + (others == 1 ? "" : "s") +
                   " (" + rankList(m.waitingRanks) + ") waited for " + (several ? "them" : "it");
        std::ostringstream rec;
        rec << "Look at what rank" << (several ? "s " : " ") << rankWords(ranks)
            << (several ? " were" : " was") << " doing: ";
        std::vector<std::string> what;
        for (const LastCall& c : m.lastCalls) {
            const std::string cg = c.groupDesc.empty() || c.groupDesc == "undefined"
                                       ? "group " + c.group
                                       : c.groupDesc + " " + c.group;
            const char* state = callStateName(c.state);
            what.push_back("rank " + std::to_string(c.rank) + "'s last recorded call is " +
                           callOpName(c.op) + " #" + std::to_string(c.seq) + " of " + cg + " (" +
                           (*state ? std::string(state) + ", " : std::string()) +
                           formatDuration(std::max<TimeNs>(0, satSub(m.sinceNs, c.createdNs))) +
                           " before the others entered this one)");
        }
        for (int r : m.emptyDumpRanks)
            what.push_back("rank " + std::to_string(r) +
                           "'s dump has no entries: no collective was in flight there, so it "
                           "was stuck before it called this one (in Python, e.g. holding the "
                           "GIL, in data loading, or in a deadlock)");
        for (int r : m.absentDumpRanks)
            what.push_back("rank " + std::to_string(r) +
                           " left no dump, so whether it entered cannot be told: its log says "
                           "why it did not write one");
        for (std::size_t i = 0; i < what.size(); ++i)
            rec << (i ? "; " : "") << what[i];
        rec << ". The waiting members had waited " << formatDuration(m.waitedNs)
            << " when they dumped";
        if (m.timeoutMs)
            rec << "; the watchdog's timeout is " << formatDuration(satMul(*m.timeoutMs, 1000000));
        rec << ".";
        m.recommendation = rec.str();
        m_out.missing.push_back(std::move(m));
    }
    std::stable_sort(m_out.missing.begin(), m_out.missing.end(),
                     [](const MissingCollective& a, const MissingCollective& b) {
                         return a.sinceNs < b.sinceNs;
                     });
}

void Job::mismatches(const CallCheckOptions& options)
{
    std::size_t dropped = 0;
    for (const auto& [key, call] : m_calls) {
        if (call.entries.size() < 2) continue;
        const auto [gid, seq] = key;
        const GroupInfo& g = m_groups[std::size_t(gid)];
        // The reference: what most members called (ties: the lowest rank's).
        using Signature = std::tuple<std::string, Shapes, Shapes, std::vector<std::string>,
                                     std::vector<std::string>>;
        std::map<Signature, std::vector<int>> bySignature;
        for (const auto& [rank, index] : call.entries) {
            const RankCall& e = entry(rank, index);
            bySignature[{callOpName(e.op), e.inputSizes, e.outputSizes, e.inputDtypes,
                         e.outputDtypes}]
                .push_back(rank);
        }
        const std::vector<int>* most = nullptr;
        for (const auto& [sig, ranks] : bySignature)
            if (!most || ranks.size() > most->size() ||
                (ranks.size() == most->size() && ranks.front() < most->front()))
                most = &ranks;
        const int refRank = most->front();
        const RankCall& ref = entry(refRank, call.entries.at(refRank));
        const std::string refOp = callOpName(ref.op);
        MismatchedCollective mm;
        int worst = 0; // 3 op, 2 size, 1 dtype
        for (const auto& [rank, index] : call.entries) {
            const RankCall& e = entry(rank, index);
            mm.entries.push_back({rank, index});
            const MatchResult r = match(ref, e, g.ranks.size());
            const int level = r.state == Match::Type    ? 3
                              : r.state == Match::Size  ? 2
                              : r.state == Match::Dtype ? 1
                                                        : 0;
            if (level == 0) {
                mm.matchingRanks.push_back(rank);
                continue;
            }
            worst = std::max(worst, level);
            mm.calls.push_back({rank,
                                {rank, index},
                                e.op,
                                e.inputSizes,
                                e.outputSizes,
                                e.inputDtypes,
                                e.outputDtypes,
                                r.detail});
        }
        // all_to_all: sizes differ per rank; the totals must agree once every member is there
        // (a record without all_to_all sizes, as the Flight Recorder's before 2.4, adds none).
        if (worst == 0 && refOp == "all_to_all" && call.entries.size() == g.ranks.size()) {
            std::int64_t inTotal = 0, outTotal = 0;
            for (const auto& [rank, index] : call.entries) {
                const RankCall& e = entry(rank, index);
                if (!e.inputSizes.empty()) inTotal = satAdd(inTotal, numel(e.inputSizes[0]));
                if (!e.outputSizes.empty()) outTotal = satAdd(outTotal, numel(e.outputSizes[0]));
            }
            if (inTotal != outTotal) {
                worst = 2;
                mm.matchingRanks.clear();
                for (const auto& [rank, index] : call.entries) {
                    const RankCall& e = entry(rank, index);
                    mm.calls.push_back({rank,
                                        {rank, index},
                                        e.op,
                                        e.inputSizes,
                                        e.outputSizes,
                                        e.inputDtypes,
                                        e.outputDtypes,
                                        "total input numel " + std::to_string(inTotal) +
                                            " does not match total output numel " +
                                            std::to_string(outTotal)});
                }
            }
        }
        if (worst == 0) continue;
        if (m_out.mismatches.size() >= options.maxMismatches) {
            ++dropped;
            continue;
        }
        mm.group = g.name;
        mm.groupDesc = g.desc;
        mm.seq = seq;
        mm.kind = worst == 3 ? "op" : worst == 2 ? "size" : "dtype";
        mm.op = ref.op;
        mm.inputSizes = ref.inputSizes;
        mm.outputSizes = ref.outputSizes;
        mm.inputDtypes = ref.inputDtypes;
        mm.outputDtypes = ref.outputDtypes;
        bool any = false;
        for (const CallRef& r : mm.entries) {
            const TimeNs t = entry(r.rank, r.index).createdNs;
            mm.startNs = any ? std::min(mm.startNs, t) : t;
            any = true;
        }
        const std::vector<int> bad = mm.ranks();
        const bool several = bad.size() > 1;
        const std::string what = mm.kind == "op"     ? "another op"
                                 : mm.kind == "size" ? "other sizes"
                                                     : "other dtypes";
        if (mm.matchingRanks.empty())
            mm.title = "The members of " + refOp + " #" + std::to_string(seq) + " of " + g.label() +
                       " disagree on its sizes (" + mm.calls.front().detail + ")";
        else
            mm.title = std::string(several ? "Ranks " : "Rank ") + rankWords(bad) + " called " +
                       what + " than rank" + (mm.matchingRanks.size() > 1 ? "s " : " ") +
                       rankList(mm.matchingRanks) + " at " + refOp + " #" + std::to_string(seq) +
                       " of " + g.label() + " (" + mm.calls.front().detail + ")";
        mm.recommendation =
            "Every member of a process group must make the same collective calls in the same "
            "order with matching sizes and dtypes; a rank that takes another branch (a "
            "data-dependent condition, an uneven last batch, a skipped layer) desynchronises "
            "the group and hangs it. Compare the calls' Python stacks on rank" +
            std::string(several ? "s " : " ") + rankWords(bad) + " and rank " +
            std::to_string(refRank) + ".";
        m_out.mismatches.push_back(std::move(mm));
    }
    if (dropped)
        m_out.warnings.push_back(std::to_string(dropped) +
                                 " more collective-mismatch findings "
                                 "left out (" +
                                 std::to_string(options.maxMismatches) + " kept)");
    std::stable_sort(m_out.mismatches.begin(), m_out.mismatches.end(),
                     [](const MismatchedCollective& a, const MismatchedCollective& b) {
                         return a.startNs < b.startNs;
                     });
}

} // namespace

std::string rankList(const std::vector<int>& ranks)
{
    std::ostringstream o;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        if (i) o << ", ";
        o << ranks[i];
        if (j > i) o << (j == i + 1 ? ", " : "-") << ranks[j];
        i = j + 1;
    }
    return o.str();
}

std::string callOpName(std::string_view s)
{
    // The backend before ':', the peers after ' ' (PyTorch's Op).
    if (const auto colon = s.find(':'); colon != std::string_view::npos) s.remove_prefix(colon + 1);
    if (const auto space = s.find(' '); space != std::string_view::npos) s = s.substr(0, space);
    return std::string(s);
}

std::string GroupInfo::label() const
{
    return desc.empty() || desc == "undefined" ? "group " + name : desc + " " + name;
}

std::vector<int> MissingCollective::ranks() const
{
    std::vector<int> r = missingRanks;
    r.insert(r.end(), waitingRanks.begin(), waitingRanks.end());
    return r;
}

std::vector<int> MismatchedCollective::ranks() const
{
    std::vector<int> r;
    for (const MismatchedCall& c : calls)
        r.push_back(c.rank);
    return r;
}

CallCheck checkCalls(const std::vector<RankCalls>& ranks, const CallCheckOptions& options)
{
    CallCheck out;
    Job job(ranks, out);
    job.missing();
    job.mismatches(options);
    return out;
}

Finding toFinding(const MissingCollective& m)
{
    Finding f;
    f.rule = MissingCollective::kRule;
    f.severity = m.severity;
    f.title = m.title;
    f.recommendation = m.recommendation;
    f.ranks = m.ranks();
    f.start = m.sinceNs;
    f.end = satAdd(m.sinceNs, m.waitedNs);
    f.group = m.group;
    f.groupDesc = m.groupDesc;
    f.op = m.op;
    f.seq = m.seq;
    f.sizes = m.sizes;
    f.dtypes = m.dtypes;
    f.missingRanks = m.missingRanks;
    f.waitingRanks = m.waitingRanks;
    f.emptyRanks = m.emptyDumpRanks;
    f.absentRanks = m.absentDumpRanks;
    f.waitedNs = m.waitedNs;
    return f;
}

Finding toFinding(const MismatchedCollective& m)
{
    Finding f;
    f.rule = MismatchedCollective::kRule;
    f.severity = m.severity;
    f.title = m.title;
    f.recommendation = m.recommendation;
    f.ranks = m.ranks();
    f.start = m.startNs;
    f.end = m.startNs;
    f.group = m.group;
    f.groupDesc = m.groupDesc;
    f.op = m.op;
    f.seq = m.seq;
    f.sizes = m.inputSizes;
    f.dtypes = m.inputDtypes;
    f.mismatch = m.kind;
    f.matchingRanks = m.matchingRanks;
    return f;
}

} // namespace rs
