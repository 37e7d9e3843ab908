// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "notes.h"

#include <QWidget>

#include <vector>

class QLabel;
class QTableView;

namespace gml {

class NotesModel;

// The Notes pane: the project's notes (model/store/notes.h) by time, with their bookmark, run, what
// they sit on and their text. A double-click (or Enter) goes to a note; Add Note puts one on
// what the timeline has selected; the context menu removes a note or gives it a bookmark.
class NotesPanel : public QWidget
{
    Q_OBJECT
public:
    explicit NotesPanel(QWidget *parent = nullptr);
    // `origin`: each run's start (project clock), so times read from their run's start.
    void setNotes(const std::vector<Note> &notes, const QHash<QString, TimeNs> &origin);
    void setStatus(const QString &text);
    QTableView *table() const { return m_table; }
    NotesModel *model() const { return m_model; }
    qint64 noteAt(int row) const;

Q_SIGNALS:
    void noteActivated(qint64 id);
    void addRequested();
    void removeRequested(qint64 id);
    void bookmarkRequested(qint64 id, int bookmark); // 0: clear

private:
    NotesModel *m_model;
    QTableView *m_table;
    QLabel *m_status;
};

} // namespace gml
