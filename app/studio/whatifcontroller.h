// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "latestjob.h"
#include "timelinedata.h"
#include "transforms.h"
#include "whatif.h"

#include <QObject>

#include <memory>
#include <optional>

namespace gml {

class ProjectSession;

// Runs the what-if engine for the GUI off the GUI thread. select() builds a run's dependency
// graph and its identity replay once (LatestJob); request() replays a scenario on it and
// returns the report with the timeline data that shows the predicted run under the measured
// one. Requests made while one runs are coalesced: only the latest is replayed next, so a
// dragged slider never queues stale work.
class WhatIfController : public QObject
{
    Q_OBJECT
public:
    // Takes each project the session opens (projectsession.h).
    void subscribe(const ProjectSession &session);
    struct Graph
    {
        QString run;
        RunId runId = 0;
        std::shared_ptr<const sim::DependencyGraph> graph;
        sim::Replay identity;
        sim::WhatIfContext context;
        QString error;
    };
    struct Result
    {
        quint64 request = 0;
        QString run;
        sim::WhatIfReport report;
        // The replays behind the report (the graph view colours nodes by their change); the
        // predicted one is null when nothing was transformed.
        std::shared_ptr<const sim::Replay> identity;
        std::shared_ptr<const sim::Replay> predicted;
        std::shared_ptr<const TimelineData> data;
        double replayMs = 0; // prepare + replay + predicted tracks, on the worker
        QString error;
    };

    explicit WhatIfController(QObject *parent = nullptr);
    ~WhatIfController() override;

    // A new project: `base` is its timeline; forgets the graph.
    void setProject(const QString &projectPath, std::shared_ptr<const TimelineData> base);
    void select(const QString &run);
    void request(const QList<sim::Transform> &transforms);
    // Factors fitted on a measured pair (calibration.h), applied to every replay from now on;
    // null: none.
    void setCalibration(std::shared_ptr<const sim::Calibration> calibration);
    bool isBusy() const;
    void waitForIdle(); // tests and shutdown
    const std::optional<Graph> &graph() const { return m_graph; }

Q_SIGNALS:
    void graphReady(const QString &run, const QString &error);
    void resultReady(const gml::WhatIfController::Result &result);

private:
    void startNext();

    QString m_projectPath;
    std::shared_ptr<const TimelineData> m_base;
    std::optional<Graph> m_graph;
    using BuildJob = LatestJob<Graph>;
    using ReplayJob = LatestJob<Result>;
    BuildJob m_build{this, BuildJob::Overlap::Wait};
    ReplayJob m_replay{this, ReplayJob::Overlap::Coalesce};
    std::optional<QList<sim::Transform>> m_pending; // asked for before the graph was built
    std::shared_ptr<sim::StructureCache> m_cache;
    quint64 m_requests = 0;
    std::shared_ptr<const sim::Calibration> m_calibration;
};

} // namespace gml

Q_DECLARE_METATYPE(gml::WhatIfController::Result)
