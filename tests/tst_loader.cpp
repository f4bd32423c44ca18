#include "core/bytesource.h"
#include "core/producers/producer.h"
#include "core/traceinfo.h"
#include "core/traceloader.h"
#include "tests/support/gzip.h"
#include "tests/testutil.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <tuple>

using namespace rs;

namespace {

void writeFile(const QString& path, const std::string& bytes)
{
    std::ofstream f(path.toStdString(), std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

const Slice* findSlice(const Trace& t, const std::string& name)
{
    for (const Slice& s : t.slices())
        if (t.str(s.name) == name) return &s;
    return nullptr;
}

EventId findId(const Trace& t, const std::string& name)
{
    for (EventId i = 0; i < t.slices().size(); ++i)
        if (t.str(t.slice(i).name) == name) return i;
    return kNone;
}

} // namespace

class TstLoader : public QObject {
    Q_OBJECT
private slots:
    void bareArrayAndObject()
    {
        auto a = test::loadText(R"([{"name":"a","ph":"X","ts":1,"dur":2,"pid":1,"tid":1}])");
        QVERIFY2(a.complete(), a.message.c_str());
        QCOMPARE(a.trace->slices().size(), size_t(1));
        auto o = test::loadText(R"({"displayTimeUnit":"ns","otherData":{"v":1},
            "distributedInfo":{"rank":3,"world_size":8},"deviceProperties":[{"id":0}],
            "traceEvents":[{"name":"a","ph":"X","ts":1,"dur":2,"pid":1,"tid":1}],
            "schemaVersion":1})");
        QVERIFY2(o.complete(), o.message.c_str());
        const Trace& t = *o.trace;
        QCOMPARE(t.slices().size(), size_t(1));
        QCOMPARE(t.metadata()["displayTimeUnit"].get<std::string>(), std::string("ns"));
        QCOMPARE(t.metadata()["otherData"]["v"].get<int>(), 1);
        QCOMPARE(t.metadata()["deviceProperties"][0]["id"].get<int>(), 0);
        QCOMPARE(t.metadata()["schemaVersion"].get<int>(), 1);
        QCOMPARE(*t.rank(), 3);
        QCOMPARE(t.producer().id(), std::string_view("kineto"));
    }

    void completeEventsNestByDepth()
    {
        auto r = test::loadText(R"([
            {"name":"child","ph":"X","ts":10,"dur":5,"pid":1,"tid":1},
            {"name":"parent","ph":"X","ts":0,"dur":100,"pid":1,"tid":1},
            {"name":"grand","ph":"X","ts":11,"dur":1,"pid":1,"tid":1},
            {"name":"sibling","ph":"X","ts":20,"dur":5,"pid":1,"tid":1},
            {"name":"same-start-short","ph":"X","ts":0,"dur":50,"pid":1,"tid":1}])");
        QVERIFY(r.complete());
        const Trace& t = *r.trace;
        QCOMPARE(t.tracks().size(), size_t(1));
        auto sl = t.trackSlices(0);
        QCOMPARE(sl.size(), size_t(5));
        // Sorted by start, longer first on ties.
        QCOMPARE(t.str(sl[0].name), std::string("parent"));
        QCOMPARE(t.str(sl[1].name), std::string("same-start-short"));
        QCOMPARE(sl[0].depth, 0);
        QCOMPARE(sl[1].depth, 1);
        const Slice* grand = findSlice(t, "grand");
        QCOMPARE(grand->depth, 3);
        QCOMPARE(t.str(t.slice(grand->parent).name), std::string("child"));
        const Slice* sibling = findSlice(t, "sibling");
        QCOMPARE(sibling->depth, 2);
        QCOMPARE(t.tracks()[0].maxDepth, 3);
    }

    void tracksSortedWhateverTheirOrder()
    {
        // A track's slices come sorted by (start, longer first, file order) whether the file has
        // them nearly in order (each op after the ops it encloses, as Kineto writes them: the
        // insertion sort), reversed (past the insertion budget: the general sort) or shuffled.
        std::mt19937 rng(7);
        for (const char* order : {"postorder", "reversed", "shuffled"}) {
            struct Ev {
                int ts, dur;
                std::string name;
            };
            std::vector<Ev> evs;
            // 400 parents of 5 children each, and ties on start (longer first, then file order).
            for (int p = 0; p < 400; ++p) {
                const int t0 = p * 100;
                auto name = [](char kind, int i) {
                    std::string s = std::to_string(i);
                    s.insert(s.begin(), kind);
                    return s;
                };
                for (int c = 0; c < 5; ++c)
                    evs.push_back({t0 + 10 * c, c == 4 ? 5 : 8, name('c', p * 5 + c)});
                evs.push_back({t0, 90, name('p', p)});
                evs.push_back({t0, 90, name('q', p)}); // a tie with p: file order
            }
            if (std::string(order) == "reversed") std::reverse(evs.begin(), evs.end());
            if (std::string(order) == "shuffled") std::shuffle(evs.begin(), evs.end(), rng);
            std::string text = "[";
            for (const Ev& e : evs) {
                if (text.size() > 1) text += ',';
                text += "{\"name\":\"";
                text += e.name;
                text += "\",\"ph\":\"X\",\"ts\":";
                text += std::to_string(e.ts);
                text += ",\"dur\":";
                text += std::to_string(e.dur);
                text += ",\"pid\":1,\"tid\":1}";
            }
            text += "]";
            auto r = test::loadText(text);
            QVERIFY2(r.complete(), r.message.c_str());
            std::vector<std::size_t> want(evs.size());
            for (std::size_t i = 0; i < want.size(); ++i)
                want[i] = i;
            std::stable_sort(want.begin(), want.end(), [&](std::size_t a, std::size_t b) {
                if (evs[a].ts != evs[b].ts) return evs[a].ts < evs[b].ts;
                return evs[a].dur > evs[b].dur;
            });
            const Trace& t = *r.trace;
            auto sl = t.trackSlices(0);
            QCOMPARE(sl.size(), evs.size());
            for (std::size_t i = 0; i < sl.size(); ++i)
                QCOMPARE(t.str(sl[i].name), evs[want[i]].name);
            QCOMPARE(t.tracks()[0].maxDepth, 2); // p, q, then the children
        }
    }

