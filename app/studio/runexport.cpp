// SPDX-License-Identifier: GPL-3.0-or-later
#include "runexport.h"

#include "chromeexport.h"
#include "clusterproject.h"
#include "project.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QInputDialog>
#include <QMainWindow>
#include <QMessageBox>
#include <QPointer>
#include <QProcess>
#include <QProgressDialog>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QStatusBar>
#include <QtConcurrent>

#include <atomic>
#include <memory>
#include <optional>
#include <utility>

namespace gml {

namespace {

// The dialog a share job shows over `parent` after half a second (maximum 0: busy), kept until
// the job says it is done.
QProgressDialog *shareDialog(QWidget *parent, const QString &label, const QString &title,
                             int maximum)
{
    auto *dialog = new QProgressDialog(label, QObject::tr("Cancel"), 0, maximum, parent);
    dialog->setWindowTitle(title);
    dialog->setWindowModality(Qt::WindowModal);
    dialog->setMinimumDuration(500);
    dialog->setAutoClose(false);
    dialog->setAutoReset(false);
    return dialog;
}

} // namespace

void startRunExport(QWidget *parent, const QString &projectPath, const QString &runName,
                    const QString &outPath, std::function<void(const RunExportOutcome &)> done)
{
    auto cancel = std::make_shared<std::atomic_bool>(false);
    auto *dialog =
        shareDialog(parent, QObject::tr("Writing run '%1' as a Chrome trace…").arg(runName),
                    QObject::tr("Export Run"), 1000);
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

namespace {

// Which run (the one in focus, else asked), and where: a file beside the project named after it.
// Empty when the user cancels.
std::optional<std::pair<QString, QString>>
askRunAndPath(QWidget *parent, const QString &title, const QString &projectPath,
              const QStringList &focusRuns, const QString &suffix, const QString &filters)
{
    if (focusRuns.isEmpty()) {
        QMessageBox::information(parent, title, QObject::tr("Open a project with a run first."));
        return std::nullopt;
    }
    QString run = focusRuns.first();
    if (focusRuns.size() > 1) {
        bool ok = false;
        run = QInputDialog::getItem(parent, title, QObject::tr("Run to write:"), focusRuns, 0,
                                    false, &ok);
        if (!ok)
            return std::nullopt;
    }
    // Beside the project, but not in a hidden folder: a folder opened keeps its project in
    // FOLDER/.grademl/, and the report belongs beside the traces.
    QDir dir = QFileInfo(projectPath).absoluteDir();
    if (dir.dirName().startsWith(QLatin1Char('.')))
        dir.cdUp();
    const QString suggested =
        dir.filePath(QString(run).replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]")),
                                          QStringLiteral("_")) +
                     suffix);
    const QString path = QFileDialog::getSaveFileName(
        parent, QObject::tr("%1 '%2'").arg(title, run), suggested, filters);
    if (path.isEmpty())
        return std::nullopt;
    return std::make_pair(run, path);
}

} // namespace

void askRunExport(QWidget *parent, const QString &projectPath, const QStringList &focusRuns,
                  std::function<void(const RunExportOutcome &)> done)
{
    const auto picked = askRunAndPath(
        parent, QObject::tr("Export Run as a Chrome Trace (Perfetto, chrome://tracing)"),
        projectPath, focusRuns, QStringLiteral(".json.gz"),
        QObject::tr("Chrome trace, gzip (*.json.gz);;Chrome trace (*.json)"));
    if (!picked)
        return;
    QString out = picked->second;
    if (!out.endsWith(QLatin1String(".json")) && !out.endsWith(QLatin1String(".json.gz")))
        out += QStringLiteral(".json.gz");
    startRunExport(parent, projectPath, picked->first, out, std::move(done));
}

QString grademlExecutable()
{
    const QString beside = QCoreApplication::applicationDirPath() + QStringLiteral("/grademl");
    if (QFileInfo(beside).isExecutable())
        return beside;
    return QStandardPaths::findExecutable(QStringLiteral("grademl"));
}

