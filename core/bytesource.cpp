#include "core/bytesource.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rs {

struct ByteSource::Inflate {
    z_stream z{};
    bool ready = false;
    ~Inflate()
    {
        if (ready) inflateEnd(&z);
    }
};

ByteSource::~ByteSource()
{
    if (m_fd >= 0) ::close(m_fd);
}

std::unique_ptr<ByteSource> ByteSource::open(const std::string& path, std::string* error)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (error) *error = path + ": " + std::strerror(errno);
        return nullptr;
    }
    // A FIFO or device would block or never end: only regular files are traces.
    if (!S_ISREG(st.st_mode)) {
        if (error) *error = path + ": not a regular file";
        return nullptr;
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (error) *error = path + ": " + std::strerror(errno);
        return nullptr;
    }
    std::unique_ptr<ByteSource> s(new ByteSource);
    s->m_fd = fd;
    s->m_fileSize = static_cast<std::uint64_t>(st.st_size);
    return s;
}

std::unique_ptr<ByteSource> ByteSource::fromMemory(const char* data, std::size_t size)
{
    std::unique_ptr<ByteSource> s(new ByteSource);
    s->m_memory = data ? data : ""; // null + 0 bytes is an empty input, not "read from fd"
    s->m_fileSize = size;
    return s;
}

std::uint64_t ByteSource::fileBytesConsumed() const
{
    if (!m_gzip) return offset();
    const std::uint64_t fed = m_fileRead - (m_rawLen - m_rawPos); // handed to inflate
    const std::uint64_t produced = m_base + static_cast<std::uint64_t>(m_end - m_buf);
    if (produced == 0) return 0;
    return static_cast<std::uint64_t>(static_cast<double>(fed) * static_cast<double>(offset()) /
                                      static_cast<double>(produced));
}

void ByteSource::fail(std::string message)
{
    if (m_error.empty()) m_error = std::move(message);
    m_eof = true;
}

bool ByteSource::readRaw()
{
    if (m_memory) {
        const std::uint64_t left = m_fileSize - m_fileRead;
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, kChunk));
        if (m_raw.size() < n) m_raw.resize(n);
        if (n > 0) // an empty input has no buffer: memcpy from/to null is UB even for 0 bytes
            std::memcpy(m_raw.data(), m_memory + m_fileRead, n);
        m_rawPos = 0;
        m_rawLen = n;
        m_fileRead += n;
        m_rawEof = m_fileRead >= m_fileSize;
        return n > 0;
    }
    if (m_raw.size() < kChunk) m_raw.resize(kChunk);
    ssize_t n;
    do {
        n = ::read(m_fd, m_raw.data(), kChunk);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        fail(std::string("read error: ") + std::strerror(errno));
        m_rawEof = true;
        return false;
    }
    m_rawPos = 0;
    m_rawLen = static_cast<std::size_t>(n);
    m_fileRead += static_cast<std::uint64_t>(n);
    if (n == 0) m_rawEof = true;
    return n > 0;
}

ByteSource::Iterator ByteSource::begin()
{
    if (!m_started) {
        m_started = true;
        // Sniff the gzip magic from the first piece of the file.
        readRaw();
        m_gzip = m_rawLen >= 2 && static_cast<unsigned char>(m_raw[0]) == 0x1f &&
                 static_cast<unsigned char>(m_raw[1]) == 0x8b;
        if (m_gzip) {
            m_inflate = std::make_unique<Inflate>();
            if (inflateInit2(&m_inflate->z, 16 + MAX_WBITS) != Z_OK)
                fail("cannot initialise zlib");
            else
                m_inflate->ready = true;
            m_out.resize(kChunk);
        }
        m_buf = m_pos = m_end = m_raw.data();
        m_base = 0;
        refill();
    }
    return Iterator(this);
}

std::size_t ByteSource::read(char* dst, std::size_t n)
{
    if (!m_started) begin();
    std::size_t got = 0;
    while (got < n) {
        if (m_pos == m_end) {
            if (m_eof) break;
            refill();
            if (m_pos == m_end) break;
        }
        const std::size_t k = std::min(n - got, static_cast<std::size_t>(m_end - m_pos));
        std::memcpy(dst + got, m_pos, k);
        m_pos += k;
        got += k;
    }
    return got;
}

