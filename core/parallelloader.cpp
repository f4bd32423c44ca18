#include "core/parallelloader.h"

#include "core/bytesource.h"
#include "core/jsontokenizer.h"
#include "core/tracebuilder.h"
#include "core/workpool.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include <sys/mman.h>

namespace rs {

namespace {

// Chunks a wave tokenizes while the builder absorbs the previous wave. With two, the pool sat
// idle at each wave's tail (one thread done, the other on the wave's last chunk) until the
// builder came back for more: a 1 GB Kineto load used 1.45 of 2 cores; with 12, 1.75 (1.9
// while reading; 1.98 with the three waves of a mapped file, events()).
constexpr std::size_t kWave = 12;
constexpr int kEventDepth = 2; // containers around an event: the document and its array
constexpr std::uint64_t kProjectAfter = 1u << 20; // text read before the budget projects
// Text read before the model's arrays are sized for the whole file (TraceBuilder::reserveAhead);
// files under four times this grow them as they go.
constexpr std::uint64_t kReserveAfter = 8u << 20;

// MiB below 1 GiB: a small budget (tests, --max-memory 64) must not read "0.06 GiB".
std::string gib(std::uint64_t bytes)
{
    char buf[64];
    const double mib = static_cast<double>(bytes) / (1024.0 * 1024);
    if (mib < 1024)
        std::snprintf(buf, sizeof buf, "%.1f MiB", mib);
    else
        std::snprintf(buf, sizeof buf, "%.2f GiB", mib / 1024);
    return buf;
}

// The refusal names what loading would hold at its peak and what the loaded trace keeps.
std::string overBudgetMessage(std::uint64_t peak, std::uint64_t model, std::uint64_t budget,
                              bool projected)
{
    return "the trace needs about " + gib(peak) + " of memory while loading (" +
           (projected ? "projected; " : "") + gib(model) +
           " for the loaded trace), more than the budget of " + gib(budget) +
           "; raise it with --max-memory";
}

// A run of the text and where it starts, so an offset in it can be named by line and column.
struct Window {
    const char* data = nullptr;
    std::size_t size = 0;
    std::uint64_t offset = 0;    // text offset of data[0]
    std::uint64_t lines = 0;     // newlines before data[0]
    std::uint64_t lineStart = 0; // text offset of the line holding data[0]
    bool last = false;           // the text ends where this window ends

