#pragma once

// What every piece of an export's read shares, read first on the opening thread (small
// tables), and the layout of the timeline the reader builds: pids of the GPUs, tids of the
// streams and of the NVTX start/end ranges, the categories of the slices. reader.cpp reads;
// nvtxnames.cpp reads NVTX's names and payloads.

#include "core/producers/nsys/rows.h"
#include "core/producers/nsys/tables.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rs::nsys {

// A GPU is shown as a process of its own, above every OS pid (24 bits): its streams are its
// threads, tid the stream id in the GPU's first context (contextId 1, CUDA's primary context
// nsys numbers first), (context << 32) | stream in any other.
constexpr std::uint64_t kGpuPidBase = 1ull << 32;
inline std::uint64_t gpuPid(std::int64_t device)
{
    return kGpuPidBase + (std::uint64_t(device) & 0xffffffffu);
}
inline std::uint64_t streamTid(std::int64_t context, std::int64_t stream)
{
    const std::uint64_t s = std::uint64_t(stream) & 0xffffffffu;
    return context == 1 ? s : (std::uint64_t(context) & 0xffffffffu) << 32 | s;
}
// NVTX start/end ranges (nvtxRangeStart/End: across threads, not nested) are shown per process
// on a track of their own per domain, tid kStartEndTid + domain.
constexpr std::uint64_t kStartEndTid = 1ull << 40;

// The slices' categories (the producer's own: classify and the model read them).
inline constexpr std::string_view kCatRuntime = "cuda_runtime";
inline constexpr std::string_view kCatDriver = "cuda_driver";
inline constexpr std::string_view kCatKernel = "kernel";
inline constexpr std::string_view kCatMemcpy = "gpu_memcpy";
inline constexpr std::string_view kCatMemset = "gpu_memset";
inline constexpr std::string_view kCatNvtx = "nvtx";       // a range or mark
inline constexpr std::string_view kCatTorchOp = "nvtx_op"; // PyTorch's emit_nvtx op range
inline constexpr std::string_view kCatOsrt = "osrt";
// The launch flows (a CUDA call to its GPU work, by correlationId).
inline constexpr std::string_view kFlowLaunch = "cuda_launch";

// A decoded NVTX payload schema (NVTX_PAYLOAD_SCHEMAS / _ENTRIES).
struct PayloadEntry {
    std::string name;
    std::int64_t type = 0;   // NVTX_PAYLOAD_ENTRY_TYPE_*
    std::int64_t offset = 0; // bytes into the payload
};
struct PayloadSchema {
    std::uint64_t size = 0; // static payload bytes (0: unknown)
    std::vector<PayloadEntry> entries;
};

// What NCCL's own NVTX says of a process (ncclCommInitRank's payload): its rank in its largest
// communicator.
struct NcclRank {
    int rank = -1;
    int ranks = 0;
};

struct Shared {
    std::string file;
    StringTable strings;
    std::optional<std::uint32_t> partPid; // the part's process; none: every process
    std::map<std::int64_t, std::string> memcpyKinds, memKinds; // ENUM_* labels (or nsys's own)
    // NVTX names: domains (eventType 75) and categories (33) by (domain, category).
    std::map<std::int64_t, std::string> domains;
    std::map<std::pair<std::int64_t, std::int64_t>, std::string> categories;
    // Payload schemas by (domain, schema id).
    std::map<std::pair<std::int64_t, std::int64_t>, PayloadSchema> schemas;
    std::map<std::uint32_t, NcclRank> ncclRanks; // by pid
    // Call chains: (symbol, module) string ids per depth, innermost first.
    std::unordered_map<std::int64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> cudaChains,
        osrtChains;
    bool wantsProcess(std::uint32_t pid) const { return !partPid || *partPid == pid; }

    // Decodes an NVTX binary payload (a 32-byte header: schema id at 8, payload size at 16,
    // then the payload laid out by its schema's entries) into args; false when it does not
    // decode (unknown schema, too short).
    bool decodePayload(std::int64_t domain, std::string_view blob, Args& args) const;
    // The same, the entries as (name, value) integers only (NCCL's sizes and ranks).
    std::vector<std::pair<std::string, std::int64_t>> payloadIntegers(std::int64_t domain,
                                                                      std::string_view blob) const;
};

// NVTX's names and NCCL's ranks, read before the NVTX events (nvtxnames.cpp): the domains
// (nvtxDomainCreate) and categories (nvtxNameCategory) ranges name by id, each process's rank in
// NCCL's largest communicator (the payload of ncclCommInitRank / ncclCommSplit).
struct NvtxNames {
    std::map<std::int64_t, std::string> domains;
    std::map<std::pair<std::int64_t, std::int64_t>, std::string> categories;
    std::map<std::uint32_t, NcclRank> ncclRanks;
};
bool readNvtxNames(sqlite::Database& db, const std::shared_ptr<const sqlite::PageFile>& pages,
                   const Shared& shared, bool raw, const std::atomic<bool>* cancel, NvtxNames& out,
                   std::string* error);

// The step an NVTX range marks: PyTorch's "ProfilerStep#N", or a range named "step N",
// "iteration N", "iter N", "train_step N" (any case; separators ' ', '_', '#', ':', '=', '-').
std::optional<int> stepOf(std::string_view name);

// PyTorch's emit_nvtx names its op ranges "aten::mm, seq = 12, op_id = 40, sizes = [[2, 3]]":
// the op's name and the fields after it (nullopt for a name of another shape).
struct TorchOpName {
    std::string_view name;
    std::vector<std::pair<std::string_view, std::string_view>> fields;
};
std::optional<TorchOpName> splitTorchOpName(std::string_view text);

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": nsys's API names carry the version of the
// function's ABI, which nsys's own views leave out.
std::string_view apiName(std::string_view name);

} // namespace rs::nsys
