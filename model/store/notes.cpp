// SPDX-License-Identifier: GPL-3.0-or-later
#include "notes.h"

#include "project.h"
#include "projectsummary.h"
#include "sqlitedb.h"

#include <sqlite3.h>

namespace gml {

namespace {

Note::Kind kindOf(const QString &text)
{
    return text == QLatin1String("slice")   ? Note::Kind::Slice
           : text == QLatin1String("range") ? Note::Kind::Range
                                            : Note::Kind::Time;
}

// Finds a slice note's slice again: on a track of its run with its track's name, its name and
// its start (project clock).
std::optional<std::pair<SliceId, TrackId>> findAgain(Project &project, const Note &n)
{
    auto q = project.db().prepare(
        "SELECT id, track_id FROM slice_info WHERE run = ? AND track = ? AND name = ? AND ts = ? "
        "LIMIT 1");
    q.bind(1, n.run);
    q.bind(2, n.trackName);
    q.bind(3, n.sliceName);
    q.bind(4, qint64(n.start));
    if (!q.step())
        return std::nullopt;
    return std::make_pair(q.int64(0), q.int64(1));
}

bool stillThere(Project &project, const Note &n)
{
    auto q = project.db().prepare(
        "SELECT n.value FROM slice s LEFT JOIN string n ON n.id = s.name_id WHERE s.id = ?");
    q.bind(1, n.slice);
    return q.step() && q.text(0) == n.sliceName;
}

} // namespace

QString Note::kindName(Kind kind)
{
    return kind == Kind::Slice   ? QStringLiteral("slice")
           : kind == Kind::Range ? QStringLiteral("range")
                                 : QStringLiteral("time");
}

QJsonObject Note::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("id"), id);
    o.insert(QStringLiteral("kind"), kindName(kind));
    o.insert(QStringLiteral("run"), run);
    o.insert(QStringLiteral("start_ns"), qint64(start));
    o.insert(QStringLiteral("end_ns"), qint64(end));
    if (kind == Kind::Slice) {
        o.insert(QStringLiteral("slice_id"), slice ? QJsonValue(qint64(slice)) : QJsonValue());
        o.insert(QStringLiteral("track_id"), track ? QJsonValue(qint64(track)) : QJsonValue());
        o.insert(QStringLiteral("slice_name"), sliceName);
        o.insert(QStringLiteral("track_name"), trackName);
    }
    o.insert(QStringLiteral("text"), text);
    o.insert(QStringLiteral("bookmark"), bookmark ? QJsonValue(bookmark) : QJsonValue());
    o.insert(QStringLiteral("created"), created);
    return o;
}

std::vector<Note> listNotes(Project &project, QString *error)
{
    std::vector<Note> out;
    if (project.schemaVersion() < 11)
        return out;
    auto q = project.db().prepare(
        "SELECT id, kind, run, start_ns, end_ns, slice_id, track_id, slice_name, track_name, text, "
        "bookmark, created_at FROM note ORDER BY start_ns, id");
    while (q.step()) {
        Note n;
        n.id = q.int64(0);
        n.kind = kindOf(q.text(1));
        n.run = q.text(2);
        n.start = q.int64(3);
        n.end = q.int64(4);
        n.slice = q.isNull(5) ? 0 : q.int64(5);
        n.track = q.isNull(6) ? 0 : q.int64(6);
        n.sliceName = q.text(7);
        n.trackName = q.text(8);
        n.text = q.text(9);
        n.bookmark = q.isNull(10) ? 0 : int(q.int64(10));
        n.created = q.text(11);
        // Rows another program wrote, read as this one writes them: a range in order, a bookmark
        // 1-9 or none.
        if (n.end < n.start)
            std::swap(n.start, n.end);
        if (n.bookmark < 1 || n.bookmark > 9)
            n.bookmark = 0;
        out.push_back(std::move(n));
    }
    if (!q.errorString().isEmpty()) {
        if (error)
            *error = q.errorString();
        return {};
    }
    // Slice notes whose slice is gone: found again (new ids kept where the project is writable).
    for (Note &n : out) {
        if (n.kind != Note::Kind::Slice || (n.slice && stillThere(project, n)))
            continue;
        const auto again = findAgain(project, n);
        n.slice = again ? again->first : 0;
        n.track = again ? again->second : 0;
        if (!project.isReadOnly()) {
            auto u =
                project.db().prepare("UPDATE note SET slice_id = ?, track_id = ? WHERE id = ?");
            if (n.slice) {
                u.bind(1, n.slice);
                u.bind(2, n.track);
            } else {
                u.bindNull(1);
                u.bindNull(2);
            }
            u.bind(3, n.id);
            (void)u.exec(); // remembered next time, or found again then
        }
    }
    return out;
}

