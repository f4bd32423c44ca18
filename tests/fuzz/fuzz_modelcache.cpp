// libFuzzer entry point for the model cache's reader (core/cache/tracecodec): the bytes after
// the first are a cache file. With the first byte's low bit set its checksums are made right
// first (TraceCodec::reseal), so the fuzzer gets past them to the model's own checks. The
// reader must refuse the file with a reason or return a model that keeps the invariants every
// fuzz target checks (checktrace.h), never crash or hang.
#include "core/cache/tracecodec.h"
#include "tests/fuzz/checktrace.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size == 0) return 0;
    const bool reseal = data[0] & 1;
    ++data;
    --size;
    // Aligned as a map is (the reader uses the arrays in place).
    std::shared_ptr<std::uint64_t[]> buffer(new std::uint64_t[size / 8 + 1]);
    char* bytes = reinterpret_cast<char*>(buffer.get());
    if (size) std::memcpy(bytes, data, size);
    if (reseal) rs::TraceCodec::reseal(bytes, size);
    std::string why;
    const rs::TracePtr trace = rs::TraceCodec::read(buffer, bytes, size, {}, "fuzz", &why);
    if (trace)
        rs::fuzz::checkTrace(*trace);
    else
        rs::fuzz::check(!why.empty(), "a refusal says why");
    return 0;
}
