// SPDX-License-Identifier: GPL-3.0-or-later
#include "notespanel.h"

#include "notesmodel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace gml {

NotesPanel::NotesPanel(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(6, 2, 6, 2);
    m_status = new QLabel(this);
    auto *add = new QPushButton(tr("Add Note…"), this);
    add->setToolTip(
        tr("A note on the selected slice, else the selected range, else the cursor (Ctrl+M)"));
    auto *remove = new QPushButton(tr("Remove"), this);
    bar->addWidget(m_status, 1);
    bar->addWidget(add);
    bar->addWidget(remove);
    layout->addLayout(bar);
    m_model = new NotesModel(this);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("notesTable"));
    m_table->setModel(m_model);
    m_table->horizontalHeader()->setSectionResizeMode(NotesModel::Text, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(NotesModel::Key,
                                                      QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    layout->addWidget(m_table, 1);
    connect(add, &QPushButton::clicked, this, &NotesPanel::addRequested);
    connect(remove, &QPushButton::clicked, this, [this] {
        if (const qint64 id = noteAt(m_table->currentIndex().row()))
            Q_EMIT removeRequested(id);
    });
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex &i) {
        if (const qint64 id = noteAt(i.row()))
            Q_EMIT noteActivated(id);
    });
    connect(m_table, &QTableView::customContextMenuRequested, this, [this](const QPoint &pos) {
        const qint64 id = noteAt(m_table->rowAt(pos.y()));
        if (!id)
            return;
        QMenu menu(this);
        menu.addAction(tr("Go to Note"), this, [this, id] { Q_EMIT noteActivated(id); });
        QMenu *key = menu.addMenu(tr("Bookmark"));
        for (int n = 1; n <= 9; ++n)
            key->addAction(tr("Bookmark %1").arg(n), this,
                           [this, id, n] { Q_EMIT bookmarkRequested(id, n); });
        key->addAction(tr("None"), this, [this, id] { Q_EMIT bookmarkRequested(id, 0); });
        menu.addAction(tr("Remove"), this, [this, id] { Q_EMIT removeRequested(id); });
        menu.exec(m_table->viewport()->mapToGlobal(pos));
    });
    setNotes({}, {});
}

void NotesPanel::setNotes(const std::vector<Note> &notes, const QHash<QString, TimeNs> &origin)
{
    m_model->setNotes(notes, origin);
    m_table->resizeColumnsToContents();
    setStatus(
        notes.empty()
            ? tr("No notes yet: select a slice or a range and press Ctrl+M (Ctrl+1…9: a bookmark; "
                 "1…9: go to it).")
            : tr("%n note(s)", nullptr, int(notes.size())));
}

void NotesPanel::setStatus(const QString &text)
{
    m_status->setText(text);
}

qint64 NotesPanel::noteAt(int row) const
{
    return m_model->rowData(m_model->index(row, 0)).toLongLong();
}

} // namespace gml
