// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "searchcontroller.h"
#include "slicequery.h"

#include <QFuture>
#include <QObject>
#include <QTimer>

#include <vector>

class QLabel;
class QTableView;

namespace gml {

class AggregateModel;
class DetailsPanel;
class ProjectSession;
class TimelineState;
class TimelineView;

// What the timeline's selection shows, off the GUI thread where it reads: the selected slice's
// details and the slices its flows link (its self time read in the background for a paged
// track), the aggregate of a selected range (coalesced while a drag moves it), and Find's
// matches stepped through from the window.
class SelectionController : public QObject
{
    Q_OBJECT
public:
    struct Widgets
    {
        TimelineState *state;
        TimelineView *timeline;
        DetailsPanel *details;
        AggregateModel *aggregateModel;
        QTableView *aggregateView;
        QLabel *aggregateTitle;
        QLabel *findLabel;
    };
    SelectionController(const Widgets &widgets, const ProjectSession &session,
                        QObject *parent = nullptr);
    ~SelectionController() override;

    // Forgets the matches of the last search (another project opens).
    void reset();
    // Searches off the GUI thread when the pattern changed, then steps to the next (previous)
    // match.
    void find(const QString &pattern, bool regex, bool backwards = false);
    // Blocks until a search and its step are done, and the selected slice's self time.
    void waitForSearch();
    int findMatchCount() const { return int(m_matches.size()); }
    int findCurrent() const { return m_matchIndex; }

private:
    void onSelectedSliceChanged();
    void updateAggregate();
    void onAggregated(const std::vector<AggregateRow> &rows, TimeNs t0, TimeNs t1,
                      const QString &error);
    void onFound(const std::vector<SliceRef> &matches, qint64 hidden, const QString &error);
    void stepMatch(bool backwards);

    TimelineState *m_state;
    TimelineView *m_timeline;
    DetailsPanel *m_details;
    AggregateModel *m_aggregateModel;
    QTableView *m_aggregateView;
    QLabel *m_aggregateTitle;
    QLabel *m_findLabel;
    const ProjectSession &m_session;
    QTimer *m_aggregateTimer;
    SearchController m_search;
    std::vector<SliceRef> m_matches;
    qint64 m_hiddenMatches = 0; // on tracks a filter hides or a group folds
    bool m_findPending = false; // a search runs; its result takes this step:
    bool m_findBackwards = false;
    QString m_matchPattern;
    bool m_matchRegex = false;
    int m_matchIndex = -1;
    QFuture<void> m_selfTime; // the selected slice's self time (onSelectedSliceChanged)
};

} // namespace gml