std::optional<Note> noteOnSlice(Project &project, SliceId id, const QString &text, QString *error)
{
    auto q = project.db().prepare(
        "SELECT ts, end_ts, name, track_id, track, run FROM slice_info WHERE id = ?");
    q.bind(1, id);
    if (!q.step()) {
        if (error)
            *error = QStringLiteral("no slice %1").arg(id);
        return std::nullopt;
    }
    Note n;
    n.kind = Note::Kind::Slice;
    n.start = q.int64(0);
    n.end = q.int64(1);
    n.sliceName = q.text(2);
    n.track = q.int64(3);
    n.trackName = q.text(4);
    n.run = q.text(5);
    n.slice = id;
    n.text = text;
    return n;
}

QString runAt(Project &project, TimeNs t)
{
    const auto spans = runSpans(project);
    auto q = project.db().prepare("SELECT id, name FROM run ORDER BY id");
    while (q.step())
        if (const auto it = spans.find(q.int64(0));
            it != spans.end() && t >= it->first && t <= it->second)
            return q.text(1);
    return QString();
}

std::optional<qint64> addNote(Project &project, const Note &note, QString *error)
{
    auto fail = [&](const QString &why) -> std::optional<qint64> {
        if (error)
            *error = why;
        project.rollback();
        return std::nullopt;
    };
    if (note.bookmark < 0 || note.bookmark > 9)
        return fail(QStringLiteral("a bookmark is 1 to 9, got %1").arg(note.bookmark));
    if (note.end < note.start)
        return fail(QStringLiteral("a note's range ends before it starts"));
    if (!project.begin(error))
        return std::nullopt;
    if (note.bookmark) {
        auto clear = project.db().prepare("UPDATE note SET bookmark = NULL WHERE bookmark = ?");
        clear.bind(1, qint64(note.bookmark));
        if (!clear.exec())
            return fail(clear.errorString());
    }
    auto q = project.db().prepare(
        "INSERT INTO note(kind, run, start_ns, end_ns, slice_id, track_id, slice_name, track_name, "
        "text, bookmark) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    q.bind(1, Note::kindName(note.kind));
    q.bind(2, note.run);
    q.bind(3, qint64(note.start));
    q.bind(4, qint64(note.end));
    if (note.kind == Note::Kind::Slice) {
        q.bind(5, note.slice);
        q.bind(6, note.track);
        q.bind(7, note.sliceName);
        q.bind(8, note.trackName);
    } else {
        for (int i = 5; i <= 8; ++i)
            q.bindNull(i);
    }
    q.bind(9, note.text);
    if (note.bookmark)
        q.bind(10, qint64(note.bookmark));
    else
        q.bindNull(10);
    if (!q.exec())
        return fail(q.errorString());
    const qint64 id = project.db().lastInsertRowId();
    if (!project.commit(error))
        return std::nullopt;
    return id;
}

bool removeNote(Project &project, qint64 id, QString *error)
{
    auto q = project.db().prepare("DELETE FROM note WHERE id = ?");
    q.bind(1, id);
    if (!q.exec()) {
        if (error)
            *error = q.errorString();
        return false;
    }
    if (sqlite3_changes(project.db().handle()) == 0) {
        if (error)
            *error = QStringLiteral("no note %1").arg(id);
        return false;
    }
    return true;
}

bool setNoteBookmark(Project &project, qint64 id, int bookmark, QString *error)
{
    if (bookmark < 0 || bookmark > 9) {
        if (error)
            *error = QStringLiteral("a bookmark is 1 to 9, got %1").arg(bookmark);
        return false;
    }
    if (!project.begin(error))
        return false;
    auto clear =
        project.db().prepare("UPDATE note SET bookmark = NULL WHERE bookmark = ? OR id = ?");
    clear.bind(1, qint64(bookmark));
    clear.bind(2, id);
    auto set = project.db().prepare("UPDATE note SET bookmark = ? WHERE id = ?");
    set.bind(1, qint64(bookmark));
    set.bind(2, id);
    if (!clear.exec() || (bookmark && !set.exec())) {
        if (error)
            *error = project.db().lastError();
        project.rollback();
        return false;
    }
    return project.commit(error);
}

} // namespace gml
