// NVTX's names and NCCL's ranks, read from NVTX_EVENTS before its events are: the domains
// (nvtxDomainCreate, eventType 75) and categories (nvtxNameCategory, 33) the ranges name by id,
// and the payload of NCCL's communicator set-up ranges (ncclCommInitRank*, ncclCommSplit),
// whose entries "Rank" and "No. of ranks" say each process's rank. One pass over the table's
// first columns (the page reader decodes a record only that far); the few set-up rows' payloads
// read by rowid after it.

#include "core/producers/nsys/schema.h"
#include "core/producers/nsys/shared.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace rs::nsys {

namespace {

bool isCommSetup(std::string_view name)
{
    return name.starts_with("ncclCommInitRank") || name.starts_with("ncclCommSplit") ||
           name.starts_with("ncclCommInitAll");
}

void takeRanks(const Shared& s, std::int64_t domain, std::optional<std::int64_t> gtid,
               std::string_view blob, NvtxNames& out)
{
    if (!gtid || blob.empty()) return;
    int rank = -1, ranks = 0;
    for (const auto& [name, value] : s.payloadIntegers(domain, blob)) {
        if (name == "Rank") rank = int(std::clamp<std::int64_t>(value, -1, 1 << 24));
        if (name == "No. of ranks") ranks = int(std::clamp<std::int64_t>(value, 0, 1 << 24));
    }
    if (rank < 0 || ranks <= 0 || rank >= ranks) return;
    // The process's rank in its largest communicator (the world's).
    NcclRank& r = out.ncclRanks[pidOf(*gtid)];
    if (ranks > r.ranks) r = {rank, ranks};
}

} // namespace

bool readNvtxNames(sqlite::Database& db, const std::shared_ptr<const sqlite::PageFile>& pages,
                   const Shared& shared, bool raw, const std::atomic<bool>* cancel, NvtxNames& out,
                   std::string* error)
{
    raw = raw && pages;
    // Through SQL the payload comes in the same pass; the page reader reads it after, by rowid.
    const TableRead t =
        raw ? resolveTable(db, "NVTX_EVENTS",
                           {"eventType", "category", "text", "globalTid", "textId", "domainId"},
                           true)
            : resolveTable(db, "NVTX_EVENTS",
                           {"eventType", "category", "text", "globalTid", "textId", "domainId",
                            "binaryData"},
                           false);
    std::vector<std::int64_t> setup; // rowids of NCCL's set-up ranges
    auto nameOf = [&](const RowView& r) -> std::string_view {
        if (!r.isNull(2)) return r.text(2);
        if (auto id = r.integer(4))
            if (auto s = shared.strings.find(*id)) return *s;
        return {};
    };
    const bool ok = scan(db, pages, t, std::nullopt, cancel, error, [&](const RowView& r) {
        const auto type = r.integer(0);
        if (!type) return;
        const std::int64_t domain = r.integer(5).value_or(0);
        if (*type == 75) {
            out.domains[domain] = std::string(nameOf(r));
        } else if (*type == 33) {
            if (auto c = r.integer(1)) out.categories[{domain, *c}] = std::string(nameOf(r));
        } else if (isCommSetup(nameOf(r))) {
            if (raw)
                setup.push_back(r.rowid());
            else
                takeRanks(shared, domain, r.integer(3), r.text(6), out);
        }
    });
    if (!ok) return false;
    if (setup.empty()) return true;
    const TableRead payload =
        resolveTable(db, "NVTX_EVENTS", {"globalTid", "domainId", "binaryData"}, true);
    for (std::int64_t id : setup)
        if (!scan(db, pages, payload, std::pair{id, id}, cancel, error, [&](const RowView& r) {
                takeRanks(shared, r.integer(1).value_or(0), r.integer(0), r.text(2), out);
            }))
            return false;
    return true;
}

} // namespace rs::nsys
