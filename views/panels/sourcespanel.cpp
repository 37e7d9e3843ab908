// SPDX-License-Identifier: GPL-3.0-or-later
#include "sourcespanel.h"

#include "sourcesmodel.h"

#include <QHeaderView>
#include <QInputDialog>
#include <QMenu>
#include <QTreeView>
#include <QVBoxLayout>

#include <cmath>

namespace gml {

SourcesPanel::SourcesPanel(QWidget *parent)
    : QWidget(parent), m_model(new SourcesModel(this)), m_tree(new QTreeView(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tree);
    m_tree->setModel(m_model);
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tree, &QTreeView::customContextMenuRequested, this, &SourcesPanel::showContextMenu);
    m_tree->setRootIsDecorated(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setUniformRowHeights(true);
    m_tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tree->header()->setStretchLastSection(true);
}

int SourcesPanel::failedCount() const
{
    return m_model->failedCount();
}

void SourcesPanel::setRuns(const QList<RunSummary> &runs)
{
    m_model->setRuns(runs);
    for (int c = SourcesModel::File; c < SourcesModel::Message; ++c)
        m_tree->resizeColumnToContents(c);
}

void SourcesPanel::showContextMenu(const QPoint &pos)
{
    const SourcesModel::Source *src = m_model->sourceAt(m_tree->indexAt(pos));
    if (!src || !src->imported)
        return;
    const qint64 source = src->id;
    const qint64 applied = src->appliedOffset;
    const QString file = src->file;
    QMenu menu(this);
    menu.addAction(tr("Set Clock Offset…"), this, [this, file, source, applied] {
        bool ok = false;
        const double us = QInputDialog::getDouble(
            this, tr("Clock Offset"),
            tr("Offset added to the times of %1, in microseconds:").arg(file),
            double(applied) / 1e3, -1e12, 1e12, 3, &ok);
        if (ok)
            Q_EMIT clockOverrideRequested(source, false, qint64(std::llround(us * 1e3)));
    });
    QAction *reset = menu.addAction(tr("Use Computed Clock Offset"), this, [this, source] {
        Q_EMIT clockOverrideRequested(source, true, 0);
    });
    reset->setEnabled(src->overridden);
    menu.exec(m_tree->viewport()->mapToGlobal(pos));
}

} // namespace gml
