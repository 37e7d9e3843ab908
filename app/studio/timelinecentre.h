// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The timeline's part of the studio window (issue 71: it was built by the window itself): the
// "Timeline" tab of the central views (the run switcher, the find bar, the track bar, the
// What-if button, a multi-rank run's overview above the timeline), the Details and Aggregate
// panes that show its selection, and the status bar's hover text and window range. The window
// places it and wires it to the session; it owns the controllers of the timeline's selection
// (SelectionController), the runs in focus (FocusController) and the rank overview.
#include "figuredialog.h"

#include <QObject>

#include <optional>

class QCheckBox;
class QLabel;
class QLineEdit;
class QMainWindow;
class QTabWidget;
class QTableView;
class QToolButton;

namespace gml {

class AggregateModel;
class DetailsPanel;
class FocusController;
class ProjectSession;
class RankOverviewController;
class RankOverviewView;
class SelectionController;
class TimelineState;
class TimelineView;

class TimelineCentre : public QObject
{
    Q_OBJECT
public:
    // Builds the central views (the Timeline tab first) as `window`'s central widget, the
    // Details and Aggregate docks, and the status bar's labels.
    TimelineCentre(QMainWindow *window, ProjectSession &session);
    ~TimelineCentre() override;

    TimelineState *state() const { return m_state; }
    TimelineView *timeline() const { return m_timeline; }
    DetailsPanel *details() const { return m_details; }
    AggregateModel *aggregate() const { return m_aggregateModel; }
    RankOverviewView *rankView() const { return m_rankView; }
    RankOverviewController *rankOverview() const { return m_rankOverview; }
    FocusController *focus() const { return m_focus; }
    SelectionController *selection() const { return m_selection; }
    QTabWidget *views() const { return m_views; } // the central views, the timeline first
    QToolButton *whatIfButton() const { return m_whatIfButton; }

    // The focus, the timeline's data and the rank overview follow the session; the focus
    // first (ProjectSession::focusing comes before opened).
    void subscribe(ProjectSession &session);
    // Another project opens: the selection and the last search are forgotten.
    void clearSelection();
    void setHoverText(const QString &text);
    void focusFind();           // View › Find
    QString findStatus() const; // "3 of 120", "no match", or why the search failed
    void exportFigure();        // File › Export Figure…

Q_SIGNALS:
    void openProjectRequested(const QString &path); // a rank's own project (rank overview)

private:
    QWidget *buildFindBar(QWidget *parent);
    void buildSelectionPanes();
    void updateStatus();

    QMainWindow *m_window;
    TimelineState *m_state;
    TimelineView *m_timeline;
    DetailsPanel *m_details = nullptr;
    AggregateModel *m_aggregateModel = nullptr;
    QTableView *m_aggregateView = nullptr;
    QLabel *m_aggregateTitle = nullptr;
    QLineEdit *m_findEdit = nullptr;
    QCheckBox *m_findRegex = nullptr;
    QLabel *m_findLabel = nullptr;
    QLabel *m_statusWindow = nullptr;
    QLabel *m_statusHover = nullptr;
    QToolButton *m_whatIfButton = nullptr;
    QTabWidget *m_views = nullptr;
    RankOverviewView *m_rankView = nullptr;
    RankOverviewController *m_rankOverview = nullptr;
    FocusController *m_focus = nullptr;
    SelectionController *m_selection = nullptr;
    std::optional<FigureDialog::Choice> m_lastFigure; // File › Export Figure's last settings
};

} // namespace gml
