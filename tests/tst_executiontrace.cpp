// SPDX-License-Identifier: GPL-3.0-or-later
// PyTorch execution traces: data edges between the run's CPU operator slices. The real HTA
// simple_add pair (ET + Kineto of one run) with its edges checked by hand, the later `attrs`
// layout written by the test, import order, re-linking and bad input.
#include "folderscanner.h"
#include "importjob.h"
#include "project.h"
#include "importutil.h"
#include "testutil.h"

#include <QTest>

using namespace gml;
using gmltest::importInto;
using gmltest::newProject;

namespace {

const QString kEt = QStringLiteral("pytorch_execution_trace/hta_simple_add_with_kineto_a100/benchmark_simple_add_et.json.gz");
const QString kKineto = QStringLiteral("pytorch_kineto/hta_simple_add_with_et_a100/benchmark_simple_add_trace.json.gz");

QString edges(Project &p)
{
    return gmltest::text(p, QStringLiteral(
        "SELECT group_concat(e, ' ') FROM (SELECT a.name || '>' || b.name AS e FROM flow f "
        "JOIN slice_abs a ON a.id = f.from_slice JOIN slice_abs b ON b.id = f.to_slice "
        "WHERE f.kind = 5 ORDER BY e)"));
}

} // namespace

class TestExecutionTrace : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void realSimpleAdd();
    void attrsLayoutAndNesting();
    void relinkedWhenTheTraceChanges();
    void badInput();
};

void TestExecutionTrace::realSimpleAdd()
{
    GML_REQUIRE_SHARED(kEt);
    GML_REQUIRE_SHARED(kKineto);
    QTemporaryDir dir;
    auto p = newProject(dir);
    // The ET is named first, yet it is imported after the Kineto trace it links to.
    const auto reports = importInto(*p, {gmltest::sharedTraces() + QLatin1Char('/') + kEt,
                                         gmltest::sharedTraces() + QLatin1Char('/') + kKineto},
                                    QStringLiteral("simple_add"));
    QCOMPARE(reports.size(), 2);
    QCOMPARE(reports[0].format, QStringLiteral("chrome-trace"));
    QCOMPARE(reports[1].format, QStringLiteral("pytorch-execution-trace"));
    QCOMPARE(reports[1].status, SourceReport::Status::Imported);
    QCOMPARE(reports[1].warnings, 0); // every top-level operator found its cpu_op slice
    // By hand from the file: two aten::rand feed each of the two aten::add; each clear_cache
    // block's aten::zeros feeds aten::to, whose output feeds aten::mul.
    QCOMPARE(reports[1].flows, 8);
    QCOMPARE(edges(*p), QStringLiteral("aten::rand>aten::add aten::rand>aten::add aten::rand>aten::add "
                                       "aten::rand>aten::add aten::to>aten::mul aten::to>aten::mul "
                                       "aten::zeros>aten::to aten::zeros>aten::to"));
    QCOMPARE(gmltest::scalar(*p, "SELECT json_extract(metadata, '$.operators') FROM source "
                                 "WHERE format = 'pytorch-execution-trace'"),
             28); // SOURCES.md: 28 ops
}

