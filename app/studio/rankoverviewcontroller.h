// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis.h"
#include "rankoverview.h"
#include "timelinedata.h"

#include <QFutureWatcher>
#include <QHash>
#include <QObject>

#include <memory>

namespace gml {

class RankOverviewView;
class TimelineState;
class TimelineView;

// Feeds the rank overview above the timeline: when a run in focus spans several ranks (the
// focused run with the most), reads its overview from the source summaries off the GUI thread and shows
// it; hides it otherwise. A source without a current summary (imported by an older program) is
// summarised then, and the summary kept where the project can be written. A lane clicked (or picked as slowest, median, fastest) opens that
// rank's GPU row in the timeline, scrolled to the top, with the cursor at the time clicked.
class RankOverviewController : public QObject
{
    Q_OBJECT
public:
    RankOverviewController(RankOverviewView *view, TimelineView *timeline, TimelineState *state,
                           QObject *parent = nullptr);
    ~RankOverviewController() override;

    void setProject(const QString &projectPath, std::shared_ptr<const TimelineData> data);
    void waitForIdle(); // tests and screenshots
    // The run shown (empty: none), and the track a lane opens.
    const QString &run() const { return m_run; }
    // The analysis of the run shown: its collectives' stragglers are marked (another run's are
    // ignored).
    void setStragglers(const QString &run, const std::vector<sim::Straggler> &stragglers);
    TrackId trackOf(int lane) const;

Q_SIGNALS:
    void loaded(const QString &error);

private:
    struct Result
    {
        quint64 generation = 0;
        std::shared_ptr<const RankOverview> overview;
        QString error;
    };
    void reveal(int lane, TimeNs at);
    void followFocus(); // shows the focused run over the most ranks, if any

    RankOverviewView *m_view;
    TimelineView *m_timeline;
    TimelineState *m_state;
    std::shared_ptr<const TimelineData> m_data;
    QString m_projectPath;
    QHash<RunId, size_t> m_ranksOfRun; // of m_data, counted in setProject
    QString m_run;
    RunId m_runId = 0;
    QFutureWatcher<Result> m_watcher;
    quint64 m_generation = 0;
};

} // namespace gml
