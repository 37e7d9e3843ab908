// SPDX-License-Identifier: GPL-3.0-or-later
// grademl simulate: the strategy simulator from the command line.
#include "clicommands.h"

#include "chartlayer.h"
#include "runcatalog.h"
#include "sweepcharts.h"

#include "modelfromrun.h"
#include "project.h"
#include "strategy.h"
#include "timeformat.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

namespace gml::cli {

namespace {

const char kSimulateUsage[] =
    "usage: grademl simulate FILE.grademl (--model M | --from-run RUN) [--strategy S] [--workers "
    "N]\n"
    "         [--servers M] [--async] [--batch B | --global-batch G] [--cluster PRESET|FILE.json]\n"
    "         [--allreduce ring|tree] [--bucket-mb MB] [--scheduling dfs|critical-path] "
    "[--iterations K]\n"
    "         [--sweep workers=1,2,4,8[;batch=16,32]] [--synthetic-data] [--name RUN] [--no-save] "
    "[--json]\n"
    "       grademl simulate --models | --clusters\n"
    "  --model M          alexnet, vgg16, vgg19, resnet50, inception3, bert-base, gpt2\n"
    "  --from-run RUN     the layer graph of a measured run of FILE (its median iteration)\n"
    "  --strategy S       default (one GPU), ps (parameter server), mirrored (one node), "
    "multiworker\n"
    "  --batch B          samples per worker per iteration (default: the model's);\n"
    "  --global-batch G   or G samples per iteration split over the workers\n"
    "  --cluster C        dgx1, dgx-a100, 12x4-v100-edr (default), 9x1-v100-25gbe, or a JSON file\n"
    "  --sweep            every combination, simulated in parallel; one run each\n"
    "  --synthetic-data   batches made on the GPU: no storage reads, decoding or host copies\n"
    "each simulated run is saved in FILE as a run of kind 'simulated' (named by its "
    "configuration,\n"
    "or --name for a single one) unless --no-save; the metrics table goes to stdout.\n";

QString percent(double v)
{
    return QStringLiteral("%1%").arg(100 * v, 0, 'f', 1);
}

void printTable(const QList<sim::SimResult> &results, const QStringList &names, QTextStream &out)
{
    out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9 %10\n")
               .arg(QStringLiteral("configuration"), -52)
               .arg(QStringLiteral("iteration"), 11)
               .arg(QStringLiteral("samples/s"), 10)
               .arg(QStringLiteral("compute"), 11)
               .arg(QStringLiteral("comm"), 11)
               .arg(QStringLiteral("memory"), 11)
               .arg(QStringLiteral("usage"), 7)
               .arg(QStringLiteral("speedup"), 8)
               .arg(QStringLiteral("NET"), 6)
               .arg(QStringLiteral("J/iter"), 8);
    for (qsizetype i = 0; i < results.size(); ++i) {
        const sim::SimMetrics &m = results[i].metrics;
        out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9 %10\n")
                   .arg(results[i].config.describe(), -52)
                   .arg(formatDuration(m.iterationNs), 11)
                   .arg(m.throughput, 10, 'f', 1)
                   .arg(formatDuration(m.computationNs), 11)
                   .arg(formatDuration(m.communicationNs), 11)
                   .arg(formatDuration(m.memoryNs), 11)
                   .arg(percent(m.deviceUsage), 7)
                   .arg(m.speedup, 8, 'f', 2)
                   .arg(m.normalizedExecution, 6, 'f', 2)
                   .arg(m.energyPerIterationJ, 8, 'f', 1);
        if (i < names.size() && !names[i].isEmpty())
            out << "  saved as run '" << names[i] << "'\n";
        for (const QString &w : results[i].warnings)
            out << "  warning: " << w << '\n';
    }
}

struct SimulateRequest
{
    QList<sim::SimConfig> configs;
    QString name;
};

bool parseRequest(const Parsed &p, Project &project, SimulateRequest *request, QString *error)
{
    auto usage = [&](const QString &why) {
        *error = QStringLiteral("usage: ") + why;
        return false;
    };
    sim::SimConfig c;
    const QString model = p.options.value(QStringLiteral("model"));
    const QString fromRun = p.options.value(QStringLiteral("from-run"));
    if (model.isEmpty() == fromRun.isEmpty())
        return usage(QStringLiteral("give either --model or --from-run"));
    if (!model.isEmpty()) {
        auto g = sim::builtinModel(model, error);
        if (!g)
            return false;
        c.model = std::move(*g);
    } else {
        auto run = project.findRun(fromRun);
        if (!run) {
            *error = QStringLiteral("no run named '%1' in %2").arg(fromRun, project.path());
            return false;
        }
        auto g = sim::layerGraphFromRun(project, *run, error);
        if (!g)
            return false;
        c.model = std::move(*g);
    }
    const auto strategy =
        sim::parseStrategy(p.options.value(QStringLiteral("strategy"), QStringLiteral("default")));
    if (!strategy)
        return usage(QStringLiteral("--strategy is default, ps, mirrored or multiworker"));
    c.strategy = *strategy;
    auto integer = [&](const char *key, int fallback, int *target) {
        const QString v = p.options.value(QLatin1String(key));
        if (v.isEmpty()) {
            *target = fallback;
            return true;
        }
        bool ok = false;
        *target = v.toInt(&ok);
        return ok && *target >= 1;
    };
    if (!integer("workers", 1, &c.workers))
        return usage(QStringLiteral("--workers is a whole number of at least 1"));
    if (!integer("servers", 1, &c.servers))
        return usage(QStringLiteral("--servers is a whole number of at least 1"));
    if (!integer("batch", c.model.defaultBatch, &c.batch))
        return usage(QStringLiteral("--batch is a whole number of at least 1"));
    int global = 0;
    if (p.options.contains(QStringLiteral("global-batch")) && !integer("global-batch", 0, &global))
        return usage(QStringLiteral("--global-batch is a whole number of at least 1"));
    c.globalBatch = global;
    if (!integer("iterations", 10, &c.iterations))
        return usage(QStringLiteral("--iterations is a whole number of at least 1"));
    c.asyncUpdates = p.flags.contains(QStringLiteral("async"));
    c.syntheticData = p.flags.contains(QStringLiteral("synthetic-data"));
    c.allReduce = p.options.value(QStringLiteral("allreduce"), QStringLiteral("ring"));
    if (p.options.contains(QStringLiteral("bucket-mb"))) {
        bool ok = false;
        c.bucketMB = p.options.value(QStringLiteral("bucket-mb")).toDouble(&ok);
        if (!ok || !(c.bucketMB > 0))
            return usage(QStringLiteral("--bucket-mb is a size above 0"));
    }
    const QString scheduling = p.options.value(QStringLiteral("scheduling"), QStringLiteral("dfs"));
    if (scheduling != QLatin1String("dfs") && scheduling != QLatin1String("critical-path"))
        return usage(QStringLiteral("--scheduling is dfs or critical-path"));
    c.criticalPathFirst = scheduling == QLatin1String("critical-path");
    auto cluster = sim::SimCluster::load(
        p.options.value(QStringLiteral("cluster"), QStringLiteral("12x4-v100-edr")), error);
    if (!cluster)
        return false;
    c.cluster = std::move(*cluster);
    QList<int> workers, batches;
    if (p.options.contains(QStringLiteral("sweep"))) {
        for (const QString &part :
             p.options.value(QStringLiteral("sweep")).split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
            const QString key = part.section(QLatin1Char('='), 0, 0).trimmed();
            const auto values = sim::parseSweepValues(part.section(QLatin1Char('='), 1));
            if (!values || (key != QLatin1String("workers") && key != QLatin1String("batch")))
                return usage(QStringLiteral(
                    "--sweep is workers=1,2,4[;batch=16,32] (whole numbers of at least 1)"));
            (key == QLatin1String("workers") ? workers : batches) = *values;
        }
    }
    request->configs = sim::sweepConfigs(c, workers, batches);
    request->name = p.options.value(QStringLiteral("name"));
    return true;
}

} // namespace

int simulateCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const Parsed p = parse(
        args,
        {QStringLiteral("model"), QStringLiteral("from-run"), QStringLiteral("strategy"),
         QStringLiteral("workers"), QStringLiteral("servers"), QStringLiteral("batch"),
         QStringLiteral("global-batch"), QStringLiteral("cluster"), QStringLiteral("allreduce"),
         QStringLiteral("bucket-mb"), QStringLiteral("scheduling"), QStringLiteral("iterations"),
         QStringLiteral("sweep"), QStringLiteral("name")},
        {QStringLiteral("async"), QStringLiteral("synthetic-data"), QStringLiteral("no-save"),
         QStringLiteral("json"), QStringLiteral("models"), QStringLiteral("clusters")});
    if (!p.error.isEmpty()) {
        err << "grademl simulate: " << p.error << '\n' << kSimulateUsage;
        return Usage;
    }
    if (p.flags.contains(QStringLiteral("models"))) {
        for (const QString &id : sim::builtinModels()) {
            const auto m = sim::builtinModel(id, nullptr);
            out << QStringLiteral("%1 %2 M parameters, %3 GFLOP forward per sample, batch %4: %5\n")
                       .arg(id, -11)
                       .arg(double(m->params()) / 1e6, 6, 'f', 1)
                       .arg(m->flops() / 1e9, 7, 'f', 2)
                       .arg(m->defaultBatch)
                       .arg(m->reference);
        }
        return Ok;
    }
    if (p.flags.contains(QStringLiteral("clusters"))) {
        for (const QString &id : sim::SimCluster::presets()) {
            const auto c = sim::SimCluster::load(id, nullptr);
            out << id.leftJustified(16) << c->name << ": " << c->gpu.name << ", "
                << c->intraLink.name << " within a node, " << c->network.name << " between nodes, "
                << c->storage.name << '\n';
        }
        return Ok;
    }
    if (p.positional.size() != 1) {
        err << "grademl simulate: expected one project file\n" << kSimulateUsage;
        return Usage;
    }
    const bool save = !p.flags.contains(QStringLiteral("no-save"));
    QString error;
    auto project =
        openProject(p.positional.first(), save, QStringLiteral("grademl simulate: "), err);
    if (!project)
        return SomeFailed;
    SimulateRequest request;
    if (!parseRequest(p, *project, &request, &error)) {
        err << "grademl simulate: " << error << '\n';
        return error.startsWith(QLatin1String("usage")) ? Usage : SomeFailed;
    }
    const auto outcome = sim::runSweep(request.configs);
    for (const QString &e : outcome.errors)
        err << "grademl simulate: " << e << '\n';
    QStringList names;
    int failed = int(outcome.errors.size());
    for (const sim::SimResult &r : outcome.results) {
        QString name;
        if (save) {
            name = request.name.isEmpty() || outcome.results.size() > 1
                       ? sim::simulatedRunName(r.config)
                       : request.name;
            if (!sim::saveSimulatedRun(*project, r, name, &error)) {
                err << "grademl simulate: " << r.config.describe() << ": not saved: " << error
                    << '\n';
                name.clear();
                ++failed;
            }
        }
        names << name;
    }
    if (p.flags.contains(QStringLiteral("json"))) {
        QJsonArray list;
        for (qsizetype i = 0; i < outcome.results.size(); ++i) {
            QJsonObject o;
            o.insert(QStringLiteral("config"), outcome.results[i].config.toJson());
            o.insert(QStringLiteral("metrics"), outcome.results[i].metrics.toJson());
            if (!names[i].isEmpty())
                o.insert(QStringLiteral("run"), names[i]);
            if (!outcome.results[i].warnings.isEmpty())
                o.insert(QStringLiteral("warnings"),
                         QJsonArray::fromStringList(outcome.results[i].warnings));
            list.append(o);
        }
        out << QJsonDocument(list).toJson(QJsonDocument::Indented);
    } else {
        printTable(outcome.results, names, out);
    }
    return failed ? SomeFailed : Ok;
}

