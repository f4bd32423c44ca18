#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace rs {

// Streams a file's bytes in chunks, inflating gzip (detected by its magic bytes) on the fly.
// Memory stays bounded by the chunk size whatever the file size. Reports progress in file
// bytes and stops early when cancelled or when the uncompressed size passes a limit.
class ByteSource {
public:
    static constexpr std::size_t kChunk = 4u << 20;

    ~ByteSource();
    // Opens a regular file; on failure returns nullptr and sets error.
    static std::unique_ptr<ByteSource> open(const std::string& path, std::string* error);
    // Reads from memory (tests, fuzzing). The bytes must outlive the source.
    static std::unique_ptr<ByteSource> fromMemory(const char* data, std::size_t size);

    bool gzip() const { return m_gzip; }
    std::uint64_t fileSize() const { return m_fileSize; }
    std::uint64_t fileBytesRead() const { return m_fileRead; }
    // File bytes behind what the parser consumed so far (read-ahead excluded; for gzip scaled
    // by the share of the inflated output consumed): the share of the file really parsed.
    std::uint64_t fileBytesConsumed() const;
    std::uint64_t offset() const { return m_base + static_cast<std::uint64_t>(m_pos - m_buf); }
    bool exhausted() const { return m_pos == m_end && m_eof; }
    const std::string& error() const { return m_error; }
    bool cancelled() const { return m_cancelled; }
    bool overLimit() const { return m_overLimit; }

    void setCancelFlag(const std::atomic<bool>* flag) { m_cancel = flag; }
    void setProgress(std::atomic<std::uint64_t>* done) { m_progress = done; }
    // Stop (as at end of input) once this many uncompressed bytes were produced; 0 = none.
    void setUncompressedLimit(std::uint64_t bytes) { m_limit = bytes; }

    // Appends every byte consumed from now until endCapture() to out.
    void beginCapture(std::string* out)
    {
        m_capture = out;
        m_captureFrom = m_pos;
    }
    void endCapture()
    {
        if (m_capture) m_capture->append(m_captureFrom, m_pos);
        m_capture = nullptr;
    }

    // Input iterator over the stream, for nlohmann's iterator adapter. All copies share the
    // source; the end iterator compares equal once the source is exhausted.
    class Iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = char;
        using difference_type = std::ptrdiff_t;
        using pointer = const char*;
        using reference = const char&;

        Iterator() = default;
        explicit Iterator(ByteSource* s) : m_src(s) {}
        reference operator*() const { return *m_src->m_pos; }
        Iterator& operator++()
        {
            if (++m_src->m_pos == m_src->m_end) m_src->refill();
            return *this;
        }
        Iterator operator++(int)
        {
            Iterator t = *this;
            ++*this;
            return t;
        }
        bool operator==(const Iterator& o) const
        {
            const ByteSource* s = m_src ? m_src : o.m_src;
            return s == nullptr || s->m_pos == s->m_end;
        }

    private:
        ByteSource* m_src = nullptr;
    };
    Iterator begin();
    Iterator end() { return Iterator(); }
    // Copies up to n bytes of the stream into dst (the iterator's bytes, in bulk); returns how
    // many, less than n only at the end of the stream.
    std::size_t read(char* dst, std::size_t n);

private:
    friend class FileBytes;
    ByteSource() = default;
    void refill();
    bool readRaw(); // next piece of the file into m_raw
    void fail(std::string message);

    int m_fd = -1;
    const char* m_memory = nullptr;
    std::uint64_t m_fileSize = 0;
    std::uint64_t m_fileRead = 0;
    bool m_gzip = false;
    bool m_eof = false;
    bool m_started = false;
    std::vector<char> m_raw; // compressed input
    std::size_t m_rawPos = 0, m_rawLen = 0;
    bool m_rawEof = false;
    std::vector<char> m_out; // uncompressed output
    const char* m_buf = nullptr;
    const char* m_pos = nullptr;
    const char* m_end = nullptr;
    std::uint64_t m_base = 0;
    std::uint64_t m_limit = 0;
    std::string m_error;
    bool m_cancelled = false;
    bool m_overLimit = false;
    const std::atomic<bool>* m_cancel = nullptr;
    std::atomic<std::uint64_t>* m_progress = nullptr;
    std::string* m_capture = nullptr;
    const char* m_captureFrom = nullptr;
    struct Inflate;
    std::unique_ptr<Inflate> m_inflate;
};

// A file as a reader that wants it whole takes it: a plain regular file mapped as it is, a gzip
// one (by its magic bytes) streamed through a ByteSource that inflates it, as is a plain file
// the system cannot map. The one way the trace loader (loadTraceFile) and the rank summaries
// (readRankSummary) open a file, so the two detect gzip and map alike.
class FileBytes {
public:
    FileBytes(const FileBytes&) = delete;
    FileBytes& operator=(const FileBytes&) = delete;
    ~FileBytes();
    // A regular file; on failure nullptr and error (the path, then why: ByteSource::open's).
    static std::unique_ptr<FileBytes> open(const std::string& path, std::string* error);

    bool gzip() const { return m_gzip; }
    std::uint64_t fileSize() const { return m_size; }
    // Mapped: the file's bytes at data() (null for an empty file), fileSize() of them, mapped
    // for one pass from the front (MADV_SEQUENTIAL).
    bool mapped() const { return m_stream == nullptr; }
    const char* data() const { return m_map; }
    // Not mapped (gzip, or the mapping failed): the stream of the file's (inflated) bytes.
    ByteSource* stream() const { return m_stream.get(); }

private:
    FileBytes() = default;
    const char* m_map = nullptr;
    std::uint64_t m_size = 0;
    bool m_gzip = false;
    std::unique_ptr<ByteSource> m_stream;
};

} // namespace rs
