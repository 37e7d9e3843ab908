// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "projectsummary.h"

#include <QWidget>

class QTreeView;

namespace gml {

class SourcesModel;

// Every imported, failed or skipped file of the project with its error or warnings: import
// problems are listed here, one row per file, never as a stack of message boxes.
class SourcesPanel : public QWidget
{
    Q_OBJECT
public:
    explicit SourcesPanel(QWidget *parent = nullptr);
    void setRuns(const QList<RunSummary> &runs);
    int failedCount() const;
    QTreeView *tree() const { return m_tree; }
    SourcesModel *model() const { return m_model; }

Q_SIGNALS:
    // The user set (clear = false) or cleared a source's clock offset override (context menu).
    void clockOverrideRequested(qint64 source, bool clear, qint64 offsetNs);

private:
    void showContextMenu(const QPoint &pos);

    SourcesModel *m_model;
    QTreeView *m_tree;
};

} // namespace gml