    const char* end() const { return data + size; }
    std::uint64_t offsetOf(const char* p) const
    {
        return offset + static_cast<std::uint64_t>(p - data);
    }
    // The same position bookkeeping moved to p (data <= p <= end()), size 0.
    Window at(const char* p) const
    {
        Window w = *this;
        for (const char* q = data; q < p;) {
            const void* nl = std::memchr(q, '\n', static_cast<std::size_t>(p - q));
            if (!nl) break;
            q = static_cast<const char*>(nl) + 1;
            ++w.lines;
            w.lineStart = offsetOf(q);
        }
        w.data = p;
        w.offset = offsetOf(p);
        w.size = 0;
        return w;
    }
    // "byte N (line L, column C)", columns in bytes from 1.
    std::string where(const char* p) const
    {
        const Window w = at(std::min(p, end()));
        return "byte " + std::to_string(w.offset) + " (line " + std::to_string(w.lines + 1) +
               ", column " + std::to_string(w.offset - w.lineStart + 1) + ")";
    }
};

bool blank(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// The last "}" ws "," ws "{" in [from, end): the offset of its '{', or 0 when there is none.
// A guess (it may sit inside a string): the builder checks where the previous piece ended.
std::size_t lastBoundary(const char* data, std::size_t from, std::size_t end)
{
    for (std::size_t i = end; i > from;) {
        const void* b = ::memrchr(data + from, '{', i - from);
        if (!b) return 0;
        i = static_cast<std::size_t>(static_cast<const char*>(b) - data);
        std::size_t j = i;
        while (j > 0 && blank(data[j - 1]))
            --j;
        if (j > 0 && data[j - 1] == ',') {
            --j;
            while (j > 0 && blank(data[j - 1]))
                --j;
            if (j > 0 && data[j - 1] == '}') return i;
        }
    }
    return 0;
}

// The first "}" ws "," ws "{" at or after from: the offset of its '{', or size.
std::size_t nextBoundary(const char* data, std::size_t size, std::size_t from)
{
    for (std::size_t i = from; i < size; ++i) {
        const void* b = std::memchr(data + i, '}', size - i);
        if (!b) return size;
        i = static_cast<std::size_t>(static_cast<const char*>(b) - data);
        std::size_t j = i + 1;
        while (j < size && blank(data[j]))
            ++j;
        if (j < size && data[j] == ',') {
            ++j;
            while (j < size && blank(data[j]))
                ++j;
            if (j < size && data[j] == '{') return j;
        }
    }
    return size;
}

// A piece of text to tokenize: events that start in [start, target) of win.
struct Piece {
    Window win; // mapped: the whole file; gzip: the piece's own bytes
    std::shared_ptr<std::string> own;
    const char* start = nullptr;
    const char* target = nullptr;
    std::uint64_t fileBytes = 0; // file bytes read when it was handed out
};

// Hands out the text: views into a mapped file, or a gzip stream inflated piece by piece.
class Feeder {
public:
    Feeder(const char* data, std::size_t size) : m_map(data), m_size(size) {}
    explicit Feeder(ByteSource& src) : m_src(&src) {}

    bool mapped() const { return m_src == nullptr; }
    Window whole() const { return {m_map ? m_map : "", m_size, 0, 0, 0, true}; }
    std::uint64_t textBytes() const { return m_src ? m_produced : m_size; }

    // The next piece from the feed position, of about step bytes. cut: end it at a guessed
    // event boundary (keep inflating until there is one); else any size. False at the end.
    bool next(Piece& out, std::size_t step, bool cut)
    {
        if (!m_src) {
            if (m_pos >= m_size) return false;
            out.win = whole();
            out.start = m_map + m_pos;
            const std::size_t t =
                m_size - m_pos <= step ? m_size : nextBoundary(m_map, m_size, m_pos + step);
            out.target = m_map + t;
            out.fileBytes = t;
            m_pos = t;
            return true;
        }
        if (m_ended && m_carry.empty()) return false;
        auto buf = std::make_shared<std::string>(std::move(m_carry));
        m_carry.clear();
        std::size_t cutAt = 0;
        bool eof = m_ended;
        while (!eof) {
            const std::size_t have = buf->size();
            buf->resize(have + step);
            const std::size_t got = m_src->read(buf->data() + have, step);
            buf->resize(have + got);
            m_produced += got;
            eof = m_ended = got < step; // less than asked only at the end of the stream
            if (!cut) break;
            if ((cutAt = lastBoundary(buf->data(), have > 8 ? have - 8 : 0, buf->size()))) break;
        }
        if (eof || !cut) cutAt = buf->size();
        if (cutAt < buf->size()) m_carry.assign(*buf, cutAt);
        buf->resize(cutAt);
        out.own = buf;
        out.win = m_carryAt;
        out.win.data = buf->data();
        out.win.size = buf->size();
        out.win.last = eof && m_carry.empty();
        out.start = out.win.data;
        out.target = out.win.end();
        out.fileBytes = m_src->fileBytesConsumed();
        m_carryAt = out.win.at(out.win.end());
        return true;
    }

    // Mapped: the feed goes on at p. gzip: bytes already handed out (starting at window w)
    // come again first.
    void seek(const char* p) { m_pos = static_cast<std::size_t>(p - m_map); }
    void unread(std::string_view bytes, const Window& w)
    {
        m_carry.insert(0, bytes);
        m_carryAt = w;
    }

private:
    const char* m_map = nullptr;
    std::size_t m_size = 0, m_pos = 0;
    ByteSource* m_src = nullptr;
    std::string m_carry;
    Window m_carryAt;
    std::uint64_t m_produced = 0;
    bool m_ended = false;
};

// The events of one piece, tokenized and built into a partial model on the thread that
// tokenized them, each while it is in the cache; the reader's builder absorbs the parts in
// text order.
struct ChunkOut {
    TraceBuilder part{true};
    TraceEvent event;              // reused from event to event
    std::deque<std::string> arena; // decoded strings; a deque keeps their addresses
    const char* end = nullptr;     // ok: the next entry or the array's ']'; else where to resume
    bool afterEntry = false;       // end is after an entry: ',' or ']' comes next
    bool arrayEnded = false, ok = false;
    std::uint64_t skipped = 0; // entries that are not objects
    const char* errorAt = nullptr;
    std::string error;
    bool ranOut = false;
};

// Entries of the event array from p (afterEntry: p is past an entry) while they start
// before target.
void tokenize(const Window& w, const char* p, const char* target, bool afterEntry, ChunkOut& out)
{
    out.part.recycle();
    out.arena.clear();
    out.arrayEnded = out.ok = out.ranOut = false;
    out.skipped = 0;
    JsonTokenizer tok(w.data, w.end(), w.offset);
    const char* end = w.end();
    auto failed = [&] {
        out.errorAt = tok.errorAt();
        out.ranOut = tok.ranOut();
        out.error = tok.errorText();
    };
    for (;;) {
        if (!afterEntry) {
            out.end = p;
            out.afterEntry = false;
            const char* q;
            if (p < end && *p == '{') {
                if (!(q = tok.event(p, out.event, kEventDepth, &out.arena))) return failed();
                out.part.addEvent(out.event);
            } else {
                if (!(q = tok.skipValue(p, kEventDepth))) return failed();
                ++out.skipped;
            }
            p = q;
        }
        afterEntry = false;
        out.end = p;
        out.afterEntry = true;
        p = tok.ws(p);
        if (p >= end) {
            tok.fail(end, "");
            return failed();
        }
        if (*p == ',') {
            p = tok.ws(p + 1);
            if (p >= target) {
                out.end = p;
                out.afterEntry = false;
                out.ok = true;
                return;
            }
            continue;
        }
        if (*p == ']') {
            out.end = p;
            out.arrayEnded = out.ok = true;
            return;
        }
        tok.fail(p, "expected ',' or ']' after an array element");
        return failed();
    }
}

struct Chunk {
    Piece piece;
    ChunkOut out;
};

// Chunks tokenized together; their feeding and tokenizing are tasks of one group.
struct Wave {
    std::vector<std::unique_ptr<Chunk>> chunks;
    std::unique_ptr<TaskGroup> group;
};

class Reader {
public:
    Reader(Feeder& feed, ByteSource* src, const std::string& name, std::optional<int> rank,
           const LoadOptions& options, LoadProgress* progress, const ParallelOptions& parallel,
           std::uint64_t fileSize)
        : m_feed(feed), m_src(src), m_name(name), m_progress(progress),
          m_pool(parallel.pool ? *parallel.pool : WorkPool::global()),
          m_step(std::max<std::size_t>(parallel.chunkBytes, 64)), m_fileSize(fileSize)
    {
        m_builder.setPath(name);
        if (rank) m_builder.setRank(*rank);
        m_builder.setFallbackRank(options.rankHint);
        m_budget = options.maxMemoryBytes ? options.maxMemoryBytes : defaultMemoryBudget();
        if (m_feed.mapped()) m_win = m_feed.whole();
        if (m_progress) m_progress->total.store(fileSize);
    }

    void setDropBehind(bool drop) { m_dropBehind = drop; }

    LoadResult run()
    {
        LoadResult r;
        r.resolvedPath = m_name;
        walk();
        if (m_stop == LoadStop::Cancelled) return failed(m_stop, "loading was cancelled");
        if (m_src && m_src->overLimit())
            return failed(LoadStop::OverBudget, "the data expands past the memory budget of " +
                                                    gib(m_budget) +
                                                    " (gzip bomb?); raise it with --max-memory");
        if (m_stop == LoadStop::OverBudget) return failed(m_stop, m_message);
        // Small files end before the first projection: check what the model really needs.
        if (m_builder.estimatedPeakBytes() > m_budget)
            return failed(LoadStop::OverBudget,
                          overBudgetMessage(m_builder.estimatedPeakBytes(),
                                            m_builder.estimatedBytes(), m_budget, false));
        const std::string gzError = m_src ? m_src->error() : std::string();
        const bool any = m_builder.eventCount() > 0;
        r.status = LoadStatus::Complete;
        if (m_stop == LoadStop::Truncated) {
            if (!gzError.empty() && !any) return failed(LoadStop::Malformed, gzError);
            if (!m_sawEvents)
                return failed(LoadStop::Malformed, m_empty ? "the file is empty"
                                                   : gzError.empty()
                                                       ? m_message
                                                       : gzError + " (then " + m_message + ")");
            m_builder.setTruncated(true);
            r.status = LoadStatus::Partial;
            r.stop = LoadStop::Truncated;
            r.message = "the file ends early (truncated at byte " +
                        std::to_string(m_feed.textBytes()) +
                        "): every complete event was loaded; " + m_message;
            m_builder.addWarning(r.message);
        } else if (m_stop == LoadStop::Malformed) {
            const std::string msg =
                gzError.empty() ? m_message : gzError + " (then " + m_message + ")";
            if (!any) return failed(LoadStop::Malformed, msg);
            r.status = LoadStatus::Partial;
            r.stop = LoadStop::Malformed;
            r.message = msg;
            m_builder.addWarning("partial: the events before the error were loaded");
        }
        if (!gzError.empty() && r.stop != LoadStop::Malformed) m_builder.addWarning(gzError);
        if (m_skipped)
            m_builder.addWarning(std::to_string(m_skipped) +
                                 " non-object entr(ies) in the event array were skipped");
        if (r.stop != LoadStop::Malformed && !any)
            m_builder.addWarning("the trace holds no events");
        m_builder.setBytesRead(m_stop == LoadStop::None ? m_feed.textBytes() : m_errorOffset);
        if (m_progress && m_stop == LoadStop::None) {
            m_progress->done.store(m_fileSize);
            if (m_progress->onAdvance) m_progress->onAdvance();
        }
        r.trace = m_builder.finish();
        r.warnings = r.trace->warnings();
        return r;
    }

private:
    LoadResult failed(LoadStop why, std::string message)
    {
        LoadResult r;
        r.resolvedPath = m_name;
        r.stop = why;
        r.message = std::move(message);
        return r;
    }

    bool cancelled() const
    {
        return m_progress && m_progress->cancel.load(std::memory_order_relaxed);
    }

    // Records why loading stops at p of w (a tokenizer error, or the end of the text).
    void stopAt(const Window& w, const char* at, bool ranOut, const std::string& what)
    {
        m_errorOffset = w.offsetOf(std::min(at, w.end()));
        m_stop = ranOut ? LoadStop::Truncated : LoadStop::Malformed;
        m_message = "malformed JSON at " + w.where(at) + ": " +
                    (ranOut ? std::string("the text ends inside the document") : what);
    }

    // --- the document around the events (serial, on the walker's window) -------------------
    // gzip: the next piece appended to the walker's text; false at the end of the text.
    bool more()
    {
        Piece pc;
        if (m_feed.mapped() || !m_feed.next(pc, m_step, false)) {
            m_win.last = true;
            return false;
        }
        if (m_text.empty()) m_win = pc.win; // keeps the piece's position
        m_text.append(pc.win.data, pc.win.size);
        m_win.data = m_text.data();
        m_win.size = m_text.size();
        m_win.last = pc.win.last;
        return true;
    }

    // p after blanks, with text there unless the text ended.
    const char* peek(const char* p)
    {
        for (;;) {
            while (p < m_win.end() && blank(*p))
                ++p;
            if (p < m_win.end() || m_win.last) return p;
            const auto at = p - m_win.data;
            more();
            p = m_win.data + at;
        }
    }

    // f(tokenizer, p) on the walker's text, again with more text while it runs out early.
    template <typename F> const char* step(const char* p, F f)
    {
        for (;;) {
            JsonTokenizer tok(m_win.data, m_win.end(), m_win.offset);
            if (const char* q = f(tok, p)) return q;
            if (!tok.ranOut() || m_win.last) {
                stopAt(m_win, tok.errorAt(), tok.ranOut(), tok.errorText());
                return nullptr;
            }
            const auto at = p - m_win.data;
            more();
            p = m_win.data + at;
        }
    }

    // Fails at p with what, or as the end of the text when p is there.
    void unexpected(const char* p, const char* what)
    {
        stopAt(m_win, p, p >= m_win.end(),
               std::string(what) + ", found '" + (p < m_win.end() ? std::string(1, *p) : "") + "'");
    }

    void walk()
    {
        while (m_win.size < 3 && !m_win.last)
            more();
        const char* p = m_win.data;
        if (m_win.size >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3; // a BOM
        p = peek(p);
        if (p >= m_win.end()) {
            m_empty = true;
            stopAt(m_win, p, true, "");
            return;
        }
        if (*p == '[') {
            if (!(p = events(p))) return;
        } else if (*p == '{') {
            p = peek(p + 1);
            if (p < m_win.end() && *p == '}') {
                p = p + 1;
            } else {
                for (;;) {
                    if (p >= m_win.end() || *p != '"')
                        return unexpected(p, "expected a string (an object key)");
                    TextRef key;
                    std::deque<std::string> arena;
                    if (!(p = step(p, [&](JsonTokenizer& t, const char* q) {
                              return t.string(q, key, &arena);
                          })))
                        return;
                    const std::string k(key.view());
                    p = peek(p);
                    if (p >= m_win.end() || *p != ':')
                        return unexpected(p, "expected ':' after an object key");
                    p = peek(p + 1);
                    if (k == "traceEvents" && p < m_win.end() && *p == '[') {
                        if (!(p = events(p))) return;
                    } else {
                        const auto start = p - m_win.data;
                        if (!(p = step(p, [](JsonTokenizer& t, const char* q) {
                                  return t.skipValue(q, 1);
                              })))
                            return;
                        m_builder.addMetadata(
                            k, nlohmann::json::parse(m_win.data + start, p, nullptr, false));
                    }
                    p = peek(p);
                    if (p < m_win.end() && *p == ',') {
                        p = peek(p + 1);
                        continue;
                    }
                    if (p < m_win.end() && *p == '}') {
                        ++p;
                        break;
                    }
                    return unexpected(p, "expected ',' or '}' after an object member");
                }
            }
        } else if (std::strchr("\"-0123456789tfn", *p)) {
            m_errorOffset = m_win.offsetOf(p);
            m_stop = LoadStop::Malformed;
            m_message = "not a trace: the document is a single value, not an array or object";
            return;
        } else {
            return unexpected(p, "expected '[' or '{' (a trace)");
        }
        p = peek(p);
        if (p < m_win.end()) unexpected(p, "expected the end of the text");
    }

    // --- the event array (chunks tokenized on the pool, built here in text order) ----------
    std::unique_ptr<Chunk> acquire()
    {
        std::lock_guard lock(m_poolMutex);
        if (m_spare.empty()) return std::make_unique<Chunk>();
        auto c = std::move(m_spare.back());
        m_spare.pop_back();
        return c;
    }

    void recycle(Wave& w)
    {
        std::lock_guard lock(m_poolMutex);
        for (auto& c : w.chunks) {
            c->piece = {};
            m_spare.push_back(std::move(c));
        }
        w.chunks.clear();
    }

    void tokenizeChunk(Chunk& c)
    {
        if (cancelled()) return; // the builder stops before it looks at this chunk
        tokenize(c.piece.win, c.piece.start, c.piece.target, false, c.out);
    }

    // The wave's pieces handed out, in text order, each tokenized by a task of its own.
    void feed(Wave& w)
    {
        for (std::size_t i = 0; i < kWave; ++i) {
            auto c = acquire();
            if (!m_feed.next(c->piece, m_step, true)) {
                std::lock_guard lock(m_poolMutex);
                m_spare.push_back(std::move(c));
                break;
            }
            Chunk* cp = c.get();
            w.chunks.push_back(std::move(c));
            w.group->run([this, cp] { tokenizeChunk(*cp); });
        }
    }

    void startWave(Wave& w)
    {
        recycle(w);
        w.group = std::make_unique<TaskGroup>(m_pool);
        // Cutting a mapped file into pieces costs next to nothing: done here, in order, so a
        // wave can start while the one before it still runs (see events()). gzip: a task
        // feeds (inflating is serial and slow).
        if (m_feed.mapped())
            feed(w);
        else
            w.group->run([this, &w] { feed(w); });
    }

    void build(ChunkOut& out)
    {
        m_builder.absorb(out.part);
        m_skipped += out.skipped;
    }

    // How many times what was read so far the whole file is (the budget's projection).
    double wholeOverRead(std::uint64_t fileDone) const
    {
        const double share = static_cast<double>(fileDone) /
                             static_cast<double>(std::max<std::uint64_t>(m_fileSize, 1));
        return 1.0 / std::max(share, 1e-6);
    }

    bool overBudget(std::uint64_t textDone, std::uint64_t fileDone)
    {
        const std::uint64_t est = m_builder.estimatedPeakBytes();
        const double scale = wholeOverRead(fileDone);
        const auto projected = static_cast<std::uint64_t>(static_cast<double>(est) * scale);
        if (est <= m_budget && (textDone < kProjectAfter || projected <= m_budget)) return false;
        m_stop = LoadStop::OverBudget;
        m_message = overBudgetMessage(
            projected,
            static_cast<std::uint64_t>(static_cast<double>(m_builder.estimatedBytes()) * scale),
            m_budget, true);
        return true;
    }

    // p at the array's '['; returns past its ']' (in the walker's window), or nullptr.
    const char* events(const char* p)
    {
        m_sawEvents = true;
        p = peek(p + 1);
        if (p < m_win.end() && *p == ']') return p + 1;
        if (m_feed.mapped()) {
            m_feed.seek(p);
        } else {
            m_feed.unread(std::string_view(p, static_cast<std::size_t>(m_win.end() - p)),
                          m_win.at(p));
            m_text.clear();
        }
        std::uint64_t expected = m_win.offsetOf(p);
        std::string carry, joined; // gzip: an entry cut by its piece's end, then with the next
        Window carryAt;
        bool carryAfterEntry = false;
        std::uint64_t released = 0;
        bool reservedAhead = false;
        // Mapped: three waves, so while the builder absorbs one, two are queued and the pool
        // never waits at a wave's tail for the builder. gzip: two (a wave's feeding task must
        // have ended before the next wave's starts: the inflating stream is one).
        const int nWaves = m_feed.mapped() ? 3 : 2;
        Wave waves[3]; // their groups wait for their tasks as they go, on every return
        for (int k = 0; k + 1 < nWaves; ++k)
            startWave(waves[k]);
        auto others = [&](int w) { // the other waves, in text order
            std::vector<Wave*> v;
            for (int k = 1; k < nWaves; ++k)
                v.push_back(&waves[(w + k) % nWaves]);
            return v;
        };
        for (int w = 0;; w = (w + 1) % nWaves) {
            waves[w].group->wait();
            std::vector<std::unique_ptr<Chunk>>& chunks = waves[w].chunks;
            if (chunks.empty()) { // the text ends inside the array
                const Window end = m_feed.mapped() ? m_feed.whole() : carryAt;
                stopAt(end, end.end(), true, "");
                if (!carry.empty()) m_errorOffset = carryAt.offset + carry.size();
                return nullptr;
            }
            startWave(waves[(w + nWaves - 1) % nWaves]); // the wave absorbed last
            for (std::size_t k = 0; k < chunks.size(); ++k) {
                Chunk& c = *chunks[k];
                if (cancelled()) {
                    m_stop = LoadStop::Cancelled;
                    return nullptr;
                }
                ChunkOut* out = &c.out;
                Window win = c.piece.win;
                if (!carry.empty()) {
                    joined = carry;
                    joined.append(win.data, win.size);
                    win = carryAt;
                    win.data = joined.data();
                    win.size = joined.size();
                    win.last = c.piece.win.last;
                    tokenize(win, win.data, win.end(), carryAfterEntry, m_redo);
                    out = &m_redo;
                    carry.clear();
                } else if (c.piece.win.offsetOf(c.piece.start) != expected) {
                    // Mapped: the previous chunk ran past this one, or this one's start was
                    // guessed inside a value.
                    if (expected >= win.offsetOf(c.piece.target)) continue;
                    tokenize(win, win.data + (expected - win.offset), c.piece.target, false,
                             m_redo);
                    out = &m_redo;
                }
                build(*out);
                if (!out->ok && out->ranOut && !win.last) {
                    carry.assign(out->end, win.end());
                    carryAt = win.at(out->end);
                    carryAfterEntry = out->afterEntry;
                } else if (!out->ok) {
                    stopAt(win, out->errorAt, out->ranOut, out->error);
                    return nullptr;
                } else {
                    expected = win.offsetOf(out->end);
                }
                if (m_progress) {
                    m_progress->done.store(c.piece.fileBytes, std::memory_order_relaxed);
                    if (m_progress->onAdvance) m_progress->onAdvance();
                }
                if (m_dropBehind) {
                    // The mapped bytes behind the builder are not needed again: out of RSS.
                    const std::uint64_t upTo = expected / 4096 * 4096;
                    if (upTo > released) {
                        ::madvise(const_cast<char*>(m_win.data + released), upTo - released,
                                  MADV_DONTNEED);
                        released = upTo;
                    }
                }
                if (overBudget(expected, c.piece.fileBytes)) return nullptr;
                if (!reservedAhead && expected >= kReserveAfter &&
                    m_fileSize >= kReserveAfter * 4) {
                    reservedAhead = true;
                    m_builder.reserveAhead(wholeOverRead(c.piece.fileBytes), m_budget);
                }
                if (out->arrayEnded) {
                    for (Wave* o : others(w))
                        o->group->wait();
                    if (m_feed.mapped()) return out->end + 1;
                    // gzip: what follows the array comes again for the walker, in order.
                    std::vector<const Piece*> later;
                    for (std::size_t j = k + 1; j < chunks.size(); ++j)
                        later.push_back(&chunks[j]->piece);
                    for (Wave* o : others(w))
                        for (const auto& n : o->chunks)
                            later.push_back(&n->piece);
                    for (auto it = later.rbegin(); it != later.rend(); ++it)
                        m_feed.unread({(*it)->win.data, (*it)->win.size}, (*it)->win);
                    const char* after = out->end + 1;
                    m_feed.unread({after, static_cast<std::size_t>(win.end() - after)},
                                  win.at(after));
                    m_text.clear();
                    m_win = win.at(after);
                    m_win.data = m_text.data();
                    m_win.last = false;
                    return m_win.data;
                }
            }
        }
    }

    Feeder& m_feed;
    ByteSource* m_src;
    std::string m_name;
    LoadProgress* m_progress;
    WorkPool& m_pool;
    std::size_t m_step;
    std::uint64_t m_fileSize;
    std::uint64_t m_budget = 0;
    bool m_dropBehind = false;
    TraceBuilder m_builder;

    Window m_win; // the walker's text: the mapped file, or gzip pieces in m_text
    std::string m_text;
    LoadStop m_stop = LoadStop::None;
    std::string m_message;
    std::uint64_t m_errorOffset = 0;
    bool m_sawEvents = false, m_empty = false;
    std::uint64_t m_skipped = 0;

    ChunkOut m_redo;
    std::mutex m_poolMutex;
    std::vector<std::unique_ptr<Chunk>> m_spare;
};

bool isGzip(const char* data, std::size_t size)
{
    return size >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
           static_cast<unsigned char>(data[1]) == 0x8b;
}

LoadResult readGzip(ByteSource& src, const std::string& name, std::optional<int> rank,
                    const LoadOptions& options, LoadProgress* progress,
                    const ParallelOptions& parallel)
{
    // A gzip bomb expands without bound: the text is capped at the budget (plus what is read
    // ahead, so a trace that is merely too large meets the projection first).
    const std::uint64_t budget =
        options.maxMemoryBytes ? options.maxMemoryBytes : defaultMemoryBudget();
    src.setUncompressedLimit(budget + 4 * kWave * std::max<std::size_t>(parallel.chunkBytes, 64));
    Feeder feed(src);
    Reader reader(feed, &src, name, rank, options, progress, parallel, src.fileSize());
    return reader.run();
}

} // namespace

LoadResult loadTraceFile(const std::string& file, std::optional<int> rank,
                         const LoadOptions& options, LoadProgress* progress,
                         const ParallelOptions& parallel)
{
    std::string error;
    const std::unique_ptr<FileBytes> in = FileBytes::open(file, &error);
    if (!in) {
        LoadResult r;
        r.resolvedPath = file;
        r.stop = LoadStop::Unreadable;
        r.message = error;
        return r;
    }
    // Gzip, or a file the system would not map: read as a stream.
    if (!in->mapped()) return readGzip(*in->stream(), file, rank, options, progress, parallel);
    const auto size = static_cast<std::size_t>(in->fileSize());
    Feeder feed(in->data(), size);
    Reader reader(feed, nullptr, file, rank, options, progress, parallel, size);
    reader.setDropBehind(in->data() != nullptr);
    return reader.run();
}

LoadResult loadTraceBytes(const char* data, std::size_t size, const std::string& name,
                          const LoadOptions& options, const ParallelOptions& parallel)
{
    if (!data) size = 0;
    if (isGzip(data, size)) {
        auto src = ByteSource::fromMemory(data, size);
        return readGzip(*src, name, std::nullopt, options, nullptr, parallel);
    }
    Feeder feed(data, size);
    Reader reader(feed, nullptr, name, std::nullopt, options, nullptr, parallel, size);
    return reader.run();
}

} // namespace rs
