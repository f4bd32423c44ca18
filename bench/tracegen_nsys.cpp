#include "bench/tracegen_nsys.h"

#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <random>
#include <vector>

namespace rs::tracegen {

namespace {

// The tables as nsys 2026.2 (schema 3.25) creates them, the columns the reader does not read
// included: a row is the size it is in a real export.
constexpr const char* kSchema = R"(
PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT,
  systemClockNs INTEGER);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,
  busLocation TEXT, isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER,
  memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, pwGpuId INTEGER, uuid TEXT,
  luid INTEGER, chipName TEXT, cuDevice INTEGER);
CREATE TABLE TARGET_INFO_CUDA_STREAM (streamId INTEGER NOT NULL, hwId INTEGER NOT NULL,
  vmId INTEGER NOT NULL, processId INTEGER NOT NULL, contextId INTEGER NOT NULL,
  priority INTEGER NOT NULL, flag INTEGER NOT NULL);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL,
  label TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,
  gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
  blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL,
  gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER,
  sharedMemoryLimitConfig INTEGER, qmdBulkReleaseDone INTEGER, qmdPreexitDone INTEGER,
  qmdLastCtaDone INTEGER, graphId INTEGER, clusterX INTEGER, clusterY INTEGER,
  clusterZ INTEGER, clusterSchedulingPolicy INTEGER, maxPotentialClusterSize INTEGER,
  maxActiveClusters INTEGER, sharedMemoryRequestedPercentage INTEGER,
  tensorSizeMinusOneElements TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
  copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,
  srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
  migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER, copyCount INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL,
  bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER,
  int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,
  floatValue REAL, jsonTextId INTEGER, jsonText TEXT, binaryData TEXT);
CREATE TABLE NVTX_PAYLOAD_SCHEMAS (domainId INTEGER, schemaId INTEGER, name TEXT, type INTEGER,
  flags INTEGER, numEntries INTEGER, payloadSize INTEGER, alignTo INTEGER);
CREATE TABLE NVTX_PAYLOAD_SCHEMA_ENTRIES (domainId INTEGER NOT NULL, schemaId INTEGER NOT NULL,
  idx INTEGER NOT NULL, flags INTEGER, type INTEGER, name TEXT, description TEXT,
  arrayOrUnionDetail INTEGER, offset INTEGER);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_NAME','NVIDIA Nsight Systems'),
  ('EXPORT_PRODUCT_VERSION','2026.2.1.210'),('EXPORT_SCHEMA_VERSION','3.25.0');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (0,'CUDA_MEMCPY_KIND_UNKNOWN','Unknown'),
  (1,'CUDA_MEMCPY_KIND_HTOD','Host-to-Device'),(2,'CUDA_MEMCPY_KIND_DTOH','Device-to-Host'),
  (8,'CUDA_MEMCPY_KIND_DTOD','Device-to-Device');
INSERT INTO NVTX_PAYLOAD_SCHEMAS VALUES (1,16777218,NULL,1,NULL,4,24,NULL),
  (1,16777223,NULL,1,NULL,3,24,NULL);
INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES
  (1,16777218,0,NULL,18,'NCCL communicator ID',NULL,NULL,NULL),
  (1,16777218,1,NULL,5,'No. of ranks',NULL,NULL,8),(1,16777218,2,NULL,5,'Rank',NULL,NULL,12),
  (1,16777218,3,NULL,5,'CUDA device',NULL,NULL,16),
  (1,16777223,0,NULL,18,'NCCL communicator ID',NULL,NULL,NULL),
  (1,16777223,1,NULL,22,'Message size [bytes]',NULL,NULL,8),
  (1,16777223,2,NULL,16777232,'Reduction operation',NULL,NULL,16);
BEGIN;
)";

const char* const kOps[] = {"aten::linear", "aten::addmm", "aten::relu",  "aten::layer_norm",
                            "aten::add_",   "aten::mul",   "aten::copy_", "aten::softmax",
                            "aten::matmul", "aten::gelu"};
const char* const kKernels[] = {"ampere_sgemm_128x64_tn",        "elementwise_kernel",
                                "vectorized_elementwise_kernel", "layer_norm_kernel",
                                "softmax_warp_forward",          "reduce_kernel"};

class Writer {
public:
    Writer(sqlite3* db, const NsysRunOptions& o, NsysRunStats* st)
        : m_db(db), m_o(o), m_st(st), m_rng(o.seed)
    {}

