#include "core/sqlite/dbfile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace rs::sqlite {

namespace {

// The formats: https://www.sqlite.org/fileformat2.html (the WAL and the rollback journal).
constexpr std::uint32_t kWalHeader = 32, kFrameHeader = 24;
constexpr std::uint32_t kWalMagic = 0x377f0682, kWalVersion = 3007000;
constexpr std::uint8_t kJournalMagic[8] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};
constexpr std::uint64_t kPendingByte = 0x40000000; // SQLite's lock byte
// A writer that may be in the middle of a frame: how often and how long to look again.
constexpr int kWalSettleTries = 5;
constexpr auto kWalSettleWait = std::chrono::milliseconds(2);

std::uint32_t be16(const std::uint8_t* p)
{
    return std::uint32_t(p[0]) << 8 | p[1];
}

std::uint32_t be32(const std::uint8_t* p)
{
    return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3];
}

std::uint32_t le32(const std::uint8_t* p)
{
    return std::uint32_t(p[3]) << 24 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[1]) << 8 | p[0];
}

bool validPageSize(std::uint32_t ps)
{
    return ps >= 512 && ps <= 65536 && (ps & (ps - 1)) == 0;
}

// SQLite's WAL checksum over n bytes (a multiple of 8), its words in the log's byte order.
void walChecksum(bool bigEndian, const std::uint8_t* p, std::size_t n, std::uint32_t s[2])
{
    std::uint32_t s1 = s[0], s2 = s[1];
    for (std::size_t i = 0; i + 8 <= n; i += 8) {
        s1 += (bigEndian ? be32(p + i) : le32(p + i)) + s2;
        s2 += (bigEndian ? be32(p + i + 4) : le32(p + i + 4)) + s1;
    }
    s[0] = s1;
    s[1] = s2;
}

// A rollback journal record's checksum: the nonce plus every 200th byte from the end.
std::uint32_t journalChecksum(std::uint32_t nonce, const std::uint8_t* page, std::uint32_t ps)
{
    for (std::int64_t i = std::int64_t(ps) - 200; i > 0; i -= 200)
        nonce += page[i];
    return nonce;
}

int openForReading(const std::string& path)
{
    // Non-blocking: a FIFO named like a database is not waited on (it is refused below).
    return ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
}

std::string number(std::uint64_t n)
{
    return std::to_string(n);
}

} // namespace

std::size_t DbFile::Blob::readAt(std::uint64_t offset, void* buf, std::size_t n) const
{
    if (fd < 0) {
        if (offset >= bytes.size()) return 0;
        const std::size_t k = std::min<std::uint64_t>(n, bytes.size() - offset);
        std::memcpy(buf, bytes.data() + offset, k);
        return k;
    }
    std::size_t done = 0;
    while (done < n) {
        const ssize_t r =
            ::pread(fd, static_cast<std::uint8_t*>(buf) + done, n - done, off_t(offset + done));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        done += std::size_t(r);
    }
    return done;
}

DbFile::Stamp DbFile::stamp(int fd)
{
    Stamp s;
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0) return s;
    s.exists = true;
    s.dev = std::uint64_t(st.st_dev);
    s.ino = std::uint64_t(st.st_ino);
    s.size = std::uint64_t(st.st_size);
    s.mtimeNs = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    return s;
}

DbFile::~DbFile()
{
    for (Blob* b : {&m_main, &m_wal, &m_jrnl})
        if (b->fd >= 0) ::close(b->fd);
}

std::shared_ptr<const DbFile> DbFile::open(const std::string& path, std::string* error)
{
    std::shared_ptr<DbFile> f(new DbFile);
    f->m_name = path;
    const int fd = openForReading(path);
    if (fd < 0) {
        *error = std::strerror(errno);
        return nullptr;
    }
    f->m_main.fd = fd;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        *error = "not a regular file";
        return nullptr;
    }
    f->m_main.size = std::uint64_t(st.st_size);
    f->m_mainStamp = stamp(fd);
    f->applyJournals(path);
    return f;
}

