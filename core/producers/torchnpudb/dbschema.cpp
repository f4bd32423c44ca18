// The schema torch_npu's database reader reads (dbreader.h): its tables and columns, and the
// check that a file has them.

#include "core/producers/torchnpudb/dbreader.h"

#include "core/sqlite/sqlitedb.h"

#include <algorithm>
#include <string_view>

namespace rs::torchnpudb {

const TableColumns kTables[] = {
    {"STRING_IDS", "id,value"},
    {"TASK", "startNs,endNs,deviceId,connectionId,globalTaskId,globalPid,taskType,contextId,"
             "streamId,taskId,modelId"},
    {"COMPUTE_TASK_INFO", "name,globalTaskId,taskType"},
    {"COMMUNICATION_TASK_INFO", "name,globalTaskId,taskType,planeId,groupName,notifyId,srcRank,"
                                "dstRank,transportType,size,dataType,linkType,opId"},
    {"COMMUNICATION_OP", "opName,startNs,endNs,connectionId,groupName,opId,dataType,algType,count"},
    {"CANN_API", "startNs,endNs,type,globalTid,connectionId,name"},
    {"PYTORCH_API", "startNs,endNs,globalTid,connectionId,name,sequenceNumber,fwdThreadId,"
                    "inputDtypes,inputShapes,callchainId"},
    {"PYTORCH_CALLCHAINS", "id,stack,stackDepth"},
    {"CONNECTION_IDS", "id,connectionId"},
    {"STEP_TIME", "id,startNs,endNs"},
    {"RANK_DEVICE_MAP", "rankId,deviceId"},
    {"ENUM_API_TYPE", "id,name"},
    {"ENUM_HCCL_DATA_TYPE", "id,name"},
    {"ENUM_HCCL_LINK_TYPE", "id,name"},
    {"ENUM_HCCL_TRANSPORT_TYPE", "id,name"},
    {"NPU_MEM", "type,ddr,hbm,timestampNs,deviceId"},
    {"HBM", "deviceId,timestampNs,bandwidth,hbmId,type"},
    {"AICORE_FREQ", "deviceId,timestampNs,freq"},
    {"LLC", "deviceId,llcId,timestampNs,hitRate,throughput,mode"},
};
const std::size_t kTableCount = std::size(kTables);

// Every table read is optional, but a present table must have the columns read of it.
std::string checkSchema(sqlite::Database& db, const std::string& name, bool* hasType)
{
    bool any = false;
    for (const TableColumns& tc : kTables) {
        if (!db.hasTable(tc.table)) continue;
        const std::vector<std::string> have = db.columns(tc.table);
        std::string_view cols = tc.columns;
        while (!cols.empty()) {
            const std::size_t comma = cols.find(',');
            const std::string_view c = cols.substr(0, comma);
            if (std::find(have.begin(), have.end(), c) == have.end())
                return name + ": table " + tc.table + " has no column " + std::string(c) +
                       " (not the torch_npu database schema this version reads)";
            cols = comma == std::string_view::npos ? std::string_view() : cols.substr(comma + 1);
        }
        const std::string_view t = tc.table;
        any |= t == "TASK" || t == "PYTORCH_API" || t == "CANN_API" || t == "COMMUNICATION_OP";
    }
    if (!any)
        return name + ": no table TASK, PYTORCH_API, CANN_API or COMMUNICATION_OP (not a torch_npu "
                      "profiler database: ascend_pytorch_profiler_N.db)";
    if (!db.hasTable("STRING_IDS"))
        return name + ": table STRING_IDS is missing (every name of the database is in it)";
    *hasType = db.hasTable("PYTORCH_API") &&
               std::ranges::count(db.columns("PYTORCH_API"), std::string("type")) > 0;
    return {};
}

} // namespace rs::torchnpudb