    bool run()
    {
        const char* inserts[] = {
            "INSERT INTO StringIds VALUES (?,?)",
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start,end,deviceId,contextId,streamId,"
            "correlationId,globalPid,demangledName,shortName,launchType,cacheConfig,"
            "registersPerThread,gridX,gridY,gridZ,blockX,blockY,blockZ,staticSharedMemory,"
            "dynamicSharedMemory,localMemoryPerThread,localMemoryTotal,gridId,"
            "sharedMemoryExecuted,sharedMemoryLimitConfig,tensorSizeMinusOneElements) VALUES "
            "(?,?,0,1,?,?,?,?,?,0,0,?,?,1,1,?,1,1,0,?,0,0,?,0,1,'')",
            "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start,end,deviceId,contextId,streamId,"
            "correlationId,globalPid,bytes,copyKind,srcKind,dstKind,srcDeviceId,srcContextId,"
            "dstDeviceId,dstContextId,copyCount) VALUES (?,?,0,1,?,?,?,?,8,2,2,0,1,0,1,1)",
            "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start,end,deviceId,contextId,streamId,"
            "correlationId,globalPid,value,bytes,memKind) VALUES (?,?,0,1,?,?,?,0,?,2)",
            "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,0,NULL)",
            "INSERT INTO NVTX_EVENTS (start,end,eventType,text,globalTid,textId,domainId,"
            "binaryData) VALUES (?,?,59,?,?,?,?,?)",
        };
        for (std::size_t i = 0; i < std::size(inserts); ++i)
            if (sqlite3_prepare_v2(m_db, inserts[i], -1, &m_stmt[i], nullptr) != SQLITE_OK)
                return false;
        const std::int64_t pid = 4200 + m_o.rank;
        m_gpid = (std::int64_t(1) << 48) | (pid << 24);
        m_gtid = m_gpid | pid;
        // The launch calls and kernels named once.
        for (const char* n :
             {"cudaLaunchKernel_v7000", "cudaMemcpyAsync_v3020", "cudaMemsetAsync_v3020",
              "cuLaunchKernelEx", "ncclCommInitRank", "ncclAllReduce", "python3"})
            name(n);
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "INSERT INTO PROCESSES VALUES (%lld,%lld,'python3');"
                      "INSERT INTO ThreadNames VALUES (%lld,0,%lld);"
                      "INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (7,0,1,%lld,1,0,2),"
                      "(13,0,1,%lld,1,0,2);",
                      static_cast<long long>(m_gpid), static_cast<long long>(pid),
                      static_cast<long long>(name("python3")), static_cast<long long>(m_gtid),
                      static_cast<long long>(pid), static_cast<long long>(pid));
        if (sqlite3_exec(m_db, buf, nullptr, nullptr, nullptr) != SQLITE_OK) return false;
        if (sqlite3_exec(m_db,
                         "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES "
                         "(1767225600000000000,'2026-01-01T00:00:00','2026-01-01T00:00:00',0);"
                         "INSERT INTO TARGET_INFO_GPU (vmId,id,name,busLocation) VALUES "
                         "(281474976710656,0,'NVIDIA H100 80GB HBM3','0000:18:00.0');",
                         nullptr, nullptr, nullptr) != SQLITE_OK)
            return false;