std::shared_ptr<const DbFile> DbFile::fromBytes(const std::string& name, std::string_view db,
                                                std::string_view wal, std::string_view journal)
{
    std::shared_ptr<DbFile> f(new DbFile);
    f->m_name = name;
    f->m_main.bytes.assign(db);
    f->m_main.size = db.size();
    f->m_wal.bytes.assign(wal);
    f->m_wal.size = wal.size();
    f->m_jrnl.bytes.assign(journal);
    f->m_jrnl.size = journal.size();
    f->applyJournals({});
    return f;
}

// Which journal the main file's header names, and what it holds. path: the file's (its
// -wal and -journal are opened beside it), empty for an image in memory (given with it).
void DbFile::applyJournals(const std::string& path)
{
    m_size = m_main.size;
    std::uint8_t h[100];
    if (m_main.readAt(0, h, sizeof h) != sizeof h || std::memcmp(h, "SQLite format 3", 16) != 0)
        return; // not SQLite's: SQLite says so
    std::uint32_t ps = be16(h + 16);
    if (ps == 1) ps = 65536;
    if (!validPageSize(ps)) return;
    m_pageSize = ps;
    // The pages the header counts (valid when the change counter and the version-valid-for
    // number agree) are the database, as SQLite takes them: bytes past them are not read. A
    // file cut short (a bad copy, a full disk) keeps that size, its missing pages read as
    // missing, so what is there is read where SQLite would refuse the whole file.
    const std::uint64_t counted = be32(h + 28);
    if (counted > 0 && be32(h + 24) == be32(h + 92)) {
        if (counted * ps > m_main.size)
            warn(m_name + ": the file is cut short: it holds " + number(m_main.size / ps) +
                 " of the " + number(counted) +
                 " pages its header counts; the rows on the missing pages are lost");
        m_size = counted * ps;
    }
    // A log beside the file, opened when there is one. Present in memory when given.
    auto openLog = [&](const std::string& name, Blob& log) {
        if (path.empty()) return log.size > 0;
        const int fd = openForReading(name);
        if (fd < 0) {
            if (errno != ENOENT)
                warn(name + ": cannot be read (" + std::strerror(errno) +
                     "): the main file is shown without it");
            return false;
        }
        log.fd = fd;
        struct stat st {};
        if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            warn(name + ": not a regular file: the main file is shown without it");
            return false;
        }
        log.size = std::uint64_t(st.st_size);
        return true;
    };
    const std::string base = path.empty() ? m_name : path;
    if (h[19] == 2) {
        // WAL mode. SQLite is shown the file as a rollback-mode one (it never looks for a
        // -wal or a -shm then), with the frames applied here.
        m_journal = Journal::Wal;
        m_patchHeader = true;
        if (!openLog(base + "-wal", m_wal)) return;
        const std::uint64_t mainSize = m_size;
        for (int attempt = 0;; ++attempt) {
            const std::size_t notes = m_warnings.size();
            const bool cut = readWal(base + "-wal");
            if (!cut || m_wal.fd < 0 || attempt == kWalSettleTries) break;
            // The log ends inside a frame: a writer may be writing it now. Looked at again
            // once its size settles; a log that stays cut keeps the warning.
            std::this_thread::sleep_for(kWalSettleWait);
            const Stamp now = stamp(m_wal.fd);
            if (now.size == m_wal.size) break;
            m_wal.size = now.size;
            m_warnings.resize(notes);
            m_log.clear();
            m_walFrames = 0;
            m_size = mainSize;
        }
    } else if (h[19] == 1 && m_main.size > 0) {
        if (openLog(base + "-journal", m_jrnl)) readHotJournal(base + "-journal");
    }
}

