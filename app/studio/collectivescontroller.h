// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "collectives.h"
#include "latestjob.h"
#include "timelinedata.h"

#include <QObject>
#include <QStringList>

#include <memory>

namespace gml {

class CollectivesView;
class ProjectSession;
class TimelineView;

// Feeds the Collectives pane: the collectives report (collectives.h, with links) of the first
// run in focus, read off the GUI thread when the pane is in front and the project or the focus
// changes (the latest request wins). A collective clicked is highlighted on every rank in the
// timeline, which shows its span; a rank clicked reveals its GPU's row.
class CollectivesController : public QObject
{
    Q_OBJECT
public:
    CollectivesController(CollectivesView *view, TimelineView *timeline, QObject *parent = nullptr);
    ~CollectivesController() override;
    // Takes each project the session opens and its focus (projectsession.h).
    void subscribe(const ProjectSession &session);
    void setData(std::shared_ptr<const TimelineData> data, QStringList focus);
    void setFocus(QStringList focus);
    void setInView(bool inView);
    void refresh(); // read now if the pane is in front (else when it is)
    void selectCollective(int index);
    void waitForIdle(); // tests and screenshots: the running request's result delivered
    CollectivesView *view() const { return m_view; }

private:
    struct Result
    {
        QString run;
        std::shared_ptr<const CollectiveReport> report;
        QString error;
    };
    void revealRank(int rank);

    CollectivesView *m_view;
    TimelineView *m_timeline;
    std::shared_ptr<const TimelineData> m_data;
    QStringList m_focus;
    QString m_shownRun;
    bool m_inView = false;
    bool m_dirty = true;
    LatestJob<Result> m_job{this};
};

} // namespace gml
