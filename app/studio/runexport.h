// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// File › Export Run…: a run written as a Chrome trace (model/share/chromeexport.h) for Perfetto
// and chrome://tracing, on a worker thread with a progress dialog whose Cancel stops it (the
// file then never appears). File › Save Run Report…: the HTML report of `grademl report`
// (app/cli/reportcommand.cpp), written by that command in a process of its own (the report
// draws its figures in both themes, which switches the process's theme: never in the window's
// process), with a busy dialog whose Cancel stops it.

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>

class QMainWindow;
class QWidget;

namespace gml {

// What an export ended with: the path written and a line for the status bar, or why not.
struct RunExportOutcome
{
    bool ok = false;
    bool cancelled = false;
    QString path, message;
};

// Writes run `runName` of the project at `projectPath` to `outPath` off the GUI thread (the
// project opened read-only on its own connection), showing progress over `parent` after half a
// second; `done` is called on the GUI thread. Returns at once.
void startRunExport(QWidget *parent, const QString &projectPath, const QString &runName,
                    const QString &outPath, std::function<void(const RunExportOutcome &)> done);

// The menu's way in: asks which run (when several are in focus) and where, then starts it.
void askRunExport(QWidget *parent, const QString &projectPath, const QStringList &focusRuns,
                  std::function<void(const RunExportOutcome &)> done);

// What an export ended with, shown in `window`: the status bar says what was written (or that
// it was cancelled), a dialog why not.
void showRunExport(QMainWindow *window, const RunExportOutcome &outcome);

// The `grademl` beside the studio (the package installs both in one folder), else on PATH;
// empty when neither.
QString grademlExecutable();

// Runs `cli report PROJECT --run RUN --out OUT` (the report: what `grademl report` writes);
// `done` is called on the GUI thread with its last output line or its error. Returns at once.
void startRunReport(QWidget *parent, const QString &cli, const QString &projectPath,
                    const QString &runName, const QString &outPath,
                    std::function<void(const RunExportOutcome &)> done);
// The menu's way in, as askRunExport.
void askRunReport(QWidget *parent, const QString &projectPath, const QStringList &focusRuns,
                  std::function<void(const RunExportOutcome &)> done);

} // namespace gml
