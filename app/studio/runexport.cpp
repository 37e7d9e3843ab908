// SPDX-License-Identifier: GPL-3.0-or-later
#include "runexport.h"

#include "chromeexport.h"
#include "clusterproject.h"
#include "project.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QInputDialog>
#include <QMessageBox>
#include <QPointer>
#include <QProgressDialog>
#include <QRegularExpression>
#include <QtConcurrent>

#include <atomic>
#include <memory>

namespace gml {

void startRunExport(QWidget *parent, const QString &projectPath, const QString &runName,
                    const QString &outPath, std::function<void(const RunExportOutcome &)> done)
{
    auto cancel = std::make_shared<std::atomic_bool>(false);
    auto *dialog =
        new QProgressDialog(QObject::tr("Writing run '%1' as a Chrome trace…").arg(runName),
                            QObject::tr("Cancel"), 0, 1000, parent);
    dialog->setWindowTitle(QObject::tr("Export Run"));
    dialog->setWindowModality(Qt::WindowModal);
    dialog->setMinimumDuration(500);
    dialog->setAutoClose(false);
    dialog->setAutoReset(false);
    QObject::connect(dialog, &QProgressDialog::canceled, dialog, [cancel] { *cancel = true; });
    QPointer<QProgressDialog> shown(dialog);
    auto *watcher = new QFutureWatcher<RunExportOutcome>(dialog);
    QObject::connect(watcher, &QFutureWatcher<RunExportOutcome>::finished, dialog,
                     [watcher, dialog, done = std::move(done)] {
                         const RunExportOutcome outcome = watcher->result();
                         dialog->deleteLater();
                         if (done)
                             done(outcome);
                     });
    watcher->setFuture(QtConcurrent::run([=]() {
        RunExportOutcome outcome;
        outcome.path = outPath;
        QString error;
        auto project = Project::open(projectPath, Project::Mode::ReadOnly, &error);
        std::optional<RunId> run;
        if (project && cluster::isClusterProject(*project))
            error = QObject::tr("a cluster project's slices are in its shards: open the shard of "
                                "the ranks to export (the rank lane's menu) and export its run");
        else if (project && !(run = project->findRun(runName)))
            error = QObject::tr("the project has no run '%1'").arg(runName);
        std::optional<ChromeExportResult> written;
        if (run)
            written = exportChromeTrace(
                *project, *run, outPath,
                [&](double f) {
                    QMetaObject::invokeMethod(
                        shown,
                        [shown, f] {
                            if (shown)
                                shown->setValue(int(f * 1000));
                        },
                        Qt::QueuedConnection);
                    return !cancel->load();
                },
                &error);
        if (written) {
            outcome.ok = true;
            outcome.message =
                QObject::tr("Wrote %1: run '%2', %3 slices, %4 counter samples, %5 flows, %6 notes")
                    .arg(QFileInfo(outPath).fileName(), runName)
                    .arg(written->slices)
                    .arg(written->counterSamples)
                    .arg(written->flows)
                    .arg(written->notes);
        } else {
            outcome.cancelled = cancel->load();
            outcome.message =
                outcome.cancelled
                    ? QObject::tr("Export of run '%1' cancelled; nothing written").arg(runName)
                    : QObject::tr("Run '%1' not written to %2: %3").arg(runName, outPath, error);
        }
        return outcome;
    }));
}

void askRunExport(QWidget *parent, const QString &projectPath, const QStringList &focusRuns,
                  std::function<void(const RunExportOutcome &)> done)
{
    const QString title = QObject::tr("Export Run");
    if (focusRuns.isEmpty()) {
        QMessageBox::information(parent, title, QObject::tr("Open a project with a run first."));
        return;
    }
    QString run = focusRuns.first();
    if (focusRuns.size() > 1) {
        bool ok = false;
        run = QInputDialog::getItem(parent, title, QObject::tr("Run to write:"), focusRuns, 0,
                                    false, &ok);
        if (!ok)
            return;
    }
    const QString suggested =
        QFileInfo(projectPath)
            .absoluteDir()
            .filePath(QString(run).replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]")),
                                           QStringLiteral("_")) +
                      QStringLiteral(".json.gz"));
    const QString path = QFileDialog::getSaveFileName(
        parent,
        QObject::tr("Export Run '%1' as a Chrome Trace (Perfetto, chrome://tracing)").arg(run),
        suggested, QObject::tr("Chrome trace, gzip (*.json.gz);;Chrome trace (*.json)"));
    if (path.isEmpty())
        return;
    QString out = path;
    if (!out.endsWith(QLatin1String(".json")) && !out.endsWith(QLatin1String(".json.gz")))
        out += QStringLiteral(".json.gz");
    startRunExport(parent, projectPath, run, out, std::move(done));
}

} // namespace gml
