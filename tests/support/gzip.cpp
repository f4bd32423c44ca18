#include "tests/support/gzip.h"

#include <zlib.h>

#include <vector>

namespace rs::test {

std::string gzipRepeated(const std::string& head, const std::string& piece, std::size_t times,
                         const std::string& tail)
{
    z_stream z{};
    deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY);
    std::string out;
    std::vector<char> buf(1 << 16);
    auto feed = [&](const std::string& s, int flush) {
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
        z.avail_in = static_cast<uInt>(s.size());
        do {
            z.next_out = reinterpret_cast<Bytef*>(buf.data());
            z.avail_out = static_cast<uInt>(buf.size());
            deflate(&z, flush);
            out.append(buf.data(), buf.size() - z.avail_out);
        } while (z.avail_out == 0);
    };
    feed(head, Z_NO_FLUSH);
    for (std::size_t i = 0; i < times; ++i)
        feed(piece, Z_NO_FLUSH);
    feed(tail, Z_FINISH);
    deflateEnd(&z);
    return out;
}

std::string gzip(const std::string& text)
{
    return gzipRepeated(std::string(), text, 1, std::string());
}

} // namespace rs::test
