// A misaligned address is shown with its remainder, as a size is ("address 0x12c04000040, 64 B
// past a 128 B boundary"): in the finding's title, the report text of the command line, the
// finding label on the timeline and the Details pane of the copy. torch_npu and Kineto shapes.
#include "bench/tracegen_seed.h"
#include "core/analysis/analyzer.h"
#include "core/analysis/presentation.h"
#include "core/analysis/reportjson.h"
#include "core/annotations/findingannotations.h"
#include "tests/support/reportoracle.h"
#include "tests/testutil.h"
#include "ui/panes/detailspane.h"

#include <QTest>

using namespace rs;

namespace {

// The seed case's misaligned input: src 0x12c04000040 (64 B past a 128 B boundary).
const char* const kExpected = "address 0x12c04000040, 64 B past a 128 B boundary";

} // namespace

class TstAddressRemainder : public QObject {
    Q_OBJECT
private slots:
    void formatsTheRemainder()
    {
        QCOMPARE(QString::fromStdString(presentation::misalignedAddress(0x12c04000040ULL, 128)),
                 QString::fromLatin1(kExpected));
        QCOMPARE(QString::fromStdString(presentation::misalignedAddress(0x1005, 512)),
                 QStringLiteral("address 0x1005, 5 B past a 512 B boundary"));
        InternalCopy aligned;
        aligned.address = 0x1000;
        QVERIFY(presentation::misalignedAddress(aligned, 128).empty()); // not flagged
    }

    void shownEverywhere_data()
    {
        QTest::addColumn<bool>("kineto");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<qulonglong>("address");
        QTest::newRow("torch_npu")
            << false << QString::fromLatin1(kExpected) << qulonglong(0x12c04000040ULL);
        QTest::newRow("kineto") << true
                                << QStringLiteral(
                                       "address 0x7f2c04000040, 64 B past a 128 B boundary")
                                << qulonglong(0x7f2c04000040ULL);
    }
    void shownEverywhere()
    {
        QFETCH(bool, kineto);
        QFETCH(QString, expected);
        QFETCH(qulonglong, address);
        gen::SeedCaseOptions o;
        o.kineto = kineto;
        LoadResult r = test::loadText(gen::seedCaseTrace(o, 0));
        QVERIFY(r.trace);
        const ReportPtr report = analyze(r.trace);
        const std::string want = expected.toStdString();

        // The copy carries the address; the finding's title says it.
        const InternalCopy* copy = nullptr;
        for (const Collective& c : report->collectives)
            for (const InternalCopy& cp : c.copies)
                if (cp.unalignedAddress && !copy) copy = &cp;
        QVERIFY(copy);
        QCOMPARE(qulonglong(copy->address), address);
        int titles = 0;
        for (const Finding& f : report->findings)
            if (f.rule == "unaligned-address") {
                QVERIFY2(f.title.find(want) != std::string::npos, f.title.c_str());
                ++titles;
            }
        QVERIFY(titles > 0);

        // The command line's report text (analyze without --json), and its JSON titles.
        const std::string text = reportToText({{"rank0.json", report}});
        QVERIFY2(text.find(want) != std::string::npos, text.c_str());
        QVERIFY(reportToJson({{"rank0.json", report}}).dump().find(want) != std::string::npos);

        // The finding label on the extra copy.
        bool labelled = false;
        for (const Annotation& a : findingAnnotations(*report))
            labelled = labelled || a.text.find(want) != std::string::npos;
        QVERIFY(labelled);

        // The Details pane of the copy.
        const QString details = DetailsPane::verdictText(*r.trace, *report, copy->event);
        QVERIFY2(details.contains(expected), qPrintable(details));
    }
};

QTEST_MAIN(TstAddressRemainder)
#include "tst_addressremainder.moc"
