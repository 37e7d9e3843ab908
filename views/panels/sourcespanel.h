// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "projectsummary.h"

#include <QWidget>

class QTreeWidget;

namespace gml {

// Every imported, failed or skipped file of the project with its error or warnings: import
// problems are listed here, one row per file, never as a stack of message boxes.
class SourcesPanel : public QWidget
{
    Q_OBJECT
public:
    explicit SourcesPanel(QWidget *parent = nullptr);
    void setRuns(const QList<RunSummary> &runs);
    int failedCount() const { return m_failed; }
    QTreeWidget *tree() const { return m_tree; }

    enum Column { File, Status, Format, Slices, Counters, Flows, Clock, Message };

Q_SIGNALS:
    // The user set (clear = false) or cleared a source's clock offset override (context menu).
    void clockOverrideRequested(qint64 source, bool clear, qint64 offsetNs);

private:
    void showContextMenu(const QPoint &pos);

    QTreeWidget *m_tree;
    int m_failed = 0;
};

} // namespace gml