int exportSimulate(const Parsed &p, const QString &projectPath, const QString &outPath, QSize size,
                   QTextStream &out, QTextStream &err)
{
    QString error;
    auto project = openProject(projectPath, false,
                               QStringLiteral("grademl export: %1: ").arg(projectPath), err);
    if (!project)
        return SomeFailed;
    const auto catalog = loadRunCatalog(*project, &error);
    if (!catalog) {
        err << "grademl export: " << error << '\n';
        return SomeFailed;
    }
    QList<CatalogRun> runs;
    const QStringList names =
        p.options.value(QStringLiteral("runs")).split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (const QString &name : names) {
        const CatalogRun *r = catalog->run(name.trimmed());
        if (!r || r->kind != QLatin1String("simulated")) {
            err << "grademl export: " << projectPath << ": no simulated run named '"
                << name.trimmed() << "' (see grademl runs)\n";
            return SomeFailed;
        }
        runs.append(*r);
    }
    if (names.isEmpty())
        runs = catalog->runs;
    const QList<SweepPoint> points = sweepPoints(runs);
    const SweepCharts charts = sweepCharts(points);
    if (charts.isEmpty()) {
        err << "grademl export: nothing to chart: " << projectPath
            << " has no simulated runs (see grademl simulate)\n";
        return SomeFailed;
    }
    // The panel's four charts, drawn by the same chart layer.
    Chart speedup, net, usage, energy;
    speedup.showTime(charts.speedup);
    net.showTime(charts.net);
    usage.showTime(charts.usage);
    energy.showTime(charts.energy);
    const QString title = QStringLiteral("Simulated: %1 \u00b7 %2 configurations, %3 lines by %4")
                              .arg(names.isEmpty() ? QStringLiteral("all simulated runs of %1")
                                                         .arg(QFileInfo(projectPath).fileName())
                                                   : QStringLiteral("%1 runs").arg(names.size()))
                              .arg(points.size())
                              .arg(charts.lines)
                              .arg(charts.key);
    if (!exportCharts({&speedup, &net, &usage, &energy}, 2, size, outPath, title, &error)) {
        err << "grademl export: " << error << '\n';
        return SomeFailed;
    }
    out << "wrote " << outPath << " (" << points.size() << " simulated runs, " << charts.lines
        << " lines)\n";
    return Ok;
}

} // namespace gml::cli
