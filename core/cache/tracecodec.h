#pragma once

// The model cache's file format (docs/cache.md): a built Trace written as a header, a section
// table and 64-byte aligned sections, read back with its biggest arrays (slices, args text and
// offsets) used in place from a memory map. Plain C++ and POSIX, no Qt.
//
// Layout: FileHeader, then sectionCount SectionEntry, then the sections. Every section has its
// own checksum; the header and table have one too. The reader trusts nothing: a wrong magic,
// version or architecture tag, a size or checksum that does not match, an index out of range
// anywhere in the model is a rejection with a reason, never a crash or a trace served.

#include "core/trace.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace rs {

// 64-bit hash of bytes (the XXH64 algorithm: four multiply-rotate lanes, ~10 GB/s here): the
// sections' checksums and the key's sampled blocks.
std::uint64_t hash64(const void* data, std::size_t size, std::uint64_t seed = 0);

class TraceCodec {
public:
    // Bumped whenever the layout or the meaning of a field changes: older files are rejected.
    static constexpr std::uint32_t kVersion =
        3; // 2: slice kinds, steps and run facts; 3: flows implied by correlation ids
    // Byte order, pointer size and the in-memory layout of the arrays used in place: a file of
    // another machine (or another build whose Slice differs) is rejected.
    static std::uint64_t archTag();

    // The file's bytes for a trace under a key (the key text is stored and compared on read).
    // sourceFile: the file the trace was loaded from (a trace whose path() is that file is
    // given the reader's own file name back). Writes through `sink` chunk by chunk (the big
    // arrays are handed over as they are, not copied); false when a sink call failed.
    using Sink = bool (*)(void* context, const char* data, std::size_t size);
    static bool write(const Trace& trace, std::string_view key, std::string_view sourceFile,
                      Sink sink, void* context);

    // A trace from a file's bytes. data must stay valid as long as `owner` lives (a memory
    // map, or a buffer): the trace keeps owner and views into data. key: what the file must
    // have been written under (empty: anything, for fuzzing). sourceFile: the file loaded now.
    // Null with *why set when the bytes are not a valid model.
    // Makes a damaged file's checksums right again (section by section, then the header), as
    // a forger would: tests and the fuzz target use it to reach the model's own checks.
    static void reseal(char* data, std::size_t size);

    static TracePtr read(std::shared_ptr<const void> owner, const char* data, std::size_t size,
                         std::string_view key, const std::string& sourceFile, std::string* why);
};

} // namespace rs