// The committed frames of the -wal (SQLite's walIndexRecover): frames are read in order while
// their salts are the header's and their running checksums hold; the view is as of the last
// commit frame among them. Returns true when the log ends inside a frame.
bool DbFile::readWal(const std::string& walName)
{
    const Blob& w = m_wal;
    if (w.size == 0) return false; // a finished profile's empty log
    if (w.size < kWalHeader) {
        warn(walName + ": " + number(w.size) +
             " bytes, shorter than a write-ahead log's header: ignored");
        return false;
    }
    std::uint8_t hdr[kWalHeader];
    if (w.readAt(0, hdr, kWalHeader) != kWalHeader) {
        warn(walName + ": cannot be read: ignored");
        return false;
    }
    const std::uint32_t magic = be32(hdr), wps = be32(hdr + 8);
    const bool big = magic & 1;
    std::uint32_t ck[2] = {0, 0};
    walChecksum(big, hdr, 24, ck);
    const char* bad = (magic & ~1u) != kWalMagic ? "not a write-ahead log (its magic number)"
                      : !validPageSize(wps)      ? "its header is damaged (the page size)"
                      : ck[0] != be32(hdr + 24) || ck[1] != be32(hdr + 28)
                          ? "its header is damaged (the checksum does not match)"
                      : be32(hdr + 4) != kWalVersion ? "a write-ahead log of an unknown version"
                                                     : nullptr;
    if (bad) {
        warn(walName + ": " + bad + ": ignored; the main file's pages are shown");
        return false;
    }
    if (wps != m_pageSize) {
        warn(walName + ": its pages are " + number(wps) + " bytes, the database's " +
             number(m_pageSize) + " (a -wal of another database?): ignored");
        return false;
    }
    std::memcpy(m_walSalt, hdr + 16, 8);
    const std::uint64_t frame = kFrameHeader + std::uint64_t(wps);
    const std::uint64_t whole = (w.size - kWalHeader) / frame;
    const std::uint64_t tail = (w.size - kWalHeader) % frame;
    std::vector<std::uint8_t> buf(frame);
    std::vector<std::pair<std::uint32_t, std::uint64_t>> frames; // page, offset
    std::size_t committed = 0;
    std::uint32_t pages = 0;
    enum class Stop { End, Salt, Damaged } stop = Stop::End;
    std::uint64_t i = 0;
    for (; i < whole; ++i) {
        const std::uint64_t at = kWalHeader + i * frame;
        if (w.readAt(at, buf.data(), frame) != frame) {
            stop = Stop::Damaged;
            break;
        }
        if (std::memcmp(buf.data() + 8, m_walSalt, 8) != 0) {
            stop = Stop::Salt;
            break;
        }
        const std::uint32_t pgno = be32(buf.data());
        walChecksum(big, buf.data(), 8, ck);
        walChecksum(big, buf.data() + kFrameHeader, wps, ck);
        if (pgno == 0 || ck[0] != be32(buf.data() + 16) || ck[1] != be32(buf.data() + 20)) {
            stop = Stop::Damaged;
            break;
        }
        frames.emplace_back(pgno, at);
        if (const std::uint32_t commit = be32(buf.data() + 4)) {
            committed = frames.size();
            pages = commit;
        }
    }
    if (stop == Stop::Damaged) {
        // Frames after a damaged one cannot be checked (the checksums run on): committed
        // data is lost when a commit frame of this log follows. Else it was a transaction
        // that never committed, which a reader ignores silently.
        std::uint64_t commits = 0;
        std::uint8_t fh[kFrameHeader];
        for (std::uint64_t j = i; j < whole; ++j)
            if (w.readAt(kWalHeader + j * frame, fh, kFrameHeader) == kFrameHeader &&
                std::memcmp(fh + 8, m_walSalt, 8) == 0 && be32(fh + 4) != 0)
                ++commits;
        if (commits > 0)
            warn(walName + ": frame " + number(i + 1) +
                 " is damaged (its checksum does not match): it and the " + number(whole - i - 1) +
                 " frames after it are not applied, " + number(commits) +
                 " commit(s) among them; the database is shown as of the commit before it");
    } else if (stop == Stop::Salt && i == 0) {
        warn(walName + ": its frames do not carry its header's salt (a -wal of another "
                       "database, or one being rewritten): ignored");
    }
    const bool cut = stop == Stop::End && tail != 0;
    if (cut)
        warn(walName + ": ends inside frame " + number(whole + 1) + " (" + number(tail) + " of " +
             number(frame) +
             " bytes: cut short): the transaction it belongs to is not applied; the database "
             "is shown as of the commit before it");
    if (committed == 0) return cut;
    for (std::size_t k = 0; k < committed; ++k)
        m_log[frames[k].first] = frames[k].second; // a page's last frame wins
    // Page 1 as the log last wrote it must be this database's: a log cannot change the page
    // size, the reserved bytes or the text encoding.
    if (auto it = m_log.find(1); it != m_log.end()) {
        std::uint8_t main[100], logged[100];
        if (m_main.readAt(0, main, 100) != 100 ||
            w.readAt(it->second + kFrameHeader, logged, 100) != 100 ||
            std::memcmp(main, logged, 18) != 0 || main[20] != logged[20] ||
            std::memcmp(main + 56, logged + 56, 4) != 0) {
            warn(walName + ": its page 1 is not this database's (a -wal of another database?): "
                           "ignored");
            m_log.clear();
            return cut;
        }
    }
    m_logPageSize = wps;
    m_walFrames = std::uint32_t(committed);
    m_size = std::uint64_t(pages) * wps;
    return cut;
}