void ByteSource::refill()
{
    if (m_capture) {
        m_capture->append(m_captureFrom, m_end);
    }
    m_base += static_cast<std::uint64_t>(m_end - m_buf);
    m_buf = m_pos = m_end = nullptr;
    auto finishRefill = [&](const char* b, std::size_t n) {
        m_buf = m_pos = b;
        m_end = b + n;
        m_captureFrom = m_buf;
        if (m_progress) m_progress->store(m_fileRead, std::memory_order_relaxed);
    };
    if (m_eof) {
        finishRefill(m_raw.data(), 0);
        return;
    }
    if (m_cancel && m_cancel->load(std::memory_order_relaxed)) {
        m_cancelled = true;
        m_eof = true;
        finishRefill(m_raw.data(), 0);
        return;
    }
    if (m_limit && m_base >= m_limit) {
        m_overLimit = true;
        m_eof = true;
        finishRefill(m_raw.data(), 0);
        return;
    }
    if (!m_gzip) {
        // The first piece was read while sniffing; later pieces come from the file.
        if (m_rawPos >= m_rawLen && (m_rawEof || !readRaw())) {
            m_eof = true;
            finishRefill(m_raw.data(), 0);
            return;
        }
        const std::size_t n = m_rawLen - m_rawPos;
        m_rawPos = m_rawLen;
        finishRefill(m_raw.data(), n);
        return;
    }
    z_stream& z = m_inflate->z;
    z.next_out = reinterpret_cast<Bytef*>(m_out.data());
    z.avail_out = static_cast<uInt>(m_out.size());
    while (z.avail_out > 0 && !m_eof) {
        if (m_rawPos >= m_rawLen) {
            if (m_rawEof || !readRaw()) {
                fail("gzip stream ends early (file truncated?)");
                break;
            }
        }
        z.next_in = reinterpret_cast<Bytef*>(m_raw.data() + m_rawPos);
        z.avail_in = static_cast<uInt>(m_rawLen - m_rawPos);
        const int rc = inflate(&z, Z_NO_FLUSH);
        m_rawPos = m_rawLen - z.avail_in;
        if (rc == Z_STREAM_END) {
            // Concatenated gzip members are one stream; stop only at the end of the file.
            if (m_rawPos >= m_rawLen && (m_rawEof || !readRaw())) {
                m_eof = true;
                break;
            }
            if (m_rawLen - m_rawPos < 2 || static_cast<unsigned char>(m_raw[m_rawPos]) != 0x1f) {
                m_eof = true; // trailing garbage after the last member is ignored
                break;
            }
            inflateReset(&z);
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            fail(std::string("corrupt gzip data: ") + (z.msg ? z.msg : "inflate failed"));
            break;
        }
    }
    const std::size_t produced = m_out.size() - z.avail_out;
    // m_eof may be set while the last bytes are still to be handed out.
    const bool eof = m_eof;
    m_eof = false;
    finishRefill(m_out.data(), produced);
    m_eof = eof || produced == 0;
    if (produced == 0) m_eof = true;
}

FileBytes::~FileBytes()
{
    if (m_map) ::munmap(const_cast<char*>(m_map), static_cast<std::size_t>(m_size));
}

std::unique_ptr<FileBytes> FileBytes::open(const std::string& path, std::string* error)
{
    std::unique_ptr<ByteSource> src = ByteSource::open(path, error);
    if (!src) return nullptr;
    auto fail = [&] {
        if (error) *error = path + ": " + std::strerror(errno);
        return nullptr;
    };
    struct stat st {};
    if (::fstat(src->m_fd, &st) != 0) return fail();
    std::unique_ptr<FileBytes> f(new FileBytes);
    f->m_size = static_cast<std::uint64_t>(st.st_size);
    src->m_fileSize = f->m_size;
    const auto size = static_cast<std::size_t>(st.st_size);
    // pread leaves the offset where the stream starts reading.
    unsigned char magic[2] = {0, 0};
    if (size >= 2 && ::pread(src->m_fd, magic, 2, 0) != 2) return fail();
    f->m_gzip = size >= 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (!f->m_gzip && size > 0) {
        void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, src->m_fd, 0);
        if (map != MAP_FAILED) {
            ::madvise(map, size, MADV_SEQUENTIAL);
            f->m_map = static_cast<const char*>(map);
            return f; // the stream (and its descriptor) goes: the mapping stays
        }
    }
    if (!f->m_gzip && size == 0) return f; // nothing to map
    f->m_stream = std::move(src);
    return f;
}

} // namespace rs
