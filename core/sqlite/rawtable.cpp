#include "core/sqlite/rawtable.h"

#include "core/sqlite/dbfile.h"
#include "core/sqlite/sqlitedb.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace rs::sqlite {

namespace {

// SQLite's own limit (BTCURSOR_MAX_DEPTH): a b-tree of 2^32 pages is about 5 levels deep.
constexpr int kMaxDepth = 20;

std::uint32_t be16(const std::uint8_t* p)
{
    return std::uint32_t(p[0]) << 8 | p[1];
}

std::uint32_t be32(const std::uint8_t* p)
{
    return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3];
}

// SQLite's varint: 1-9 bytes, big-endian 7 bits each, the ninth byte whole. 0 on overrun.
int varint(const std::uint8_t* p, const std::uint8_t* end, std::uint64_t* v)
{
    std::uint64_t x = 0;
    for (int i = 0; i < 9; ++i) {
        if (p + i >= end) return 0;
        if (i == 8) {
            *v = x << 8 | p[i];
            return 9;
        }
        x = x << 7 | (p[i] & 0x7f);
        if (!(p[i] & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    return 0;
}

// Bytes of a value of a serial type; -1 for the reserved types 10 and 11.
std::int64_t serialSize(std::uint64_t t)
{
    static constexpr std::int8_t kSmall[12] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, -1, -1};
    if (t < 12) return kSmall[t];
    return std::int64_t((t - 12) / 2);
}

std::string upper(std::string_view s)
{
    std::string u(s);
    for (char& c : u)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return u;
}

} // namespace

// ---- PageFile

const std::string& PageFile::name() const
{
    return m_file->name();
}

std::shared_ptr<const PageFile> PageFile::open(std::shared_ptr<const DbFile> file, std::string* why)
{
    if (!file) {
        *why = "cannot open";
        return nullptr;
    }
    std::shared_ptr<PageFile> f(new PageFile);
    f->m_file = std::move(file);
    if (!f->readHeader(why)) return nullptr;
    return f;
}

std::shared_ptr<const PageFile> PageFile::openPath(const std::string& path, std::string* why)
{
    std::string error;
    auto file = DbFile::open(path, &error);
    if (!file) {
        *why = "cannot open (" + error + ")";
        return nullptr;
    }
    return open(std::move(file), why);
}

std::shared_ptr<const PageFile> PageFile::openBytes(const void* data, std::size_t size,
                                                    std::string* why)
{
    const std::string_view bytes(static_cast<const char*>(data), data ? size : 0);
    return open(DbFile::fromBytes("(memory)", bytes), why);
}

bool PageFile::readHeader(std::string* why)
{
    std::uint8_t h[100];
    if (m_file->size() < sizeof h || !m_file->read(0, h, sizeof h)) {
        *why = "shorter than a header";
        return false;
    }
    if (std::memcmp(h, "SQLite format 3", 16) != 0) {
        *why = "not an SQLite file";
        return false;
    }
    std::uint32_t ps = be16(h + 16);
    if (ps == 1) ps = 65536;
    if (ps < 512 || ps > 65536 || (ps & (ps - 1))) {
        *why = "page size";
        return false;
    }
    // The view shows a WAL database as a rollback one (its frames applied): any other file
    // format version is one SQLite itself refuses or would write differently.
    if (h[18] != 1 || h[19] != 1) {
        *why = "file format version";
        return false;
    }
    if (be32(h + 56) != 1) {
        *why = "text encoding is not UTF-8";
        return false;
    }
    if (ps < std::uint32_t(h[20]) + 480) {
        *why = "reserved space";
        return false;
    }
    m_pageSize = ps;
    m_usable = ps - h[20];
    // SQLite's count of the pages: the header's when it is valid and the file holds it.
    std::uint64_t pages = m_file->size() / ps;
    const std::uint64_t counted = be32(h + 28);
    if (counted > 0 && be32(h + 24) == be32(h + 92)) {
        if (counted > pages) {
            *why = "the header counts more pages than the file has";
            return false;
        }
        pages = counted;
    }
    if (pages == 0 || pages > 0xffffffffull) {
        *why = "size";
        return false;
    }
    m_pageCount = std::uint32_t(pages);
    return true;
}

bool PageFile::read(std::uint32_t n, std::uint8_t* buf) const
{
    if (n == 0 || n > m_pageCount) return false;
    return m_file->read(std::uint64_t(n - 1) * m_pageSize, buf, m_pageSize);
}

std::string PageFile::origin(std::uint32_t page) const
{
    switch (m_file->source(page)) {
    case DbFile::Source::Wal:
        return " (from the -wal)";
    case DbFile::Source::Journal:
        return " (from the -journal)";
    case DbFile::Source::Main:
        break;
    }
    return {};
}

// ---- The schema, through SQLite

int RawTableInfo::column(std::string_view name) const
{
    for (std::size_t i = 0; i < columns.size(); ++i)
        if (columns[i] == name) return int(i);
    return -1;
}

std::optional<RawTableInfo> rawTable(Database& db, std::string_view table)
{
    // The names asked for are the reader's own constants; quoted all the same.
    std::string quoted;
    for (char c : table) {
        if (c == '\'') quoted += '\'';
        quoted += c;
    }
    RawTableInfo info;
    std::string sql;
    {
        Statement st = db.prepare("SELECT rootpage, sql FROM sqlite_master WHERE type = 'table' "
                                  "AND name = '" +
                                      quoted + "'",
                                  table);
        if (!st.valid() || !st.step()) return std::nullopt;
        const auto root = st.integer(0);
        if (!root || *root <= 0 || *root > 0xffffffffll) return std::nullopt;
        info.root = std::uint32_t(*root);
        sql = upper(st.text(1));
    }
    if (sql.find("WITHOUT ROWID") != std::string::npos || sql.find("VIRTUAL") != std::string::npos)
        return std::nullopt;
    Statement st = db.prepare("PRAGMA table_info('" + quoted + "')", table);
    if (!st.valid()) return std::nullopt;
    int keys = 0, key = -1;
    while (st.step()) {
        // cid, name, type, notnull, dflt_value, pk
        // A column added with a default reads it where older records end: left to SQLite.
        if (!st.isNull(4)) return std::nullopt;
        if (st.integer(5).value_or(0) > 0) {
            ++keys;
            if (upper(st.text(2)) == "INTEGER") key = int(info.columns.size());
        }
        info.columns.emplace_back(st.text(1));
        // SQLite's affinity rules, in their order: INT first, then text, blob, then REAL.
        const std::string type = upper(st.text(2));
        auto has = [&](const char* w) { return type.find(w) != std::string::npos; };
        info.real.push_back(!has("INT") && !has("CHAR") && !has("CLOB") && !has("TEXT") &&
                            !has("BLOB") && !type.empty() &&
                            (has("REAL") || has("FLOA") || has("DOUB")));
    }
    if (st.failed() || info.columns.empty()) return std::nullopt;
    // Only a lone INTEGER PRIMARY KEY (not DESC) is the rowid itself.
    if (keys == 1 && key >= 0 && sql.find("PRIMARY KEY DESC") == std::string::npos)
        info.rowidColumn = key;
    return info;
}

// ---- TableCursor

TableCursor::TableCursor(std::shared_ptr<const PageFile> file, const RawTableInfo& table,
                         std::string tableName)
    : m_file(std::move(file)), m_table(std::move(tableName)), m_rowidColumn(table.rowidColumn),
      m_columnCount(table.columns.size()), m_real(table.real.begin(), table.real.end()),
      m_path(kMaxDepth)
{
    m_values.resize(m_columnCount);
    m_path[0].page = 0;
    m_root = table.root;
}

bool TableCursor::fail(std::uint32_t page, const std::string& what)
{
    m_valid = false;
    if (m_error.empty()) {
        m_error = m_file->name() + ": table " + m_table;
        if (page) m_error += ", page " + std::to_string(page) + m_file->origin(page);
        m_error += ": " + what;
    }
    return false;
}

bool TableCursor::claim(std::uint32_t page)
{
    return !m_scanning || m_seen.insert(page).second;
}

namespace {

// The offset of cell i of a page, checked to lie past the page's cell pointers and on it.
bool cellAt(const std::vector<std::uint8_t>& d, int header, bool leaf, int cells, int i,
            std::uint32_t usable, std::uint32_t* off)
{
    const std::size_t pointers = std::size_t(header) + (leaf ? 8 : 12);
    *off = be16(&d[pointers + 2 * std::size_t(i)]);
    return *off >= pointers + 2 * std::size_t(cells) && *off < usable;
}

// Interior cell i: its child page and the largest key under it.
bool dividerAt(const std::vector<std::uint8_t>& d, int header, int cells, int i,
               std::uint32_t usable, std::uint32_t* child, std::int64_t* key)
{
    std::uint32_t off = 0;
    std::uint64_t k = 0;
    if (!cellAt(d, header, false, cells, i, usable, &off) || off + 4 >= usable ||
        !varint(d.data() + off + 4, d.data() + usable, &k))
        return false;
    *child = be32(d.data() + off);
    *key = std::int64_t(k);
    return true;
}

} // namespace

// Page `page` into level `depth`, checked as a page of this table's b-tree at that depth, with
// the key bounds the level was given.
bool TableCursor::load(int depth, std::uint32_t page)
{
    Level& l = m_path[std::size_t(depth)];
    if (page < 1 || page > m_file->pageCount()) {
        l.page = 0;
        return fail(page, "the b-tree points past the end of the file");
    }
    if (!claim(page)) return fail(page, "reached twice in the table's b-tree");
    bool fresh = false;
    if (l.page != page || l.data.empty()) {
        l.data.resize(m_file->pageSize());
        l.page = 0;
        if (!m_file->read(page, l.data.data()))
            return fail(page, "missing: the file ends before it");
        l.page = page;
        l.keysKnown = false;
        fresh = true;
    }
    const std::uint32_t usable = m_file->usableSize();
    const int h = page == 1 ? 100 : 0;
    const std::uint8_t type = l.data[std::size_t(h)];
    if (type != 0x0d && type != 0x05) {
        l.page = 0;
        return fail(page, "not a table b-tree page");
    }
    l.leaf = type == 0x0d;
    l.header = h;
    l.cells = int(be16(&l.data[std::size_t(h) + 3]));
    const std::uint32_t pointers = std::uint32_t(h) + (l.leaf ? 8 : 12);
    // SQLite's own limit (MX_CELL), then the pointers themselves.
    if (std::uint32_t(l.cells) > (m_file->pageSize() - 8) / 6 ||
        pointers + 2u * std::uint32_t(l.cells) > usable) {
        l.page = 0;
        return fail(page, "holds more cells than fit");
    }
    // Only a root leaf may be empty (an empty table); every leaf is at one depth.
    if (l.cells == 0 && (depth > 0 || !l.leaf)) {
        l.page = 0;
        return fail(page, "an empty page inside the b-tree");
    }
    if (l.leaf && m_leafDepth < 0) m_leafDepth = depth;
    if ((l.leaf && depth != m_leafDepth) || (!l.leaf && m_leafDepth >= 0 && depth >= m_leafDepth)) {
        l.page = 0;
        return fail(page, "the b-tree's leaves are not all at one depth");
    }
    if (!fresh) return true;
    // Keys strictly increase across a page, inside the bounds its parent gives. A scan checks
    // each leaf's rows as it reads them; lookups check the whole leaf here.
    if (l.leaf && m_scanning) return true;
    bool hasPrev = l.hasLo;
    std::int64_t prev = l.lo;
    for (int i = 0; i < l.cells; ++i) {
        std::int64_t key = 0;
        if (l.leaf) {
            bool ok = true;
            key = leafKey(l, i, &ok);
            if (!ok) return fail(page, "a cell is not on the page");
        } else {
            std::uint32_t child = 0;
            if (!dividerAt(l.data, h, l.cells, i, usable, &child, &key))
                return fail(page, "a cell is not on the page");
            if (child < 2 || child > m_file->pageCount())
                return fail(page, "a child page number past the end of the file");
        }
        if ((hasPrev && key <= prev) || (l.hasHi && key > l.hi))
            return fail(page, "rows out of order");
        prev = key;
        hasPrev = true;
    }
    return true;
}

bool TableCursor::child(int depth, int i, std::uint32_t* page)
{
    if (depth + 1 >= kMaxDepth)
        return fail(m_path[std::size_t(depth)].page, "the b-tree is deeper than any valid one");
    const Level& l = m_path[std::size_t(depth)];
    Level& c = m_path[std::size_t(depth) + 1];
    const std::uint32_t usable = m_file->usableSize();
    std::int64_t key = 0;
    c.hasHi = l.hasHi;
    c.hi = l.hi;
    if (i < l.cells) {
        if (!dividerAt(l.data, l.header, l.cells, i, usable, page, &key))
            return fail(l.page, "a cell is not on the page");
        c.hasHi = true;
        c.hi = key;
    } else {
        *page = be32(l.data.data() + l.header + 8);
    }
    c.hasLo = l.hasLo;
    c.lo = l.lo;
    if (i > 0) {
        std::uint32_t left = 0;
        if (!dividerAt(l.data, l.header, l.cells, i - 1, usable, &left, &key))
            return fail(l.page, "a cell is not on the page");
        c.hasLo = true;
        c.lo = key;
    }
    return true;
}

bool TableCursor::descend(int depth, std::uint32_t page, std::optional<std::int64_t> key)
{
    const std::uint32_t usable = m_file->usableSize();
    if (depth == 0) m_path[0].hasLo = m_path[0].hasHi = false;
    for (;; ++depth) {
        if (!load(depth, page)) return false;
        Level& l = m_path[std::size_t(depth)];
        if (l.leaf) {
            m_depth = depth + 1;
            l.cell = 0;
            if (key) {
                // First cell whose rowid >= key.
                int lo = 0, hi = l.cells;
                while (lo < hi) {
                    const int mid = (lo + hi) / 2;
                    bool ok = true;
                    const std::int64_t k = leafKey(l, mid, &ok);
                    if (!ok) return fail(l.page, "a cell is not on the page");
                    if (k < *key)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                l.cell = lo;
            }
            return true;
        }
        // Interior: cell i holds a child page and the largest rowid under it.
        int pick = 0;
        if (key) {
            int lo = 0, hi = l.cells;
            while (lo < hi) {
                const int mid = (lo + hi) / 2;
                std::uint32_t c = 0;
                std::int64_t k = 0;
                if (!dividerAt(l.data, l.header, l.cells, mid, usable, &c, &k))
                    return fail(l.page, "a cell is not on the page");
                if (k < *key)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            pick = lo;
        }
        l.cell = pick;
        if (!child(depth, pick, &page)) return false;
    }
}

std::int64_t TableCursor::leafKey(const Level& l, int cell, bool* ok) const
{
    const std::uint32_t usable = m_file->usableSize();
    std::uint32_t off = 0;
    std::uint64_t size = 0, key = 0;
    const std::uint8_t* base = l.data.data();
    int n = 0;
    if (!cellAt(l.data, l.header, true, l.cells, cell, usable, &off) ||
        !(n = varint(base + off, base + usable, &size)) ||
        !varint(base + off + n, base + usable, &key)) {
        *ok = false;
        return 0;
    }
    return std::int64_t(key);
}

bool TableCursor::seek(std::int64_t key)
{
    m_valid = false;
    m_hasLast = false;
    m_scanning = true;
    m_seen.clear();
    // Cached pages are read again: each is checked once per scan.
    for (Level& l : m_path)
        l.page = 0;
    if (!m_error.empty()) return false;
    if (!descend(0, m_root, key)) return false;
    return settle();
}

bool TableCursor::next()
{
    if (!m_valid) return false;
    ++m_path[std::size_t(m_depth - 1)].cell;
    return settle();
}

bool TableCursor::settle()
{
    for (;;) {
        Level& top = m_path[std::size_t(m_depth - 1)];
        if (top.cell < top.cells) {
            if (!enterCell()) return false;
            // Rowids strictly increase along a valid tree: a cycle or a shared page is not.
            if (m_hasLast && m_rowid <= m_last) return fail(top.page, "rows out of order");
            m_last = m_rowid;
            m_hasLast = true;
            return true;
        }
        int d = m_depth - 2;
        while (d >= 0 && m_path[std::size_t(d)].cell >= m_path[std::size_t(d)].cells)
            --d;
        if (d < 0) {
            m_valid = false;
            return false;
        }
        Level& p = m_path[std::size_t(d)];
        ++p.cell;
        std::uint32_t next = 0;
        if (!child(d, p.cell, &next) || !descend(d + 1, next, std::nullopt)) return false;
    }
}

bool TableCursor::find(std::int64_t key)
{
    if (!m_error.empty()) return false;
    m_scanning = false;
    // Keys that mostly increase (a join in the outer table's order) stay on this leaf.
    if (m_depth > 0) {
        Level& top = m_path[std::size_t(m_depth - 1)];
        if (top.leaf && top.cells > 0 && top.page != 0) {
            bool ok = true;
            if (!top.keysKnown) {
                top.firstKey = leafKey(top, 0, &ok);
                top.lastKey = leafKey(top, top.cells - 1, &ok);
                top.keysKnown = ok;
            }
            if (ok && key >= top.firstKey && key <= top.lastKey) {
                int lo = 0, hi = top.cells;
                while (lo < hi) {
                    const int mid = (lo + hi) / 2;
                    if (leafKey(top, mid, &ok) < key)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                if (!ok) return fail(top.page, "a cell is not on the page");
                m_path[std::size_t(m_depth - 1)].cell = lo;
                m_valid = false;
                if (lo >= top.cells || !enterCell()) return false;
                return m_rowid == key;
            }
        }
    }
    m_valid = false;
    if (!descend(0, m_root, key)) return false;
    const Level& top = m_path[std::size_t(m_depth - 1)];
    if (top.cell >= top.cells) return false;
    if (!enterCell()) return false;
    return m_rowid == key;
}

bool TableCursor::enterCell()
{
    m_valid = false;
    const Level& l = m_path[std::size_t(m_depth - 1)];
    const std::uint32_t usable = m_file->usableSize();
    const std::uint8_t* base = l.data.data();
    const std::uint8_t* end = base + usable;
    std::uint32_t off = 0;
    if (!cellAt(l.data, l.header, true, l.cells, l.cell, usable, &off))
        return fail(l.page, "a cell pointer points off the page's cells");
    const std::uint8_t* p = base + off;
    std::uint64_t size = 0, key = 0;
    int n = varint(p, end, &size);
    if (!n) return fail(l.page, "a cell runs past the page");
    p += n;
    n = varint(p, end, &key);
    if (!n) return fail(l.page, "a cell runs past the page");
    p += n;
    if (size > 1'000'000'000) return fail(l.page, "a record larger than SQLite writes");
    m_rowid = std::int64_t(key);
    if ((l.hasLo && m_rowid <= l.lo) || (l.hasHi && m_rowid > l.hi))
        return fail(l.page, "rows out of order");
    // Payload kept on the page, the rest in a chain of overflow pages (the file format's
    // rule for table leaves).
    const std::uint64_t x = usable - 35;
    std::uint64_t local = size;
    if (size > x) {
        const std::uint64_t m = (std::uint64_t(usable) - 12) * 32 / 255 - 23;
        const std::uint64_t k = m + (size - m) % (usable - 4);
        local = k <= x ? k : m;
    }
    if (std::uint64_t(end - p) < local + (local < size ? 4 : 0))
        return fail(l.page, "a cell runs past the page");
    if (local == size) {
        m_payload = p;
    } else {
        // No more bytes than the file's pages can hold (a damaged size would ask for a GB).
        if (size - local > std::uint64_t(m_file->pageCount()) * (usable - 4))
            return fail(l.page, "a record larger than the file");
        // Grown as the pages are read, never to what a damaged size claims: a view's page
        // count may be its header's, past the bytes the file holds.
        m_overflow.clear();
        m_overflow.reserve(std::size_t(std::min<std::uint64_t>(size, std::uint64_t(1) << 20)));
        m_overflow.insert(m_overflow.end(), p, p + local);
        std::uint64_t have = local;
        std::uint32_t next = be32(p + local);
        std::vector<std::uint8_t> page(m_file->pageSize());
        std::unordered_set<std::uint32_t> chain;
        while (have < size) {
            if (next < 2 || next > m_file->pageCount())
                return fail(l.page, "an overflow chain leaves the file");
            if (!chain.insert(next).second || !claim(next))
                return fail(l.page,
                            "an overflow chain reaches page " + std::to_string(next) + " twice");
            if (!m_file->read(next, page.data()))
                return fail(next, "an overflow page missing: the file ends before it");
            const std::uint64_t take = std::min<std::uint64_t>(size - have, usable - 4);
            m_overflow.insert(m_overflow.end(), page.data() + 4, page.data() + 4 + take);
            have += take;
            next = be32(page.data());
        }
        m_payload = m_overflow.data();
    }
    m_payloadSize = std::uint32_t(size);
    // The record: a header of serial types, then the values in order (checked as SQLite's
    // OP_Column checks them).
    const std::uint8_t* r = m_payload;
    const std::uint8_t* rend = m_payload + size;
    std::uint64_t headerSize = 0;
    n = varint(r, rend, &headerSize);
    if (!n || headerSize > size || headerSize > 98307 || headerSize < std::uint64_t(n))
        return fail(l.page, "a record's header is damaged");
    const std::uint8_t* h = r + n;
    const std::uint8_t* hend = r + headerSize;
    std::uint64_t body = headerSize;
    m_recordColumns = 0;
    while (h < hend && m_recordColumns < m_columnCount) { // the rest are not read
        std::uint64_t type = 0;
        n = varint(h, hend, &type);
        if (!n) return fail(l.page, "a record's header is damaged");
        h += n;
        const std::int64_t bytes = serialSize(type);
        if (bytes < 0 || body + std::uint64_t(bytes) > size)
            return fail(l.page, "a record's values run past it");
        m_values[m_recordColumns++] = Value{std::uint32_t(type), std::uint32_t(body)};
        body += std::uint64_t(bytes);
    }
    if (h >= hend && body != size) return fail(l.page, "a record's values do not fill it");
    m_valid = true;
    return true;
}

bool TableCursor::isNull(int col) const
{
    if (col < 0) return true;
    if (col == m_rowidColumn) return false;
    return std::size_t(col) >= m_recordColumns || m_values[std::size_t(col)].type == 0;
}

// A value of an integer serial type (1-6, 8, 9) as stored.
static std::int64_t storedInteger(std::uint32_t type, const std::uint8_t* p)
{
    if (type == 8 || type == 9) return std::int64_t(type - 8);
    const int bytes = int(serialSize(type));
    std::uint64_t x = p[0] & 0x80 ? ~0ull : 0;
    for (int i = 0; i < bytes; ++i)
        x = x << 8 | p[i];
    return std::int64_t(x);
}

static bool isStoredInteger(std::uint32_t type)
{
    return (type >= 1 && type <= 6) || type == 8 || type == 9;
}

std::optional<std::int64_t> TableCursor::integerSlow(int col) const
{
    if (col < 0) return std::nullopt;
    if (col == m_rowidColumn) return m_rowid;
    if (std::size_t(col) >= m_recordColumns) return std::nullopt;
    const Value v = m_values[std::size_t(col)];
    if (isStoredInteger(v.type))
        return m_real[std::size_t(col)]
                   ? std::nullopt
                   : std::optional(storedInteger(v.type, m_payload + v.offset));
    if (v.type >= 13 && (v.type & 1)) {
        const auto t = text(col);
        std::int64_t x = 0;
        if (t.empty()) return std::nullopt;
        auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
        if (ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
        return x;
    }
    return std::nullopt;
}

std::optional<double> TableCursor::real(int col) const
{
    if (col < 0) return std::nullopt;
    if (col == m_rowidColumn) return double(m_rowid);
    if (std::size_t(col) >= m_recordColumns) return std::nullopt;
    const Value v = m_values[std::size_t(col)];
    if (isStoredInteger(v.type)) return double(storedInteger(v.type, m_payload + v.offset));
    if (v.type == 7) {
        std::uint64_t bits = 0;
        for (int i = 0; i < 8; ++i)
            bits = bits << 8 | m_payload[v.offset + std::uint32_t(i)];
        double d = 0;
        std::memcpy(&d, &bits, sizeof d);
        return d;
    }
    if (v.type >= 13 && (v.type & 1)) {
        const auto t = text(col);
        double x = 0;
        if (t.empty()) return std::nullopt;
        auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
        if (ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
        return x;
    }
    return std::nullopt;
}

std::optional<std::int64_t> TableCursor::rowidKey(int col) const
{
    if (col == m_rowidColumn && col >= 0) return m_rowid;
    if (col < 0 || std::size_t(col) >= m_recordColumns) return std::nullopt;
    const Value v = m_values[std::size_t(col)];
    if (isStoredInteger(v.type)) return storedInteger(v.type, m_payload + v.offset);
    // A real that is exactly an integer, not at int64's ends (sqlite3VdbeIntegerAffinity).
    auto exact = [](double d) -> std::optional<std::int64_t> {
        if (!(d > -9223372036854775808.0 && d < 9223372036854775808.0)) return std::nullopt;
        const auto i = std::int64_t(d);
        if (double(i) != d || i == INT64_MIN || i == INT64_MAX) return std::nullopt;
        return i;
    };
    if (v.type == 7) return exact(*real(col));
    if (v.type >= 13 && (v.type & 1)) {
        // Text of a number, spaces around it allowed (sqlite3AtoF): an integer read exactly,
        // else a real that is exactly one.
        std::string_view t = text(col);
        auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
        while (!t.empty() && space(t.front()))
            t.remove_prefix(1);
        while (!t.empty() && space(t.back()))
            t.remove_suffix(1);
        if (t.size() > 1 && t[0] == '+' && (std::isdigit((unsigned char)t[1]) || t[1] == '.'))
            t.remove_prefix(1);
        if (t.empty()) return std::nullopt;
        for (char c : t)
            if (!std::isdigit((unsigned char)c) && c != '-' && c != '+' && c != '.' && c != 'e' &&
                c != 'E')
                return std::nullopt; // no hex, inf or nan: SQLite reads none as a number
        std::int64_t i = 0;
        auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), i);
        if (ec == std::errc() && end == t.data() + t.size()) return i;
        double d = 0;
        auto [dend, dec] = std::from_chars(t.data(), t.data() + t.size(), d);
        if (dec != std::errc() || dend != t.data() + t.size()) return std::nullopt;
        return exact(d);
    }
    return std::nullopt;
}

std::string_view TableCursor::text(int col) const
{
    if (col < 0 || (col != m_rowidColumn && std::size_t(col) >= m_recordColumns)) return {};
    const Value v = col == m_rowidColumn ? Value{1, 0} : m_values[std::size_t(col)];
    if (v.type >= 12)
        return std::string_view(reinterpret_cast<const char*>(m_payload) + v.offset,
                                std::size_t(serialSize(v.type)));
    if (v.type == 0) return {};
    if (v.type == 7 ||
        (col != m_rowidColumn && isStoredInteger(v.type) && m_real[std::size_t(col)])) {
        // SQLite prints a real with 15 significant digits and always a point in the mantissa:
        // 100.0, 1.0e+300.
        const double d = *real(col);
        int n = std::snprintf(m_number, sizeof m_number, "%.15g", d);
        if (std::isfinite(d) && !std::strchr(m_number, '.') && n + 2 < int(sizeof m_number)) {
            char* e = std::strchr(m_number, 'e');
            const int at = e ? int(e - m_number) : n;
            std::memmove(m_number + at + 2, m_number + at, std::size_t(n - at + 1));
            m_number[at] = '.';
            m_number[at + 1] = '0';
            n += 2;
        }
        return std::string_view(m_number, std::size_t(std::max(n, 0)));
    }
    const auto i = integer(col);
    auto [end, ec] = std::to_chars(m_number, m_number + sizeof m_number, i.value_or(0));
    (void)ec;
    return std::string_view(m_number, std::size_t(end - m_number));
}

} // namespace rs::sqlite
