// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "timelinedata.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

namespace gml {

class Project;

// The project open in the window, and the one place that says when it changes (issue 53). As
// Hotspot's pages subscribe to its parser, each controller subscribes to the session
// (subscribe(const ProjectSession &) in each) and the window only wires the views to it;
// nobody hands a project to a list of receivers in an order only a comment explains.
//
// A project opens in two steps, each a signal, in this order:
//   focusing  the data is in place; the FocusController decides which runs are in focus
//             (the timeline's first layout then sets the trace range to theirs before any paint
//             asks the pager for rows);
//   opened    everything else takes the project: the timeline, the panels, the controllers.
// A followed folder's update is three signals, in this order: dataReplaced (the same project,
// more data: the views redraw), runsChanged when a run appeared (the focus offers it), then grew
// (the analyses follow what was added, after the focus). focusChanged repeats the
// FocusController's choice for whoever follows it.
class ProjectSession : public QObject
{
    Q_OBJECT
public:
    explicit ProjectSession(QObject *parent = nullptr);
    ~ProjectSession() override;

    bool isOpen() const { return bool(m_data); }
    const QString &path() const { return m_path; }
    // The folder or file the user opened (the window's title).
    const QString &openedPath() const { return m_openedPath; }
    // The project as loaded (measured runs; a what-if's prediction is held by the timeline).
    const std::shared_ptr<const TimelineData> &data() const { return m_data; }
    // What the import said about grouping the folders' traces into runs, and why.
    const QStringList &groupings() const { return m_groupings; }
    // The GUI thread's read-only connection (a slice's details, scenarios); null when none is
    // open.
    Project *readProject() const { return m_readProject.get(); }

    // A load finished: the session now holds `data` of the project at `path`, and `reader`, the
    // read-only connection it was read through (ImportController and FollowController open the
    // project once and hand it over; the GUI thread alone uses it from then on).
    void open(const QString &path, const QString &openedPath,
              std::shared_ptr<const TimelineData> data, std::shared_ptr<Project> reader,
              const QStringList &groupings);
    // A followed folder's update of the open project.
    void replaceData(std::shared_ptr<const TimelineData> data);
    // The runs in focus changed (FocusController).
    void setFocus(const QStringList &runs);
    const QStringList &focus() const { return m_focus; }

Q_SIGNALS:
    void focusing();
    void opened();
    void dataReplaced();
    void runsChanged();
    void grew();
    void focusChanged(const QStringList &runs);

private:
    QString m_path, m_openedPath;
    std::shared_ptr<const TimelineData> m_data;
    QStringList m_groupings, m_focus;
    std::shared_ptr<Project> m_readProject;
};

} // namespace gml
