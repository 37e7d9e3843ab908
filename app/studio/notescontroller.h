// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "notes.h"
#include "timelinedata.h"

#include <QFutureWatcher>
#include <QObject>

#include <functional>

#include <memory>
#include <vector>

namespace gml {

class ProjectSession;

class NotesPanel;
class TimelineState;
class TimelineView;

// Notes and bookmarks in the studio: the Notes pane's list, the marks on the timeline (the
// notes of the runs shown, on their clock) and the keys. A note goes on what the timeline has
// selected: the selected slice, else the selected range, else the cursor, else the middle of
// the window; a bookmark (Ctrl+1…9) is such a note carrying the number, and 1…9 go back to it.
// Reads and writes run off the GUI thread, each write in one transaction; a project that
// cannot be written says so in the pane.
class NotesController : public QObject
{
    Q_OBJECT
public:
    // Takes each project the session opens (projectsession.h).
    void subscribe(const ProjectSession &session);
    NotesController(NotesPanel *panel, TimelineView *timeline, TimelineState *state,
                    QObject *parent = nullptr);
    ~NotesController() override;

    void setProject(const QString &projectPath, std::shared_ptr<const TimelineData> data);
    void addNote(const QString &text, int bookmark = 0); // on what is selected (see above)
    void setBookmark(int n) { addNote(tr("Bookmark %1").arg(n), n); }
    bool goToBookmark(int n); // false: no note carries it
    void goTo(qint64 id);
    void remove(qint64 id);
    void waitForIdle(); // tests
    const std::vector<Note> &notes() const { return m_notes; }

Q_SIGNALS:
    void changed(); // the list was read again

private:
    struct Result
    {
        quint64 serial = 0;
        std::vector<Note> notes;
        QString error;
    };
    // Runs `change` (may be empty: only read) on a writable project off the GUI thread, then
    // reads the notes again.
    void submit(std::function<bool(Project &, QString *)> change);
    void showMarks();
    void goTo(const Note &n);
    RunId runId(const QString &name) const;

    NotesPanel *m_panel;
    TimelineView *m_timeline;
    TimelineState *m_state;
    QString m_projectPath;
    std::shared_ptr<const TimelineData> m_data;
    std::vector<Note> m_notes;
    QFutureWatcher<Result> m_watcher;
    std::vector<std::function<bool(Project &, QString *)>> m_pending; // changes waiting their turn
    quint64 m_serial = 0;
};

} // namespace gml
