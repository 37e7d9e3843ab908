// SPDX-License-Identifier: GPL-3.0-or-later
#include "notesmodel.h"

#include "timeformat.h"

namespace gml {

NotesModel::NotesModel(QObject *parent)
    : RowsModel({tr("Key"), tr("At"), tr("Run"), tr("On"), tr("Note")}, parent)
{
}

void NotesModel::setNotes(const std::vector<Note> &notes, const QHash<QString, TimeNs> &origin)
{
    std::vector<Row> rows;
    rows.reserve(notes.size());
    for (const Note &n : notes) {
        const TimeNs o = origin.value(n.run, 0);
        QString at = formatDuration(n.start - o);
        if (n.end > n.start)
            at += QStringLiteral(" → ") + formatDuration(n.end - o);
        const QString on =
            n.kind == Note::Kind::Slice   ? n.sliceName + (n.slice ? QString() : tr(" (not found)"))
            : n.kind == Note::Kind::Range ? tr("range, %1").arg(formatDuration(n.end - n.start))
                                          : tr("time");
        Row row;
        row.data = n.id;
        for (const QString &text :
             {n.bookmark ? QString::number(n.bookmark) : QString(), at, n.run, on, n.text}) {
            Cell c;
            c.text = text;
            c.toolTip = text;
            row.cells.push_back(std::move(c));
        }
        row.cells[At].sortKey = qint64(n.start - o);
        rows.push_back(std::move(row));
    }
    setRows(std::move(rows));
}

} // namespace gml