void startRunReport(QWidget *parent, const QString &cli, const QString &projectPath,
                    const QString &runName, const QString &outPath,
                    std::function<void(const RunExportOutcome &)> done)
{
    RunExportOutcome failed;
    failed.path = outPath;
    if (cli.isEmpty() || !QFileInfo(cli).isExecutable()) {
        failed.message = QObject::tr("Run '%1' not reported: grademl (which writes reports) is "
                                     "neither beside the studio nor on PATH")
                             .arg(runName);
        if (done)
            done(failed);
        return;
    }
    auto *dialog = shareDialog(
        parent, QObject::tr("Writing the report of run '%1' (analysis and figures)…").arg(runName),
        QObject::tr("Save Run Report"), 0);
    auto *process = new QProcess(dialog);
    auto cancelled = std::make_shared<bool>(false);
    QObject::connect(dialog, &QProgressDialog::canceled, process, [process, cancelled] {
        *cancelled = true;
        process->kill(); // the report is written through QSaveFile: no half file is left
    });
    const auto finish = [dialog, process, cancelled, outPath, runName, done](bool started) {
        RunExportOutcome outcome;
        outcome.path = outPath;
        const QString out = QString::fromUtf8(process->readAllStandardOutput()).trimmed();
        const QString err = QString::fromUtf8(process->readAllStandardError()).trimmed();
        if (*cancelled) {
            outcome.cancelled = true;
            outcome.message =
                QObject::tr("Report of run '%1' cancelled; nothing written").arg(runName);
        } else if (started && process->exitStatus() == QProcess::NormalExit &&
                   process->exitCode() == 0) {
            outcome.ok = true;
            // "wrote REPORT.html: run 'R', N findings, K KiB"
            outcome.message = out.section(QLatin1Char('\n'), 0, 0);
            if (!outcome.message.isEmpty())
                outcome.message[0] = outcome.message[0].toUpper();
        } else {
            const QString why =
                !err.isEmpty() ? err.section(QLatin1Char('\n'), 0, 0)
                : started ? QObject::tr("grademl report stopped (exit %1)").arg(process->exitCode())
                          : process->errorString();
            outcome.message =
                QObject::tr("Run '%1' not reported to %2: %3").arg(runName, outPath, why);
        }
        dialog->deleteLater();
        if (done)
            done(outcome);
    };
    QObject::connect(process, &QProcess::finished, dialog, [finish] { finish(true); });
    QObject::connect(process, &QProcess::errorOccurred, dialog, [finish](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            finish(false);
    });
    // The report draws off screen: it needs no window system, whatever the studio runs on.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    process->setProcessEnvironment(env);
    process->start(cli, {QStringLiteral("report"), projectPath, QStringLiteral("--run"), runName,
                         QStringLiteral("--out"), outPath});
}

void askRunReport(QWidget *parent, const QString &projectPath, const QStringList &focusRuns,
                  std::function<void(const RunExportOutcome &)> done)
{
    const auto picked = askRunAndPath(
        parent, QObject::tr("Save Run Report (HTML, opens in any browser)"), projectPath, focusRuns,
        QStringLiteral("-report.html"), QObject::tr("HTML report (*.html)"));
    if (!picked)
        return;
    QString out = picked->second;
    if (!out.endsWith(QLatin1String(".html")) && !out.endsWith(QLatin1String(".htm")))
        out += QStringLiteral(".html");
    startRunReport(parent, grademlExecutable(), projectPath, picked->first, out, std::move(done));
}

void showRunExport(QMainWindow *window, const RunExportOutcome &outcome)
{
    if (outcome.ok)
        window->statusBar()->showMessage(outcome.message, 10000);
    else if (outcome.cancelled)
        window->statusBar()->showMessage(outcome.message, 8000);
    else
        QMessageBox::warning(window, QObject::tr("Run Not Written"), outcome.message);
}

} // namespace gml