        std::int64_t t = 1'000'000'000; // ns from the capture's start
        // NCCL's set-up: its payload says the rank (8 ranks).
        nvtx(t, t + 50'000, "", name("ncclCommInitRank"), 1, payload(16777218, m_o.rank));
        t += 100'000;
        std::int64_t gpuFree = t;
        for (std::uint64_t step = 1; m_st->rows < m_o.targetRows; ++step) {
            const std::int64_t stepStart = t;
            t += 2'000;
            for (int op = 0; op < 200; ++op) {
                const char* opName = kOps[m_rng() % std::size(kOps)];
                std::snprintf(buf, sizeof buf, "%s, seq = %llu, op_id = %llu", opName,
                              static_cast<unsigned long long>(m_seq),
                              static_cast<unsigned long long>(m_opId));
                ++m_seq;
                ++m_opId;
                const std::int64_t opStart = t;
                t += 1'500;
                // Most ops launch a kernel; some copy or set memory first.
                if (op % 20 == 7) launch(t, gpuFree, 1, 7, 4 << 20, "cudaMemcpyAsync_v3020");
                if (op % 50 == 11) launch(t, gpuFree, 2, 7, 1 << 20, "cudaMemsetAsync_v3020");
                launch(t, gpuFree, 0, 7, 0, "cudaLaunchKernel_v7000");
                t += 1'000;
                nvtx(opStart, t, buf, -1, 0, {});
                t += 500;
            }
            // The step's all-reduce: PyTorch's range, NCCL's own range with its payload, the
            // driver's launch, the kernel on NCCL's stream.
            const std::int64_t collStart = t;
            t += 3'000;
            const std::int64_t ncclStart = t;
            t += 2'000;
            m_kernelName = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
            launch(t, gpuFree, 3, 13, 0, "cuLaunchKernelEx");
            m_kernelName = nullptr;
            t += 2'000;
            nvtx(ncclStart, t, "", name("ncclAllReduce"), 1, payload(16777223, 64 << 20));
            t += 1'000;
            std::snprintf(buf, sizeof buf, "nccl:all_reduce, op_id = %llu",
                          static_cast<unsigned long long>(m_opId++));
            nvtx(collStart, t, buf, -1, 0, {});
            ++m_st->collectives;
            t = std::max(t, gpuFree) + 5'000;
            std::snprintf(buf, sizeof buf, "ProfilerStep#%llu",
                          static_cast<unsigned long long>(step));
            nvtx(stepStart, t, buf, -1, 0, {});
            ++m_st->steps;
            if (step % 64 == 0 &&
                (sqlite3_exec(m_db, "COMMIT; BEGIN;", nullptr, nullptr, nullptr) != SQLITE_OK))
                return false;
        }
        for (sqlite3_stmt* s : m_stmt)
            sqlite3_finalize(s);
        return sqlite3_exec(m_db, "COMMIT;", nullptr, nullptr, nullptr) == SQLITE_OK;
    }

private:
    // A StringIds id of text, added on first use.
    std::int64_t name(const std::string& text)
    {
        auto it = m_names.find(text);
        if (it != m_names.end()) return it->second;
        const std::int64_t id = std::int64_t(m_names.size());
        m_names.emplace(text, id);
        sqlite3_stmt* s = m_stmt[0];
        sqlite3_bind_int64(s, 1, id);
        sqlite3_bind_text(s, 2, text.data(), int(text.size()), SQLITE_TRANSIENT);
        step(s);
        return id;
    }

    void step(sqlite3_stmt* s)
    {
        m_ok = m_ok && sqlite3_step(s) == SQLITE_DONE;
        sqlite3_reset(s);
    }

    // NCCL's payload: the 32-byte header (schema id at 8, payload size at 16, total at 24),
    // then the schema's entries. Init: communicator, ranks 8, rank, device 0; all-reduce:
    // communicator, message size.
    std::vector<unsigned char> payload(std::uint64_t schema, std::uint64_t value)
    {
        std::vector<unsigned char> b(32 + 24, 0);
        auto put = [&](std::size_t at, std::uint64_t v, int n) {
            for (int i = 0; i < n; ++i)
                b[at + std::size_t(i)] = static_cast<unsigned char>(v >> (8 * i));
        };
        put(0, 1, 4);
        put(8, schema, 8);
        put(16, 24, 8);
        put(24, 56, 8);
        put(32, 0x5eed, 8);
        if (schema == 16777218) {
            put(32 + 8, 8, 4);
            put(32 + 12, value, 4);
            put(32 + 16, 0, 4);
        } else {
            put(32 + 8, value, 8);
        }
        return b;
    }

