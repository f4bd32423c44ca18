#include "core/producers/nsys/schema.h"

#include "core/sqlite/sqlitedb.h"

#include <QRegularExpression>
#include <QString>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

namespace rs::nsys {

const std::vector<TableSpec>& tableSpecs()
{
    // Columns as nsys 2024.5 (schema 3.13) to 2026.2 (3.25) write them; older and newer
    // versions add and drop optional ones.
    static const std::vector<TableSpec> specs = {
        {"StringIds", "id,value", ""},
        {"CUPTI_ACTIVITY_KIND_KERNEL", "start,end,deviceId,streamId,globalPid,shortName",
         "contextId,correlationId,demangledName,gridX,gridY,gridZ,blockX,blockY,blockZ,"
         "registersPerThread,staticSharedMemory,dynamicSharedMemory,graphNodeId"},
        {"CUPTI_ACTIVITY_KIND_MEMCPY", "start,end,deviceId,streamId,globalPid,bytes,copyKind",
         "contextId,correlationId,srcKind,dstKind,srcDeviceId,dstDeviceId,graphNodeId"},
        {"CUPTI_ACTIVITY_KIND_MEMSET", "start,end,deviceId,streamId,globalPid,bytes",
         "contextId,correlationId,value,graphNodeId"},
        {"CUPTI_ACTIVITY_KIND_RUNTIME", "start,end,globalTid,nameId",
         "eventClass,correlationId,returnValue,callchainId"},
        {"NVTX_EVENTS", "start,eventType",
         "end,category,text,globalTid,endGlobalTid,textId,domainId,uint64Value,int64Value,"
         "doubleValue,uint32Value,int32Value,floatValue,jsonText,binaryData"},
        {"OSRT_API", "start,end,globalTid,nameId", "eventClass,returnValue,callchainId"},
        {"CUDA_CALLCHAINS", "id,symbol,stackDepth", "module"},
        {"OSRT_CALLCHAINS", "id,symbol,stackDepth", "module"},
        {"PROCESSES", "globalPid", "pid,name"},
        {"ThreadNames", "nameId,globalTid", ""},
        {"TARGET_INFO_GPU", "id", "name,busLocation"},
        {"TARGET_INFO_SESSION_START_TIME", "utcEpochNs", ""},
        {"TARGET_INFO_CUDA_STREAM", "streamId,processId", "contextId"},
        {"NVTX_PAYLOAD_SCHEMAS", "schemaId", "domainId,payloadSize"},
        {"NVTX_PAYLOAD_SCHEMA_ENTRIES", "schemaId,idx,type", "domainId,name,offset"},
        {"ENUM_CUDA_MEMCPY_OPER", "id", "label"},
        {"ENUM_CUDA_MEM_KIND", "id", "label"},
        {"META_DATA_EXPORT", "name,value", ""},
        {"EXPORT_META_DATA", "name,value", ""},
    };
    return specs;
}

ExportSchema readSchema(sqlite::Database& db)
{
    ExportSchema s;
    sqlite::Statement st =
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'", "sqlite_master");
    while (st.valid() && st.step())
        s.tables.emplace(st.text(0));
    bool activity = false;
    for (const std::string& t : s.tables)
        activity |= t.rfind("CUPTI_ACTIVITY_KIND_", 0) == 0;
    const bool meta = s.tables.count("META_DATA_EXPORT") || s.tables.count("EXPORT_META_DATA");
    s.isExport = s.tables.count("StringIds") && (meta || activity);
    for (const char* t : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
        if (!s.tables.count(t)) continue;
        const std::vector<std::string> cols = db.columns(t);
        auto has = [&](const char* c) {
            return std::find(cols.begin(), cols.end(), c) != cols.end();
        };
        if (!has("name") || !has("value")) continue;
        sqlite::Statement m = db.prepare(std::string("SELECT name, value FROM ") + t, t);
        while (m.valid() && m.step()) {
            const std::string_view name = m.text(0);
            if (name == "EXPORT_PRODUCT_VERSION") s.productVersion = std::string(m.text(1));
            if (name == "EXPORT_SCHEMA_VERSION") s.schemaVersion = std::string(m.text(1));
        }
    }
    return s;
}

bool isSqliteFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    char head[16] = {};
    return in.read(head, 16) && std::memcmp(head, "SQLite format 3\0", 16) == 0;
}

