#pragma once

#include <cstddef>
#include <string>

namespace rs::test {

// Gzip of head + piece x times + tail, streamed, so a "gzip bomb" never exists uncompressed.
std::string gzipRepeated(const std::string& head, const std::string& piece, std::size_t times,
                         const std::string& tail);
// Gzip (one member) of text.
std::string gzip(const std::string& text);

} // namespace rs::test
