// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "notes.h"
#include "rowsmodel.h"

#include <QHash>

namespace gml {

// The project's notes (model/store/notes.h) by time: bookmark, where (from its run's start), run,
// what it sits on, text. RowDataRole: the note's id.
class NotesModel : public RowsModel
{
    Q_OBJECT
public:
    enum Column { Key, At, Run, On, Text };
    explicit NotesModel(QObject *parent = nullptr);
    // `origin`: each run's start (project clock), so times read from their run's start.
    void setNotes(const std::vector<Note> &notes, const QHash<QString, TimeNs> &origin);
};

} // namespace gml