namespace {

// What resolve() and discovery ask of one file, kept by its identity (path, size, mtime):
// every path is resolved several times on the way to a load.
struct FileFacts {
    std::uintmax_t size = 0;
    std::filesystem::file_time_type mtime;
    bool isExport = false;
    std::vector<std::uint32_t> gpuProcesses;
};

std::optional<FileFacts> factsOf(const std::string& path)
{
    static std::mutex mutex;
    static std::map<std::string, FileFacts> known;
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return std::nullopt;
    const auto mtime = std::filesystem::last_write_time(path, ec);
    if (ec) return std::nullopt;
    {
        std::lock_guard lock(mutex);
        auto it = known.find(path);
        if (it != known.end() && it->second.size == size && it->second.mtime == mtime)
            return it->second;
    }
    FileFacts f;
    f.size = size;
    f.mtime = mtime;
    if (isSqliteFile(path)) {
        sqlite::Database db;
        if (db.open(path)) {
            const ExportSchema s = readSchema(db);
            f.isExport = s.isExport;
            if (f.isExport) f.gpuProcesses = gpuProcesses(db, s);
        }
    }
    std::lock_guard lock(mutex);
    if (known.size() > 4096) known.clear(); // a bound, not a policy: discovery of huge folders
    known[path] = f;
    return f;
}

bool hasColumn(sqlite::Database& db, const char* table, const char* column)
{
    const std::vector<std::string> cols = db.columns(table);
    return std::find(cols.begin(), cols.end(), column) != cols.end();
}

} // namespace

bool isExportFile(const std::string& path)
{
    const auto f = factsOf(path);
    return f && f->isExport;
}

std::vector<std::uint32_t> gpuProcesses(const std::string& path)
{
    const auto f = factsOf(path);
    return f ? f->gpuProcesses : std::vector<std::uint32_t>();
}

std::vector<std::uint32_t> gpuProcesses(sqlite::Database& db, const ExportSchema& schema)
{
    std::set<std::uint32_t> pids;
    if (schema.tables.count("TARGET_INFO_CUDA_STREAM") &&
        hasColumn(db, "TARGET_INFO_CUDA_STREAM", "processId")) {
        sqlite::Statement st = db.prepare("SELECT DISTINCT processId FROM TARGET_INFO_CUDA_STREAM",
                                          "TARGET_INFO_CUDA_STREAM");
        while (st.valid() && st.step())
            if (auto p = st.integer(0); p && *p >= 0 && *p < (1 << 24)) pids.insert(*p);
    }
    if (pids.empty()) {
        // No stream table (older exports): the activity tables say, at the cost of a scan.
        for (const char* t : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                              "CUPTI_ACTIVITY_KIND_MEMSET"}) {
            if (!schema.tables.count(t) || !hasColumn(db, t, "globalPid")) continue;
            sqlite::Statement st = db.prepare(
                std::string("SELECT DISTINCT (globalPid >> 24) & 16777215 FROM ") + t, t);
            while (st.valid() && st.step())
                if (auto p = st.integer(0); p && *p >= 0) pids.insert(std::uint32_t(*p));
        }
    }
    return {pids.begin(), pids.end()};
}

std::string partOfProcess(std::uint32_t pid)
{
    return "pid " + std::to_string(pid);
}

std::optional<std::uint32_t> processOfPart(std::string_view part)
{
    constexpr std::string_view prefix = "pid ";
    if (!part.starts_with(prefix)) return std::nullopt;
    part.remove_prefix(prefix.size());
    std::uint32_t pid = 0;
    const auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), pid);
    if (ec != std::errc() || p != part.data() + part.size() || pid >= (1u << 24))
        return std::nullopt;
    return pid;
}

std::optional<int> rankInFileName(const std::string& path)
{
    static const QRegularExpression re("(?:[_-]|rank)(\\d{1,6})\\.(?:sqlite|nsys-rep|qdrep)$",
                                       QRegularExpression::CaseInsensitiveOption);
    const QString name = QString::fromStdString(std::filesystem::path(path).filename().string());
    const auto m = re.match(name);
    if (!m.hasMatch()) return std::nullopt;
    return m.captured(1).toInt();
}

} // namespace rs::nsys
