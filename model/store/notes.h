// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "types.h"

#include <QJsonObject>
#include <QString>

#include <optional>
#include <vector>

namespace gml {

class Project;

// Notes on a time, a range or a slice, with text, and bookmarks 1-9 (table note, schema v11).
// A note names its run, and a slice note also names its slice and track, rather than pointing
// at their rows: re-importing a run (new ids) keeps its notes, and a slice note finds its slice
// again by run, track, name and start (listNotes). Times are on the project clock.
struct Note
{
    enum class Kind { Time, Range, Slice };
    qint64 id = 0;
    Kind kind = Kind::Time;
    QString run;      // the run's name (empty: none in particular)
    TimeNs start = 0; // Time: start == end
    TimeNs end = 0;
    SliceId slice = 0; // a Slice note: the slice as last found (0: not found now)
    TrackId track = 0;
    QString sliceName, trackName;
    QString text;
    int bookmark = 0; // 1-9; 0: none
    QString created;  // UTC, "YYYY-MM-DD HH:MM:SS"

    QJsonObject toJson() const;
    static QString kindName(Kind kind); // "time", "range", "slice"
};

// Every note, by start. Slice notes whose slice is gone (the run was re-imported) are found
// again and, when the project is writable, their new ids kept. Empty for a project older than
// schema 11 (opened read-only).
std::vector<Note> listNotes(Project &project, QString *error);
// Adds a note (its id set); a bookmark moves to it from any other note. The run and a slice
// note's names come from the slice when `note.slice` is set (noteOnSlice). In one transaction.
[[nodiscard]] std::optional<qint64> addNote(Project &project, const Note &note, QString *error);
[[nodiscard]] bool removeNote(Project &project, qint64 id, QString *error);
// Sets or clears (0) bookmark `n` of a note.
[[nodiscard]] bool setNoteBookmark(Project &project, qint64 id, int bookmark, QString *error);
// A note on slice `id` (its run, track, name and times), for addNote; nullopt when there is no
// such slice.
std::optional<Note> noteOnSlice(Project &project, SliceId id, const QString &text, QString *error);
// The run (by name) whose span holds `t` on the project clock; empty when none does.
QString runAt(Project &project, TimeNs t);

} // namespace gml
