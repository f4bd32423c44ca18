#include "tests/testutil.h"

#include "core/job/jobloader.h"

#include <QByteArray>
#include <QDir>
#include <QFileInfo>

namespace rs::test {

QString publicTracesDir()
{
    const QString dir = QDir(QStringLiteral(RINGSCOPE_SHARED_DIR)).filePath("traces/public");
    return QFileInfo(dir).isDir() ? QDir(dir).absolutePath() : QString();
}

QString publicTrace(const QString& relative)
{
    const QString dir = publicTracesDir();
    return dir.isEmpty() ? QString() : QDir(dir).filePath(relative);
}

const std::vector<PublicTraceCase>& publicSingleRankTraces()
{
    static const std::vector<PublicTraceCase> cases{
        {"level0_rank0", "ascend_torchnpu_level0_rank0/rank0_ascend_pt"},
        {"single_npu", "ascend_torchnpu_single_npu_mstt_advisor/trace_view.json"},
        {"hta_2rank", "kineto_nccl_a100_2rank_hta/nccl_data.json.gz"},
        {"hta_alltoall", "kineto_nccl_a100_8rank_alltoall_hta/control.json.gz"},
        {"hta_torchrec", "kineto_nccl_a100_16rank_torchrec_hta/rank0.json.gz"},
        {"vllm_b200", "kineto_nccl_b200_vllm_tp8_no_metadata_tracelens/eager_trace.json.gz"},
        {"rccl_mi300x",
         "kineto_rccl_mi300x_ddp_with_stack_tracelens/resnet_act_checkpoint.json.gz"},
    };
    return cases;
}

QStringList publicSets()
{
    const QString dir = publicTracesDir();
    return dir.isEmpty() ? QStringList()
                         : QDir(dir).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
}

QString unreadSet(const QString& path)
{
    std::string error;
    const std::vector<RankInput> ranks = discoverJob({path.toStdString()}, &error);
    if (!ranks.empty()) return {};
    return QString::fromStdString(error.empty() ? "no trace found" : error);
}

QString testDataPath(const QString& name)
{
    return QDir(QStringLiteral(RINGSCOPE_TEST_DATA)).filePath(name);
}

bool inShard(int index)
{
    const QList<QByteArray> parts = qgetenv("RS_TEST_SHARD").split('/');
    bool okK = false, okN = false;
    const int k = parts.size() == 2 ? parts[0].toInt(&okK) : 0;
    const int n = parts.size() == 2 ? parts[1].toInt(&okN) : 0;
    if (!okK || !okN || n <= 0 || k < 0 || k >= n) return true;
    return index % n == k;
}

QString binaryDir()
{
    return QStringLiteral(RINGSCOPE_BINARY_DIR);
}

LoadResult loadText(const std::string& json, const LoadOptions& options)
{
    return loadTraceFromMemory(json.data(), json.size(), options, "<test>");
}

} // namespace rs::test
