// SPDX-License-Identifier: GPL-3.0-or-later
// Rows of the bad-input test (kept out of the moc-parsed file: moc misreads some of these
// byte strings).
#pragma once

#include "testutil.h"

#include <QTest>

inline void addBadInputRows()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("fails");
    QTest::addColumn<QString>("expected"); // part of the message
    QTest::addColumn<qint64>("offset");    // -1: do not check

    QTest::newRow("truncated JSON")
        << "trunc.json"
        << QByteArray(
               R"J({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},{"ph":"X","na)J")
        << true << "ends in the middle of an event that starts at byte 69" << qint64(-1);
    const QByteArray big = gmltest::gzip(
        QByteArray(R"({"traceEvents":[)") +
        QByteArray(R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},)").repeated(5000) +
        "{}]}");
    QTest::newRow("gzip cut in the middle") << "cut.json.gz" << big.left(big.size() / 2) << true
                                            << "gzip data is corrupt or cut short" << qint64(-1);
    QTest::newRow("empty file") << "empty.json" << QByteArray() << true << "the file is empty"
                                << qint64(0);
    QTest::newRow("binary named .json")
        << "bin.json" << QByteArray("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) << true
        << "expected a JSON object ('{' with traceEvents) or array ('[') at the start of a Chrome "
           "trace, found byte 0x89"
        << qint64(0);
    QTest::newRow("wrong top-level type")
        << "str.json" << QByteArray(R"("just a string")") << true << "found '\"'" << qint64(0);
    QTest::newRow("traceEvents not an array")
        << "te.json" << QByteArray(R"({"traceEvents": 5})") << true
        << "expected an array ('[') for traceEvents, found '5'" << qint64(16);
    QTest::newRow("non-numeric ts")
        << "ts.json"
        << QByteArray(
               R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},{"ph":"X","name":"b","pid":1,"tid":1,"ts":"soon","dur":1}])")
        << false
        << "event at byte 54 has a non-numeric 'ts' (soon); expected a number of microseconds"
        << qint64(96);
    QTest::newRow("negative dur")
        << "dur.json" << QByteArray(R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":-4}])")
        << false << "event at byte 1 has a negative 'dur' (-4 µs); expected a duration >= 0"
        << qint64(1);
    QTest::newRow("invalid UTF-8 in a name")
        << "utf.json"
        << QByteArray("[{\"ph\":\"X\",\"name\":\"bad\xff\xfename\",\"pid\":1,\"tid\":1,\"ts\":1,"
                      "\"dur\":1}]")
        << false << "invalid UTF-8 in an event's name at byte 22" << qint64(-1);
    QTest::newRow("M event for an unknown pid")
        << "m.json"
        << QByteArray(
               R"([{"ph":"M","name":"process_name","pid":42,"args":{"name":"ghost"}},{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}])")
        << false << "name 1 processes that have no events (pids 42)" << qint64(1);
    QTest::newRow("traceEvents twice")
        << "twice.json"
        << QByteArray(
               R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}],"traceEvents":[{"ph":"X","name":"b","pid":1,"tid":1,"ts":5,"dur":1}]})")
        << false
        << "a second 'traceEvents' array; a trace holds one, and the events of both are read"
        << qint64(84);
    QTest::newRow("no events")
        << "none.json" << QByteArray(R"({"traceEvents":[],"displayTimeUnit":"ns"})") << false
        << "the trace holds no events (its event array is empty): nothing to draw" << qint64(-1);
}
