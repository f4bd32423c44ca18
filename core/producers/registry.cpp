#include "core/producers/registry.h"

#include "core/parallelloader.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>

namespace rs {

#define RS_PRODUCER(n) const Producer& n##Producer();
#include "core/producers/list.h"
#undef RS_PRODUCER

std::uint64_t Producer::projectedModelBytes(const std::string& file) const
{
    // Measured ratios of model to file size: about 1 for JSON, 12 for gzip.
    QFile f(QString::fromStdString(file));
    const auto size = static_cast<std::uint64_t>(std::max<qint64>(f.size(), 0));
    bool gz = false;
    if (f.open(QIODevice::ReadOnly)) {
        const QByteArray head = f.read(2);
        gz = head.size() == 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
             static_cast<unsigned char>(head[1]) == 0x8b;
    }
    return gz ? size * 12 : size;
}

LoadResult Producer::read(const SourceMatch& source, const LoadOptions& options,
                          LoadProgress* progress) const
{
    return loadTraceFile(source.file, source.rank, options, progress);
}

namespace producers {

namespace {

bool isSqliteFile(const QFileInfo& info)
{
    QFile f(info.filePath());
    return f.open(QIODevice::ReadOnly) && f.read(16) == QByteArray("SQLite format 3\0", 16);
}

} // namespace

const std::vector<const Producer*>& all()
{
#define RS_PRODUCER(n) &n##Producer(),
    static const std::vector<const Producer*> list = {
#include "core/producers/list.h"
    };
#undef RS_PRODUCER
    return list;
}

const Producer& generic()
{
    return genericProducer();
}

const Producer& byId(std::string_view id)
{
    for (const Producer* p : all())
        if (p->id() == id) return *p;
    return generic();
}

const Producer& byName(std::string_view name)
{
    for (const Producer* p : all())
        if (p->name() == name) return *p;
    return generic();
}

const Producer& recognise(const Trace& trace, const ContentClues& clues)
{
    for (const Producer* p : all())
        if (p->recognises(trace, clues)) return *p;
    return generic();
}

Resolved resolve(const std::string& path)
{
    Resolved r;
    const QFileInfo info(QString::fromStdString(path));
    if (!info.exists()) {
        r.error = path + ": no such file or directory";
        return r;
    }
    // An SQLite database is a database producer's or no one's (never the JSON reader's).
    const bool sqlite = info.isFile() && isSqliteFile(info);
    for (const Producer* p : all()) {
        if (sqlite && p->format() != "sqlite") continue;
        if (auto m = p->resolve(info)) {
            r.producer = p;
            r.source = std::move(*m);
            return r;
        }
    }
    if (sqlite) {
        std::string wanted;
        for (const Producer* p : all())
            for (const InputKind& k : p->inputs())
                if (p->format() == "sqlite" && !k.lookedFor.empty())
                    wanted +=
                        (wanted.empty() ? "" : "; ") + std::string(p->name()) + ": " + k.lookedFor;
        r.error = path +
                  ": an SQLite database that is no profiler export Ringscope reads (it "
                  "looked for " +
                  wanted + ")";
        return r;
    }
    r.error = path + ": a folder with no trace (Ringscope reads " + inputsSentence() + ")";
    return r;
}

std::vector<std::string> inputDescriptions()
{
    std::vector<std::string> out;
    for (const Producer* p : all())
        for (const InputKind& k : p->inputs())
            if (!k.what.empty()) out.push_back(k.what);
    return out;
}

std::vector<std::string> inputGlobs()
{
    std::vector<std::string> out;
    for (const Producer* p : all())
        for (const InputKind& k : p->inputs())
            for (const std::string& g : k.globs)
                if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
    return out;
}

std::string inputsSentence()
{
    const std::vector<std::string> d = inputDescriptions();
    std::string out;
    for (std::size_t i = 0; i < d.size(); ++i) {
        if (i > 0) out += i + 1 == d.size() ? "; or " : "; ";
        out += d[i];
    }
    return out;
}

bool isRunFolder(const QDir& dir)
{
    for (const Producer* p : all())
        if (p->isRunFolder(dir)) return true;
    return false;
}

bool isRankFile(const QFileInfo& file)
{
    for (const Producer* p : all())
        if (p->isRankFile(file)) return true;
    return false;
}

} // namespace producers
} // namespace rs
