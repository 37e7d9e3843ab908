// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "flamegraph.h"
#include "latestjob.h"
#include "timelinedata.h"

#include <QObject>
#include <QTimer>

#include <memory>

namespace gml {

class ProjectSession;

class FlameView;
class TimelineState;
class TimelineView;

// Feeds the Flame Graph pane: the first run in focus over the timeline's selection (the whole
// run without one), computed off the GUI thread when the pane is shown and the selection, the
// focus or the pane's choices change (the latest request wins). A diff is against the previous
// selection, or another run over the same span after its start. A frame clicked highlights its
// slices in the timeline; "Show in Timeline" also reveals the first of them there.
class FlameController : public QObject
{
    Q_OBJECT
public:
    // Takes each project the session opens (projectsession.h).
    void subscribe(const ProjectSession &session);
    FlameController(FlameView *view, TimelineView *timeline, TimelineState *state,
                    QObject *parent = nullptr);
    ~FlameController() override;

    void setData(std::shared_ptr<const TimelineData> data);
    void refresh(); // recompute now if the pane is shown (else when it is)
    // Whether the pane is in front (its dock's visibilityChanged): a pane tabbed behind another
    // still says isVisible(), and computing it there read every track of the run at each open
    // (every shard of a cluster project).
    void setInView(bool inView);
    void waitForIdle(); // tests and screenshots: the running request's result delivered

Q_SIGNALS:
    void showTimelineRequested();
    void computed(); // a graph (or a message) is shown

private:
    struct Span
    {
        RunId run = 0;
        TimeNs t0 = 0, t1 = 0; // project clock
        bool operator==(const Span &o) const { return run == o.run && t0 == o.t0 && t1 == o.t1; }
    };
    struct Result
    {
        std::shared_ptr<const FlameGraph> graph;
        QString error;
    };
    std::optional<Span> currentSpan() const;
    void show(const Result &r);
    QString describe(const Span &span) const;
    // Lengths more than 10% apart: a diff's totals say more about the spans than the code.
    static bool spansDiffer(const Span &a, const Span &b);
    void highlight(int frame, bool reveal);

    FlameView *m_view;
    bool m_inView = false;
    TimelineView *m_timeline;
    TimelineState *m_state;
    std::shared_ptr<const TimelineData> m_data;
    QTimer m_debounce;
    LatestJob<Result> m_job{this};
    bool m_dirty = true;
    std::optional<Span> m_shown;    // the span of the graph shown
    std::optional<Span> m_previous; // the one before it (a diff's baseline)
    std::optional<Span> m_base;     // the baseline of the diff shown (none: no diff)
    RunId m_focusRun = 0;           // the first run in focus when m_previous was taken
    QString m_diffNote;             // why a diff was turned off, shown once
};

} // namespace gml
