#include "core/timeconv.h"

#include <QRandomGenerator>
#include <QtTest>

using rs::parseMicrosToNs;

class TstTimeConv : public QObject {
    Q_OBJECT
private slots:
    void exactNanoseconds()
    {
        QCOMPARE(*parseMicrosToNs("1736408883732241.564"), 1736408883732241564LL);
        QCOMPARE(*parseMicrosToNs("4458676983543.183"), 4458676983543183LL);
        QCOMPARE(*parseMicrosToNs("0"), 0LL);
        QCOMPARE(*parseMicrosToNs("12"), 12000LL);
        QCOMPARE(*parseMicrosToNs("0.001"), 1LL);
        QCOMPARE(*parseMicrosToNs("-3.5"), -3500LL);
        QCOMPARE(*parseMicrosToNs("1.2e3"), 1200000LL);
        QCOMPARE(*parseMicrosToNs("1.5E-3"), 2LL); // 1.5 ns rounds half away from zero
        QCOMPARE(*parseMicrosToNs("2.0004"), 2000LL);
        QCOMPARE(*parseMicrosToNs("2.0005"), 2001LL);
        QCOMPARE(*parseMicrosToNs(" 7 "), 7000LL);
        QCOMPARE(*parseMicrosToNs("000123.4560"), 123456LL);
    }
    void rejectsBadText()
    {
        QVERIFY(!parseMicrosToNs(""));
        QVERIFY(!parseMicrosToNs("abc"));
        QVERIFY(!parseMicrosToNs("NaN"));
        QVERIFY(!parseMicrosToNs("1.2.3"));
        QVERIFY(!parseMicrosToNs("1e"));
        QVERIFY(!parseMicrosToNs("99999999999999999999")); // overflows int64 ns
        // Beyond kMaxAbsTimeNs (2^62 ns = 4611686018427387.904 µs): refused, so that the sum
        // or difference of two times never overflows.
        QCOMPARE(*parseMicrosToNs("4611686018427387.904"), rs::kMaxAbsTimeNs);
        QCOMPARE(*parseMicrosToNs("-4611686018427387.904"), -rs::kMaxAbsTimeNs);
        QVERIFY(!parseMicrosToNs("4611686018427387.905"));
        QVERIFY(!parseMicrosToNs("-4611686018427387.905"));
        QVERIFY(!parseMicrosToNs("9223372036854775.807"));
        QVERIFY(!parseMicrosToNs("1e400"));
    }
    void plainTextAgreesWithGeneralPath()
    {
        // Plain [-]digits[.digits] takes a fast path; with "e0" appended the same number takes
        // the general one. They must agree on every length around the fast path's limits
        // (16 integer digits, the 4th fraction digit that rounds), and on "1." and leading zeros.
        QRandomGenerator rng(13);
        int compared = 0;
        for (int intLen = 1; intLen <= 17; ++intLen) {
            for (int fracLen = -1; fracLen <= 8; ++fracLen) { // -1: no point at all
                for (int rep = 0; rep < 40; ++rep) {
                    std::string s = rng.bounded(4) == 0 ? "-" : "";
                    for (int k = 0; k < intLen; ++k)
                        s.push_back(char('0' + rng.bounded(10)));
                    if (fracLen >= 0) s.push_back('.');
                    for (int k = 0; k < fracLen; ++k)
                        s.push_back(char('0' + rng.bounded(10)));
                    // Every fifth: one byte that is no digit, anywhere after the sign (the
                    // fast path finds the point eight bytes at a time, then must refuse it).
                    if (rep % 5 == 4) {
                        static const char junk[] = "x./:+-";
                        const std::size_t from = s[0] == '-' ? 1 : 0;
                        s[from + rng.bounded(quint32(s.size() - from))] = junk[rng.bounded(6)];
                    }
                    const auto fast = parseMicrosToNs(s);
                    const auto general = parseMicrosToNs(s + "e0");
                    QVERIFY2(fast.has_value() == general.has_value(), s.c_str());
                    if (fast) QVERIFY2(*fast == *general, s.c_str());
                    // The plain path alone (the loader's): the same value for every plain
                    // text it takes, and it takes each one of 16 digits or fewer.
                    const auto plain = rs::parsePlainMicrosToNs(s);
                    if (plain) QVERIFY2(general && *plain == *general, s.c_str());
                    const bool isPlain = s[0] != '-' && rep % 5 != 4 && intLen <= 16;
                    if (isPlain && general) QVERIFY2(plain.has_value(), s.c_str());
                    ++compared;
                }
            }
        }
        QCOMPARE(compared, 17 * 10 * 40);
        QCOMPARE(*parseMicrosToNs("999999999999999.9995"), 999999999999999999LL + 1);
        QCOMPARE(*parseMicrosToNs("1."), 1000LL);
        QVERIFY(!parseMicrosToNs("1.5x"));
        QVERIFY(!parseMicrosToNs("-"));
        QVERIFY(!parseMicrosToNs("."));
    }
    void formatsDurations()
    {
        QCOMPARE(QString::fromStdString(rs::formatDuration(412000000)), QString("412 ms"));
        QCOMPARE(QString::fromStdString(rs::formatDuration(1500)), QString("1.50 µs"));
        QCOMPARE(QString::fromStdString(rs::formatDuration(999)), QString("999 ns"));
        QCOMPARE(QString::fromStdString(rs::formatDuration(2500000000LL)), QString("2.50 s"));
    }
    void formatsCounts()
    {
        QCOMPARE(QString::fromStdString(rs::formatCount(0)), QString("0"));
        QCOMPARE(QString::fromStdString(rs::formatCount(999)), QString("999"));
        QCOMPARE(QString::fromStdString(rs::formatCount(1000)), QString("1,000"));
        QCOMPARE(QString::fromStdString(rs::formatCount(67108864)), QString("67,108,864"));
    }
};

QTEST_GUILESS_MAIN(TstTimeConv)
#include "tst_timeconv.moc"
