// SPDX-License-Identifier: GPL-3.0-or-later
// The workflow level of the execution model: steps declared in a folder's grademl.json (by
// folder and by run name) matched with imported runs, the order inferred by time when nothing
// is declared, the workflow's critical path, and what a bad declaration says (a loop, a step
// matching no run, an edge naming no step, a malformed file), in the model and in the CLI.
#include "executionmodel.h"
#include "folderscanner.h"
#include "importjob.h"
#include "importutil.h"
#include "project.h"
#include "testutil.h"
#include "workflow.h"

#include <QDirIterator>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace gml;
using gmltest::importInto;
using gmltest::newProject;

namespace {

// Copies a folder (a shared trace layout) into `to` (a temporary trace folder of the test).
bool copyTree(const QString &from, const QString &to)
{
    QDirIterator it(from, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString file = it.next();
        const QString target = to + QLatin1Char('/') + QDir(from).relativeFilePath(file);
        QDir().mkpath(QFileInfo(target).absolutePath());
        if (!QFile::copy(file, target))
            return false;
    }
    return true;
}

RunSummary run(const QString &name, TimeNs start, TimeNs end)
{
    RunSummary r;
    r.name = name;
    r.kind = QStringLiteral("measured");
    r.start = start;
    r.end = end;
    r.slices = 1;
    return r;
}

QString edgeList(const sim::Workflow &w)
{
    QStringList out;
    for (const auto &e : w.edges)
        out << w.steps[size_t(e.from)].name + QStringLiteral(">") + w.steps[size_t(e.to)].name;
    out.sort();
    return out.join(QLatin1Char(' '));
}

} // namespace

class TestWorkflow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void mlflowTensorflowMonitoringAndAPytorchJob();
    void inferredOrderChainsAndBranches();
    void noInventedWorkflows();
    void loopsAndEdgesNamingNoStep();
    void malformedDeclarationIsReported();
    void declarationLimits_data();
    void declarationLimits();
    void largestDeclarationStaysBounded();
};

