// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "slicetrack.h"
#include "types.h"

#include <QHash>
#include <QMutex>
#include <QString>

#include <memory>

namespace gml {

class Project;

// Loads tracks of one project lazily and keeps them. The loaded tracks are immutable and
// shared; any thread may ask. Each thread that loads uses its own read-only connection.
class TrackStore
{
public:
    explicit TrackStore(QString projectPath);
    ~TrackStore();

    // The track's slices, loading them on first use. Null (with *error set) on failure.
    std::shared_ptr<const SliceTrack> sliceTrack(TrackId track, QString *error = nullptr);
    bool isLoaded(TrackId track) const;
    void clear();

private:
    QString m_path;
    mutable QMutex m_mutex;
    QHash<TrackId, std::shared_ptr<const SliceTrack>> m_tracks;
};

} // namespace gml
