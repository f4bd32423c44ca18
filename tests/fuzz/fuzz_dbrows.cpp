// libFuzzer entry point for torch_npu's database reader (core/producers/torchnpudb): the bytes
// choose, table by table, rows of values of every SQLite type (integers at the edges, the ids
// and times the tables hold, reals, text, blobs, NULL) for the columns the reader reads, in an
// in-memory database of torch_npu's schema; the reader must load it or refuse it with a
// message, never crash or hang, and build a model that keeps its invariants, which the
// analysis then reads. With the first byte's low bit set the bytes are a database file instead
// (the row decoder and the page walker on damaged pages); with its bits 1-2 also 1 (0x03) or
// 2 (0x05), a file with its -wal or its -journal: 4 bytes (big-endian) of the file's length,
// the file, then the log (the WAL reader and the journal's playback, sqlite/dbfile.h).
// Both readers read every input (the page reader and SQLite): they must build the same model,
// or the load must name the damage (issue 47).
#include "core/analysis/analyzer.h"
#include "core/producers/torchnpudb/dbreader.h"
#include "core/sqlite/dbfile.h"
#include "tests/fuzz/checktrace.h"
#include "tests/support/modeldump.h"

#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace {

using rs::fuzz::check;

class Bytes {
public:
    Bytes(const std::uint8_t* d, std::size_t n) : m_d(d), m_n(n) {}
    bool empty() const { return m_i >= m_n; }
    std::uint8_t byte() { return m_i < m_n ? m_d[m_i++] : 0; }
    std::int64_t wide()
    {
        std::uint64_t v = 0;
        for (int k = 0; k < 8; ++k)
            v = v << 8 | byte();
        return static_cast<std::int64_t>(v);
    }

private:
    const std::uint8_t* m_d;
    std::size_t m_n, m_i = 0;
};

// Names the reader and the analysis look for, so string ids land on meaningful text.
const char* const kNames[] = {"hcom_allReduce__1_0_1",
                              "Memcpy",
                              "Notify_Wait",
                              "ProfilerStep#1",
                              "launch",
                              "Enqueue",
                              "Dequeue@x",
                              "MatMul",
                              "KERNEL_AICORE",
                              "N/A",
                              "app",
                              "read",
                              "write",
                              "MESH-RING",
                              "group",
                              ";\r\nx\"\\"};

void bindValue(sqlite3_stmt* st, int col, Bytes& in)
{
    const std::uint8_t kind = in.byte();
    switch (kind % 9) {
    case 0:
        sqlite3_bind_null(st, col);
        break;
    case 1: // a small id: STRING_IDS, enums, CONNECTION_IDS, planes, ranks
        sqlite3_bind_int64(st, col, in.byte() % 20);
        break;
    case 2:
        sqlite3_bind_int64(st, col, in.wide());
        break;
    case 3: { // the edges: msprof's none values, int64's ends
        const std::int64_t edges[] = {
            4294967295, -1, INT64_MAX, INT64_MIN, 65535, 0, 9223372036854775807 - 1, 1 << 28};
        sqlite3_bind_int64(st, col, edges[in.byte() % 8]);
        break;
    }
    case 4: // a time near the traces' own (ns since the epoch)
        sqlite3_bind_int64(st, col, 1736414119678212551 + (in.byte() << 12));
        break;
    case 5: {
        double v;
        const std::int64_t bits = in.wide();
        std::memcpy(&v, &bits, sizeof v);
        sqlite3_bind_double(st, col, v);
        break;
    }
    case 6: { // text: a known name, or the time as TEXT (PYTORCH_API stores it so)
        if (in.byte() & 1) {
            const std::string t = std::to_string(1736414119678212551 + in.byte());
            sqlite3_bind_text(st, col, t.c_str(), -1, SQLITE_TRANSIENT);
        } else {
            sqlite3_bind_text(st, col, kNames[in.byte() % std::size(kNames)], -1, SQLITE_STATIC);
        }
        break;
    }
    case 7: {
        char blob[16];
        const int n = in.byte() % 16;
        for (int k = 0; k < n; ++k)
            blob[k] = char(in.byte());
        sqlite3_bind_blob(st, col, blob, n, SQLITE_TRANSIENT);
        break;
    }
    default:
        sqlite3_bind_int64(st, col, in.byte());
        break;
    }
}

