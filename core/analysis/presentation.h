#pragma once

// Every sentence the analysis writes for a person: mode letters, signature labels, group
// summaries, verdicts, finding titles and recommendations, and the `ringscope analyze` text
// (reportToText, declared in reportjson.h). The rules decide; this file words it. It knows no
// producer's format: what a trace calls things (op names, link and transport names) arrives as
// data. The advice does name the communication libraries' own knobs and tools a user acts on
// (NCCL_DEBUG, HCCL_BUFFSIZE, npu-smi, --link-peak HCCS=28): words for the reader, read from
// no trace.

#include "core/analysis/report.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace rs {

// Letter of duration mode m (0 = fastest): "A".."Z", then "AA", "AB"... (bijective base 26,
// as spreadsheet columns); "?" for a negative mode. The one definition the viewer, the
// exports, the annotations and the report share.
std::string modeLetter(int mode);

namespace presentation {

// "AllReduce · group 0 · 67,108,864 × FP32 · MESH-RING"
std::string signatureLabel(const Collective& c);
// "mode B = 2.0x mode A (400 ms vs 200 ms); every mode-B op has one extra Memcpy of ~200 ms;
// no mode-A op has it"
std::string groupSummary(const SignatureGroup& g, const std::vector<Collective>& collectives);
// One sentence per collective (Anomalous / Waiting / Slow / Normal). `peers`: the signature
// has other members; `waitRecorded`: the trace records the op's waits (HCCL Notify_Wait).
std::string verdict(const Collective& c, const SignatureGroup& g, bool peers, bool waitRecorded);
// A recorded call's verdict ("In flight when the rank dumped: scheduled 3 min 0 s before") and
// its signature's summary.
std::string recordedVerdict(const Collective& c);
std::string recordedSummary(std::size_t calls, std::size_t inFlight);

struct FindingText {
    std::string title, recommendation;
};
// collective-extra-memcpy; `source` is the user frame to name (may be empty).
FindingText extraMemcpy(const Collective& c, const AnalysisOptions& o, const std::string& source);
// collective-waiting
FindingText waiting(const Collective& c);
// unaligned-transfer-size / unaligned-address over `count` transfers.
// "address 0x7f3a00000040, 64 B past a 128 B boundary" (the remainder, as for a size).
std::string misalignedAddress(std::uint64_t address, std::uint64_t boundary);
// The same for a copy; empty when its address is aligned or unknown.
std::string misalignedAddress(const InternalCopy& copy, std::uint64_t boundary);
FindingText unaligned(const Collective& c, const AnalysisOptions& o, std::size_t count,
                      bool address, const std::string& source);

// Communication health (rules/commhealth.cpp).
struct LinkUse {
    std::string link;
    double peakGbps = NAN;
    std::string basis;  // how the link was chosen (Kineto)
    bool busbw = false; // judged by bus bandwidth (Kineto), not per-link tasks (HCCL)
    std::uint64_t bytes = 0;
    TimeNs ns = 0;
    int transfers = 0, slow = 0; // bandwidth-bound transfers (collectives), below the threshold
    double worst = 1.0;          // lowest utilisation met
    double sumUtilization = 0;   // busbw: sum over the transfers
};
FindingText linkUnderutilized(const LinkUse& u);
struct PacketUse {
    std::string transport;
    int records = 0, ops = 0;
    std::uint64_t bytes = 0;
    TimeNs ns = 0;
};
FindingText smallPackets(const PacketUse& u);
FindingText syncDominated(int ops, int withInfo, TimeNs syncNs, TimeNs transitNs);
FindingText unexpectedTransport(int ops, std::uint64_t pcieBytes,
                                const std::vector<std::string>& mixedLinks);

// "3 args of the wrong type were ignored: count (2), size(Byte) (1)"
std::string badFields(const std::map<std::string, std::uint64_t, std::less<>>& byKey);

} // namespace presentation
} // namespace rs
