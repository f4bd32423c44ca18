#pragma once

// The rules that judge what the producers extracted and make findings. They know no producer
// (only the roles of tracks, the shared vocabulary) and write no text themselves
// (presentation.h). Thresholds and rule ids: docs/analysis.md.

#include "core/analysis/producermodel.h"

namespace rs::analysis::rules {

// Signature groups, duration modes, baselines; marks collectives anomalous or waiting, their
// extra copies, and writes the group summaries and verdicts.
void judgeCollectives(AnalysisReport& rep, const AnalysisContext& ctx);
// collective-extra-memcpy, collective-waiting, unaligned-transfer-size, unaligned-address.
// Sorts ctx.unaligned.
void collectiveFindings(AnalysisReport& rep, AnalysisContext& ctx);

// Communication health (docs/analysis.md): link-underutilized, small-packets, sync-dominated,
// unexpected-transport.
// A link under this share of its peak is under-utilised.
inline constexpr double kUnderUtilized = 0.6;
// Bandwidth-bound: HCCL transfers of at least this many bytes on average, Kineto collectives of
// at least this many bytes (below, latency rather than bandwidth sets the time).
inline constexpr std::uint64_t kBandwidthBoundRecordBytes = 1000000;
inline constexpr std::uint64_t kBandwidthBoundCollectiveBytes = 32000000;
// A link whose bandwidth-bound transfers carried less than this over the whole trace gets no
// link-underutilized warning: too little traffic for its speed to matter or to be measured.
inline constexpr std::uint64_t kLinkMinBytes = 8000000;
// Small packets: a large-packet ratio under kSmallPacketRatio on a transport that runs under
// kUnderUtilized of its peak and takes at least kSmallPacketTransitShare of the op's time.
inline constexpr double kSmallPacketRatio = 0.2;
inline constexpr double kSmallPacketTransitShare = 0.2;
inline constexpr int kSmallPacketMinRecords = 4;
inline constexpr double kSyncDominated = 0.5;     // synchronization ratio
inline constexpr TimeNs kSyncMinElapse = 1000000; // 1 ms: shorter ops are noise
inline constexpr std::size_t kMaxEvidenceOps = 64;
void communicationFindings(AnalysisReport& rep);

// Most severe first, then by time.
void sortFindings(AnalysisReport& rep);

} // namespace rs::analysis::rules
