// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "latestjob.h"
#include "runcatalog.h"
#include "strategy.h"
#include "sweepcharts.h"

#include <QElapsedTimer>
#include <QObject>

#include <atomic>
#include <functional>
#include <memory>

namespace gml {

class ProjectSession;

class SimulatePanel;

// Wires the Simulate panel: loads the asked model (built-in, or a measured run's layer graph
// through a connection of its own) and cluster, runs the sweep on a thread pool off the GUI
// thread with progress and cancel, shows the points, and hands the results to `save`, which
// writes them as simulated runs (the main window's import path: off the GUI thread, in one
// transaction per run, then the project reloads). The panel's charts show the last sweep, or
// every simulated run of the project as the run catalog lists them.
class SimulateController : public QObject
{
    Q_OBJECT
public:
    // Takes each project the session opens (projectsession.h).
    void subscribe(const ProjectSession &session);
    // Writes `results` as runs named `names`; false when the project cannot take them now.
    using Save =
        std::function<bool(const QList<sim::SimResult> &results, const QStringList &names)>;

    SimulateController(SimulatePanel *panel, Save save, QObject *parent = nullptr);
    ~SimulateController() override;

    void setProject(const QString &projectPath);
    // The project's runs: the measured ones a layer graph can come from, the simulated ones.
    void setCatalog(const RunCatalog &catalog);
    void simulate(); // what the panel's form asks for
    void cancel();
    bool isBusy() const { return m_job.isRunning(); }
    void waitForIdle(); // tests and screenshots: the sweep is shown (and handed to save) on return

Q_SIGNALS:
    // The sweep is shown; `saved` runs were handed to save (0 when none or it failed).
    void finished(int saved, const QString &error);

private:
    struct Result
    {
        QList<sim::SimResult> results;
        QStringList names;
        QStringList errors; // per configuration that failed
        QString error;      // nothing could run: the model or cluster did not load
        bool cancelled = false;
        int configurations = 0;
    };
    void onFinished(const Result &r);
    void showPoints();

    SimulatePanel *m_panel;
    Save m_save;
    QString m_projectPath;
    QList<SweepPoint> m_projectPoints; // every simulated run of the project
    QList<SweepPoint> m_sweepPoints;   // the last sweep
    QString m_sweepWhat;
    QElapsedTimer m_clock;
    using Job = LatestJob<Result>;
    Job m_job{this};
    int m_savedPending = 0; // runs handed to save, reported once the catalog has them
};

} // namespace gml
