// torch_npu's database export (export_type=db): per rank a *_ascend_pt folder whose
// ASCEND_PROFILER_OUTPUT holds ascend_pytorch_profiler_N.db (SQLite) and analysis.db
// (torch_npu's own figures: never read, the tests' oracle). The reader (dbreader.h) builds the
// timeline the text export would show, so roles and analysis are torch_npu's.

#include "core/producers/producer.h"
#include "core/analysis/producermodel.h"
#include "core/producers/classify.h"
#include "core/producers/runfacts.h"
#include "core/producers/torchnpu/model.h"
#include "core/producers/torchnpu/runfolder.h"
#include "core/producers/torchnpudb/dbreader.h"
#include "core/sqlite/sqlitedb.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

namespace rs {

namespace {

// torch_npu names it ascend_pytorch_profiler_{rank}.db, or ascend_pytorch_profiler.db when the
// run had no rank (_db_parser.py).
bool isProfilerDb(const QString& fileName)
{
    static const QRegularExpression re("^ascend_pytorch_profiler(_\\d+)?\\.db$");
    return re.match(fileName).hasMatch();
}

// The database in a folder: the first ascend_pytorch_profiler*.db by name.
QString databaseIn(const QDir& dir)
{
    for (const QString& n : dir.entryList({"ascend_pytorch_profiler*.db"}, QDir::Files, QDir::Name))
        if (isProfilerDb(n)) return dir.filePath(n);
    return {};
}

class TorchNpuDbProducer final : public Producer {
public:
    std::string_view id() const override { return "torch_npu_db"; }
    std::string_view name() const override { return "torch_npu"; }
    std::string_view format() const override { return "sqlite"; }

    std::optional<SourceMatch> resolve(const QFileInfo& info) const override
    {
        if (!info.isDir()) {
            // The database file itself; a .db of another name only when it is SQLite.
            if (!isProfilerDb(info.fileName()) &&
                !(info.suffix().compare("db", Qt::CaseInsensitive) == 0 && isSqlite(info) &&
                  info.fileName() != "analysis.db" && hasProfilerTables(info)))
                return std::nullopt;
            return match(info);
        }
        const QDir dir(info.absoluteFilePath());
        QString db = databaseIn(QDir(dir.filePath(torchnpu::kOutputFolder)));
        if (db.isEmpty()) db = databaseIn(dir); // the ASCEND_PROFILER_OUTPUT folder itself
        if (db.isEmpty()) return std::nullopt;
        return match(QFileInfo(db));
    }

    bool isRunFolder(const QDir& d) const override
    {
        return !databaseIn(QDir(d.filePath(torchnpu::kOutputFolder))).isEmpty() ||
               !databaseIn(d).isEmpty();
    }

    bool isRankFile(const QFileInfo& f) const override
    {
        return f.isFile() && isProfilerDb(f.fileName());
    }

    // A database row is a few dozen bytes; its event in the model, with its args as JSON text,
    // several times that: the peak of a load was 4.9x the file (bench_load, a 10M-row run).
    std::uint64_t projectedModelBytes(const std::string& file) const override
    {
        const qint64 size = QFileInfo(QString::fromStdString(file)).size();
        return static_cast<std::uint64_t>(std::max<qint64>(size, 0)) * 5;
    }

    std::optional<int> worldSizeBeside(const std::string& file) const override
    {
        return producers::worldSizeInFiles(torchnpu::runMetadataFiles(file));
    }

    std::vector<InputKind> inputs() const override
    {
        InputKind k;
        k.what = "torch_npu database export: ascend_pytorch_profiler_N.db, or its run folder";
        k.globs = {"ascend_pytorch_profiler*.db"};
        k.lookedFor = "tables TASK, PYTORCH_API, CANN_API or COMMUNICATION_OP";
        return {k};
    }

    LoadResult read(const SourceMatch& source, const LoadOptions& options,
                    LoadProgress* progress) const override
    {
        return torchnpudb::readDatabase(source.file, source.rank, options, progress);
    }

    std::vector<TrackRole> trackRoles(const Trace& trace) const override
    {
        return torchnpu::roles(trace);
    }

    // The reader names rows as the text export names its events, so the text export's
    // conventions classify them.
    void classify(const Trace& trace, SliceClasses& out) const override
    {
        producers::ChromeTraceKinds(trace).classify(out);
    }

    const analysis::ProducerModel& analysis() const override { return analysis::torchNpuModel(); }

private:
    static bool isSqlite(const QFileInfo& info)
    {
        QFile f(info.filePath());
        return f.open(QIODevice::ReadOnly) && f.read(16) == QByteArray("SQLite format 3\0", 16);
    }

    // A database of another name is this producer's when it has one of its tables (an SQLite
    // file of another tool is left to the others, or to the registry's message).
    static bool hasProfilerTables(const QFileInfo& info)
    {
        sqlite::Database db;
        if (!db.open(info.filePath().toStdString())) return false;
        for (const char* t : {"TASK", "PYTORCH_API", "CANN_API", "COMMUNICATION_OP"})
            if (db.hasTable(t)) return true;
        return false;
    }

    static SourceMatch match(const QFileInfo& db)
    {
        SourceMatch m{db.filePath().toStdString(), std::nullopt};
        // The run folder's profiler_info_N.json; else the reader asks the database's
        // RANK_DEVICE_MAP, then the N of the file's name.
        const std::string run = torchnpu::runFolderOf(m.file);
        if (!run.empty()) m.rank = torchnpu::rankFromProfilerInfo(run);
        return m;
    }
};

} // namespace

const Producer& torchNpuDbProducer()
{
    static const TorchNpuDbProducer p;
    return p;
}

} // namespace rs
