#include "tests/support/frdumps.h"

#include "tests/testutil.h"

#include <QDir>
#include <QFile>

#include <nlohmann/json.hpp>

namespace rs::test {

using namespace flightrecorder;
using J = nlohmann::json;

std::vector<Dump> loadFrSet(const char* set)
{
    std::vector<Dump> dumps;
    for (int rank = 0; rank < 16; ++rank) {
        const std::string path = (publicTrace(set) + QString("/_dump_%1").arg(rank)).toStdString();
        DumpResult r = readDump(path);
        if (!r.ok()) qFatal("%s", r.error.c_str());
        dumps.push_back(std::move(*r.dump));
    }
    return dumps;
}

std::string frDumpJson(const Dump& d)
{
    J root;
    root["version"] = "2.10";
    root["comm_lib_version"] = d.ncclVersion;
    root["nccl_comm_state"] = {{"0", {{"some", "state"}}}};
    J config = J::object();
    for (const auto& [name, g] : d.groups) {
        std::string ranks = "[";
        for (std::size_t i = 0; i < g.ranks.size(); ++i)
            ranks += (i ? ", " : "") + std::to_string(g.ranks[i]);
        config[name] = {{"name", g.name}, {"desc", g.desc}, {"ranks", ranks + "]"}};
    }
    root["pg_config"] = config;
    J status = J::object();
    for (const auto& [id, s] : d.status)
        status[std::to_string(id)] = {
            {"last_enqueued_collective", std::to_string(s.lastEnqueued)},
            {"last_started_collective", std::to_string(s.lastStarted)},
            {"last_completed_collective", std::to_string(s.lastCompleted)}};
    root["pg_status"] = status;
    J entries = J::array();
    for (const Entry& e : d.entries)
        entries.push_back(
            {{"record_id", e.recordId},
             {"pg_id", e.pgId},
             {"process_group", {e.groupName, e.groupDesc}},
             {"collective_seq_id", e.collectiveSeqId},
             {"p2p_seq_id", e.p2pSeqId},
             {"op_id", e.opId},
             {"profiling_name", e.profilingName},
             {"time_created_ns", e.timeCreatedNs},
             {"input_sizes", e.inputSizes},
             {"input_dtypes", e.inputDtypes},
             {"output_sizes", e.outputSizes},
             {"output_dtypes", e.outputDtypes},
             {"state", entryStateName(e.state)},
             {"time_discovered_started_ns", e.timeDiscoveredStartedNs.value_or(0)},
             {"time_discovered_completed_ns", e.timeDiscoveredCompletedNs.value_or(0)},
             {"retired", e.retired.value_or(false)},
             {"timeout_ms", e.timeoutMs.value_or(0)},
             {"is_p2p", e.isP2p.value_or(false)},
             {"thread_id", e.threadId},
             {"thread_name", e.threadName},
             {"a_key_from_the_future", {1, 2, 3}}});
    // The Python stack of a call, innermost first, as PyTorch writes it with stack traces on.
    for (std::size_t i = 0; i < d.entries.size(); ++i) {
        if (d.entries[i].frames.empty()) continue;
        J frames = J::array();
        for (const Frame& f : d.entries[i].frames)
            frames.push_back({{"name", f.name}, {"filename", f.filename}, {"line", f.line}});
        entries[i]["frames"] = std::move(frames);
    }
    if (!entries.empty()) root["entries"] = entries;
    return root.dump();
}

bool writeFrJob(const QString& dir, const std::vector<Dump>& dumps)
{
    if (!QDir().mkpath(dir)) return false;
    for (const Dump& d : dumps) {
        if (!d.rank) continue;
        QFile f(QDir(dir).filePath(QString("_dump_%1.json").arg(*d.rank)));
        const std::string text = frDumpJson(d);
        if (!f.open(QIODevice::WriteOnly) ||
            f.write(text.data(), qint64(text.size())) != qint64(text.size()))
            return false;
    }
    return true;
}

} // namespace rs::test
