// The text loader's hot path on one thread: the JSON tokenizer alone, then with the model's
// builder (TraceBuilder::addEvent), over the events of a file's first megabytes, in memory.
// Thread CPU time, the best of the repeats: a 2-core machine shared with builds still gives
// steady numbers for an A/B of a tokenizer change, which whole loads (two threads, page cache,
// the finishing phase) do not.
//   bench_tokenize FILE [--mb 64] [--repeat 5]

#include "core/jsontokenizer.h"
#include "core/tracebuilder.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <fstream>
#include <limits>
#include <string>

namespace {

double threadCpuNs()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e9 + double(t.tv_nsec);
}

// The events array: after "traceEvents" (Kineto's object) or the document's '[' (torch_npu).
const char* eventsStart(const std::string& text)
{
    std::size_t at = text.find("\"traceEvents\"");
    at = text.find('[', at == std::string::npos ? 0 : at);
    return at == std::string::npos ? nullptr : text.data() + at + 1;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_tokenize FILE [--mb 64] [--repeat 5]\n");
        return 2;
    }
    std::size_t mb = 64;
    int repeat = 5;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--mb")) mb = std::strtoul(argv[i + 1], nullptr, 10);
        if (!std::strcmp(argv[i], "--repeat")) repeat = std::max(1, std::atoi(argv[i + 1]));
    }
    std::string text(mb << 20, '\0');
    {
        std::ifstream in(argv[1], std::ios::binary);
        in.read(text.data(), static_cast<std::streamsize>(text.size()));
        text.resize(static_cast<std::size_t>(in.gcount()));
    }
    const char* first = eventsStart(text);
    if (!first) {
        std::fprintf(stderr, "%s: no event array in the first %zu MiB\n", argv[1], mb);
        return 1;
    }
    const char* end = text.data() + text.size();
    rs::JsonTokenizer tok(text.data(), end);

    // One pass: every event up to the first one the cut leaves unfinished. build: into a
    // partial builder recycled every chunk (1 MiB of text) and kept across passes, as the
    // loader's chunk tasks do, so the figure is the steady state (no array growth).
    rs::TraceBuilder part(true);
    auto pass = [&](bool build, std::size_t& events) {
        rs::TraceEvent ev;
        std::deque<std::string> arena;
        part.recycle();
        const char* chunkEnd = first + (1u << 20);
        events = 0;
        const double t0 = threadCpuNs();
        for (const char* p = tok.ws(first); p < end && *p == '{';) {
            if (p >= chunkEnd) {
                part.recycle();
                arena.clear();
                chunkEnd = p + (1u << 20);
            }
            const char* q = tok.event(p, ev, 2, &arena);
            if (!q) break;
            if (build) part.addEvent(ev);
            ++events;
            p = tok.ws(q);
            if (p < end && *p == ',') p = tok.ws(p + 1);
        }
        return threadCpuNs() - t0;
    };
    std::size_t events = 0;
    for (const bool build : {false, true}) {
        double best = std::numeric_limits<double>::max();
        for (int r = 0; r < repeat; ++r)
            best = std::min(best, pass(build, events));
        const double bytes = double(text.size());
        std::printf("%-22s %zu events, %.1f MB: %.1f ns/event, %.0f MB/s (thread CPU, best of "
                    "%d)\n",
                    build ? "tokenize + addEvent" : "tokenize", events, bytes / 1e6,
                    best / double(std::max<std::size_t>(events, 1)), bytes / best * 1e3, repeat);
    }
    return 0;
}
