// SPDX-License-Identifier: GPL-3.0-or-later
#include "trackstore.h"

#include "project.h"

#include <QMutexLocker>

namespace gml {

TrackStore::TrackStore(QString projectPath) : m_path(std::move(projectPath)) {}

TrackStore::~TrackStore() = default;

std::shared_ptr<const SliceTrack> TrackStore::sliceTrack(TrackId track, QString *error)
{
    {
        QMutexLocker lock(&m_mutex);
        if (auto it = m_tracks.constFind(track); it != m_tracks.constEnd())
            return it.value();
    }
    // Load outside the lock: a slow track does not block readers of loaded ones. Two threads
    // racing for the same track both load it; the first to finish wins, the result is equal.
    auto project = Project::open(m_path, Project::Mode::ReadOnly, error);
    if (!project)
        return nullptr;
    QString why;
    auto loaded = std::make_shared<const SliceTrack>(SliceTrack::load(*project, track, &why));
    if (!why.isEmpty()) {
        if (error)
            *error = why;
        return nullptr;
    }
    QMutexLocker lock(&m_mutex);
    auto it = m_tracks.constFind(track);
    if (it != m_tracks.constEnd())
        return it.value();
    m_tracks.insert(track, loaded);
    return loaded;
}

bool TrackStore::isLoaded(TrackId track) const
{
    QMutexLocker lock(&m_mutex);
    return m_tracks.contains(track);
}

void TrackStore::clear()
{
    QMutexLocker lock(&m_mutex);
    m_tracks.clear();
}

} // namespace gml
