// The string pool: one id per distinct text, id 0 the empty string, find() never inserts, and
// the cache of recent ids (keyed by length and the first and last eight bytes) never hands out
// the id of another text that shares its key.
#include "core/stringpool.h"

#include <QtTest>

#include <map>
#include <string>
#include <utility>
#include <vector>

using rs::StrId;
using rs::StringPool;

class TstStringPool : public QObject {
    Q_OBJECT
private slots:
    void oneIdPerText()
    {
        StringPool pool;
        QCOMPARE(pool.intern(""), StrId(0));
        QCOMPARE(pool.intern(std::string_view()), StrId(0)); // no pointer at all (sanitizers)
        const StrId a = pool.intern("aten::mm");
        const StrId b = pool.intern("aten::add");
        QVERIFY(a != b && a != 0 && b != 0);
        QCOMPARE(pool.intern("aten::mm"), a);
        QCOMPARE(pool.str(a), std::string("aten::mm"));
        QCOMPARE(pool.find("aten::add"), b);
        QCOMPARE(pool.find("aten::sub"), std::numeric_limits<StrId>::max());
        QCOMPARE(pool.size(), std::size_t(3)); // find() added nothing
    }

    void textsSharingTheRecentKeyStayApart()
    {
        // Same length, same first and last eight bytes, different middles (as kernel names
        // differ inside their template arguments), and short texts of every length.
        std::vector<std::string> texts;
        for (int i = 0; i < 300; ++i)
            texts.push_back("void at::native::kernel<" + std::to_string(100000 + i) +
                            ", float>(int, float*)");
        for (int len = 1; len <= 20; ++len)
            for (char c : {'a', 'b', 'c'}) {
                std::string s(std::size_t(len), 'x');
                s[std::size_t(len) / 2] = c; // only the middle byte differs
                texts.push_back(s);
            }
        StringPool pool;
        std::map<std::string, StrId> first;
        for (int round = 0; round < 3; ++round) {
            // Forwards, backwards, then interleaved: every order hits stale recent entries.
            for (std::size_t k = 0; k < texts.size(); ++k) {
                const std::size_t i = round == 0   ? k
                                      : round == 1 ? texts.size() - 1 - k
                                                   : (k * 7919) % texts.size();
                const StrId id = pool.intern(texts[i]);
                QCOMPARE(pool.str(id), texts[i]);
                const auto [it, added] = first.emplace(texts[i], id);
                QCOMPARE(id, it->second);
            }
        }
        QCOMPARE(first.size(), texts.size()); // all distinct texts
        QCOMPARE(pool.size(), texts.size() + 1);
        for (const auto& [text, id] : first)
            QCOMPARE(pool.find(text), id);
    }

    void manyTextsAndAMovedFromPool()
    {
        StringPool pool;
        std::vector<StrId> ids;
        for (int i = 0; i < 20000; ++i) // grows the table several times
            ids.push_back(pool.intern("name" + std::to_string(i)));
        for (int i = 0; i < 20000; ++i)
            QCOMPARE(pool.intern("name" + std::to_string(i)), ids[std::size_t(i)]);
        StringPool moved(std::move(pool));
        QCOMPARE(moved.intern("name123"), ids[123]);
        // The moved-from pool still works: its recent entries name no text it holds.
        const StrId again = pool.intern("name123");
        QCOMPARE(pool.str(again), std::string("name123"));
        QCOMPARE(pool.intern("name123"), again);
        QVERIFY(pool.intern("other") != again);
    }
};

QTEST_GUILESS_MAIN(TstStringPool)
#include "tst_stringpool.moc"
