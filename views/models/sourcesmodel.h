// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "projectsummary.h"
#include "rowsmodel.h"

namespace gml {

// Every imported, failed or skipped file of the project: a row per file with its status,
// format, counts, clock alignment and error, its warnings as its children. RowDataRole of a
// file's row: its index in sources().
class SourcesModel : public RowsModel
{
    Q_OBJECT
public:
    enum Column { File, Status, Format, Slices, Counters, Flows, Clock, Message };
    // What the context menu of a file needs.
    struct Source
    {
        qint64 id = 0;
        QString file; // its name
        bool imported = false;
        qint64 appliedOffset = 0; // the clock offset in effect, ns
        bool overridden = false;  // set by the user
    };
    explicit SourcesModel(QObject *parent = nullptr);
    void setRuns(const QList<RunSummary> &runs);
    const std::vector<Source> &sources() const { return m_sources; }
    // The file of the row at `index` or of its parent (a warning); null when none.
    const Source *sourceAt(const QModelIndex &index) const;
    int failedCount() const { return m_failed; }

private:
    std::vector<Source> m_sources;
    int m_failed = 0;
};

} // namespace gml