void TestExecutionTrace::attrsLayoutAndNesting()
{
    // A Kineto trace with three cpu_ops (with "Record function id") and an ET in the attrs
    // layout where aten::linear nests aten::addmm: only top-level operators are linked.
    QTemporaryDir dir;
    gmltest::writeFile(dir, QStringLiteral("t/trace.json"), R"J({"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 7, "tid": 7, "ts": 10, "dur": 5, "args": {"External id": 1, "Record function id": 100}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 7, "tid": 7, "ts": 20, "dur": 10, "args": {"External id": 2, "Record function id": 101}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 7, "tid": 7, "ts": 21, "dur": 8, "args": {"External id": 3, "Record function id": 102}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 7, "tid": 7, "ts": 40, "dur": 5, "args": {"External id": 4, "Record function id": 103}}
]})J");
    auto node = [](int id, int parent, int rf, const char *name, const char *in, const char *out) {
        return QStringLiteral(R"J({"id": %1, "name": "%4", "ctrl_deps": %2, "inputs": {"values": [%5], "shapes": [], "types": []}, "outputs": {"values": [%6], "shapes": [], "types": []}, "attrs": [{"name": "rf_id", "type": "uint64", "value": %3}, {"name": "scope", "type": "int8", "value": 0}]})J")
            .arg(id).arg(parent).arg(rf).arg(QLatin1String(name), QLatin1String(in), QLatin1String(out));
    };
    const QString t1 = QStringLiteral(R"J([5, 6, 0, 16, 4, "cuda:0"])J");
    const QString t2 = QStringLiteral(R"J([8, 9, 0, 16, 4, "cuda:0"])J");
    const QString et = QStringLiteral(R"J({"schema": "1.0.2-chakra.0.0.4", "pid": 7, "nodes": [)J") +
                       QStringLiteral(R"J({"id": 1, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 0, "attrs": [{"name": "rf_id", "type": "uint64", "value": 0}]}, )J") +
                       node(2, 1, 100, "aten::empty", "", t1.toLatin1().constData()) + QStringLiteral(", ") +
                       node(3, 1, 101, "aten::linear", t1.toLatin1().constData(), t2.toLatin1().constData()) + QStringLiteral(", ") +
                       node(4, 3, 102, "aten::addmm", t1.toLatin1().constData(), t2.toLatin1().constData()) + QStringLiteral(", ") +
                       node(5, 1, 103, "aten::relu", (QStringLiteral("[") + t2 + QStringLiteral("]")).toLatin1().constData(), "") +
                       QStringLiteral("]}");
    gmltest::writeFile(dir, QStringLiteral("t/et.json"), et.toUtf8());
    QTemporaryDir pdir;
    auto p = newProject(pdir);
    const auto reports = importInto(*p, {dir.filePath(QStringLiteral("t"))}, QString());
    QCOMPARE(reports.back().format, QStringLiteral("pytorch-execution-trace"));
    QCOMPARE(reports.back().status, SourceReport::Status::Imported);
    QCOMPARE(edges(*p), QStringLiteral("aten::empty>aten::linear aten::linear>aten::relu"));
    QCOMPARE(gmltest::text(*p, QStringLiteral("SELECT json_extract(metadata, '$.matched_by') FROM source "
                                              "WHERE format = 'pytorch-execution-trace'")),
             QStringLiteral("Record function id"));
}

void TestExecutionTrace::relinkedWhenTheTraceChanges()
{
    GML_REQUIRE_SHARED(kEt);
    GML_REQUIRE_SHARED(kKineto);
    QTemporaryDir dir;
    const QString trace = dir.filePath(QStringLiteral("run/trace.json.gz"));
    QDir().mkpath(dir.filePath(QStringLiteral("run")));
    QVERIFY(QFile::copy(gmltest::sharedTraces() + QLatin1Char('/') + kKineto, trace));
    QVERIFY(QFile::copy(gmltest::sharedTraces() + QLatin1Char('/') + kEt, dir.filePath(QStringLiteral("run/et.json.gz"))));
    QTemporaryDir pdir;
    auto p = newProject(pdir);
    importInto(*p, {dir.filePath(QStringLiteral("run"))}, QString());
    QCOMPARE(gmltest::scalar(*p, "SELECT count(*) FROM flow WHERE kind = 5"), 8);
    // Alone, the ET reports what it could not link.
    {
        QTemporaryDir qdir;
        auto q = newProject(qdir);
        const auto r = importInto(*q, {dir.filePath(QStringLiteral("run/et.json.gz"))}, QString());
        QCOMPARE(r.front().status, SourceReport::Status::Imported);
        QCOMPARE(r.front().flows, 0);
        QVERIFY2(gmltest::text(*q, QStringLiteral("SELECT warnings FROM source")).contains(QLatin1String("10 of 10 operators")),
                 qPrintable(gmltest::text(*q, QStringLiteral("SELECT warnings FROM source"))));
    }
    // The trace changes (its slices get new ids): the unchanged ET is linked again.
    QVERIFY(gmltest::setMtime(trace, QDateTime::currentDateTime().addSecs(5)));
    const auto again = importInto(*p, {dir.filePath(QStringLiteral("run"))}, QString());
    QCOMPARE(again.back().status, SourceReport::Status::Imported);
    QCOMPARE(gmltest::scalar(*p, "SELECT count(*) FROM flow WHERE kind = 5"), 8);
    QCOMPARE(gmltest::scalar(*p, "SELECT count(*) FROM flow f WHERE NOT EXISTS (SELECT 1 FROM slice s "
                                 "WHERE s.id = f.from_slice)"),
             0);
}

void TestExecutionTrace::badInput()
{
    QTemporaryDir dir;
    const QString path = gmltest::writeFile(dir, QStringLiteral("et.json"),
                                            R"J({"schema": "1.0.1", "pid": 1, "nodes": [{"id": 1, "name": "x"}, )J");
    QTemporaryDir pdir;
    auto p = newProject(pdir);
    const auto r = importInto(*p, {path}, QString());
    QCOMPARE(r.front().status, SourceReport::Status::Failed);
    QVERIFY2(r.front().message.startsWith(path) && r.front().message.contains(QLatin1String("at byte")),
             qPrintable(r.front().message));
}

QTEST_GUILESS_MAIN(TestExecutionTrace)
#include "tst_executiontrace.moc"
