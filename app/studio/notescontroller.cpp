// SPDX-License-Identifier: GPL-3.0-or-later
#include "notescontroller.h"

#include "projectsession.h"

#include "notespanel.h"
#include "project.h"
#include "slicequery.h"
#include "timelinestate.h"
#include "timelineview.h"

#include <QtConcurrent>

namespace gml {

NotesController::NotesController(NotesPanel *panel, TimelineView *timeline, TimelineState *state,
                                 QObject *parent)
    : QObject(parent), m_panel(panel), m_timeline(timeline), m_state(state)
{
    connect(m_panel, &NotesPanel::noteActivated, this, qOverload<qint64>(&NotesController::goTo));
    connect(m_panel, &NotesPanel::removeRequested, this, &NotesController::remove);
    connect(m_panel, &NotesPanel::bookmarkRequested, this, [this](qint64 id, int n) {
        submit([id, n](Project &p, QString *why) { return setNoteBookmark(p, id, n, why); });
    });
    connect(m_timeline, &TimelineView::layoutChanged, this, &NotesController::showMarks);
    connect(&m_watcher, &QFutureWatcher<Result>::finished, this, [this] {
        const Result r = m_watcher.result();
        if (!m_pending.empty()) { // the next change, then its list
            auto next = std::move(m_pending.front());
            m_pending.erase(m_pending.begin());
            submit(std::move(next));
        }
        if (r.serial != m_serial)
            return;
        if (!r.error.isEmpty() && r.notes.empty() && m_notes.empty()) {
            m_panel->setStatus(r.error);
        } else {
            m_notes = r.notes;
            QHash<QString, TimeNs> origin;
            for (const RunSummary &run : m_data ? m_data->runs : QList<RunSummary>{})
                origin.insert(run.name, run.start);
            m_panel->setNotes(m_notes, origin);
            if (!r.error.isEmpty())
                m_panel->setStatus(r.error);
        }
        showMarks();
        Q_EMIT changed();
    });
}

NotesController::~NotesController()
{
    m_watcher.waitForFinished();
}

void NotesController::setProject(const QString &projectPath,
                                 std::shared_ptr<const TimelineData> data)
{
    m_projectPath = projectPath;
    m_data = std::move(data);
    m_notes.clear();
    m_pending.clear(); // changes for the project before
    submit({});
}

void NotesController::submit(std::function<bool(Project &, QString *)> change)
{
    if (m_projectPath.isEmpty())
        return;
    // One job at a time, in order: a change asked for while another runs waits its turn (the
    // GUI thread never waits for the project).
    if (m_watcher.isRunning()) {
        m_pending.push_back(std::move(change));
        return;
    }
    m_watcher.setFuture(QtConcurrent::run([path = m_projectPath, change, serial = ++m_serial]() {
        Result r;
        r.serial = serial;
        QString why;
        if (change) {
            auto project = Project::open(path, Project::Mode::ReadWrite, &why);
            if (!project || !change(*project, &why))
                r.error = tr("The note was not kept: %1").arg(why);
        }
        auto project = Project::open(path, Project::Mode::ReadOnly, &why);
        if (project)
            r.notes = listNotes(*project, &why);
        if (!why.isEmpty() && r.error.isEmpty())
            r.error = why;
        return r;
    }));
}

RunId NotesController::runId(const QString &name) const
{
    const RunSummary *r = m_data ? m_data->runNamed(name) : nullptr;
    return r ? r->id : 0;
}

void NotesController::showMarks()
{
    // The notes of the runs shown, on their clock (view time = project time - shift).
    std::vector<TimelineOverlay::NoteMark> marks;
    const auto &layout = m_timeline->layout();
    for (const Note &n : m_notes) {
        const RunId run = runId(n.run);
        if (run && !layout.showsRun(run))
            continue;
        const TimeNs shift = layout.shiftOfRun(run);
        marks.push_back({n.start - shift, n.end - shift, n.bookmark, n.text});
    }
    m_timeline->setNotes(std::move(marks));
}

void NotesController::addNote(const QString &text, int bookmark)
{
    if (!m_data)
        return;
    // What is selected: a slice, a range, the cursor, else the middle of the window (view
    // time, back to the project clock by the first run in focus's shift).
    const QList<RunId> focus = m_state->focusRuns();
    const RunSummary *focused = focus.isEmpty() ? nullptr : m_data->run(focus.first());
    const QString run = focused ? focused->name : QString();
    const TimeNs shift = m_timeline->layout().shiftOfRun(focused ? focused->id : 0);
    if (m_state->hasSelectedSlice()) {
        const SliceId slice = m_state->selectedSlice();
        submit([slice, text, bookmark](Project &p, QString *why) {
            auto note = noteOnSlice(p, slice, text, why);
            if (!note)
                return false;
            note->bookmark = bookmark;
            return gml::addNote(p, *note, why).has_value();
        });
        return;
    }
    Note n;
    n.run = run;
    n.text = text;
    n.bookmark = bookmark;
    if (m_state->hasSelection()) {
        n.kind = Note::Kind::Range;
        n.start = m_state->selectionStart() + shift;
        n.end = m_state->selectionEnd() + shift;
    } else {
        n.start = n.end =
            (m_state->hasCursor() ? m_state->cursor()
                                  : m_state->windowStart() + m_state->windowDuration() / 2) +
            shift;
    }
    submit([n](Project &p, QString *why) { return gml::addNote(p, n, why).has_value(); });
}

bool NotesController::goToBookmark(int n)
{
    for (const Note &note : m_notes)
        if (note.bookmark == n) {
            goTo(note);
            return true;
        }
    return false;
}

void NotesController::goTo(qint64 id)
{
    for (const Note &note : m_notes)
        if (note.id == id)
            goTo(note);
}

void NotesController::goTo(const Note &n)
{
    if (!m_data)
        return;
    if (n.kind == Note::Kind::Slice && n.slice)
        if (const auto ref = findSliceRef(*m_data, n.track, n.slice)) {
            m_timeline->revealSlice(*ref, false);
            return;
        }
    m_timeline->revealTime(runId(n.run), n.start, n.end);
}

void NotesController::remove(qint64 id)
{
    submit([id](Project &p, QString *why) { return removeNote(p, id, why); });
}

void NotesController::waitForIdle()
{
    do {
        m_watcher.waitForFinished();
        QCoreApplication::processEvents(); // delivers the result, starting any pending change
    } while (m_watcher.isRunning() || !m_pending.empty());
}

void NotesController::subscribe(const ProjectSession &session)
{
    connect(&session, &ProjectSession::opened, this,
            [this, &session] { setProject(session.path(), session.data()); });
}

} // namespace gml
