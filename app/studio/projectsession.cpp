// SPDX-License-Identifier: GPL-3.0-or-later
#include "projectsession.h"

#include "project.h"

namespace gml {

ProjectSession::ProjectSession(QObject *parent) : QObject(parent) {}

ProjectSession::~ProjectSession() = default;

void ProjectSession::open(const QString &path, const QString &openedPath,
                          std::shared_ptr<const TimelineData> data, std::shared_ptr<Project> reader,
                          const QStringList &groupings)
{
    m_path = path;
    m_openedPath = openedPath;
    m_data = std::move(data);
    m_groupings = groupings;
    m_readProject = std::move(reader);
    Q_EMIT focusing();
    Q_EMIT opened();
}

void ProjectSession::replaceData(std::shared_ptr<const TimelineData> data)
{
    const bool newRuns = !m_data || data->runs.size() != m_data->runs.size();
    m_data = std::move(data);
    Q_EMIT dataReplaced();
    if (newRuns)
        Q_EMIT runsChanged();
    Q_EMIT grew();
}

void ProjectSession::setFocus(const QStringList &runs)
{
    if (runs == m_focus)
        return;
    m_focus = runs;
    Q_EMIT focusChanged(runs);
}

} // namespace gml
