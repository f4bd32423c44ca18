#pragma once

// torch_npu's communication figures from an HCCL op's tasks: communication.json's time and
// bandwidth info and communication_matrix.json's links, with the definitions of
// ../shared/docs/comm-health.md (master plane, transit tasks, RDMA runs, the SDMA aggregate,
// large packets, the top1/middle/bottom/total grouping). Part of the torch_npu model.

#include "core/analysis/report.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rs::analysis {

// One HCCL task of an op, as the figures need it.
struct HcclTask {
    enum class Kind : std::uint8_t {
        Memcpy,
        ReduceInline,
        NotifyWait,
        NotifyRecord,
        RdmaSend,
        Other
    };
    EventId event = kNone;
    int plane = -1; // N of "Plane N"
    TimeNs start = 0, dur = 0;
    Kind kind = Kind::Other;
    std::string transport; // "transport type": SDMA, RDMA, LOCAL
    std::string link;      // "link type": HCCS, HCCS_SW, PCIE, SIO, ON_CHIP, ...
    std::uint64_t size = 0;
    std::optional<std::uint64_t> src, dst; // "src rank", "dst rank" within the group
    TimeNs end() const { return start + dur; }
};

HcclTask::Kind hcclTaskKind(std::string_view type);

// An RDMA transfer: a run of payload tasks and its closing tasks on one plane.
struct RdmaTransfer {
    int plane = -1;
    TimeNs start = 0, end = 0;
    std::uint64_t bytes = 0;
    std::optional<std::uint64_t> src, dst;
    std::vector<EventId> events;
};

// `tasks` sorted by (start, plane). Fills c.timeInfo and c.transfers (peaks from `o`).
void hcclCommFigures(const std::vector<HcclTask>& tasks, const AnalysisOptions& o, Collective& c);

// torch_npu's op type of an op name for the matrix keys (get_comm_type): the first match of
// send|reduce|invalid|broadcast|allreduce|receive|allgather|reducescatter|scatter|alltoall|
// alltoallv|alltoallvc|batchsendrecv in the lower-cased name; "invalid" when none.
std::string hcclOpType(std::string_view opName);
// p2p (hcom_send, hcom_receive, hcom_batchsendrecv) or collective.
bool hcclIsP2p(std::string_view opName);

// communication_matrix.json of one trace: `ops` (collectives with their tasks, in time order).
struct HcclOpTasks {
    const Collective* op;
    const std::vector<HcclTask>* tasks;
};
std::vector<MatrixEntry> hcclMatrix(const std::vector<HcclOpTasks>& ops);

} // namespace rs::analysis
