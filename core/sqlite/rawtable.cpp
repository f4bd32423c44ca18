#include "core/sqlite/rawtable.h"

#include "core/sqlite/sqlitedb.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace rs::sqlite {

namespace {

constexpr int kMaxDepth = 32; // a b-tree of 2^32 pages is about 5 levels deep

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

PageFile::~PageFile()
{
    if (m_fd >= 0) ::close(m_fd);
}

std::shared_ptr<const PageFile> PageFile::openPath(const std::string& path, std::string* why)
{
    std::shared_ptr<PageFile> f(new PageFile);
    f->m_name = path;
    f->m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f->m_fd < 0) {
        *why = "cannot open";
        return nullptr;
    }
    struct stat st {};
    std::uint8_t head[100];
    if (::fstat(f->m_fd, &st) != 0 || ::pread(f->m_fd, head, sizeof head, 0) != sizeof head) {
        *why = "cannot read the header";
        return nullptr;
    }
    if (!f->readHeader(head, std::uint64_t(st.st_size), why)) return nullptr;
    return f;
}

std::shared_ptr<const PageFile> PageFile::openBytes(const void* data, std::size_t size,
                                                    std::string* why)
{
    std::shared_ptr<PageFile> f(new PageFile);
    f->m_name = "(memory)";
    if (size < 100) {
        *why = "shorter than a header";
        return nullptr;
    }
    const auto* b = static_cast<const std::uint8_t*>(data);
    f->m_bytes.assign(b, b + size);
    if (!f->readHeader(f->m_bytes.data(), size, why)) return nullptr;
    return f;
}