// A hot -journal as SQLite plays it back (pager_playback): the pages it saved before the
// writer changed them, restored over the main file, which is cut to the size it had.
void DbFile::readHotJournal(const std::string& journalName)
{
    const Blob& j = m_jrnl;
    std::uint8_t first = 0;
    if (j.size == 0 || j.readAt(0, &first, 1) != 1 || first == 0)
        return; // no journal (truncated, or its header zeroed at commit): nothing to undo
    // A transaction over several files committed once its super-journal is gone.
    if (j.size >= 16) {
        std::uint8_t t[16];
        if (j.readAt(j.size - 16, t, 16) == 16 && std::memcmp(t + 8, kJournalMagic, 8) == 0) {
            const std::uint32_t len = be32(t);
            std::uint32_t sum = be32(t + 4);
            if (len > 0 && len <= j.size - 16 && len < 513) {
                std::string super(len, '\0');
                if (j.readAt(j.size - 16 - len, super.data(), len) == len) {
                    for (char c : super)
                        sum -= std::uint32_t(std::int32_t(static_cast<signed char>(c)));
                    const std::string named = super.c_str();
                    struct stat st {};
                    if (sum == 0 && !named.empty() && (j.fd < 0 || ::stat(named.c_str(), &st) != 0))
                        return;
                }
            }
        }
    }
    std::uint8_t h[28];
    if (j.size < sizeof h || j.readAt(0, h, sizeof h) != sizeof h ||
        std::memcmp(h, kJournalMagic, 8) != 0) {
        warn(journalName + ": not a rollback journal (its header is not SQLite's): ignored");
        return;
    }
    const std::uint32_t mxPg = be32(h + 16), sector = be32(h + 20);
    std::uint32_t jps = be32(h + 24);
    if (jps == 0) jps = m_pageSize;
    if (!validPageSize(jps) || sector < 32 || sector > 65536 || (sector & (sector - 1)) != 0 ||
        sector > j.size)
        return; // a header never synced: the writer stopped before it changed the file
    const std::uint64_t record = std::uint64_t(jps) + 8;
    const std::uint32_t lockPage = std::uint32_t(kPendingByte / jps + 1);
    std::vector<std::uint8_t> page(jps);
    std::uint64_t at = 0, restored = 0;
    bool more = true;
    for (bool firstHeader = true; more; firstHeader = false) {
        if (!firstHeader) {
            at = (at + sector - 1) / sector * sector;
            if (at + sector > j.size || j.readAt(at, h, sizeof h) != sizeof h ||
                std::memcmp(h, kJournalMagic, 8) != 0)
                break;
        }
        std::uint64_t records = be32(h + 8);
        const std::uint32_t nonce = be32(h + 12);
        at += sector;
        if (records == 0xffffffff) records = (j.size - at) / record;
        for (std::uint64_t r = 0; r < records; ++r) {
            std::uint8_t pg[4], ck[4];
            if (at + record > j.size || j.readAt(at, pg, 4) != 4) {
                more = false;
                break;
            }
            const std::uint32_t pgno = be32(pg);
            const std::uint64_t rec = at;
            at += record;
            if (pgno == 0 || pgno == lockPage) {
                more = false;
                break;
            }
            if (pgno > mxPg) continue;
            if (j.readAt(rec + 4, page.data(), jps) != jps || j.readAt(rec + 4 + jps, ck, 4) != 4 ||
                journalChecksum(nonce, page.data(), jps) != be32(ck)) {
                more = false;
                break;
            }
            m_log[pgno] = rec;
            ++restored;
        }
    }
    m_journal = Journal::HotJournal;
    m_logPageSize = jps;
    m_size = std::uint64_t(mxPg) * jps;
    // A writer that is still at it holds SQLite's RESERVED lock byte (asked, not taken).
    bool live = false;
    if (m_main.fd >= 0) {
        struct flock lock {};
        lock.l_type = F_WRLCK;
        lock.l_whence = SEEK_SET;
        lock.l_start = off_t(kPendingByte + 1);
        lock.l_len = 1;
        live = ::fcntl(m_main.fd, F_GETLK, &lock) == 0 && lock.l_type != F_UNLCK;
    }
    warn(m_name + ": the file was being written: its -journal " +
         (live ? std::string("belongs to a writer that is still at it")
               : std::string("was left by a writer that did not finish (a crash?)")) +
         "; the last committed state is shown (" + number(restored) +
         " page(s) restored from the -journal)");
}

