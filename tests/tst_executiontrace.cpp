// SPDX-License-Identifier: GPL-3.0-or-later
// PyTorch execution traces: data edges between the run's CPU operator slices. The real HTA
// simple_add pair (ET + Kineto of one run) with its edges checked by hand, the later `attrs`
// layout written by the test, import order, re-linking and bad input.
#include "etutil.h"
#include "folderscanner.h"
#include "importjob.h"
#include "importutil.h"
#include "project.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace gml;
using gmltest::importInto;
using gmltest::newProject;

namespace {

const QString kEt = QStringLiteral(
    "pytorch_execution_trace/hta_simple_add_with_kineto_a100/benchmark_simple_add_et.json.gz");
const QString kKineto =
    QStringLiteral("pytorch_kineto/hta_simple_add_with_et_a100/benchmark_simple_add_trace.json.gz");

const QString kDlrmEt = QStringLiteral("pytorch_execution_trace/param_dlrm_8rank_v100");
const QString kDlrmKineto = QStringLiteral("pytorch_kineto/param_dlrm_8rank_v100");

// An independent reading of an ET file: its top-level operators (parent not an operator) and
// the producer -> consumer pairs of their tensors, as operator names "a>b", sorted.
struct EtCount
{
    qint64 pid = 0;
    int operators = 0;
    QStringList edges;
};

EtCount countEt(const QString &path)
{
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    const QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
    EtCount c;
    c.pid = root.value(QStringLiteral("pid")).toInteger();
    const QMap<qint64, QJsonObject> top =
        gmltest::topLevelEtOperators(root); // by rf_id: record order
    c.operators = int(top.size());
    QMap<QString, qint64> producer; // tensor -> rf_id of its last writer
    QSet<QPair<qint64, qint64>> pairs;
    for (auto it = top.cbegin(); it != top.cend(); ++it) {
        QSet<QString> in, out;
        gmltest::collectEtTensors(it->value(QStringLiteral("inputs")), in);
        gmltest::collectEtTensors(it->value(QStringLiteral("outputs")), out);
        for (const QString &t : std::as_const(in))
            if (producer.contains(t) && producer[t] != it.key())
                pairs.insert({producer[t], it.key()});
        for (const QString &t : std::as_const(out))
            producer[t] = it.key();
    }
    for (const auto &p : std::as_const(pairs))
        c.edges << top[p.first].value(QStringLiteral("name")).toString() + QLatin1Char('>') +
                       top[p.second].value(QStringLiteral("name")).toString();
    c.edges.sort();
    return c;
}

// The project's data flows of one ET source, as slice names "a>b", sorted.
QStringList storedEdges(Project &p, const QString &path)
{
    auto st = p.db().prepare(
        "SELECT a.name || '>' || b.name FROM flow f JOIN source src ON src.id = f.source_id "
        "JOIN slice_abs a ON a.id = f.from_slice JOIN slice_abs b ON b.id = f.to_slice "
        "WHERE f.kind = 5 AND src.path = ?");
    st.bind(1, path);
    QStringList out;
    while (st.step())
        out << st.text(0);
    out.sort();
    return out;
}

// Whether sorted `part` is a sub-multiset of sorted `whole`.
bool within(const QStringList &part, const QStringList &whole)
{
    qsizetype j = 0;
    for (const QString &e : part) {
        while (j < whole.size() && whole[j] < e)
            ++j;
        if (j == whole.size() || whole[j] != e)
            return false;
        ++j;
    }
    return true;
}

QString edges(Project &p)
{
    return gmltest::text(
        p, QStringLiteral(
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
    void dlrmFromTwoFoldersEitherOrder();
    void dlrmDataEdgesAgainstAnIndependentCount();
    void badInput();
    void wrongTypesAndSelfParentAreSaid();
};

void TestExecutionTrace::realSimpleAdd()
{
    GML_REQUIRE_SHARED(kEt);
    GML_REQUIRE_SHARED(kKineto);
    QTemporaryDir dir;
    auto p = newProject(dir);
    // The ET is named first, yet it is imported after the Kineto trace it links to.
    const auto reports = importInto(*p,
                                    {gmltest::sharedTraces() + QLatin1Char('/') + kEt,
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
    QCOMPARE(edges(*p),
             QStringLiteral("aten::rand>aten::add aten::rand>aten::add aten::rand>aten::add "
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
        return QStringLiteral(
                   R"J({"id": %1, "name": "%4", "ctrl_deps": %2, "inputs": {"values": [%5], "shapes": [], "types": []}, "outputs": {"values": [%6], "shapes": [], "types": []}, "attrs": [{"name": "rf_id", "type": "uint64", "value": %3}, {"name": "scope", "type": "int8", "value": 0}]})J")
            .arg(id)
            .arg(parent)
            .arg(rf)
            .arg(QLatin1String(name), QLatin1String(in), QLatin1String(out));
    };
    const QString t1 = QStringLiteral(R"J([5, 6, 0, 16, 4, "cuda:0"])J");
    const QString t2 = QStringLiteral(R"J([8, 9, 0, 16, 4, "cuda:0"])J");
    const QString et =
        QStringLiteral(R"J({"schema": "1.0.2-chakra.0.0.4", "pid": 7, "nodes": [)J") +
        QStringLiteral(
            R"J({"id": 1, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 0, "attrs": [{"name": "rf_id", "type": "uint64", "value": 0}]}, )J") +
        node(2, 1, 100, "aten::empty", "", t1.toLatin1().constData()) + QStringLiteral(", ") +
        node(3, 1, 101, "aten::linear", t1.toLatin1().constData(), t2.toLatin1().constData()) +
        QStringLiteral(", ") +
        node(4, 3, 102, "aten::addmm", t1.toLatin1().constData(), t2.toLatin1().constData()) +
        QStringLiteral(", ") +
        node(5, 1, 103, "aten::relu",
             (QStringLiteral("[") + t2 + QStringLiteral("]")).toLatin1().constData(), "") +
        QStringLiteral("]}");
    gmltest::writeFile(dir, QStringLiteral("t/et.json"), et.toUtf8());
    QTemporaryDir pdir;
    auto p = newProject(pdir);
    const auto reports = importInto(*p, {dir.filePath(QStringLiteral("t"))}, QString());
    QCOMPARE(reports.back().format, QStringLiteral("pytorch-execution-trace"));
    QCOMPARE(reports.back().status, SourceReport::Status::Imported);
    QCOMPARE(edges(*p), QStringLiteral("aten::empty>aten::linear aten::linear>aten::relu"));
    QCOMPARE(gmltest::text(
                 *p, QStringLiteral("SELECT json_extract(metadata, '$.matched_by') FROM source "
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
    QVERIFY(QFile::copy(gmltest::sharedTraces() + QLatin1Char('/') + kEt,
                        dir.filePath(QStringLiteral("run/et.json.gz"))));
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
        QVERIFY2(gmltest::text(*q, QStringLiteral("SELECT warnings FROM source"))
                     .contains(QLatin1String("matched nothing")),
                 qPrintable(gmltest::text(*q, QStringLiteral("SELECT warnings FROM source"))));
    }
    // The trace changes (its slices get new ids): the unchanged ET is linked again.
    QVERIFY(gmltest::setMtime(trace, QDateTime::currentDateTime().addSecs(5)));
    const auto again = importInto(*p, {dir.filePath(QStringLiteral("run"))}, QString());
    QCOMPARE(again.back().status, SourceReport::Status::Imported);
    QCOMPARE(gmltest::scalar(*p, "SELECT count(*) FROM flow WHERE kind = 5"), 8);
    QCOMPARE(gmltest::scalar(*p,
                             "SELECT count(*) FROM flow f WHERE NOT EXISTS (SELECT 1 FROM slice s "
                             "WHERE s.id = f.from_slice)"),
             0);
}

void TestExecutionTrace::dlrmFromTwoFoldersEitherOrder()
{
    GML_REQUIRE_SHARED(kDlrmEt);
    GML_REQUIRE_SHARED(kDlrmKineto);
    const QString et = gmltest::sharedTraces() + QLatin1Char('/') + kDlrmEt;
    const QString kineto = gmltest::sharedTraces() + QLatin1Char('/') + kDlrmKineto;
    // With --run, ET first: linked when the Kineto traces arrive in a later import.
    {
        QTemporaryDir pdir;
        auto p = newProject(pdir);
        const auto first = importInto(*p, {et}, QStringLiteral("dlrm"));
        QCOMPARE(first.size(), 8);
        QCOMPARE(first.front().flows, 0);
        const auto second = importInto(*p, {kineto}, QStringLiteral("dlrm"));
        QCOMPARE(second.size(), 16); // 8 traces, then the 8 ETs linked again
        for (int i = 8; i < 16; ++i) {
            QVERIFY(second[i].relinked);
            QCOMPARE(second[i].status, SourceReport::Status::Imported);
            QVERIFY2(second[i].flows >= 330, qPrintable(QString::number(second[i].flows)));
        }
    }
    // Both folders without --run: one run, named after the folders.
    {
        QTemporaryDir pdir;
        auto p = newProject(pdir);
        importInto(*p, {et, kineto});
        QCOMPARE(gmltest::scalar(*p, "SELECT count(*) FROM run"), 1);
        QVERIFY(gmltest::scalar(*p, "SELECT count(*) FROM flow WHERE kind = 5") > 8 * 330);
    }
    // In two runs (two names), either order: the ETs find their operators in the Kineto run
    // and join it; the run they leave is removed.
    for (const bool kinetoFirst : {true, false}) {
        QTemporaryDir pdir;
        auto p = newProject(pdir);
        if (kinetoFirst) {
            importInto(*p, {kineto}, QStringLiteral("kineto"));
            importInto(*p, {et}, QStringLiteral("et"));
        } else {
            importInto(*p, {et}, QStringLiteral("et"));
            importInto(*p, {kineto}, QStringLiteral("kineto"));
        }
        QCOMPARE(gmltest::text(*p, QStringLiteral("SELECT group_concat(name) FROM run")),
                 QStringLiteral("kineto"));
        QCOMPARE(gmltest::scalar(
                     *p, "SELECT count(*) FROM source WHERE format = 'pytorch-execution-trace' "
                         "AND json_extract(metadata, '$.joined_run') = 'kineto'"),
                 8);
        QVERIFY(gmltest::scalar(*p, "SELECT count(*) FROM flow WHERE kind = 5") > 8 * 330);
    }
}

void TestExecutionTrace::dlrmDataEdgesAgainstAnIndependentCount()
{
    GML_REQUIRE_SHARED(kDlrmEt);
    GML_REQUIRE_SHARED(kDlrmKineto);
    QTemporaryDir pdir;
    auto p = newProject(pdir);
    const QString etDir = QDir::cleanPath(
        QFileInfo(gmltest::sharedTraces() + QLatin1Char('/') + kDlrmEt).absoluteFilePath());
    importInto(*p, {etDir, gmltest::sharedTraces() + QLatin1Char('/') + kDlrmKineto},
               QStringLiteral("dlrm"));
    int exact = 0;
    for (int rank = 0; rank < 8; ++rank) {
        const QString path = etDir + QStringLiteral("/dlrm_eg_%1.json").arg(rank);
        const EtCount expected = countEt(path);
        const QStringList stored = storedEdges(*p, path);
        // This job's Kineto "External id"s are not the ET's rf_ids (most point at another
        // operator), so operators are matched by order and name; every stored edge joins the
        // slices of the producer and consumer the ET names, and at most a few are missing.
        QCOMPARE(
            gmltest::text(
                *p,
                QStringLiteral(
                    "SELECT json_extract(metadata, '$.matched_by') FROM source WHERE path = '%1'")
                    .arg(path)),
            QStringLiteral("operator order and names"));
        QCOMPARE(expected.operators, 486);
        QVERIFY2(within(stored, expected.edges), qPrintable(QStringLiteral("rank %1").arg(rank)));
        QVERIFY2(stored.size() * 100 >= expected.edges.size() * 97,
                 qPrintable(QStringLiteral("rank %1: %2 of %3")
                                .arg(rank)
                                .arg(stored.size())
                                .arg(expected.edges.size())));
        exact += stored == expected.edges;
    }
    QVERIFY(exact >= 3); // ranks 0, 5 and 6 match every operator's slice
}

void TestExecutionTrace::badInput()
{
    QTemporaryDir dir;
    const QString path =
        gmltest::writeFile(dir, QStringLiteral("et.json"),
                           R"J({"schema": "1.0.1", "pid": 1, "nodes": [{"id": 1, "name": "x"}, )J");
    QTemporaryDir pdir;
    auto p = newProject(pdir);
    const auto r = importInto(*p, {path}, QString());
    QCOMPARE(r.front().status, SourceReport::Status::Failed);
    QVERIFY2(r.front().message.startsWith(path) &&
                 r.front().message.contains(QLatin1String("at byte")),
             qPrintable(r.front().message));
}

void TestExecutionTrace::wrongTypesAndSelfParentAreSaid()
{
    // A pid and rf_ids of the wrong type linked nothing and said only "matched nothing ...
    // import the Kineto trace"; an operator that is its own parent and a repeated key were
    // read silently.
    QTemporaryDir dir;
    const QString path =
        gmltest::writeFile(dir, QStringLiteral("et.json"), R"J({"schema":"1.0.1","pid":"x","nodes":[
{"id":1,"name":"[pytorch|profiler|execution_graph|thread]","parent":1,"rf_id":0,"inputs":[],"outputs":[]},
{"id":2,"name":"aten::add","parent":2,"rf_id":"abc","inputs":[],"outputs":[]},
{"id":3,"name":"aten::mul","parent":1,"rf_id":1e300,"scope":0,"scope":7,"inputs":[],"outputs":[]}]})J");
    QTemporaryDir pdir;
    auto p = newProject(pdir);
    const auto r = importInto(*p, {path}, QString());
    QCOMPARE(r.front().status, SourceReport::Status::Imported);
    const QString warnings = gmltest::text(*p, QStringLiteral("SELECT warnings FROM source"));
    for (const char *expected :
         {"the trace: 'pid' is \\\"x\\\"; expected a whole number (read as absent)",
          "\"count\":2,\"message\":\"node 2: 'rf_id' is \\\"abc\\\"; expected a whole number",
          "node 2 (aten::add) names itself as its parent; it is read as a top-level node",
          "1 keys repeat within their object (first: 'scope'); the last value of each is read"})
        QVERIFY2(warnings.contains(QLatin1String(expected)),
                 qPrintable(QStringLiteral("%1 not in %2").arg(QLatin1String(expected), warnings)));
    // The root naming itself is the format's own convention: not warned.
    QVERIFY(!warnings.contains(QLatin1String("node 1 (")));
}

QTEST_GUILESS_MAIN(TestExecutionTrace)
#include "tst_executiontrace.moc"