bool PageFile::readHeader(const std::uint8_t* h, std::uint64_t fileSize, std::string* why)
{
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
    // 1: a rollback journal (the whole database is in this file); 2: WAL, whose pages may be
    // in the -wal file: left to SQLite.
    if (h[18] != 1 || h[19] != 1) {
        *why = "WAL mode";
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
    const std::uint64_t pages = fileSize / ps;
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
    const std::uint64_t at = std::uint64_t(n - 1) * m_pageSize;
    if (m_fd < 0) {
        std::memcpy(buf, m_bytes.data() + at, m_pageSize);
        return true;
    }
    std::size_t done = 0;
    while (done < m_pageSize) {
        const ssize_t r = ::pread(m_fd, buf + done, m_pageSize - done, off_t(at + done));
        if (r <= 0) return false;
        done += std::size_t(r);
    }
    return true;
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

bool TableCursor::fail(const std::string& what)
{
    m_valid = false;
    if (m_error.empty())
        m_error = m_file->name() + ": table " + m_table + ": " + what +
                  " (database disk image is malformed)";
    return false;
}

bool TableCursor::load(int depth, std::uint32_t page)
{
    Level& l = m_path[std::size_t(depth)];
    if (l.page != page || l.data.empty()) {
        l.data.resize(m_file->pageSize());
        l.page = 0;
        if (!m_file->read(page, l.data.data()))
            return fail("page " + std::to_string(page) + " is past the end of the file");
        l.page = page;
        l.keysKnown = false;
        ++m_pagesRead;
    }
    const std::uint32_t usable = m_file->usableSize();
    const int h = page == 1 ? 100 : 0;
    const std::uint8_t type = l.data[std::size_t(h)];
    if (type != 0x0d && type != 0x05) {
        l.page = 0;
        return fail("page " + std::to_string(page) + " is not a table b-tree page");
    }
    l.leaf = type == 0x0d;
    l.header = h;
    l.cells = int(be16(&l.data[std::size_t(h) + 3]));
    const std::uint32_t pointers = std::uint32_t(h) + (l.leaf ? 8 : 12);
    if (pointers + 2u * std::uint32_t(l.cells) > usable) {
        l.page = 0;
        return fail("page " + std::to_string(page) + " holds more cells than fit");
    }
    return true;
}

// The offset of cell i of a page, checked to lie on the page.
static bool cellAt(const std::vector<std::uint8_t>& d, int header, bool leaf, int i,
                   std::uint32_t usable, std::uint32_t* off)
{
    const std::size_t p = std::size_t(header) + (leaf ? 8 : 12) + 2 * std::size_t(i);
    *off = be16(&d[p]);
    return *off >= 8 && *off < usable;
}

bool TableCursor::descend(int depth, std::uint32_t page, std::optional<std::int64_t> key)
{
    const std::uint32_t usable = m_file->usableSize();
    for (;; ++depth) {
        if (depth >= kMaxDepth) return fail("the b-tree is deeper than any valid one");
        if (!load(depth, page)) return false;
        Level& l = m_path[std::size_t(depth)];
        const std::uint8_t* base = l.data.data();
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
                    if (!ok)
                        return fail("a cell of page " + std::to_string(l.page) + " is damaged");
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
                std::uint32_t off = 0;
                std::uint64_t k = 0;
                if (!cellAt(l.data, l.header, false, mid, usable, &off) || off + 4 >= usable ||
                    !varint(base + off + 4, base + usable, &k))
                    return fail("a cell of page " + std::to_string(l.page) + " is damaged");
                if (std::int64_t(k) < *key)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            pick = lo;
        }
        l.cell = pick;
        std::uint32_t child = 0;
        if (pick < l.cells) {
            std::uint32_t off = 0;
            if (!cellAt(l.data, l.header, false, pick, usable, &off) || off + 4 > usable)
                return fail("a cell of page " + std::to_string(l.page) + " is damaged");
            child = be32(base + off);
        } else {
            child = be32(base + l.header + 8);
        }
        page = child;
    }
}

std::int64_t TableCursor::leafKey(const Level& l, int cell, bool* ok) const
{
    const std::uint32_t usable = m_file->usableSize();
    std::uint32_t off = 0;
    std::uint64_t size = 0, key = 0;
    const std::uint8_t* base = l.data.data();
    int n = 0;
    if (!cellAt(l.data, l.header, true, cell, usable, &off) ||
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
    m_pagesRead = 0;
    m_hasLast = false;
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
            if (m_hasLast && m_rowid <= m_last) return fail("rowids out of order");
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
        if (m_pagesRead > std::uint64_t(m_file->pageCount()) * 2 + 64)
            return fail("the b-tree visits more pages than the file has");
        Level& p = m_path[std::size_t(d)];
        ++p.cell;
        const std::uint32_t usable = m_file->usableSize();
        std::uint32_t child = 0;
        if (p.cell < p.cells) {
            std::uint32_t off = 0;
            if (!cellAt(p.data, p.header, false, p.cell, usable, &off) || off + 4 > usable)
                return fail("a cell of page " + std::to_string(p.page) + " is damaged");
            child = be32(p.data.data() + off);
        } else {
            child = be32(p.data.data() + p.header + 8);
        }
        if (!descend(d + 1, child, std::nullopt)) return false;
    }
}

bool TableCursor::find(std::int64_t key)
{
    if (!m_error.empty()) return false;
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
                if (!ok) return fail("a cell of page " + std::to_string(top.page) + " is damaged");
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
    if (!cellAt(l.data, l.header, true, l.cell, usable, &off))
        return fail("a cell of page " + std::to_string(l.page) + " is damaged");
    const std::uint8_t* p = base + off;
    std::uint64_t size = 0, key = 0;
    int n = varint(p, end, &size);
    if (!n) return fail("a cell of page " + std::to_string(l.page) + " is damaged");
    p += n;
    n = varint(p, end, &key);
    if (!n) return fail("a cell of page " + std::to_string(l.page) + " is damaged");
    p += n;
    if (size > 1'000'000'000) return fail("a record is larger than SQLite writes");
    m_rowid = std::int64_t(key);
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
        return fail("a record of page " + std::to_string(l.page) + " runs past it");
    if (local == size) {
        m_payload = p;
    } else {
        // No more bytes than the file's pages can hold (a damaged size would ask for a GB).
        if (size - local > std::uint64_t(m_file->pageCount()) * (usable - 4))
            return fail("a record is larger than the file");
        m_overflow.resize(size);
        std::memcpy(m_overflow.data(), p, local);
        std::uint64_t have = local;
        std::uint32_t next = be32(p + local);
        std::vector<std::uint8_t> page(m_file->pageSize());
        for (std::uint32_t hops = 0; have < size; ++hops) {
            if (hops > m_file->pageCount() || !m_file->read(next, page.data()))
                return fail("an overflow chain is broken");
            const std::uint64_t take = std::min<std::uint64_t>(size - have, usable - 4);
            std::memcpy(m_overflow.data() + have, page.data() + 4, take);
            have += take;
            next = be32(page.data());
        }
        m_payload = m_overflow.data();
    }
    m_payloadSize = std::uint32_t(size);
    // The record: a header of serial types, then the values in order.
    const std::uint8_t* r = m_payload;
    const std::uint8_t* rend = m_payload + size;
    std::uint64_t headerSize = 0;
    n = varint(r, rend, &headerSize);
    if (!n || headerSize > size || headerSize < std::uint64_t(n))
        return fail("a record header is damaged");
    const std::uint8_t* h = r + n;
    const std::uint8_t* hend = r + headerSize;
    std::uint64_t body = headerSize;
    m_recordColumns = 0;
    while (h < hend && m_recordColumns < m_columnCount) { // the rest are not read
        std::uint64_t type = 0;
        n = varint(h, hend, &type);
        if (!n) return fail("a record header is damaged");
        h += n;
        const std::int64_t bytes = serialSize(type);
        if (bytes < 0 || body + std::uint64_t(bytes) > size)
            return fail("a record's values run past it");
        m_values[m_recordColumns++] = Value{std::uint32_t(type), std::uint32_t(body)};
        body += std::uint64_t(bytes);
    }
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
