// Load benchmark: the Ringscope loader against a bare nlohmann SAX parse of the same file; a
// torch_npu database (ascend_pytorch_profiler_N.db, gen_trace --shape torch_npu_db) is timed
// per event against the text export of the same run (--text), the SAX reference left out.
//   bench_load FILE... [--repeat N] [--no-ref]
// Prints MB/s, events/s, model bytes per event, RSS growth and peak RSS against the file size.
#include "bench/benchutil.h"
#include "core/bytesource.h"
#include "core/producers/producer.h"
#include "core/traceloader.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using rs::bench::resetPeak;
using rs::bench::statusBytes;

// User + system CPU seconds of the whole process (all threads).
double cpuSeconds()
{
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// Reads the file once so every timed pass starts from the page cache.
void warmCache(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) return;
    std::vector<char> buf(4 << 20);
    while (::read(fd, buf.data(), buf.size()) > 0) {
    }
    ::close(fd);
}

// The reference: nlohmann's SAX parser with a handler that does nothing.
struct EmptySax {
    using json = nlohmann::json;
    std::uint64_t values = 0;
    bool null() { return ++values; }
    bool boolean(bool) { return ++values; }
    bool number_integer(json::number_integer_t) { return ++values; }
    bool number_unsigned(json::number_unsigned_t) { return ++values; }
    bool number_float(json::number_float_t, const std::string&) { return ++values; }
    bool string(std::string&) { return ++values; }
    bool binary(json::binary_t&) { return ++values; }
    bool start_object(std::size_t) { return true; }
    bool key(std::string&) { return true; }
    bool end_object() { return true; }
    bool start_array(std::size_t) { return true; }
    bool end_array() { return true; }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&)
    {
        return false;
    }
};

// Plain files: mmap and nlohmann's contiguous-memory input (its fastest input adapter).
// Gzip: through ByteSource, which inflates as it goes.
double bareSax(const std::string& path, bool* ok)
{
    std::string error;
    auto src = rs::ByteSource::open(path, &error);
    if (!src) {
        *ok = false;
        return 0;
    }
    const auto t0 = Clock::now();
    EmptySax sax;
    auto it = src->begin();
    if (src->gzip()) {
        *ok = nlohmann::json::sax_parse(it, src->end(), &sax, nlohmann::json::input_format_t::json,
                                        true, false);
    } else {
        const int fd = ::open(path.c_str(), O_RDONLY);
        struct stat st {};
        ::fstat(fd, &st);
        const auto size = static_cast<std::size_t>(st.st_size);
        void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        ::close(fd);
        if (p == MAP_FAILED) {
            *ok = false;
            return 0;
        }
        ::madvise(p, size, MADV_SEQUENTIAL);
        const char* b = static_cast<const char*>(p);
        *ok = nlohmann::json::sax_parse(b, b + size, &sax, nlohmann::json::input_format_t::json,
                                        true, false);
        ::munmap(p, size);
    }
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

void bench(const std::string& path, int repeat, bool ref)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        std::fprintf(stderr, "%s: cannot stat\n", path.c_str());
        return;
    }
    const double size = static_cast<double>(st.st_size);
    const double mb = size / 1e6;
    warmCache(path);
    std::printf("%s\n  file: %.1f MB\n", path.c_str(), mb);

    double best = 1e30;
    bool json = true;
    for (int r = 0; r < repeat; ++r) {
        resetPeak();
        const std::uint64_t rss0 = statusBytes("VmRSS");
        const double cpu0 = cpuSeconds();
        const auto t0 = Clock::now();
        rs::LoadResult res = rs::loadTrace(path);
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        const double cpu = cpuSeconds() - cpu0;
        const std::uint64_t rss1 = statusBytes("VmRSS");
        const std::uint64_t peak = statusBytes("VmHWM");
        if (!res.trace) {
            std::printf("  load FAILED: %s\n", res.message.c_str());
            return;
        }
        best = std::min(best, s);
        const rs::Trace& t = *res.trace;
        const double events = static_cast<double>(t.stats().events);
        std::printf("  load: %.3f s  %.1f MB/s  %.2f M events/s  (%s, %llu events, %zu "
                    "warnings)\n",
                    s, mb / s, events / s / 1e6, res.complete() ? "ok" : res.message.c_str(),
                    static_cast<unsigned long long>(t.stats().events), t.warnings().size());
        // On a shared machine wall time depends on the neighbours; CPU time less so.
        std::printf("  cpu: %.3f s user+sys (%.1f MB per CPU-second)\n", cpu, mb / cpu);
        json = t.producer().format() == "json";
        std::printf("  per event: %.0f ns wall, %.0f ns CPU (%s, %s)\n", s / events * 1e9,
                    cpu / events * 1e9, std::string(t.producer().id()).c_str(),
                    std::string(t.producer().format()).c_str());
        std::printf("  model: %.1f bytes/event (modelBytes %.1f MB, args text %.1f MB)\n",
                    static_cast<double>(t.modelBytes()) / events, t.modelBytes() / 1e6,
                    t.argsBytes() / 1e6);
        std::printf("  rss: +%.1f MB after load (%.1f bytes/event incl. args), peak %.1f MB = "
                    "%.2f x file\n",
                    (static_cast<double>(rss1) - static_cast<double>(rss0)) / 1e6,
                    (static_cast<double>(rss1) - static_cast<double>(rss0)) / events, peak / 1e6,
                    static_cast<double>(peak) / size);
    }
    if (!ref || !json) return;
    bool ok = true;
    double refBest = 1e30;
    double refCpu = 0;
    for (int r = 0; r < repeat; ++r) {
        const double c0 = cpuSeconds();
        const double t = bareSax(path, &ok);
        if (t < refBest) {
            refBest = t;
            refCpu = cpuSeconds() - c0;
        }
    }
    std::printf("  bare nlohmann SAX (1 thread, empty handler): %.3f s  %.1f MB/s (cpu %.3f s)%s\n",
                refBest, mb / refBest, refCpu, ok ? "" : "  (parse error)");
    std::printf("  ratio load/bare: %.2f x (target <= 1.30)\n", best / refBest);
}

} // namespace

int main(int argc, char** argv)
{
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // results as they come when piped
    std::vector<std::string> files;
    int repeat = 1;
    bool ref = true;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--repeat" && i + 1 < argc)
            repeat = std::max(1, std::atoi(argv[++i]));
        else if (a == "--no-ref")
            ref = false;
        else
            files.push_back(a);
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: bench_load FILE... [--repeat N] [--no-ref]\n");
        return 2;
    }
    std::printf("cores: %ld\n", ::sysconf(_SC_NPROCESSORS_ONLN));
    for (const std::string& f : files)
        bench(f, repeat, ref);
    return 0;
}
