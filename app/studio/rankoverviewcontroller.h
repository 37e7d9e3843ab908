// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "analysis.h"
#include "latestjob.h"
#include "rankoverview.h"
#include "timelinedata.h"

#include <QFutureWatcher>
#include <QHash>
#include <QObject>

#include <memory>

namespace gml {

class ProjectSession;

class RankOverviewView;
class TimelineState;
class TimelineView;

// Feeds the rank overview above the timeline: when a run in focus spans several ranks (the
// focused run with the most), reads its overview from the source summaries off the GUI thread and
// shows it; hides it otherwise. A source without a current summary (imported by an older program)
// is summarised then, and the summary kept where the project can be written. A lane clicked (or
// picked as slowest, median, fastest) expands in place: that rank's GPU streams open in the
// timeline's pinned band, right under the overview, the rows below staying where they are; a second
// click folds them away, a click on another lane swaps them. The cursor goes to the time clicked. A
// double-click opens the rank's GPU row in the track tree instead, scrolled to the top. A
// right-click offers both, and in a cluster project opening the shard that holds the rank (its
// findings, graph and what-if).
class RankOverviewController : public QObject
{
    Q_OBJECT
public:
    // Takes each project the session opens (projectsession.h).
    void subscribe(const ProjectSession &session);
    RankOverviewController(RankOverviewView *view, TimelineView *timeline, TimelineState *state,
                           QObject *parent = nullptr);
    ~RankOverviewController() override;

    void setProject(const QString &projectPath, std::shared_ptr<const TimelineData> data);
    void waitForIdle(); // tests and screenshots
    // The run shown (empty: none), and the track a lane opens.
    const QString &run() const { return m_run; }
    // The analysis of the run shown: its collectives' stragglers are marked (another run's are
    // ignored).
    // `criticalByRank`: the run's critical path per rank (RunReport), which orders Slowest /
    // Median / Fastest first.
    void setStragglers(const QString &run, const std::vector<sim::Straggler> &stragglers,
                       const std::vector<std::pair<int, TimeNs>> &criticalByRank = {});
    TrackId trackOf(int lane) const;
    // The tracks a lane expands to (its GPU's streams with slices; else trackOf), and the lane
    // expanded now (-1: none).
    QList<TrackId> streamsOf(int lane) const;
    int expandedLane() const { return m_expandedLane; }

    // In a cluster project (model/store/clusterproject.h): the shard holding a lane's rank (empty:
    // none, with why), and asking the window to open it (a right-click on the lane offers it,
    // with expanding the lane and showing its GPU row).
    QString shardOf(int lane, QString *why = nullptr) const;
    void openShard(int lane);

Q_SIGNALS:
    void loaded(const QString &error);
    void openProjectRequested(const QString &path);
    // The overview's "Stragglers" button: the run shown is to be analysed (the Analysis page
    // answers, and its report marks them here through setStragglers).
    void stragglersRequested(const QString &run);

private:
    struct Result
    {
        std::shared_ptr<const RankOverview> overview;
        QString error;
    };
    void expand(int lane, TimeNs at, bool toggle);
    void fold(); // unpins the expanded lane's streams
    void reveal(int lane, TimeNs at);
    void followFocus();  // shows the focused run over the most ranks, if any
    void showIfUseful(); // shown with two lanes or more, unless the timeline shows rank rows
    void showLaneMenu(int lane, TimeNs at, const QPoint &globalPos);

    RankOverviewView *m_view;
    TimelineView *m_timeline;
    TimelineState *m_state;
    std::shared_ptr<const TimelineData> m_data;
    QString m_projectPath;
    QHash<RunId, size_t> m_ranksOfRun; // of m_data, counted in setProject
    QString m_run;
    RunId m_runId = 0;
    int m_expandedLane = -1;
    QList<TrackId> m_expanded; // pinned by the overview
    LatestJob<Result> m_job{this};
};

} // namespace gml