void TestWorkflow::mlflowTensorflowMonitoringAndAPytorchJob()
{
    const QString mlflow = QStringLiteral("mlflow/swahili_keras_autolog/mlruns");
    const QString smi =
        QStringLiteral("gpu_monitoring/pmdlt_dgx_a100_mnist/02-nvidia-smi/ex3_nvsmLog.txt");
    const QString torch = QStringLiteral("pytorch_kineto/hta_alexnet_a100");
    GML_REQUIRE_SHARED(mlflow);
    GML_REQUIRE_SHARED(smi);
    GML_REQUIRE_SHARED(torch);
    // One job folder: an MLflow run whose artifacts hold the TensorFlow profiler capture, with
    // an nvidia-smi log of the job beside them, and a separate PyTorch job; grademl.json says
    // the Keras training feeds the PyTorch fine-tuning, and names an evaluation not collected.
    QTemporaryDir dir;
    const QString job = dir.filePath(QStringLiteral("job"));
    const QString shared = gmltest::sharedTraces() + QLatin1Char('/');
    QVERIFY(copyTree(shared + mlflow, job + QStringLiteral("/train/mlruns")));
    const QString runFolder =
        job + QStringLiteral("/train/mlruns/1/ed05f9cd599442fe9a0c9222184710b8");
    QVERIFY(QFile::copy(shared + smi, runFolder + QStringLiteral("/artifacts/nvidia-smi.csv")));
    QVERIFY(copyTree(shared + torch, job + QStringLiteral("/finetune")));
    gmltest::writeFile(dir, QStringLiteral("job/grademl.json"),
                       R"J({"timezone": "UTC", "workflow": {
        "name": "speech",
        "steps": [{"name": "train", "folder": "train"},
                  {"name": "finetune", "folder": "finetune"},
                  {"name": "evaluate", "run": "eval-job"}],
        "edges": [["train", "finetune"], {"from": "finetune", "to": "evaluate"}]}})J");
    QTemporaryDir pdir;
    auto p = newProject(pdir);
    const auto reports = importInto(*p, {job});
    QVERIFY(!reports.isEmpty());

    const auto w = sim::Workflow::load(*p, nullptr);
    QVERIFY(w);
    QVERIFY(!w->inferred());
    QCOMPARE(w->name, QStringLiteral("speech"));
    QCOMPARE(w->steps.size(), size_t(3));
    const auto &train = w->steps[size_t(w->find(QStringLiteral("train")))];
    // The MLflow run took the TensorFlow capture (its xplane.pb) and the nvidia-smi log: one
    // run, one step.
    QCOMPARE(train.runs, QStringList{QStringLiteral(
                             "mlflow/Speech model simple rnn/ed05f9cd599442fe9a0c9222184710b8")});
    for (const char *format : {"mlflow-run", "tensorflow-xplane", "nvidia-smi-csv"})
        QVERIFY2(train.formats.contains(QLatin1String(format)),
                 qPrintable(train.formats.join(QLatin1Char(','))));
    QVERIFY(train.slices > 7000 && train.counterSamples > 1000);
    const auto &finetune = w->steps[size_t(w->find(QStringLiteral("finetune")))];
    QCOMPARE(finetune.runs, QStringList{QStringLiteral("job/finetune")});
    QCOMPARE(finetune.formats, QStringList{QStringLiteral("chrome-trace")});
    QVERIFY(w->steps[size_t(w->find(QStringLiteral("evaluate")))].runs.isEmpty());
    QCOMPARE(edgeList(*w), QStringLiteral("finetune>evaluate train>finetune"));
    for (const auto &e : w->edges)
        QVERIFY(!e.inferred);
    QCOMPARE(w->problems.size(), 1);
    QVERIFY2(w->problems.front().contains(QLatin1String("step 'evaluate' matches no run")) &&
                 w->problems.front().contains(QLatin1String("no run is named 'eval-job'")) &&
                 w->problems.front().contains(QLatin1String("grademl.json")),
             qPrintable(w->problems.front()));

    // As a model: a workflow node over three steps, the declared edges at step level, the
    // longest chain of steps on the critical path.
    const auto model = sim::ExecutionModel::forWorkflow(*w);
    QCOMPARE(model.countAt(sim::Level::Step), 3);
    const auto edges = model.edges(sim::Level::Step);
    QCOMPARE(edges.size(), size_t(2));
    for (const auto &e : edges)
        QCOMPARE(e.kind, sim::ModelEdge::Kind::Workflow);
    QCOMPARE(model.criticalLength(), train.duration() + finetune.duration());
    QCOMPARE(model.criticalNodes().size(), size_t(2));

    // A run imported later joins its step: the evaluation arrives under --run eval-job.
    importInto(*p, {shared + QStringLiteral("pytorch_kineto/hta_amd_mi250_rocm62")},
               QStringLiteral("eval-job"));
    const auto again = sim::Workflow::load(*p, nullptr);
    QCOMPARE(again->steps[size_t(again->find(QStringLiteral("evaluate")))].runs,
             QStringList{QStringLiteral("eval-job")});
    QVERIFY(again->problems.isEmpty());

    // grademl graph --level workflow prints it.
    const auto cli = gmltest::runCli({QStringLiteral("graph"), p->path(), QStringLiteral("--level"),
                                      QStringLiteral("workflow"), QStringLiteral("--json")});
    QCOMPARE(cli.code, 0);
    const QJsonObject out = QJsonDocument::fromJson(cli.out).object();
    QCOMPARE(out.value(QStringLiteral("workflow"))
                 .toObject()
                 .value(QStringLiteral("steps"))
                 .toArray()
                 .size(),
             3);
    QCOMPARE(out.value(QStringLiteral("edges")).toArray().size(), 2);
    QCOMPARE(out.value(QStringLiteral("edges"))
                 .toArray()
                 .first()
                 .toObject()
                 .value(QStringLiteral("kind"))
                 .toString(),
             QStringLiteral("workflow"));
}