    void partialOverlapIsKept()
    {
        // Kineto GPU streams: X events that partly overlap on one track are kept, not dropped.
        auto r = test::loadText(R"([
            {"name":"k1","ph":"X","ts":0,"dur":10,"pid":0,"tid":7},
            {"name":"k2","ph":"X","ts":8,"dur":10,"pid":0,"tid":7},
            {"name":"k3","ph":"X","ts":19,"dur":1,"pid":0,"tid":7}])");
        QVERIFY(r.complete());
        const Trace& t = *r.trace;
        QCOMPARE(t.slices().size(), size_t(3));
        const Slice* k2 = findSlice(t, "k2");
        QCOMPARE(k2->depth, 1);
        QVERIFY(k2->flags & kSlicePartialOverlap);
        QCOMPARE(findSlice(t, "k3")->depth, 0);
    }

    void beginEndPairs()
    {
        auto r = test::loadText(R"([
            {"name":"outer","ph":"B","ts":0,"pid":1,"tid":1,"args":{"a":1}},
            {"name":"inner","ph":"B","ts":2,"pid":1,"tid":1},
            {"ph":"E","ts":4,"pid":1,"tid":1},
            {"ph":"E","ts":10,"pid":1,"tid":1,"args":{"b":2}},
            {"ph":"E","ts":11,"pid":1,"tid":1},
            {"name":"open","ph":"B","ts":12,"pid":1,"tid":2},
            {"name":"x","ph":"X","ts":20,"dur":5,"pid":1,"tid":2}])");
        QVERIFY(r.complete());
        const Trace& t = *r.trace;
        const Slice* outer = findSlice(t, "outer");
        QCOMPARE(outer->dur, 10000);
        QCOMPARE(t.args(findId(t, "outer"))["a"].get<int>(), 1);
        QCOMPARE(findSlice(t, "inner")->dur, 2000);
        QCOMPARE(findSlice(t, "inner")->depth, 1);
        QCOMPARE(t.stats().unmatchedEnd, 1u);
        const Slice* open = findSlice(t, "open");
        QVERIFY(open->flags & kSliceUnterminated);
        QCOMPARE(open->end(), 25000); // closed at the end of the trace
        QCOMPARE(t.stats().unterminated, 1u);
        QVERIFY(t.warnings().size() >= 2);
    }

    void instantsCountersMetadata()
    {
        auto r = test::loadText(R"([
            {"name":"process_name","ph":"M","pid":7,"args":{"name":"HCCL"}},
            {"name":"process_labels","ph":"M","pid":7,"args":{"labels":"NPU,dev"}},
            {"name":"process_sort_index","ph":"M","pid":7,"args":{"sort_index":-1}},
            {"name":"thread_name","ph":"M","pid":7,"tid":3,"args":{"name":"Plane 2"}},
            {"name":"thread_sort_index","ph":"M","pid":7,"tid":3,"args":{"sort_index":5}},
            {"name":"process_name","ph":"M","pid":2,"args":{"name":"Python"}},
            {"name":"mark","ph":"i","ts":5,"pid":2,"tid":1,"s":"t"},
            {"name":"old","ph":"I","ts":6,"pid":2,"tid":1},
            {"name":"glob","ph":"i","ts":7,"pid":2,"tid":1,"s":"g"},
            {"name":"HBM","ph":"C","ts":1,"pid":7,"args":{"read":1.5,"write":"2"}},
            {"name":"HBM","ph":"C","ts":0,"pid":7,"args":{"read":1.0,"write":3}},
            {"name":"x","ph":"X","ts":0,"dur":1,"pid":7,"tid":3}])");
        QVERIFY(r.complete());
        const Trace& t = *r.trace;
        // Sort index -1 puts HCCL before Python.
        QCOMPARE(t.processLabel(0), std::string("HCCL"));
        QCOMPARE(t.processes()[0].labels, (std::vector<std::string>{"NPU", "dev"}));
        const TrackId plane = t.findTrack(0, "3");
        QVERIFY(plane != kNone);
        QCOMPARE(t.trackLabel(plane), std::string("Plane 2"));
        QCOMPARE(t.tracks()[plane].sortIndex, 5);
        QCOMPARE(t.counters().size(), size_t(2));
        for (const CounterSeries& c : t.counters()) {
            QCOMPARE(t.str(c.name), std::string("HBM"));
            QCOMPARE(c.ts, (std::vector<TimeNs>{0, 1000})); // sorted by time
        }
        const Slice* mark = findSlice(t, "mark");
        QVERIFY(mark->flags & kSliceInstant);
        QCOMPARE(mark->dur, 0);
        QVERIFY(findSlice(t, "old")->flags & kSliceInstant);
        const Slice* glob = findSlice(t, "glob");
        QCOMPARE(t.processes()[t.tracks()[glob->track].process].pid, std::string());
        QCOMPARE(t.stats().phases.at("M"), 6u);
        QCOMPARE(t.stats().phases.at("C"), 2u);
    }

    void flowsV1AndV2()
    {
        auto r = test::loadText(R"([
            {"name":"launch","ph":"X","ts":0,"dur":10,"pid":1,"tid":1},
            {"name":"kernel","ph":"X","ts":50,"dur":10,"pid":2,"tid":7},
            {"name":"kernel2","ph":"X","ts":70,"dur":10,"pid":2,"tid":7},
            {"ph":"s","id":18446744073709551615,"ts":1,"pid":1,"tid":1,"cat":"ac2g","name":"ac2g"},
            {"ph":"f","id":18446744073709551615,"ts":50,"pid":2,"tid":7,"cat":"ac2g","name":"ac2g","bp":"e"},
            {"ph":"s","id":"str-1","ts":2,"pid":1,"tid":1,"cat":"HostToDevice"},
            {"ph":"f","id":"str-1","ts":51,"pid":2,"tid":7,"cat":"HostToDevice","bp":"e"},
            {"ph":"f","id":"str-1","ts":71,"pid":2,"tid":7,"cat":"HostToDevice","bp":"e"},
            {"ph":"f","id":"nowhere","ts":71,"pid":2,"tid":7,"cat":"HostToDevice","bp":"e"},
            {"ph":"f","id":9,"ts":65,"pid":2,"tid":7,"cat":"next"},
            {"ph":"s","id":9,"ts":3,"pid":1,"tid":1,"cat":"next"},
            {"name":"v2a","ph":"X","ts":100,"dur":1,"pid":1,"tid":1,"bind_id":"0x10","flow_out":true},
            {"name":"v2b","ph":"X","ts":200,"dur":1,"pid":2,"tid":7,"bind_id":"0x10","flow_in":true}])");
        QVERIFY(r.complete());
        const Trace& t = *r.trace;
        const EventId launch = findId(t, "launch");
        const EventId kernel = findId(t, "kernel");
        const EventId kernel2 = findId(t, "kernel2");
        int toKernel = 0, toKernel2 = 0;
        bool big = false;
        for (std::uint32_t f : t.flowsFrom(launch)) {
            QCOMPARE(t.flows()[f].from, launch);
            toKernel += t.flows()[f].to == kernel;
            toKernel2 += t.flows()[f].to == kernel2;
            big = big || t.flows()[f].id == 18446744073709551615ull;
        }
        QVERIFY(big);           // ids above 2^53 stay exact
        QCOMPARE(toKernel, 2);  // ac2g and HostToDevice
        QCOMPARE(toKernel2, 2); // HostToDevice's second f, and "next" binds to the next slice
        QCOMPARE(t.stats().danglingFlows, 1u);
        const EventId a = findId(t, "v2a");
        const EventId b = findId(t, "v2b");
        auto out = t.flowsFrom(a);
        QCOMPARE(out.size(), size_t(1));
        QCOMPARE(t.flows()[out[0]].to, b);
        QVERIFY(t.slice(b).flags & kSliceFlowIn);
    }

    // Flows come out in the order of one stable sort of their steps by (category, id, phase,
    // time), however the steps are interleaved: several categories, ids out of order, steps of
    // one id at the same time, and more categories than the bucketed sort takes (the fallback).
    void flowOrderAcrossCategories_data()
    {
        QTest::addColumn<int>("categories");
        QTest::addColumn<bool>("shuffled");
        QTest::newRow("one category in order") << 1 << false;
        QTest::newRow("three categories interleaved in order") << 3 << false;
        QTest::newRow("three categories shuffled") << 3 << true;
        QTest::newRow("seventy categories shuffled") << 70 << true;
    }
    void flowOrderAcrossCategories()
    {
        QFETCH(int, categories);
        QFETCH(bool, shuffled);
        constexpr int kSlices = 400, kFlows = 900;
        std::mt19937 rng(7);
        std::string json = "[";
        // Appended piece by piece: GCC 12 warns on chains of string + (-Wstringop-overflow).
        auto add = [&json](std::initializer_list<std::string_view> parts) {
            for (std::string_view p : parts)
                json.append(p);
        };
        for (int i = 0; i < kSlices; ++i)
            add({"{\"name\":\"x", std::to_string(i),
                 "\",\"ph\":\"X\",\"ts\":", std::to_string(i * 10),
                 ",\"dur\":5,\"pid\":1,\"tid\":", std::to_string(i % 4), "},"});
        struct Step {
            int cat, id, phase; // phase: 0 s, 1 t, 2 f
            int slice;          // where it binds
            int file;           // its place in the file
        };
        std::vector<Step> steps;
        for (int k = 0; k < kFlows; ++k) {
            const int cat = k % categories, id = k / categories % 250; // ids repeat: groups
            const int a = int(rng() % kSlices), b = int(rng() % kSlices);
            steps.push_back({cat, id, 0, a, 0});
            if (k % 5 == 0) steps.push_back({cat, id, 1, int(rng() % kSlices), 0});
            steps.push_back({cat, id, 2, b, 0});
        }
        if (shuffled) std::shuffle(steps.begin(), steps.end(), rng);
        for (std::size_t i = 0; i < steps.size(); ++i) {
            const Step& st = steps[i];
            steps[i].file = int(i);
            // s and t inside their slice, f at its start (bp e): each binds to that slice.
            const int ts = st.slice * 10 + (st.phase == 2 ? 0 : 1);
            add({"{\"ph\":\"", std::string_view("stf" + st.phase, 1),
                 "\",\"id\":", std::to_string(st.id), ",\"ts\":", std::to_string(ts),
                 ",\"pid\":1,\"tid\":", std::to_string(st.slice % 4), ",\"cat\":\"c",
                 std::to_string(st.cat), "\"", st.phase == 2 ? ",\"bp\":\"e\"}" : "}",
                 i + 1 < steps.size() ? "," : "]"});
        }
        auto r = test::loadText(json);
        QVERIFY(r.complete());
        const Trace& t = *r.trace;
        // The reference: categories in the order of their string ids, then id, phase, time,
        // file order; chained s -> t -> f within an id.
        auto name = [](char prefix, int n) { return std::to_string(n).insert(0, 1, prefix); };
        auto catId = [&](int c) { return t.strings().find(name('c', c)); };
        std::stable_sort(steps.begin(), steps.end(), [&](const Step& x, const Step& y) {
            if (catId(x.cat) != catId(y.cat)) return catId(x.cat) < catId(y.cat);
            if (x.id != y.id) return x.id < y.id;
            if (x.phase != y.phase) return x.phase < y.phase;
            return x.slice * 10 + (x.phase == 2 ? 0 : 1) < y.slice * 10 + (y.phase == 2 ? 0 : 1);
        });
        std::vector<std::tuple<std::string, std::string, std::string, std::uint64_t>> want, got;
        for (std::size_t i = 0; i < steps.size();) {
            std::size_t j = i;
            int source = -1;
            for (; j < steps.size() && steps[j].cat == steps[i].cat && steps[j].id == steps[i].id;
                 ++j) {
                const Step& st = steps[j];
                if (st.phase == 0) {
                    source = st.slice;
                } else if (source >= 0 && source != st.slice) {
                    want.emplace_back(name('x', source), name('x', st.slice), name('c', st.cat),
                                      std::uint64_t(st.id));
                    if (st.phase == 1) source = st.slice;
                }
            }
            i = j;
        }
        for (const Flow& f : t.flows())
            got.emplace_back(t.str(t.slice(f.from).name), t.str(t.slice(f.to).name), t.str(f.cat),
                             f.id);
        QCOMPARE(got.size(), want.size());
        QVERIFY(got == want);
    }

    // Numeric flow ids are not interned, yet ids still group by their text: "12" is 12, while
    // "012" and "0x0c" are other flows (with the same number).
    void flowIdsGroupByText()
    {
        auto r = test::loadText(R"([
            {"name":"a","ph":"X","ts":0,"dur":10,"pid":1,"tid":1},
            {"name":"b","ph":"X","ts":20,"dur":10,"pid":1,"tid":2},
            {"name":"c","ph":"X","ts":40,"dur":10,"pid":1,"tid":3},
            {"name":"d","ph":"X","ts":60,"dur":10,"pid":1,"tid":4},
            {"ph":"s","id":12,"ts":1,"pid":1,"tid":1,"cat":"k"},
            {"ph":"f","id":"12","ts":20,"pid":1,"tid":2,"cat":"k","bp":"e"},
            {"ph":"s","id":"012","ts":2,"pid":1,"tid":1,"cat":"k"},
            {"ph":"f","id":"012","ts":40,"pid":1,"tid":3,"cat":"k","bp":"e"},
            {"ph":"f","id":"0x0c","ts":60,"pid":1,"tid":4,"cat":"k","bp":"e"},
            {"ph":"s","id":-0,"ts":3,"pid":1,"tid":1,"cat":"z"},
            {"ph":"f","id":"0","ts":61,"pid":1,"tid":4,"cat":"z","bp":"e"},
            {"ph":"s","id":"","ts":4,"pid":1,"tid":1,"cat":"e"},
            {"ph":"f","id":"","ts":41,"pid":1,"tid":3,"cat":"e","bp":"e"}])");
        QVERIFY(r.complete());
        const Trace& t = *r.trace;
        std::map<std::string, std::string> byTarget; // target name -> "cat id idIsText"
        for (const Flow& f : t.flows()) {
            QCOMPARE(t.str(t.slice(f.from).name), std::string("a"));
            byTarget[t.str(t.slice(f.to).name) + " " + t.str(f.cat)] =
                t.flowIdText(f) + " " + std::to_string(f.id) + " " + std::to_string(f.idIsText);
        }
        std::string emptyId(" "); // "" + hash: not " " + text, GCC 12 warns (-Wrestrict)
        emptyId.append(std::to_string(std::hash<std::string>{}(""))).append(" 1");
        const std::map<std::string, std::string> want{
            {"b k", "12 12 0"}, {"c k", "012 12 1"}, {"c e", emptyId}, {"d z", "0 0 0"}};
        QCOMPARE(byTarget, want);
        QCOMPARE(t.stats().danglingFlows, 1u); // "0x0c" has no start
        QCOMPARE(t.strings().find("12"), std::numeric_limits<StrId>::max());
    }

    void asyncEvents()
    {
        auto r = test::loadText(R"([
            {"name":"req","cat":"c","ph":"b","id":1,"ts":0,"pid":1,"tid":1},
            {"name":"req","cat":"c","ph":"b","id":2,"ts":5,"pid":1,"tid":1},
            {"name":"req","cat":"c","ph":"n","id":1,"ts":6,"pid":1,"tid":1},
            {"name":"req","cat":"c","ph":"e","id":1,"ts":10,"pid":1,"tid":1},
            {"name":"req","cat":"c","ph":"e","id":2,"ts":20,"pid":1,"tid":1}])");
        QVERIFY(r.complete());
        const Trace& t = *r.trace;
        const TrackId at = t.findTrack(0, "req", TrackKind::Async);
        QVERIFY(at != kNone);
        auto sl = t.trackSlices(at);
        QCOMPARE(sl.size(), size_t(3));
        QCOMPARE(sl[0].dur, 10000);
        QCOMPARE(sl[1].dur, 15000);
        QCOMPARE(sl[1].depth, 1); // overlapping async slices go to separate lanes
    }

    void stackFrames()
    {
        auto r = test::loadText(R"({"traceEvents":[
            {"name":"a","ph":"X","ts":0,"dur":1,"pid":1,"tid":1,"sf":"3"},
            {"name":"b","ph":"X","ts":2,"dur":1,"pid":1,"tid":1,"stack":["main","f","g"]}],
            "stackFrames":{"1":{"name":"main","category":"py"},"2":{"name":"f","parent":"1"},
                           "3":{"name":"g","parent":"2"},"4":{"name":"self","parent":"4"}}})");
        QVERIFY(r.complete());
        const Trace& t = *r.trace;
        std::uint32_t f = t.eventStackFrame(findId(t, "a"));
        QVERIFY(f != kNone);
        QCOMPARE(t.str(t.stackFrames()[f].name), std::string("g"));
        f = t.stackFrames()[f].parent;
        QCOMPARE(t.str(t.stackFrames()[f].name), std::string("f"));
        f = t.stackFrames()[f].parent;
        QCOMPARE(t.str(t.stackFrames()[f].name), std::string("main"));
        QCOMPARE(t.stackFrames()[f].parent, kNone);
        const std::uint32_t g = t.eventStackFrame(findId(t, "b"));
        QCOMPARE(t.str(t.stackFrames()[g].name), std::string("g"));
        // A self-parented frame is a root.
        bool sawSelf = false;
        for (const StackFrame& fr : t.stackFrames())
            if (t.str(fr.name) == "self") {
                sawSelf = true;
                QCOMPARE(fr.parent, kNone);
            }
        QVERIFY(sawSelf);
    }

    void exactNumbers()
    {
        auto r = test::loadText(R"([
            {"name":"npu","ph":"X","ts":"1736408883732241.564","dur":12.5,"pid":3170820576,"tid":0},
            {"name":"kin","ph":"X","ts":4458676983543.183,"dur":"3","pid":"18446744073709551615","tid":"stream 7"},
            {"name":"big","ph":"X","ts":1,"dur":1,"pid":18446744073709551615,"tid":-1}])");
        QVERIFY2(r.complete(), r.message.c_str());
        const Trace& t = *r.trace;
        const Slice* npu = findSlice(t, "npu");
        QCOMPARE(npu->start, 1736408883732241564LL);
        QCOMPARE(npu->dur, 12500LL);
        QCOMPARE(findSlice(t, "kin")->start, 4458676983543183LL);
        QCOMPARE(findSlice(t, "kin")->dur, 3000LL);
        QCOMPARE(t.processes()[t.tracks()[npu->track].process].pid, std::string("3170820576"));
        const Slice* big = findSlice(t, "big");
        const Process& bp = t.processes()[t.tracks()[big->track].process];
        QCOMPARE(bp.pid, std::string("18446744073709551615"));
        QVERIFY(bp.pidIsNumber);
        QCOMPARE(t.tracks()[big->track].tid, std::string("-1"));
        // A string pid that looks like the number is one process with the numeric one.
        QCOMPARE(t.tracks()[findSlice(t, "kin")->track].process, t.tracks()[big->track].process);
        const auto j = traceInfoJson(t, "<test>");
        bool found = false;
        for (const auto& p : j["processes"])
            if (p["pid"].is_number_unsigned() &&
                p["pid"].get<std::uint64_t>() == 18446744073709551615ull)
                found = true;
        QVERIFY(found);
        QCOMPARE(t.producer().id(), std::string_view("torch_npu")); // string ts with ns digits
    }

    void argsOnDemand()
    {
        auto r =
            test::loadText("[{\"name\":\"a\",\"ph\":\"X\",\"ts\":0,\"dur\":1,\"pid\":1,\"tid\":1,"
                           "\"args\":{\"Call stack\":\"f1;\\r\\nf2\",\"n\":[1,{\"x\":null}],"
                           "\"s\":\"}\\\"{\"}}]");
        QVERIFY(r.complete());
        const Trace& t = *r.trace;
        const auto args = t.args(0);
        QCOMPARE(args["Call stack"].get<std::string>(), std::string("f1;\r\nf2"));
        QCOMPARE(args["n"][1]["x"].is_null(), true);
        QCOMPARE(args["s"].get<std::string>(), std::string("}\"{"));
    }

    void argsAcrossChunkBoundary()
    {
        // Args bigger than the reader's chunk are captured whole.
        std::string big(ByteSource::kChunk + 1000, 'x');
        const std::string head = "[{\"name\":\"a\",\"ph\":\"X\",\"ts\":0,\"dur\":1,\"pid\":1,"
                                 "\"tid\":1,\"args\":{\"blob\":\"";
        const std::string tail = "\"}},{\"name\":\"b\",\"ph\":\"X\",\"ts\":2,\"dur\":1,"
                                 "\"pid\":1,\"tid\":1}]";
        std::string json = head + big + tail;
        auto r = test::loadText(json);
        QVERIFY(r.complete());
        QCOMPARE(r.trace->args(findId(*r.trace, "a"))["blob"].get<std::string>().size(),
                 big.size());
        QCOMPARE(r.trace->slices().size(), size_t(2));
    }

    void gzipFiles()
    {
        QTemporaryDir dir;
        const std::string json =
            R"({"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":2,"pid":1,"tid":1}]})";
        const QString gz = dir.filePath("t.json.gz");
        writeFile(gz, test::gzip(json));
        auto r = loadTrace(gz.toStdString());
        QVERIFY2(r.complete(), r.message.c_str());
        QCOMPARE(r.trace->slices().size(), size_t(1));
        // Gzip found by its magic bytes whatever the name.
        const QString disguised = dir.filePath("t.json");
        writeFile(disguised, test::gzip(json));
        r = loadTrace(disguised.toStdString());
        QVERIFY2(r.complete(), r.message.c_str());
        // Two concatenated gzip members are one stream.
        const QString multi = dir.filePath("m.json.gz");
        writeFile(multi,
                  test::gzip(R"([{"name":"a","ph":"X","ts":1,"dur":2,"pid":1,"tid":1},)") +
                      test::gzip(R"({"name":"b","ph":"X","ts":3,"dur":2,"pid":1,"tid":1}])"));
        r = loadTrace(multi.toStdString());
        QVERIFY2(r.complete(), r.message.c_str());
        QCOMPARE(r.trace->slices().size(), size_t(2));
    }

    void fileBytesMapsOrStreams()
    {
        // The one way the loader and the rank summaries open a file: plain mapped as it is,
        // gzip (by its magic bytes, whatever the name) streamed and inflated.
        QTemporaryDir dir;
        const std::string text = R"({"schema":"x","n":[1,2,3]})";
        auto readAll = [](ByteSource& src) {
            std::string out;
            char buf[7]; // small: several reads
            for (std::size_t n; (n = src.read(buf, sizeof buf)) > 0;)
                out.append(buf, n);
            return out;
        };
        std::string error;
        const QString plain = dir.filePath("p.json");
        writeFile(plain, text);
        auto f = FileBytes::open(plain.toStdString(), &error);
        QVERIFY2(f, error.c_str());
        QVERIFY(f->mapped() && !f->gzip() && !f->stream());
        QCOMPARE(f->fileSize(), std::uint64_t(text.size()));
        QCOMPARE(std::string(f->data(), text.size()), text);

        const QString gz = dir.filePath("g.json");
        writeFile(gz, test::gzip(text));
        f = FileBytes::open(gz.toStdString(), &error);
        QVERIFY2(f, error.c_str());
        QVERIFY(!f->mapped() && f->gzip() && f->stream());
        QCOMPARE(readAll(*f->stream()), text);
        QVERIFY(f->stream()->error().empty());

        // Empty: mapped, nothing to map; one byte: mapped.
        const QString empty = dir.filePath("e.json");
        writeFile(empty, "");
        f = FileBytes::open(empty.toStdString(), &error);
        QVERIFY2(f, error.c_str());
        QVERIFY(f->mapped() && !f->data() && f->fileSize() == 0);
        writeFile(empty, "7");
        f = FileBytes::open(empty.toStdString(), &error);
        QVERIFY(f && f->mapped() && f->fileSize() == 1 && f->data()[0] == '7');

        // A cut gzip stream says so when read.
        const std::string whole = test::gzip(text);
        writeFile(gz, whole.substr(0, whole.size() / 2));
        f = FileBytes::open(gz.toStdString(), &error);
        QVERIFY(f && f->gzip());
        readAll(*f->stream());
        QVERIFY(!f->stream()->error().empty());

        // Missing, a folder: refused with the path, as ByteSource::open words it.
        QVERIFY(!FileBytes::open(dir.filePath("none").toStdString(), &error));
        QVERIFY2(error.find("none: ") != std::string::npos, error.c_str());
        QVERIFY(!FileBytes::open(dir.path().toStdString(), &error));
        QVERIFY2(error.find("not a regular file") != std::string::npos, error.c_str());
    }

    void truncatedKeepsCompleteEvents()
    {
        const std::string full =
            R"({"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":2,"pid":1,"tid":1},{"name":"b","ph":"X","ts":3,"dur":2,"pid":1,"tid":1},{"name":"c","ph":"X","ts":5,"dur":2,"pid":1,"tid":1}]})";
        // Cut inside the third event, after the second event, and just before the closing ].
        for (std::size_t cut : {full.size() - 10, full.find(R"({"name":"c")"), full.size() - 2}) {
            auto r = test::loadText(full.substr(0, cut));
            QVERIFY2(r.status == LoadStatus::Partial && r.stop == LoadStop::Truncated,
                     r.message.c_str());
            QVERIFY(r.trace->stats().truncated);
            const std::size_t expect = cut >= full.size() - 2 ? 3 : 2;
            QCOMPARE(r.trace->slices().size(), expect);
            bool warned = false;
            for (const auto& w : r.trace->warnings())
                warned = warned || w.find("truncated") != std::string::npos;
            QVERIFY(warned);
        }
        // A truncated gzip file also keeps what was complete.
        QTemporaryDir dir;
        const std::string gz = test::gzip(full);
        writeFile(dir.filePath("cut.json.gz"), gz.substr(0, gz.size() - 20));
        auto r = loadTrace(dir.filePath("cut.json.gz").toStdString());
        QVERIFY2(r.stop == LoadStop::Truncated && r.trace, r.message.c_str());
        QVERIFY(r.trace->stats().truncated);
    }

    void malformedNamesPosition()
    {
        auto r = test::loadText(
            "[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1},\n"
            "{\"name\":\"b\",\"ph\":\"X\",\"ts\":tru,\"pid\":1}, {}]");
        QVERIFY(!r.complete());
        QVERIFY2(r.message.find("byte 84") != std::string::npos, r.message.c_str());
        QVERIFY2(r.message.find("line 2") != std::string::npos, r.message.c_str());
        QVERIFY2(r.message.find("column") != std::string::npos, r.message.c_str());
        QVERIFY(r.trace); // the partial trace before the error
        QCOMPARE(r.trace->slices().size(), size_t(1));
    }

    void emptyAndNotATrace()
    {
        auto r = test::loadText("");
        QVERIFY(!r.complete());
        QVERIFY2(r.message.find("empty") != std::string::npos, r.message.c_str());
        r = test::loadText("   \n");
        QVERIFY(!r.complete());
        r = test::loadText("42");
        QVERIFY(!r.complete());
        r = test::loadText("[]");
        QVERIFY(r.complete());
        QCOMPARE(r.trace->slices().size(), size_t(0));
    }

    void unknownPhaseAndBadFields()
    {
        auto r = test::loadText(R"([
            {"name":"a","ph":"Q","ts":1,"pid":1,"tid":1},
            {"name":"b","ph":"X","pid":1,"tid":1},
            {"name":"c","ph":"X","ts":"soon","dur":1,"pid":1,"tid":1},
            {"name":"d","ph":"X","ts":1,"dur":-5,"pid":1,"tid":1},
            {"name":"e","ph":"X","ts":1,"dur":"NaN","pid":1,"tid":1},
            7,
            {"name":"ok","ph":"X","ts":1,"dur":1,"pid":1,"tid":1}])");
        QVERIFY(r.complete());
        const Trace& t = *r.trace;
        QCOMPARE(t.stats().unknownPhase, 1u);
        QCOMPARE(t.stats().badFields, 4u);
        QCOMPARE(findSlice(t, "d")->dur, 0);
        QVERIFY(findSlice(t, "ok"));
        QVERIFY(!findSlice(t, "b"));
        QVERIFY(t.warnings().size() >= 2);
    }

    void missingPathAndDirectory()
    {
        auto r = loadTrace("/nonexistent/trace.json");
        QVERIFY(!r.complete());
        QVERIFY(r.message.find("no such file") != std::string::npos);
        QTemporaryDir dir;
        r = loadTrace(dir.path().toStdString());
        QVERIFY(!r.complete());
        QVERIFY2(r.message.find("no trace") != std::string::npos, r.message.c_str());
    }

    void ascendFolderResolves()
    {
        QTemporaryDir dir;
        QDir d(dir.path());
        d.mkpath("host_123_ascend_pt/ASCEND_PROFILER_OUTPUT");
        writeFile(d.filePath("host_123_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json"),
                  R"([{"name":"a","ph":"X","ts":"1.5","dur":2,"pid":1,"tid":1}])");
        writeFile(d.filePath("host_123_ascend_pt/profiler_info_5.json"), R"({"rank_id": 5})");
        auto r = loadTrace(d.filePath("host_123_ascend_pt").toStdString());
        QVERIFY2(r.complete(), r.message.c_str());
        QCOMPARE(*r.trace->rank(), 5);
        r = loadTrace(d.filePath("host_123_ascend_pt/ASCEND_PROFILER_OUTPUT").toStdString());
        QVERIFY2(r.complete(), r.message.c_str());
        QCOMPARE(*r.trace->rank(), 5);
    }

    void progressAndCancel()
    {
        QTemporaryDir dir;
        std::string json = "[";
        for (int i = 0; i < 200000; ++i)
            json += "{\"name\":\"k\",\"ph\":\"X\",\"ts\":" + std::to_string(i) +
                    ",\"dur\":1,\"pid\":1,\"tid\":1},";
        json += R"({"name":"k","ph":"X","ts":0,"dur":1,"pid":1,"tid":1}])";
        const QString path = dir.filePath("big.json");
        writeFile(path, json);
        LoadProgress progress;
        auto r = loadTrace(path.toStdString(), {}, &progress);
        QVERIFY(r.complete());
        QCOMPARE(progress.total.load(), std::uint64_t(json.size()));
        QCOMPARE(progress.done.load(), std::uint64_t(json.size()));
        LoadProgress cancelled;
        cancelled.cancel = true;
        r = loadTrace(path.toStdString(), {}, &cancelled);
        QVERIFY(!r.complete());
        QVERIFY(r.cancelled());
    }

    // One contract for every caller: status, why it stopped, the message, the warnings.
    void loadResultContract()
    {
        const std::string good = R"([{"name":"a","ph":"X","ts":1,"dur":2,"pid":1,"tid":1},)"
                                 R"({"name":"b","ph":"X","ts":3,"dur":2,"pid":1,"tid":1}])";
        auto check = [](const LoadResult& r, LoadStatus status, LoadStop stop, const char* what) {
            QVERIFY2(r.status == status && r.stop == stop, (what + (": " + r.message)).c_str());
            QCOMPARE(r.complete(), status == LoadStatus::Complete);
            QCOMPARE(r.failed(), status == LoadStatus::Failed);
            QCOMPARE(r.trace != nullptr, status != LoadStatus::Failed);
            QCOMPARE(r.message.empty(), status == LoadStatus::Complete);
            if (r.trace) QCOMPARE(r.warnings, r.trace->warnings());
        };
        check(test::loadText(good), LoadStatus::Complete, LoadStop::None, "complete");
        const LoadResult cut = test::loadText(good.substr(0, good.size() - 10));
        check(cut, LoadStatus::Partial, LoadStop::Truncated, "cut");
        QVERIFY(cut.message.find("truncated at byte") != std::string::npos);
        QCOMPARE(cut.trace->slices().size(), std::size_t(1));
        std::string bad = good;
        bad[good.find("\"b\"")] = 'x';
        const LoadResult malformed = test::loadText(bad);
        check(malformed, LoadStatus::Partial, LoadStop::Malformed, "malformed after an event");
        QVERIFY(malformed.message.find("malformed JSON at byte") != std::string::npos);
        check(test::loadText("[x]"), LoadStatus::Failed, LoadStop::Malformed, "malformed");
        check(test::loadText(""), LoadStatus::Failed, LoadStop::Malformed, "empty");
        LoadOptions tiny;
        tiny.maxMemoryBytes = 1;
        check(test::loadText(good, tiny), LoadStatus::Failed, LoadStop::OverBudget, "budget");
        check(loadTrace("/nonexistent/t.json"), LoadStatus::Failed, LoadStop::Unreadable,
              "missing");
        QTemporaryDir dir;
        const QString path = dir.filePath("t.json");
        writeFile(path, good);
        LoadProgress cancelled;
        cancelled.cancel = true;
        const LoadResult c = loadTrace(path.toStdString(), {}, &cancelled);
        check(c, LoadStatus::Failed, LoadStop::Cancelled, "cancelled");
        QVERIFY(c.cancelled());
        // A file's messages name it (callers print them as they are).
        QVERIFY(loadTrace(path.toStdString() + ".none").message.rfind(path.toStdString(), 0) == 0);
    }

    void memoryBudgetRefuses()
    {
        std::string json = "[";
        for (int i = 0; i < 60000; ++i)
            json += "{\"name\":\"k" + std::to_string(i) +
                    "\",\"ph\":\"X\",\"ts\":" + std::to_string(i) +
                    ",\"dur\":1,\"pid\":1,\"tid\":1,\"args\":{\"a\":\"0123456789\"}},";
        json += "{}]";
        LoadOptions o;
        o.maxMemoryBytes = 1 << 20;
        auto r = test::loadText(json, o);
        QVERIFY(!r.complete());
        QVERIFY2(r.message.find("budget") != std::string::npos, r.message.c_str());
        QVERIFY2(r.message.find("projected") != std::string::npos, r.message.c_str());
    }
};

QTEST_GUILESS_MAIN(TstLoader)
#include "tst_loader.moc"