bool DbFile::read(std::uint64_t offset, void* out, std::size_t n) const
{
    auto* buf = static_cast<std::uint8_t*>(out);
    bool ok = true;
    std::size_t avail = n;
    if (offset >= m_size) {
        avail = 0;
    } else if (m_size - offset < n) {
        avail = std::size_t(m_size - offset);
    }
    if (avail < n) {
        std::memset(buf + avail, 0, n - avail);
        ok = false;
    }
    // Bytes of the main file; past its end (a file cut short) they are missing: zeros.
    auto fromMain = [&](std::uint64_t at, std::uint8_t* dst, std::size_t len) {
        const std::size_t got = m_main.readAt(at, dst, len);
        if (got < len) {
            std::memset(dst + got, 0, len - got);
            ok = false;
        }
    };
    if (m_log.empty()) {
        fromMain(offset, buf, avail);
    } else {
        const std::uint64_t lps = m_logPageSize;
        for (std::size_t done = 0; done < avail;) {
            const std::uint64_t at = offset + done;
            const std::uint32_t page = std::uint32_t(at / lps + 1);
            const std::uint64_t in = at % lps;
            const std::size_t len = std::size_t(std::min<std::uint64_t>(avail - done, lps - in));
            auto it = m_log.find(page);
            bool logged = false;
            if (it != m_log.end()) {
                if (m_journal == Journal::Wal) {
                    // The frame must still be the one read at open: a writer that restarted
                    // the log after a checkpoint writes other frames there (and the main
                    // file then has the page, as new as or newer than the view's).
                    std::uint8_t fh[kFrameHeader];
                    logged = m_wal.readAt(it->second, fh, kFrameHeader) == kFrameHeader &&
                             be32(fh) == page && std::memcmp(fh + 8, m_walSalt, 8) == 0 &&
                             m_wal.readAt(it->second + kFrameHeader + in, buf + done, len) == len;
                    if (!logged) m_logChanged = true;
                } else {
                    std::uint8_t pg[4];
                    logged = m_jrnl.readAt(it->second, pg, 4) == 4 && be32(pg) == page &&
                             m_jrnl.readAt(it->second + 4 + in, buf + done, len) == len;
                    if (!logged) m_logChanged = true;
                }
            }
            if (!logged) fromMain(at, buf + done, len);
            done += len;
        }
    }
    // WAL mode shown as rollback mode: SQLite then reads these bytes and nothing else.
    if (m_patchHeader && offset < 20 && offset + n > 18)
        for (std::uint64_t b = std::max<std::uint64_t>(offset, 18); b < 20 && b < offset + n; ++b)
            buf[b - offset] = 1;
    return ok;
}

DbFile::Source DbFile::source(std::uint32_t page) const
{
    if (m_log.empty() || m_logPageSize != m_pageSize || !m_log.count(page)) return Source::Main;
    return m_journal == Journal::Wal ? Source::Wal : Source::Journal;
}

bool DbFile::changed() const
{
    if (m_main.fd < 0) return false;
    return m_logChanged.load() || stamp(m_main.fd) != m_mainStamp;
}

} // namespace rs::sqlite