// Issue 36: runs are chained only when they belong together (one workload or experiment, or one
// trace folder, within a day); unrelated ones are steps with no edges and a note says why, and
// the critical path never crosses them.
void TestWorkflow::noInventedWorkflows()
{
    constexpr TimeNs day = sim::Workflow::kTogetherWithin;
    auto inFolder = [](RunSummary r, const QString &folder) {
        SourceSummary s;
        s.path = folder + QStringLiteral("/trace.json");
        s.status = QStringLiteral("imported");
        r.sources << s;
        return r;
    };
    // Two runs of one folder an hour apart chain; a run of another folder, days later, and one
    // of a third folder the same hour stand alone.
    const TimeNs hour = day / 24;
    const QList<RunSummary> runs = {
        inFolder(run(QStringLiteral("train"), 0, hour), QStringLiteral("/t/job")),
        inFolder(run(QStringLiteral("eval"), 2 * hour, 3 * hour), QStringLiteral("/t/job")),
        inFolder(run(QStringLiteral("other"), 2 * hour, 4 * hour), QStringLiteral("/t/else")),
        inFolder(run(QStringLiteral("old"), -800 * day, -800 * day + hour),
                 QStringLiteral("/t/2019"))};
    auto w = sim::Workflow::resolve({}, runs);
    QCOMPARE(edgeList(w), QStringLiteral("train>eval"));
    QVERIFY2(w.notes.join(QLatin1Char('\n'))
                 .contains(QLatin1String("2 run(s) share no workload, experiment or trace folder")),
             qPrintable(w.notes.join(QLatin1Char('\n'))));
    const auto model = sim::ExecutionModel::forWorkflow(w);
    QCOMPARE(model.criticalLength(), 2 * hour); // other alone: not chained after anything
    // One workload, but days apart: no edge, said so.
    const QHash<QString, QStringList> workload{
        {QStringLiteral("train"), {QStringLiteral("workload:7")}},
        {QStringLiteral("old"), {QStringLiteral("workload:7")}}};
    w = sim::Workflow::resolve({}, runs, workload);
    QCOMPARE(edgeList(w), QStringLiteral("train>eval"));
    QVERIFY2(w.notes.join(QLatin1Char('\n')).contains(QLatin1String("more than a day apart")),
             qPrintable(w.notes.join(QLatin1Char('\n'))));
    // One experiment over everything within a day: other joins the chain after train.
    QHash<QString, QStringList> experiment;
    for (const RunSummary &r : runs)
        if (r.name != QLatin1String("old"))
            experiment[r.name] = {QStringLiteral("experiment:2")};
    w = sim::Workflow::resolve({}, runs, experiment);
    QCOMPARE(edgeList(w), QStringLiteral("train>eval train>other"));
}

void TestWorkflow::inferredOrderChainsAndBranches()
{
    // a then b and c side by side, then d; e runs through all of them; an empty run is no step.
    const QList<RunSummary> runs = {
        run(QStringLiteral("d"), 31, 40), run(QStringLiteral("a"), 0, 10),
        run(QStringLiteral("b"), 12, 20), run(QStringLiteral("c"), 12, 30),
        run(QStringLiteral("e"), 0, 50)};
    QList<RunSummary> withEmpty = runs;
    withEmpty << run(QStringLiteral("empty"), 0, 0);
    withEmpty.back().slices = 0;
    QHash<QString, QStringList> oneExperiment;
    for (const RunSummary &r : withEmpty)
        oneExperiment[r.name] = {QStringLiteral("experiment:1")};
    const auto w = sim::Workflow::resolve({}, withEmpty, oneExperiment);
    QVERIFY(w.inferred());
    QCOMPARE(w.steps.size(), size_t(5));
    QCOMPARE(w.steps.front().name, QStringLiteral("a")); // in start order
    QCOMPARE(edgeList(w), QStringLiteral("a>b a>c b>d c>d"));
    for (const auto &e : w.edges)
        QVERIFY(e.inferred);
    const auto model = sim::ExecutionModel::forWorkflow(w);
    QCOMPARE(model.criticalLength(), TimeNs(50)); // e alone outlasts a, c, d (10 + 18 + 9)
    for (const auto &e : model.edges(sim::Level::Step))
        QCOMPARE(e.kind, sim::ModelEdge::Kind::WorkflowInferred);
}

