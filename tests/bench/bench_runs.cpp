// SPDX-License-Identifier: GPL-3.0-or-later
// bench_runs: what it measures, its options and what it prints are kUsage below (--help).
#include "benchutil.h"
#include "folderscanner.h"
#include "importjob.h"
#include "project.h"
#include "runcatalog.h"
#include "runmetrics.h"
#include "runsbrowser.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QHeaderView>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTreeView>

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <functional>

using namespace gml;
using gmlbench::median;

static double timeMs(const std::function<void()> &f)
{
    QElapsedTimer t;
    t.start();
    f();
    return double(t.nsecsElapsed()) / 1e6;
}

static void write(const QString &path, const QByteArray &text)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(path));
}

// An MLflow file store as `mlflow` writes it: mlruns/<experiment>/meta.yaml and one folder per
// run with meta.yaml, params/, tags/ and metrics/ (lines "timestamp_ms value step").
static void generateStore(const QString &root, int runs, int experiments, int steps)
{
    const char *optimisers[] = {"adam", "sgd", "adamw", "lamb"};
    const char *gpus[] = {"A100", "H100", "V100", "MI250"};
    const qint64 t0 = 1'700'000'000'000;
    for (int e = 0; e < experiments; ++e) {
        const QString exp = root + QStringLiteral("/mlruns/%1").arg(e + 1);
        QDir().mkpath(exp);
        write(exp + QStringLiteral("/meta.yaml"),
              QStringLiteral("artifact_location: file://%1\nexperiment_id: '%2'\nlifecycle_stage: "
                             "active\nname: sweep %2\n")
                  .arg(exp)
                  .arg(e + 1)
                  .toUtf8());
    }
    for (int r = 0; r < runs; ++r) {
        const int e = r % experiments + 1;
        const QString id = QStringLiteral("%1").arg(r, 32, 16, QLatin1Char('0'));
        const QString dir = root + QStringLiteral("/mlruns/%1/%2").arg(e).arg(id);
        for (const char *sub : {"params", "tags", "metrics", "artifacts"})
            QDir().mkpath(dir + QLatin1Char('/') + QLatin1String(sub));
        const qint64 start = t0 + qint64(r) * 90'000;
        write(dir + QStringLiteral("/meta.yaml"),
              QStringLiteral("artifact_uri: file://%1/artifacts\nend_time: %2\nexperiment_id: "
                             "'%3'\nlifecycle_stage: active\n"
                             "name: ''\nrun_id: %4\nrun_uuid: %4\nsource_type: 4\nstart_time: "
                             "%5\nstatus: 3\nuser_id: bench\n")
                  .arg(dir)
                  .arg(start + 60'000)
                  .arg(e)
                  .arg(id)
                  .arg(start)
                  .toUtf8());
        const double lr = 0.1 / double(1 << (r % 5));
        write(dir + QStringLiteral("/params/learning_rate"), QByteArray::number(lr));
        write(dir + QStringLiteral("/params/batch_size"), QByteArray::number(32 << (r % 4)));
        write(dir + QStringLiteral("/params/optimizer"), optimisers[r % 4]);
        write(dir + QStringLiteral("/params/gpu"), gpus[(r / 4) % 4]);
        write(dir + QStringLiteral("/tags/mlflow.runName"),
              QStringLiteral("trial-%1").arg(r).toUtf8());
        write(dir + QStringLiteral("/tags/sweep"), QByteArray::number(r / 100));
        QByteArray loss, accuracy;
        for (int s = 0; s < steps; ++s) {
            const qint64 ts = start + qint64(s) * 60'000 / steps;
            loss += QByteArray::number(ts) + ' ' +
                    QByteArray::number(2.5 / (1 + s * lr * 10), 'g', 8) + ' ' +
                    QByteArray::number(s) + '\n';
            accuracy += QByteArray::number(ts) + ' ' +
                        QByteArray::number(1 - 0.9 / (1 + s * lr * 5), 'g', 8) + ' ' +
                        QByteArray::number(s) + '\n';
        }
        write(dir + QStringLiteral("/metrics/loss"), loss);
        write(dir + QStringLiteral("/metrics/accuracy"), accuracy);
    }
}

// What --help prints.
constexpr const char *kUsage =
    "bench_runs: how fast the Runs browser opens and filters a project of many runs (issue 17:\n"
    "2,000 runs in under a second).\n"
    "\n"
    "  bench_runs [--runs N] [--experiments E] [--steps S] [--repeat R]\n"
    "\n"
    "Generates an MLflow store of N runs in E experiments (params: learning rate, batch size,\n"
    "optimiser, GPU; tags; metrics loss and accuracy logged at S steps), imports it with the\n"
    "importers the GUI uses and computes the runs' headline metrics (both timed once), then, as\n"
    "medians over R repeats:\n"
    "  catalog    loadRunCatalog: the experiments -> workloads -> runs with params and metrics;\n"
    "  browser    RunsBrowser::setCatalog: the tree built, expanded and its columns sized;\n"
    "  open       catalog + browser: what a user waits for when the dock opens;\n"
    "  filter     a text filter and a KEY=VALUE filter applied, the tree expanded again;\n"
    "  baseline   the same number of rows and columns of plain text put into a QStandardItemModel\n"
    "             under a QTreeView (no catalog, no proxy), the floor of any tree of that size.\n";

int main(int argc, char **argv)
{
    if (gmlbench::helpAsked(argc, argv, kUsage))
        return 0;
    QApplication app(argc, argv);
    int runs = 2000, experiments = 4, steps = 20, repeat = 5;
    const QStringList args = QCoreApplication::arguments().mid(1);
    for (int i = 0; i + 1 < args.size(); i += 2) {
        const int v = args[i + 1].toInt();
        if (args[i] == QLatin1String("--runs"))
            runs = v;
        else if (args[i] == QLatin1String("--experiments"))
            experiments = std::max(1, v);
        else if (args[i] == QLatin1String("--steps"))
            steps = v;
        else if (args[i] == QLatin1String("--repeat"))
            repeat = std::max(1, v);
        else
            qFatal("usage: bench_runs [--runs N] [--experiments E] [--steps S] [--repeat R]");
    }
    QTemporaryDir dir;
    const QString store = dir.filePath(QStringLiteral("store"));
    const double genMs = timeMs([&] { generateStore(store, runs, experiments, steps); });
    QString error;
    auto project = Project::open(dir.filePath(QStringLiteral("runs.grademl")),
                                 Project::Mode::ReadWrite, &error);
    if (!project)
        qFatal("%s", qPrintable(error));
    QStringList scanErrors;
    const double importMs = timeMs([&] {
        ImportJob job(*project);
        job.run(scanInputs({store}, {}, &scanErrors));
    });
    QStringList metricErrors;
    const QList<RunId> missing = runsWithoutMetrics(*project, sim::kRunMetricsVersion);
    const double metricsMs =
        timeMs([&] { sim::updateRunMetrics(*project, missing, &metricErrors); });
    std::printf("generated %d MLflow runs in %d experiments (%d steps of 2 metrics) in %.0f ms; "
                "imported in %.0f ms; "
                "headline metrics of %lld runs in %.0f ms\n",
                runs, experiments, steps, genMs, importMs, (long long)missing.size(), metricsMs);

    std::vector<double> catalogMs, browserMs, openMs, filterMs, baselineMs;
    int shown = 0, filtered = 0, keyFiltered = 0;
    for (int k = 0; k < repeat; ++k) {
        std::optional<RunCatalog> catalog;
        RunsBrowser browser;
        browser.resize(1400, 700);
        const double c = timeMs([&] { catalog = loadRunCatalog(*project, &error); });
        if (!catalog)
            qFatal("%s", qPrintable(error));
        const double b = timeMs([&] { browser.setCatalog(*catalog); });
        catalogMs.push_back(c);
        browserMs.push_back(b);
        openMs.push_back(c + b);
        shown = browser.visibleRunCount();
        filterMs.push_back(timeMs([&] {
            browser.setFilter(QStringLiteral("trial-1"));
            filtered = browser.visibleRunCount();
            browser.setFilter(QStringLiteral("optimizer=adamw"));
            keyFiltered = browser.visibleRunCount();
            browser.setFilter(QString());
        }));

        // The floor: a plain tree of the same size.
        QTreeView view;
        view.resize(1400, 700);
        QStandardItemModel model;
        baselineMs.push_back(timeMs([&] {
            auto *parent = new QStandardItem(QStringLiteral("workload"));
            model.appendRow(parent);
            for (int r = 0; r < int(catalog->runs.size()); ++r) {
                QList<QStandardItem *> row;
                for (int col = 0; col < RunsBrowser::Columns; ++col)
                    row << new QStandardItem(QStringLiteral("run %1 col %2").arg(r).arg(col));
                parent->appendRow(row);
            }
            view.setModel(&model);
            view.expandAll();
            for (int col = 0; col < RunsBrowser::Columns; ++col)
                view.resizeColumnToContents(col);
        }));
    }
    const double base = median(baselineMs);
    std::printf("runs listed %d; filter 'trial-1': %d runs, 'optimizer=adamw': %d runs\n", shown,
                filtered, keyFiltered);
    std::printf("%-10s %10s %10s\n", "", "median ms", "x baseline");
    const auto row = [&](const char *name, const std::vector<double> &v) {
        std::printf("%-10s %10.1f %10.2f\n", name, median(v), base > 0 ? median(v) / base : 0.0);
    };
    row("catalog", catalogMs);
    row("browser", browserMs);
    row("open", openMs);
    row("filter", filterMs);
    row("baseline", baselineMs);
    struct rusage usage
    {
    };
    getrusage(RUSAGE_SELF, &usage);
    std::printf("peak RSS %.0f MB\n", double(usage.ru_maxrss) / 1024.0);
    return metricErrors.isEmpty() && scanErrors.isEmpty() ? 0 : 1;
}