// Builds the database the bytes describe and returns its image.
std::string buildDatabase(Bytes& in)
{
    sqlite3* db = nullptr;
    sqlite3_open(":memory:", &db);
    const std::uint8_t present = in.byte(); // which of the first tables exist (bit per table)
    for (std::size_t t = 0; t < rs::torchnpudb::kTableCount; ++t) {
        const rs::torchnpudb::TableColumns& tc = rs::torchnpudb::kTables[t];
        if (t < 8 && !(present >> t & 1) && t != 0) continue;
        std::string cols = tc.columns, create = "CREATE TABLE ";
        create += tc.table;
        create += " (" + cols + ")";
        if (std::string(tc.table) == "PYTORCH_API") create.insert(create.size() - 1, ",type");
        sqlite3_exec(db, create.c_str(), nullptr, nullptr, nullptr);
        int columns = 1;
        for (char c : cols)
            columns += c == ',';
        if (std::string(tc.table) == "PYTORCH_API") ++columns;
        std::string insert = std::string("INSERT INTO ") + tc.table + " VALUES (";
        for (int c = 0; c < columns; ++c)
            insert += c ? ",?" : "?";
        insert += ")";
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(db, insert.c_str(), -1, &st, nullptr);
        const int rows = std::string(tc.table) == "STRING_IDS" ? 20 : in.byte() % 8;
        for (int r = 0; r < rows && st; ++r) {
            if (std::string(tc.table) == "STRING_IDS") {
                sqlite3_bind_int64(st, 1, r);
                sqlite3_bind_text(st, 2, kNames[(r + in.byte()) % std::size(kNames)], -1,
                                  SQLITE_STATIC);
            } else {
                for (int c = 1; c <= columns; ++c)
                    bindValue(st, c, in);
            }
            sqlite3_step(st);
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
    }
    sqlite3_int64 size = 0;
    unsigned char* image = sqlite3_serialize(db, "main", &size, 0);
    std::string out(reinterpret_cast<const char*>(image), image ? std::size_t(size) : 0);
    sqlite3_free(image);
    sqlite3_close(db);
    return out;
}

// Whether a load names damage: it stopped (its message says where), or a warning names the
// file (the page reader's damage, a log ignored or played back).
bool namesDamage(const rs::LoadResult& r, const std::string& name)
{
    if (!r.complete()) return true;
    for (const std::string& w : r.warnings)
        if (w.rfind(name, 0) == 0) return true;
    return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    rs::LoadOptions options;
    options.maxMemoryBytes = 256ull << 20;
    const std::string name = "<fuzz>.db";
    std::string image, wal, journal;
    if (size && (data[0] & 1)) {
        const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
        const int log = (data[0] >> 1) & 3;
        if (log == 0 || rest.size() < 4) {
            image.assign(rest);
        } else {
            const std::size_t n = std::size_t(std::uint8_t(rest[0])) << 24 |
                                  std::size_t(std::uint8_t(rest[1])) << 16 |
                                  std::size_t(std::uint8_t(rest[2])) << 8 | std::uint8_t(rest[3]);
            const std::string_view file = rest.substr(4, n);
            image.assign(file);
            (log == 1 ? wal : journal).assign(rest.substr(4 + file.size()));
        }
    } else {
        Bytes in(data + (size ? 1 : 0), size ? size - 1 : 0);
        image = buildDatabase(in);
    }
    auto read = [&](const rs::LoadOptions& o) {
        return rs::torchnpudb::readDatabaseView(
            rs::sqlite::DbFile::fromBytes(name, image, wal, journal), o);
    };
    const rs::LoadResult r = read(options);
    check(r.complete() || !r.message.empty(), "a failed load says why");
    // The raw page reader (rawtable.h) and SQLite's queries read the same view: the same model,
    // or the load names the damage where they part (issue 47).
    rs::LoadOptions viaSql = options;
    viaSql.databaseViaSql = true;
    const rs::LoadResult q = read(viaSql);
    check(q.complete() || !q.message.empty(), "a failed load says why");
    const std::string a = r.trace ? rs::test::dumpModelText(*r.trace) : "failed: " + r.message;
    const std::string b = q.trace ? rs::test::dumpModelText(*q.trace) : "failed: " + q.message;
    if (a != b)
        check(namesDamage(r, name),
              "the raw reader and SQL build the same model, or the load names the damage");
    for (const rs::LoadResult* l : {&r, &q})
        if (l->trace) rs::fuzz::checkTrace(*l->trace);
    if (r.trace) (void)rs::analyze(r.trace);
    return 0;
}