void TestWorkflow::loopsAndEdgesNamingNoStep()
{
    QTemporaryDir dir;
    gmltest::writeFile(dir, QStringLiteral("grademl.json"), "{}");
    QString error;
    const auto decl = WorkflowDeclaration::parse(
        QJsonDocument::fromJson(
            R"J({"steps": [{"name": "a", "run": "ra"}, {"name": "b", "run": "rb"},
                                               {"name": "c", "run": "rc"}],
                                     "edges": [["a", "b"], ["b", "c"], ["c", "a"], ["b", "z"], ["c", "c"]]})J")
            .object(),
        dir.filePath(QStringLiteral("grademl.json")), &error);
    QVERIFY2(decl, qPrintable(error));
    const auto w =
        sim::Workflow::resolve(std::vector<WorkflowDeclaration>{*decl},
                               {run(QStringLiteral("ra"), 0, 10), run(QStringLiteral("rb"), 10, 30),
                                run(QStringLiteral("rc"), 30, 35)});
    const QString all = w.problems.join(QLatin1Char('\n'));
    QVERIFY2(all.contains(QStringLiteral("loop: a → b → c → a")), qPrintable(all));
    QVERIFY2(all.contains(QLatin1String("names no step 'z'")), qPrintable(all));
    QVERIFY2(all.contains(QStringLiteral("c → c makes a step feed itself")), qPrintable(all));
    QCOMPARE(edgeList(w), QStringLiteral("a>b b>c c>a"));   // the loop's edges are kept
    const auto model = sim::ExecutionModel::forWorkflow(w); // and the model does not hang on it
    QCOMPARE(model.criticalLength(), TimeNs(35));

    // The CLI says so and exits 1.
    QTemporaryDir pdir;
    auto p = newProject(pdir);
    QString e;
    QVERIFY(p->begin(&e) && storeWorkflowDeclaration(*p, *decl, &e) && p->commit(&e));
    const QString path = p->path();
    p.reset();
    const auto cli = gmltest::runCli(
        {QStringLiteral("graph"), path, QStringLiteral("--level"), QStringLiteral("workflow")});
    QCOMPARE(cli.code, 1);
    const QString err = QString::fromUtf8(cli.err);
    QVERIFY2(err.contains(QStringLiteral("loop: a → b → c → a")) &&
                 err.contains(QLatin1String("matches no run")),
             qPrintable(err));
    QVERIFY(cli.outText().contains(QLatin1String("step a: no run")));
}

void TestWorkflow::malformedDeclarationIsReported()
{
    QTemporaryDir dir;
    gmltest::writeFile(dir, QStringLiteral("job/grademl.json"),
                       R"J({"workflow": {"steps": [{"name": "x"}]}})J");
    gmltest::writeFile(
        dir, QStringLiteral("job/t.json"),
        R"J({"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]})J");
    QTemporaryDir pdir;
    auto p = newProject(pdir);
    QStringList errors;
    ImportJob job(*p);
    const auto reports =
        job.run(scanInputs({dir.filePath(QStringLiteral("job"))}, QString(), &errors));
    QCOMPARE(reports.size(), 1);
    QCOMPARE(reports.front().status, SourceReport::Status::Imported); // the trace is kept
    QCOMPARE(job.errors().size(), 1);
    QVERIFY2(
        job.errors().front().contains(QLatin1String("grademl.json")) &&
            job.errors().front().contains(QLatin1String("workflow.steps[0]: expected \"run\"")),
        qPrintable(job.errors().front()));
    const auto w = sim::Workflow::load(*p, nullptr);
    QVERIFY(w->inferred()); // nothing half-stored
    QCOMPARE(w->steps.size(), size_t(1));
}

void TestWorkflow::declarationLimits_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("expected");
    const QByteArray step = R"({"name": "s", "run": "r"})";
    auto steps = [](int n) -> QByteArray {
        QByteArray out;
        for (int i = 0; i < n; ++i)
            out +=
                (i ? "," : "") + QStringLiteral(R"({"name": "s%1", "run": "r%1"})").arg(i).toUtf8();
        return "[" + out + "]";
    };
    QByteArray edges;
    for (int i = 0; i < 10'001; ++i)
        edges += (i ? "," : "") + QByteArray(R"(["s0", "s1"])");
    QTest::newRow("unknown workflow key")
        << QByteArray(R"({"steps": [)" + step + R"(], "colour": "red"})")
        << "workflow: unknown key 'colour' (expected name, steps, edges)";
    QTest::newRow("unknown step key")
        << QByteArray(R"({"steps": [{"name": "s", "run": "r", "fodler": "x"}]})")
        << "workflow.steps[0]: unknown key 'fodler' (expected name, run, runs, folder, folders)";
    QTest::newRow("unknown edge key")
        << QByteArray(R"({"steps": )" + steps(2) + R"(, "edges": [{"from": "s0", "too": "s1"}]})")
        << "workflow.edges[0]: unknown key 'too' (expected from, to)";
    QTest::newRow("name not a string") << QByteArray(R"({"name": 5, "steps": [)" + step + "]}")
                                       << "workflow.name: expected a string, got 5";
    QTest::newRow("too many steps")
        << QByteArray(R"({"steps": )" + steps(1001) + "}")
        << "workflow.steps: 1001 steps; a workflow declares at most 1000";
    QTest::newRow("too many edges")
        << QByteArray(R"({"steps": )" + steps(2) + R"(, "edges": [)" + edges + "]}")
        << "workflow.edges: 10001 edges; a workflow declares at most 10000";
    QTest::newRow("long step name")
        << QByteArray(R"({"steps": [{"name": ")" + QByteArray(1 << 20, 'n') + R"(", "run": "r"}]})")
        << "workflow.steps[0].name: expected a name of 1 to 200 characters, got 1048576 characters";
    QTest::newRow("long run name")
        << QByteArray(R"({"steps": [{"name": "s", "runs": ["r", ")" + QByteArray(201, 'r') +
                      R"("]}]})")
        << "workflow.steps[0].runs[1]: a name of 201 characters; at most 200";
    QTest::newRow("run not a string")
        << QByteArray(R"({"steps": [{"name": "s", "run": 5}]})")
        << "workflow.steps[0].run: expected a non-empty string or a list of strings, got 5";
    QTest::newRow("folder holding every run")
        << QByteArray(R"({"steps": [{"name": "train", "folder": "/"}]})")
        << "workflow.steps[0]: the folder '/' holds this grademl.json's own folder, so every run "
           "would be in step 'train'";
    QTest::newRow("folder of the file itself")
        << QByteArray(R"({"steps": [{"name": "eval", "folders": ["a", "."]}]})")
        << "the folder '.' holds this grademl.json's own folder";
}