    void nvtx(std::int64_t start, std::int64_t end, const char* text, std::int64_t textId,
              std::int64_t domain, const std::vector<unsigned char>& blob)
    {
        sqlite3_stmt* s = m_stmt[5];
        sqlite3_bind_int64(s, 1, start);
        sqlite3_bind_int64(s, 2, end);
        if (textId < 0)
            sqlite3_bind_text(s, 3, text, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(s, 3);
        sqlite3_bind_int64(s, 4, m_gtid);
        if (textId >= 0)
            sqlite3_bind_int64(s, 5, textId);
        else
            sqlite3_bind_null(s, 5);
        sqlite3_bind_int64(s, 6, domain);
        if (blob.empty())
            sqlite3_bind_null(s, 7);
        else
            sqlite3_bind_blob(s, 7, blob.data(), int(blob.size()), SQLITE_TRANSIENT);
        step(s);
        ++m_st->rows;
        ++m_st->ranges;
    }

    // A CUDA call at t and the GPU work it launched: a kernel (what 0), memcpy (1), memset (2)
    // or NCCL's kernel through the driver (3).
    void launch(std::int64_t& t, std::int64_t& gpuFree, int what, std::int64_t stream,
                std::int64_t bytes, const char* api)
    {
        const std::int64_t corr = ++m_corr;
        const std::int64_t callStart = t, callEnd = t + 3'000 + std::int64_t(m_rng() % 2'000);
        sqlite3_stmt* r = m_stmt[4];
        sqlite3_bind_int64(r, 1, callStart);
        sqlite3_bind_int64(r, 2, callEnd);
        sqlite3_bind_int64(r, 3, what == 3 ? 1 : 0);
        sqlite3_bind_int64(r, 4, m_gtid);
        sqlite3_bind_int64(r, 5, corr);
        sqlite3_bind_int64(r, 6, name(api));
        step(r);
        ++m_st->rows;
        ++m_st->calls;
        t = callEnd + 200;
        const std::int64_t start = std::max(gpuFree, callStart + 5'000);
        const std::int64_t dur = what == 3 ? 400'000 : 5'000 + std::int64_t(m_rng() % 40'000);
        gpuFree = start + dur;
        if (what == 0 || what == 3) {
            const char* k = m_kernelName ? m_kernelName : kKernels[m_rng() % std::size(kKernels)];
            const std::string demangled = std::string("void ") + k + "<float, 4>(float*, int)";
            sqlite3_stmt* s = m_stmt[1];
            int i = 1;
            sqlite3_bind_int64(s, i++, start);
            sqlite3_bind_int64(s, i++, start + dur);
            sqlite3_bind_int64(s, i++, stream);
            sqlite3_bind_int64(s, i++, corr);
            sqlite3_bind_int64(s, i++, m_gpid);
            sqlite3_bind_int64(s, i++, name(demangled));
            sqlite3_bind_int64(s, i++, name(k));
            sqlite3_bind_int64(s, i++, 32 + std::int64_t(m_rng() % 64));
            sqlite3_bind_int64(s, i++, 1 + std::int64_t(m_rng() % 4096));
            sqlite3_bind_int64(s, i++, 128 << (m_rng() % 3));
            sqlite3_bind_int64(s, i++, std::int64_t(m_rng() % 2) * 16384);
            sqlite3_bind_int64(s, i++, corr);
            step(s);
            ++m_st->kernels;
        } else {
            sqlite3_stmt* s = m_stmt[what == 1 ? 2 : 3];
            sqlite3_bind_int64(s, 1, start);
            sqlite3_bind_int64(s, 2, start + dur);
            sqlite3_bind_int64(s, 3, stream);
            sqlite3_bind_int64(s, 4, corr);
            sqlite3_bind_int64(s, 5, m_gpid);
            sqlite3_bind_int64(s, 6, bytes);
            step(s);
            ++(what == 1 ? m_st->copies : m_st->sets);
        }
        ++m_st->rows;
    }

public:
    bool ok() const { return m_ok; }

private:
    sqlite3* m_db;
    const NsysRunOptions& m_o;
    NsysRunStats* m_st;
    std::mt19937_64 m_rng;
    sqlite3_stmt* m_stmt[6] = {};
    std::map<std::string, std::int64_t> m_names;
    std::int64_t m_gpid = 0, m_gtid = 0, m_corr = 0;
    std::uint64_t m_seq = 1, m_opId = 1;
    const char* m_kernelName = nullptr;
    bool m_ok = true;
};

} // namespace

bool writeNsysRun(const std::string& outDir, const NsysRunOptions& options, NsysRunStats* stats,
                  std::string* error)
{
    namespace fs = std::filesystem;
    NsysRunStats local;
    NsysRunStats& st = stats ? *stats : local;
    st = {};
    std::error_code ec;
    fs::create_directories(outDir, ec);
    st.path = (fs::path(outDir) / ("report_" + std::to_string(options.rank) + ".sqlite")).string();
    fs::remove(st.path, ec);
    sqlite3* db = nullptr;
    if (sqlite3_open(st.path.c_str(), &db) != SQLITE_OK ||
        sqlite3_exec(db, kSchema, nullptr, nullptr, nullptr) != SQLITE_OK) {
        if (error) *error = st.path + ": " + (db ? sqlite3_errmsg(db) : "cannot create");
        sqlite3_close(db);
        return false;
    }
    Writer w(db, options, &st);
    const bool ok = w.run() && w.ok();
    sqlite3_close(db);
    if (!ok && error) *error = "cannot write " + st.path;
    return ok;
}

} // namespace rs::tracegen
