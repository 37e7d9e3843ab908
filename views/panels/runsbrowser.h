// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runcatalog.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTreeView;

namespace gml {

// The Runs browser: the project's experiments -> workloads -> runs with each run's kind,
// status, start, duration, headline metrics, params and tags; sort by any column, filter by
// text or KEY=VALUE (a param or tag), multi-select. It shows a catalog it is given and asks
// for edits by signal (views never write the project): moving runs into a workload (from the
// context menu, or by dragging them onto a workload), tags; and for a comparison of the
// selected runs.
class RunsBrowser : public QWidget
{
    Q_OBJECT
public:
    enum Column {
        Name,
        Kind,
        Status,
        Start,
        Duration,
        StepTime,
        Spread,
        GpuBusy,
        Mfu,
        Memory,
        Energy,
        Params,
        Tags,
        Columns
    };

    explicit RunsBrowser(QWidget *parent = nullptr);

    void setCatalog(const RunCatalog &catalog);
    const RunCatalog &catalog() const { return m_catalog; }
    void setFilter(const QString &text);
    void showMessage(const QString &text); // below the tree: grouping notes, progress, errors
    QStringList selectedRuns() const;      // names, in tree order
    void selectRuns(const QStringList &names);
    int visibleRunCount() const; // runs that pass the filter
    QTreeView *tree() const { return m_tree; }

Q_SIGNALS:
    void selectionChanged(const QStringList &runs);
    void moveRequested(const QList<gml::RunId> &runs, const QString &experiment,
                       const QString &workload);
    void tagsRequested(gml::RunId run, const QJsonObject &tags);
    void compareRequested(const QStringList &runs);
    // Double-click, or "Show in Timeline" on the selection: these runs in the timeline's focus
    // (`projectClock`: where they ran, else aligned at their starts).
    void showInTimelineRequested(const QStringList &runs, bool projectClock);

private:
    void contextMenu(const QPoint &at);
    // Runs dropped on a workload row (-1: on "Runs in no workload").
    void dropOnWorkload(const QList<RunId> &ids, qint64 workload);
    QList<RunId> selectedIds() const;

    RunCatalog m_catalog;
    QLineEdit *m_filter;
    QTreeView *m_tree;
    QLabel *m_message;
    QPushButton *m_compare;
    QStandardItemModel *m_model;
    QSortFilterProxyModel *m_proxy;
};

} // namespace gml