void TestWorkflow::declarationLimits()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QString error;
    const auto decl =
        WorkflowDeclaration::parse(QJsonDocument::fromJson(json).object(),
                                   dir.filePath(QStringLiteral("job/grademl.json")), &error);
    QVERIFY(!decl);
    QVERIFY2(error.contains(expected), qPrintable(error));
}

void TestWorkflow::largestDeclarationStaysBounded()
{
    // The most a declaration may hold: 1,000 steps, 10,000 edges with a loop through every
    // step, none matching a run. The problems are listed up to a point and counted after it;
    // the studio renders the workflow graph (a 100,000-step file took over 120 s before the
    // limits, and is now refused at import).
    QTemporaryDir dir;
    QJsonArray steps, edges;
    for (int i = 0; i < 1000; ++i)
        steps.append(QJsonObject{{QStringLiteral("name"), QStringLiteral("s%1").arg(i)},
                                 {QStringLiteral("run"), QStringLiteral("r%1").arg(i)}});
    for (int i = 0; i < 10'000; ++i)
        edges.append(
            QJsonArray{QStringLiteral("s%1").arg(i % 1000),
                       QStringLiteral("s%1").arg(i < 1000 ? (i + 1) % 1000 : (i * 7 + 3) % 1000)});
    const QJsonObject root{
        {QStringLiteral("workflow"),
         QJsonObject{{QStringLiteral("steps"), steps}, {QStringLiteral("edges"), edges}}}};
    gmltest::writeFile(dir, QStringLiteral("job/grademl.json"), QJsonDocument(root).toJson());
    gmltest::writeFile(
        dir, QStringLiteral("job/t.json"),
        R"J({"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]})J");
    QTemporaryDir pdir;
    const QString project = pdir.filePath(QStringLiteral("p.grademl"));
    QCOMPARE(gmltest::runCli({QStringLiteral("import"), dir.filePath(QStringLiteral("job")),
                              QStringLiteral("--project"), project})
                 .code,
             0);
    const auto cli = gmltest::runCli(
        {QStringLiteral("graph"), project, QStringLiteral("--level"), QStringLiteral("workflow")});
    QCOMPARE(cli.code, 1);
    const QString err = QString::fromUtf8(cli.err);
    QVERIFY2(err.contains(QLatin1String("980 more steps match no run")) &&
                 err.contains(QStringLiteral("s3 → s4 → (991 more steps) → s996")),
             qPrintable(err.right(600)));
    QVERIFY2(err.count(QLatin1Char('\n')) < 40, qPrintable(err.left(2000)));
    const auto shot =
        gmltest::runProgram(QStringLiteral(GRADEML_STUDIO),
                            {QStringLiteral("--screenshot"), pdir.filePath(QStringLiteral("w.png")),
                             QStringLiteral("--size"), QStringLiteral("1366x768"),
                             QStringLiteral("--graph-run"), QStringLiteral("workflow"), project},
                            120);
    QVERIFY2(shot.finished && shot.code == 0, qPrintable(shot.all()));
    QVERIFY(QFileInfo(pdir.filePath(QStringLiteral("w.png"))).size() > 0);
}

QTEST_GUILESS_MAIN(TestWorkflow)
#include "tst_workflow.moc"
