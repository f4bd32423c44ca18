#pragma once

// A database file as a reader sees it at one moment: the main file with what SQLite's journals
// say on top of it, read once when it is opened and then never again (docs/producers.md,
// "Journal modes"). In WAL mode the committed frames of the -wal file are applied (what a
// reader of that moment sees: frames up to the last commit whose checksums hold); in rollback
// mode a hot -journal left by a writer that did not finish is played back in memory (the last
// committed state). Nothing is written, locked or created: no -shm, no journal, so a folder
// that cannot be written and a job still writing are the same to it.
//
// Both readers of a database read this one view: the direct page reader (rawtable.h) through
// read(), SQLite through a VFS that serves the same bytes (sqlitedb.h). They cannot see two
// different files.
//
// Costs: open() reads the -wal or -journal once (one pread per frame), keeps one entry per
// page it holds; a read is one pread (a page in the log: from the log).

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rs::sqlite {

class DbFile {
public:
    // Which journal the view applied.
    enum class Journal : std::uint8_t {
        None,       // rollback mode, no hot journal: the main file as it is
        Wal,        // WAL mode (header byte 19 = 2): the -wal's committed frames, if any
        HotJournal, // rollback mode with a hot -journal: its pages restored
    };
    // Where a page of the view comes from.
    enum class Source : std::uint8_t { Main, Wal, Journal };

    // The file at path and its -wal / -journal beside it. nullptr with *error when the file
    // cannot be opened (missing, not a regular file, no permission).
    static std::shared_ptr<const DbFile> open(const std::string& path, std::string* error);
    // An image in memory with the -wal's and the -journal's bytes when given (tests, fuzzing).
    static std::shared_ptr<const DbFile> fromBytes(const std::string& name, std::string_view db,
                                                   std::string_view wal = {},
                                                   std::string_view journal = {});
    ~DbFile();
    DbFile(const DbFile&) = delete;
    DbFile& operator=(const DbFile&) = delete;

    const std::string& name() const { return m_name; }
    // Bytes of the view: the main file's, or the committed page count times the page size.
    std::uint64_t size() const { return m_size; }
    // Bytes [offset, offset + n) of the view: false past its end (the rest read as zeros) or
    // when the file cannot be read. Thread-safe.
    bool read(std::uint64_t offset, void* buf, std::size_t n) const;
    Source source(std::uint32_t page) const;

    Journal journal() const { return m_journal; }
    std::size_t logPages() const { return m_log.size(); }   // pages taken from the -wal or -journal
    std::uint32_t walFrames() const { return m_walFrames; } // committed frames applied
    // What the journals said that the user should know, each naming the file: a damaged or
    // foreign -wal ignored from where it fails, a hot -journal played back.
    const std::vector<std::string>& warnings() const { return m_warnings; }
    // Whether the files changed since the view was taken in a way that can change what it
    // reads: the main file written (a checkpoint, a writer in rollback mode) or the -wal
    // restarted over frames the view uses. Never for an image in memory.
    bool changed() const;

private:
    DbFile() = default;
    struct Blob {
        int fd = -1;
        std::string bytes; // in memory when fd < 0
        std::uint64_t size = 0;
        std::size_t readAt(std::uint64_t offset, void* buf, std::size_t n) const;
    };
    struct Stamp {
        bool exists = false;
        std::uint64_t dev = 0, ino = 0, size = 0;
        std::int64_t mtimeNs = 0;
        bool operator==(const Stamp&) const = default;
    };
    static Stamp stamp(int fd);
    void applyJournals(const std::string& path);
    bool readWal(const std::string& walName);
    void readHotJournal(const std::string& journalName);
    void warn(std::string text) { m_warnings.push_back(std::move(text)); }

    std::string m_name;
    Blob m_main, m_wal, m_jrnl;
    std::uint64_t m_size = 0;
    std::uint32_t m_pageSize = 0;    // the main header's (0: not an SQLite header)
    std::uint32_t m_logPageSize = 0; // pages of m_log (a -journal may hold another size)
    bool m_patchHeader = false;      // WAL mode shown as rollback mode (header bytes 18-19)
    Journal m_journal = Journal::None;
    // Page number -> offset of its bytes in the -wal (frame header included) or -journal.
    std::unordered_map<std::uint32_t, std::uint64_t> m_log;
    std::uint8_t m_walSalt[8] = {};
    std::uint32_t m_walFrames = 0;
    Stamp m_mainStamp;
    mutable std::atomic<bool> m_logChanged{false}; // a log page no longer what was read
    std::vector<std::string> m_warnings;
};

} // namespace rs::sqlite
