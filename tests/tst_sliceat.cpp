// Trace::sliceAt and upperBoundNear searched from a hint (the flow binding's lookups) against
// the plain binary search, on tracks of nested, touching, zero-length and same-start slices,
// with times in order, backwards and at random.

#include "core/trace.h"
#include "tests/testutil.h"

#include <QtTest>

#include <algorithm>
#include <random>
#include <string>

using namespace rs;

class TstSliceAt : public QObject {
    Q_OBJECT

private slots:
    void hintedSearchMatchesPlain()
    {
        std::mt19937_64 rng(11);
        std::string json = "[";
        auto add = [&](int tid, long ts, long dur) {
            if (json.size() > 1) json += ",";
            json += "{\"ph\":\"X\",\"name\":\"s\",\"pid\":1,\"tid\":" + std::to_string(tid) +
                    ",\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) + "}";
        };
        for (int tid = 1; tid <= 2; ++tid) {
            long t = 0;
            for (int i = 0; i < 3000; ++i) {
                const long dur = long(rng() % 50);
                add(tid, t, dur);
                if (rng() % 3 == 0) add(tid, t, dur / 2);           // same start, nested
                if (rng() % 4 == 0) add(tid, t + dur / 3, dur / 3); // nested inside
                if (rng() % 5 == 0) add(tid, t + dur, 0);           // zero length at the end
                t += dur + long(rng() % 3);                         // touching or a gap
            }
        }
        json += "]";
        const LoadResult r = test::loadText(json);
        QVERIFY(r.trace);
        const Trace& tr = *r.trace;
        QCOMPARE(tr.tracks().size(), std::size_t(2));
        for (TrackId t = 0; t < tr.tracks().size(); ++t) {
            const auto sl = tr.trackSlices(t);
            const TimeNs last = sl.back().end() + 5000;
            std::vector<TimeNs> times;
            for (TimeNs x = -3000; x < last; x += 500 + TimeNs(rng() % 1500))
                times.push_back(x);
            std::vector<TimeNs> backwards(times.rbegin(), times.rend()), shuffled = times;
            std::shuffle(shuffled.begin(), shuffled.end(), rng);
            for (const auto& order : {times, backwards, shuffled}) {
                std::size_t hint = SIZE_MAX, upperHint = SIZE_MAX;
                for (TimeNs x : order) {
                    QCOMPARE(tr.sliceAt(t, x, &hint), tr.sliceAt(t, x));
                    const auto plain =
                        std::upper_bound(sl.begin(), sl.end(), x,
                                         [](TimeNs v, const Slice& s) { return v < s.start; });
                    QCOMPARE(tr.upperBoundNear(t, x, &upperHint), std::size_t(plain - sl.begin()));
                }
            }
        }
    }
};

QTEST_GUILESS_MAIN(TstSliceAt)
#include "tst_sliceat.moc"
