// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The studio, live (issue 38; issue 71 took it out of the window): a followed folder's updates
// taken into the open window without losing the user's place, the status bar's Live label and
// Follow button, and File › Follow Folder… / Record Command…. The window opens the folder's
// project at its first update (ProjectOpener::finish); the timeline follows the data's end
// unless the user looked elsewhere (the Follow button brings it back).
#include "followcontroller.h"

#include <QObject>

class QLabel;
class QMainWindow;
class QToolButton;

namespace gml {

class ProjectOpener;
class ProjectSession;
class TimelineState;

class LiveControls : public QObject
{
    Q_OBJECT
public:
    LiveControls(QMainWindow *window, ProjectSession &session, ProjectOpener &opener,
                 TimelineState *state);

    void followFolder(const QString &folder);
    // Records `command` (grademl record) and follows its folder; false, and why, when the
    // recorder cannot start.
    bool recordCommand(const QStringList &command, const QString &interval, const QString &out,
                       QString *error);
    void askRecordCommand(); // File › Record Command…: the command and interval asked for
    FollowController &follower() { return m_follow; }

private:
    void onUpdate(const FollowController::Update &update);

    QMainWindow *m_window;
    ProjectSession &m_session;
    ProjectOpener &m_opener;
    TimelineState *m_state;
    FollowController m_follow;
    QToolButton *m_button = nullptr; // "Follow": the timeline back to the live end
    QLabel *m_label = nullptr;
};

} // namespace gml
