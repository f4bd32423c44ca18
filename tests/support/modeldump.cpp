#include "tests/support/modeldump.h"
#include "core/producers/producer.h"

#include <QCryptographicHash>

#include <cstdio>
#include <sstream>

namespace rs::test {

namespace {

// One line per item: newlines, backslashes and control bytes are escaped.
std::string esc(std::string_view s)
{
    std::string o;
    o.reserve(s.size());
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\\') {
            o += "\\\\";
        } else if (u < 0x20 || u == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", u);
            o += buf;
        } else {
            o.push_back(c);
        }
    }
    return o;
}

std::string frameRef(std::uint32_t f)
{
    return f == kNone ? std::string("-") : std::to_string(f);
}

} // namespace

std::vector<ModelSection> dumpModel(const Trace& t)
{
    std::vector<ModelSection> out;
    auto section = [&](const char* name, auto&& fill) {
        std::ostringstream o;
        std::size_t n = 0;
        fill(o, n);
        out.push_back({name, n, o.str()});
    };
    section("meta", [&](std::ostringstream& o, std::size_t& n) {
        o << "producer " << t.producer().id() << "\n";
        o << "rank " << (t.rank() ? std::to_string(*t.rank()) : std::string("-")) << "\n";
        o << "span " << t.startNs() << " " << t.endNs() << "\n";
        n = 3;
    });
    section("stats", [&](std::ostringstream& o, std::size_t& n) {
        const LoadStats& s = t.stats();
        o << "events " << s.events << "\nunknownPhase " << s.unknownPhase << "\nbadFields "
          << s.badFields << "\nunmatchedEnd " << s.unmatchedEnd << "\nunterminated "
          << s.unterminated << "\ndanglingFlows " << s.danglingFlows << "\nbytesRead "
          << s.bytesRead << "\ntruncated " << s.truncated << "\n";
        n = 8;
        for (const auto& [ph, c] : s.phases) {
            o << "phase " << esc(ph) << " " << c << "\n";
            ++n;
        }
    });
    section("warnings", [&](std::ostringstream& o, std::size_t& n) {
        for (const std::string& w : t.warnings()) {
            o << esc(w) << "\n";
            ++n;
        }
    });
    section("processes", [&](std::ostringstream& o, std::size_t& n) {
        for (const Process& p : t.processes()) {
            o << "pid " << esc(p.pid) << " num " << p.pidIsNumber << " name " << esc(t.str(p.name))
              << " sort " << p.sortIndex << " " << p.hasSortIndex << " events " << p.events
              << " labels";
            for (const std::string& l : p.labels)
                o << " " << esc(l);
            o << " tracks";
            for (TrackId tr : p.tracks)
                o << " " << tr;
            o << "\n";
            ++n;
        }
    });
    section("tracks", [&](std::ostringstream& o, std::size_t& n) {
        for (const Track& tr : t.tracks()) {
            o << "process " << tr.process << " kind " << int(tr.kind) << " tid " << esc(tr.tid)
              << " name " << esc(t.str(tr.name)) << " sort " << tr.sortIndex << " "
              << tr.hasSortIndex << " range " << tr.begin << " " << tr.end << " depth "
              << tr.maxDepth << " counter " << frameRef(tr.counter) << " events " << tr.events
              << "\n";
            ++n;
        }
    });
    section("slices", [&](std::ostringstream& o, std::size_t& n) {
        for (EventId i = 0; i < t.slices().size(); ++i) {
            const Slice& s = t.slice(i);
            o << s.start << " " << s.dur << " " << esc(t.str(s.name)) << " | " << esc(t.str(s.cat))
              << " | " << s.track << " " << frameRef(s.parent) << " " << s.depth << " " << s.phase
              << " " << int(s.flags) << " " << frameRef(t.eventStackFrame(i)) << "\n";
            ++n;
        }
    });
    section("args", [&](std::ostringstream& o, std::size_t& n) {
        for (EventId i = 0; i < t.slices().size(); ++i) {
            if (t.slice(i).args == kNone) continue;
            o << i << " " << esc(t.argsText(i)) << "\n";
            ++n;
        }
    });
    section("flows", [&](std::ostringstream& o, std::size_t& n) {
        for (const Flow& f : t.flows()) {
            o << f.from << " " << f.to << " " << esc(t.str(f.cat)) << " | " << esc(t.str(f.name))
              << " | " << f.id << " " << esc(t.flowIdText(f)) << " " << f.idIsText << "\n";
            ++n;
        }
        for (EventId i = 0; i < t.slices().size(); ++i) {
            const auto from = t.flowsFrom(i);
            const auto to = t.flowsTo(i);
            if (from.empty() && to.empty()) continue;
            o << "slice " << i << " out";
            for (auto f : from)
                o << " " << f;
            o << " in";
            for (auto f : to)
                o << " " << f;
            o << "\n";
        }
    });
    section("counters", [&](std::ostringstream& o, std::size_t& n) {
        for (const CounterSeries& c : t.counters()) {
            o << c.process << " " << esc(t.str(c.name)) << " | " << esc(t.str(c.key)) << " |";
            for (std::size_t i = 0; i < c.ts.size(); ++i) {
                char v[40];
                std::snprintf(v, sizeof v, "%.17g", c.values[i]);
                o << " " << c.ts[i] << "=" << v;
            }
            o << "\n";
            ++n;
        }
    });
    section("frames", [&](std::ostringstream& o, std::size_t& n) {
        for (const StackFrame& f : t.stackFrames()) {
            o << esc(t.str(f.name)) << " | " << esc(t.str(f.category)) << " | "
              << frameRef(f.parent) << "\n";
            ++n;
        }
    });
    section("metadata", [&](std::ostringstream& o, std::size_t& n) {
        for (auto it = t.metadata().begin(); it != t.metadata().end(); ++it) {
            o << esc(it.key()) << " " << esc(it.value().dump()) << "\n";
            ++n;
        }
    });
    return out;
}

std::string dumpModelText(const Trace& trace)
{
    std::string all;
    for (const ModelSection& s : dumpModel(trace))
        all += "[" + s.name + "] " + std::to_string(s.count) + "\n" + s.text;
    return all;
}

std::string sha256Hex(const std::string& text)
{
    return QCryptographicHash::hash(QByteArrayView(text.data(), qsizetype(text.size())),
                                    QCryptographicHash::Sha256)
        .toHex()
        .toStdString();
}

} // namespace rs::test
