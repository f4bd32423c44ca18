// libFuzzer entry point for the Flight Recorder reader (core/producers/flightrecorder): any
// bytes go through the data-only pickle reader, the dump model (pickle or JSON) and the
// diagnosis of a job of two such dumps. Each must read or refuse with a message, never crash,
// hang or execute; a value tree must be a finite tree within the limits; a refusal must name
// the byte it stopped at inside the input.
#include "core/producers/flightrecorder/diagnosis.h"
#include "core/producers/flightrecorder/dump.h"
#include "core/producers/flightrecorder/pickle.h"
#include "tests/fuzz/checktrace.h"

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

namespace {

using namespace rs::flightrecorder;
using rs::fuzz::check;

// Walks every value once (each opcode makes at most one value, so its offset names it; shared
// values are not walked again): every item is shallower than its container, so the walk ends
// (the reader refuses cycles) and stays within the depth limit.
void walk(const PickleValue& v, int depth, int maxDepth, std::set<std::uint64_t>& seen)
{
    check(depth <= maxDepth, "value tree within the depth limit");
    check(v.depth() <= maxDepth, "a value's depth within the limit");
    if (!seen.insert(v.offset()).second) return;
    switch (v.kind()) {
    case PickleKind::List:
    case PickleKind::Tuple:
        for (std::size_t i = 0; i < v.size(); ++i) {
            check(v.at(i).valid(), "list item valid");
            check(v.at(i).depth() < v.depth(), "an item is shallower than its container");
            walk(v.at(i), depth + 1, maxDepth, seen);
        }
        break;
    case PickleKind::Dict:
        for (std::size_t i = 0; i < v.size(); ++i) {
            check(v.value(i).depth() < v.depth(), "a value is shallower than its dict");
            walk(v.key(i), depth + 1, maxDepth, seen);
            walk(v.value(i), depth + 1, maxDepth, seen);
        }
        break;
    case PickleKind::BigInt:
        check(!v.bigIntDecimal().empty(), "a big int has digits");
        break;
    default:
        (void)v.bytes();
        break;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const char* bytes = reinterpret_cast<const char*>(data);
    // Small limits: a bomb in the corpus must be refused, not exhaust the fuzzer's memory.
    PickleLimits limits;
    limits.maxValues = 1u << 16;
    limits.maxMemo = 1u << 16;
    limits.maxDepth = 64;
    const PickleResult p = parsePickle(bytes, size, "<fuzz>", limits);
    if (p.ok()) {
        check(p.message.empty() && p.error == PickleError::None, "a read pickle has no error");
        std::set<std::uint64_t> seen;
        walk(p.root(), 0, limits.maxDepth, seen);
        check(seen.size() <= p.document->values(), "each value walked once");
    } else {
        check(!p.message.empty() && p.error != PickleError::None, "a refusal says why");
        check(p.offset <= size, "the byte it stopped at is inside the input");
        check(p.message.rfind("<fuzz>: byte ", 0) == 0, "the message names the file and byte");
    }

    DumpOptions options;
    options.pickle = limits;
    DumpResult d = parseDump(bytes, size, "<fuzz>/_dump_3", options);
    if (!d.ok()) {
        check(!d.error.empty(), "a dump that is not read says why");
        return 0;
    }
    check(d.dump->rank == 3, "the rank from the file name");
    for (const Entry& e : d.dump->entries)
        (void)e.op();
    // A job of this dump and a copy of it as another rank: the diagnosis must hold together.
    Dump other = *d.dump;
    other.path = "<fuzz>/_dump_4";
    other.rank = 4;
    const std::vector<Dump> job = {*d.dump, other};
    const Diagnosis g = diagnose(job);
    for (const MissingCollective& m : g.missing) {
        check(!m.missingRanks.empty(), "a missing finding names ranks");
        check(!m.title.empty() && !m.recommendation.empty(), "a finding has words");
        for (const EntryRef& r : m.waiting)
            check(r.rank == 3 || r.rank == 4, "waiting entries are the job's");
        (void)toFinding(m);
    }
    for (const MismatchedCollective& m : g.mismatches) {
        check(!m.calls.empty(), "a mismatch names calls");
        (void)toFinding(m);
    }
    check(g.info.ranks.size() >= 2, "both ranks in info");
    return 0;
}
